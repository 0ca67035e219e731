# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""gen/manifest.json and gen/aesgen_gen.h against what they describe.

- the defined global symbols of every assembled gen/ object (both twins) are exactly
  the functions the manifest lists for that file, and the files' sha256 are the manifest's;
- every manifest prototype compiles against runtime/src (asm_abi.h's contracts, the
  runtime's implementation table) and the public header (aesgen_gcm_key's function
  pointers), in a translation unit this test writes from the JSON (not from
  aesgen_gen.h), and a wrong prototype or offset does not compile;
- every offset of generator/layout.py has its _Static_assert in gen/aesgen_gen.h, and
  the manifest's layout holds against the runtime's structs.

Needs cc and nasm (tests/tools.sh installs them).
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from repo import GEN, REPO, have
from generator import layout
from generator.functions import CONTRACTS

INCLUDES = ["-I" + os.path.join(REPO, d) for d in ("runtime/include", "runtime/src", "gen")]

# The member of the runtime's implementation table (runtime/src/internal.h) and of the
# public aesgen_gcm_key (runtime/include/aesgen.h) through which each function is called.
IMPL_MEMBER = {"ctr_crypt": "ctr", "ctr_crypt_iv": "ctr_iv", "xctr_crypt": "xctr", "xts_encrypt": "xts_encrypt",
               "xts_decrypt": "xts_decrypt", "gcm_ghash": "gcm_ghash",
               "gcm_enc_update": "gcm_enc_update", "gcm_dec_update": "gcm_dec_update",
               "gcm_enc_record": "gcm_enc_record", "gcm_dec_record": "gcm_dec_record"}
KEY_MEMBERS = {"gcm_ghash": ("ghash", "ghash_short"),
               "gcm_enc_update": ("enc_update", "enc_update_short"),
               "gcm_dec_update": ("dec_update", "dec_update_short"),
               "gcm_enc_record": ("enc_record",), "gcm_dec_record": ("dec_record",)}


def load_manifest():
    with open(os.path.join(GEN, "manifest.json"), encoding="utf-8") as handle:
        return json.load(handle)


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def defined_globals(obj):
    out = run("nm", "-g", "--defined-only", obj)
    if out.returncode != 0:
        raise AssertionError(out.stderr)
    return {line.split()[2] for line in out.stdout.splitlines() if len(line.split()) == 3}


def compiles(source, tmp):
    path = os.path.join(tmp, "check.c")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(source)
    result = run("cc", "-std=c11", "-Wall", "-Werror", "-c", *INCLUDES, "-o",
                 os.path.join(tmp, "check.o"), path)
    return result.returncode == 0, result.stderr


def prototype_checks(document, wrong_symbol=None):
    """C that redeclares every manifest prototype (a conflict with aesgen_gen.h does not
    compile) and asserts its type against the runtime's and the public header's."""
    lines = ['#include "internal.h"', ""]
    for entry in document["generated"]:
        for f in entry["functions"]:
            prototype = f["prototype"]
            if f["symbol"] == wrong_symbol:
                prototype = re.sub(r"^int ", "void ", prototype)
            contract = f["contract"]
            lines.append(prototype + ";")
            lines.append(f"_Static_assert(__builtin_types_compatible_p(__typeof__({f['symbol']}), "
                         f"{contract}), \"{f['symbol']}: asm_abi.h\");")
            lines.append(f"_Static_assert(__builtin_types_compatible_p(__typeof__(&{f['symbol']}), "
                         f"__typeof__(((aesgen_isa_impl *)0)->{IMPL_MEMBER[f['base']]})), "
                         f"\"{f['symbol']}: internal.h\");")
            for member in KEY_MEMBERS.get(f["base"], ()):
                lines.append(f"_Static_assert(__builtin_types_compatible_p(__typeof__(&"
                             f"{f['symbol']}), __typeof__(((aesgen_gcm_key *)0)->{member})), "
                             f"\"{f['symbol']}: aesgen.h\");")
    return "\n".join(lines) + "\n"


def layout_checks(document, wrong=None):
    lines = ['#include "internal.h"', ""]
    for c_type, fields in document["layout"]["structs"].items():
        for member, where in fields.items():
            offset = where["offset"] + (16 if (c_type, member) == wrong else 0)
            lines.append(f"_Static_assert(offsetof({c_type}, {member}) == {offset}, "
                         f"\"{c_type}.{member}\");")
    return "\n".join(lines) + "\n"


