#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Runs the constant-time check (tests/ct/ct_check.c) under valgrind memcheck.

1. BUILD-ct/ct_check: every operation must cause no memcheck error (a branch or
   an address that depends on a secret).
2. BUILD-ct/ct_check_planted (a tag comparison that exits early): every tag check
   must report errors, which proves the check can fail.
Without valgrind: one failure (tests/tools.sh installs it).
Last line: `N passed, N failed`.

Usage: tests/ct/run.py [--build build]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed$")
# No leak check (not what this is about); errors are printed with their stacks.
VALGRIND = ["valgrind", "--tool=memcheck", "--quiet", "--leak-check=no",
            "--track-origins=yes", "--num-callers=12"]


def say(text=""):
    print(text, flush=True)


def run(argv):
    """Runs one ct_check binary under valgrind; returns (passed, failed)."""
    start = time.monotonic()
    proc = subprocess.run(VALGRIND + argv, cwd=REPO, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors="replace")
    lines = proc.stdout.rstrip().splitlines()
    for line in lines:
        say(line)
    match = SUMMARY.match(lines[-1]) if lines else None
    if not match:
        say(f"FAIL: {' '.join(argv)}: exit status {proc.returncode}, no summary line")
        return 0, 1
    passed, failed = int(match.group(1)), int(match.group(2))
    if (proc.returncode != 0) != (failed != 0):
        say(f"FAIL: {' '.join(argv)}: exit status {proc.returncode} disagrees with its summary")
        failed += 1
    say(f"({os.path.relpath(argv[0], REPO)}: {time.monotonic() - start:.1f} s)")
    return passed, failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    args = parser.parse_args()
    ct_build = os.path.abspath(args.build) + "-ct"
    if shutil.which("valgrind") is None:
        say("FAIL: valgrind is not installed (tests/tools.sh installs Debian's valgrind)")
        say("0 passed, 1 failed")
        return 1
    passed = failed = 0
    for argv in ([os.path.join(ct_build, "ct_check")],
                 [os.path.join(ct_build, "ct_check_planted"), "--expect-leak"]):
        p, f = run(argv)
        passed += p
        failed += f
    say(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
