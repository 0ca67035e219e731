# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""generator/tuning.json: per-uarch knobs and length plans, each with its measurement;
generator/uarch.py: which CPUs a uarch name covers."""

import json
import os
import tempfile
import unittest
from unittest import mock

from repo import REPO
from generator import tuning, uarch
from generator.errors import UsageError
from generator.isa import get_isa
from generator.knobs import resolve, uarch_knobs
from generator.modes import generated_pairs, get_mode

PROVENANCE = {"machine": "AMD EPYC Zen 4", "date": "2026-12-01", "gains": "+5%"}


class TuningFile(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "tuning.json")
        patcher = mock.patch.object(tuning, "TUNING_FILE", self.path)
        patcher.start()
        self.addCleanup(patcher.stop)
        self.addCleanup(self.tmp.cleanup)

    def write(self, variants=None, lengths=None, schema=tuning.SCHEMA):
        with open(self.path, "w") as handle:
            json.dump({"schema": schema, "variants": variants or {},
                       "lengths": lengths or {}}, handle)

    def test_no_file_means_no_tuning(self):
        self.assertEqual(tuning.uarch_knobs("ctr", "avx10_512"), {})
        self.assertEqual(tuning.length_plans(), {})
        self.assertEqual(resolve(get_mode("ctr"), get_isa("avx10_512"), {}),
                         {"COUNTERS": "base", "KEYS": "reg", "ONEPASS": "loop", "TAIL": 4,
                          "TAILCTR": "swap", "UNROLL": 8})

    def test_uarch_knobs_leave_the_defaults_alone(self):
        self.write({"ctr": {"avx10_512": {"znver4": dict(PROVENANCE, knobs={"UNROLL": 4})}}})
        self.assertEqual(resolve(get_mode("ctr"), get_isa("avx10_512"), {})["UNROLL"], 8)
        self.assertEqual(uarch_knobs(get_mode("ctr"), get_isa("avx10_512")),
                         {"znver4": {"UNROLL": 4}})
        self.assertEqual(uarch_knobs(get_mode("ctr"), get_isa("avx10_256")), {})

    def test_an_entry_without_its_measurement_is_refused(self):
        for missing in ("machine", "date", "gains"):
            entry = dict(PROVENANCE, knobs={"UNROLL": 4})
            del entry[missing]
            self.write({"ctr": {"avx10_512": {"znver4": entry}}})
            with self.assertRaisesRegex(UsageError, f"variants.ctr.avx10_512.znver4: no "
                                                    f"{missing}"):
                tuning.uarch_knobs("ctr", "avx10_512")

    def test_unknown_uarch_and_knob_are_named(self):
        self.write({"ctr": {"avx10_512": {"skylake": dict(PROVENANCE, knobs={"UNROLL": 4})}}})
        with self.assertRaisesRegex(UsageError, "unknown uarch 'skylake'; valid: default \\(a "
                                                "CPU in no row of generator/uarch.py\\), znver4"):
            tuning.uarch_knobs("ctr", "avx10_512")
        self.write({"ctr": {"avx10_512": {"znver4": dict(PROVENANCE, knobs={"GHASH": "school"})}}})
        with self.assertRaisesRegex(UsageError, "GHASH does not apply to mode ctr"):
            uarch_knobs(get_mode("ctr"), get_isa("avx10_512"))

    def test_old_schema_is_refused(self):
        self.write(schema="aesgen-tuning-1")
        with self.assertRaisesRegex(UsageError, "expected schema 'aesgen-tuning-2'"):
            tuning.load()

    def test_length_plans_are_checked(self):
        good = dict(PROVENANCE, isa="avx10_512",
                    classes=[{"max_len": 31, "isa": "aesni_avx"},
                             {"max_len": 256, "isa": "avx10_256"}])
        self.write(lengths={"xts": {"znver4": good}})
        self.assertEqual(tuning.length_plans(),
                         {"xts": {"znver4": ("avx10_512", ((31, "aesni_avx", "uarch", 1, None),
                                                           (256, "avx10_256", "uarch", 1, None)),
                                               ())}})
        self.write(lengths={"xts": {"znver4": dict(good, stream_classes=[
            {"max_len": 64, "isa": "aesni_avx"}])}})
        with self.assertRaisesRegex(UsageError, "stream_classes: only gcm has them"):
            tuning.length_plans()
        self.write(lengths={"gcm": {"znver4": dict(good, stream_classes=[
            {"max_len": 32, "isa": "aesni_avx"}, {"max_len": 128, "isa": "avx10_256"}])}})
        self.assertEqual(tuning.length_plans()["gcm"]["znver4"][2],
                         ((32, "aesni_avx", "uarch", 1, None),
                          (128, "avx10_256", "uarch", 1, None)))
        # the plan's own ISA, as its file's own functions (not the uarch's variant)
        self.write(lengths={"gcm": {"znver5": dict(good, stream_classes=[
            {"max_len": 511, "isa": "avx10_512", "variant": "own"}])}})
        self.assertEqual(tuning.length_plans()["gcm"]["znver5"][2],
                         ((511, "avx10_512", "own", 1, None),))
        # a class of lengths whose last vector of the plan's ISA holds at most 32 bytes
        fill = {"max_len": 1120, "isa": "avx10_256", "min_len": 129, "last_vector_at_most": 32}
        self.write(lengths={"xctr": {"default": dict(good, classes=[fill])}})
        self.assertEqual(tuning.length_plans()["xctr"]["default"][1],
                         ((1120, "avx10_256", "uarch", 129, 32),))
        bad_cases = [
            (dict(good, classes=[{"max_len": 256, "isa": "avx10_256"},
                                 {"max_len": 31, "isa": "aesni_avx"}]), "ascending"),
            (dict(good, classes=[{"max_len": 64, "isa": "avx10_1024"}]), "unknown ISA"),
            (dict(good, isa="sse2"), "unknown ISA 'sse2'"),
            (dict(good, classes=[{"max_len": 64, "isa": "avx10_512"}]), "of avx10_512 itself"),
            (dict(good, classes=[{"max_len": 64, "isa": "avx10_512", "variant": "znver4"}]),
             "bad variant 'znver4'; valid: uarch, own"),
            # "default" is the name of a CPU in no row's entries, not of the file's own
            (dict(good, classes=[{"max_len": 64, "isa": "avx10_512", "variant": "default"}]),
             "bad variant 'default'; valid: uarch, own"),
            (dict(good, classes=[]), "no classes"),
            (dict(good, classes=[{"max_len": 0, "isa": "aesni_avx"}]), "ascending"),
            (dict(good, classes=[{"max_len": 64, "isa": "aesni_avx", "min_len": 65}]),
             "min_len 65: expected an integer 1..64"),
            (dict(good, classes=[{"max_len": 64, "isa": "aesni_avx", "min_len": 0}]),
             "min_len 0: expected an integer 1..64"),
            (dict(good, classes=[{"max_len": 640, "isa": "avx10_256",
                                  "last_vector_at_most": 64}]),
             "last_vector_at_most 64: expected a multiple of 16 below avx10_512's vector of "
             "64 bytes \\(valid: 16, 32, 48\\)"),
            (dict(good, classes=[{"max_len": 640, "isa": "avx10_256",
                                  "last_vector_at_most": 20}]), "last_vector_at_most 20"),
            (dict(good, classes=[{"max_len": 640, "isa": "avx10_256", "min": 129}]),
             "unknown field 'min'; valid: isa, max_len, min_len, last_vector_at_most, variant"),
        ]
        for entry, message in bad_cases:
            self.write(lengths={"xts": {"znver4": entry}})
            with self.assertRaisesRegex(UsageError, message):
                tuning.length_plans()
        self.write(lengths={"ecb": {"znver4": good}})
        with self.assertRaisesRegex(UsageError, "lengths.ecb: unknown mode"):
            tuning.length_plans()

    def test_length_classes_in_the_header(self):
        # C(max_len, isa, ISA, FNS, min_len, period, at_most): period = the plan ISA's vector,
        # at_most = period for any last vector; FROM_xctr: where xctr calls look
        from generator import manifest
        from generator.isa import ISAS
        fill = {"max_len": 1120, "isa": "avx10_256", "min_len": 129, "last_vector_at_most": 32}
        self.write(lengths={
            "xctr": {"default": dict(PROVENANCE, isa="avx10_512", classes=[fill])},
            "xts": {"default": dict(PROVENANCE, isa="avx10_512",
                                    classes=[{"max_len": 31, "isa": "aesni_avx"}])}})
        entries = [{"mode": m, "isa": "avx10_512", "variants": []} for m in ("xctr", "xts")]
        text = "\n".join(manifest._uarch_lines(entries, ISAS.values()))
        self.assertIn("C(1120, avx10_256, AVX10_256, TUNED, 129, 64, 32)", text)
        self.assertIn("C(31, aesni_avx, AESNI_AVX, TUNED, 1, 64, 64)", text)
        self.assertIn("#define AESGEN_GEN_LENGTH_CLASSES_FROM_xctr 129", text)
        self.assertNotIn("#define AESGEN_GEN_LENGTH_CLASSES_FROM_xts", text)
        self.assertNotIn("#define AESGEN_GEN_LENGTH_CLASSES_FROM_ctr", text)
        # a bundle without avx10_256 keeps the plan without its class, and no FROM
        text = "\n".join(manifest._uarch_lines(entries, [ISAS["avx10_512"], ISAS["aesni_avx"]]))
        self.assertNotIn("AVX10_256", text)
        self.assertNotIn("#define AESGEN_GEN_LENGTH_CLASSES_FROM_xctr", text)

    def test_the_default_plan(self):
        # "default": the plan of a CPU in no row of generator/uarch.py (checked like any)
        good = dict(PROVENANCE, isa="avx10_512", classes=[{"max_len": 31, "isa": "aesni_avx"}])
        self.write(lengths={"xts": {"default": good, "znver5": good}})
        self.assertEqual(sorted(tuning.length_plans()["xts"]), ["default", "znver5"])
        self.write(lengths={"xts": {"default": dict(good, classes=[])}})
        with self.assertRaisesRegex(UsageError, "lengths.xts.default: no classes"):
            tuning.length_plans()
        self.write(lengths={"xts": {"defaults": good}})
        with self.assertRaisesRegex(UsageError, "unknown uarch 'defaults'; valid: default "
                                                "\\(a CPU in no row of generator/uarch.py\\), "
                                                "znver4"):
            tuning.length_plans()
        del good["machine"]
        self.write(lengths={"xts": {"default": good}})
        with self.assertRaisesRegex(UsageError, "machine"):
            tuning.length_plans()

    def test_the_default_variant(self):
        # "default": the knobs of a CPU in no row of generator/uarch.py (checked like any)
        self.write({"ctr": {"avx10_512": {"default": dict(PROVENANCE, knobs={"UNROLL": 4})}}})
        self.assertEqual(tuning.uarch_knobs("ctr", "avx10_512"), {"default": {"UNROLL": 4}})
        self.assertEqual(uarch_knobs(get_mode("ctr"), get_isa("avx10_512")),
                         {"default": {"UNROLL": 4}})
        self.write({"ctr": {"avx10_512": {"default": {"knobs": {"UNROLL": 4}}}}})
        with self.assertRaisesRegex(UsageError, "variants.ctr.avx10_512.default: no machine"):
            tuning.uarch_knobs("ctr", "avx10_512")
        self.write({"ctr": {"avx10_512": {"default": dict(PROVENANCE, knobs={"UNROLL": 3})}}})
        with self.assertRaisesRegex(UsageError, "variants.ctr.avx10_512.default: bad value 3"):
            uarch_knobs(get_mode("ctr"), get_isa("avx10_512"))

    def test_save_variant_keeps_the_others(self):
        tuning.save_variant("ctr", "avx10_512", "znver4", dict(PROVENANCE, knobs={"UNROLL": 4}))
        tuning.save_variant("ctr", "avx10_512", "znver5", dict(PROVENANCE, knobs={"UNROLL": 16}))
        tuning.save_variant("xctr", "aesni_avx", "znver4", dict(PROVENANCE, knobs={"UNROLL": 2}))
        self.assertEqual(tuning.uarch_knobs("ctr", "avx10_512"),
                         {"znver4": {"UNROLL": 4}, "znver5": {"UNROLL": 16}})
        self.assertEqual(tuning.uarch_knobs("xctr", "aesni_avx"), {"znver4": {"UNROLL": 2}})
        with self.assertRaisesRegex(UsageError, "no gains"):
            tuning.save_variant("ctr", "avx10_512", "znver4", {"knobs": {}, "machine": "m",
                                                               "date": "d"})


class Uarches(unittest.TestCase):
    def test_signatures(self):
        cases = [("AuthenticAMD", 25, 17, "znver4"), ("AuthenticAMD", 25, 0x61, "znver4"),
                 ("AuthenticAMD", 25, 0x21, None), ("AuthenticAMD", 26, 2, "znver5"),
                 ("GenuineIntel", 6, 0x8f, "sapphirerapids"), ("GenuineIntel", 6, 0x55, None),
                 ("AuthenticAMD", 23, 1, "znver1"), ("AuthenticAMD", 23, 8, None),
                 ("AuthenticAMD", 23, 0x31, None), ("", -1, -1, None)]
        for vendor, family, model, want in cases:
            got = uarch.for_cpu(vendor, family, model)
            self.assertEqual(got.name if got else None, want, (vendor, family, model))

    def test_host_signature_from_cpuinfo(self):
        with tempfile.NamedTemporaryFile("w", suffix="cpuinfo", delete=False) as handle:
            handle.write("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\n"
                         "model\t\t: 17\nmodel name\t: AMD EPYC\n\nprocessor\t: 1\n"
                         "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n")
        self.addCleanup(os.unlink, handle.name)
        self.assertEqual(uarch.host_signature(handle.name), ("AuthenticAMD", 25, 17))
        self.assertEqual(uarch.host_uarch(handle.name).name, "znver4")
        self.assertEqual(uarch.host_signature("/nonexistent"), ("", -1, -1))

    def test_model_ranges_do_not_overlap(self):
        rows = [(u.vendor, u.family, low, high, u.name) for u in uarch.UARCHES.values()
                for low, high in u.models]
        for i, a in enumerate(rows):
            self.assertLessEqual(a[2], a[3], a)
            for b in rows[i + 1:]:
                if a[:2] == b[:2]:
                    self.assertTrue(a[3] < b[2] or b[3] < a[2], (a, b))


class CommittedTuningFile(unittest.TestCase):
    def test_is_valid_for_every_mode_and_isa(self):
        self.assertTrue(os.path.exists(os.path.join(REPO, "generator", "tuning.json")))
        for isa, mode in generated_pairs():
            uarch_knobs(mode, isa)   # raises on a bad entry
        tuning.length_plans()

    def test_every_entry_names_a_machine_of_its_uarch(self):
        """Never an entry measured elsewhere: the machine it names is that uarch."""
        words = {"znver1": "Zen (", "znver4": "Zen 4", "znver5": "Zen 5",
                 "sapphirerapids": ("Sapphire Rapids", "Emerald Rapids")}
        document = tuning.load()
        entries = [(u, e) for per_isa in document["variants"].values()
                   for per_uarch in per_isa.values() for u, e in per_uarch.items()]
        entries += [(u, e) for per_uarch in document["lengths"].values()
                    for u, e in per_uarch.items()]
        for name, entry in entries:
            if name == tuning.DEFAULT:   # measured on a CPU that no row names
                self.assertIn("no row of generator/uarch.py", entry["machine"])
                continue
            wanted = words[name] if isinstance(words[name], tuple) else (words[name],)
            self.assertTrue(any(w in entry["machine"] for w in wanted), (name, entry["machine"]))

    def test_a_default_plan_says_how_the_uarchs_own_plans_compare(self):
        """The default plan reaches CPUs nobody measured: its gains name every uarch whose
        own plan of the mode it was held against."""
        for mode, per_uarch in tuning.load()["lengths"].items():
            if tuning.DEFAULT not in per_uarch:
                continue
            gains = per_uarch[tuning.DEFAULT]["gains"]
            for name in per_uarch:
                if name != tuning.DEFAULT:
                    self.assertIn(name, gains, f"lengths.{mode}.default does not name {name}")


if __name__ == "__main__":
    unittest.main()
