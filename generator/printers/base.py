# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""What both printers share: walking statements, sections, the ELF notes' contents."""

from ..errors import TemplateError
from ..model import Blank, Comment, Directive, Instr, Label, LabelRef

# NT_GNU_PROPERTY_TYPE_0 note: namesz, descsz, type, "GNU\0", then one property:
# GNU_PROPERTY_X86_FEATURE_1_AND with IBT (bit 0) and SHSTK (bit 1), padded to 8 bytes.
GNU_PROPERTY_WORDS = (4, 16, 5)
GNU_PROPERTY_DESC = (0xC0000002, 4, 3, 0)

INDENT = "\t"


def log2_exact(value: str) -> int:
    number = int(value, 0)
    if number <= 0 or number & (number - 1):
        raise TemplateError(f"alignment {value} is not a power of two")
    return number.bit_length() - 1


class Printer:
    """Subclasses implement the syntax; this class walks the statements."""

    comment_prefix = "#"

    def __init__(self, symbol_prefix: str = ""):
        """symbol_prefix goes before every global name (the functions; `.L` labels stay
        local): a vendored bundle built with `vendor --prefix P` names its entry points
        P<symbol>, so two copies link into one program."""
        self.section = None
        self.defined = set()    # labels already printed: jumps to them go backward
        self.symbol_prefix = symbol_prefix

    def render(self, header_lines, statements) -> str:
        lines = [f"{self.comment_prefix} {text}".rstrip() for text in header_lines]
        lines += self.preamble()
        for statement in statements:
            lines.extend(self.statement(statement))
        return "\n".join(lines) + "\n"

    def preamble(self):
        return []

    def statement(self, statement):
        if isinstance(statement, Blank):
            return [""]
        if isinstance(statement, Comment):
            return [self.comment(statement.text)]
        if isinstance(statement, Label):
            self.defined.add(statement.name)
            return [f"{self.label_name(statement.name)}:"]
        if isinstance(statement, Instr):
            text = INDENT + self.instruction(statement)
            if statement.comment:
                text = f"{text:<48} {self.comment_prefix} {statement.comment}"
            return [text]
        if isinstance(statement, Directive):
            handler = getattr(self, "directive_" + statement.name)
            return handler(*statement.args)
        raise TemplateError(f"cannot print {statement!r}")

    def comment(self, text):
        return f"{self.comment_prefix} {text}".rstrip()

    def is_local(self, name):
        return name.startswith(".L")

    def label_name(self, name):
        """The assembler's name of a label: a global one with the symbol prefix."""
        return name if self.is_local(name) else self.symbol_prefix + name

    def is_forward_jump(self, instr):
        """Forward jumps are always given a 32-bit displacement.  GNU as and NASM
        shrink them differently near the 128-byte boundary (NASM measures from the
        long form), so leaving the choice to them breaks the byte-identical twins.
        Backward jumps are exact in both and stay short when they fit."""
        return (instr.mnemonic.startswith("j") and len(instr.operands) == 1
                and isinstance(instr.operands[0], LabelRef)
                and instr.operands[0].name not in self.defined)

    def data(self, width_name, values):
        return [f"{INDENT}{width_name}\t" + ", ".join(values)]
