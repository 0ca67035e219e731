# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Bad input to the performance tools and the bench: a clear error naming the bad value
(and the valid ones), exit status 2, and nothing lost (an earlier run's output is left
as it was).  The generator's own command line: test_generator.CommandLine.

The cases come from an audit of every command a user can type; each was a traceback, a
silent run of nothing that wrote an empty file over the last results, or a run of
minutes before the error.
"""

import os
import subprocess
import sys
import tempfile
import unittest

from repo import BUILD, LIBRARY, REPO, build_bench, have

PERF = [sys.executable, "-m", "perf"]


def run(argv, **kwargs):
    return subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=300,
                          **kwargs)


class PerfCommands(unittest.TestCase):
    def assert_bad_input(self, result, *fragments):
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertNotIn("Traceback", result.stderr)
        for fragment in fragments:
            self.assertIn(fragment, result.stderr)

    def test_files_that_cannot_be_read_are_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            missing = os.path.join(tmp, "missing.json")
            not_json = os.path.join(tmp, "text.json")
            other = os.path.join(tmp, "other.json")
            with open(not_json, "w", encoding="utf-8") as handle:
                handle.write("no JSON here\n")
            with open(other, "w", encoding="utf-8") as handle:
                handle.write('{"schema": "something-else"}\n')
            for argv, path in ((["bench-report", "--results", missing], missing),
                               (["bench-report", "--results", not_json], not_json),
                               (["bench-report", "--results", other], other),
                               (["marks", "--validate", "--anchors", missing], missing),
                               (["mca-check", "--baseline", not_json], not_json)):
                with self.subTest(argv=argv):
                    self.assert_bad_input(run(PERF + argv), path)

    @unittest.skipUnless(have("llvm-mca-19"), "llvm-mca-19 not installed")
    def test_an_output_path_under_a_file(self):
        with tempfile.NamedTemporaryFile() as handle:
            result = run(PERF + ["mca", "--json", os.path.join(handle.name, "x.json")])
            # refused before the estimates (seconds), naming the option and the obstacle
            self.assert_bad_input(result, f"--json {handle.name}/x.json: {handle.name} is a file")
            self.assertEqual(result.stdout, "")

    @unittest.skipUnless(have("llvm-mca-19"), "llvm-mca-19 not installed")
    def test_mca_of_nothing_writes_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "estimates.json")
            result = run(PERF + ["mca", "--isa", "avx10_512", "--mode", "ctr", "--model",
                                 "skylake", "--json", out])
            self.assert_bad_input(result, "runs on --model skylake",
                                  "avx10_512: icelake-server")
            result = run(PERF + ["mca", "--isa", "vperm_ssse3", "--mode", "gcm", "--json", out])
            self.assert_bad_input(result, "vperm_ssse3: ctr, xctr, xts")
            self.assertFalse(os.path.exists(out))

    def test_explore_checks_everything_before_it_clears_the_last_sweep(self):
        with tempfile.TemporaryDirectory() as build:
            scratch = os.path.join(build, "explore", "ctr-avx10_512")
            os.makedirs(scratch)
            kept = os.path.join(scratch, "from-the-last-sweep")
            open(kept, "w").close()
            base = PERF + ["explore", "--mode", "ctr", "--isa", "avx10_512", "--build", build]
            for extra, fragment in ((["--only", "bad"], "'bad'"),
                                    (["--only", "TWEAK=ahead"], "knob TWEAK does not apply"),
                                    (["--samples", "0"], "--samples 0: valid: 1..101"),
                                    ([], "no runtime or bench objects")):
                with self.subTest(extra=extra):
                    self.assert_bad_input(run(base + extra), fragment)
                    self.assertTrue(os.path.exists(kept))
            self.assert_bad_input(run(PERF + ["explore", "--mode", "gcm", "--isa", "vperm_ssse3",
                                              "--build", build]),
                                  "ISA vperm_ssse3 has no mode gcm")

    def test_timing_probes_check_their_options_first(self):
        cpus = ", ".join(map(str, sorted(os.sched_getaffinity(0))))
        for argv, fragment in ((["bitslice-order", "--measure", "-1"], "--measure -1"),
                               (["bitslice-order", "--top", "0"], "--top 0"),
                               (["bitslice-probe", "--cpu", "4096"], f"allowed: {cpus}"),
                               (["aes-chain-probe", "--passes", "0"], "--passes 0")):
            with self.subTest(argv=argv):
                self.assert_bad_input(run(PERF + argv), fragment)

    def test_make_marks_checks_its_variables_before_it_clears_the_last_runs(self):
        self.assert_bad_input(run(PERF + ["marks", "--validate", "--impl", "bad"]),
                              "--impl bad: valid: auto, best, vperm_ssse3")
        self.assertEqual(run(PERF + ["marks", "--validate", "--impl", "avx10_512"]).returncode, 0)
        with open(os.path.join(REPO, "tests", "bench", "bench.mk"), encoding="utf-8") as handle:
            recipe = handle.read().split("\nmarks:", 1)[1].split("\n\n", 1)[0]
        # the checks stand before the recipe's rm of the last runs
        self.assertLess(recipe.index("MARKS_RUNS must be"), recipe.index("rm -rf"))
        for runs in ("abc", "0", "00"):
            with self.subTest(MARKS_RUNS=runs):
                result = run(["make", "--no-print-directory", f"BUILD={BUILD}", "marks",
                              f"MARKS_RUNS={runs}"])
                self.assertNotEqual(result.returncode, 0, result.stdout)
                self.assertIn(f"MARKS_RUNS must be a number of runs, 1 or more, not '{runs}'",
                              result.stderr)
        self.assertLess(recipe.index("--validate"), recipe.index("rm -rf"))


@unittest.skipUnless(os.path.exists(LIBRARY) and have("cc"), f"needs {LIBRARY} (make test builds it)")
class BenchOptions(unittest.TestCase):
    """The bench binary: a filter value that names nothing, a CPU it may not run on, a
    results path it cannot write: exit 2 before any timing, the last results kept."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.binary = build_bench(cls.tmp.name)
        cls.env = {k: v for k, v in os.environ.items() if not k.startswith("BENCH_")}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def bench(self, *argv):
        return run([self.binary, "--quick", *argv], env=self.env)

    def test_a_filter_value_that_names_nothing(self):
        results = os.path.join(self.tmp.name, "results.json")
        with open(results, "w", encoding="utf-8") as handle:
            handle.write("the last run\n")
        for spec, fragment in (("mode=bad", "mode: ctr, xctr, xts-enc"),
                               ("impl=avx9", "impl: vperm_ssse3, aesni_avx"),
                               ("bits=512", "bits: 128, 256"),
                               ("len=17", "len: 16, 64, 256"),
                               ("mode=ctr,len=abc", "len: 16")):
            with self.subTest(spec=spec):
                result = self.bench("--filter", spec, "--json", results)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(f"filter {spec.split(',')[-1]} names nothing", result.stderr)
                self.assertIn(fragment, result.stderr)
        with open(results, encoding="utf-8") as handle:
            self.assertEqual(handle.read(), "the last run\n")

    def test_a_filter_that_selects_nothing_this_run_can_time(self):
        results = os.path.join(self.tmp.name, "last.json")
        with open(results, "w", encoding="utf-8") as handle:
            handle.write("the last run\n")
        result = self.bench("--filter", "mode=ctr,impl=generic", "--json", results)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("selects nothing this run can time (generic needs --with-generic",
                      result.stderr)
        with open(results, encoding="utf-8") as handle:
            self.assertEqual(handle.read(), "the last run\n")

    def test_a_refused_run_creates_no_results_file(self):
        results = os.path.join(self.tmp.name, "never.json")
        result = self.bench("--cpu", "4096", "--json", results)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertFalse(os.path.exists(results))

    def test_values_named_in_the_messages(self):
        for argv, fragment in ((["--samples", "abc"], "not 'abc'"),
                               (["--lengths", "16x"], "not '16x'"),
                               (["--cpu", "4096"], "allowed: "),
                               (["--json", "/nonexistent/dir/x.json"],
                                "cannot write /nonexistent/dir/x.json")):
            with self.subTest(argv=argv):
                result = self.bench("--filter", "mode=ctr,bits=128,len=16,impl=generic", *argv)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(fragment, result.stderr)
                self.assertNotIn("bench time", result.stdout)   # refused before the run

    def test_a_filter_of_existing_values_runs(self):
        result = self.bench("--filter", "mode=xts,bits=128,len=16,impl=auto,impl=openssl",
                            "--lengths", "16")
        self.assertEqual(result.returncode, 0, result.stderr)


