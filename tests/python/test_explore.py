# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""perf/explore.py and perf/report.py: the sweep, ranking, the --apply rule, calibration
rows and the bench-mode mapping (no timing here: the sweep itself is make explore)."""

import json
import os
import re
import tempfile
import unittest

from repo import GEN
from generator.errors import UsageError
from generator.isa import get_isa
from generator.modes import get_mode
from perf import explore, mca, report


def candidate(knobs, ratios_per_round, default=False, status="ok"):
    """A measured candidate whose % of ceiling per round is given for one case."""
    c = explore.Candidate(dict(knobs), default, status=status)
    for pct in ratios_per_round:
        c.rounds.append({("ctr", 256, 4096): {"pct_ceiling": pct, "gb_per_s": pct / 10}})
    return c


class Sweep(unittest.TestCase):
    def test_default_first_all_distinct_tail_within_unroll(self):
        candidates = explore.sweep(get_mode("ctr"), get_isa("avx10_512"))
        self.assertTrue(candidates[0].is_default)
        self.assertEqual(sum(c.is_default for c in candidates), 1)
        tags = [c.tag for c in candidates]
        self.assertEqual(len(tags), len(set(tags)))
        self.assertTrue(all(c.knobs["TAIL"] <= c.knobs["UNROLL"] for c in candidates))
        # 5 UNROLL x 3 KEYS, TAIL 1..min(8, UNROLL), 2 ONEPASS, 2 TAILCTR:
        # (1 + 2 + 3 + 4 + 4) x 3 x 2 x 2
        self.assertEqual(len(candidates), 168)

    def test_only_keeps_the_default_and_the_variants_with_those_values(self):
        mode, isa = get_mode("xts"), get_isa("avx10_512")
        only = explore.parse_only("TWEAK=ahead,UNROLL=4", mode)
        self.assertEqual(only, {"TWEAK": "ahead", "UNROLL": 4})
        from generator.uarch import UARCHES
        # znver4 has no xts entry: its default is the files' own knobs
        candidates = explore.sweep(mode, isa, UARCHES["znver4"], only)
        self.assertEqual(candidates[0].knobs["TWEAK"], "clmul")
        self.assertTrue(candidates[0].is_default)
        rest = candidates[1:]
        # KEYS 3 x TAIL 1, 2, 4 x ONEPASS 2 x TWEAKENC 2 (KEYS=rows kept as 'no fit': the
        # plan refuses it for xts)
        self.assertEqual(len(rest), 36)
        self.assertTrue(all(c.knobs["TWEAK"] == "ahead" and c.knobs["UNROLL"] == 4
                            for c in rest))
        with self.assertRaisesRegex(UsageError, "bad value 'bogus' for TWEAK"):
            explore.parse_only("TWEAK=bogus", mode)
        with self.assertRaisesRegex(UsageError, "knob GHASH does not apply to mode xts"):
            explore.parse_only("GHASH=school", mode)


class BenchRun(unittest.TestCase):
    def test_the_bench_runs_the_sweeps_lengths(self):
        # the bench's len= filters pick among the lengths it runs: without BENCH_LENGTHS a
        # sweep of 128, 320 B measured nothing ("the bench has no xts workload")
        saved = explore.LENGTHS
        self.addCleanup(setattr, explore, "LENGTHS", saved)
        explore.LENGTHS = explore.parse_lengths("128,320,16384")
        c = explore.Candidate({"UNROLL": 4}, False)
        env = explore.bench_env(c, BENCH_QUICK="1")
        self.assertEqual(env["BENCH_LENGTHS"], "128,320,16384")
        self.assertEqual(env["AESGEN_VARIANT"], "none")
        with open(os.path.join(GEN, "..", "tests", "bench", "bench.h"), encoding="utf-8") as f:
            self.assertIn(f"#define BENCH_MAX_LENGTHS {explore.BENCH_MAX_LENGTHS} ", f.read())
        with self.assertRaisesRegex(UsageError, "33 lengths; valid: at most 32"):
            explore.parse_lengths(",".join(["64"] * 33))


class Ranking(unittest.TestCase):
    def test_wrong_variants_are_never_ranked(self):
        default = candidate({"UNROLL": 8}, [90, 90, 90], default=True)
        fast_but_wrong = candidate({"UNROLL": 4}, [99, 99, 99], status="WRONG")
        slower = candidate({"UNROLL": 2}, [80, 80, 80])
        ranked = explore.rank([default, fast_but_wrong, slower])
        self.assertEqual([r.candidate for r in ranked], [default, slower])

    def test_ranked_by_ratio_to_the_default_of_the_same_round(self):
        # the machine slows down in round 2: per-round ratios still say 'better'
        default = candidate({"UNROLL": 8}, [90, 60, 90], default=True)
        better = candidate({"UNROLL": 4}, [95, 64, 95])
        ranked = explore.rank([default, better])
        self.assertIs(ranked[0].candidate, better)
        self.assertAlmostEqual(ranked[0].vs_default, 95 / 90, places=3)


class ApplyRule(unittest.TestCase):
    def ranked(self, pcts):
        default = candidate({"UNROLL": 8}, [100] * len(pcts), default=True)
        return explore.rank([default, candidate({"UNROLL": 4}, pcts)])[0]

    def test_clear_repeatable_win_applies(self):
        self.assertEqual(explore.clear_win(self.ranked([105, 104, 106]), 3), (True, ""))

    def test_small_win_does_not(self):
        ok, why = explore.clear_win(self.ranked([102, 102.5, 102]), 3)
        self.assertFalse(ok)
        self.assertIn("needs > 3%", why)

    def test_one_slower_round_does_not(self):
        ok, why = explore.clear_win(self.ranked([110, 99, 110]), 3)
        self.assertFalse(ok)
        self.assertIn("slower", why)

    def test_too_few_rounds_does_not(self):
        ok, why = explore.clear_win(self.ranked([110, 110]), 2)
        self.assertFalse(ok)
        self.assertIn("at least 3", why)

    def two_cases(self, at_512, at_4096):
        """A candidate measured at two lengths, per round, against a default at 100."""
        rounds = len(at_512)
        default = explore.Candidate({"UNROLL": 8}, True, status="ok")
        other = explore.Candidate({"UNROLL": 8, "ONEPASS": "groups"}, False, status="ok")
        for c, a, b in ((default, [100] * rounds, [100] * rounds), (other, at_512, at_4096)):
            for x, y in zip(a, b):
                c.rounds.append({("ctr", 256, 512): {"pct_ceiling": x, "gb_per_s": x / 10},
                                 ("ctr", 256, 4096): {"pct_ceiling": y, "gb_per_s": y / 10}})
        return explore.rank([default, other])[0]

    def test_win_at_one_length_equal_elsewhere_applies(self):
        r = self.two_cases([109, 110, 108], [99.7, 100.4, 99.9])
        self.assertEqual(explore.clear_win(r, 3), (True, ""))

    def test_one_lucky_case_among_many_does_not(self):
        # +4.4% at one of 24 cases, the others equal: noise, not a win (overall +0.2%)
        default = explore.Candidate({"UNROLL": 4}, True, status="ok")
        other = explore.Candidate({"UNROLL": 4, "TAIL": 1}, False, status="ok")
        for _ in range(3):
            default.rounds.append({("gcm-enc", 128, n): {"pct_ceiling": 50.0, "gb_per_s": 5}
                                   for n in range(24)})
            other.rounds.append({("gcm-enc", 128, n): {"pct_ceiling": 52.2 if n == 7 else 50.0,
                                                       "gb_per_s": 5} for n in range(24)})
        ok, why = explore.clear_win(explore.rank([default, other])[0], 3)
        self.assertFalse(ok)
        self.assertIn("overall", why)

    def test_a_loss_elsewhere_does_not(self):
        ok, why = explore.clear_win(self.two_cases([109, 110, 108], [98, 98.5, 97]), 3)
        self.assertFalse(ok)
        self.assertIn("ctr AES-256 4096 B", why)
        self.assertIn("noise", why)

    def test_default_winning_does_not(self):
        default = candidate({"UNROLL": 8}, [100, 100, 100], default=True)
        ranked = explore.rank([default, candidate({"UNROLL": 4}, [90, 90, 90])])
        self.assertEqual(explore.clear_win(ranked[0], 3), (False, "the default knobs won"))


class Confirmation(unittest.TestCase):
    """--apply's second look: the winner and the default at make bench's default lengths,
    short ones between them and the sweep's, and no loss at any (a sweep of 512 B and up
    had applied a set 2-5% slower at 16 B)."""

    def test_the_benchs_default_lengths_and_the_sweeps(self):
        import re
        with open(os.path.join(GEN, "..", "tests", "bench", "bench_options.c"),
                  encoding="utf-8") as handle:
            listed = re.search(r"default_lengths\[\] = \{([^}]*)\}", handle.read()).group(1)
        self.assertEqual(explore.BENCH_DEFAULT_LENGTHS,
                         tuple(int(n) for n in listed.split(",")))
        self.assertTrue(set(explore.BENCH_DEFAULT_LENGTHS) <= set(explore.CONFIRM_LENGTHS))
        self.assertIn(128, explore.CONFIRM_LENGTHS)       # where a TAIL=2 set lost 16%
        self.assertEqual(explore.confirm_lengths((512, 4096)), explore.CONFIRM_LENGTHS)
        self.assertEqual(explore.confirm_lengths((100, 4096)),
                         tuple(sorted(explore.CONFIRM_LENGTHS + (100,))))
        many = tuple(range(16, 16 + 16 * 30, 16))          # 30 lengths
        merged = explore.confirm_lengths(many)
        self.assertEqual(len(merged), explore.BENCH_MAX_LENGTHS)
        self.assertTrue(set(explore.CONFIRM_LENGTHS) <= set(merged))

    def confirm(self, winner_pct):
        """confirm() with the bench replaced: the default reads 100 everywhere, the
        winner winner_pct(length); returns its verdict and the lengths it timed."""
        from unittest import mock
        seen = []

        def fake_measure(pair, mode, isa, rounds, samples):
            seen.append(explore.LENGTHS)
            for c in pair:
                for _ in range(rounds):
                    c.rounds.append({("xts-enc", 128, n): {
                        "pct_ceiling": 100 if c.is_default else winner_pct(n),
                        "gb_per_s": 1.0} for n in explore.LENGTHS})
            return ["xts-enc"]

        saved = explore.LENGTHS
        self.addCleanup(setattr, explore, "LENGTHS", saved)
        explore.LENGTHS = (512, 4096)
        default = explore.Candidate({"UNROLL": 4}, True, status="ok")
        winner = explore.Candidate({"UNROLL": 8}, False, status="ok")
        with mock.patch.object(explore, "measure", fake_measure), \
                mock.patch.object(explore, "say", lambda text: None):
            verdict = explore.confirm(winner, default, "xts", "aesni_avx", 3, 5)
        self.assertEqual(explore.LENGTHS, (512, 4096))          # the sweep's, restored
        return verdict, seen

    def test_a_loss_at_a_length_the_sweep_skipped_is_refused(self):
        (ok, why), seen = self.confirm(lambda n: 95 if n == 16 else 110)
        self.assertFalse(ok)
        self.assertIn("xts-enc AES-128 16 B: -5.0% against the default", why)
        self.assertEqual(seen, [explore.CONFIRM_LENGTHS])

    def test_apply_writes_only_what_the_confirmation_passes(self):
        from unittest import mock
        default = candidate({"UNROLL": 4}, [100, 100, 100], default=True)
        winner = candidate({"UNROLL": 8}, [106, 105, 107])
        ranked = explore.rank([default, winner])
        for confirmed, applied in (((False, "at the confirmation, a loss"), 0), ((True, ""), 1)):
            with mock.patch.object(explore, "confirm", return_value=confirmed) as confirm, \
                    mock.patch.object(explore, "apply") as apply, \
                    mock.patch("builtins.print"):
                explore.decide("ctr", "avx10_512", ranked, [default, winner], 3, 5, True, None)
            self.assertEqual(confirm.call_count, 1)
            self.assertEqual(apply.call_count, applied)
        with mock.patch.object(explore, "confirm") as confirm, \
                mock.patch.object(explore, "apply") as apply, mock.patch("builtins.print"):
            explore.decide("ctr", "avx10_512", ranked, [default, winner], 3, 5, False, None)
        self.assertEqual((confirm.call_count, apply.call_count), (0, 0))

    def test_no_loss_anywhere_confirms(self):
        (ok, why), _ = self.confirm(lambda n: 100 if n < 512 else 110)
        self.assertEqual((ok, why), (True, ""))


class BenchEnvironment(unittest.TestCase):
    def test_every_candidate_times_its_files_own_functions(self):
        for knobs in ({"GHASH": "karatsuba", "UNROLL": 4}, {"UNROLL": 8}):
            c = explore.Candidate(knobs=knobs, is_default=False)
            env = explore.bench_env(c, BENCH_QUICK="1")
            # "none": the file's own functions; "default" is the entry of a CPU in no row
            self.assertEqual((env["AESGEN_VARIANT"], env["BENCH_QUICK"]), ("none", "1"))


class ApplyForThisUarch(unittest.TestCase):
    """--apply writes the entry of the machine's uarch only, with machine, date, gains."""

    def setUp(self):
        import tempfile
        from unittest import mock
        from generator import tuning
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        patcher = mock.patch.object(tuning, "TUNING_FILE",
                                    os.path.join(self.tmp.name, "tuning.json"))
        patcher.start()
        self.addCleanup(patcher.stop)
        self.tuning = tuning

    def winner(self):
        default = candidate({"UNROLL": 8, "KEYS": "reg", "TAIL": 4}, [100, 100, 100],
                            default=True)
        fast = candidate({"UNROLL": 4, "KEYS": "reg", "TAIL": 4}, [106, 105, 107])
        return explore.rank([default, fast])[0], default

    def test_writes_the_hosts_uarch_entry(self):
        from generator.uarch import UARCHES
        r, default = self.winner()
        explore.apply("ctr", "avx10_512", r, default, 3, UARCHES["znver4"])
        entry = self.tuning.load()["variants"]["ctr"]["avx10_512"]
        self.assertEqual(list(entry), ["znver4"])
        self.assertEqual(entry["znver4"]["knobs"]["UNROLL"], 4)
        self.assertIn("znver4", entry["znver4"]["machine"])
        self.assertRegex(entry["znver4"]["date"], r"^\d{4}-\d\d-\d\d$")
        self.assertIn("ctr_aes256_4096 1.060", entry["znver4"]["gains"])
        self.assertEqual(entry["znver4"]["ratio_spread"]["ctr_aes256_4096"], [1.05, 1.07])
        # and the sweep's default on that uarch is now the applied knobs
        self.assertEqual(explore.current_knobs(get_mode("ctr"), get_isa("avx10_512"),
                                               UARCHES["znver4"])["UNROLL"], 4)
        self.assertEqual(explore.current_knobs(get_mode("ctr"), get_isa("avx10_512"),
                                               UARCHES["znver5"])["UNROLL"], 8)

    def test_a_cpu_in_no_row_writes_the_default_entry(self):
        from generator.uarch import UARCHES
        r, default = self.winner()
        explore.apply("ctr", "avx10_512", r, default, 3, None)
        entry = self.tuning.load()["variants"]["ctr"]["avx10_512"]
        self.assertEqual(list(entry), ["default"])
        self.assertEqual(entry["default"]["knobs"]["UNROLL"], 4)
        self.assertIn("in no row of generator/uarch.py", entry["default"]["machine"])
        self.assertIn("ctr_aes256_4096 1.060", entry["default"]["gains"])
        # a CPU in no row now starts its sweeps from it; a uarch with a row does not
        self.assertEqual(explore.current_knobs(get_mode("ctr"), get_isa("avx10_512"),
                                               None)["UNROLL"], 4)
        for name in UARCHES:
            self.assertEqual(explore.current_knobs(get_mode("ctr"), get_isa("avx10_512"),
                                                   UARCHES[name])["UNROLL"], 8, name)


