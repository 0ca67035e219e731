# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""NASM syntax (.asm files).  NASM has no CFI directives; unwind info is GNU as only."""

from ..errors import TemplateError
from ..model import Imm, LabelRef, Mem, Reg
from .base import (GNU_PROPERTY_DESC, GNU_PROPERTY_WORDS, INDENT, Printer, log2_exact)

SIZE_KEYWORD = {1: "byte", 2: "word", 4: "dword", 8: "qword", 16: "oword", 32: "yword",
                64: "zword"}


class NasmPrinter(Printer):
    comment_prefix = ";"

    def preamble(self):
        return ["", INDENT + "bits 64", INDENT + "default abs"]

    def label_name(self, name):
        # NASM scopes '.x' labels to the previous non-local label; ours are file-wide.
        return "L." + name[2:] if self.is_local(name) else super().label_name(name)

    def operand(self, op):
        if isinstance(op, Reg):
            text = op.name
            if op.mask:
                text += "{" + op.mask + "}"
            if op.zeroing:
                text += "{z}"
            return text
        if isinstance(op, Imm):
            return str(op.value)
        if isinstance(op, LabelRef):
            return self.label_name(op.name)
        if isinstance(op, Mem):
            return self.memory(op)
        raise TemplateError(f"unknown operand {op!r}")

    def memory(self, mem: Mem):
        if mem.symbol:
            inner = "rel " + self.label_name(mem.symbol)
        else:
            inner = mem.base or ""
            if mem.index:
                inner += (" + " if inner else "") + f"{mem.index}*{mem.scale}"
        if mem.disp:
            inner += f" {'+' if mem.disp > 0 else '-'} {abs(mem.disp)}"
        text = f"[{inner}]"
        if mem.size:
            text = f"{SIZE_KEYWORD[mem.size]} {text}"
        if mem.broadcast:
            text += f"{{1to{mem.broadcast}}}"
        if mem.mask:
            text += "{" + mem.mask + "}"
        return text

    def instruction(self, instr):
        operands = ", ".join(self.operand(op) for op in instr.operands)
        if self.is_forward_jump(instr):
            operands = "near " + operands
        return f"{instr.mnemonic:<15} {operands}".rstrip() if operands else instr.mnemonic

    def directive_text(self):
        self.section = "text"
        return [INDENT + "section .text"]

    def directive_rodata(self):
        self.section = "rodata"
        return [INDENT + "section .rodata align=64"]

    # ELF symbol sizes, as GNU as's .size gives them: each function (and a second name of
    # it) measured to a label at its end, which NASM lets the global directive name ahead.
    def _end_label(self, function):
        return f"L.{function}.end"

    def directive_function(self, name):
        self.function = self.label_name(name)
        return [f"{INDENT}global {self.function}:function hidden "
                f"({self._end_label(self.function)} - {self.function})"]

    def directive_alias(self, name):
        alias = self.label_name(name)
        return [f"{INDENT}global {alias}:function hidden "
                f"({self._end_label(self.function)} - {alias})"]

    def directive_endfunction(self, name):
        return [f"{self._end_label(self.label_name(name))}:"]

    def directive_align(self, value):
        log2_exact(value)
        fill = "db 0xcc" if self.section == "text" else "db 0"
        return [f"{INDENT}align {value}, {fill}"]


    def directive_byte(self, *values):
        return self.data("db", values)

    def directive_long(self, *values):
        return self.data("dd", values)

    def directive_quad(self, *values):
        return self.data("dq", values)

    def directive_mca_begin(self, name, _bytes_per_iteration):
        return [f"; LLVM-MCA-BEGIN {name}"]

    def directive_mca_end(self):
        return ["; LLVM-MCA-END"]

    def _no_cfi(self, *args):
        return []

    directive_cfi_startproc = directive_cfi_endproc = _no_cfi
    directive_cfi_push = directive_cfi_pop = directive_cfi_adjust = _no_cfi
    directive_cfi_savexmm = directive_cfi_remember = directive_cfi_restore = _no_cfi

    def directive_xmm_only(self):
        return ["; only xmm registers were written on this path: no vzeroupper needed"]

    def directive_notes(self):
        words = ", ".join(str(w) for w in GNU_PROPERTY_WORDS)
        desc = ", ".join(hex(w) for w in GNU_PROPERTY_DESC)
        return ["",
                f"{INDENT}section .note.GNU-stack noalloc noexec nowrite progbits",
                f"{INDENT}section .note.gnu.property note alloc noexec align=8",
                f"{INDENT}dd {words}",
                f"{INDENT}db 'GNU', 0",
                f"{INDENT}dd {desc}"]
