#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Runs the C test binary ($(BUILD)/tests/aesgen_tests) on emulated CPUs that lack what
the machines we test on have (AVX-512, VAES, AVX, AES-NI, SSSE3), under qemu-user, and
reports `N passed, N failed, N skipped`.

Why: every machine this project runs on (Sapphire Rapids, Zen 4, Zen 5) has every ISA, so
natively the tests never see a CPU that must skip one, and the library's dispatch never
has to pass an ISA over.  QEMU's CPU models raise #UD for an instruction their CPUID does
not list (a `vpxor ymm` on Westmere, an `aesenc` on Penryn), so a run there also shows
that nothing on the library's paths (key setup, GCM's H powers, every mode, `auto`)
executes an instruction the CPU lacks.

For each model below, a chosen set of C groups runs with AESGEN_TEST_EMULATOR set to the
emulator's command (the groups that start child processes run them through it too, and
the cpu-features group skips its /proc/cpuinfo comparison, which describes the host):
- the ISAs the model lacks must be skipped by name ("SKIP <isa>: CPU/OS lacks ..."),
  exactly those: each such line is a passed check here, a missing or an extra one a
  failure;
- the other skips a lesser CPU brings (length plans whose ISAs it cannot run, the
  XGETBV(1) and AESIMC cross-checks, the cpu-features comparison) are expected and
  likewise counted as passed; any other skip is a failure;
- the groups' own counts are added; a crash, a timeout or a missing summary is a failure.
Without qemu-x86_64 (tests/tools.sh installs qemu-user) the whole part is one named skip.

Usage: python3 tests/emulated/run.py --build BUILD_DIR
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if REPO not in sys.path:
    sys.path.insert(0, REPO)
from generator.isa import ISAS as GENERATOR_ISAS   # noqa: E402  (after the path)

SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$")
SKIP_ISA = re.compile(r"^SKIP (\w+): CPU/OS lacks \S+")
TIMEOUT_SECONDS = 300
ISAS = tuple(GENERATOR_ISAS)      # in the order of their needs, each the one before's and more

# (QEMU model, what it has, the ISAs it lacks).  The ISAs' needs: vperm_ssse3 SSSE3;
# aesni_avx AES-NI, PCLMULQDQ, AVX; vaes_avx2 also AVX2, VAES, VPCLMULQDQ; the avx10
# ISAs also AVX-512 (generator/isa.py).
MODELS = (
    ("qemu64", "SSE3, no SSSE3: the portable C code only", ISAS),
    ("Penryn", "SSSE3, no AES-NI: vperm_ssse3", ISAS[1:]),
    ("Westmere", "AES-NI and PCLMULQDQ, no AVX: vperm_ssse3", ISAS[1:]),
    ("Haswell", "AVX2, AES-NI, no VAES: aesni_avx", ISAS[2:]),
)

# Groups that cover the API, dispatch (children under the emulator), every mode's known
# answers at every key size through `auto` and each ISA the CPU runs, and the variant
# and length-plan tables; the long groups (differential, page edges, xts-api's data units
# of 2^20 blocks) add nothing CPU-specific and run natively.
GROUPS = ("api", "known-answer", "abi", "first-use-threads", "xts-known-answer", "xts-keys", "gcm-api", "gcm-known-answer", "gcm-contract", "cpu-features",
          "isa-context", "counter-readback", "ipsec", "variants")

# Skips a lesser CPU brings besides its ISAs' (tests/c: isa.c, test_abi.c,
# test_xts_api.c, test_cpu.c, test_variants.c, test_gcm_contract.c).
EXPECTED_SKIPS = (
    re.compile(r"^SKIP length plan \S+ \S+ on \w+: this CPU does not run all its ISAs$"),
    re.compile(r"^SKIP length plan \S+ \S+: \"auto\" avoids \w+ on this CPU"),
    re.compile(r"^SKIP xinuse: CPU lacks XGETBV with ECX=1"),
    re.compile(r"^SKIP xts: AESIMC cross-check of the test's InvMixColumns \(CPU lacks"),
    re.compile(r"^SKIP cpu features of this machine: an emulated CPU"),
    re.compile(r"^SKIP aesgen_gcm_ghash_ssse3: the CPU cannot run vperm_ssse3$"),
)
QEMU_NOTE = re.compile(r"^qemu-x86_64: warning: TCG doesn't support requested feature")


