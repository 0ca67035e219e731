# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Paths shared by the Python tests; importing it puts the repository on sys.path."""

import os
import shutil
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if REPO not in sys.path:
    sys.path.insert(0, REPO)

GEN = os.path.join(REPO, "gen")


def have(tool):
    return shutil.which(tool) is not None


def host_flags(cpuinfo="/proc/cpuinfo"):
    """The CPU feature flags Linux lists for this machine (it leaves out a feature
    whose register state the OS does not enable), or an empty set off Linux."""
    try:
        with open(cpuinfo, encoding="utf-8") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                if key.strip() == "flags":
                    return set(value.split())
    except OSError:
        pass
    return set()


def host_runs(isa, flags=None):
    """True if this machine has every CPUID feature the ISA (generator/isa.py) needs;
    the OS-state entries ("os:...") are implied by Linux listing the features."""
    flags = host_flags() if flags is None else flags
    return all(f in flags for f in isa.features if not f.startswith("os:"))