class BenchModes(unittest.TestCase):
    def test_split_mode(self):
        self.assertEqual(report.split_mode("ctr"), ("ctr", ""))
        self.assertEqual(report.split_mode("xts-enc"), ("xts", "enc"))

    def test_primary_bench_mode_prefers_encryption(self):
        self.assertEqual(explore.primary_bench_mode(["xts-dec", "xts-enc"]), "xts-enc")
        self.assertEqual(explore.primary_bench_mode(["ctr"]), "ctr")

    def test_calibration_row_from_a_measurement(self):
        import os
        from unittest import mock
        variant = mca.read_variant(os.path.join(GEN, "avx10_512", "ctr.S"))
        with mock.patch.dict(os.environ, {"AESGEN_VARIANT": "none"}):
            self.assertEqual(report.pick_region(variant, "ctr").name, "ctr_avx10_512_main_loop")
            self.assertIsNone(report.pick_region(variant, "ctr-dec"))
        # znver5 runs its variant (generator/tuning.json), whose region carries the suffix
        with mock.patch.dict(os.environ, {"AESGEN_VARIANT": "znver5"}):
            self.assertEqual(report.pick_region(variant, "ctr").name,
                             "ctr_avx10_512_main_loop_keysrows_tail8_tailctrbytes_unroll16")

    def test_gcm_region_is_the_set_the_runtime_takes(self):
        import os
        from unittest import mock
        variant = mca.read_variant(os.path.join(GEN, "avx10_512", "gcm.S"))
        # znver4's entry (GHASH=school) is the file's own knob set: the default functions
        with mock.patch.dict(os.environ, {"AESGEN_VARIANT": "znver4"}):
            self.assertEqual(report.pick_region(variant, "gcm-enc").name,
                             "gcm_enc_avx10_512_main_loop")
        with mock.patch.dict(os.environ, {"AESGEN_VARIANT": "none"}):
            self.assertEqual(report.pick_region(variant, "gcm-dec").name,
                             "gcm_dec_avx10_512_main_loop")
        # znver5: the manifest's variant for that uarch (Karatsuba, UNROLL=8, ...)
        with open(os.path.join(GEN, "manifest.json"), encoding="utf-8") as handle:
            entry = next(e for e in json.load(handle)["generated"]
                         if e["isa"] == "avx10_512" and e["mode"] == "gcm")
        name = next(v["name"] for v in entry["variants"] if "znver5" in v["uarches"])
        self.assertIn("unroll8", name)
        with mock.patch.dict(os.environ, {"AESGEN_VARIANT": "znver5"}):
            self.assertEqual(report.pick_region(variant, "gcm-dec").name,
                             f"gcm_dec_{name}_avx10_512_main_loop")


