# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Unit tests of the plans (generator/plan.py).

- Every knob combination of every mode and ISA either plans or is refused, without
  rendering, with a message that names the reason and exactly the values that fit.
- Plan and rendering agree: every plan that fits renders, and each function's register
  map (general and vector) names every register its code uses.
- The fit rules the issue names: TAIL <= UNROLL, UNROLL x lanes < 36 for GCM,
  Karatsuba's registers, the XTS spill.
"""

import concurrent.futures
import re
import unittest
from unittest import mock

import jinja2

from repo import REPO  # noqa: F401  (puts the repository on sys.path)
from generator import bitslice
from generator.abi import SYSV
from generator.isa import get_isa
from generator.knobs import resolve
from generator.model import GPR64, Instr, Mem, Reg
from generator.modes import MODES, generated_pairs, get_mode
from generator.parse import lookup_register, parse
from generator.plan import (GCM_H_POWERS, GcmPlan, Refused, combinations, constraints, fits,
                            make_plan)
from generator.render import render_neutral


RSP = GPR64.index("rsp")


def every_combination():
    for isa, mode in generated_pairs():
        for knobs in combinations(mode, isa):
            yield mode, isa, knobs


def refusal(mode, isa, knobs):
    try:
        make_plan(mode, isa, knobs)
    except Refused as error:
        return str(error)
    return None


class EveryCombinationPlansOrIsRefused(unittest.TestCase):
    def test_without_rendering(self):
        planned = refused = 0
        with mock.patch.object(jinja2.Environment, "get_template",
                               side_effect=AssertionError("a plan rendered a template")):
            for mode, isa, knobs in every_combination():
                if refusal(mode, isa, knobs) is None:
                    planned += 1
                else:
                    refused += 1
        # 896 for the four VEX/EVEX ISAs (per ISA: 28 UNROLL x KEYS x TAIL <= UNROLL, times
        # 2 ONEPASS for ctr, xctr and xts, times 2 GHASH for gcm) + 54 for vperm_ssse3's
        # ctr, xctr, xts with its own UNROLL values (1, 2, 3, 8) and ONEPASS=loop only, + 56
        # for aesni_avx's xts with TWEAK=double, 56 with TWEAK=gpr, 112 for its xctr with
        # COUNTERS=chain and gpr (gpr refused there) and 112 for its ctr with COUNTERS=chain
        # and gpr (chain refused there), + 56 for each EVEX ISA's xts with TWEAK=ahead
        # and 56 for each EVEX ISA's xctr with SPLAT=broadcast (the other ISAs take one
        # value of each), + 18 for vperm_ssse3's xts with BULK=vperm (a knob of that ISA
        # only), + 448 for START=table: every xctr combination of the four VEX/EVEX ISAs
        # once more (168 on aesni_avx, 56 on vaes_avx2, 112 on each EVEX ISA): 1976; then
        # KEYS=rows, a third KEYS value on the three ymm/zmm ISAs (x 1.5: 280 -> 420 on
        # vaes_avx2, 448 -> 672 on each EVEX ISA), and TAILCTR=bytes, every ctr combination
        # of the four VEX/EVEX ISAs once more (+168 on aesni_avx, +84 on vaes_avx2, +84 on
        # each EVEX ISA): 72 + 896 + 504 + 756 + 756 = 2984; then HALVES=unpack, every gcm
        # combination of the two EVEX ISAs once more (84 each: 14 UNROLL x TAIL <= UNROLL,
        # x 3 KEYS, x 2 GHASH; refused with GHASH=school): 2984 + 168; then RECTAIL=stitched,
        # every gcm combination of the two EVEX ISAs once more (168 each): 3152 + 336;
        # then TWEAKENC=rows, every xts combination of the three ymm/zmm ISAs once more
        # (84 on vaes_avx2: 14 x 3 KEYS x 2 ONEPASS; 168 on each EVEX ISA, x 2 TWEAK): + 420;
        # then RECTAIL=stitched1, every gcm combination of the two EVEX ISAs once more
        # (168 each): 3908 + 336; then TAILPOWERS=loaded, every gcm combination of
        # avx10_512 once more (168 x 3 RECTAIL): 4244 + 504; then TAILORDER=halves, every
        # gcm combination of avx10_512 once more (504 x 2 TAILPOWERS): 4748 + 1008
        self.assertEqual(planned + refused, 5756)
        self.assertGreater(planned, 250)
        self.assertGreater(refused, 200)

    def test_refusals_name_exactly_the_values_that_fit(self):
        for mode, isa, knobs in every_combination():
            message = refusal(mode, isa, knobs)
            if message is None:
                continue
            with self.subTest(mode=mode.name, isa=isa.name, **knobs):
                self.assertIn(f"{mode.name}/{isa.name}", message)
                for name, value in knobs.items():
                    self.assertIn(f"{name}={value}", message)
                listed = re.search(r"valid UNROLL here: ([^;]*)", message).group(1)
                listed = [] if listed == "none" else [int(v) for v in listed.split(", ")]
                for unroll in (1, 2, 4, 8, 16):
                    trial = dict(knobs, UNROLL=unroll, TAIL=min(knobs["TAIL"], unroll))
                    self.assertEqual(unroll in listed, fits(mode, isa, trial), unroll)
                for name in knobs:
                    if name == "UNROLL":
                        continue
                    for value in {"KEYS": ("reg", "mem", "rows"), "GHASH": ("school", "karatsuba"),
                                  "ONEPASS": ("loop", "groups"),
                                  "TWEAK": ("clmul", "double", "gpr", "ahead"),
                                  "TWEAKENC": ("xmm", "rows"),
                                  "COUNTERS": ("base", "chain", "gpr"),
                                  "SPLAT": ("shuffle", "broadcast"),
                                  "START": ("any", "table"),
                                  "TAILCTR": ("swap", "bytes"),
                                  "HALVES": ("pshufd", "unpack"),
                                  "RECTAIL": ("serial", "stitched", "stitched1"),
                                  "TAILPOWERS": ("operand", "loaded"),
                                  "TAILORDER": ("rounds", "halves"),
                                  "BULK": ("bitslice", "vperm"),
                                  "TAIL": (1, 2, 4, 8)}[name]:
                        if value == knobs[name]:
                            continue
                        said = f"or set {name}={value}" in message or \
                            re.search(rf"or {name}={value}\b", message) is not None
                        self.assertEqual(said, fits(mode, isa, dict(knobs, **{name: value})),
                                         f"{name}={value}: {message}")


class FitRules(unittest.TestCase):
    def plan(self, mode, isa, **knobs):
        base = {"UNROLL": 4, "KEYS": "mem", "TAIL": 1}
        if mode == "gcm":
            base["GHASH"] = "school"
        return make_plan(get_mode(mode), get_isa(isa), dict(base, **knobs))

    def test_tail_at_most_unroll(self):
        with self.assertRaisesRegex(Refused, "TAIL=8 exceeds UNROLL=4"):
            self.plan("ctr", "avx10_512", TAIL=8)

    def test_gcm_powers_of_h(self):
        with self.assertRaisesRegex(Refused, "needs 129 powers of H; the key holds 68"):
            self.plan("gcm", "avx10_512", UNROLL=16)
        # two groups of an iteration's blocks need one power more for the lengths
        # block: the rule refuses two iterations of all the key's powers (no legal UNROLL
        # makes them, so the rule itself is asked)
        rule = next(r for r in GcmPlan.RULES if r.text.startswith("2 x UNROLL x lanes <"))
        wide = mock.Mock(lanes=17)
        wide.name = "wide"
        self.assertRegex(rule.check(wide, {"UNROLL": 2}), "needs 69 powers of H")
        self.assertIsNone(rule.check(wide, {"UNROLL": 1}))
        # 32 blocks: two iterations and 4 powers spare, so a record of up to two
        # iterations leaves them to the tail, which hashes AAD blocks, text and lengths
        # block in one sum (RECTAIL=stitched)
        plan = self.plan("gcm", "avx10_512", UNROLL=8)
        self.assertEqual(plan.N, 32)
        self.assertLessEqual(1 + 2 * plan.N + 1, GCM_H_POWERS)
        self.assertTrue(plan.records_keep_last)
        # every accepted UNROLL leaves those powers (the rule's bound, checked directly)
        for isa in ("avx10_256", "avx10_512"):
            for unroll in (1, 2, 4, 8, 16):
                try:
                    wide = self.plan("gcm", isa, UNROLL=unroll, KEYS="mem")
                except Refused:
                    continue
                self.assertLessEqual(2 * wide.N + 1, GCM_H_POWERS, (isa, unroll))
        self.assertTrue(self.plan("gcm", "avx10_256", UNROLL=16).records_keep_last)
        self.assertFalse(self.plan("gcm", "vaes_avx2", UNROLL=4).records_keep_last)

    def test_xts_decryption_steals_beside_the_final_group_where_registers_are_spare(self):
        plan = self.plan("xts", "avx10_512", KEYS="reg", TAIL=4)
        for count in (1, 2, 3):
            block, tweak = plan.beside_registers(count)
            self.assertIs(block, plan.R["X"][count])
            self.assertIs(tweak, plan.R["TW"][count])
            used = set(map(str, plan.R["X"][:count] + plan.R["TW"][:count]))
            self.assertNotIn(str(block), used)
        self.assertIsNone(plan.beside_registers(4))       # the group takes every X
        # one block a vector (aesni_avx): both stealing blocks after the group, measured
        # faster there; spilled tweaks: no register to spare
        self.assertIsNone(self.plan("xts", "aesni_avx", TAIL=2).beside_registers(1))
        spilled = self.plan("xts", "vaes_avx2", UNROLL=8, TAIL=2)
        self.assertTrue(spilled.spill)
        self.assertIsNone(spilled.beside_registers(1))

    def test_xts_decryption_steals_in_a_free_lane_where_the_tweaks_are_in_registers(self):
        # vectors of several blocks, the group's tweaks in registers: C[n-1] may take a
        # free lane of the last vector, whichever the group size (beside has no register
        # for a group of TAIL = UNROLL vectors)
        for isa in ("avx10_512", "avx10_256", "vaes_avx2"):
            plan = self.plan("xts", isa, UNROLL=4, TAIL=4, KEYS="mem")
            self.assertFalse(plan.spill)
            for count in range(1, 5):
                self.assertTrue(plan.lane_stealing(count), (isa, count))
            self.assertIsNone(plan.beside_registers(4))
        # one block a vector: no lane to spare
        self.assertFalse(self.plan("xts", "aesni_avx", TAIL=2).lane_stealing(1))
        # spilled tweaks: a group keeps its tweaks in registers only where the block
        # registers it leaves unused hold them
        spilled = self.plan("xts", "vaes_avx2", UNROLL=8, TAIL=8)
        self.assertTrue(spilled.spill)
        self.assertTrue(spilled.lane_stealing(4))
        self.assertFalse(spilled.lane_stealing(5))

    def test_paired_half_sums_need_karatsuba(self):
        with self.assertRaisesRegex(Refused, "HALVES=unpack.*GHASH=school has none"):
            self.plan("gcm", "avx10_512", HALVES="unpack")
        self.assertTrue(self.plan("gcm", "avx10_512", HALVES="unpack", GHASH="karatsuba")
                        .karatsuba)
        # an EVEX knob: the VEX ISAs do not take it
        with self.assertRaisesRegex(Exception, "HALVES does not apply to mode gcm on aesni_avx"):
            resolve(get_mode("gcm"), get_isa("aesni_avx"), {"HALVES": "unpack"})

    def test_stitched_record_tail_needs_gd(self):
        # the bulk loop's last ciphertext waits in GD for the final group's rounds
        self.assertTrue(self.plan("gcm", "avx10_512", RECTAIL="stitched").R["GD"])
        with self.assertRaisesRegex(Refused, "RECTAIL=stitched keeps an iteration's "
                                             "ciphertext in 16 registers"):
            self.plan("gcm", "avx10_256", RECTAIL="stitched", UNROLL=16, KEYS="reg")

    def test_karatsuba_needs_its_registers(self):
        plan = self.plan("gcm", "avx10_512", GHASH="karatsuba", KEYS="reg")
        self.assertEqual(len(plan.R["HK"]), 4)
        self.assertEqual(len(plan.R["HP"]), 4)
        with self.assertRaisesRegex(Refused, "karatsuba"):
            self.plan("gcm", "vaes_avx2", GHASH="karatsuba")
        # UNROLL=8 on EVEX: the half sums from the key's h_halves, none in registers
        wide = self.plan("gcm", "avx10_512", GHASH="karatsuba", UNROLL=8)
        self.assertEqual((wide.R["HK"], wide.half_sums_in_key, wide.karatsuba), ([], True, True))
        self.assertFalse(self.plan("gcm", "avx10_512", GHASH="karatsuba", KEYS="reg")
                         .half_sums_in_key)
        with self.assertRaisesRegex(Refused, "half sums in registers on vaes_avx2.*"
                                             "valid UNROLL here: none"):
            self.plan("gcm", "vaes_avx2", GHASH="karatsuba", UNROLL=4)
        # aesni_avx (16 registers, the znver1 entry): the half sums from the key too
        narrow = self.plan("gcm", "aesni_avx", GHASH="karatsuba", UNROLL=4)
        self.assertEqual((narrow.R["HK"], narrow.half_sums_in_key), ([], True))

    def test_xts_spill(self):
        self.assertFalse(self.plan("xts", "avx10_512", KEYS="reg", UNROLL=4).spill)
        spilled = self.plan("xts", "avx10_512", KEYS="reg", UNROLL=8)
        self.assertTrue(spilled.spill)
        self.assertEqual([r.role for r in spilled.R["TW"]], ["TWS"])
        self.assertEqual(spilled.functions["encrypt"].stack, 8 * 64)
        registers = self.plan("xts", "avx10_256", KEYS="mem", UNROLL=8)
        self.assertEqual([r.role for r in registers.R["TW"]], [f"TW{j}" for j in range(8)])
        self.assertEqual(registers.functions["decrypt"].stack, 0)

    def test_xts_ahead_holds_two_tweak_registers_per_vector(self):
        """TWEAK=ahead: UNROLL tweaks and UNROLL last-round keys (LK), never spilled; where
        they do not fit beside the round keys the plan refuses (UNROLL=8 with KEYS=reg)."""
        held = self.plan("xts", "avx10_512", KEYS="reg", UNROLL=4, TWEAK="ahead")
        self.assertFalse(held.spill)
        self.assertEqual([r.role for r in held.R["TW"]], [f"TW{j}" for j in range(4)])
        self.assertEqual([r.role for r in held.R["LK"]], [f"LK{j}" for j in range(4)])
        self.assertEqual(len(held.R["KMID"]), 13)
        self.assertEqual(held.functions["encrypt"].stack, 0)
        with self.assertRaisesRegex(Refused, r"TWEAK=ahead.*valid UNROLL here: 1, 2, 4;"):
            self.plan("xts", "avx10_512", KEYS="reg", UNROLL=8, TWEAK="ahead")
        wide = self.plan("xts", "avx10_512", KEYS="mem", UNROLL=8, TWEAK="ahead")
        self.assertEqual((len(wide.R["LK"]), wide.R["KMID"]), (8, {}))
        with self.assertRaisesRegex(Refused, "TWEAK=ahead is not a value of TWEAK on "
                                             "vaes_avx2"):
            self.plan("xts", "vaes_avx2", TWEAK="ahead")

    def test_xts_spilled_groups_keep_their_tweaks_in_free_block_registers(self):
        """Spilled (aesni_avx UNROLL=8): a group of at most 4 vectors holds its tweaks in
        the block registers it does not use; the main loop's 8 are on the stack."""
        spilled = self.plan("xts", "aesni_avx", UNROLL=8, TWEAK="gpr")
        self.assertTrue(spilled.spill)
        X = spilled.R["X"]
        self.assertEqual(spilled.tweak_registers(1), X[1:2])
        self.assertEqual(spilled.tweak_registers(4), X[4:8])
        self.assertIsNone(spilled.tweak_registers(5))
        self.assertIsNone(spilled.tweak_registers(8))
        held = self.plan("xts", "aesni_avx", UNROLL=4, TWEAK="double")
        self.assertEqual(held.tweak_registers(3), held.R["TW"][:3])

    def test_xts_gpr_tweaks_take_general_registers(self):
        """TWEAK=gpr: THI a temp of its own, TLO and TSIGN the registers of IVP and TMPG
        (dead in the main loop); other TWEAK values name none of them."""
        fn = self.plan("xts", "aesni_avx", UNROLL=8, TWEAK="gpr").functions["encrypt"]
        self.assertIn("THI", fn.temps)
        self.assertEqual({a[:2] for a in fn.aliases} & {("TLO", "IVP"), ("TSIGN", "TMPG")},
                         {("TLO", "IVP"), ("TSIGN", "TMPG")})
        other = self.plan("xts", "aesni_avx", UNROLL=8, TWEAK="double").functions["encrypt"]
        self.assertNotIn("THI", other.temps)
        self.assertEqual([a[0] for a in other.aliases], ["PART"])

    def test_round_keys(self):
        self.assertEqual(len(self.plan("ctr", "avx10_512", KEYS="reg").R["KMID"]), 13)
        keys_mem = self.plan("ctr", "avx10_512", KEYS="mem")
        self.assertEqual(keys_mem.R["KMID"], {})
        self.assertIsNotNone(keys_mem.R["KT"])

    def test_unroll_values_are_the_isas(self):
        """UNROLL's values are a per-ISA fact (Isa.knob_values): 3 on vperm_ssse3 only,
        4 and up everywhere else; a refusal names the ISA's valid values."""
        with self.assertRaisesRegex(Refused, r"UNROLL=3 is not a value of UNROLL on "
                                    r"aesni_avx \(valid: 1, 2, 4, 8, 16\)"):
            self.plan("ctr", "aesni_avx", UNROLL=3)
        with self.assertRaisesRegex(Refused, r"UNROLL=4 is not a value of UNROLL on "
                                    r"vperm_ssse3 \(valid: 1, 2, 3, 8\).*valid UNROLL here: 1, 2, 3, 8"):
            self.plan("ctr", "vperm_ssse3", UNROLL=4)
        # 8: the bitsliced bulk loop, then three vector-permute blocks (XTS: two, beside
        # its two tweaks), and the bulk frame
        bulk = self.plan("ctr", "vperm_ssse3", UNROLL=8)
        self.assertEqual(len(bulk.R["B"]), 3)
        xts = self.plan("xts", "vperm_ssse3", UNROLL=8)
        self.assertEqual((len(xts.R["B"]), len(xts.R["TW"])), (2, 2))
        self.assertGreaterEqual(xts.functions["decrypt"].stack, bitslice.FRAME_END)
        three = self.plan("ctr", "vperm_ssse3", UNROLL=3)
        self.assertEqual(len(three.R["B"]), 3)
        # 15 block registers + MASK: every table is read from .rodata
        self.assertTrue(all(reg is None for reg in three.R["TABLES"].values()))
        self.assertIsNotNone(self.plan("ctr", "vperm_ssse3", UNROLL=2).R["TABLES"]["inverse"])
        with self.assertRaisesRegex(Refused, "needs 19 vector registers.*valid UNROLL here: 1, 2, 8$"):
            self.plan("xts", "vperm_ssse3", UNROLL=3)

    def test_list_shows_the_constraints(self):
        for mode in MODES.values():
            self.assertTrue(any("TAIL <= UNROLL" in rule for rule in constraints(mode)))
        self.assertTrue(any("< 68" in rule for rule in constraints(get_mode("gcm"))))


