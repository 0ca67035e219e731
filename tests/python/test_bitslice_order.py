# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The schedule of the bitsliced rounds: regalloc.schedule's demand order (first=...),
the out-of-order model perf/ooo_model.py that ranks schedules (on small programs whose
timing follows from the machine's description: pipes, latencies, store forwarding),
and generator/bitslice.py's CLUSTER_ORDER against the model's ranking of all 120."""

import math
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from generator import bitslice as bs  # noqa: E402
from generator.regalloc import Program, schedule  # noqa: E402
from perf import bitslice_order, ooo_model  # noqa: E402


def independent(mnemonic, count, chains=8):
    """count instructions in `chains` independent dependency chains."""
    return [f"{mnemonic} xmm{i % chains}, xmm{8 + i % 7}" if mnemonic != "pshufd" else
            f"pshufd xmm{i % chains}, xmm{i % chains}, 0x39" for i in range(count)]


class OooModel(unittest.TestCase):
    def cycles(self, lines, **machine):
        return ooo_model.cycles_per_iteration(lines, ooo_model.Machine(**machine))

    def test_four_logic_pipes(self):
        self.assertEqual(self.cycles(independent("pxor", 200)), 50)
        self.assertEqual(self.cycles(independent("pand", 200), pipes=2), 100)

    def test_two_shuffle_pipes(self):
        self.assertEqual(self.cycles(independent("pshufd", 40)), 20)
        # 60 logic + 20 shuffles in separate chains: 20 cycles on four pipes, two of
        # which are needed by the shuffles
        shuffles = [f"pshufd xmm{8 + i % 8}, xmm{8 + i % 8}, 0x39" for i in range(20)]
        logic = [f"pxor xmm{i % 8}, xmm{i % 8}" for i in range(60)]
        mixed = [x for pair in zip(logic[:20], shuffles) for x in pair] + logic[20:]
        self.assertEqual(self.cycles(mixed), 20)

    def test_dependent_chain(self):
        self.assertEqual(self.cycles(["pxor xmm0, xmm1"] * 30), 30)

    def test_register_moves_cost_nothing(self):
        chain = ["pxor xmm0, xmm1", "movdqa xmm2, xmm0", "pxor xmm2, xmm1",
                 "movdqa xmm0, xmm2"] * 10
        self.assertEqual(self.cycles(chain), 20)

    def test_store_forwarding_on_the_chain(self):
        # value -> stack -> read back as an operand: 1 + the forwarding latency a link
        link = ["pxor xmm0, xmm1", "movdqa xmmword [rbx + 16], xmm0",
                "movdqa xmm0, xmm1", "pxor xmm0, xmmword [rbx + 16]"]
        self.assertEqual(self.cycles(link * 5, forward_latency=10), 5 * 12)
        # a load nothing stored to waits only for its own latency, off the chain
        loads = ["pxor xmm0, xmmword [rbx + 32]"] * 20
        self.assertEqual(self.cycles(loads), 20)

    def test_window_limits_the_overlap(self):
        # a long chain, then independent work: the work can only overlap the chain
        # as far as the scheduler reaches
        lines = ["pxor xmm0, xmm1"] * 40 + independent("pxor", 120, chains=6)[6:]
        wide = self.cycles(lines, window=256)
        narrow = self.cycles(lines, window=8)
        self.assertLess(wide, narrow)


class DemandOrder(unittest.TestCase):
    def program(self):
        prog = Program(["x", "y"])
        a = prog.op("xor", "x", "y", "a")
        b = prog.op("and", "x", a, "b")
        c = prog.op("xor", "y", "y", "c")
        d = prog.op("xor", c, "x", "d")
        prog.outputs = [b, d]
        return prog

    def test_named_first_with_what_they_need(self):
        prog = schedule(self.program(), first=("d",))
        hints = [op[1].partition(".")[0] for op in prog.ops]
        self.assertEqual(hints[:2], ["c", "d"])
        self.assertEqual(sorted(hints[2:]), ["a", "b"])
        self.assertLess(hints.index("a"), hints.index("b"))

    def test_unknown_name(self):
        with self.assertRaisesRegex(ValueError, "'nope'"):
            schedule(self.program(), first=("nope",))

    def test_clusters_cover_the_first_layer_once(self):
        names = bs.middle_first("ABCDE")
        self.assertEqual(len(names), len(set(names)))
        for order in bs.CLUSTER_ORDER.values():
            self.assertEqual(sorted(order), sorted(bs.MIDDLE_CLUSTERS))


class RecordedOrder(unittest.TestCase):
    """CLUSTER_ORDER was chosen from the model's best few by measurement; if a change
    to the circuit, the allocator or the rounds makes it fall behind the model's best
    by more than the model's resolution, it must be chosen again (make bitslice-order)."""

    def test_recorded_order_is_among_the_models_best(self):
        for decrypt in (False, True):
            rated = bitslice_order.rank(decrypt)
            best = rated[0][0]
            recorded = dict((o, c) for c, o in rated)[bs.CLUSTER_ORDER[decrypt]]
            self.assertLessEqual(recorded, best * 1.025,
                                 f"decrypt={decrypt}: {bs.CLUSTER_ORDER[decrypt]} rates "
                                 f"{recorded}, the best {rated[0]}")
            # and the ranking has something to say: the worst order is clearly worse
            self.assertGreater(rated[-1][0], best * 1.08)


class Timer(unittest.TestCase):
    """perf/round_loop.c, the timer of make bitslice-order, bitslice-probe and
    aes-chain-probe.  What it measures is never asserted (no timed tests); that it
    builds, runs, and counts in the bench's cycles is."""

    def test_cycle_is_the_bench_clock_chain(self):
        # A chain of immediate adds runs several a cycle on cores that fold them at
        # rename (a Granite Rapids-class Xeon read 12 cycles for a 3-cycle vaesenc so):
        # the cycle must be the bench's register + register chain.
        with open(os.path.join(bitslice_order.REPO, "perf", "round_loop.c")) as f:
            source = f.read()
        self.assertIn("bench_core_ghz_sample(", source)
        self.assertNotRegex(source, r"add\s+\$")

    @unittest.skipUnless(sys.platform.startswith("linux"), "taskset and ELF: Linux only")
    def test_builds_and_times_a_loop(self):
        cpu = sorted(os.sched_getaffinity(0))[-1]
        with tempfile.TemporaryDirectory() as out:
            timed = bitslice_order.time_loops({"chain": ["add rax, rcx"] * 4}, out,
                                              passes=1, cpu=cpu)
        self.assertEqual(set(timed), {"chain"})
        self.assertTrue(math.isfinite(timed["chain"]) and timed["chain"] > 0, timed)


if __name__ == "__main__":
    unittest.main()
