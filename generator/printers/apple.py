# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""GNU as syntax for Mach-O (macOS): the AT&T printer with Apple's object-format rules.

The instructions are exactly the ELF flavour's; only names and directives differ:
- C symbols carry a leading underscore (`aesgen_x` is `_aesgen_x` to the linker);
- assembler-local labels start with `L` (Mach-O has no `.L` convention: such a name
  would become a symbol and split the function into atoms);
- a hidden global is `.private_extern`; there is no `.type`, `.size` or ELF note
  (no `.note.GNU-stack`, no `.note.gnu.property`: Mach-O marks neither that way);
- read-only data goes to `__TEXT,__const`.
CFI stays: Apple's assembler turns it into the unwind tables (__eh_frame / compact unwind).
"""

from .att import AttPrinter
from .base import INDENT


class AppleAttPrinter(AttPrinter):
    def label_name(self, name):
        if self.is_local(name):
            return "L" + name[2:]
        return "_" + super().label_name(name)

    def directive_rodata(self):
        self.section = "rodata"
        return [INDENT + ".section __TEXT,__const"]

    def directive_function(self, name):
        symbol = self.label_name(name)
        return [f"{INDENT}.globl\t{symbol}", f"{INDENT}.private_extern\t{symbol}"]

    def directive_endfunction(self, name):
        self.aliases = []
        return []

    def directive_notes(self):
        return []
