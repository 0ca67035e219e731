# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Per-CPU choices the runtime makes between generated functions, each from a measurement
on the CPU it names (never from a model alone).

GCM_GHASH: which GHASH set (schoolbook or Karatsuba) aesgen_gcm_init takes on the EVEX
ISAs, whose files hold both.  The runtime reads the table from gen/aesgen_gen.h
(AESGEN_GEN_GCM_GHASH_PREFERENCES, used by aesgen_gcm_ghash_for_cpu in runtime/src/isa.c);
perf/report.py reads it from here.  A CPU not listed takes the file's primary set.
"""

from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class GhashPreference:
    vendor: str          # CPUID leaf 0 vendor string
    family: int          # display family (CPUID leaf 1); 0: any
    ghash: str           # "school" or "karatsuba"
    measured: str        # where and what: both sets of one build in one process


GCM_GHASH: Tuple[GhashPreference, ...] = (
    GhashPreference("GenuineIntel", 0, "school",
                    "Sapphire Rapids (family 6 model 0xcf): schoolbook 2.5-4.5% faster at "
                    "16 KiB"),
    GhashPreference("AuthenticAMD", 0x19, "school",
                    "Zen 4 (EPYC Genoa, model 0x11), AES-128/256 records: schoolbook 1-3% "
                    "faster from 512 B to 16 KiB, Karatsuba at most ~2% ahead at 64-256 B "
                    "(llvm-mca's znver4 model predicts the opposite)"),
    GhashPreference("AuthenticAMD", 0x1a, "karatsuba",
                    "Zen 5 (family 0x1a model 2, the figures reported with issue 12): "
                    "Karatsuba up to 6% faster at 512-1420 B, schoolbook 0.5-2% at 4-16 KiB"),
)


def ghash_for_cpu(vendor: str, family: int) -> Optional[str]:
    """The set the runtime takes for this vendor and display family, or None (primary)."""
    for p in GCM_GHASH:
        if p.vendor == vendor and p.family in (0, family):
            return p.ghash
    return None
