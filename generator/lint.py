# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Passes over the parsed statements that reject code which must never be emitted."""

from .errors import TemplateError
from .features import VEX_ONLY, instruction_features
from .model import Directive, Imm, Instr, Label, LabelRef, Mem, Reg

JUMPS = {"jmp", "call", "ja", "jae", "jb", "jbe", "jc", "je", "jg", "jge", "jl", "jle",
         "jna", "jnae", "jnb", "jnbe", "jnc", "jne", "jng", "jnge", "jnl", "jnle", "jno",
         "jnp", "jns", "jnz", "jo", "jp", "js", "jz"}


def _registers(instr):
    for op in instr.operands:
        if isinstance(op, Reg):
            yield op
            if op.mask:
                yield Reg(op.mask, "k", 8, int(op.mask[1:]))
        elif isinstance(op, Mem) and op.mask:
            yield Reg(op.mask, "k", 8, int(op.mask[1:]))


def check_no_legacy_sse(statements):
    """A legacy-SSE instruction between VEX/EVEX code costs a state transition."""
    for s in statements:
        if isinstance(s, Instr) and not s.mnemonic.startswith("v"):
            if any(r.is_vector for r in _registers(s)):
                raise TemplateError(f"legacy SSE encoding '{s.mnemonic}' in VEX/EVEX code; "
                                    f"use the v-prefixed form")


def check_isa_registers(statements, isa):
    allowed_kinds = {"gpr", "xmm"} | ({"ymm"} if isa.vector_bytes >= 32 else set())
    allowed_kinds |= {"zmm"} if isa.vector_bytes == 64 else set()
    allowed_kinds |= {"k"} if isa.evex else set()
    for s in dict.fromkeys(statements):         # each distinct statement once, in order
        if not isinstance(s, Instr):
            continue
        registers = list(_registers(s))
        for reg in registers:
            if reg.kind not in allowed_kinds:
                raise TemplateError(f"{reg.name} is not available on {isa.name}")
            if reg.is_vector and reg.index >= isa.vector_registers:
                raise TemplateError(f"{reg.name} is beyond the {isa.vector_registers} "
                                    f"registers of {isa.name}")
        if VEX_ONLY.match(s.mnemonic) and any(
                r.kind in ("zmm", "k") or (r.is_vector and r.index >= 16) for r in registers):
            raise TemplateError(f"'{s.mnemonic}' has only a VEX encoding: zmm, xmm16-31 and "
                                f"opmasks need its EVEX form (vmovdqu8/64, vpxord, ...)")
        # What the instruction form needs (generator/features.py, shared with perf/mca.py).
        need = instruction_features(
            s.mnemonic, {r.kind for r in registers},
            high_vector=any(r.is_vector and r.index >= 16 for r in registers),
            opmask=any(r.kind == "k" for r in registers))
        missing = need - set(isa.features)
        if missing:
            raise TemplateError(f"'{s.mnemonic}' needs {', '.join(sorted(missing))}, "
                                f"not available on {isa.name}")


VEX_MOVES = {"vmovdqa", "vmovdqu", "vmovaps", "vmovups", "vmovapd", "vmovupd"}


def check_twin_safe_moves(statements):
    """A VEX register move from a register >= 8 into one < 8 has two encodings: GNU as
    takes the store opcode for its 2-byte VEX prefix, NASM the load opcode.  Allocate the
    source below 8 (or the destination above) so the twins stay byte-identical."""
    for s in statements:
        if isinstance(s, Instr) and s.mnemonic in VEX_MOVES and len(s.operands) == 2 \
                and all(isinstance(op, Reg) and op.is_vector for op in s.operands):
            dst, src = s.operands
            if src.index >= 8 > dst.index:
                raise TemplateError(f"'{s.mnemonic} {dst.name}, {src.name}' encodes "
                                    "differently in GNU as and NASM; use a source below 8")


WHOLE_MOVES = VEX_MOVES | {"vmovdqu8", "vmovdqu16", "vmovdqu32", "vmovdqu64",
                           "vmovdqa32", "vmovdqa64"}


def check_move_sizes(statements):
    """A whole-register load or store whose memory operand names a size (xmmword, ...)
    moves as many bytes as its register holds: GNU as sizes it by the register and would
    take a mismatch, NASM refuses it, so the twins would part."""
    for s in statements:
        if not (isinstance(s, Instr) and s.mnemonic in WHOLE_MOVES and len(s.operands) == 2):
            continue
        mems = [op for op in s.operands if isinstance(op, Mem) and op.size]
        regs = [op for op in s.operands if isinstance(op, Reg) and op.is_vector]
        if mems and regs and mems[0].size != regs[0].size:
            raise TemplateError(f"'{s.mnemonic}' moves {regs[0].size} bytes ({regs[0].name}) "
                                f"but its memory operand says {mems[0].size}")


