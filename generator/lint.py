# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Passes over the parsed statements that reject code which must never be emitted."""

from .errors import TemplateError
from .features import instruction_features
from .model import Directive, Instr, Label, LabelRef, Mem, Reg

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
    for s in statements:
        if not isinstance(s, Instr):
            continue
        registers = list(_registers(s))
        for reg in registers:
            if reg.kind not in allowed_kinds:
                raise TemplateError(f"{reg.name} is not available on {isa.name}")
            if reg.is_vector and reg.index >= isa.vector_registers:
                raise TemplateError(f"{reg.name} is beyond the {isa.vector_registers} "
                                    f"registers of {isa.name}")
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


def check_functions(statements, clear_upper):
    """endbr64 first at every global entry; vzeroupper right before every ret."""
    functions = {s.args[0] for s in statements
                 if isinstance(s, Directive) and s.name == "function"}
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
            following = code[position + 1] if position + 1 < len(code) else None
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


PROLOGUE_CFI = {"cfi_push", "cfi_adjust"}
EPILOGUE_CFI = {"cfi_pop", "cfi_adjust"}


def check_stack_changes(statements):
    """rsp moves only in a function's prologue (its pushes, stack-argument loads, frame)
    and in an epilogue (frame release, pops, ret), both written by abi.Function: the body
    addresses one fixed frame, so its CFI is right by construction.  A mid-body push or
    pop (and its .cfi_adjust) is refused; a value that must outlive the registers goes
    into a stack slot the function reserves (Function.reserve_slots)."""
    items = [s for s in statements if isinstance(s, (Instr, Label, Directive))]
    in_prologue = False
    for position, s in enumerate(items):
        if isinstance(s, Instr) and s.mnemonic == "endbr64":
            in_prologue = True
            continue
        if isinstance(s, Directive) and s.name in PROLOGUE_CFI | EPILOGUE_CFI:
            stack_change, text = True, f".{s.name} {' '.join(s.args)}"
        elif isinstance(s, Instr) and _writes_rsp(s):
            stack_change, text = True, s.mnemonic
        else:
            stack_change = False
        if in_prologue:
            loads_argument = (isinstance(s, Instr) and s.mnemonic == "mov"
                              and isinstance(s.operands[1], Mem)
                              and s.operands[1].base == "rsp")
            if (stack_change and (not isinstance(s, Instr) or s.mnemonic in ("push", "sub"))
                    and not (isinstance(s, Directive) and s.name == "cfi_pop")) \
                    or loads_argument:
                continue
            in_prologue = False
        if not stack_change:
            continue
        # an epilogue: from here to the ret only frame release, pops and their CFI
        for later in items[position:]:
            if isinstance(later, Instr) and later.mnemonic == "ret":
                break
            if isinstance(later, Directive) and later.name in EPILOGUE_CFI:
                continue
            if isinstance(later, Instr) and later.mnemonic in ("pop", "add") \
                    and _writes_rsp(later):
                continue
            raise TemplateError(f"'{text}' moves the stack in a function body; only the "
                                "ABI's prologue and epilogue may (use a stack slot)")
        else:
            raise TemplateError(f"'{text}' moves the stack outside any function")


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


def lint(statements, isa):
    if not isa.legacy_sse:
        check_no_legacy_sse(statements)
    check_isa_registers(statements, isa)
    check_twin_safe_moves(statements)
    check_labels(statements)
    # legacy-SSE code has no upper state to clear (and vzeroupper needs AVX)
    check_functions(statements, clear_upper=not isa.legacy_sse)
    check_stack_changes(statements)
    check_mca_markers(statements)
