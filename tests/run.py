#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Runs every test of `make test` and prints one summary line.

Part 1: the Python unit tests, discovered as tests/python/test_*.py, in two processes.
Part 2: the C test binary, $(BUILD)/tests/aesgen_tests, whose last line is
        `N passed, N failed[, N skipped]`; a crash or missing summary counts
        as one failure.
Part 3: tests/fuzz/run.py: every fuzz corpus file through every libFuzzer
        target ($(BUILD)-fuzz/fuzz_*), then a few seconds of fuzzing per target.
Part 4: tests/ct/run.py: the constant-time check under valgrind.
Part 5: tests/win/run.py: the Windows x64 test program under wine.
Part 6: tests/emulated/run.py: C groups on emulated CPUs without AVX-512, VAES, AVX,
        AES-NI or SSSE3 (qemu-user), each lacking ISA skipped by name.
Parts 3 to 6 report the same summary line as part 2.
The last line printed is `N passed, N failed, N skipped` (totals); the exit
status is 1 if anything failed.

Usage: python3 tests/run.py --build BUILD_DIR [--skip-python] [--skip-c] [--skip-fuzz]
                            [--skip-ct] [--skip-win] [--skip-emulated]
"""

import argparse
import multiprocessing
import os
import queue
import re
import subprocess
import sys
import threading
import time
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON_TESTS = os.path.join(REPO, "tests", "python")
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$")
C_TIMEOUT_SECONDS = 600
FUZZ_SECONDS = 4         # the short fuzz run per target (two targets at a time)


class Totals:
    def __init__(self, passed=0, failed=0, skipped=0):
        self.passed, self.failed, self.skipped = passed, failed, skipped

    def add(self, other):
        self.passed += other.passed
        self.failed += other.failed
        self.skipped += other.skipped

    def line(self):
        return f"{self.passed} passed, {self.failed} failed, {self.skipped} skipped"


_say_lock = None     # the Python test workers' shared lock: one report's lines together


def say(text=""):
    if _say_lock is None:
        print(text, flush=True)
    else:
        with _say_lock:
            print(text, flush=True)


class CountingResult(unittest.TestResult):
    """Counts outcomes (each subtest on its own) and prints failures with
    their tracebacks as they happen."""

    def __init__(self):
        super().__init__()
        self.totals = Totals()
        self._had_subtests = set()

    def _report(self, kind, test, err):
        say(f"{kind}: {test.id()}")
        say(self._exc_info_to_string(err, test).rstrip())

    def addSuccess(self, test):
        super().addSuccess(test)
        if test.id() not in self._had_subtests:   # its subtests were counted already
            self.totals.passed += 1

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.totals.failed += 1
        self._report("FAIL", test, err)

    def addError(self, test, err):
        super().addError(test, err)
        self.totals.failed += 1
        self._report("ERROR", test, err)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.totals.skipped += 1
        say(f"SKIP {test.id()}: {reason}")

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.totals.passed += 1

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.totals.failed += 1
        say(f"FAIL: {test.id()}: passed but was marked expectedFailure")

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        self._had_subtests.add(test.id())
        if err is None:
            self.totals.passed += 1
        elif issubclass(err[0], test.failureException):
            self.totals.failed += 1
            self._report("FAIL", subtest, err)
        else:
            self.totals.failed += 1
            self._report("ERROR", subtest, err)


# Python test units that must not run at the same time as each other: they write the
# same vendored bundles under $AESGEN_BUILD/vendor (tests/python/vendor_bundles.py).
SHARED_BUILD_MODULES = ("test_vendor", "test_vendor_win", "test_apple")
# The longest units first, so that two workers end together (measured on a 2-core
# AMD Zen 3: these four take about 60% of the Python tests' time).
LONGEST_FIRST = ("test_gen_files.EveryKnobCombination", "test_gen_files.MakeGenForwardsEveryKnob",
                 "vendor", "test_mca")
PYTHON_JOBS = max(1, min(2, os.cpu_count() or 1))
SLOW_UNIT_SECONDS = 20   # a unit that takes longer says so (to keep LONGEST_FIRST true)


def python_test_units():
    """The discovered tests as (name, unit) pairs, each unit run whole by one worker: a
    test class each (named module.Class), except that the modules of SHARED_BUILD_MODULES
    make one unit together ("vendor"); longest first."""
    loader = unittest.TestLoader()
    discovered = loader.discover(start_dir=PYTHON_TESTS, pattern="test_*.py",
                                 top_level_dir=PYTHON_TESTS)
    units, shared = {}, unittest.TestSuite()

    def classes(suite):
        for item in suite:
            if isinstance(item, unittest.TestSuite):
                yield from classes(item)
            else:
                yield item

    for test in classes(discovered):
        cls = type(test)
        module = cls.__module__.partition(".")[0]
        if module in SHARED_BUILD_MODULES:
            shared.addTest(test)
            continue
        units.setdefault(f"{cls.__module__}.{cls.__qualname__}", unittest.TestSuite()).addTest(test)
    if shared.countTestCases():
        units["vendor"] = shared

    def rank(name):
        for i, prefix in enumerate(LONGEST_FIRST):
            if name.startswith(prefix):
                return i
        return len(LONGEST_FIRST)
    return [(name, units[name]) for name in sorted(units, key=rank)]


def _python_worker(units, todo, done, lock):
    global _say_lock
    _say_lock = lock
    result = CountingResult()
    while True:
        index = todo.get()
        if index is None:
            break
        name, unit = units[index]
        started = time.monotonic()
        unit.run(result)   # a module that fails to import runs as a failing test
        took = time.monotonic() - started
        if took >= SLOW_UNIT_SECONDS:
            say(f"slow: {name} took {took:.0f} s")
    t = result.totals
    done.put((t.passed, t.failed, t.skipped))


def run_python_tests():
    """Discovers and runs tests/python/test_*.py in PYTHON_JOBS processes (forked, so
    they share the discovered units); import errors count as failures."""
    if REPO not in sys.path:
        sys.path.insert(0, REPO)
    units = python_test_units()
    if PYTHON_JOBS == 1 or not hasattr(os, "fork"):
        result = CountingResult()
        for _, unit in units:
            unit.run(result)
        return result.totals
    context = multiprocessing.get_context("fork")
    todo, done, lock = context.Queue(), context.Queue(), context.Lock()
    for index in range(len(units)):
        todo.put(index)
    workers = [context.Process(target=_python_worker, args=(units, todo, done, lock))
               for _ in range(PYTHON_JOBS)]
    for worker in workers:
        todo.put(None)
        worker.start()
    totals, reported = Totals(), 0
    while reported < len(workers):
        try:
            totals.add(Totals(*done.get(timeout=1)))
            reported += 1
        except queue.Empty:
            if not any(worker.is_alive() for worker in workers) and done.empty():
                break       # a worker died before reporting: its exit status says so
    for worker in workers:
        worker.join()
        if worker.exitcode != 0:
            say(f"FAIL: a Python test worker exited with status {worker.exitcode}")
            totals.failed += 1
    return totals


def run_c_tests(build):
    """Runs the C test binary, echoing its output, and reads its summary line."""
    binary = os.path.join(build, "tests", "aesgen_tests")
    if not os.access(binary, os.X_OK):
        say(f"FAIL: C tests: {binary} does not exist (run `make test`)")
        return Totals(failed=1)
    return run_summary_program("C tests", [binary])


def run_fuzz_tests(build):
    """The fuzz corpus replay and a short run per target (tests/fuzz/run.py)."""
    return run_summary_program("fuzz", [sys.executable, os.path.join(REPO, "tests", "fuzz", "run.py"),
                                        "--build", build + "-fuzz", "--seconds",
                                        str(FUZZ_SECONDS), "--jobs", "2"])


def run_ct_check(build):
    """The constant-time check under valgrind (tests/ct/run.py)."""
    return run_summary_program("ct-check", [sys.executable, os.path.join(REPO, "tests", "ct", "run.py"),
                                            "--build", build])


def run_win_tests(build):
    """The Windows x64 program under wine (tests/win/run.py)."""
    return run_summary_program("windows", [sys.executable, os.path.join(REPO, "tests", "win", "run.py"),
                                           "--build", build])


def run_emulated_tests(build):
    """The C groups on emulated CPUs (tests/emulated/run.py)."""
    return run_summary_program("emulated CPUs", [sys.executable, os.path.join(
        REPO, "tests", "emulated", "run.py"), "--build", build])


def run_summary_program(label, argv):
    """Runs a program whose last line is `N passed, N failed[, N skipped]`, echoing
    its output; a crash, a timeout or a missing summary counts as one failure."""
    env = dict(os.environ, AESGEN_ROOT=REPO)
    proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace")
    timed_out = threading.Event()

    def kill_on_timeout():
        timed_out.set()
        proc.kill()

    timer = threading.Timer(C_TIMEOUT_SECONDS, kill_on_timeout)
    timer.start()
    summary = None
    try:
        for line in proc.stdout:
            line = line.rstrip("\n")
            say(line)
            match = SUMMARY.match(line)
            summary = match if match else (summary if not line.strip() else None)
        status = proc.wait()
    finally:
        timer.cancel()
    return c_totals(summary, status, timed_out.is_set(), label)


def c_totals(summary, status, timed_out, label="C tests"):
    """A program's counts: its summary, plus one failure for a bad ending."""
    if timed_out:
        say(f"FAIL: {label}: killed after {C_TIMEOUT_SECONDS} s")
    if summary is None:
        say(f"FAIL: {label}: exit status {status} and no summary line at the end")
        return Totals(failed=1)
    passed, failed, skipped = (int(g) if g else 0 for g in summary.groups())
    totals = Totals(passed, failed, skipped)
    if status != 0 and failed == 0:
        say(f"FAIL: {label}: exit status {status} although the summary shows no failure")
        totals.failed += 1
    elif status == 0 and failed != 0:
        say(f"FAIL: {label}: exit status 0 although the summary shows failures")
        totals.failed += 1
    return totals