def _map_registers(comment_lines):
    """{'general': {index}, 'vector': {index}} named by a function's register map."""
    found = {"general": set(), "vector": set()}
    kind = None
    for line in comment_lines:
        match = re.match(r"Registers \((general|vector)\): ", line)
        if match:
            kind = match.group(1)
        elif not line.startswith(" "):
            kind = None
        if kind:
            for name, register in re.findall(r"([A-Z][A-Z0-9_-]*)=([a-z]+[0-9]*)\b", line):
                reg = lookup_register(register)
                found[kind].add(reg.index)
    return found


def register_map_problems(mode_name, isa_name, knobs):
    """Render one plan; what its functions' register maps leave out (a worker
    process's job: rendering about 2000 plans is the cost, so the two cores share it)."""
    mode, isa = get_mode(mode_name), get_isa(isa_name)
    plan = make_plan(mode, isa, knobs)
    text = render_neutral(plan, SYSV)
    problems, comments, current, seen = [], [], None, 0
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            comments.append(stripped[2:] if stripped.startswith("# ") else stripped[1:])
            continue
        if stripped.startswith(".function "):
            current = (stripped.split()[1], _map_registers(comments), set(), set())
            seen += 1
            for kind in ("general", "vector"):
                if not current[1][kind]:
                    problems.append(f"{current[0]}: no {kind} map")
            continue
        if stripped.startswith(".endfunction"):
            name, named, general, vector = current
            if not general <= named["general"]:
                problems.append(f"{name}: general registers missing from its map: "
                                + ", ".join(GPR64[i] for i in general - named["general"]))
            if not vector <= named["vector"]:
                problems.append(f"{name}: vector registers missing from its map: "
                                f"{sorted(vector - named['vector'])}")
            current, comments = None, []
            continue
        if current is None or not stripped or stripped.startswith("."):
            continue
        for statement in parse(line):
            if isinstance(statement, Instr):
                _collect(statement, current[2], current[3])
    if seen != len(plan.functions):
        problems.append(f"{seen} functions rendered, the plan has {len(plan.functions)}")
    return problems


