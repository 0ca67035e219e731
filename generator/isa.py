# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""ISA levels: register file, vector width, encoding, and the CPU features each needs."""

from dataclasses import dataclass
from typing import Tuple

from .errors import UsageError


@dataclass(frozen=True)
class Isa:
    name: str
    vector_bytes: int           # 16 (xmm), 32 (ymm) or 64 (zmm)
    vector_registers: int       # 16 for VEX, 32 for EVEX
    evex: bool                  # EVEX: opmasks, 32 registers, vpternlogd ...
    features: Tuple[str, ...]   # CPUID features (and OS state) the code needs
    summary: str
    # vperm_ssse3: legacy-SSE encodings (no VEX: no vzeroupper, the legacy-SSE lint
    # inverted), its own templates (templates/vperm/) and plans, and only these modes.
    legacy_sse: bool = False
    modes: Tuple[str, ...] = ("ctr", "xctr", "xts", "gcm")
    templates: str = ""                  # subdirectory of templates/ its modes come from
    knob_defaults: Tuple[Tuple[str, object], ...] = ()   # over the modes' defaults
    # A knob's values on this ISA where they differ from the knob's own (generator/knobs.py
    # values_for; the plan refuses the others, naming these).
    knob_values: Tuple[Tuple[str, Tuple], ...] = ()
    # (mode, knob, value): defaults of one mode on this ISA, over knob_defaults
    mode_knob_defaults: Tuple[Tuple[str, str, object], ...] = ()

    @property
    def vperm(self) -> bool:
        """Vector-permute AES (no AES-NI): templates/vperm/, plan.VPERM_PLANS."""
        return self.templates == "vperm/"

    @property
    def lanes(self) -> int:
        """AES blocks per vector register."""
        return self.vector_bytes // 16

    @property
    def vector_kind(self) -> str:
        return {16: "xmm", 32: "ymm", 64: "zmm"}[self.vector_bytes]

    # Mnemonics that differ between VEX and EVEX code.
    @property
    def pxor(self) -> str:
        return "vpxord" if self.evex else "vpxor"

    @property
    def movdqu(self) -> str:
        return "vmovdqu8" if self.evex else "vmovdqu"

    @property
    def movdqa(self) -> str:
        """Register-to-register copy (EVEX form reaches registers 16-31)."""
        return "vmovdqa64" if self.evex else "vmovdqa"

    @property
    def broadcast128(self) -> str:
        """Load 16 bytes from memory into every 128-bit lane of a vector register."""
        if self.vector_bytes == 16:
            return "vmovdqu"
        return "vbroadcasti32x4" if self.evex else "vbroadcasti128"

    @property
    def mask_move(self) -> str:
        """kmov variant that fills an opmask for one vector of byte elements."""
        return {16: "kmovw", 32: "kmovd", 64: "kmovq"}[self.vector_bytes]


_VEX = ("aes", "pclmulqdq", "avx", "os:xmm+ymm")
_VAES = _VEX + ("avx2", "vaes", "vpclmulqdq", "bmi2")
_AVX10 = _VAES + ("avx512f", "avx512bw", "avx512vl", "avx512dq", "os:opmask+zmm")

# In the order of preference, lowest first (the runtime's "auto" takes the last usable).
ISAS = {isa.name: isa for isa in (
    Isa("vperm_ssse3", 16, 16, False, ("ssse3",),
        "vector-permute AES (pshufb, constant time) on xmm, legacy SSE, 16 registers; "
        "for CPUs without AES-NI", legacy_sse=True, modes=("ctr", "xctr", "xts"), templates="vperm/",
        knob_defaults=(("UNROLL", 8), ("TAIL", 1), ("TWEAK", "double")),
        # UNROLL 1..3: blocks of five registers interleaved, vector-permute (3 fit beside
        # the nibble mask, 2 beside XTS's tweaks); 8: a bitsliced main loop
        # (generator/bitslice.py), vector-permute for the rest (generator/plan.py)
        knob_values=(("UNROLL", (1, 2, 3, 8)),
                     # its groups after the bitsliced loop are vector-permute: no second path
                     ("ONEPASS", ("loop",)),
                     # no PCLMULQDQ: its XTS doubles each tweak (templates/vperm/xts.j2)
                     ("TWEAK", ("double",)),
                     # its XCTR makes its counter blocks its own way (templates/vperm/xctr.j2)
                     ("COUNTERS", ("base",)),
                     ("SPLAT", ("shuffle",)),
                     ("START", ("any",)),
                     # a row is for a vector of several lanes
                     ("KEYS", ("reg", "mem")),
                     # its CTR makes its counter blocks its own way (templates/vperm/ctr.j2)
                     ("TAILCTR", ("swap",)))),
    # SPLAT=broadcast masks with an opmask: EVEX only (one lane needs no splat at all)
    Isa("aesni_avx", 16, 16, False, _VEX, "AES-NI on xmm, VEX-encoded AVX, 16 registers",
        knob_values=(("SPLAT", ("shuffle",)), ("KEYS", ("reg", "mem")))),
    # TWEAK=double and COUNTERS=chain: measured on 128-bit vectors only (COUNTERS=gpr: one
    # block per store); TWEAK=gpr makes
    # one block's tweak per vmovq + vpinsrq (a wider vector would need a pair per lane)
    Isa("vaes_avx2", 32, 16, False, _VAES, "VAES on ymm, VEX-encoded AVX2, 16 registers",
        knob_values=(("TWEAK", ("clmul",)), ("COUNTERS", ("base",)), ("SPLAT", ("shuffle",)))),
    # TWEAK=ahead holds twice an iteration's tweaks: EVEX's 32 registers only
    Isa("avx10_256", 32, 32, True, _AVX10, "VAES on ymm, EVEX, 32 registers and opmasks",
        knob_values=(("TWEAK", ("clmul", "ahead")), ("COUNTERS", ("base",)))),
    Isa("avx10_512", 64, 32, True, _AVX10, "VAES on zmm, EVEX, 32 registers and opmasks",
        knob_values=(("TWEAK", ("clmul", "ahead")), ("COUNTERS", ("base",)))),
)}


def has_mode(isa: Isa, mode_name: str) -> bool:
    return mode_name in isa.modes


def get_isa(name: str) -> Isa:
    try:
        return ISAS[name]
    except KeyError:
        raise UsageError(f"unknown ISA '{name}'; valid: {', '.join(ISAS)}") from None