class ManifestLists(unittest.TestCase):
    def test_every_file_with_its_hash(self):
        document = load_manifest()
        for entry in document["generated"]:
            for ext, item in entry["files"].items():
                with open(os.path.join(GEN, item["path"]), "rb") as handle:
                    self.assertEqual(hashlib.sha256(handle.read()).hexdigest(), item["sha256"],
                                     f"gen/{item['path']}: not the manifest's (run make gen)")
        with open(os.path.join(GEN, document["header"]["path"]), "rb") as handle:
            self.assertEqual(hashlib.sha256(handle.read()).hexdigest(),
                             document["header"]["sha256"])

    def test_functions_have_contracts(self):
        for entry in load_manifest()["generated"]:
            for f in entry["functions"]:
                self.assertIn(f["base"], CONTRACTS)
                self.assertTrue(f["prototype"].startswith(f"int {f['symbol']}("), f["prototype"])
                self.assertEqual(f["symbol"], f"aesgen_{f['base']}_{entry['isa']}"
                                 + (f"_{f['variant']}" if f["variant"] else ""))

    def test_feature_masks_are_the_named_bits(self):
        document = load_manifest()
        bits = {name: 1 << i for i, name in enumerate(document["cpu_features"])}
        for item in document["isas"] + document["generated"]:
            self.assertEqual(item["feature_mask"],
                             sum(bits[name] for name in item["cpu_features"]))
        for name, feature in document["cpu_features"].items():
            self.assertTrue(("cpuid" in feature) != ("xcr0" in feature), name)

    def test_regions_have_their_stride(self):
        isas = {i["name"]: i for i in load_manifest()["isas"]}
        for entry in load_manifest()["generated"]:
            variants = {v["name"]: v for v in entry["variants"]}
            for region in entry["mca_regions"]:
                knobs = dict(entry["knobs"])
                if region["variant"]:      # a uarch variant's loop: its own knobs
                    self.assertTrue(region["name"].endswith("_" + region["variant"]) or
                                    f"_{region['variant']}_" in region["name"])
                    knobs.update(variants[region["variant"]]["knobs"])
                self.assertEqual(region["bytes_per_iteration"],
                                 knobs["UNROLL"] * isas[entry["isa"]]["vector_bytes"],
                                 region["name"])

    def test_variant_rows_carry_their_own_stride(self):
        # gen/aesgen_gen.h's AESGEN_GEN_VARIANT_SETS: each variant's UNROLL and main-loop
        # bytes, which the C ABI tests take as the variant's stride
        isas = {i["name"]: i for i in load_manifest()["isas"]}
        with open(os.path.join(GEN, "aesgen_gen.h"), encoding="utf-8") as handle:
            header = handle.read()
        block = re.search(r"#define AESGEN_GEN_VARIANT_SETS\(X\)((?:.*\\\n)*.*)", header).group(1)
        rows = {(m[0], m[1], m[2]): (int(m[4]), int(m[5])) for m in re.findall(
            r"X\((\w+), (\w+), _(\w+), (\w+), (\d+), (\d+)\)", block)}
        expected = {}
        for entry in load_manifest()["generated"]:
            for v in entry["variants"]:
                knobs = dict(entry["knobs"], **v["knobs"])
                expected[(entry["isa"], entry["mode"], v["name"])] = (
                    knobs["UNROLL"], knobs["UNROLL"] * isas[entry["isa"]]["vector_bytes"])
        self.assertEqual(rows, expected)
        self.assertIn(512, {stride for _, stride in rows.values()})   # znver5's GCM


