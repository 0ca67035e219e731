# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""NASM syntax for PE/COFF (Windows x64, `nasm -f win64`): the NASM printer with the
object-format rules of Windows and the SEH unwind tables.

The instructions are the ELF NASM flavour's, generated for the Win64 ABI (abi.WIN64);
only directives differ:
- `global name` (COFF has no symbol type or visibility; the linker decides exports);
- read-only data in `.rdata`, code and data sections aligned to 64 so the alignment
  inside them holds after linking; no ELF notes;
- every function gets a RUNTIME_FUNCTION in `.pdata` (its start, end and unwind info as
  image-relative addresses) and an UNWIND_INFO in `.xdata` whose unwind codes replay the
  prologue backwards: UWOP_PUSH_NONVOL per push, UWOP_ALLOC_SMALL/LARGE for the frame,
  UWOP_SAVE_XMM128 per saved xmm register.  Each code's offset is a label the printer
  puts right after the prologue instruction its `.cfi_*` directive follows, so NASM
  computes it.  Epilogues need no codes: Windows recognizes `add rsp, N; pop ...; ret`
  (the only epilogue shape abi.Function writes and lint.check_stack_changes allows).
"""

from ..errors import TemplateError
from .base import INDENT
from .nasm import NasmPrinter

# The x64 register numbers unwind codes use.
GPR_NUMBER = {name: number for number, name in enumerate(
    ("rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
     "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"))}

UNWIND_VERSION = 1
UWOP_PUSH_NONVOL, UWOP_ALLOC_LARGE, UWOP_ALLOC_SMALL, UWOP_SAVE_XMM128 = 0, 1, 2, 8


class Win64NasmPrinter(NasmPrinter):
    def __init__(self, symbol_prefix: str = ""):
        super().__init__(symbol_prefix)
        self.functions = []         # [(name, [(label, op, argument)])] in file order
        self.current = None

    def render(self, header_lines, statements) -> str:
        # gen/'s twin note is about the ELF files; this flavour has none.
        header_lines = [line if not line.startswith("The GNU as (.S) and NASM (.asm) twins")
                        else "The Windows x64 flavour (Win64 ABI, SEH unwind tables) for "
                             "nasm -f win64; gen/ holds the ELF twins."
                        for line in header_lines]
        text = super().render(header_lines, statements)
        return text + "\n".join(self.unwind_tables()) + "\n"

    def directive_text(self):
        self.section = "text"
        return [INDENT + "section .text code align=64"]

    def directive_rodata(self):
        self.section = "rodata"
        return [INDENT + "section .rdata rdata align=64"]

    def directive_function(self, name):
        # the symbol as label_name prints it (the function's label and every table entry)
        symbol = self.label_name(name)
        self.current = (symbol, [])
        self.functions.append(self.current)
        return [f"{INDENT}global {symbol}"]

    def directive_alias(self, name):
        # the same code and unwind table as the function it names a second time
        return [f"{INDENT}global {self.label_name(name)}"]

    def directive_endfunction(self, name):
        return []           # COFF symbols carry no size (the .pdata entry bounds the code)

    def _mark(self, op, argument):
        """A label just after the prologue instruction that did op (its code offset)."""
        if self.current is None:
            raise TemplateError(f"unwind operation {op} outside a function")
        name, codes = self.current
        label = f"L.seh_{name}_{len(codes)}"
        codes.append((label, op, argument))
        return [f"{label}:"]

    def directive_cfi_startproc(self):
        return []

    def directive_cfi_push(self, reg):
        return self._mark(UWOP_PUSH_NONVOL, GPR_NUMBER[reg])

    def directive_cfi_adjust(self, amount):
        amount = int(amount)
        return self._mark(UWOP_ALLOC_SMALL, amount) if amount > 0 else []

    def directive_cfi_savexmm(self, reg, offset):
        return self._mark(UWOP_SAVE_XMM128, (int(reg[3:]), int(offset)))

    def directive_cfi_pop(self, reg):
        return []

    def directive_cfi_remember(self):
        return []           # epilogues need no codes (above)

    def directive_cfi_restore(self):
        return []

    def directive_cfi_endproc(self):
        if self.current is None:
            raise TemplateError("function end outside a function")
        label = f"L.seh_{self.current[0]}_end"
        self.current = None
        return [f"{label}:"]

    def directive_notes(self):
        return []

    @staticmethod
    def _codes(name, label, op, argument):
        """The UNWIND_CODE slots of one prologue operation: (offset byte, op byte) and
        any 16-bit slots of its argument."""
        offset = f"{label} - {name}"
        if op == UWOP_PUSH_NONVOL:
            return [f"db {offset}, {op | argument << 4}"]
        if op == UWOP_ALLOC_SMALL:
            if argument % 8:
                raise TemplateError(f"{name}: stack allocation {argument} is not a multiple of 8")
            if argument <= 128:
                return [f"db {offset}, {UWOP_ALLOC_SMALL | (argument - 8) // 8 << 4}"]
            if argument <= 8 * 0xffff:
                return [f"db {offset}, {UWOP_ALLOC_LARGE}", f"dw {argument // 8}"]
            raise TemplateError(f"{name}: stack allocation {argument} too large")
        if op == UWOP_SAVE_XMM128:
            register, save_offset = argument
            if save_offset % 16:
                raise TemplateError(f"{name}: xmm{register} saved at an unaligned offset")
            return [f"db {offset}, {UWOP_SAVE_XMM128 | register << 4}",
                    f"dw {save_offset // 16}"]
        raise TemplateError(f"{name}: unknown unwind operation {op}")

    def unwind_tables(self):
        lines = ["", "; Windows x64 unwind data: per function, the prologue's operations in "
                 "reverse order", "; (.xdata) and its address range (.pdata).",
                 INDENT + "section .xdata rdata align=8"]
        for name, codes in self.functions:
            slots = []
            for label, op, argument in reversed(codes):
                slots += self._codes(name, label, op, argument)
            prologue_end = f"{codes[-1][0]} - {name}" if codes else "0"
            lines += [f"L.seh_{name}_info:",
                      f"{INDENT}db {UNWIND_VERSION}, {prologue_end}, {len(slots)}, 0"
                      "\t\t; version 1 no flags, prologue size, code slots, no frame register"]
            lines += [INDENT + slot for slot in slots]
            if len(slots) % 2:
                lines.append(INDENT + "dw 0\t\t\t\t; pads the codes to a whole number of dwords")
        lines += ["", INDENT + "section .pdata rdata align=4"]
        for name, _codes in self.functions:
            lines.append(f"{INDENT}dd {name} wrt ..imagebase, L.seh_{name}_end wrt ..imagebase, "
                         f"L.seh_{name}_info wrt ..imagebase")
        return lines
