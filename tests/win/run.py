#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Runs the Windows x64 test program ($(BUILD)/win/aesgen_win_tests.exe, tests/win/win.mk)
under wine and reports its summary line `N passed, N failed, N skipped`.

Wine gets its own prefix in the build directory (created on the first run, which takes
a few seconds more), no debug output, and no Mono/Gecko installers.  First a probe run
(no test group) shows whether wine can run a Windows program here at all: if it
cannot, that is one skipped check, named, never a pass.  After a working probe, a
missing summary or a crash of the real run is a failure.

Usage: python3 tests/win/run.py --build BUILD_DIR
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$")
TIMEOUT_SECONDS = 600


def wine_environment(build):
    win = os.path.join(build, "win")
    return dict(os.environ, WINEPREFIX=os.path.join(win, "wineprefix"), WINEDEBUG="-all",
                WINEDLLOVERRIDES="mscoree,mshtml=", AESGEN_ROOT="Z:" + REPO,
                AESGEN_VECTORS="Z:" + os.path.join(win, "vectors"))


def skip(reason):
    print(f"SKIP wine: {reason}")
    print("0 passed, 0 failed, 1 skipped")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    exe = os.path.join(build, "win", "aesgen_win_tests.exe")
    if not os.path.exists(exe):
        print(f"FAIL: Windows tests: {exe} does not exist (run `make test`)")
        print("0 passed, 1 failed, 0 skipped")
        return 1
    wine = shutil.which("wine")
    if not wine:
        return skip("no wine here: the Windows x64 program was built but not run "
                    "(tests/tools.sh installs wine)")
    env = wine_environment(build)
    os.makedirs(env["WINEPREFIX"], exist_ok=True)
    version = subprocess.run([wine, "--version"], capture_output=True, text=True,
                             env=env).stdout.strip()
    try:
        probe = subprocess.run([wine, exe, "--only", "none"], capture_output=True, text=True,
                               env=env, timeout=TIMEOUT_SECONDS, errors="replace")
    except subprocess.TimeoutExpired:
        return skip(f"{version}: a probe run of {exe} did not finish")
    lines = probe.stdout.strip().splitlines()
    if probe.returncode != 0 or not lines or not SUMMARY.match(lines[-1]):
        tail = (probe.stderr.strip().splitlines() or ["no output"])[-1]
        return skip(f"{version} cannot run {exe} (status {probe.returncode}: {tail})")
    print(f"wine: {version}")
    sys.stdout.flush()
    try:
        run = subprocess.run([wine, exe], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, env=env, timeout=TIMEOUT_SECONDS, errors="replace")
    except subprocess.TimeoutExpired:
        print(f"FAIL: Windows tests: killed after {TIMEOUT_SECONDS} s")
        print("0 passed, 1 failed, 0 skipped")
        return 1
    output = [line for line in run.stdout.splitlines()
              if not line.startswith("wine: ")]      # wine's own notes (no 32-bit wine)
    for line in output:
        print(line)
    match = SUMMARY.match(output[-1]) if output else None
    if not match:
        print(f"FAIL: Windows tests: exit status {run.returncode} and no summary line")
        print("0 passed, 1 failed, 0 skipped")
        return 1
    if run.returncode != 0 and int(match.group(2)) == 0:
        print(f"FAIL: Windows tests: exit status {run.returncode} with no failure counted")
        print(f"{match.group(1)} passed, 1 failed, {match.group(3) or 0} skipped")
        return 1
    return 1 if int(match.group(2)) else 0


if __name__ == "__main__":
    sys.exit(main())