def _collect(instr, general, vector):
    for op in instr.operands:
        if isinstance(op, Reg) and op.kind == "gpr" and op.index != RSP:
            general.add(op.index)
        elif isinstance(op, Reg) and op.is_vector:
            vector.add(op.index)
        elif isinstance(op, Mem):
            for name in (op.base, op.index):
                reg = lookup_register(name) if name else None
                if reg is not None and reg.kind == "gpr" and reg.index != RSP:
                    general.add(reg.index)


class PlanAndRenderingAgree(unittest.TestCase):
    """Render every plan that fits; in each function, every general and vector register
    the code uses is named in the function's register map."""

    def test_register_maps_are_complete(self):
        fitting = [(mode, isa, knobs) for mode, isa, knobs in every_combination()
                   if fits(mode, isa, knobs)]
        with concurrent.futures.ProcessPoolExecutor(max_workers=2) as pool:
            jobs = [pool.submit(register_map_problems, mode.name, isa.name, knobs)
                    for mode, isa, knobs in fitting]
            for (mode, isa, knobs), job in zip(fitting, jobs):
                with self.subTest(mode=mode.name, isa=isa.name, **knobs):
                    self.assertEqual(job.result(), [])
        self.assertGreater(len(fitting), 250)

    def test_a_missing_register_is_found(self):
        # the check itself: a map that leaves out a register the code uses is caught
        real = _map_registers

        def short(lines):
            found = real(lines)
            found["vector"] = set(sorted(found["vector"])[1:])
            return found

        with mock.patch(f"{__name__}._map_registers", side_effect=short):
            problems = register_map_problems("ctr", "avx10_512", resolve(
                get_mode("ctr"), get_isa("avx10_512"), {}))
        self.assertTrue(any("vector registers missing" in p for p in problems), problems)



