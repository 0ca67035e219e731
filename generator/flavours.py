# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Target operating systems: which ABI and which printer make one OS's assembly file.

gen/ holds the Linux flavour (ELF, System V; the .S and .asm twins).  Vendoring writes one
file per OS from the same plan and model: only the calling convention and the object-format
directives differ, never the instruction choice.  Each fact about an OS lives here once.
"""

from dataclasses import dataclass

from .errors import UsageError
from .printers.apple import AppleAttPrinter
from .printers.att import AttPrinter
from .printers.win64 import Win64NasmPrinter


@dataclass(frozen=True)
class Flavour:
    os: str             # the --os name
    abi: str            # generator/abi.py name of its calling convention
    syntax: str         # "S" (GNU as) or "asm" (NASM): the file's assembler
    printer: type       # generator/printers class
    summary: str


FLAVOURS = {
    "linux": Flavour("linux", "sysv", "S", AttPrinter,
                     "ELF, System V ABI, GNU as (also clang)"),
    "apple": Flavour("apple", "sysv", "S", AppleAttPrinter,
                     "Mach-O, System V ABI, clang -target x86_64-apple-macos"),
    "win": Flavour("win", "win64", "asm", Win64NasmPrinter,
                   "PE/COFF, Win64 ABI, nasm -f win64"),
}


def get_flavour(name: str) -> Flavour:
    try:
        return FLAVOURS[name]
    except KeyError:
        raise UsageError(f"unknown OS '{name}'; valid: {', '.join(FLAVOURS)}") from None