def check_labels(statements):
    defined = set()
    for s in statements:
        if isinstance(s, Label):
            if s.name in defined:
                raise TemplateError(f"label {s.name} defined twice")
            defined.add(s.name)
    for s in statements:
        if isinstance(s, Instr):
            for op in s.operands:
                name = op.name if isinstance(op, LabelRef) else \
                    op.symbol if isinstance(op, Mem) else None
                if name and name not in defined:
                    raise TemplateError(f"'{s.mnemonic}' refers to undefined label {name}")
                if isinstance(op, LabelRef) and s.mnemonic not in JUMPS:
                    raise TemplateError(f"bare label operand in '{s.mnemonic}'")


def check_reachable(statements):
    """No dead code: every instruction lies on a path from a function's entry (following
    fall-through and jump targets; a label whose address an instruction takes counts as
    an entry too).  A template that emits a path nobody enters, or a jump after a jump,
    has lost track of its own control flow.  int3/ud2 after a jump are padding (they stop
    straight-line speculation), not code."""
    code = [s for s in statements if isinstance(s, (Instr, Label))
            or (isinstance(s, Directive) and s.name == "endfunction")]
    where = {s.name: i for i, s in enumerate(code) if isinstance(s, Label)}
    roots = {s.args[0] for s in statements
             if isinstance(s, Directive) and s.name in ("function", "alias")}
    roots |= {op.symbol for s in code if isinstance(s, Instr)
              for op in s.operands if isinstance(op, Mem) and op.symbol}
    work = [where[name] for name in roots if name in where]
    seen = set()
    while work:
        i = work.pop()
        while i < len(code) and i not in seen:
            seen.add(i)
            s = code[i]
            if isinstance(s, Directive):
                break                       # a function's end: nothing falls out of it
            if isinstance(s, Instr):
                target = next((op.name for op in s.operands if isinstance(op, LabelRef)), None)
                if target is not None and s.mnemonic in JUMPS and target in where:
                    work.append(where[target])
                if s.mnemonic in ("jmp", "ret", "int3", "ud2"):
                    break
            i += 1
    label = None
    for i, s in enumerate(code):
        if isinstance(s, Label):
            label = s.name
        elif (isinstance(s, Instr) and i not in seen
              and s.mnemonic not in ("int3", "ud2")):
            raise TemplateError(f"unreachable '{s.mnemonic}' (after label {label}): no path "
                                "from a function's entry reaches it")


def check_functions(statements, clear_upper):
    """endbr64 first at every global entry; vzeroupper right before every ret."""
    functions = {s.args[0] for s in statements
                 if isinstance(s, Directive) and s.name in ("function", "alias")}
    code, xmm_only_returns, pending = [], set(), False
    for s in statements:
        if isinstance(s, Directive) and s.name == "xmm_only":
            pending = True
        elif isinstance(s, (Instr, Label)):
            if isinstance(s, Instr) and s.mnemonic == "ret" and pending:
                xmm_only_returns.add(len(code))
            if isinstance(s, Label) or (isinstance(s, Instr) and s.mnemonic == "ret"):
                pending = False
            code.append(s)
    for position, s in enumerate(code):
        if isinstance(s, Label) and s.name in functions:
            # an alias's label stands right before the function's own
            following = next((c for c in code[position + 1:] if not isinstance(c, Label)),
                             None)
            if not (isinstance(following, Instr) and following.mnemonic == "endbr64"):
                raise TemplateError(f"function {s.name} does not start with endbr64")
        if clear_upper and isinstance(s, Instr) and s.mnemonic == "ret":
            previous = [c for c in code[:position] if isinstance(c, Instr)
                        and c.mnemonic not in ("pop", "xor", "add")]
            if not previous or previous[-1].mnemonic != "vzeroupper":
                if position not in xmm_only_returns:
                    raise TemplateError("ret without vzeroupper before it")


def _writes_rsp(instr):
    first = instr.operands[0] if instr.operands else None
    return instr.mnemonic in ("push", "pop") or (
        isinstance(first, Reg) and first.name == "rsp")


STACK_CFI = {"cfi_push", "cfi_pop", "cfi_adjust", "cfi_savexmm"}


def _is_rsp_memory(op):
    return isinstance(op, Mem) and op.base == "rsp" and not op.index