class ChartPanels(unittest.TestCase):
    def test_ceiling_line_per_key_size(self):
        results = {"machine": {"ceiling_rounds_per_s": 14e9},
                   "results": [{"mode": "ctr", "keybits": 256, "length": 16, "impl": "openssl",
                                "gb_per_s": 1.0},
                               {"mode": "ctr", "keybits": 128, "length": 16,
                                "impl": "avx10_512", "gb_per_s": 2.0}]}
        panels = report.chart_panels(results)["ctr"]
        self.assertEqual([p[0] for p in panels], ["CTR, AES-128", "CTR, AES-256"])
        self.assertAlmostEqual(panels[0][2], 14e9 * 16 / 10 / 1e9)   # 10 rounds
        self.assertAlmostEqual(panels[1][2], 14e9 * 16 / 14 / 1e9)   # 14 rounds



class Driver(unittest.TestCase):
    """explore() end to end with the building and the timing faked: what it writes lands in
    the build it was given (d0eb012 joined the CSV's path with generator.render.build, the
    function, and every sweep died after its last round)."""

    def test_a_sweep_writes_its_table_into_the_given_build(self):
        import types
        from unittest import mock

        class FakeWorkspace:
            def __init__(self, base, mode, isa, root):
                self.root = root

            def prepare(self, c):
                c.status = "ok"

        def fake_measure(candidates, mode, isa, rounds, samples):
            for c in candidates:
                for r in range(rounds):
                    pct = 90.0 if c.is_default else 91.0 + r * 0.01
                    c.rounds.append({("ctr", 256, 4096): {"pct_ceiling": pct,
                                                          "gb_per_s": pct / 10}})
            return ["ctr"]

        with tempfile.TemporaryDirectory() as build:
            base = types.SimpleNamespace(build=build)
            mode, isa = get_mode("ctr"), get_isa("avx10_512")
            wanted = {"UNROLL": 16, "KEYS": "rows", "TAIL": 8}
            with mock.patch.object(explore, "Workspace", FakeWorkspace), \
                    mock.patch.object(explore, "measure", fake_measure), \
                    mock.patch.object(explore, "chart", return_value="faked"), \
                    mock.patch.object(explore, "say", lambda text: None), \
                    mock.patch("builtins.print") as printed:
                status = explore.explore(mode, isa, base, 3, 1, False,
                                         "UNROLL=16,KEYS=rows,TAIL=8", wanted)
            self.assertEqual(status, 0)
            csv_path = os.path.join(build, "explore", "ctr-avx10_512.csv")
            self.assertTrue(os.path.isfile(csv_path), os.listdir(build))
            with open(csv_path, encoding="utf-8") as handle:
                rows = handle.read().splitlines()
            self.assertGreater(len(rows), 2)          # the header, the default, the others
            said = "\n".join(str(call.args[0]) for call in printed.call_args_list
                             if call.args)
            self.assertIn("winner ", said)


class ChartLabels(unittest.TestCase):
    """The explore chart's bar labels are rotated; a fixed 7-line bottom margin cut them
    after about 23 characters, so the default's "*" and UNROLL never showed."""

    def test_the_bottom_margin_fits_the_longest_label(self):
        from unittest import mock
        from perf import plots
        scripts = []
        long_label = "karatsuba unpack rows stitched T2 halves loaded U8 *"   # 52 characters
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(plots, "_run", lambda path, script: scripts.append(script)):
            plots.bar_chart(os.path.join(tmp, "x.png"), "t", "GB/s", ["1024 B"],
                            [["base reg loop T4 swap U8 *", 1.0], [long_label, 2.0]])
        margin = int(re.search(r"set bmargin (\d+)", scripts[0]).group(1))
        # 0.3 of a line per character at 40 degrees: the whole label, and a line to spare
        self.assertGreaterEqual(margin, 0.3 * len(long_label) + 1)
        height = int(re.search(r"size 1400,(\d+)", scripts[0]).group(1))
        self.assertGreater(height, 700)        # the plot keeps its height
        self.assertEqual(plots.bar_margin(["short"]), 7)


if __name__ == "__main__":
    unittest.main()
