# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""python3 -m perf bitslice-probe: where a bitsliced middle round's cycles go, timed
on this machine.

The round (generator/bitslice.py round_lines) is timed as a loop, as in
bitslice-order, beside variants that keep its instructions and change only what they
wait for:

- as generated: each round reads the planes the one before wrote;
- independent rounds: the eight planes loaded, before each round, from frame bytes
  nothing writes, so one round never waits for the one before (an out-of-order core
  with room could overlap them);
- without dependencies: the same mnemonics, memory operands and count, the registers
  renamed so that an instruction writes one of twelve registers in turn and reads one
  of the other four, which nothing in the loop writes: each waits only for the
  instruction twelve before it.  Its time is what the pipes and the front end allow;
- and dependent chains of pxor, pshufd and pshufb: the latencies.

The bound beside them is the round's vector operations over the pipes the out-of-order
model gives the machine (perf/ooo_model.py ZEN4: four, two of them for shuffles).
docs/perf-tools.md "make bitslice-probe" has what it measured on Zen 4 and what follows from it.
"""

import re

from generator import bitslice

from . import bitslice_order, ooo_model

RENAMED_WRITTEN = 12            # registers the dependency-free variant writes in turn
UNWRITTEN_BASE = 3072           # frame bytes the independent rounds load their planes from

_REGISTER = re.compile(r"xmm\d+")


def without_dependencies(lines):
    """The lines with every register renamed: instruction i writes xmm(i mod 12) and
    reads a register among xmm12..xmm15 (which none writes); memory operands and
    immediates as they were."""
    out = []
    for i, line in enumerate(lines):
        mnemonic, _, _, _, store = ooo_model.decode(line)
        written = f"xmm{i % RENAMED_WRITTEN}"
        read = f"xmm{RENAMED_WRITTEN + i % (16 - RENAMED_WRITTEN)}"
        text = line.partition("#")[0].strip()
        operands = ooo_model._OPERANDS.split(text.partition(" ")[2])
        renamed = []
        for k, operand in enumerate(operands):
            operand = operand.strip()
            if _REGISTER.fullmatch(operand):
                operand = written if (k == 0 and store is None) else read
            renamed.append(operand)
        out.append(f"{mnemonic} {', '.join(renamed)}")
    return out


def independent_rounds(lines, frame=bitslice_order.FRAME):
    """The lines after loads of the eight plane registers from frame bytes no line
    writes: each pass starts from the same planes."""
    loads = [f"movdqa {reg}, xmmword [{frame} + {UNWRITTEN_BASE + 16 * b}]"
             for b, reg in enumerate(bitslice.PLANE_REGISTERS)]
    return loads + list(lines)


def chain(mnemonic, count=200):
    """`count` instructions, each waiting for the one before."""
    if mnemonic == "pshufd":
        return [f"pshufd xmm0, xmm0, {bitslice.ROTATE_ROWS:#x}"] * count
    return [f"{mnemonic} xmm0, xmm1"] * count


def bound(lines):
    """The model's cycles for the lines without dependencies: what the pipes allow."""
    return ooo_model.cycles_per_iteration(without_dependencies(lines))


def programs(decrypt):
    kind = "inverse round" if decrypt else "round"
    lines = bitslice.round_lines(1, bitslice_order.FRAME, decrypt=decrypt)
    return lines, {f"{kind}, as generated": lines,
                   f"{kind}, independent rounds": independent_rounds(lines),
                   f"{kind}, without dependencies": without_dependencies(lines)}


def add_parser(sub):
    return bitslice_order.timing_parser(sub, "bitslice-probe", "time a bitsliced round as "
                                        "generated, with rounds independent and without "
                                        "dependencies; latencies", passes=7)


def command(args):
    loops, bounds = {}, {}
    for decrypt in (False, True):
        lines, variants = programs(decrypt)
        loops.update(variants)
        bounds[next(iter(variants))] = bound(lines)
    latencies = {f"{m} latency": chain(m) for m in ("pxor", "pshufd", "pshufb")}
    loops.update(latencies)
    names = {name: re.sub(r"[^a-z0-9]+", "-", name).strip("-") for name in loops}
    timed = bitslice_order.time_loops({names[n]: loops[n] for n in loops}, args.out,
                                      passes=args.passes, cpu=args.cpu)
    for name in loops:
        cycles = timed[names[name]]
        if name in latencies:
            print(f"{name:40s} {cycles / len(loops[name]):6.2f} cycles")
            continue
        extra = f"   (pipes' bound {bounds[name]:.1f})" if name in bounds else ""
        print(f"{name:40s} {cycles:6.1f} cycles{extra}")
    return 0
