# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""perf/marks.py and perf/anchors.json: issue 12's marks applied to bench results (no timing
here: results are written by hand; make marks runs the bench)."""

import contextlib
import io
import json
import os
import re
import subprocess
import tempfile
import unittest

from repo import LIBRARY, REPO, build_bench, have
from generator import uarch
from generator.errors import UsageError
from perf import cli, marks


ZEN5 = {"model": "AMD EPYC 9575F", "vendor": "AuthenticAMD", "family": 0x1a,
        "model_id": 0x02, "variant": "znver5"}
XEON = {"model": "Intel(R) Xeon(R) Processor", "vendor": "GenuineIntel", "family": 6,
        "model_id": 0xa7, "variant": "default"}

# The issue's table "Performance to reach", as its text gives it (AES-256 anchor %).
ISSUE_LENGTHS = [16, 64, 256, 512, 1024, 1420, 4096, 16384]
ISSUE_ANCHORS = {
    "ctr": [7, 24, 70, 88, 89, 82, 89, 88],
    "xctr": [8, 31, 81, 85, 90, 82, 88, 89],
    "xts-enc": [4, 12, 24, 38, 52, 58, 75, 84],
    "xts-dec": [4, 12, 24, 38, 52, 53, 75, 84],
    "gcm-enc": [2, 7, 23, 33, 43, 39, 54, 57],
    "gcm-dec": [2, 8, 27, 38, 47, 45, 57, 59],
}


def record(mode, keybits, length, pct, impl="auto", verified=True):
    return {"mode": mode, "keybits": keybits, "length": length, "impl": impl,
            "pct_ceiling": pct, "verified": verified}


def doc(records, machine=ZEN5):
    return {"schema": "aesgen-bench-1", "machine": dict(machine), "results": list(records)}


def every_cell(pct):
    """Records of every anchored cell at pct % of the ceiling."""
    return [record(mode, bits, length, pct) for mode in ISSUE_ANCHORS
            for bits in (128, 256) for length in ISSUE_LENGTHS]


def cell(cells, mode, keybits, length):
    return next(c for c in cells if (c.mode, c.keybits, c.length) == (mode, keybits, length))


class AnchorsFile(unittest.TestCase):
    def setUp(self):
        self.anchors = marks.load_anchors()

    def test_the_issue_table(self):
        self.assertEqual(list(self.anchors.lengths), ISSUE_LENGTHS)
        self.assertEqual({m: list(v) for m, v in self.anchors.pct.items()}, ISSUE_ANCHORS)
        self.assertEqual(self.anchors.uarch, "znver5")

    def test_docs_show_the_same_table(self):
        """docs/performance.md shows the anchors to people; it must say what the file says."""
        with open(os.path.join(REPO, "docs", "performance.md"), encoding="utf-8") as handle:
            text = handle.read()
        header = re.search(r"^\| AES-256 anchor % \|(.*)\|$", text, re.M)
        self.assertIsNotNone(header)
        lengths = [int(x) for x in header.group(1).split("|")]
        self.assertEqual(lengths, list(self.anchors.lengths))
        rows = {}
        for line in text[header.end():].splitlines()[2:]:
            if not line.startswith("|"):
                break
            name, *values = [x.strip() for x in line.strip("|").split("|")]
            rows[name] = [float(v) for v in values]
        self.assertEqual(rows, {m: list(v) for m, v in self.anchors.pct.items()})

    def test_marks_worked_by_hand(self):
        mark = self.anchors.mark
        self.assertAlmostEqual(mark("ctr", 128, 256), 73.5)          # 70 x 1.05
        self.assertAlmostEqual(mark("ctr", 256, 512), 92.4)          # 88 x 1.05
        self.assertAlmostEqual(mark("xts-dec", 256, 1420), 55.65)    # 53 x 1.05
        self.assertAlmostEqual(mark("gcm-enc", 256, 4096), 56.7)     # 54 x 1.05, no floor there
        # GCM 16 KiB: the GB/s floor over the anchors' machine's ceiling where it is higher
        self.assertAlmostEqual(mark("gcm-enc", 256, 16384), 100 * 28 / 41.0)   # 68.29 > 59.85
        self.assertAlmostEqual(mark("gcm-dec", 256, 16384), 100 * 28 / 41.0)
        self.assertAlmostEqual(mark("gcm-dec", 128, 16384), 61.95)   # 59 x 1.05 > 55.75
        self.assertAlmostEqual(mark("gcm-enc", 128, 16384), 59.85)   # 57 x 1.05 > 55.75

    def test_a_row_of_the_wrong_length_is_refused(self):
        with open(marks.ANCHORS, encoding="utf-8") as handle:
            data = json.load(handle)
        data["pct_ceiling"]["ctr"].pop()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "anchors.json")
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(data, handle)
            with self.assertRaisesRegex(ValueError, "ctr has 7 anchors for 8 lengths"):
                marks.load_anchors(path)


class Evaluate(unittest.TestCase):
    def setUp(self):
        self.anchors = marks.load_anchors()

    def evaluate(self, runs, impl="auto"):
        return marks.evaluate(self.anchors, [doc(r) for r in runs], impl)

    def test_statuses(self):
        # ctr AES-128 256 B: mark 73.5
        runs = [[record("ctr", 128, 256, p), record("ctr", 256, 256, q),
                 record("xctr", 128, 256, r), record("gcm-dec", 128, 16384, s)]
                for p, q, r, s in ((73.5, 80, 70, 62), (74, 72, 75, 61.9), (80, 90, 71, 62.0))]
        cells = self.evaluate(runs)
        self.assertEqual(cell(cells, "ctr", 128, 256).status, marks.MET)        # all >= 73.5
        self.assertEqual(cell(cells, "ctr", 128, 256).median, 74)
        self.assertEqual(cell(cells, "ctr", 256, 256).status, marks.MEDIAN_ONLY)  # 72 < 73.5
        self.assertEqual(cell(cells, "xctr", 128, 256).status, marks.SHORT)     # median 71 < 85.05
        self.assertEqual(cell(cells, "gcm-dec", 128, 16384).status, marks.MEDIAN_ONLY)
        self.assertEqual(cell(cells, "ctr", 128, 16).status, marks.MISSING)
        self.assertEqual(len(cells), 6 * 2 * 8)

    def test_output_that_did_not_verify_is_never_met(self):
        runs = [[record("ctr", 128, 256, 99)], [record("ctr", 128, 256, 99, verified=False)]]
        self.assertEqual(cell(self.evaluate(runs), "ctr", 128, 256).status, marks.WRONG)

    def test_no_ceiling_is_not_a_measurement(self):
        runs = [[record("ctr", 128, 256, None)]]
        self.assertEqual(cell(self.evaluate(runs), "ctr", 128, 256).status, marks.MISSING)

    def test_best_is_the_most_of_our_code_never_a_peer(self):
        runs = [[record("ctr", 128, 256, 60, "avx10_512"), record("ctr", 128, 256, 75, "avx10_256"),
                 record("ctr", 128, 256, 99, "openssl"), record("ctr", 128, 256, 99, "generic"),
                 record("ctr", 128, 256, 70, "auto")]]
        self.assertEqual(cell(self.evaluate(runs, "best"), "ctr", 128, 256).runs, [75])
        self.assertEqual(cell(self.evaluate(runs, "auto"), "ctr", 128, 256).runs, [70])
        self.assertEqual(cell(self.evaluate(runs, "avx10_512"), "ctr", 128, 256).runs, [60])

    def test_an_impl_without_results_names_the_valid_ones(self):
        runs = [[record("ctr", 128, 256, 60, "avx10_512"), record("ctr", 128, 256, 9, "openssl")]]
        with self.assertRaisesRegex(UsageError, r"impl 'auto'.*valid: best, avx10_512$"):
            self.evaluate(runs)


class Files(unittest.TestCase):
    def write(self, tmp, name, content):
        path = os.path.join(tmp, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(content if isinstance(content, str) else json.dumps(content))
        return path

    def run_cli(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main(["marks", *argv])
        return status, out.getvalue(), err.getvalue()

    def test_bad_files_are_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            cases = {
                self.write(tmp, "text.json", "not json"): "is not JSON",
                self.write(tmp, "other.json", {"schema": "x", "results": []}):
                    "is not a bench results file",
                self.write(tmp, "empty.json", {"schema": "aesgen-bench-1"}):
                    "is not a bench results file",
                os.path.join(tmp, "absent.json"): "cannot read",
            }
            for path, message in cases.items():
                status, out, err = self.run_cli(path)
                self.assertEqual(status, 2)
                self.assertIn(message, err)
                self.assertIn(os.path.basename(path), err)
                self.assertEqual(out, "")
            status, _, err = self.run_cli()
            self.assertEqual(status, 2)
            self.assertIn("no results file", err)

    def test_runs_of_different_cpus_do_not_make_one_median(self):
        with self.assertRaisesRegex(UsageError, "different CPUs"):
            marks.measured_on([doc([], ZEN5), doc([], XEON)])

    def test_the_uarch_comes_from_the_recorded_signature(self):
        self.assertEqual(marks.measured_on([doc([], ZEN5)])[1], "znver5")
        self.assertIsNone(marks.measured_on([doc([], XEON)])[1])
        old = {k: v for k, v in XEON.items() if k in ("model",)}
        text, name = marks.measured_on([doc([], old)])
        self.assertIsNone(name)
        self.assertIn("no CPUID signature", text)

    def test_report_and_check(self):
        with tempfile.TemporaryDirectory() as tmp:
            good = [self.write(tmp, f"run-{i}.json", doc(every_cell(99))) for i in range(3)]
            status, out, _ = self.run_cli(*good, "--check")
            self.assertEqual(status, 0)
            self.assertIn("96 of 96 cells met in every run", out)
            self.assertNotIn("Not the anchors' uarch", out)
            self.assertIn("99.0/73.5 ", out)
            short = doc([r if (r["mode"], r["keybits"], r["length"]) != ("ctr", 128, 256)
                         else record("ctr", 128, 256, 70.0) for r in every_cell(99)], XEON)
            path = self.write(tmp, "short.json", short)
            status, out, _ = self.run_cli(path, "--check")
            self.assertEqual(status, 1)
            self.assertIn("70.0/73.5<", out)
            self.assertIn("ctr AES-128 256 B: median 70.0 (70.0-70.0), mark 73.50, 1 of 1 runs "
                          "below", out)
            self.assertIn("Not the anchors' uarch (znver5)", out)
            status, _, _ = self.run_cli(path)       # without --check: a report, not a verdict
            self.assertEqual(status, 0)


@unittest.skipUnless(os.path.exists(LIBRARY) and have("cc"), f"needs {LIBRARY} (make test builds it)")
class BenchResults(unittest.TestCase):
    """What make marks reads, from the bench itself: one quick case (no timing is judged),
    its machine fields and a verified record that the report counts."""

    def test_a_quick_run_names_its_machine_and_the_report_reads_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            binary = build_bench(tmp)
            results = os.path.join(tmp, "results.json")
            env = {k: v for k, v in os.environ.items()
                   if k not in ("AESGEN_VARIANT", "AESGEN_ISA") and not k.startswith("BENCH_")}
            subprocess.run([binary, "--quick", "--filter", "mode=ctr,bits=128,len=256,impl=auto",
                            "--lengths", "256", "--json", results], check=True, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(results, encoding="utf-8") as handle:
                machine = json.load(handle)["machine"]
            vendor, family, model = uarch.host_signature()
            self.assertEqual((machine["vendor"], machine["family"], machine["model_id"]),
                             (vendor, family, model))
            host = uarch.host_uarch()
            self.assertEqual(machine["variant"], host.name if host else "default")
            text, cells = marks.report([results])
        measured = [c for c in cells if c.runs]
        self.assertEqual([(c.mode, c.keybits, c.length) for c in measured], [("ctr", 128, 256)])
        self.assertNotEqual(measured[0].status, marks.WRONG)
        self.assertIn(f"CPUID {vendor} family {family:#x} model {model:#x}", text)


if __name__ == "__main__":
    unittest.main()
