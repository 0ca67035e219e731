# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Parser for the neutral assembly the templates produce.

The neutral syntax is Intel operand order (destination first) with NASM-like memory
operands, so templates read like hand-written assembly:

    vaesenc   zmm0, zmm0, zmm16            # trailing comments start with '#'
    vmovdqu8  zmm1{k1}{z}, [rsi + 64]
    vmovdqu8  [rdi + rcx*1 + 64]{k1}, zmm1
    vpshufb   zmm0, zmm0, [rip + .Lbswap_mask]
    mov       qword [rsp + 8], 0
    .Lloop:                                # labels end with ':'
    .directive arg, arg                    # see DIRECTIVES

Every line becomes one model statement; anything unknown is a TemplateError naming the line.
"""

import re
from typing import List

from .errors import TemplateError
from .model import (GPR8, GPR16, GPR32, GPR64, SIZE_NAMES, Blank, Comment, Directive,
                    Imm, Instr, Label, LabelRef, Mem, Reg, Statement)

# Directive name -> (minimum, maximum) argument count.
DIRECTIVES = {
    "text": (0, 0),             # switch to the code section
    "rodata": (0, 0),           # switch to the read-only data section
    "function": (1, 1),         # start a global (hidden) function: alignment, symbol, endbr64
    "alias": (1, 1),            # a second name of the function being defined (its label follows)
    "endfunction": (1, 1),      # end it (symbol size)
    "align": (1, 1),            # align data or function starts (padding never executed)
    "byte": (1, 64),
    "long": (1, 64),
    "quad": (1, 64),
    "mca_begin": (2, 2),        # LLVM-MCA-BEGIN <name>; bytes per iteration (the manifest's)
    "mca_end": (0, 0),          # LLVM-MCA-END
    "cfi_startproc": (0, 0),
    "cfi_endproc": (0, 0),
    "cfi_push": (1, 1),         # a register was pushed: CFA moves by 8, register saved there
    "cfi_pop": (1, 1),          # the register was popped
    "cfi_adjust": (1, 1),       # rsp changed by N bytes (positive: allocated)
    "cfi_savexmm": (2, 2),      # xmmN was stored at [rsp + offset] (Win64 callee-saved)
    "cfi_remember": (0, 0),     # an epilogue starts: keep the body's CFI rows ...
    "cfi_restore": (0, 0),      # ... and take them back after its ret (code may follow)
    "notes": (0, 0),            # .note.GNU-stack and .note.gnu.property (IBT, SHSTK)
    "xmm_only": (0, 0),         # the path to the next ret wrote no ymm/zmm register
}

_REGISTERS = {}


def _register_table():
    if _REGISTERS:
        return _REGISTERS
    for size, names in ((8, GPR64), (4, GPR32), (2, GPR16), (1, GPR8)):
        for index, name in enumerate(names):
            _REGISTERS[name] = Reg(name, "gpr", size, index)
    for kind, size in (("xmm", 16), ("ymm", 32), ("zmm", 64)):
        for index in range(32):
            _REGISTERS[f"{kind}{index}"] = Reg(f"{kind}{index}", kind, size, index)
    for index in range(8):
        _REGISTERS[f"k{index}"] = Reg(f"k{index}", "k", 8, index)
    return _REGISTERS


def lookup_register(name: str):
    return _register_table().get(name.lower())


_DECORATION = re.compile(r"\{(k[1-7]|z|1to\d+)\}")
_NUMBER = re.compile(r"^-?(0x[0-9a-fA-F]+|\d+)$")
_LABEL_NAME = re.compile(r"^[A-Za-z_.][A-Za-z0-9_.$]*$")


def _parse_int(text: str) -> int:
    return int(text, 0)


def _split_decorations(text: str):
    """'zmm1{k2}{z}' -> ('zmm1', 'k2', True, None)."""
    mask, zeroing, broadcast = None, False, None
    for token in _DECORATION.findall(text):
        if token == "z":
            zeroing = True
        elif token.startswith("1to"):
            broadcast = int(token[3:])
        else:
            mask = token
    return _DECORATION.sub("", text).strip(), mask, zeroing, broadcast


def _parse_memory(body: str, size, mask, zeroing, broadcast, line: str) -> Mem:
    base = index = symbol = None
    scale, disp = 1, 0
    # Tokenize into signed terms.
    terms = re.findall(r"([+-]?)\s*([^+-]+)", body.replace(" ", ""))
    for sign, term in terms:
        term = term.strip()
        if "*" in term:
            reg_name, factor = term.split("*", 1)
            if lookup_register(reg_name) is None or sign == "-":
                raise TemplateError(f"bad index term '{term}' in: {line}")
            index, scale = reg_name, _parse_int(factor)
        elif lookup_register(term) is not None:
            if term == "rip":
                raise TemplateError(f"unexpected rip in: {line}")
            if base is None:
                base = term
            elif index is None:
                index = term
            else:
                raise TemplateError(f"too many registers in memory operand: {line}")
        elif term == "rip":
            base = "rip"
        elif _NUMBER.match(term):
            value = _parse_int(term)
            disp += -value if sign == "-" else value
        elif _LABEL_NAME.match(term):
            if symbol is not None:
                raise TemplateError(f"two symbols in memory operand: {line}")
            symbol = term
        else:
            raise TemplateError(f"cannot parse memory term '{term}' in: {line}")
    if base == "rip":
        if symbol is None or index is not None:
            raise TemplateError(f"rip-relative operand needs exactly a symbol: {line}")
        base = None
    elif symbol is not None:
        raise TemplateError(f"symbols are only allowed rip-relative: {line}")
    if scale not in (1, 2, 4, 8):
        raise TemplateError(f"bad scale {scale} in: {line}")
    return Mem(base=base, index=index, scale=scale, disp=disp, symbol=symbol, size=size,
               broadcast=broadcast, mask=mask, zeroing=zeroing)


def parse_operand(text: str, line: str):
    text, mask, zeroing, broadcast = _split_decorations(text.strip())
    size = None
    words = text.split(None, 1)
    if len(words) == 2 and words[0].lower() in SIZE_NAMES:
        size = SIZE_NAMES[words[0].lower()]
        text = words[1].strip()
    if text.startswith("["):
        if not text.endswith("]"):
            raise TemplateError(f"unterminated memory operand in: {line}")
        return _parse_memory(text[1:-1], size, mask, zeroing, broadcast, line)
    if size is not None or broadcast is not None:
        raise TemplateError(f"size or broadcast on a non-memory operand: {line}")
    reg = lookup_register(text)
    if reg is not None:
        if mask or zeroing:
            return Reg(reg.name, reg.kind, reg.size, reg.index, mask=mask, zeroing=zeroing)
        return reg
    if mask or zeroing:
        raise TemplateError(f"mask on a non-register operand: {line}")
    if _NUMBER.match(text):
        return Imm(_parse_int(text))
    if _LABEL_NAME.match(text):
        return LabelRef(text)
    raise TemplateError(f"cannot parse operand '{text}' in: {line}")


def split_operands(text: str) -> List[str]:
    """Split on commas that are not inside brackets, braces or parentheses: the neutral
    syntax's operands, and those of AT&T text or a disassembly (the tests read both)."""
    parts, depth, current = [], 0, []
    for char in text:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if current:
        parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _parse_directive(text: str, line: str) -> Directive:
    name, _, rest = text[1:].partition(" ")
    if name not in DIRECTIVES:
        raise TemplateError(f"unknown directive .{name} in: {line}; known: "
                            + ", ".join("." + d for d in sorted(DIRECTIVES)))
    args = tuple(a.strip() for a in rest.split(",") if a.strip())
    low, high = DIRECTIVES[name]
    if not low <= len(args) <= high:
        raise TemplateError(f".{name} takes {low}..{high} arguments: {line}")
    return Directive(name, args)


