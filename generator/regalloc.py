# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Straight-line SSA programs on 128-bit values and their allocation to two-operand
SSE code: the register allocator of generator/bitslice.py's rounds (the generator's
own, as the rounds are too large to place registers by hand).

Program: operations xor/and (commutative), pshufd (value, immediate), pshufb and xorm
(in place, with a memory operand), each with a note that becomes the line's comment.
schedule(): a topological order, critical path first, but under register pressure the
operations that end a value's life first; optionally some named values computed first,
each just after what it needs (a demand order the caller chose).  Allocator: each operation in two-operand
form (the destroyed operand is one that dies there, else a copy), spills by Belady (the
value needed farthest ahead, stored once to a slot and read back as a memory operand),
and a parallel move that leaves the outputs in the registers the caller names.
"""


class Program:
    """Straight-line operations on 128-bit values named by strings.  kinds:
    xor/and (commutative, two values), pshufd (value, immediate), pshufb (value, mask
    operand; in place), xorm (value, memory operand)."""

    def __init__(self, inputs):
        self.inputs = list(inputs)
        self.ops = []
        self.outputs = []
        self._count = 0

    def _new(self, hint):
        self._count += 1
        return f"{hint}.{self._count}"

    def op(self, kind, a, b, hint="v", note=""):
        dest = self._new(hint)
        self.ops.append((kind, dest, a, b, note))
        return dest


# schedule(): above this many live values, operations that end a value's life first.
PRESSURE_LIMIT = 15


def schedule(prog, pressure=PRESSURE_LIMIT, first=()):
    """Reorders prog.ops (a topological order still): ready operations by their
    longest path to an output first, so the chain that bounds a round is fed before
    the work that has slack; but while `pressure` values or more are alive, an
    operation that ends a value's life goes first, so fewer values go to the stack (a
    spill's store-to-load forwarding is on the round's chain).

    first: hints (Program.op's `hint`, each naming one operation) to compute before
    everything else, in that order, each preceded depth-first by the operations it
    needs that are not done yet; the rest follows in the order above.  A value is then
    made just before its first use, so what goes to the stack is what is needed late."""
    ops = prog.ops
    producer = {op[1]: i for i, op in enumerate(ops)}
    operands = []
    for kind, dest, a, b, _ in ops:
        operands.append([a, b] if kind in ("xor", "and") else [a])
    srcs = [[producer[v] for v in vs if v in producer] for vs in operands]
    users = [[] for _ in ops]
    for i, s in enumerate(srcs):
        for p in s:
            users[p].append(i)
    height = [0] * len(ops)
    for i in range(len(ops) - 1, -1, -1):
        height[i] = 1 + max((height[u] for u in users[i]), default=0)
    remaining = {}
    for vs in operands:
        for v in vs:
            remaining[v] = remaining.get(v, 0) + 1
    for v in prog.outputs:
        remaining[v] = remaining.get(v, 0) + 1
    live = len(prog.inputs)
    waiting = [len(s) for s in srcs]
    ready = [i for i in range(len(ops)) if not waiting[i]]
    order = []

    def freed(i):
        return sum(1 for v in set(operands[i]) if remaining[v] == operands[i].count(v))

    while ready:
        if live >= pressure:
            ready.sort(key=lambda i: (-(freed(i) >= 1), -height[i], i))
        else:
            ready.sort(key=lambda i: (-height[i], i))
        i = ready.pop(0)
        order.append(i)
        live += 1 - freed(i)
        for v in operands[i]:
            remaining[v] -= 1
        for u in users[i]:
            waiting[u] -= 1
            if not waiting[u]:
                ready.append(u)
    if first:
        order = _demand_order(ops, order, srcs, first)
    prog.ops = [ops[i] for i in order]
    return prog


def _demand_order(ops, order, srcs, first):
    """order with the operations named by `first` (and, depth-first, the ones they need)
    moved to the front; the rest keep their order (so the result is topological)."""
    by_hint = {}
    for i, op in enumerate(ops):
        by_hint.setdefault(op[1].partition(".")[0], []).append(i)
    done, front = set(), []

    def visit(i):
        if i not in done:
            for p in srcs[i]:
                visit(p)
            done.add(i)
            front.append(i)

    for hint in first:
        if len(by_hint.get(hint, ())) != 1:
            raise ValueError(f"schedule: first names {hint!r}, which is not one operation")
        visit(by_hint[hint][0])
    return front + [i for i in order if i not in done]


class Allocator:
    """Two-operand register allocation of a Program onto `registers`, spilling to
    slots (spill_operand(i) = slot i's memory operand).  inputs: value -> register at
    entry; outputs must end in out_registers (list, in program output order)."""

    def __init__(self, registers, spill_operand, table_operand):
        self.registers = list(registers)
        self.spill_operand = spill_operand
        self.table_operand = table_operand
        self.slots_used = 0

    def emit(self, prog, inputs, out_registers):
        ops = prog.ops
        uses = {}
        for i, (kind, dest, a, b, _) in enumerate(ops):
            for v in ((a, b) if kind in ("xor", "and") else (a,)):
                uses.setdefault(v, []).append(i)
        end = len(ops)
        for v in prog.outputs:
            uses.setdefault(v, []).append(end)
        reg_of, value_in = dict(inputs), {r: v for v, r in inputs.items()}
        slot_of = {}
        free_slots = []
        lines = []

        def next_use(v, i):
            return next((u for u in uses.get(v, ()) if u > i), None)

        def memory(v):
            return self.spill_operand(slot_of[v])

        def release(v):
            r = reg_of.pop(v, None)
            if r is not None:
                del value_in[r]

        def take_register(i, keep):
            free = [r for r in self.registers if r not in value_in]
            if free:
                return free[0]
            # Belady: evict the value needed farthest ahead (never one this op reads)
            victim = max((v for v in value_in.values() if v not in keep),
                         key=lambda v: (next_use(v, i) or 10 ** 9))
            r = reg_of[victim]
            if victim not in slot_of:
                if free_slots:
                    slot_of[victim] = free_slots.pop()
                else:
                    slot_of[victim] = self.slots_used
                    self.slots_used += 1
                lines.append(f"movdqa {memory(victim)}, {r}")
            release(victim)
            return r

        def operand(v):
            return reg_of[v] if v in reg_of else memory(v)

        def retire(v, i):
            if next_use(v, i) is None:
                release(v)
                if v in slot_of:
                    free_slots.append(slot_of.pop(v))

        for i, (kind, dest, a, b, note) in enumerate(ops):
            if kind in ("xor", "and"):
                insn = "pxor" if kind == "xor" else "pand"
                dying = [v for v in (a, b) if next_use(v, i) is None and v in reg_of]
                if dying:
                    x = dying[0]
                    other = b if x == a else a
                    r = reg_of[x]
                    release(x)
                    lines.append(f"{insn} {r}, {operand(other)}")
                else:
                    # copy one source (a register one if any, so the other may be memory)
                    x, other = (a, b) if a in reg_of or b not in reg_of else (b, a)
                    r = take_register(i, (a, b))
                    lines.append(f"movdqa {r}, {operand(x)}")
                    lines.append(f"{insn} {r}, {operand(other)}")
                for v in (a, b):
                    if v in reg_of or v in slot_of:
                        retire(v, i)
            elif kind == "pshufd":
                if next_use(a, i) is None and a in reg_of:
                    r = reg_of[a]
                    release(a)
                    lines.append(f"pshufd {r}, {r}, {b:#04x}")
                else:
                    r = take_register(i, (a,))
                    lines.append(f"pshufd {r}, {operand(a)}, {b:#04x}")
                    retire(a, i)
            else:   # pshufb / xorm: in place on a, b a memory operand
                insn = "pshufb" if kind == "pshufb" else "pxor"
                mem = self.table_operand(b) if kind == "pshufb" else b
                if next_use(a, i) is None and a in reg_of:
                    r = reg_of[a]
                    release(a)
                else:
                    r = take_register(i, (a,))
                    lines.append(f"movdqa {r}, {operand(a)}")
                    retire(a, i)
                lines.append(f"{insn} {r}, {mem}")
            if note:
                lines[-1] = f"{lines[-1]:<31} # {note}"
            reg_of[dest], value_in[r] = r, dest
            if next_use(dest, i) is None:
                raise AssertionError(f"{dest} is never used")
        lines += self._place(prog.outputs, out_registers, reg_of, value_in, slot_of)
        return lines

    def _place(self, outputs, targets, reg_of, value_in, slot_of):
        """Moves the outputs into their registers (a parallel move through a free
        register when they form a cycle)."""
        lines = []
        want = dict(zip(outputs, targets))
        spare = [r for r in self.registers if r not in value_in and r not in targets]
        pending = {v: t for v, t in want.items() if reg_of.get(v) != t}
        while pending:
            progress = False
            for v, t in list(pending.items()):
                if t not in value_in:
                    src = reg_of[v] if v in reg_of else self.spill_operand(slot_of[v])
                    lines.append(f"movdqa {t}, {src}")
                    if v in reg_of:
                        del value_in[reg_of[v]]
                    reg_of[v], value_in[t] = t, v
                    del pending[v]
                    progress = True
            if not progress:    # a cycle: park one value in a spare register
                v = next(iter(pending))
                s = spare[0] if spare else None
                if s is None:
                    raise AssertionError("no spare register to break a cycle")
                lines.append(f"movdqa {s}, {reg_of[v]}")
                del value_in[reg_of[v]]
                reg_of[v], value_in[s] = s, v
        return lines