class CTestBinary(unittest.TestCase):
    """README's `./build/tests/aesgen_tests --only GROUP`: a misspelled group or an unknown
    argument is refused (exit 2, the groups named) before any test runs; it used to run no
    group, or every group, and pass."""

    BINARY = os.path.join(BUILD, "tests", "aesgen_tests")

    def setUp(self):
        if not os.access(self.BINARY, os.X_OK):
            self.skipTest(f"{self.BINARY} not built (make test-bin)")

    def test_unknown_groups_and_arguments_are_refused(self):
        for argv, fragment in ((["--only", "xts_api"], "unknown group 'xts_api'"),
                               (["--only", "api", "--only", "nosuch"], "unknown group 'nosuch'"),
                               (["--only"], "--only needs a GROUP"),
                               (["--help"], "unknown argument '--help'")):
            with self.subTest(argv=argv):
                result = run([self.BINARY, *argv])
                self.assertEqual(result.returncode, 2, result.stdout[-300:] + result.stderr)
                self.assertIn(fragment, result.stderr)
                self.assertIn("groups: api, known-answer", result.stderr)
                self.assertIn("xts-api", result.stderr)
                self.assertEqual(result.stdout, "")     # no group ran

    def test_a_known_group_runs(self):
        result = run([self.BINARY, "--only", "xts-keys"])
        self.assertEqual(result.returncode, 0, result.stdout[-300:] + result.stderr)
        self.assertIn("group xts-keys", result.stdout)
        self.assertNotIn("group api ", result.stdout)


if __name__ == "__main__":
    unittest.main()
