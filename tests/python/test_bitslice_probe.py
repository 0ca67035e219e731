# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""perf/bitslice_probe.py's variants of a bitsliced round: they keep the round's
instructions and change only what each waits for (the timing itself is make
bitslice-probe's, never a test)."""

import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from generator import bitslice  # noqa: E402
from perf import bitslice_order, bitslice_probe, ooo_model  # noqa: E402

REGISTER = re.compile(r"xmm\d+")


def code(line):
    return line.partition("#")[0].strip()


def memory_operands(line):
    return re.findall(r"\[[^\]]*\]", code(line))


def rounds():
    return [bitslice.round_lines(1, bitslice_order.FRAME, decrypt=d) for d in (False, True)]


class WithoutDependencies(unittest.TestCase):
    def test_same_instructions(self):
        for lines in rounds():
            renamed = bitslice_probe.without_dependencies(lines)
            self.assertEqual(len(renamed), len(lines))
            for old, new in zip(lines, renamed):
                self.assertEqual(code(old).split()[0], new.split()[0], new)
                self.assertEqual(memory_operands(old), memory_operands(new), new)
                self.assertEqual(len(REGISTER.findall(code(old))), len(REGISTER.findall(new)))

    def test_reads_only_registers_nothing_writes(self):
        for lines in rounds():
            renamed = bitslice_probe.without_dependencies(lines)
            written = set()
            for i, line in enumerate(renamed):
                operands = [o.strip() for o in ooo_model._OPERANDS.split(line.partition(" ")[2])]
                store = "[" in operands[0]
                for k, operand in enumerate(operands):
                    if not REGISTER.fullmatch(operand):
                        continue
                    if k == 0 and not store:        # the destination
                        self.assertEqual(operand, f"xmm{i % bitslice_probe.RENAMED_WRITTEN}",
                                         line)
                        written.add(operand)
                    else:                           # a source: one nothing writes
                        self.assertGreaterEqual(int(operand[3:]),
                                                bitslice_probe.RENAMED_WRITTEN, line)
            self.assertEqual(len(written), bitslice_probe.RENAMED_WRITTEN)

    def test_bound_is_the_pipes(self):
        # the model of the renamed round runs at its vector operations over four pipes:
        # counted here from the round's own lines (moves and stores take no pipe)
        for lines in rounds():
            operations = sum(1 for line in lines if not code(line).startswith("movdqa"))
            self.assertAlmostEqual(bitslice_probe.bound(lines), operations / 4, delta=1.0)
            # the round as generated waits for its dependencies in the same model
            self.assertGreater(ooo_model.cycles_per_iteration(lines), operations / 4 + 1)


class IndependentRounds(unittest.TestCase):
    def test_planes_loaded_from_bytes_no_line_writes(self):
        lines = rounds()[0]
        probe = bitslice_probe.independent_rounds(lines)
        self.assertEqual(probe[8:], lines)
        stores = {ooo_model.decode(line)[4] for line in lines} - {None}
        loaded = []
        for line in probe[:8]:
            mnemonic, dest, srcs, load, store = ooo_model.decode(line)
            self.assertEqual(mnemonic, "movdqa")
            self.assertIsNotNone(load)
            self.assertNotIn(load, stores)
            loaded.append(dest)
        self.assertEqual(loaded, list(bitslice.PLANE_REGISTERS))


class Chains(unittest.TestCase):
    def test_each_waits_for_the_one_before(self):
        for mnemonic in ("pxor", "pshufd", "pshufb"):
            lines = bitslice_probe.chain(mnemonic, 10)
            self.assertEqual(len(lines), 10)
            # one pipe slot per cycle at latency 1: the model runs them in series
            self.assertEqual(ooo_model.cycles_per_iteration(lines), 10, mnemonic)


if __name__ == "__main__":
    unittest.main()
