# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""A small out-of-order timing model for the generator's straight-line SSE code (the
bitsliced rounds of generator/bitslice.py), to rank schedules of the same operations.

Why not llvm-mca: its models do not see a spill's store forwarding to the load that
reads it back (it assumes no memory dependence), which is exactly what separates two
schedules of a bitsliced round; on Zen 4 it ranked those loops wrongly.  This model
is simple on purpose and is only trusted to rank: over 13 schedules of the encryption
round, looped, its cycles were 0.98 correlated with the ones measured on Zen 4 (0.96
over 18 with the inverse round's), at about 0.87 of their value (it leaves out the
front end and the losses of the hardware's pipe assignment).

The machine (ZEN4 by default): in-order dispatch of `dispatch` instructions per
cycle, a scheduler of `window` instructions not yet issued, `pipes` vector ALU pipes
with latency 1 (pxor, pand, ... on any, the others first; pshufb, pshufd, shifts on
`shuffle_pipes`),
register moves eliminated at rename, loads ready `load_latency` cycles after
dispatch, and a load of an address a store wrote earlier ready `forward_latency`
cycles after the store's data.  Instructions take pipe slots in program order, each
the earliest free slot at or after it is ready (oldest first, approximately).
"""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Machine:
    dispatch: int = 6
    window: int = 64
    pipes: int = 4
    shuffle_pipes: tuple = (1, 2)
    load_latency: int = 6
    forward_latency: int = 10


ZEN4 = Machine()

SHUFFLE_PIPE_OPS = frozenset({"pshufb", "pshufd", "psrlq", "psllq", "psrldq", "pslldq"})
_OPERANDS = re.compile(r",\s*(?![^\[]*\])")


def decode(line):
    """(mnemonic, dest register or None, source registers, memory operand read or
    None, memory operand written or None) of one Intel-syntax line."""
    text = line.partition("#")[0].strip()
    mnemonic, _, rest = text.partition(" ")
    args = [a.strip() for a in _OPERANDS.split(rest)] if rest else []
    regs = [a for a in args if re.fullmatch(r"xmm\d+", a)]
    mem = [a for a in args if "[" in a]
    if mnemonic == "movdqa" and "[" in args[0]:
        return mnemonic, None, regs, None, args[0]
    if mnemonic in ("movdqa", "movdqu"):
        return mnemonic, args[0], regs[1:], (mem[0] if mem else None), None
    if mnemonic == "pshufd":        # three operands: the destination is only written
        return mnemonic, args[0], regs[1:], (mem[0] if mem else None), None
    return mnemonic, args[0], regs, (mem[0] if mem else None), None


def cycles_per_iteration(lines, machine=ZEN4, iterations=12, warmup=4):
    """Steady-state cycles of one pass of `lines` run back to back (registers carried
    from one pass to the next), by the model above."""
    ops = [decode(line) for line in lines if line.strip() and not line.strip().startswith("#")]
    shuffle_pipes = tuple(machine.shuffle_pipes)
    # logic takes the pipes that cannot shuffle first, leaving those for the shuffles
    logic_pipes = tuple(sorted(range(machine.pipes), key=lambda p: p in shuffle_pipes))
    ready = {}          # register -> cycle its value is ready
    stored = {}         # memory operand -> cycle the data a store wrote there is ready
    busy = {}           # cycle -> pipes taken
    issue_log = []      # issue cycle of every instruction so far (the window)
    dispatch_log = []
    ends = []
    for _ in range(iterations):
        end = 0
        for mnemonic, dest, srcs, load, store in ops:
            n = len(dispatch_log)
            at = dispatch_log[-1] if dispatch_log else 0
            if n >= machine.dispatch:
                at = max(at, dispatch_log[n - machine.dispatch] + 1)
            if n >= machine.window:
                at = max(at, issue_log[n - machine.window])
            dispatch_log.append(at)
            t = max([at] + [ready.get(r, 0) for r in srcs])
            if load is not None:
                t = max(t, at + machine.load_latency)
                if load in stored:
                    t = max(t, stored[load] + machine.forward_latency)
            if store is not None:
                stored[store] = t
                issue_log.append(t)
                continue
            if mnemonic in ("movdqa", "movdqu"):   # a move (eliminated at rename) or a load
                ready[dest] = t
                issue_log.append(t)
                continue
            allowed = shuffle_pipes if mnemonic in SHUFFLE_PIPE_OPS else logic_pipes
            while True:
                taken = busy.setdefault(t, set())
                pipe = next((p for p in allowed if p not in taken), None)
                if pipe is not None:
                    taken.add(pipe)
                    break
                t += 1
            issue_log.append(t)
            ready[dest] = t + 1
            end = max(end, t + 1)
        ends.append(end)
    return (ends[-1] - ends[warmup - 1]) / (iterations - warmup)