def parse_line(raw: str) -> Statement:
    line = raw.strip()
    if not line:
        return Blank()
    if line.startswith("#"):
        text = line[1:]
        return Comment((text[1:] if text.startswith(" ") else text).rstrip())
    code, _, comment = line.partition("#")
    code, comment = code.strip(), comment.strip()
    if code.endswith(":") and " " not in code:
        if comment:
            raise TemplateError(f"put the comment on its own line: {line}")
        return Label(code[:-1])
    if code.startswith("."):
        return _parse_directive(code, line)
    mnemonic, _, rest = code.partition(" ")
    operands = tuple(parse_operand(op, line) for op in split_operands(rest))
    return Instr(mnemonic.lower(), operands, comment)


def parse(text: str) -> List[Statement]:
    # a GCM file repeats each distinct line about six times: each is parsed once (the
    # statements are frozen, so one object may stand for every copy)
    statements, seen = [], {}
    for number, raw in enumerate(text.splitlines(), 1):
        statement = seen.get(raw)
        if statement is None:
            try:
                statement = seen[raw] = parse_line(raw)
            except TemplateError as error:
                raise TemplateError(f"line {number}: {error}") from None
        statements.append(statement)
    return _squeeze_blanks(statements)


def _squeeze_blanks(statements):
    """Templates leave runs of blank lines behind their control blocks; keep one."""
    result = []
    for statement in statements:
        if isinstance(statement, Blank) and (not result or isinstance(result[-1], Blank)):
            continue
        result.append(statement)
    while result and isinstance(result[-1], Blank):
        result.pop()
    return result
