# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""perf/aes_chain_probe.py's loops: K independent chains of vaesenc, each instruction
waiting only for its own chain's previous one (the timing itself is make
aes-chain-probe's, never a test)."""

import os
import re
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from perf import aes_chain_probe, bitslice_order  # noqa: E402

LINE = re.compile(r"vaesenc ([xyz]mm)(\d+), ([xyz]mm)(\d+), ([xyz]mm)(\d+)")


class ChainLines(unittest.TestCase):
    def test_k_independent_chains(self):
        for width in ("xmm", "ymm", "zmm"):
            for k in aes_chain_probe.CHAINS:
                lines = aes_chain_probe.chain_lines(width, k)
                self.assertEqual(len(lines), k * aes_chain_probe.ROUNDS)
                dests = []
                for line in lines:
                    m = LINE.fullmatch(line)
                    self.assertIsNotNone(m, line)
                    self.assertEqual({m[1], m[3], m[5]}, {width}, line)
                    self.assertEqual(m[2], m[4], f"{line}: a chain reads its own register")
                    self.assertEqual(m[6], "0", f"{line}: the key is register 0")
                    dests.append(int(m[2]))
                # round r touches every chain once, in the same order
                self.assertEqual(dests, list(range(1, k + 1)) * aes_chain_probe.ROUNDS)
                self.assertNotIn(0, dests)

    def test_registers_are_vex_encodable(self):
        # xmm16 and up exist only with AVX-512: the xmm and ymm loops must run without it
        for width in ("xmm", "ymm"):
            for line in aes_chain_probe.chain_lines(width, max(aes_chain_probe.CHAINS)):
                for reg in re.findall(r"\d+", line):
                    self.assertLess(int(reg), 16, line)


class Widths(unittest.TestCase):
    def test_by_flags(self):
        usable = aes_chain_probe.usable_widths
        self.assertEqual(usable(["sse2", "ssse3"]), [])
        self.assertEqual(usable(["aes", "sse4_2"]), [])                 # no AVX: no VEX form
        self.assertEqual(usable(["aes", "avx"]), ["xmm"])
        self.assertEqual(usable(["aes", "avx", "avx2", "vaes"]), ["xmm", "ymm"])
        self.assertEqual(usable(["aes", "avx", "avx2", "vaes", "avx512f"]),
                         ["xmm", "ymm", "zmm"])
        self.assertEqual(usable(["aes", "avx", "avx512f"]), ["xmm"])   # zmm needs VAES


class LoopSource(unittest.TestCase):
    def test_after_loop_runs_once_after_the_branch(self):
        src = bitslice_order.loop_source(aes_chain_probe.chain_lines("zmm", 2),
                                         after_loop=["vzeroupper"])
        lines = [line.strip() for line in src.splitlines()]
        self.assertEqual(lines.count("vzeroupper"), 1)
        self.assertLess(lines.index("jnz 1b"), lines.index("vzeroupper"))
        self.assertLess(lines.index("vzeroupper"), lines.index("ret"))
        self.assertNotIn("vzeroupper", bitslice_order.loop_source(["pxor xmm0, xmm1"]))


if __name__ == "__main__":
    unittest.main()
