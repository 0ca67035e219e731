# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The instruction model: typed operands and statements shared by all printers.

Templates produce a neutral, Intel-ordered assembly text; parse.py turns it into these
objects and the printers render them as GNU as (AT&T) or NASM.
"""

from dataclasses import dataclass, field
from typing import Optional, Tuple, Union

GPR64 = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
         "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15")
GPR32 = ("eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "esp",
         "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d")
GPR16 = ("ax", "bx", "cx", "dx", "si", "di", "bp", "sp",
         "r8w", "r9w", "r10w", "r11w", "r12w", "r13w", "r14w", "r15w")
GPR8 = ("al", "bl", "cl", "dl", "sil", "dil", "bpl", "spl",
        "r8b", "r9b", "r10b", "r11b", "r12b", "r13b", "r14b", "r15b")

# Operand sizes in bytes, by the names both syntaxes use for memory operands.
SIZE_NAMES = {"byte": 1, "word": 2, "dword": 4, "qword": 8,
              "xmmword": 16, "ymmword": 32, "zmmword": 64}


@dataclass(frozen=True)
class Reg:
    """A register; `kind` is gpr, xmm, ymm, zmm or k; `size` in bytes."""
    name: str
    kind: str
    size: int
    index: int          # hardware number (0..31 for vectors, 0..15 for GPRs, 0..7 for k)
    mask: Optional[str] = None   # opmask applied to a destination, e.g. "k1"
    zeroing: bool = False

    @property
    def is_vector(self) -> bool:
        return self.kind in ("xmm", "ymm", "zmm")


@dataclass(frozen=True)
class Mem:
    """[base + index*scale + disp], or RIP-relative to `symbol`."""
    base: Optional[str] = None
    index: Optional[str] = None
    scale: int = 1
    disp: int = 0
    symbol: Optional[str] = None        # RIP-relative reference when set
    size: Optional[int] = None          # explicit operand size in bytes
    broadcast: Optional[int] = None     # EVEX embedded broadcast {1toN}
    mask: Optional[str] = None          # opmask for masked stores
    zeroing: bool = False


@dataclass(frozen=True)
class Imm:
    value: int


@dataclass(frozen=True)
class LabelRef:
    name: str


Operand = Union[Reg, Mem, Imm, LabelRef]


@dataclass(frozen=True)
class Instr:
    mnemonic: str
    operands: Tuple[Operand, ...]       # Intel order: destination first
    comment: str = ""


@dataclass(frozen=True)
class Label:
    name: str
    is_global: bool = False


@dataclass(frozen=True)
class Comment:
    text: str


@dataclass(frozen=True)
class Blank:
    pass


@dataclass(frozen=True)
class Directive:
    """A neutral directive.  Printers know each name; see parse.DIRECTIVES."""
    name: str
    args: Tuple[str, ...] = field(default_factory=tuple)


Statement = Union[Instr, Label, Comment, Blank, Directive]
