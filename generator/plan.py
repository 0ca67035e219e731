# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Plans: everything a template needs decided before it emits one instruction.

A plan is made from (mode, ISA, knobs) alone, without rendering.  It names every vector
register a mode's functions use (the role the register map prints), decides which round
keys live in registers and which are read from memory, where XTS keeps its tweaks, which
GCM constants and powers of H get a register, and it checks the mode's fit rules.  Each
function's general registers (arguments, scratch, second names) are in the plan too, so
the register map above every generated function comes from here.

A knob combination that does not fit raises Refused, whose message names the reason and
the knob values that fit with the others unchanged.  Templates receive the plan (the
global `plan`) and only emit instructions.
"""

import itertools
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from . import bitslice, ghash_schedule, layout
from .abi import Abi, Function
from .isa import Isa
from .knobs import all_values as knobs_all_values, knobs_of, values_for
from .modes import Mode
from .vregs import DoesNotFit, VectorRegisters

# Powers of H an aesgen_gcm_key holds (generator/layout.py, the one definition).
GCM_H_POWERS = layout.GCM_H_POWERS
# Middle round keys of AES-256, the most any key size has (KLAST-1 .. KLAST-13).
MIDDLE_KEYS = 13


class Refused(DoesNotFit):
    """A knob combination a plan cannot hold; the message names the values that fit."""

    def __init__(self, reason: str, message: str):
        self.reason = reason
        super().__init__(message)


@dataclass(frozen=True)
class Rule:
    """A fit rule: text for `list`, and the check (isa, knobs) -> reason or None."""
    text: str
    check: object


@dataclass(frozen=True)
class FunctionPlan:
    """One generated function: symbol aesgen_<base>_<isa><variant>, its named arguments
    (in the ABI's order), its scratch general registers, the second names of registers
    whose first use is over, its stack frame (scratch bytes, then named 8-byte slots),
    and the vector register groups it uses (None: all of the plan's)."""
    base: str
    args: Tuple[str, ...]
    temps: Tuple[str, ...]
    aliases: Tuple[Tuple[str, str, str], ...] = ()     # (name, first name, from when)
    stack: int = 0
    slots: Tuple[str, ...] = ()
    vector_groups: Optional[Tuple[str, ...]] = None


def _tail_rule(isa, knobs):
    if knobs["TAIL"] > knobs["UNROLL"]:
        return f"TAIL={knobs['TAIL']} exceeds UNROLL={knobs['UNROLL']}"
    return None


TAIL_RULE = Rule("TAIL <= UNROLL (the groups after the main loop are at most one "
                 "iteration)", _tail_rule)
def _knob_values_rule(isa, knobs):
    for name, value in sorted(knobs.items(), key=lambda item: item[0] != "UNROLL"):
        valid = values_for(name, isa)
        if value not in valid:
            return (f"{name}={value} is not a value of {name} on {isa.name} (valid: "
                    + ", ".join(map(str, valid)) + ")")
    return None


def _knob_values_text():
    """The rule's text from the ISA table: UNROLL's values, and each ISA's restrictions."""
    from .isa import ISAS
    from .knobs import KNOBS
    own = "; ".join(f"{isa.name}: " + ", ".join(f"{name} {'/'.join(map(str, values))}"
                                                 for name, values in isa.knob_values)
                    for isa in ISAS.values() if isa.knob_values)
    unroll = ", ".join(map(str, KNOBS["UNROLL"].values))
    return f"each knob takes the values of its ISA (UNROLL: {unroll}; {own})"


KNOB_VALUES_RULE = Rule(_knob_values_text(), _knob_values_rule)
REGISTER_RULE = Rule("every register the plan names fits the ISA's vector registers "
                     "(16 on VEX, 32 on EVEX)", None)


class Plan:
    """The decisions shared by every plan; a subclass per mode fills R."""
    RULES: Tuple[Rule, ...] = (KNOB_VALUES_RULE, TAIL_RULE, REGISTER_RULE)
    # KEYS=rows: a group of fewer vectors than this still broadcasts its middle round keys
    # (16 bytes from each row; templates/lib/aes.j2).  Zen 5, XCTR: one vector (64 B) ran
    # 0.96-0.98x with row loads, two and more gained (128 B 1.00-1.03x, 256 B 1.03x); CTR at
    # 256 B, the context at each of a page's 64 line offsets: rows 13.6 / 19.5 TSC ticks
    # (AES-128 / AES-256, median over offsets), broadcasts for that group 14.0 / 21.1.
    ROWS_MIN_VECTORS = 2

    def __init__(self, mode: Mode, isa: Isa, knobs: Dict[str, object]):
        self.mode, self.isa, self.knobs = mode, isa, dict(knobs)
        for rule in self.RULES:
            reason = rule.check(isa, self.knobs) if rule.check else None
            if reason:
                raise DoesNotFit(reason)
        self.vregs = VectorRegisters(isa)
        self.R: Dict[str, object] = {}
        self.groups: List[str] = []          # R's register groups, in allocation order
        self.functions: Dict[str, FunctionPlan] = {}
        self.allocate()

    # -- allocation helpers -------------------------------------------------------
    def take(self, group: str, value):
        """Record a register (or list / {key: register}) under R[group]."""
        self.R[group] = value
        if value:
            self.groups.append(group)
        return value

    def round_keys(self, keys_in_registers: bool):
        """K0 and KLAST always in registers; the 13 middle keys too with KEYS=reg, else KT
        is the scratch each round reloads its key into."""
        if keys_in_registers:
            self.take("KMID", self.vregs.keyed("KLAST-", range(1, MIDDLE_KEYS + 1)))
            self.R["KT"] = None
        else:
            self.R["KMID"] = {}
            self.take("KT", self.vregs.one("KT"))

    def allocate(self):
        raise NotImplementedError

    # -- what templates call ------------------------------------------------------
    def function(self, key: str, abi: Abi, symbol) -> Function:
        """The Function of self.functions[key] for this ABI; symbol(base) -> its name."""
        spec = self.functions[key]
        fn = Function(abi, symbol(spec.base), list(spec.args), list(spec.temps),
                      clear_upper=not self.isa.legacy_sse,
                      vector_registers=self.vector_indices(spec))
        for name, existing, when in spec.aliases:
            fn.alias(name, existing, when)
        if spec.stack:
            fn.reserve_stack(spec.stack)
        if spec.slots:
            fn.reserve_slots(spec.slots)
        fn.plan = spec
        return fn

    def vector_indices(self, spec: FunctionPlan) -> List[int]:
        """The numbers of the vector registers a function may write: its groups' (every
        register of the plan when it names none)."""
        if spec.vector_groups is None:
            return sorted({reg.index for reg in self.vregs.assigned})
        indices = set()
        for group in self.groups:
            if group in spec.vector_groups:
                value = self.R[group]
                regs = (list(value.values()) if isinstance(value, dict)
                        else value if isinstance(value, list) else [value])
                indices |= {reg.index for reg in regs}
        return sorted(indices)

    def vector_pairs(self, groups=None) -> List[str]:
        pairs = []
        for group in self.groups:
            if groups is not None and group not in groups:
                continue
            value = self.R[group]
            regs = (list(value.values()) if isinstance(value, dict)
                    else value if isinstance(value, list) else [value])
            pairs += [f"{reg.role}={reg}" for reg in regs]
        return pairs

    def notes(self, fn) -> List[str]:
        """Extra lines for a function's register map (spills, memory operands)."""
        return []

    def register_map(self, fn, per_line: int = 6) -> List[str]:
        """The comment lines of fn's register map: general registers, vector registers."""
        lines = []
        for title, pairs in (("general", fn.register_pairs()),
                             ("vector", self.vector_pairs(fn.plan.vector_groups))):
            plain = [pair for pair in pairs if "(" not in pair]
            chunks = [", ".join(plain[i:i + per_line]) for i in range(0, len(plain), per_line)]
            chunks += [pair for pair in pairs if "(" in pair]     # second names: a line each
            for index, chunk in enumerate(chunks or ["none"]):
                lead = f"Registers ({title}): " if index == 0 else " " * len(f"Registers ({title}): ")
                lines.append(lead + chunk)
        if fn.slots:
            lines.append("Stack slots: " + ", ".join(fn.slot_pairs()))
        return lines + self.notes(fn)


def _counters_rule(mode_name, refused):
    def check(isa, knobs):
        if knobs.get("COUNTERS") in refused:
            return f"COUNTERS={knobs['COUNTERS']} is not a counter form of {mode_name}"
        return None
    return Rule(f"{mode_name}: COUNTERS is not " + " or ".join(refused), check)


def _rows_rule(mode_name):
    def check(isa, knobs):
        if knobs.get("KEYS") == "rows":
            return (f"KEYS=rows is not a key placement of {mode_name} (its templates read "
                    "the 16-byte keys; rows: ctr, xctr, gcm)")
        return None
    return Rule(f"{mode_name}: KEYS is not rows", check)


class CtrPlan(Plan):
    """COUNTERS=gpr: the main loop's counter blocks, whitened, in a ring of two halves of
    UNROLL blocks on the stack (RING: the current half's offset), written one iteration
    ahead from general registers (templates/ctr.j2 gpr_blocks)."""
    RULES = Plan.RULES + (_counters_rule("ctr", ("chain",)),)

    def allocate(self):
        v, U = self.vregs, self.knobs["UNROLL"]
        self.take("KS", v.many("KS", U))
        for role in ("CTR", "BASE", "BSWAP", "TMP", "K0", "KLAST"):
            self.take(role, v.one(role))
        self.round_keys(self.knobs["KEYS"] == "reg")
        gpr = self.knobs.get("COUNTERS") == "gpr"
        self.functions["crypt"] = FunctionPlan(
            "ctr_crypt", ("KEY", "DST", "SRC", "LEN", "CTR_LO", "CTR_HI"),
            ("ROUNDS", "KEYEND", "TMPG") + (("RING",) if gpr else ()),
            stack=2 * U * self.isa.vector_bytes if gpr else 0)
        # the same from the counter block in memory (aesgen_ctr_crypt_iv's IV): no byte
        # swap in general registers stands between it and the first round; CTR_LO, the
        # block's last byte (COUNTERS=gpr: its low half), takes CTRP's register
        self.functions["crypt_iv"] = FunctionPlan(
            "ctr_crypt_iv", ("KEY", "DST", "SRC", "LEN", "CTRP"),
            ("ROUNDS", "KEYEND", "TMPG") + (("RING", "CTR_HI") if gpr else ()),
            aliases=(("CTR_LO", "CTRP", "once the counter block is read"),),
            stack=2 * U * self.isa.vector_bytes if gpr else 0)

    def notes(self, fn):
        lines = super().notes(fn)
        if self.knobs.get("COUNTERS") == "gpr":
            U = self.knobs["UNROLL"]
            lines.append(f"COUNTERS=gpr: the main loop's whitened counter blocks at [rsp + RING + "
                         f"16*j] (j < {U}; RING = 0 or {16 * U}, the halves swap each "
                         "iteration), wiped when the loop ends.")
        return lines


class XctrPlan(Plan):
    RULES = Plan.RULES + (_counters_rule("xctr", ("gpr",)),)

    def allocate(self):
        v, U = self.vregs, self.knobs["UNROLL"]
        self.take("KS", v.many("KS", U))
        # no INC: each vector of counters adds its own step constant (xctr.j2), unless
        # COUNTERS=chain adds one step, held in STEP, down the vectors
        for role in ("CTR", "IVK", "TMP", "KLAST"):
            self.take(role, v.one(role))
        self.take("STEP", v.one("STEP") if self.knobs["COUNTERS"] == "chain" else None)
        self.R["K0"] = None              # round key 0 is folded into IVK
        self.round_keys(self.knobs["KEYS"] == "reg")
        self.functions["crypt"] = FunctionPlan(
            "xctr_crypt", ("KEY", "DST", "SRC", "LEN", "IVP", "INDEX"),
            ("ROUNDS", "KEYEND", "TMPG"))


class XtsPlan(Plan):
    """The tweaks of one iteration take registers when UNROLL of them fit beside the round
    keys; otherwise all of them live on the stack (spill) and one register (TWS) is the
    scratch they are made in.  BASE comes first: copies from it must come from a register
    below 8 (see lint.check_twin_safe_moves)."""
    RULES = Plan.RULES + (
        Rule("tweaks: in registers when UNROLL of them fit beside the round keys, "
             "else all on the stack (UNROLL vectors of frame); TWEAK=ahead: UNROLL tweaks "
             "and UNROLL last-round keys in registers, or no fit", None),
        _rows_rule("xts"))

    def allocate(self):
        v, U, isa = self.vregs, self.knobs["UNROLL"], self.isa
        keys_in_registers = self.knobs["KEYS"] == "reg"
        # TWEAKENC=rows: T = E_K2(iv) made in every lane from the tweak key's rows
        # (templates/xts.j2), where xmm makes it in lane 0 and copies it across
        self.tweak_from_rows = self.knobs.get("TWEAKENC") == "rows"
        for role in ("BASE", "POLY", "T1", "T2"):
            self.take(role, v.one(role))
        self.take("X", v.many("X", U))
        tweak0 = v.one("TW0")
        self.take("K0", v.one("K0"))
        self.take("KLAST", v.one("KLAST"))
        key_registers = MIDDLE_KEYS if keys_in_registers else 1
        tweaks = [tweak0]
        if self.knobs.get("TWEAK") == "ahead":
            # the main loop's tweaks and their last-round keys (LK) all in registers, or
            # no fit: the next iteration's tweaks replace them during the rounds
            tweaks += v.named(f"TW{j}" for j in range(1, U))
            self.take("LK", v.many("LK", U))
        elif v.free >= key_registers + U - 1:
            # all tweaks fit: they take the low registers (shorter encodings on 256-bit EVEX)
            tweaks += v.named(f"TW{j}" for j in range(1, U))
        self.round_keys(keys_in_registers)
        if len(tweaks) < U and v.free >= U - len(tweaks):
            tweaks += v.named(f"TW{j}" for j in range(len(tweaks), U))
        self.spill = len(tweaks) < U
        if self.spill:
            tweak0.role = "TWS"
        # TW: the tweak registers (spilled: [scratch]), after X in the map
        self.R["TW"] = tweaks
        self.groups.insert(self.groups.index("X") + 1, "TW")
        gpr_tweaks = self.knobs.get("TWEAK") == "gpr"      # the main loop's tweak in TLO:THI
        # the spilled tweaks (TWEAK=gpr: its main loop's too, templates/xts.j2 crypt_vectors_gpr)
        frame = U * isa.vector_bytes if self.spill else 0
        for direction in ("encrypt", "decrypt"):
            self.functions[direction] = FunctionPlan(
                f"xts_{direction}", ("KEY", "KEY2", "DST", "SRC", "LEN", "IVP"),
                ("ROUNDS", "KEYEND", "TMPG") + (("THI",) if gpr_tweaks else ()),
                aliases=(("PART", "KEY2", "once the tweak is made"),)
                + ((("TLO", "IVP", "in the main loop"), ("TSIGN", "TMPG", "in the main loop"))
                   if gpr_tweaks else ()), stack=frame)

    def tweak_registers(self, count):
        """Where a group of count vectors keeps its tweaks: TW0.. when the plan holds them in
        registers; when spilled, the block registers the group leaves unused
        (X[count..2*count-1]) if there are enough, so that short messages never go through
        the stack; else None (the stack slots)."""
        if not self.spill:
            return self.R["TW"][:count]
        if 2 * count <= len(self.R["X"]):
            return self.R["X"][count:2 * count]
        return None

    def lane_stealing(self, count):
        """Decryption with a partial block: a final group of count vectors takes the last
        whole block C[n-1] in a free lane of its last vector, under the later tweak (that
        lane's tweak times x), so that only the stolen block follows the group, as in
        encryption; where the last vector is full, C[n-1] runs beside it or after it
        (beside_registers).  Vectors of several blocks, the group's tweaks in registers.
        On the Intel Xeon guest (family 6 model 0xa7) an AES-256 decryption at 260 B (15
        blocks in the vectors and two on xmm after them) read 0.80 of the encryption (16
        in the vectors, one after): on CPUs that give a zmm vaesdec and an xmm one the
        same slot, the blocks on xmm cost about as much as a whole vector each."""
        return self.isa.lanes > 1 and self.tweak_registers(count) is not None

    def beside_registers(self, count):
        """Decryption with stealing: a final group of count vectors also runs the last whole
        block (under the later tweak) beside its vectors, on xmm, in the block register and
        the tweak register the group leaves unused, (X[count], TW[count]); None where the
        group uses them all or the tweaks are spilled, and on one-block vectors, where the
        two blocks of the stealing already overlap the group (aesni_avx: 33-47 B 2-7%
        slower beside), so the stealing takes both blocks after the group."""
        if self.isa.lanes == 1 or self.spill or count >= len(self.R["X"]) \
                or count >= len(self.R["TW"]):
            return None
        return self.R["X"][count], self.R["TW"][count]

    def notes(self, fn):
        tweak = self.R["TW"][0].role
        lines = super().notes(fn) + [
            f"Ciphertext stealing reuses X0 (the block), {tweak} (the last 16 source bytes),",
            "POLY (a shuffle), BASE (the mask) and T1/T2 (the two last tweaks)."]
        if self.knobs.get("TWEAK") == "gpr":
            lines.append("TLO:THI: the next block's tweak in the main loop (TWEAK=gpr; BASE "
                         "before and after it), TSIGN the doubling's scratch.")
        if self.spill:
            lines.append(f"Tweaks: on the stack, vector j at [rsp + {self.isa.vector_bytes}*j] "
                         f"(j < {self.knobs['UNROLL']}); TWS is the register they are made in; "
                         f"a group of at most {len(self.R['X']) // 2} vectors keeps its own in "
                         "the block registers it leaves unused.")
        return lines


class GcmPlan(Plan):
    """One register layout for the five functions.  The fixed roles first; then, while
    registers are left: GD (encryption hashes the previous iteration's ciphertext while
    the next one's AES runs), the BSWAP and GFPOLY constants, the powers of H of a full
    iteration (HPOW), Karatsuba's half sums (HSUM), and the middle round keys (KEYS=reg,
    as many as fit; the rest are read into KT each round).  What gets no register is a
    memory operand."""
    RULES = Plan.RULES + (
        Rule(f"2 x UNROLL x lanes < {GCM_H_POWERS} (the powers of H the key holds: two "
             "iterations' and one more, for a record's lengths block after two groups of "
             "that many blocks hashed in one sum)",
             lambda isa, knobs: (
                 f"UNROLL={knobs['UNROLL']} on {isa.name} needs "
                 f"{2 * knobs['UNROLL'] * isa.lanes + 1} powers of H; the key holds "
                 f"{GCM_H_POWERS}"
                 if 2 * knobs["UNROLL"] * isa.lanes >= GCM_H_POWERS else None)),
        Rule("GHASH=karatsuba: the powers' half sums in registers when the UNROLL powers "
             "and they fit, else (EVEX, aesni_avx) memory operands on the key's h_halves; "
             "vaes_avx2: in registers only", None),
        Rule("HALVES=unpack needs GHASH=karatsuba (schoolbook makes no half sums)",
             lambda isa, knobs: (
                 "HALVES=unpack pairs Karatsuba's half sums; GHASH=school has none"
                 if knobs.get("HALVES") == "unpack" and knobs.get("GHASH") != "karatsuba"
                 else None)),
        Rule("TAILORDER=halves needs UNROLL >= 3 (it splits groups of 3 or more vectors)",
             lambda isa, knobs: (
                 f"TAILORDER=halves splits a record's group of 3 or more vectors; "
                 f"UNROLL={knobs['UNROLL']} makes none"
                 if knobs.get("TAILORDER") == "halves" and knobs["UNROLL"] < 3 else None)),
    )

    def allocate(self):
        v, U, isa = self.vregs, self.knobs["UNROLL"], self.isa
        self.N = U * isa.lanes
        self.powers = GCM_H_POWERS
        self.take("X", v.many("X", U))
        for role in ("D", "LO", "MI", "HI", "T0"):
            self.take(role, v.one(role))
        # T1 only on EVEX (three-way XORs and the 4-lane fold)
        self.take("T1", v.one("T1") if isa.evex else None)
        for role in ("ACC", "CTR", "INC", "K0", "KLAST", "KT"):
            self.take(role, v.one(role))
        self.R["TMP"] = self.R["T0"]      # never live at once
        self.take("GD", v.many("GD", U) if v.free >= U + 2 else [])
        # RECTAIL=stitched or stitched1: after the bulk loop, encryption records leave
        # its last ciphertext in GD and hash it between the final group's rounds
        # (templates/gcm_record.j2); the ciphertext needs GD to wait in.  stitched
        # also has decryption's tail take up to two iterations, a first group hashed
        # into the final group's sum (GD holds its ciphertext); stitched1 leaves
        # decryption's tail one group, as serial does
        rectail = self.knobs.get("RECTAIL")
        self.records_stitch_tail = rectail in ("stitched", "stitched1")
        self.records_dec_two_groups = rectail == "stitched"
        if self.records_stitch_tail and not self.R["GD"]:
            raise DoesNotFit(f"RECTAIL={rectail} keeps an iteration's ciphertext in {U} "
                             f"registers of its own (GD); UNROLL={U} on {isa.name} leaves "
                             "none for them")
        self.take("BSWAP", v.one_or_none("BSWAP"))
        self.take("GFPOLY", v.one_or_none("GFPOLY"))
        self.take("HP", v.up_to("HPOW", U))
        self.karatsuba = self.knobs["GHASH"] == "karatsuba"
        # Karatsuba's half sums of the powers: made in registers (HSUM) when the powers
        # and they fit; else (EVEX, aesni_avx) read from the key's h_halves as memory
        # operands (which aesgen_gcm_init fills for every ISA)
        self.half_sums_in_key = False
        if self.karatsuba:
            if len(self.R["HP"]) == U and v.free >= U:
                self.take("HK", v.many("HSUM", U))
            elif isa.evex or isa.lanes == 1:
                self.R["HK"] = []
                self.half_sums_in_key = True
            else:
                # vaes_avx2: not measured anywhere yet
                raise DoesNotFit(f"GHASH=karatsuba needs the {U} powers of H and their half "
                                 f"sums in registers on {isa.name} (16 registers)")
        else:
            self.R["HK"] = []
        if self.knobs["KEYS"] == "reg":
            self.take("KMID", v.keyed_up_to("KLAST-", range(1, MIDDLE_KEYS + 1)))
        else:
            self.R["KMID"] = {}
        self.keys_in_kt = [m for m in range(1, MIDDLE_KEYS + 1) if m not in self.R["KMID"]]
        # The bulk loops keep their counters big-endian (one vpaddd per vector, a carry
        # path) on EVEX only: llvm-mca's Intel models predict the VEX loops slower so.
        self.big_endian_counters = isa.evex
        # EVEX records leave a final full iteration to their tail, which hashes it with
        # the lengths block under one reduction (VEX records take whole blocks only and
        # finish through the partial-block path); such a group of N blocks, the last one
        # partial, gives the lengths block H^(N+1), hence N < GCM_H_POWERS (RULES).  The
        # key held 36 powers (0.3.0), 4 more than avx10_512's 32-block iteration, so that a
        # record of one iteration also hashes its AAD block with them in one sum (Zen 5,
        # AES-256, against 32 powers, where the main loop took every full iteration, the
        # AAD was reduced alone first and the sum multiplied by H at the end: a 512 B
        # record 1.20x encryption with the key at 64 page offsets, 1.08-1.09x decryption
        # in make bench)
        self.records_keep_last = isa.evex
        # With RECTAIL=stitched a record's last two groups of up to N blocks each are one
        # GHASH sum (templates/gcm_record.j2): the RULES' 2N < GCM_H_POWERS (68 powers
        # since 0.5.0) leaves the key a power for each of their blocks and one for the
        # lengths block
        ghash_groups = ("X", "D", "LO", "MI", "HI", "T0", "T1", "ACC", "BSWAP", "GFPOLY",
                        "HP", "HK")
        self.functions["ghash"] = FunctionPlan(
            "gcm_ghash", ("KEY", "ACCP", "SRC", "LEN"), ("TMPG", "HPTR"),
            vector_groups=ghash_groups)
        # The whole-block tail after the bulk loop (the update functions, and the VEX
        # records) runs CTR and GHASH as two passes over the same bytes; every general
        # register is busy then, so the pass that runs second finds its start (SAVED_PTR)
        # and length (SAVED_LEN) in stack slots the prologue reserves.
        tail_slots = ("SAVED_PTR", "SAVED_LEN")
        # EVEX bulk loops decide counter carries from the counter: CTRSECRET holds 256
        # when the counter is secret (AESGEN_GCM_SECRET_COUNTER), forcing the carry path.
        secret = ("CTRSECRET",) if isa.evex else ()
        for direction in ("enc", "dec"):
            self.functions[f"{direction}_update"] = FunctionPlan(
                f"gcm_{direction}_update", ("KEY", "DST", "SRC", "LEN", "CTRP", "ACCP"),
                ("ROUNDS", "KEYEND", "TMPG") + secret,
                aliases=(("HPTR", "CTRP", "once the counter is loaded"),),
                slots=tail_slots)
            self.functions[f"{direction}_record"] = FunctionPlan(
                f"gcm_{direction}_record", ("KEY", "DST", "SRC", "LEN", "REC"),
                ("ROUNDS", "KEYEND", "TMPG", "HPTR") + secret,
                aliases=(("AAD", "ROUNDS", "until the rounds are loaded"),
                         ("AADLEN", "KEYEND", "until the rounds are loaded")),
                slots=() if isa.evex else tail_slots)

    # -- the GHASH steps (generator/ghash_schedule.py) ----------------------------------
    def ghash_path(self, load: bool) -> str:
        """pairs: EVEX, the data in registers of their own (two vectors a step); single:
        one vector at a time through D (16 registers, or decryption without GD)."""
        return "pairs" if self.isa.evex and (self.R["GD"] or not load) else "single"

    def _ghash_kind(self, school: bool) -> str:
        return "school" if school or not self.karatsuba else "karatsuba"

    def ghash_steps(self, vectors: int, *, load=False, fresh=True, lengths=False,
                    school=False):
        """The steps of a GHASH that is not interleaved with AES, in order."""
        return ghash_schedule.in_order(self.ghash_path(load), self._ghash_kind(school),
                                       vectors, load=load, fresh=fresh, lengths=lengths)

    def ghash_schedule(self, direction: str, vectors: int, *, load=False, fresh=True,
                       lengths=False, school=False, early=False, reduce=True):
        """The steps of each slot: before the first of the nine middle rounds, after each
        of them, after the last round (direction: enc or dec; early: see
        ghash_schedule._spread; reduce=False: the sums wait unreduced, see
        ghash_schedule.steps)."""
        return ghash_schedule.schedule(self.isa.name, self.ghash_path(load),
                                       self._ghash_kind(school),
                                       direction, vectors, load=load, fresh=fresh,
                                       lengths=lengths, early=early, reduce=reduce)

    def ghash_schedule_text(self, direction: str):
        """The main loop's schedule as comment lines: the steps after each round."""
        U = self.knobs["UNROLL"]
        # decryption loads its source; encryption an earlier iteration's output, from GD
        # or (without GD) from memory
        slots = self.ghash_schedule(direction, U, load=direction == "dec" or not self.R["GD"])
        names = ([f"KLAST-{ghash_schedule.ROUNDS}"]
                 + [f"KLAST-{m}" for m in range(ghash_schedule.ROUNDS, 0, -1)] + ["the last"])
        what = "decryption" if direction == "dec" else "encryption"
        lines = [f"{what} ({self._ghash_kind(False)}, {U} vectors):"]
        for i, (name, slot) in enumerate(zip(names, slots)):
            if slot:
                steps = ", ".join(f"{step.number} {step.name}" for step in slot)
                where = "before round" if i == ghash_schedule.BEFORE else "after round"
                lines.append(f"  {where} {name + ':':<10} {steps}")
        return lines

    def ghash_schedule_reasons(self):
        """Why the schedule of this ISA is what it is (comment lines)."""
        return ghash_schedule.reasons(self.isa.name, self._ghash_kind(False),
                                      self.knobs["UNROLL"])

    def notes(self, fn):
        U, missing = self.knobs["UNROLL"], []
        if len(self.R["HP"]) < U:
            missing.append(f"HPOW{len(self.R['HP'])}..HPOW{U - 1} are read from the key")
        for name in ("BSWAP", "GFPOLY"):
            if self.R[name] is None:
                missing.append(f"{name} is read from .rodata")
        lines = []
        if fn.plan.vector_groups is None:
            lines.append("T0 doubles as TMP.")
            if self.keys_in_kt:
                first, last = self.keys_in_kt[0], self.keys_in_kt[-1]
                lines.append(f"Round keys KLAST-{first}..KLAST-{last} are loaded into KT "
                             "once per round (those a key size has).")
        if missing and (fn.plan.vector_groups is None or "HP" in fn.plan.vector_groups):
            lines.append("Memory operands: " + "; ".join(missing) + ".")
        return lines


PLANS = {"ctr": CtrPlan, "xctr": XctrPlan, "xts": XtsPlan, "gcm": GcmPlan}


# ---- vperm_ssse3 (templates/vperm/, templates/lib/vperm.j2) ------------------------

# Vector registers per block in flight (the state and four scratch: lib/vperm.j2).
VPERM_BLOCK_REGISTERS = 5
# The transformed round keys, the input permutation and a scratch block on the stack,
# plus 15 bytes to align them to 16 (lib/vperm.j2's FRAME).
VPERM_FRAME = 272 + 15


# UNROLL=8: the main loop is bitsliced (generator/bitslice.py) on eight blocks and
# every vector register; after it, vector-permute groups of the plan's blocks
# (VpermPlan.BULK_TAIL_BLOCKS: as many as fit beside the mode's own registers).
BITSLICE_UNROLL = 8
# The counter modes' frame also holds their round-1 and round-2 planes and tables
# (bitslice.ROUND1_*, ROUND2_*: more than a page, so the prologue probes it); XTS has no
# use for them and keeps the smaller frame.
BITSLICE_FRAME = bitslice.FRAME_END + 15
BITSLICE_COUNTER_FRAME = bitslice.COUNTER_FRAME_END + 15


def vperm_frame(knobs, counter=False):
    if knobs["UNROLL"] != BITSLICE_UNROLL:
        return VPERM_FRAME
    return BITSLICE_COUNTER_FRAME if counter else BITSLICE_FRAME


def _vperm_keys_rule(isa, knobs):
    if knobs.get("KEYS") == "reg":
        return ("KEYS=reg: vector-permute rounds keep their transformed keys on the stack "
                "(the registers hold the blocks and the GF(2^4) tables)")
    return None


def _vperm_tail_rule(isa, knobs):
    if knobs.get("TAIL", 1) != 1:
        return f"TAIL={knobs['TAIL']}: after the main loop blocks go one at a time (TAIL=1)"
    return None


def _vperm_bulk_rule(isa, knobs):
    if knobs.get("BULK", "bitslice") != "bitslice" and knobs.get("UNROLL") != BITSLICE_UNROLL:
        return (f"BULK={knobs['BULK']}: it is the main loop of UNROLL={BITSLICE_UNROLL} "
                f"(UNROLL={knobs.get('UNROLL')} interleaves its blocks)")
    return None


class VpermPlan(Plan):
    """Vector-permute AES: UNROLL blocks of five registers each, beside the nibble mask
    MASK, the mode's own registers and as many of the GF(2^4) and S-box tables as fit
    (table_registers; lib/vperm.j2)."""
    RULES = (KNOB_VALUES_RULE, TAIL_RULE, REGISTER_RULE,
             Rule("KEYS=mem (the transformed round keys live in a stack frame)",
                  _vperm_keys_rule),
             Rule("TAIL=1 (single blocks after the main loop)", _vperm_tail_rule),
             Rule("BULK=vperm only with UNROLL=8 (that main loop)", _vperm_bulk_rule))

    # Vector-permute blocks after a bitsliced main loop: three beside the nibble mask.
    BULK_TAIL_BLOCKS = 3

    def vperm_blocks(self):
        """Blocks the vector-permute code interleaves (its registers in R["B"])."""
        U = self.knobs["UNROLL"]
        return self.BULK_TAIL_BLOCKS if U == BITSLICE_UNROLL else U

    def blocks(self):
        v = self.vregs
        blocks = [v.named(f"B{b}{part}" for part in ("S", "H", "L", "T", "U"))
                  for b in range(self.vperm_blocks())]
        self.R["B"] = blocks
        self.groups.append("B")
        self.take("MASK", v.one("MASK"))

    def table_registers(self, names):
        """The tables that get a register with the ones left, in the order of `names`
        (most used first: a copy of a register is renamed away, a load takes a load
        port; both are off the dependency chains and at fixed addresses, so either is
        constant-time); R["TABLES"] maps each table name to its register or None (read
        from .rodata right before its pshufb)."""
        tables = {}
        for name in names:
            role = VPERM_TABLE_ROLES.get(name, name.upper().replace("_", ""))
            tables[name] = self.vregs.one_or_none(role)
        self.R["TABLES"] = tables
        held = [reg for reg in tables.values() if reg is not None]
        if held:
            self.R["TABLEREGS"] = held
            self.groups.append("TABLEREGS")

    def vector_pairs(self, groups=None):
        pairs = []
        for group in self.groups:
            if group == "B":
                pairs += [f"{reg.role}={reg}" for block in self.R["B"] for reg in block]
            else:
                value = self.R[group]
                pairs += [f"{reg.role}={reg}" for reg in
                          (value if isinstance(value, list) else [value])]
        return pairs


# The encryption rounds' tables, in the order they get the registers left: 1/x of GF(2^4)
# (four lookups per block and round), a/x (one), the S-box output tables (one each).
VPERM_ENCRYPT_TABLES = ("inverse", "a_over", "sbox1_io", "sbox1_jo", "sbox2_io", "sbox2_jo")
# Register roles of the tables with short names (the others: the name in capitals).
VPERM_TABLE_ROLES = {"inverse": "INV", "a_over": "AK"}


class VpermCtrPlan(VpermPlan):
    """The counter lives in CTR_LO/CTR_HI (general registers), so the vector registers
    left after the blocks hold S-box tables."""
    # The bitsliced loop's frame holds rounds 1 and 2's saved planes and tables.
    COUNTER_FRAME = True

    def allocate(self):
        self.blocks()
        self.table_registers(VPERM_ENCRYPT_TABLES)
        self.functions["crypt"] = FunctionPlan(
            "ctr_crypt", ("KEY", "DST", "SRC", "LEN", "CTR_LO", "CTR_HI"),
            ("ROUNDS", "KEYEND", "TMPG", "FRAME"),
            stack=vperm_frame(self.knobs, counter=self.COUNTER_FRAME))

    def notes(self, fn):
        bulk = ([f"Bitsliced main loop (UNROLL=8): every vector register; at FRAME + "
                 f"{bitslice.FIRST_KEY}: key 0 (row-major), the last key, spill slots, "
                 f"the middle keys as planes (to FRAME + {bitslice.FRAME_END})."]
                if self.knobs["UNROLL"] == BITSLICE_UNROLL else [])
        if bulk and self.COUNTER_FRAME:
            bulk.append(f"Counter modes: rounds 1 and 2's saved planes, tags and tables at "
                        f"FRAME + {bitslice.ROUND1_BASE} .. {bitslice.COUNTER_FRAME_END}.")
        return bulk + ["Stack: FRAME = rsp rounded up to 16; round key m before the last at "
                "[FRAME + 224 - 16m],", "the first at [FRAME], the input permutation at "
                "[FRAME + 240], a keystream block at [FRAME + 256]."]


class VpermXctrPlan(VpermPlan):
    """The index lives in INDEX (a general register), iv in memory."""
    COUNTER_FRAME = True

    def allocate(self):
        self.blocks()
        self.table_registers(VPERM_ENCRYPT_TABLES)
        self.functions["crypt"] = FunctionPlan(
            "xctr_crypt", ("KEY", "DST", "SRC", "LEN", "IVP", "INDEX"),
            ("ROUNDS", "KEYEND", "TMPG", "FRAME"),
            stack=vperm_frame(self.knobs, counter=self.COUNTER_FRAME))

    notes = VpermCtrPlan.notes


class VpermXtsPlan(VpermPlan):
    """The tweaks of an iteration's blocks in TW0..TW(U-1) (TW1 exists for UNROLL=1 too:
    decryption's ciphertext stealing needs the last two tweaks at once)."""
    # after a bitsliced main loop: two blocks beside the two tweaks (as UNROLL=2)
    BULK_TAIL_BLOCKS = 2
    COUNTER_FRAME = False

    def allocate(self):
        self.blocks()
        self.take("TW", self.vregs.named(f"TW{j}" for j in range(max(self.vperm_blocks(), 2))))
        self.table_registers(VPERM_ENCRYPT_TABLES)
        if self.knobs.get("BULK") == "vperm":
            self.sequential_blocks()            # refuses if the registers do not fit
        for direction in ("encrypt", "decrypt"):
            self.functions[direction] = FunctionPlan(
                f"xts_{direction}", ("KEY", "KEY2", "DST", "SRC", "LEN", "IVP"),
                ("ROUNDS", "KEYEND", "TMPG", "FRAME", "REM"),
                aliases=(("PART", "KEY2", "once the tweak is made"),
                         # the bitsliced loop's tweak, in general registers
                         ("TLO", "IVP", "once the tweak is made"),
                         ("THI", "KEY2", "in the bitsliced loop"),
                         ("TSIGN", "TMPG", "in the bitsliced loop")),
                stack=vperm_frame(self.knobs, counter=self.COUNTER_FRAME))

    def sequential_blocks(self):
        """BULK=vperm's main loop: eight blocks, each [its register, four scratch
        registers], the scratch the same for all eight (each block's round is written
        after the one before; register renaming lets the core overlap them): every vector
        register but the nibble mask and the tables that have one, which it keeps."""
        kept = {str(self.R["MASK"])} | {str(reg) for reg in self.R["TABLES"].values()
                                        if reg is not None}
        free = [f"xmm{i}" for i in range(16) if f"xmm{i}" not in kept]
        if len(free) < 12:
            raise DoesNotFit(f"BULK=vperm: {len(free)} registers beside the mask and the "
                             f"tables, 12 needed (eight blocks, four scratch)")
        return [[free[j]] + free[8:12] for j in range(8)]

    def notes(self, fn):
        notes = VpermCtrPlan.notes(self, fn)
        if self.knobs["UNROLL"] == BITSLICE_UNROLL and self.knobs["BULK"] == "vperm":
            blocks = self.sequential_blocks()
            notes[0] = (f"Eight-block main loop (UNROLL=8 BULK=vperm): the blocks in "
                        f"{', '.join(b[0] for b in blocks)}, scratch {', '.join(blocks[0][1:])}; "
                        f"the tweaks and a final pass's blocks at FRAME + "
                        f"{bitslice.TWEAKS} .. {bitslice.FRAME_END}.")
        return notes + [
            "The tweak key is transformed into the same frame first, for T = AES_K2(iv)."]


VPERM_PLANS = {"ctr": VpermCtrPlan, "xctr": VpermXctrPlan, "xts": VpermXtsPlan}


def _plan_class(mode: Mode, isa: Isa):
    return (VPERM_PLANS if isa.vperm else PLANS)[mode.name]


def _attempt(mode: Mode, isa: Isa, knobs):
    try:
        return _plan_class(mode, isa)(mode, isa, knobs), None
    except DoesNotFit as error:
        return None, error


def fits(mode: Mode, isa: Isa, knobs) -> bool:
    return _attempt(mode, isa, knobs)[0] is not None


def fitting_values(mode: Mode, isa: Isa, knobs, name: str) -> List[object]:
    """The values of knob `name` that plan with the other knobs unchanged (TAIL follows a
    smaller UNROLL, as knobs.resolve does)."""
    values = []
    for value in values_for(name, isa):
        trial = dict(knobs, **{name: value})
        if name == "UNROLL" and "TAIL" in trial:
            tail = min(trial["TAIL"], value)
            if tail not in values_for("TAIL", isa):     # UNROLL=3's TAIL=3 elsewhere
                tail = max([t for t in values_for("TAIL", isa) if t <= value] or [tail])
            trial["TAIL"] = tail
        if fits(mode, isa, trial):
            values.append(value)
    return values


def make_plan(mode: Mode, isa: Isa, knobs) -> Plan:
    """The plan of these knobs, or Refused naming the reason and the values that fit."""
    plan, error = _attempt(mode, isa, knobs)
    if plan is not None:
        return plan
    settings = " ".join(f"{k}={v}" for k, v in sorted(knobs.items()))
    unroll = fitting_values(mode, isa, knobs, "UNROLL")
    parts = [f"valid UNROLL here: {', '.join(map(str, unroll)) or 'none'}"]
    for name in sorted(knobs):
        if name == "UNROLL":
            continue
        others = [v for v in fitting_values(mode, isa, knobs, name) if v != knobs[name]]
        if others:
            parts.append("or set " + " or ".join(f"{name}={v}" for v in others))
    raise Refused(str(error), f"{mode.name}/{isa.name}: {settings}: {error}; "
                              + "; ".join(parts))


def combinations(mode: Mode, isa: Optional[Isa] = None):
    """Every assignment of the mode's knobs (TAIL <= UNROLL), as dicts: with the ISA's
    knob values (knobs.values_for) when it is given, else with every ISA's."""
    names = sorted(knobs_of(mode, isa) if isa else mode.knobs)
    for values in itertools.product(*((values_for(name, isa) if isa else
                                       knobs_all_values(name)) for name in names)):
        knobs = dict(zip(names, values))
        if knobs.get("TAIL", 0) <= knobs.get("UNROLL", 0):
            yield knobs


def constraints(mode: Mode) -> List[str]:
    """The fit rules of a mode, for `python3 -m generator list`."""
    return [rule.text for rule in PLANS[mode.name].RULES]
