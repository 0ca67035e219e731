# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""GNU as, AT&T syntax (.S files, assembled through the C preprocessor)."""

from ..errors import TemplateError
from ..model import Imm, LabelRef, Mem, Reg
from .base import (GNU_PROPERTY_DESC, GNU_PROPERTY_WORDS, INDENT, Printer, log2_exact)

# First words that would make the C preprocessor take a '#' comment line as a directive.
CPP_DIRECTIVES = {"if", "ifdef", "ifndef", "elif", "else", "endif", "define", "undef",
                  "include", "include_next", "line", "error", "warning", "pragma", "import",
                  "ident", "sccs", "assert", "unassert", "elifdef", "elifndef", "embed"}

SUFFIX = {1: "b", 2: "w", 4: "l", 8: "q"}


class AttPrinter(Printer):
    comment_prefix = "#"

    def __init__(self, symbol_prefix: str = ""):
        super().__init__(symbol_prefix)
        self.aliases = []       # the second names of the function being printed (.size)

    def comment(self, text):
        words = text.split()
        if words and words[0].lower() in CPP_DIRECTIVES:
            raise TemplateError(f"comment line would be a C preprocessor directive: # {text}")
        return super().comment(text)

    # Operands -------------------------------------------------------------------------
    def operand(self, op):
        if isinstance(op, Reg):
            text = "%" + op.name
            if op.mask:
                text += "{%" + op.mask + "}"
            if op.zeroing:
                text += "{z}"
            return text
        if isinstance(op, Imm):
            return f"${op.value}"
        if isinstance(op, LabelRef):
            return self.label_name(op.name)
        if isinstance(op, Mem):
            return self.memory(op)
        raise TemplateError(f"unknown operand {op!r}")

    def memory(self, mem: Mem):
        if mem.symbol:
            symbol = self.label_name(mem.symbol)
            disp = f"{symbol}{mem.disp:+d}" if mem.disp else symbol
            text = f"{disp}(%rip)"
        else:
            inner = f"%{mem.base}" if mem.base else ""
            if mem.index:
                inner += f",%{mem.index},{mem.scale}"
            text = (str(mem.disp) if mem.disp else "") + f"({inner})"
        if mem.broadcast:
            text += f"{{1to{mem.broadcast}}}"
        if mem.mask:
            text += "{%" + mem.mask + "}"
        return text

    # Instructions ---------------------------------------------------------------------
    def mnemonic(self, instr):
        name = instr.mnemonic
        ops = instr.operands
        if name in ("movzx", "movsx"):
            src, dst = ops[1], ops[0]
            if not isinstance(src, (Mem, Reg)) or not isinstance(dst, Reg):
                raise TemplateError(f"{name} needs register destination: {instr}")
            return f"{name[:4]}{SUFFIX[src.size]}{SUFFIX[dst.size]}"
        has_gpr = any(isinstance(op, Reg) and op.kind == "gpr" for op in ops)
        sized_mem = [op for op in ops if isinstance(op, Mem) and op.size]
        has_vector = any(isinstance(op, Reg) and op.is_vector for op in ops)
        if sized_mem and not has_gpr and not has_vector and name[0] not in "vk":
            return name + SUFFIX[sized_mem[0].size]
        return name

    def instruction(self, instr):
        operands = ", ".join(self.operand(op) for op in reversed(instr.operands))
        name = self.mnemonic(instr)
        if self.is_forward_jump(instr):
            name = "{disp32} " + name
        return f"{name:<15} {operands}".rstrip() if operands else name

    # Directives -----------------------------------------------------------------------
    def directive_text(self):
        self.section = "text"
        return [INDENT + ".text"]

    def directive_rodata(self):
        self.section = "rodata"
        return [INDENT + ".section .rodata"]

    def directive_function(self, name):
        name = self.label_name(name)
        return [f"{INDENT}.globl\t{name}", f"{INDENT}.hidden\t{name}",
                f"{INDENT}.type\t{name}, @function"]

    def directive_alias(self, name):
        self.aliases.append(name)
        return self.directive_function(name)

    def directive_endfunction(self, name):
        names = [self.label_name(n) for n in [name] + self.aliases]
        self.aliases = []
        return [f"{INDENT}.size\t{n}, . - {n}" for n in names]

    def directive_align(self, value):
        fill = ", 0xcc" if self.section == "text" else ""
        return [f"{INDENT}.p2align {log2_exact(value)}{fill}"]


    def directive_byte(self, *values):
        return self.data(".byte", values)

    def directive_long(self, *values):
        return self.data(".long", values)

    def directive_quad(self, *values):
        return self.data(".quad", values)

    def directive_mca_begin(self, name, _bytes_per_iteration):
        return [f"# LLVM-MCA-BEGIN {name}"]

    def directive_mca_end(self):
        return ["# LLVM-MCA-END"]

    def directive_cfi_startproc(self):
        return [INDENT + ".cfi_startproc"]

    def directive_cfi_endproc(self):
        return [INDENT + ".cfi_endproc"]

    def directive_cfi_push(self, reg):
        return [INDENT + ".cfi_adjust_cfa_offset 8", f"{INDENT}.cfi_rel_offset %{reg}, 0"]

    def directive_cfi_pop(self, reg):
        return [INDENT + ".cfi_adjust_cfa_offset -8", f"{INDENT}.cfi_restore %{reg}"]

    def directive_cfi_adjust(self, amount):
        return [f"{INDENT}.cfi_adjust_cfa_offset {amount}"]

    def directive_cfi_savexmm(self, reg, offset):
        return [f"{INDENT}.cfi_rel_offset %{reg}, {offset}"]

    def directive_cfi_remember(self):
        return [INDENT + ".cfi_remember_state"]

    def directive_cfi_restore(self):
        return [INDENT + ".cfi_restore_state"]

    def directive_xmm_only(self):
        return ["# only xmm registers were written on this path: no vzeroupper needed"]

    def directive_notes(self):
        words = ", ".join(str(w) for w in GNU_PROPERTY_WORDS)
        desc = ", ".join(hex(w) for w in GNU_PROPERTY_DESC)
        return [f'{INDENT}.section .note.GNU-stack,"",@progbits',
                f'{INDENT}.section .note.gnu.property,"a",@note',
                f"{INDENT}.p2align 3",
                f"{INDENT}.long\t{words}",
                f'{INDENT}.asciz\t"GNU"',
                f"{INDENT}.long\t{desc}"]
