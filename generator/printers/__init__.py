# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Printers turn the instruction model into one assembler's syntax."""

from .att import AttPrinter
from .nasm import NasmPrinter

# The files of gen/: ELF twins, GNU as (.S) and NASM (.asm).
PRINTERS = {"S": AttPrinter, "asm": NasmPrinter}
