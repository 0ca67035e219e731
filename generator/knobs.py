# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Knobs: the performance choices a template exposes, their valid values and defaults."""

from dataclasses import dataclass
from typing import Callable, Dict, Optional, Tuple

from . import tuning
from .errors import UsageError
from .isa import Isa


@dataclass(frozen=True)
class Knob:
    name: str
    values: Tuple               # on every ISA that does not list its own (Isa.knob_values)
    parse: Callable[[str], object]
    doc: str
    isas: Optional[Tuple[str, ...]] = None      # the ISAs that have it (None: every one)


def knobs_of(mode, isa: Isa) -> Tuple[str, ...]:
    """The knobs of `mode` on `isa`: the mode's, less those of other ISAs only (BULK)."""
    return tuple(name for name in mode.knobs
                 if KNOBS[name].isas is None or isa.name in KNOBS[name].isas)


def values_for(name: str, isa: Isa) -> Tuple:
    """The values knob `name` may take on this ISA."""
    return dict(isa.knob_values).get(name, KNOBS[name].values)


def all_values(name: str) -> Tuple:
    """Every value knob `name` takes on some ISA (what the command line accepts before
    an ISA is known; the plan refuses one its ISA does not take)."""
    from .isa import ISAS
    values = list(KNOBS[name].values)
    for isa in ISAS.values():
        values += [v for v in values_for(name, isa) if v not in values]
    return tuple(sorted(values, key=str) if not all(isinstance(v, int) for v in values)
                 else sorted(values))


def _int(text):
    return int(text, 10)


