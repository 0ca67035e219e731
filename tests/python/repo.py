# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Paths shared by the Python tests; importing it puts the repository on sys.path."""

import os
import shutil
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if REPO not in sys.path:
    sys.path.insert(0, REPO)

GEN = os.path.join(REPO, "gen")
# The library's build directory: tests/run.py sets AESGEN_BUILD (make test builds it first).
BUILD = os.environ.get("AESGEN_BUILD") or os.path.join(REPO, "build")


def have(tool):
    return shutil.which(tool) is not None


def cpuinfo(path="/proc/cpuinfo"):
    """The first processor's entries of /proc/cpuinfo ({"vendor_id": ..., "flags": ...}),
    or {} off Linux."""
    facts = {}
    try:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                facts.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    return facts


def host_runs(isa, flags=None):
    """True if this machine has every CPUID feature the ISA (generator/isa.py) needs.
    Linux leaves out of "flags" a feature whose register state the OS does not enable,
    so the OS-state entries ("os:...") are implied by the features it lists."""
    flags = set(cpuinfo().get("flags", "").split()) if flags is None else flags
    return all(f in flags for f in isa.features if not f.startswith("os:"))


LIBRARY = os.path.join(BUILD, "libaesgen.a")


def build_bench(directory):
    """The bench (tests/bench/*.c) built against the built library into directory; its
    path.  A few seconds: for tests that run it on one quick case or on bad input."""
    import glob
    import subprocess
    binary = os.path.join(directory, "bench")
    subprocess.run(["cc", "-std=c11", "-O1", "-I", os.path.join(REPO, "runtime", "include"),
                    "-I", os.path.join(REPO, "runtime", "src"), "-I", GEN, "-o", binary,
                    *sorted(glob.glob(os.path.join(REPO, "tests", "bench", "*.c"))), LIBRARY,
                    "-lcrypto"], check=True)
    return binary
