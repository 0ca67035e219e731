# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""generator/tuning.json: explore's measured knob defaults, layered by knobs.resolve()."""

import json
import os
import tempfile
import unittest
from unittest import mock

from repo import REPO
from generator import tuning
from generator.errors import UsageError
from generator.isa import ISAS, get_isa
from generator.knobs import resolve
from generator.modes import MODES, get_mode


class TunedDefaults(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "tuning.json")
        patcher = mock.patch.object(tuning, "TUNING_FILE", self.path)
        patcher.start()
        self.addCleanup(patcher.stop)
        self.addCleanup(self.tmp.cleanup)

    def write(self, entries):
        with open(self.path, "w") as handle:
            json.dump({"schema": tuning.SCHEMA, "tuning": entries}, handle)

    def test_no_file_means_built_in_defaults(self):
        knobs = resolve(get_mode("ctr"), get_isa("avx10_512"), {})
        self.assertEqual(knobs, {"KEYS": "reg", "TAIL": 4, "UNROLL": 8})

    def test_tuned_knobs_become_the_defaults(self):
        self.write({"ctr": {"avx10_512": {"knobs": {"UNROLL": 4, "TAIL": 2}, "cpu": "x"}}})
        self.assertEqual(resolve(get_mode("ctr"), get_isa("avx10_512"), {}),
                         {"KEYS": "reg", "TAIL": 2, "UNROLL": 4})
        # other ISAs and modes keep theirs
        self.assertEqual(resolve(get_mode("ctr"), get_isa("avx10_256"), {})["UNROLL"], 8)
        self.assertEqual(resolve(get_mode("xctr"), get_isa("avx10_512"), {})["UNROLL"], 8)

    def test_the_user_still_wins(self):
        self.write({"ctr": {"avx10_512": {"knobs": {"UNROLL": 4, "TAIL": 2}}}})
        self.assertEqual(resolve(get_mode("ctr"), get_isa("avx10_512"), {"UNROLL": 16})
                         ["UNROLL"], 16)

    def test_bad_value_names_file_and_valid_values(self):
        self.write({"ctr": {"avx10_512": {"knobs": {"UNROLL": 3}}}})
        with self.assertRaises(UsageError) as caught:
            resolve(get_mode("ctr"), get_isa("avx10_512"), {})
        self.assertIn("tuning.json", str(caught.exception))
        self.assertIn("valid: 1, 2, 4, 8, 16", str(caught.exception))

    def test_unknown_knob_is_refused(self):
        self.write({"ctr": {"avx10_512": {"knobs": {"PREFETCH": 1}}}})
        with self.assertRaisesRegex(UsageError, "PREFETCH .* its knobs"):
            resolve(get_mode("ctr"), get_isa("avx10_512"), {})

    def test_save_entry_keeps_the_others(self):
        tuning.save_entry("ctr", "avx10_512", {"knobs": {"UNROLL": 4}})
        tuning.save_entry("xctr", "aesni_avx", {"knobs": {"UNROLL": 2}})
        self.assertEqual(tuning.tuned_knobs("ctr", "avx10_512"), {"UNROLL": 4})
        self.assertEqual(tuning.tuned_knobs("xctr", "aesni_avx"), {"UNROLL": 2})


class CommittedTuningFile(unittest.TestCase):
    def test_is_valid_for_every_mode_and_isa(self):
        self.assertTrue(os.path.exists(os.path.join(REPO, "generator", "tuning.json")))
        for mode in MODES.values():
            for isa in ISAS.values():
                if mode.name not in isa.modes:
                    continue            # vperm_ssse3 has fewer modes
                resolve(mode, isa, {})   # raises on a bad entry


if __name__ == "__main__":
    unittest.main()