def timed(name, run):
    say(f"== {name}")
    start = time.monotonic()
    totals = run()
    say(f"== {name}: {totals.line()} ({time.monotonic() - start:.1f} s)")
    return totals


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build", help="build directory (default: build)")
    parser.add_argument("--skip-python", action="store_true", help="only the C tests")
    parser.add_argument("--skip-c", action="store_true", help="only the Python tests")
    parser.add_argument("--skip-fuzz", action="store_true", help="no fuzz replay or run")
    parser.add_argument("--skip-ct", action="store_true", help="no constant-time check")
    parser.add_argument("--skip-win", action="store_true", help="no Windows tests under wine")
    parser.add_argument("--skip-emulated", action="store_true",
                        help="no C tests on emulated CPUs (qemu-user)")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    os.chdir(REPO)
    os.environ["AESGEN_BUILD"] = build      # for tests/python/test_elf.py
    os.environ["AESGEN_ROOT"] = REPO

    start = time.monotonic()
    totals = Totals()
    if not args.skip_python:
        totals.add(timed("Python tests (tests/python)", run_python_tests))
    if not args.skip_c:
        totals.add(timed("C tests (" + os.path.relpath(build, REPO) + "/tests/aesgen_tests)",
                         lambda: run_c_tests(build)))
    if not args.skip_fuzz:
        totals.add(timed("Fuzz corpus replay and short runs (tests/fuzz/run.py, "
                         + os.path.relpath(build, REPO) + "-fuzz)", lambda: run_fuzz_tests(build)))
    if not args.skip_ct:
        totals.add(timed("Constant-time check under valgrind (tests/ct/run.py)",
                         lambda: run_ct_check(build)))
    if not args.skip_win:
        totals.add(timed("Windows x64 under wine (tests/win/run.py, "
                         + os.path.relpath(build, REPO) + "/win)", lambda: run_win_tests(build)))
    if not args.skip_emulated:
        totals.add(timed("C tests on emulated CPUs (tests/emulated/run.py, qemu-user)",
                         lambda: run_emulated_tests(build)))
    say(f"== all tests: {time.monotonic() - start:.1f} s")
    say(totals.line())
    return 1 if totals.failed else 0


if __name__ == "__main__":
    sys.exit(main())
