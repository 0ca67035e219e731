# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""python3 -m perf aes-chain-probe: how many independent `vaesenc` chains this machine
needs to keep its AES pipes full, at each vector width, timed here.

Why.  A message of n vectors gives a counter mode n independent chains of rounds (each
vector's rounds depend on its own previous round only).  If the pipes issue p `vaesenc`
a cycle and one takes L cycles, n >= p x L chains keep them busy in principle; whether
they do is the machine's business (how it assigns each instruction to a pipe, and what
a result costs to reach the other pipe).  This probe times a loop of ROUNDS rounds on K
chains for K = 1 .. 15 and prints, per width, the cycles a round of K takes and the
instructions a cycle that gives, so the length at which one group of vectors stops
leaving the pipes idle is measured, not assumed.  docs/tuning.md "What limits CTR and XCTR"
has what it gave on Zen 5.

The timing is perf/bitslice_order.py's (perf/round_loop.c): the loop's median cycles
per pass over 15 samples, a cycle being one add of the bench's register + register chain
(tests/bench/bench_machine.c), measured before each sample.
"""

from . import bitslice_order

ROUNDS = 4                      # rounds of K chains in one pass of the timed loop
CHAINS = range(1, 16)           # K: chain k in register k, the key in register 0: the 16
                                # registers VEX encodes (xmm16 and up would need AVX-512)
WIDTHS = {"xmm": "avx", "ymm": "vaes", "zmm": "avx512f"}     # width -> /proc/cpuinfo flag


def chain_lines(width, chains, rounds=ROUNDS):
    """`rounds` rounds of `chains` independent chains: round r issues one `vaesenc` on
    each chain register (each reads and writes its own register), the key in register 0."""
    return [f"vaesenc {width}{k}, {width}{k}, {width}0"
            for _ in range(rounds) for k in range(1, chains + 1)]


def usable_widths(flags):
    """The widths whose instructions this CPU has: VEX `vaesenc xmm` needs AES-NI and
    AVX, ymm VAES, zmm VAES and AVX-512F."""
    have = set(flags)
    if "aes" not in have:
        return []
    return [w for w in WIDTHS
            if WIDTHS[w] in have and (w == "xmm" or "vaes" in have)]


def cpu_flags(path="/proc/cpuinfo"):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("flags"):
                    return line.split(":", 1)[1].split()
    except OSError:
        pass
    return []


def add_parser(sub):
    return bitslice_order.timing_parser(sub, "aes-chain-probe", "time vaesenc on 1..15 "
                                        "independent chains at each vector width", passes=5)


def command(args):
    widths = usable_widths(cpu_flags())
    if not widths:
        print("aes-chain-probe: this CPU has no AES-NI with AVX: nothing to time")
        return 0
    loops = {f"{w}-{k}": chain_lines(w, k) for w in widths for k in CHAINS}
    timed = bitslice_order.time_loops(loops, args.out, passes=args.passes, cpu=args.cpu,
                                      after_loop=["vzeroupper"])
    print(f"{'width':5} {'chains':>6} {'cycles a round':>15} {'vaesenc a cycle':>16}")
    for w in widths:
        for k in CHAINS:
            per_round = timed[f"{w}-{k}"] / ROUNDS
            print(f"{w:5} {k:6d} {per_round:15.2f} {k / per_round:16.2f}")
    return 0
