# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The GHASH schedule of the GCM loops (generator/ghash_schedule.py).

- Every chosen table holds exactly the steps of its case, each after the steps it reads,
  and a table that breaks a rule is refused with a message naming the step.
- The generated main loops carry the schedule: after each of the nine middle rounds,
  the "GHASH step" comments of that slot, in the table's order and numbering, and
  nothing is cut by line count (every step is whole where the table puts it).
- Counts without a table (other UNROLL values, the records' final groups) get every
  step once, the reduction last.
"""

import re
import unittest
from unittest import mock

from repo import REPO  # noqa: F401  (puts the repository on sys.path)
from generator import ghash_schedule
from generator.abi import SYSV
from generator.isa import ISAS
from generator.knobs import resolve
from generator.modes import MODES
from generator.plan import make_plan
from generator.render import render_neutral

GCM = MODES["gcm"]


def default_plan(isa, **knobs):
    return make_plan(GCM, ISAS[isa], resolve(GCM, ISAS[isa], knobs))


class TablesTest(unittest.TestCase):
    def test_every_table_holds_its_steps_in_a_valid_order(self):
        for (isa, path, ghash, direction, vectors), table in ghash_schedule.SCHEDULES.items():
            with self.subTest(isa=isa, ghash=ghash, direction=direction, vectors=vectors):
                slots = ghash_schedule.schedule(isa, path, ghash, direction, vectors,
                                                load=direction == "dec")
                self.assertEqual(len(slots), ghash_schedule.SLOTS)
                names = [step.name for slot in slots for step in slot]
                natural = ghash_schedule.steps(path, ghash, vectors, load=direction == "dec")
                self.assertCountEqual(names, [step.name for step in natural])
                self.assertEqual([step.number for slot in slots for step in slot],
                                 list(range(len(names))))
                self.assertEqual(names[-1], "lanes")

    def test_broken_tables_are_refused(self):
        key = ("avx10_512", "pairs", "karatsuba", "dec", 4)
        good = ghash_schedule.SCHEDULES[key]
        flat = [name for slot in good for name in slot]
        cases = {
            "a missing step": [[n for n in flat if n != "lo1"]],
            "a product before its reflection": [["load", "halves1", "mid1", "reflect1"]
                                                + [n for n in flat if n not in
                                                   ("load", "halves1", "mid1", "reflect1")]],
            "a fold before the last product": [[n for n in flat if n != "fold_lo"][:3]
                                               + ["fold_lo"]
                                               + [n for n in flat if n != "fold_lo"][3:]],
            "half sums not followed by their product": [
                [n for n in flat if n != "halves1"][:1] + ["halves1"]
                + [n for n in flat if n != "halves1"][1:]],
        }
        for what, table in cases.items():
            with self.subTest(what), \
                    mock.patch.dict(ghash_schedule.SCHEDULES, {key: tuple(map(tuple, table))}):
                with self.assertRaises(ghash_schedule.ScheduleError):
                    ghash_schedule.schedule(*key, load=True)

    def test_counts_without_a_table_keep_every_step_once(self):
        for path, ghash in (("pairs", "karatsuba"), ("pairs", "school"), ("single", "school")):
            for vectors in (1, 2, 3, 8, 16):
                if ("avx10_512", path, ghash, "dec", vectors) in ghash_schedule.SCHEDULES:
                    continue                # a chosen table (UNROLL=8 Karatsuba)
                for lengths in (False, True):
                    with self.subTest(path=path, ghash=ghash, vectors=vectors):
                        slots = ghash_schedule.schedule("avx10_512", path, ghash, "dec",
                                                        vectors, load=False, lengths=lengths)
                        names = [s.name for slot in slots for s in slot]
                        natural = ghash_schedule.steps(path, ghash, vectors, load=False,
                                                       lengths=lengths)
                        self.assertEqual(sorted(names), sorted(s.name for s in natural))
                        self.assertEqual(names[-3:], ["fold_lo", "fold_mi", "lanes"])

    def test_counts_without_a_table_join_block_0_last(self):
        # The join waits for the previous iteration's reduction (the loop-carried chain):
        # every other pair's products come before it, pair 0's after it, as the tables do.
        for ghash in ("karatsuba", "school"):
            for vectors in (5, 8, 16):
                with self.subTest(ghash=ghash, vectors=vectors):
                    slots = ghash_schedule.schedule("avx10_512", "pairs", ghash, "enc",
                                                    vectors, load=False)
                    names = [s.name for slot in slots for s in slot]
                    join = names.index("join")
                    others = [i for i, n in enumerate(names)
                              if n[:-1] in ("halves", "mid", "lo", "hi") and n[-1] != "0"]
                    pair0 = [names.index(f"{k}0") for k in ("mid", "lo", "hi")]
                    self.assertLess(max(others), join)
                    self.assertGreater(min(pair0), join)
                    self.assertEqual(names[:vectors // 2], [f"reflect{p}"
                                                            for p in range(vectors // 2)])

    def test_karatsuba_into_earlier_sums_unfixes_them_first(self):
        # Records add their final group's products to the AAD's (schoolbook) sums: the
        # Karatsuba fix (MI ^= LO ^ HI) would also XOR those into MI unless the same XOR
        # comes before any product; fresh sums and schoolbook need no such step.
        for vectors in (1, 2, 3, 4, 8):
            with self.subTest(vectors=vectors):
                slots = ghash_schedule.schedule("avx10_512", "pairs", "karatsuba", "dec",
                                                vectors, load=False, fresh=False,
                                                lengths=True)
                names = [s.name for slot in slots for s in slot]
                self.assertEqual(names.count("unfix"), 1)
                products = [i for i, n in enumerate(names)
                            if n.startswith(("mid", "lo", "hi", "one"))]
                self.assertLess(names.index("unfix"), min(products))
                self.assertFalse(any(s.starts for slot in slots for s in slot))
        for ghash, fresh in (("karatsuba", True), ("school", False)):
            names = [s.name for s in ghash_schedule.steps("pairs", ghash, 4, load=False,
                                                          fresh=fresh, lengths=True)]
            self.assertNotIn("unfix", names)


STEP = re.compile(r"^\s*# GHASH step (\d+): ", re.M)


class GeneratedLoopTest(unittest.TestCase):
    """The default files' main loops place the steps where the tables say."""

    def loop_slots(self, text, tag):
        """{slot: [step numbers]} of the bulk loop whose rounds are tagged tag (slot 0:
        before the first of the nine rounds AES-128 runs, slot i: after the i-th, then
        AFTER_LAST: after the last round)."""
        lines = text.splitlines()
        start = lines.index(f".L{tag}_aes128:")
        slots, rounds, previous, last_round = {}, 0, "", False
        for line in lines[start + 1:]:
            code = line.strip()
            if code.startswith(".mca_end"):
                break
            # a round: a run of vaesenc with one key (keys in registers: adjacent runs)
            if code.startswith("vaesenc ") and (
                    not previous.startswith("vaesenc ")
                    or code.split(",")[-1] != previous.split(",")[-1]):
                rounds += 1
            if code.startswith("vaesenclast "):
                last_round = True
            step = STEP.match(line)
            if step:
                slot = ghash_schedule.AFTER_LAST if last_round else rounds
                slots.setdefault(slot, []).append(int(step.group(1)))
            if code:
                previous = code
        self.assertEqual(rounds, ghash_schedule.ROUNDS)
        return slots

    def check_loops(self, plan, what):
        text = render_neutral(plan, SYSV)
        for direction in ("enc", "dec"):
            if direction == "enc" and not plan.R["GD"]:
                continue
            expected = {i: [s.number for s in slot] for i, slot in enumerate(
                plan.ghash_schedule(direction, plan.knobs["UNROLL"],
                                    load=direction == "dec")) if slot}
            for tag in (f"gcm_{direction}_main", f"gcm_{direction}_rec_main"):
                with self.subTest(what=what, loop=tag):
                    self.assertEqual(self.loop_slots(text, tag), expected)

    def test_main_loops_follow_the_tables(self):
        for isa in ISAS:
            if "gcm" not in ISAS[isa].modes:
                continue                    # vperm_ssse3: no gcm.S
            self.check_loops(default_plan(isa), isa)

    def test_unroll8_karatsuba_loops_follow_their_tables(self):
        # the UNROLL=8 tables place steps before the first round as well
        for halves in ("pshufd", "unpack"):
            plan = default_plan("avx10_512", GHASH="karatsuba", UNROLL=8, TAIL=2,
                                KEYS="rows", HALVES=halves)
            slots = plan.ghash_schedule("enc", 8)
            self.assertTrue(slots[ghash_schedule.BEFORE])
            self.check_loops(plan, f"avx10_512 UNROLL=8 HALVES={halves}")


class RecordFinalGroupsTest(unittest.TestCase):
    """The records' final groups emit every step of their schedule, wherever it puts
    them: a step before the first round or after the last is not dropped."""

    def test_steps_before_and_after_the_rounds_are_emitted(self):
        spread = ghash_schedule._spread

        def moved(ordered, early=False):
            slots = spread(ordered, early=early)
            first = next(i for i, slot in enumerate(slots) if slot)
            slots[ghash_schedule.BEFORE] = [slots[first].pop(0)]
            return slots

        with mock.patch.object(ghash_schedule, "_spread", side_effect=moved):
            plan = default_plan("avx10_512")
            text = render_neutral(plan, SYSV)
        for count in range(1, plan.knobs["UNROLL"] + 1):
            with self.subTest(count=count):
                start = text.index(f"\n.Lgcm_dec_rec_final{count}:\n")
                after = re.compile(r"^\.Lgcm_dec_rec_(final\d+|tag|no_data):$", re.M)
                group = text[start:after.search(text, start + 2).start()]
                numbers = sorted(int(n) for n in STEP.findall(group))
                steps = plan.ghash_schedule("dec", count, fresh=False, lengths=True)
                self.assertEqual(numbers, list(range(sum(map(len, steps)))))
                # the moved step sits ahead of the first round
                rounds = group.index("_aes128:")
                self.assertRegex(group[rounds:].split("vaesenc", 1)[0], STEP.pattern[1:])

    def test_stitched_decryption_groups_start_ghash_ahead_of_the_counters(self):
        # RECTAIL=stitched (and stitched1): a decryption group of four or more vectors
        # runs its early steps (ghash_schedule._spread's early rule) before its counter
        # blocks; serial: the counter blocks come first, as in every other final group
        for rectail in ("serial", "stitched", "stitched1"):
            plan = default_plan("avx10_512", GHASH="karatsuba", UNROLL=8, TAIL=2,
                                KEYS="rows", HALVES="unpack", RECTAIL=rectail)
            text = render_neutral(plan, SYSV)
            for count in range(1, 9):
                with self.subTest(rectail=rectail, count=count):
                    start = text.index(f"\n.Lgcm_dec_rec_final{count}:\n")
                    after = re.compile(r"^\.Lgcm_dec_rec_(final\d+|tag|no_data):$", re.M)
                    group = text[start:after.search(text, start + 2).start()]
                    counters = group.index("# counter blocks")
                    ahead = [int(n) for n in STEP.findall(group[:counters])]
                    stitched = rectail != "serial"
                    slots = plan.ghash_schedule("dec", count, fresh=False, lengths=True,
                                                early=stitched)
                    self.assertEqual(ahead, [s.number for s in slots[ghash_schedule.BEFORE]])
                    self.assertEqual(bool(ahead), stitched and count >= 4)
                    numbers = sorted(int(n) for n in STEP.findall(group))
                    self.assertEqual(numbers, list(range(sum(map(len, slots)))))


class RecordTwoGroupsTest(unittest.TestCase):
    """RECTAIL=stitched on a key of 68 powers: a record's last
    two groups are one GHASH sum, reduced once; serial keeps a reduction per group;
    stitched1 does as stitched for encryption and as serial for decryption."""

    def test_the_last_two_groups_are_reduced_once(self):
        for rectail in ("serial", "stitched", "stitched1"):
            plan = default_plan("avx10_512", GHASH="karatsuba", UNROLL=8, TAIL=2,
                                KEYS="rows", HALVES="unpack", RECTAIL=rectail)
            text = render_neutral(plan, SYSV)
            fold = re.compile(rf"vpclmulqdq \w+, \w+, {plan.R['GFPOLY']}, 0x10")
            two = rectail != "serial"                   # encryption's
            two_dec = rectail == "stitched"
            self.assertEqual(plan.records_stitch_tail, two)
            self.assertEqual(plan.records_dec_two_groups, two_dec)
            # the AAD waits unreduced for the sum of a record of up to two iterations
            for direction in ("enc", "dec"):
                with self.subTest(rectail=rectail, direction=direction):
                    aad = text.index(f"\n.Lgcm_{direction}_rec_aad_alone:")
                    bound = re.findall(r"cmp rcx, (\d+)\n\s*ja \.L\w+_rec_aad_alone\n",
                                       text[:aad])
                    self.assertEqual(bound[-1], "1024" if (two if direction == "enc"
                                                           else two_dec) else "512")
            # decryption: the first of the last two groups hashes from HPTR, its products
            # left in the sums (no fold), the running hash joined and then zeroed
            with self.subTest(rectail=rectail, direction="dec"):
                self.assertEqual(".Lgcm_dec_rec_final_groups:" in text, two_dec)
                tail = text[text.index("\n.Lgcm_dec_rec_tail:"):]
                self.assertIn("add rcx, 1024" if two_dec else "add rcx, 512",
                              tail[:tail.index("\n.Lgcm_dec_rec_final")])
                if two_dec:
                    start = text.index("\n.Lgcm_dec_rec_tail:")
                    group = text[start:text.index("\n.Lgcm_dec_rec_final_groups:")]
                    self.assertIn("add rcx, 1024", group)
                    self.assertIsNone(fold.search(group))
                    for j in range(8):
                        self.assertRegex(group, rf"vpclmulqdq \w+, \w+, zmmword "
                                                rf"\[r9 \+ {64 * j}\], 0x00")
                    self.assertRegex(group, r"vpxord xmm14, xmm14, xmm14")
            # encryption (stitched): the bulk loop's last ciphertext (GD) is hashed by each
            # final group with the 32 powers above the group's, both under one reduction,
            # where it had a reduction of its own (pending); serial hashes GD after the loop
            for count in range(1, 9):
                with self.subTest(rectail=rectail, direction="enc", count=count):
                    self.assertNotIn(f"_rec_pending_final{count}:", text)
                    label = f"\n.Lgcm_enc_rec_sum_final{count}:\n"
                    self.assertEqual(label in text, two)
                    if not two:
                        continue
                    start = text.index(label)
                    after = re.compile(r"^\.Lgcm_enc_rec_(\w+_final\d+|tag|no_data):$", re.M)
                    group = text[start:after.search(text, start + 2).start()]
                    self.assertEqual(len(fold.findall(group)), 2)
                    above = re.findall(r"zmmword \[r9 - (\d+)\]", group)
                    self.assertEqual(sorted(set(map(int, above))),
                                     [512 - 64 * j for j in range(7, -1, -1)])


class LengthsLaneTest(unittest.TestCase):
    """RECTAIL=stitched: each final group puts the lengths block into its last vector's
    first free lane (GCM's byte order, before the GHASH reflects the vector), unless the
    AAD's vector took it or the vector is full; serial never does."""

    def test_the_lengths_block_rides_in_a_free_lane(self):
        for rectail in ("serial", "stitched", "stitched1"):
            plan = default_plan("avx10_512", GHASH="karatsuba", UNROLL=8, TAIL=2,
                                KEYS="rows", HALVES="unpack", RECTAIL=rectail)
            text = render_neutral(plan, SYSV)
            stitched = rectail != "serial"
            after = re.compile(r"^\.Lgcm_(enc|dec)_rec_(\w+_)?(final\d+|tag|no_data):$", re.M)
            for direction in ("enc", "dec"):
                for count in range(1, 9):
                    with self.subTest(rectail=rectail, direction=direction, count=count):
                        name = "sum_final" if direction == "enc" and stitched else "final"
                        start = text.index(f"\n.Lgcm_{direction}_rec_{name}{count}:\n")
                        group = text[start:after.search(text, start + 2).start()]
                        lane = group.find("kmovb k2, ")
                        self.assertEqual(lane >= 0, stitched)
                        if lane < 0:
                            continue
                        last = (plan.R["GD"] if direction == "dec" else plan.R["X"])[count - 1]
                        head = group[:lane]
                        # only a last vector of at most three blocks, and not twice
                        self.assertRegex(head, r"bt rbx, 40[^\n]*\n[^\n]*\n\s*cmp rcx, 48\n")
                        self.assertRegex(group[lane:], rf"vpshufb zmm12, zmm12, "
                                                       rf"{plan.R['BSWAP']}[^\n]*\n\s*vmovdqa64 "
                                                       rf"{last}\{{k2\}}, zmm12\n\s*bts rbx, 40")
                        # the vector is masked (encryption) or loaded (decryption) before,
                        # and reflected for the GHASH after
                        self.assertIn(f"{last}{{k1}}{{z}}", head)
                        self.assertNotIn(f"vpshufb {last}, {last}, ", head)
                        self.assertIn(f"vpshufb {last}, {last}, ", group[lane:])


class UnreducedStepsTest(unittest.TestCase):
    """steps(reduce=False): the products and the fix (whole products in the sums), then
    nothing: no lengths block, folds or lanes' XOR; and a lengths block there is an
    error (it belongs to the sum that is reduced)."""

    def test_the_sums_stop_after_the_fix(self):
        for ghash in ("karatsuba", "school"):
            for vectors in range(1, 9):
                with self.subTest(ghash=ghash, vectors=vectors):
                    full = ghash_schedule.steps("pairs", ghash, vectors, load=False,
                                                fresh=False)
                    cut = ghash_schedule.steps("pairs", ghash, vectors, load=False,
                                               fresh=False, reduce=False)
                    names = [s.name for s in cut]
                    self.assertEqual(names, [s.name for s in full][:len(names)])
                    self.assertEqual([s.name for s in full][len(names):],
                                     ["fold_lo", "fold_mi", "lanes"])
                    self.assertEqual(names[-1] == "fix", ghash == "karatsuba")
                    slots = ghash_schedule.schedule("avx10_512", "pairs", ghash, "dec",
                                                    vectors, load=False, fresh=False,
                                                    reduce=False, early=True)
                    self.assertEqual(sorted(s.number for slot in slots for s in slot),
                                     list(range(len(cut))))
        with self.assertRaises(ghash_schedule.ScheduleError):
            ghash_schedule.steps("pairs", "karatsuba", 8, load=False, fresh=False,
                                 lengths=True, reduce=False)


class EarlyRuleTest(unittest.TestCase):
    """_spread's early rule: the steps up to the first pair's low product go before the
    rounds, the others keep the rule, each step once and in a valid order."""

    def test_the_first_pairs_products_go_first(self):
        for vectors in range(1, 9):
            ordered = ghash_schedule.steps("pairs", "karatsuba", vectors, load=False,
                                           fresh=False, lengths=True, join_last=True)
            with self.subTest(vectors=vectors):
                slots = ghash_schedule._spread(ordered, early=True)
                before = [s.name for s in slots[ghash_schedule.BEFORE]]
                if vectors >= 4:
                    self.assertEqual(before, ["unfix"] + [f"reflect{p}" for p in range(vectors // 2)]
                                     + ["halves1", "mid1", "lo1"])
                else:      # pair 0 alone: its join waits for ACC, nothing goes early
                    self.assertEqual(before, [])
                flat = [s for slot in slots for s in slot]
                self.assertEqual([s.name for s in flat], [s.name for s in ordered])
                ghash_schedule._check_order(flat, f"{vectors} vectors, early")
                # without early, nothing goes before the rounds
                self.assertEqual(ghash_schedule._spread(ordered)[ghash_schedule.BEFORE], [])


if __name__ == "__main__":
    unittest.main()