class OnePassKnob(unittest.TestCase):
    """ONEPASS=groups enters the main loop only for more than one iteration, so a message
    of exactly one runs the groups; ONEPASS=loop takes it in the loop.  (Their outputs are
    checked by make explore's variant_check over every length up to 1100 bytes.)"""

    def entry(self, mode, isa, onepass):
        from generator.render import generate
        from generator.knobs import resolve
        knobs = resolve(get_mode(mode), get_isa(isa),
                        {"UNROLL": 8, "KEYS": "mem", "TAIL": 4, "ONEPASS": onepass})
        text = generate(get_mode(mode), get_isa(isa), knobs, SYSV)["S"]
        name = {"ctr": "ctr", "xctr": "xctr", "xts": "xts_enc"}[mode]
        jump = re.search(rf"\n\tsub\s+\$(\d+), %\w+\n\t(?:\{{disp32\}} )?(j\w+)\s+\.L{name}_main_loop",
                         text)
        self.assertIsNotNone(jump, f"{mode}/{isa}: no main-loop entry found")
        return int(jump.group(1)), jump.group(2)

    def test_groups_take_exactly_one_iteration(self):
        for mode, isa, stride in (("ctr", "avx10_512", 512), ("xctr", "avx10_256", 256),
                                  ("xts", "aesni_avx", 128)):
            with self.subTest(mode=mode, isa=isa):
                self.assertEqual(self.entry(mode, isa, "loop"), (stride, "jae"))
                self.assertEqual(self.entry(mode, isa, "groups"), (stride, "ja"))


if __name__ == "__main__":
    unittest.main()