def _stack_change_text(s):
    """The text of a statement that moves rsp or describes a stack change, else None."""
    if isinstance(s, Directive) and s.name in STACK_CFI:
        return f".{s.name} {', '.join(s.args)}"
    if isinstance(s, Instr) and _writes_rsp(s):
        return s.mnemonic
    return None


def _directive_is(s, name, *args):
    return isinstance(s, Directive) and s.name == name and s.args == args


def _prologue(items, start, function):
    """Reads the prologue after endbr64 at items[start]: (pushed registers, the one
    allocation or 0, the position after it).  Its shape is the one Win64 unwind codes
    describe: the pushes (each with .cfi_push), the stack-argument loads, one allocation
    (with .cfi_adjust), then the xmm saves into the frame (each with .cfi_savexmm)."""
    position, pushed, allocation = start + 1, [], 0

    def at(offset=0):
        return items[position + offset] if position + offset < len(items) else None

    while isinstance(at(), Instr) and at().mnemonic == "push":
        register = at().operands[0].name
        if not _directive_is(at(1), "cfi_push", register):
            raise TemplateError(f"{function}: 'push {register}' without its .cfi_push")
        pushed.append(register)
        position += 2
    while (isinstance(at(), Instr) and at().mnemonic == "mov"
           and isinstance(at().operands[0], Reg) and _is_rsp_memory(at().operands[1])):
        position += 1
    if isinstance(at(), Instr) and at().mnemonic == "sub" and _writes_rsp(at()):
        amount = at().operands[1].value if isinstance(at().operands[1], Imm) else None
        if amount is None or not _directive_is(at(1), "cfi_adjust", str(amount)):
            raise TemplateError(f"{function}: the frame allocation without its .cfi_adjust")
        allocation = amount
        position += 2
    while (isinstance(at(), Instr) and at().mnemonic in ("vmovdqa", "movdqa")
           and _is_rsp_memory(at().operands[0]) and isinstance(at().operands[1], Reg)):
        register, offset = at().operands[1].name, at().operands[0].disp
        if not _directive_is(at(1), "cfi_savexmm", register, str(offset)):
            raise TemplateError(f"{function}: the save of {register} without its .cfi_savexmm")
        position += 2
    return pushed, allocation, position


def _epilogue(items, start, function, pushed, allocation):
    """Checks the epilogue from items[start] to its ret: the release of the whole
    allocation (with .cfi_adjust), then the pops in reverse push order (each with
    .cfi_pop), then ret: the only form Windows' unwinder recognizes as an epilogue.  When
    it changes rsp, .cfi_remember comes right before it and .cfi_restore right after the
    ret, so that code placed after the ret keeps the body's CFI rows."""
    position = start
    expected = []
    frame = bool(allocation or pushed)
    # (only where the epilogue starts as it should: a ret without its pops is named below)
    if (frame and isinstance(items[start], Instr) and items[start].mnemonic in ("add", "pop")
            and not _directive_is(items[start - 1] if start else None, "cfi_remember")):
        raise TemplateError(f"{function}: an epilogue without .cfi_remember before it (code "
                            "after its ret would unwind with the caller's frame)")
    if allocation:
        expected += [("add", allocation), ("cfi_adjust", str(-allocation))]
    for register in reversed(pushed):
        expected += [("pop", register), ("cfi_pop", register)]
    expected.append(("ret", None))
    if frame:
        expected.append(("cfi_restore", None))
    for what, argument in expected:
        s = items[position] if position < len(items) else None
        if what == "add":
            ok = (isinstance(s, Instr) and s.mnemonic == "add" and _writes_rsp(s)
                  and isinstance(s.operands[1], Imm) and s.operands[1].value == argument)
        elif what == "pop":
            ok = isinstance(s, Instr) and s.mnemonic == "pop" and s.operands[0].name == argument
        elif what == "ret":
            ok = isinstance(s, Instr) and s.mnemonic == "ret"
        else:
            ok = _directive_is(s, what, *(() if argument is None else (argument,)))
        if not ok:
            text = _stack_change_text(s) if s is not None else None
            if text is None and isinstance(s, Instr):
                text = s.mnemonic
            raise TemplateError(
                f"{function}: '{text or 'end of function'}' where the epilogue needs "
                f"'{what}{' ' + argument if isinstance(argument, str) else ''}' "
                f"{'' if what == 'ret' else '(release the whole frame, pop in reverse order)'}; "
                "rsp moves only in the ABI's prologue and epilogue (use a stack slot)")
        position += 1
    return position


