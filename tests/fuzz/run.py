#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Replays the fuzz corpora and runs the libFuzzer targets (tests/fuzz/fuzz.mk builds them).

1. Replay: every file of tests/fuzz/corpus/<any target>/ through every target (one
   counted check per file and target; a crash names the file).
2. Fuzzing: each target (or --target) for --seconds, starting from its committed
   corpus; new inputs go to BUILD/corpus/<target>, a reproducer to
   BUILD/artifacts/<target>/ (its path is printed; the run fails).  --seconds 0 skips
   this part.  Each run prints its executions per second and coverage.
Last line: `N passed, N failed`.  Exit status 1 if anything failed.

Usage: tests/fuzz/run.py [--build build-fuzz] [--seconds N] [--target NAME] [--jobs N]
                         [--no-replay]
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(REPO, "tests", "fuzz", "corpus")
TARGETS = ("ctr", "xctr", "xts", "gcm")
MAX_LEN = 8192           # room for several main-loop iterations of every ISA
INPUT_TIMEOUT = 20       # seconds per input before libFuzzer calls it a hang
ARTIFACT = re.compile(r"Test unit written to (\S+)")
EXECUTED = re.compile(r"^Executed (.+) in \d+ ms$")
STATUS = re.compile(r"^#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/")
DONE = re.compile(r"^Done (\d+) runs in (\d+) second")


def say(text=""):
    print(text, flush=True)


def binary(build, target):
    return os.path.join(build, "fuzz_" + target)


def corpus_files():
    files = []
    for target in TARGETS:
        folder = os.path.join(CORPUS, target)
        if os.path.isdir(folder):
            files += sorted(os.path.join(folder, name) for name in os.listdir(folder))
    return files


def replay(build, target, files):
    """Runs files through the target; returns (passed, failures), failures naming files."""
    passed, failures, pending = 0, [], list(files)
    while pending:
        proc = subprocess.run([binary(build, target), "-runs=1", f"-timeout={INPUT_TIMEOUT}"]
                              + pending, cwd=REPO, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, errors="replace")
        done = {m.group(1) for m in map(EXECUTED.match, proc.stdout.splitlines()) if m}
        ok = [f for f in pending if f in done]
        passed += len(ok)
        rest = [f for f in pending if f not in done]
        if proc.returncode == 0 and not rest:
            break
        if not rest:     # every file ran, yet the process failed (e.g. a leak at exit)
            failures.append((target, pending[-1], proc.stdout))
            passed -= 1
            break
        failures.append((target, rest[0], proc.stdout))   # the file it died on
        pending = rest[1:]
    return passed, failures


def fuzz(build, target, seconds, nice):
    """One bounded libFuzzer run; returns (ok, summary line, log path)."""
    work = os.path.join(build, "corpus", target)
    artifacts = os.path.join(build, "artifacts", target) + os.sep
    logs = os.path.join(build, "logs")
    for folder in (work, artifacts, logs):
        os.makedirs(folder, exist_ok=True)
    log_path = os.path.join(logs, target + ".log")
    seeds = os.path.join(CORPUS, target)
    command = ([] if not nice else ["nice", "-n", str(nice)]) + [
        binary(build, target), f"-max_total_time={seconds}", f"-max_len={MAX_LEN}",
        f"-timeout={INPUT_TIMEOUT}", f"-artifact_prefix={artifacts}", "-print_final_stats=1",
        work] + ([seeds] if os.path.isdir(seeds) else [])
    start = time.monotonic()
    with open(log_path, "w") as log:
        status = subprocess.run(command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT).returncode
    elapsed = time.monotonic() - start
    text = open(log_path, errors="replace").read()
    runs, cov, ft, corp = 0, "?", "?", "?"
    for line in text.splitlines():
        m = STATUS.match(line)
        if m:
            runs, cov, ft, corp = int(m.group(1)), m.group(2), m.group(3), m.group(4)
        m = DONE.match(line)
        if m:
            runs = int(m.group(1))
    artifact = ARTIFACT.search(text)
    summary = (f"fuzz {target}: {runs} runs in {elapsed:.0f} s ({runs / max(elapsed, 1e-9):.0f}"
               f" exec/s), cov {cov}, ft {ft}, corpus {corp}; log {os.path.relpath(log_path, REPO)}")
    if status != 0 or artifact:
        where = artifact.group(1) if artifact else "(no reproducer written)"
        return False, summary + f"\nFAIL: fuzz {target}: exit status {status}; reproducer {where}", text
    return True, summary, text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build-fuzz")
    parser.add_argument("--seconds", type=int, default=5, help="fuzzing time per target (0: none)")
    parser.add_argument("--target", choices=TARGETS, help="only this target")
    parser.add_argument("--jobs", type=int, default=1, help="targets fuzzed at once")
    parser.add_argument("--nice", type=int, default=0, help="run the fuzzers under nice -n N")
    parser.add_argument("--no-replay", action="store_true", help="skip the corpus replay")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    targets = [args.target] if args.target else list(TARGETS)
    passed = failed = 0
    for target in targets:
        if not os.access(binary(build, target), os.X_OK):
            say(f"FAIL: fuzz {target}: {binary(build, target)} missing (make fuzz-bin)")
            failed += 1
    targets = [t for t in targets if os.access(binary(build, t), os.X_OK)]

    if not args.no_replay:
        files = corpus_files()
        for target in targets:
            start = time.monotonic()
            ok, failures = replay(build, target, files)
            passed += ok
            failed += len(failures)
            for t, path, output in failures:
                say(output.rstrip()[-3000:])
                say(f"FAIL: fuzz replay {t}: {os.path.relpath(path, REPO)}")
            say(f"replay {target}: {ok} of {len(files)} corpus files passed "
                f"({time.monotonic() - start:.1f} s)")

    if args.seconds > 0 and targets:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = pool.map(lambda t: fuzz(build, t, args.seconds, args.nice), targets)
            for ok, summary, text in results:
                if not ok:
                    say(text.rstrip()[-4000:])
                say(summary)
                passed += ok
                failed += not ok
    say(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
