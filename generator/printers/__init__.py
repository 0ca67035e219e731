# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Printers turn the instruction model into one assembler's syntax."""

from .att import AttPrinter
from .nasm import NasmPrinter

PRINTERS = {"S": AttPrinter, "asm": NasmPrinter}