KNOBS = {knob.name: knob for knob in (
    Knob("UNROLL", (1, 2, 4, 8, 16), _int,
         "vectors per main-loop iteration (vperm_ssse3: 1, 2 or 3 blocks interleaved, or 8 "
         "bitsliced; XTS's 8 may be vector-permute instead: BULK)"),
    Knob("KEYS", ("reg", "mem", "rows"), str,
         "round keys: reg = all held in vector registers; mem = first and last in registers, "
         "the middle ones reloaded from memory each round (fits 16-register ISAs); rows = "
         "as mem, each key loaded as the key's 64-byte row (rk_rows: the key in every "
         "lane) instead of broadcast from 16 bytes (CTR, XCTR and GCM on ymm/zmm ISAs)"),
    Knob("GHASH", ("school", "karatsuba"), str,
         "GCM carry-less products per block: school = 4; karatsuba = 3 plus two cheap ops, "
         "with (H_lo ^ H_hi) of each power kept in registers, or read from the key's h_halves "
         "where they do not fit (EVEX) (for CPUs where VPCLMULQDQ "
         "competes with VAES for the same pipes, e.g. Zen 4)"),
    Knob("HALVES", ("pshufd", "unpack"), str,
         "GCM, GHASH=karatsuba: the half sums a_L ^ a_H of a pair of data vectors: pshufd = "
         "each vector's halves swapped (vpshufd) and XORed with it, two ops a vector; "
         "unpack = the pair's low and high halves gathered (vpunpcklqdq, vpunpckhqdq) and "
         "XORed once, three ops a pair, the two half sums in one register's two halves, "
         "each multiplied from its own (EVEX only)", isas=("avx10_256", "avx10_512")),
    Knob("RECTAIL", ("serial", "stitched", "stitched1"), str,
         "GCM records (one-shot calls), the final group: serial = for encryption the bulk "
         "loop's last ciphertext hashed, then the final group encrypted and hashed; for "
         "decryption the group's GHASH spread over its rounds; stitched = that encryption "
         "GHASH runs between the final group's rounds (a second set of final groups; EVEX, "
         "where the ciphertext waits in registers of its own), and a decryption group of "
         "4 or more vectors starts its GHASH (reflections, one pair's first products) "
         "ahead of its counter blocks; and a record's last two groups (up to two "
         "iterations' blocks, from the key's 68 powers) are one GHASH sum with one "
         "reduction: encryption's final group hashes the bulk loop's last ciphertext with "
         "the powers above its own, decryption's tail runs a first group before the "
         "final one, and the AAD of a record of up to two iterations waits unreduced; "
         "the lengths block rides in the final group's last vector where it leaves a lane "
         "free; stitched1 = stitched, but decryption's tail is one group as with serial "
         "(its bulk loop takes every full iteration but a final one, and a short AAD waits "
         "only for a record of up to one iteration)",
         isas=("avx10_256", "avx10_512")),
    Knob("TAILPOWERS", ("operand", "loaded"), str,
         "GCM records (one-shot calls), the powers of H of the final groups, which start "
         "at the block count's offset from H^1, so a 64-byte window of them crosses a "
         "cache line for three block counts in four: operand = a memory operand of each "
         "carry-less product (school: four loads of each window); loaded = each window "
         "loaded once into the bulk loop's power registers (HPOW), free by then, and "
         "where they are too few into the block registers the group leaves unused "
         "(avx10_512 only)",
         isas=("avx10_512",)),
    Knob("TAILORDER", ("rounds", "halves"), str,
         "GCM encryption records of one group of 3 or more vectors (no bulk loop before "
         "it, whose GHASH the group's rounds would carry), its rounds: rounds = round by "
         "round over all its vectors, so that they finish together and its GHASH waits for "
         "the last; halves = all rounds of its first half (rounded up) before the second "
         "half's, so that the first half's ciphertext, and its GHASH, is ready while the "
         "second half's rounds run (avx10_512 only)",
         isas=("avx10_512",)),
    Knob("TAIL", (1, 2, 4, 8), _int,
         "vectors processed side by side after the main loop (blocks left over)"),
    Knob("TWEAK", ("clmul", "double", "gpr"), str,
         "XTS tweaks of an iteration: clmul = each straight from the first, T*x^k by shifts "
         "and one carry-less multiply folding the k bits back (independent); double = each "
         "the previous one times x, five shift/add/logic ops and no multiply (a serial "
         "chain; 128-bit vectors only, for CPUs where VPCLMULQDQ blocks the AES pipes, e.g. "
         "Zen 1); gpr = the same doubling in general registers (add/adc), each tweak moved "
         "in by vmovq + vpinsrq, two vector ops per block for five (aesni_avx only); ahead = as "
         "clmul, but the main loop makes each vector's next tweak from its own during the "
         "iteration before (in the first rounds), so no multiply stands between an "
         "iteration's loads and its rounds; twice the tweak registers (EVEX only)"),
    Knob("TWEAKENC", ("xmm", "rows"), str,
         "XTS, the first tweak T = E_K2(iv): xmm = one block on xmm with the tweak key's "
         "16-byte round keys, then copied into every lane (a cross-lane shuffle: 5 cycles "
         "of latency on Zen 5) for the per-lane T*x^i; rows = the IV broadcast to every "
         "lane and encrypted there with the tweak key's 64-byte rows (rk_rows) as memory "
         "operands, so T arrives in every lane (ymm/zmm ISAs)",
         isas=("vaes_avx2", "avx10_256", "avx10_512")),
    Knob("COUNTERS", ("base", "chain", "gpr"), str,
         "counter vectors: base = each added to the base with its own step constant "
         "(independent; CTR: big-endian byte adds); chain (xctr) = each the previous one plus "
         "a step held in a register (a serial chain of adds; 128-bit vectors only); gpr (ctr, "
         "aesni_avx) = the main loop's blocks made one iteration ahead in general registers "
         "(lea, bswap, xor round key 0) into a stack ring and loaded whitened: no vector op"),
    Knob("TAILCTR", ("swap", "bytes"), str,
         "CTR's counter blocks in the groups after the main loop: swap = each vector the "
         "little-endian counter plus its step, byte-swapped (vpaddq, vpshufb); bytes = as "
         "the main loop makes them, big-endian byte adds from the base while the counter's "
         "low byte does not carry within the group (one compare and branch a group; two "
         "vector ops a vector instead of three)"),
    Knob("SPLAT", ("shuffle", "broadcast"), str,
         "XCTR's first counter vector, the start index in every 128-bit lane: shuffle = vmovq "
         "from the argument register, then lane 0 copied across (vshufi64x2 / vpermq); "
         "broadcast = one vpbroadcastq from the argument register, zero-masked to each lane's "
         "low quadword by an opmask loaded earlier: no cross-lane shuffle between the index "
         "and the first round (EVEX only)"),
    Knob("START", ("any", "table"), str,
         "XCTR's counter blocks for a call that starts at index 1 (a message's first call: "
         "every one-shot call) and fits one final group: any = from the index like every "
         "other call; table = (iv ^ round key 0) XORed with a constant table of LE128(1), "
         "LE128(2), ...: one op per vector, no index splat or add before the first round"),
    Knob("BULK", ("bitslice", "vperm"), str,
         "vperm_ssse3's main loop of UNROLL=8 (eight blocks): bitslice = the blocks as "
         "bit planes, the S-box as a Boolean circuit (generator/bitslice.py); vperm = "
         "vector-permute rounds, each block's round written after the one before, the "
         "eight sharing four scratch registers, which the core's register renaming "
         "overlaps (for CPUs whose 2-cycle pxor leaves the bitsliced round's chains "
         "exposed, e.g. Zen 5)", isas=("vperm_ssse3",)),
    Knob("ONEPASS", ("loop", "groups"), str,
         "a message of exactly one main-loop iteration: loop = one pass of the main loop; "
         "groups = the groups of TAIL vectors and the final group (the main loop only "
         "from more than one iteration)"),
)}