def judge(model, lacking, lines, status):
    """(passed, failed, messages) of one model's run: its summary plus the skip rules."""
    messages, passed, failed = [], 0, 0
    summary = None
    skipped_isas = []
    for line in lines:
        match = SUMMARY.match(line)
        if match:
            summary = match
            continue
        if not line.startswith("SKIP "):
            continue
        isa = SKIP_ISA.match(line)
        if isa and isa.group(1) in ISAS:
            skipped_isas.append(isa.group(1))
        elif any(pattern.match(line) for pattern in EXPECTED_SKIPS):
            passed += 1
        else:
            failed += 1
            messages.append(f"FAIL: {model}: a skip this CPU does not explain: {line}")
    for isa in ISAS:
        wanted, got = isa in lacking, skipped_isas.count(isa)
        if wanted and got == 1:
            passed += 1
        elif wanted:
            failed += 1
            messages.append(f"FAIL: {model}: {isa} should be skipped by name "
                            f"(the model lacks what it needs), skipped {got} times")
        elif got:
            failed += 1
            messages.append(f"FAIL: {model}: {isa} skipped, but the model has what it needs")
    if summary is None:
        failed += 1
        messages.append(f"FAIL: {model}: exit status {status} and no summary line")
        return passed, failed, messages
    passed += int(summary.group(1))
    failed += int(summary.group(2))
    if status != 0 and int(summary.group(2)) == 0:
        failed += 1
        messages.append(f"FAIL: {model}: exit status {status} with no failure counted")
    return passed, failed, messages


def run_model(qemu, binary, model, lacking):
    emulator = f"{qemu} -cpu {model}"
    argv = [qemu, "-cpu", model, binary]
    for group in GROUPS:
        argv += ["--only", group]
    env = dict(os.environ, AESGEN_TEST_EMULATOR=emulator, AESGEN_ROOT=REPO)
    try:
        run = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=env, timeout=TIMEOUT_SECONDS, errors="replace", cwd=REPO)
    except subprocess.TimeoutExpired:
        return 0, 1, [f"FAIL: {model}: killed after {TIMEOUT_SECONDS} s"], []
    lines = [line for line in run.stdout.splitlines() if not QEMU_NOTE.match(line)]
    passed, failed, messages = judge(model, lacking, lines, run.returncode)
    return passed, failed, messages, lines


def timed_run(*args):
    start = time.monotonic()
    return run_model(*args), time.monotonic() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    args = parser.parse_args()
    binary = os.path.join(os.path.abspath(args.build), "tests", "aesgen_tests")
    if not os.access(binary, os.X_OK):
        print(f"FAIL: emulated CPUs: {binary} does not exist (run `make test`)")
        print("0 passed, 1 failed, 0 skipped")
        return 1
    qemu = shutil.which("qemu-x86_64")
    if not qemu:
        print("SKIP emulated CPUs: no qemu-x86_64 here (tests/tools.sh installs qemu-user)")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    # the models side by side on the two cores, the longest (Haswell's) first
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        jobs = {model: pool.submit(timed_run, qemu, binary, model, lacking)
                for model, _has, lacking in reversed(MODELS)}
    total_passed = total_failed = 0
    for model, has, _lacking in MODELS:
        (passed, failed, messages, lines), seconds = jobs[model].result()
        if failed:
            for line in lines:
                print(f"  {line}")
        for message in messages:
            print(message)
        print(f"{model} ({has}): {passed} passed, {failed} failed ({seconds:.1f} s)")
        total_passed += passed
        total_failed += failed
    print(f"{total_passed} passed, {total_failed} failed, 0 skipped")
    return 1 if total_failed else 0


if __name__ == "__main__":
    sys.exit(main())