@unittest.skipUnless(have("cc") and have("nasm") and have("nm"), "needs cc, nasm, nm")
class ObjectsAndPrototypes(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_symbols_are_exactly_the_manifest_functions(self):
        for entry in load_manifest()["generated"]:
            want = {f["symbol"] for f in entry["functions"]}
            gas = os.path.join(self.tmp.name, "gas.o")
            nasm = os.path.join(self.tmp.name, "nasm.o")
            for result in (run("cc", "-c", "-o", gas, os.path.join(GEN, entry["files"]["S"]["path"])),
                           run("nasm", "-f", "elf64", "-o", nasm,
                               os.path.join(GEN, entry["files"]["asm"]["path"]))):
                self.assertEqual(result.returncode, 0, result.stderr)
            with self.subTest(file=entry["files"]["S"]["path"]):
                self.assertEqual(defined_globals(gas), want)
                self.assertEqual(defined_globals(nasm), want)

    def test_prototypes_match_the_runtime_and_the_public_header(self):
        document = load_manifest()
        ok, errors = compiles(prototype_checks(document), self.tmp.name)
        self.assertTrue(ok, errors)

    def test_a_wrong_prototype_does_not_compile(self):
        document = load_manifest()
        symbol = document["generated"][0]["functions"][0]["symbol"]
        ok, errors = compiles(prototype_checks(document, wrong_symbol=symbol), self.tmp.name)
        self.assertFalse(ok)
        self.assertIn(symbol, errors)

    def test_manifest_layout_holds_and_a_wrong_offset_does_not_compile(self):
        document = load_manifest()
        ok, errors = compiles(layout_checks(document), self.tmp.name)
        self.assertTrue(ok, errors)
        ok, errors = compiles(layout_checks(document, ("aesgen_gcm_record", "tail_len")),
                              self.tmp.name)
        self.assertFalse(ok)
        self.assertIn("aesgen_gcm_record.tail_len", errors)


class PartialGen(unittest.TestCase):
    def test_gen_of_one_file_keeps_the_others_knobs(self):
        """`gen --isa X --mode Y KNOB=..` rewrites that file's entry (and the header's
        stride); every other entry stays as the manifest recorded it."""
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "gen")
            shutil.copytree(GEN, out)
            result = subprocess.run([sys.executable, "-m", "generator", "gen", "--out", out,
                                     "--isa", "avx10_512", "--mode", "ctr", "UNROLL=2"],
                                    cwd=REPO, capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(os.path.join(out, "manifest.json"), encoding="utf-8") as handle:
                after = {(e["isa"], e["mode"]): e for e in json.load(handle)["generated"]}
            before = {(e["isa"], e["mode"]): e for e in load_manifest()["generated"]}
            changed = after.pop(("avx10_512", "ctr"))
            before.pop(("avx10_512", "ctr"))
            self.assertEqual(after, before)
            self.assertEqual(changed["knobs"]["UNROLL"], 2)
            # the file's own loop; its uarch variant's (generator/tuning.json) keeps its knobs
            self.assertEqual([r["bytes_per_iteration"] for r in changed["mca_regions"]
                              if not r["variant"]], [128])
            with open(os.path.join(out, "aesgen_gen.h"), encoding="utf-8") as handle:
                self.assertIn("#define AESGEN_GEN_STRIDE_avx10_512_ctr 128\n", handle.read())
            with open(os.path.join(out, "avx10_512", "ctr.S"), "rb") as handle:
                self.assertEqual(hashlib.sha256(handle.read()).hexdigest(),
                                 changed["files"]["S"]["sha256"])


    def test_fresh_out_directory_describes_only_its_files(self):
        """`gen --out EMPTY --isa X --mode Y`: the manifest and header list that file alone
        (none of the files it does not hold); a second file joins it, the first keeps its
        entry."""
        with tempfile.TemporaryDirectory() as tmp:
            def gen(*args):
                result = subprocess.run([sys.executable, "-m", "generator", "gen", "--out",
                                         tmp, *args], cwd=REPO, capture_output=True,
                                        text=True)
                self.assertEqual(result.returncode, 0, result.stderr)
                with open(os.path.join(tmp, "manifest.json"), encoding="utf-8") as handle:
                    return {(e["isa"], e["mode"]): e for e in json.load(handle)["generated"]}
            first = gen("--isa", "aesni_avx", "--mode", "xts", "TWEAK=double")
            self.assertEqual(list(first), [("aesni_avx", "xts")])
            self.assertEqual(first[("aesni_avx", "xts")]["knobs"]["TWEAK"], "double")
            both = gen("--isa", "avx10_512", "--mode", "ctr")
            self.assertEqual(sorted(both), [("aesni_avx", "xts"), ("avx10_512", "ctr")])
            self.assertEqual(both[("aesni_avx", "xts")], first[("aesni_avx", "xts")])
            with open(os.path.join(tmp, "aesgen_gen.h"), encoding="utf-8") as handle:
                header = handle.read()
            self.assertIn("AESGEN_GEN_STRIDE_avx10_512_ctr", header)
            self.assertNotIn("AESGEN_GEN_STRIDE_vaes_avx2_gcm", header)

    def test_unreadable_manifest_is_a_clear_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "manifest.json"), "w", encoding="utf-8") as handle:
                handle.write("{not json")
            result = subprocess.run([sys.executable, "-m", "generator", "gen", "--out", tmp,
                                     "--isa", "aesni_avx", "--mode", "ctr"],
                                    cwd=REPO, capture_output=True, text=True)
            self.assertEqual(result.returncode, 2, result.stderr)
            self.assertIn("manifest.json: not valid JSON", result.stderr)


class LayoutAsserted(unittest.TestCase):
    def test_every_offset_has_a_static_assert(self):
        with open(os.path.join(GEN, "aesgen_gen.h"), encoding="utf-8") as handle:
            header = handle.read()
        asserted = set(re.findall(r"_Static_assert\(offsetof\((\w+), (\w+)\) == "
                                  r"AESGEN_LAYOUT_\w+ &&", header))
        fields = {(s.c_type, f.member) for s in layout.STRUCTS for f in s.fields}
        self.assertEqual(asserted, fields)
        for name, value in layout.constants().items():
            self.assertIn(f"#define {name} {value}\n", header)
        self.assertEqual(load_manifest()["layout"], layout.as_json())


if __name__ == "__main__":
    unittest.main()
