# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""tests/emulated/run.py's verdict on one emulated CPU's output (judge): the ISAs the
model lacks skipped by name, exactly those, the other skips a lesser CPU brings, the
binary's own counts and a bad ending.  (The emulated runs themselves are part of
`make test`; a library that ran an instruction the model lacks died there.)"""

import importlib.util
import os
import unittest

from repo import REPO

SPEC = importlib.util.spec_from_file_location(
    "emulated_run", os.path.join(REPO, "tests", "emulated", "run.py"))
emulated = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(emulated)

HASWELL_LACKS = ("vaes_avx2", "avx10_256", "avx10_512")
HASWELL_SKIPS = ["SKIP vaes_avx2: CPU/OS lacks VAES", "SKIP avx10_256: CPU/OS lacks VAES",
                 "SKIP avx10_512: CPU/OS lacks VAES"]


class Judge(unittest.TestCase):
    def test_the_lacking_isas_skipped_by_name_pass(self):
        lines = HASWELL_SKIPS + [
            "SKIP length plan gcm znver5 on avx10_512: this CPU does not run all its ISAs",
            "SKIP cpu features of this machine: an emulated CPU (qemu -cpu Haswell), which "
            "/proc/cpuinfo does not describe",
            "group api 0.9 s, 10 checks, 0 failed", "100 passed, 0 failed, 5 skipped"]
        self.assertEqual(emulated.judge("Haswell", HASWELL_LACKS, lines, 0), (105, 0, []))

    def test_an_isa_the_model_lacks_but_not_skipped_fails(self):
        passed, failed, messages = emulated.judge(
            "Haswell", HASWELL_LACKS, HASWELL_SKIPS[:2] + ["9 passed, 0 failed, 2 skipped"], 0)
        self.assertEqual((passed, failed), (11, 1))
        self.assertIn("avx10_512 should be skipped by name", messages[0])

    def test_an_isa_skipped_that_the_model_has_fails(self):
        lines = HASWELL_SKIPS + ["SKIP aesni_avx: CPU/OS lacks AVX", "9 passed, 0 failed"]
        passed, failed, messages = emulated.judge("Haswell", HASWELL_LACKS, lines, 0)
        self.assertEqual((passed, failed), (12, 1))
        self.assertIn("aesni_avx skipped, but the model has what it needs", messages[0])

    def test_a_skip_the_cpu_does_not_explain_fails(self):
        lines = HASWELL_SKIPS + ["SKIP xts: something else", "9 passed, 0 failed"]
        passed, failed, messages = emulated.judge("Haswell", HASWELL_LACKS, lines, 0)
        self.assertEqual((passed, failed), (12, 1))
        self.assertIn("does not explain: SKIP xts: something else", messages[0])

    def test_a_crash_without_a_summary_fails(self):
        passed, failed, messages = emulated.judge(
            "Penryn", emulated.ISAS[1:], ["FATAL: signal 04 in test group gcm-api"], -4)
        self.assertEqual(failed, 5)     # four ISA skips never reported, and the ending
        self.assertIn("exit status -4 and no summary line", messages[-1])

    def test_the_binarys_failures_and_a_bad_status_count(self):
        self.assertEqual(emulated.judge("Haswell", HASWELL_LACKS,
                                        HASWELL_SKIPS + ["7 passed, 2 failed"], 1)[:2], (10, 2))
        passed, failed, messages = emulated.judge(
            "Haswell", HASWELL_LACKS, HASWELL_SKIPS + ["7 passed, 0 failed"], 1)
        self.assertEqual((passed, failed), (10, 1))
        self.assertIn("exit status 1 with no failure counted", messages[0])

    def test_every_model_lacks_the_isas_above_its_tier(self):
        """The table's ISA lists follow the ISAs' order of needs (each needs what the one
        before it does): a model lacks a suffix of them."""
        for model, _has, lacking in emulated.MODELS:
            self.assertEqual(tuple(lacking), emulated.ISAS[len(emulated.ISAS) - len(lacking):],
                             model)


if __name__ == "__main__":
    unittest.main()
