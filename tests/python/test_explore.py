# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""perf/explore.py and perf/report.py: the sweep, ranking, the --apply rule, calibration
rows and the bench-mode mapping (no timing here: the sweep itself is make explore)."""

import os
import unittest

from repo import GEN
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
        # 5 UNROLL x 2 KEYS, TAIL 1..min(8, UNROLL): (1 + 2 + 3 + 4 + 4) x 2
        self.assertEqual(len(candidates), 28)


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

    def test_default_winning_does_not(self):
        default = candidate({"UNROLL": 8}, [100, 100, 100], default=True)
        ranked = explore.rank([default, candidate({"UNROLL": 4}, [90, 90, 90])])
        self.assertEqual(explore.clear_win(ranked[0], 3), (False, "the default knobs won"))


class BenchEnvironment(unittest.TestCase):
    def test_gcm_variant_times_its_own_ghash_set(self):
        c = explore.Candidate(knobs={"GHASH": "karatsuba", "UNROLL": 4}, is_default=False)
        env = explore.bench_env(c, BENCH_QUICK="1")
        self.assertEqual((env["AESGEN_GCM_GHASH"], env["BENCH_QUICK"]), ("karatsuba", "1"))

    def test_other_modes_leave_the_choice_alone(self):
        c = explore.Candidate(knobs={"UNROLL": 8}, is_default=True)
        self.assertEqual(explore.bench_env(c).get("AESGEN_GCM_GHASH"),
                         os.environ.get("AESGEN_GCM_GHASH"))


class BenchModes(unittest.TestCase):
    def test_split_mode(self):
        self.assertEqual(report.split_mode("ctr"), ("ctr", ""))
        self.assertEqual(report.split_mode("xts-enc"), ("xts", "enc"))

    def test_primary_bench_mode_prefers_encryption(self):
        self.assertEqual(explore.primary_bench_mode(["xts-dec", "xts-enc"]), "xts-enc")
        self.assertEqual(explore.primary_bench_mode(["ctr"]), "ctr")

    def test_calibration_row_from_a_measurement(self):
        import os
        variant = mca.read_variant(os.path.join(GEN, "avx10_512", "ctr.S"))
        self.assertEqual(report.pick_region(variant, "ctr").name, "ctr_avx10_512_main_loop")
        self.assertIsNone(report.pick_region(variant, "ctr-dec"))

    def test_gcm_region_is_the_set_the_runtime_takes(self):
        import os
        from unittest import mock
        variant = mca.read_variant(os.path.join(GEN, "avx10_512", "gcm.S"))
        with mock.patch.dict(os.environ, {"AESGEN_GCM_GHASH": "school"}):
            self.assertEqual(report.pick_region(variant, "gcm-enc").name,
                             "gcm_enc_school_avx10_512_main_loop")
        with mock.patch.dict(os.environ, {"AESGEN_GCM_GHASH": "karatsuba"}):
            # the file's primary set is Karatsuba: no _karatsuba alternate
            self.assertEqual(report.pick_region(variant, "gcm-dec").name,
                             "gcm_dec_avx10_512_main_loop")


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


if __name__ == "__main__":
    unittest.main()
