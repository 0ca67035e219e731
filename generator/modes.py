# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Modes: which template makes which file, and the knobs each one reads."""

from dataclasses import dataclass
from typing import Dict, Tuple

from .errors import UsageError
from .isa import ISAS, has_mode


@dataclass(frozen=True)
class Mode:
    name: str
    template: str
    knobs: Tuple[str, ...]
    defaults: Dict[str, object]
    summary: str


MODES = {mode.name: mode for mode in (
    Mode("ctr", "ctr.j2", ("UNROLL", "KEYS", "TAIL", "ONEPASS", "COUNTERS", "TAILCTR"),
         {"UNROLL": 8, "TAIL": 4, "ONEPASS": "loop", "COUNTERS": "base", "TAILCTR": "swap"},
         "CTR with a 128-bit big-endian counter (SP 800-38A)"),
    Mode("xctr", "xctr.j2", ("UNROLL", "KEYS", "TAIL", "ONEPASS", "COUNTERS", "SPLAT", "START"),
         {"UNROLL": 8, "TAIL": 4, "ONEPASS": "loop", "COUNTERS": "base", "SPLAT": "shuffle",
          "START": "any"},
         "XCTR (HCTR2): block i is AES(iv xor LE128(i))"),
    Mode("xts", "xts.j2", ("UNROLL", "KEYS", "TAIL", "ONEPASS", "TWEAK", "TWEAKENC", "BULK"),
         {"UNROLL": 4, "TAIL": 4, "ONEPASS": "loop", "TWEAK": "clmul", "TWEAKENC": "xmm",
          "BULK": "bitslice"},
         "XTS with ciphertext stealing (IEEE 1619, SP 800-38E), encrypt and decrypt"),
    # GHASH=school on every ISA: measured ahead of Karatsuba wherever VPCLMULQDQ is not
    # the bound (Intel Xeon: Emerald Rapids, and a KVM guest reporting model 0xa7, 1-6%;
    # Zen 4's avx10_512 1-3% from 512 B).  Zen 5 and Zen 4's avx10_256 take Karatsuba as
    # measured variants (generator/tuning.json); llvm-mca's Zen models rank it first on
    # every CPU, so they do not decide this.
    Mode("gcm", "gcm.j2", ("UNROLL", "KEYS", "TAIL", "GHASH", "HALVES", "RECTAIL",
                           "TAILPOWERS", "TAILORDER"),
         {"UNROLL": 4, "TAIL": 4, "GHASH": "school", "HALVES": "pshufd", "RECTAIL": "serial",
          "TAILPOWERS": "operand", "TAILORDER": "rounds"},
         "GCM: GHASH and CTR (inc32) with GHASH, one pass (SP 800-38D)"),
)}


def get_mode(name: str) -> Mode:
    try:
        return MODES[name]
    except KeyError:
        raise UsageError(f"unknown mode '{name}'; valid: {', '.join(MODES)}") from None


def generated_pairs():
    """Every (Isa, Mode) that has a generated file, ISA-major in table order.  An ISA may
    have fewer modes than MODES (vperm_ssse3: no gcm.S); everything that loops over the
    files (gen, the manifest, the tests) takes them from here."""
    return [(isa, mode) for isa in ISAS.values() for mode in MODES.values()
            if has_mode(isa, mode.name)]