def default_keys(isa: Isa) -> str:
    """Holding 15 round keys needs the 32-register file of EVEX."""
    return "reg" if isa.vector_registers >= 32 else "mem"


def describe_values(name: str) -> str:
    """'1, 2, 4, 8, 16; on vperm_ssse3: 1, 2, 3': the knob's values, then each ISA's own."""
    from .isa import ISAS
    text = ", ".join(str(v) for v in KNOBS[name].values)
    for isa in ISAS.values():
        own = dict(isa.knob_values).get(name)
        if own is not None:
            text += f"; on {isa.name}: " + ", ".join(str(v) for v in own)
    return text


def parse_assignment(text: str):
    name, sep, value = text.partition("=")
    name = name.strip().upper()
    if not sep:
        raise UsageError(f"expected KNOB=VALUE, got '{text}'; knobs: {', '.join(KNOBS)}")
    if name not in KNOBS:
        raise UsageError(f"unknown knob '{name}'; valid: {', '.join(KNOBS)}")
    knob = KNOBS[name]
    try:
        parsed = knob.parse(value.strip())
    except ValueError:
        parsed = None
    if parsed not in all_values(name):
        raise UsageError(f"bad value '{value}' for {name}; valid: " + describe_values(name))
    return name, parsed


def uarch_knobs(mode, isa: Isa) -> Dict[str, Dict[str, object]]:
    """{uarch: {KNOB: value}} that generator/tuning.json measured faster on each uarch for
    this mode and ISA, checked like the user's assignments."""
    out = {}
    for uarch, tuned in tuning.uarch_knobs(mode.name, isa.name).items():
        where = f"{tuning.TUNING_FILE}: variants.{mode.name}.{isa.name}.{uarch}"
        for name, value in tuned.items():
            if name not in knobs_of(mode, isa):
                raise UsageError(f"{where}: knob {name} does not apply to mode {mode.name} "
                                 f"on {isa.name}; its knobs: {', '.join(knobs_of(mode, isa))}")
            if value not in values_for(name, isa):
                raise UsageError(f"{where}: bad value {value!r} for {name}; valid: "
                                 + ", ".join(str(v) for v in values_for(name, isa)))
        out[uarch] = tuned
    return out


def resolve(mode, isa: Isa, assignments: Dict[str, object]) -> Dict[str, object]:
    """The built-in defaults for this mode and ISA, overridden by the user's assignments
    (the measured per-uarch knobs of generator/tuning.json make variants beside these:
    generator/render.py)."""
    values = dict(mode.defaults)
    values.update(isa.knob_defaults)
    values.update({name: value for mode_name, name, value in isa.mode_knob_defaults
                   if mode_name == mode.name})
    values["KEYS"] = default_keys(isa)
    names = knobs_of(mode, isa)
    for name, value in assignments.items():
        if name not in names:
            raise UsageError(f"knob {name} does not apply to mode {mode.name} on {isa.name}; "
                             f"its knobs: {', '.join(names)}")
        values[name] = value
    if values.get("TAIL", 0) > values.get("UNROLL", 0):
        values["TAIL"] = values["UNROLL"]
        if "TAIL" in assignments:
            raise UsageError(f"TAIL={assignments['TAIL']} exceeds UNROLL={values['UNROLL']}; "
                             f"valid: TAIL <= UNROLL")
    return {name: values[name] for name in sorted(names)}