def check_stack_changes(statements):
    """rsp moves only in a function's prologue (pushes, stack-argument loads, one frame
    allocation, xmm saves) and in its epilogues (one release, the pops in reverse, ret),
    both written by abi.Function and each step with its CFI directive: the body
    addresses one fixed frame, so the DWARF CFI and the Win64 unwind codes (which can
    describe nothing else) are right by construction.  A mid-body push or pop is
    refused; a value that must outlive the registers goes into a stack slot the
    function reserves (Function.reserve_slots)."""
    items = [s for s in statements if isinstance(s, (Instr, Label, Directive))]
    function, pushed, allocation, position = None, [], 0, 0
    while position < len(items):
        s = items[position]
        if isinstance(s, Directive) and s.name == "function":
            function = s.args[0]
        elif isinstance(s, Directive) and s.name == "endfunction":
            function = None
        if isinstance(s, Instr) and s.mnemonic == "endbr64" and function:
            pushed, allocation, position = _prologue(items, position, function)
            continue
        if isinstance(s, Directive) and s.name in ("cfi_remember", "cfi_restore"):
            following = items[position + 1] if position + 1 < len(items) else None
            if not (s.name == "cfi_remember" and isinstance(following, Instr)
                    and following.mnemonic in ("add", "pop")):
                raise TemplateError(f"{function}: .{s.name} outside an epilogue (the ABI's "
                                    "epilogue places the pair)")
        text = _stack_change_text(s)
        if text is not None:
            if function is None:
                raise TemplateError(f"'{text}' moves the stack outside any function")
            position = _epilogue(items, position, function, pushed, allocation)
            continue
        if isinstance(s, Instr) and s.mnemonic == "ret" and function:
            position = _epilogue(items, position, function, pushed, allocation)
            continue
        position += 1


def check_mca_markers(statements):
    open_name, seen = None, set()
    for s in statements:
        if isinstance(s, Directive) and s.name == "mca_begin":
            if open_name:
                raise TemplateError(f"LLVM-MCA region {s.args[0]} inside {open_name}")
            if s.args[0] in seen:
                raise TemplateError(f"LLVM-MCA region {s.args[0]} named twice")
            open_name = s.args[0]
            seen.add(open_name)
        elif isinstance(s, Directive) and s.name == "mca_end":
            if not open_name:
                raise TemplateError("LLVM-MCA-END without BEGIN")
            open_name = None
    if open_name:
        raise TemplateError(f"LLVM-MCA region {open_name} never ends")
    if not seen:
        raise TemplateError("no LLVM-MCA region marks the main loop")


def check_callee_saved_vectors(statements, abi):
    """Every vector register the ABI keeps callee-saved (Win64: xmm6-xmm15) that a
    function touches is one its prologue saves (a .cfi_savexmm of that function)."""
    function, saved, used = None, set(), {}
    for s in statements + [Directive("function", ("",))]:
        if isinstance(s, Directive) and s.name in ("function", "endfunction"):
            for index, mnemonic in sorted(used.items()):
                if index not in saved:
                    raise TemplateError(
                        f"{function}: '{mnemonic}' uses xmm{index}, which the {abi.name} ABI "
                        "keeps callee-saved, and the prologue does not save it (add the "
                        "register's group to the function's plan)")
            function, saved, used = (s.args[0] if s.name == "function" else None), set(), {}
        elif isinstance(s, Directive) and s.name == "cfi_savexmm":
            saved.add(int(s.args[0][3:]))
        elif isinstance(s, Instr) and function:
            for reg in _registers(s):
                if reg.is_vector and reg.index in abi.callee_saved_vectors:
                    used.setdefault(reg.index, s.mnemonic)


def check_red_zone(statements, abi):
    """No memory operand below rsp beyond the ABI's red zone (Win64 has none: an
    exception or an APC may overwrite anything below rsp at any time)."""
    for s in statements:
        if isinstance(s, Instr):
            for op in s.operands:
                if isinstance(op, Mem) and op.base == "rsp" and op.disp < -abi.red_zone:
                    raise TemplateError(f"'{s.mnemonic}' addresses [rsp - {-op.disp}], below "
                                        f"the {abi.name} ABI's red zone of {abi.red_zone} bytes")


def lint(statements, isa, abi=None):
    if not isa.legacy_sse:
        check_no_legacy_sse(statements)
    check_isa_registers(statements, isa)
    check_twin_safe_moves(statements)
    check_move_sizes(statements)
    check_labels(statements)
    check_reachable(statements)
    # legacy-SSE code has no upper state to clear (and vzeroupper needs AVX)
    check_functions(statements, clear_upper=not isa.legacy_sse)
    check_stack_changes(statements)
    if abi is not None:
        check_callee_saved_vectors(statements, abi)
        check_red_zone(statements, abi)
    check_mca_markers(statements)
