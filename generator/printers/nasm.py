# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""NASM syntax (.asm files), for ELF (`nasm -f elf64`).

NASM has no CFI directives, so this printer writes the unwind table GNU as makes from
them itself: each `.cfi_*` directive of abi.Function becomes a label where GNU as would
record it (after the instruction it follows) and DWARF call-frame instructions, and the
file ends with an `.eh_frame` section, one CIE and an FDE per function whose rows are
GNU as's (the twin test compares them row by row).  NASM computes the distances between
the labels (DW_CFA_advance_loc4) and the FDE's pc-relative start; the CFA offsets are
known here and written as bytes.
"""

from ..errors import TemplateError
from ..model import Imm, LabelRef, Mem, Reg
from .base import (GNU_PROPERTY_DESC, GNU_PROPERTY_WORDS, INDENT, Printer, log2_exact)

SIZE_KEYWORD = {1: "byte", 2: "word", 4: "dword", 8: "qword", 16: "oword", 32: "yword",
                64: "zword"}

# DWARF register numbers of x86-64 (System V psABI, "DWARF Register Number Mapping").
DWARF_REGISTER = {name: number for number, name in enumerate(
    ("rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
     "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"))}
DWARF_REGISTER.update({f"xmm{n}": 17 + n for n in range(16)})

# Call-frame instructions (DWARF 4, section 6.4.2) and the CIE's factors: code offsets
# in bytes, data offsets in units of -8 (every save here is 8-byte aligned below the CFA).
DW_CFA_advance_loc4, DW_CFA_remember_state, DW_CFA_restore_state = 0x04, 0x0a, 0x0b
DW_CFA_def_cfa, DW_CFA_def_cfa_offset = 0x0c, 0x0e
DW_CFA_offset, DW_CFA_restore = 0x80, 0xc0
DATA_ALIGNMENT = -8
DW_EH_PE_pcrel_sdata4 = 0x1b


def uleb128(value: int):
    if value < 0:
        raise ValueError(f"uleb128 of {value}: not unsigned")
    out = []
    while True:
        byte, value = value & 0x7f, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return out


def low_register(reg: str) -> int:
    """reg's DWARF number, for the forms that carry it in an opcode's low 6 bits."""
    number = DWARF_REGISTER[reg]
    if number >= 64:
        raise TemplateError(f"{reg} (DWARF {number}) does not fit DW_CFA_offset/_restore")
    return number


class FrameTable:
    """One function's CFI as NASM lines: the labels in the code and the FDE's rows."""

    def __init__(self, number: int):
        self.number = number
        self.start = f"L.cfi.{number}.start"
        self.end = f"L.cfi.{number}.end"
        self.cfa_offset = 8          # the return address: rsp + 8 at the entry
        self.remembered_cfa_offsets = []   # .cfi_remember's stack
        self.steps = []              # (label, [instruction bytes], the row) in code order

    def step(self, ops, what: str):
        """A label here in the code, and the call-frame instructions that apply from it
        (what: the row they make, for the table's comment)."""
        label = f"L.cfi.{self.number}.{len(self.steps)}"
        self.steps.append((label, ops, what))
        return [f"{label}:"]

    def adjust(self, amount: int):
        self.cfa_offset += amount
        if self.cfa_offset < 8:
            raise TemplateError(f".cfi_adjust {amount} puts the CFA at rsp + {self.cfa_offset}, "
                                "below the return address (rsp + 8 at the entry)")
        return [DW_CFA_def_cfa_offset] + uleb128(self.cfa_offset)

    def saved_at(self, reg: str, rsp_offset: int):
        """reg's value is stored at rsp + rsp_offset, i.e. CFA - (cfa_offset - rsp_offset)."""
        below_cfa = self.cfa_offset - rsp_offset
        if below_cfa <= 0 or below_cfa % -DATA_ALIGNMENT:
            raise TemplateError(f"{reg} saved {below_cfa} bytes below the CFA: not a "
                                f"multiple of {-DATA_ALIGNMENT} above 0")
        return [DW_CFA_offset | low_register(reg)] + uleb128(below_cfa // -DATA_ALIGNMENT)

    def fde(self, cie: str):
        body = [f"L.fde.{self.number}:",
                f"{INDENT}dd L.fde.{self.number}.end - L.fde.{self.number} - 4"
                "\t; length",
                f"{INDENT}dd $ - {cie}\t\t\t; the CIE, this far back",
                f"{INDENT}dd {self.start} - $\t\t; the code's start (pc-relative)",
                f"{INDENT}dd {self.end} - {self.start}\t; the code's length",
                f"{INDENT}db 0\t\t\t\t; no augmentation data"]
        previous = self.start
        for label, ops, what in self.steps:
            body.append(f"{INDENT}db {DW_CFA_advance_loc4:#04x}\t\t\t\t; advance to {label}")
            body.append(f"{INDENT}dd {label} - {previous}")
            body.append(f"{INDENT}db " + ", ".join(f"{op:#04x}" for op in ops)
                        + f"\t\t; {what}")
            previous = label
        body += [f"{INDENT}align 8, db 0", f"L.fde.{self.number}.end:"]
        return body


class NasmPrinter(Printer):
    comment_prefix = ";"

    def __init__(self, symbol_prefix: str = ""):
        super().__init__(symbol_prefix)
        self.frames = []            # FrameTable per function, in file order
        self.frame = None           # the function between .cfi_startproc and _endproc

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

    # ---- CFI: labels in the code, the table at the end (see the module docstring) ----

    def _frame(self, directive):
        if self.frame is None:
            raise TemplateError(f".cfi_{directive} outside .cfi_startproc/.cfi_endproc")
        return self.frame

    def directive_cfi_startproc(self):
        if self.frame is not None:
            raise TemplateError(".cfi_startproc inside a function's CFI")
        self.frame = FrameTable(len(self.frames))
        self.frames.append(self.frame)
        return [f"{self.frame.start}:"]

    def directive_cfi_endproc(self):
        frame = self._frame("endproc")
        if frame.remembered_cfa_offsets:
            raise TemplateError(".cfi_endproc with a .cfi_remember never restored")
        self.frame = None
        return [f"{frame.end}:"]

    def directive_cfi_push(self, reg):
        frame = self._frame("push")
        ops = frame.adjust(8)
        return frame.step(ops + frame.saved_at(reg, 0),
                          f"CFA = rsp + {frame.cfa_offset}, {reg} at CFA - {frame.cfa_offset}")

    def directive_cfi_pop(self, reg):
        frame = self._frame("pop")
        ops = frame.adjust(-8) + [DW_CFA_restore | low_register(reg)]
        return frame.step(ops, f"CFA = rsp + {frame.cfa_offset}, {reg} the caller's")

    def directive_cfi_adjust(self, amount):
        frame = self._frame("adjust")
        ops = frame.adjust(int(amount))
        return frame.step(ops, f"CFA = rsp + {frame.cfa_offset}")

    def directive_cfi_savexmm(self, reg, offset):
        frame = self._frame("savexmm")
        below = frame.cfa_offset - int(offset)
        return frame.step(frame.saved_at(reg, int(offset)), f"{reg} at CFA - {below}")

    def directive_cfi_remember(self):
        frame = self._frame("remember")
        frame.remembered_cfa_offsets.append(frame.cfa_offset)
        return frame.step([DW_CFA_remember_state], "the body's row kept for after the ret")

    def directive_cfi_restore(self):
        frame = self._frame("restore")
        if not frame.remembered_cfa_offsets:
            raise TemplateError(".cfi_restore without a .cfi_remember")
        frame.cfa_offset = frame.remembered_cfa_offsets.pop()
        return frame.step([DW_CFA_restore_state], "the body's row again")

    def frame_tables(self):
        """The .eh_frame section: a CIE (CFA = rsp + 8, the return address just below
        it) and each function's FDE."""
        if not self.frames:
            return []
        lines = ["", "; Unwind table (.eh_frame) of the functions above, as GNU as writes it "
                 "from the .S twin's CFI directives.",
                 INDENT + "section .eh_frame progbits alloc noexec nowrite align=8",
                 "L.cie:",
                 f"{INDENT}dd L.cie.end - L.cie - 4\t\t; length",
                 f"{INDENT}dd 0\t\t\t\t; CIE id",
                 f"{INDENT}db 1, 'zR', 0\t\t\t; version, augmentation",
                 f"{INDENT}db 1, {DATA_ALIGNMENT & 0x7f:#04x}, {DWARF_REGISTER['rip']}"
                 f"\t\t; code alignment 1, data alignment {DATA_ALIGNMENT}, return "
                 "address column",
                 f"{INDENT}db 1, {DW_EH_PE_pcrel_sdata4:#04x}\t\t\t; FDE addresses: "
                 "pc-relative, 4 bytes",
                 f"{INDENT}db {DW_CFA_def_cfa:#04x}, {DWARF_REGISTER['rsp']}, 8\t\t; CFA = "
                 "rsp + 8",
                 f"{INDENT}db {DW_CFA_offset | DWARF_REGISTER['rip']:#04x}, 1\t\t; the "
                 "return address at CFA - 8",
                 f"{INDENT}align 8, db 0",
                 "L.cie.end:"]
        for frame in self.frames:
            lines += frame.fde("L.cie")
        return lines

    def render(self, header_lines, statements) -> str:
        return super().render(header_lines, statements) + "".join(
            line + "\n" for line in self.frame_tables())

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
