# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Calling conventions.  Templates name their arguments; the ABI decides where they live.

A template asks for a Function with named arguments and named scratch registers; the
Function hands out registers and writes the prologue and epilogue (endbr64, saves of
callee-saved registers with CFI, stack arguments, vzeroupper).  Win64 is another Abi
instance: its argument registers, its callee-saved rdi/rsi and xmm6-xmm15 (saved into the
frame with the prologue's `.cfi_savexmm`, which the Win64 printer turns into an unwind
code), the shadow space below the stack arguments; no template changes.

Both ABIs move rsp only in the prologue (pushes, then one allocation, then the xmm saves)
and in the epilogue (one release, the pops, ret): the shape Win64 unwind codes describe
and Windows' epilogue recognition expects (lint.check_stack_changes enforces it).
"""

from dataclasses import dataclass
from typing import Dict, List, Tuple

from .errors import TemplateError, UsageError
from .model import GPR8, GPR16, GPR32, GPR64


@dataclass(frozen=True)
class Abi:
    name: str
    argument_registers: Tuple[str, ...]
    caller_saved: Tuple[str, ...]       # scratch registers, free to clobber
    callee_saved: Tuple[str, ...]       # must be preserved: pushed when used
    first_stack_argument: int           # offset from rsp at entry of the first stack arg
    callee_saved_vectors: Tuple[int, ...] = ()   # xmm numbers whose low 128 bits survive
    red_zone: int = 0                   # bytes below rsp a leaf function may use


SYSV = Abi(
    name="sysv",
    argument_registers=("rdi", "rsi", "rdx", "rcx", "r8", "r9"),
    caller_saved=("rax", "r10", "r11", "r9", "r8", "rcx", "rdx", "rsi", "rdi"),
    callee_saved=("rbx", "rbp", "r12", "r13", "r14", "r15"),
    first_stack_argument=8,
    red_zone=128,
)

# Microsoft x64: four register arguments; the caller reserves 32 bytes of shadow space
# above the return address, so the fifth argument is at rsp + 40 at entry.  No red zone
# (the body never writes below rsp anyway).  xmm6-xmm15 are callee-saved (their low 128
# bits; the upper halves and zmm16-31, k0-k7 are volatile).
WIN64 = Abi(
    name="win64",
    argument_registers=("rcx", "rdx", "r8", "r9"),
    caller_saved=("rax", "r10", "r11", "r9", "r8", "rdx", "rcx"),
    callee_saved=("rsi", "rdi", "rbx", "rbp", "r12", "r13", "r14", "r15"),
    first_stack_argument=40,
    callee_saved_vectors=tuple(range(6, 16)),
)

ABIS = {SYSV.name: SYSV, WIN64.name: WIN64}


def get_abi(name: str) -> Abi:
    try:
        return ABIS[name]
    except KeyError:
        raise UsageError(f"unknown ABI '{name}'; valid: {', '.join(ABIS)}") from None


class Gpr:
    """A general-purpose register with its narrower views: str() is the 64-bit name."""

    def __init__(self, name64: str):
        index = GPR64.index(name64)
        self.q, self.d, self.w, self.b = GPR64[index], GPR32[index], GPR16[index], GPR8[index]

    def __str__(self):
        return self.q


class Function:
    """One generated function: its registers, prologue and epilogue."""

    def __init__(self, abi: Abi, name: str, args: List[str], temps: List[str],
                 clear_upper: bool, vector_registers=()):
        """vector_registers: the numbers of the vector registers the body may write (the
        plan's); those the ABI keeps callee-saved are saved in the prologue."""
        self.abi, self.name, self.clear_upper = abi, name, clear_upper
        # The saves of callee-saved xmm registers (Win64): VEX code saves with the VEX
        # move; legacy-SSE code (vperm_ssse3, which has no upper state to clear and runs
        # on CPUs without AVX) with the SSE one.
        self.vector_move = "vmovdqa" if clear_upper else "movdqa"
        self.saved_vectors = sorted(set(vector_registers) & set(abi.callee_saved_vectors))
        self.regs: Dict[str, Gpr] = {}
        self.aliases: Dict[str, Tuple[str, str]] = {}   # name -> (first name, when)
        self.saved: List[str] = []
        self.frame = 0          # bytes of stack the function reserves below its saves
        self.slots: Dict[str, int] = {}     # named 8-byte stack slots: name -> rsp offset
        self.stack_loads: List[Tuple[str, int]] = []
        pool = [r for r in abi.caller_saved if r not in abi.argument_registers[:len(args)]]
        pool += list(abi.callee_saved)
        for position, arg in enumerate(args):
            if position < len(abi.argument_registers):
                self._bind(arg, abi.argument_registers[position])
            else:
                offset = abi.first_stack_argument + 8 * (position - len(abi.argument_registers))
                self.stack_loads.append((self._take(arg, pool), offset))
        for temp in temps:
            self._take(temp, pool)

    def _bind(self, name, register):
        if name in self.regs:
            raise TemplateError(f"{self.name}: register name {name} used twice")
        self.regs[name] = Gpr(register)

    def _take(self, name, pool):
        if not pool:
            raise TemplateError(f"{self.name}: out of general-purpose registers at {name}")
        register = pool.pop(0)
        if register in self.abi.callee_saved:
            self.saved.append(register)
        self._bind(name, register)
        return register

    # The prologue moves rsp once.  A frame of a page or more could step over a guard
    # page (Windows commits its stack a page at a time behind one; Linux threads' guard
    # pages are one page), so the prologue then probes it: after the move (and the xmm
    # saves at the frame's top), one store a page below the entry rsp and one more each
    # page further down, the frame's pages touched from the top, each within a page of
    # one touched before (what Windows' __chkstk does, without the call).  MAX_FRAME
    # bounds what a template may ask.
    PAGE = 4096
    MAX_FRAME = 4 * PAGE

    def reserve_stack(self, size: int) -> str:
        """Scratch space at [rsp, rsp + size) for the function body (returns '')."""
        frame = (size + 15) // 16 * 16
        if frame > self.MAX_FRAME:
            raise TemplateError(f"{self.name}: a stack frame of {frame} bytes; at most "
                                f"{self.MAX_FRAME}")
        self.frame = frame
        return ""

    def reserve_slots(self, names) -> None:
        """Named 8-byte slots after the scratch space, for values a path of the body
        must keep while every register is busy.  The prologue reserves them with the
        rest of the frame, so the body never moves rsp (no push, pop or CFI there)."""
        base = self.frame
        for index, name in enumerate(names):
            self.slots[name] = base + 8 * index
        self.reserve_stack(base + 8 * len(names))

    def slot(self, name: str) -> str:
        """The memory operand of a named stack slot."""
        if name not in self.slots:
            raise TemplateError(f"{self.name}: no stack slot {name}; reserved: "
                                + (", ".join(self.slots) or "none"))
        offset = self.slots[name]
        return f"qword [rsp + {offset}]" if offset else "qword [rsp]"

    def slot_pairs(self) -> List[str]:
        """'NAME=[rsp + n]' for every named stack slot (for the register map)."""
        return [f"{name}=[rsp + {offset}]" for name, offset in self.slots.items()]

    def alias(self, name: str, existing: str, when: str = "") -> str:
        """A second name for a register whose first use is over (returns '' for templates).
        when: the point from which the register plays the new role (for the map)."""
        self.regs[name] = self.regs[existing]
        self.aliases[name] = (existing, when)
        return ""

    def __getattr__(self, item):
        regs = self.__dict__.get("regs", {})
        if item in regs:
            return regs[item]
        raise AttributeError(item)

    def register_pairs(self) -> List[str]:
        """'NAME=reg' for every general register, a second name marked with its first."""
        pairs = []
        for name, reg in self.regs.items():
            if name in self.aliases:
                existing, when = self.aliases[name]
                pairs.append(f"{name}={reg.q} ({existing}'s register{', ' + when if when else ''})")
            else:
                pairs.append(f"{name}={reg.q}")
        return pairs

    def _allocation(self) -> int:
        """Bytes the prologue subtracts from rsp: the body's frame, then the xmm save area,
        16-byte aligned (rsp is 8 mod 16 at entry, each push moves it by 8) so the saves
        can be aligned stores."""
        if not self.saved_vectors:
            return self.frame
        size = self.frame + 16 * len(self.saved_vectors)
        if (8 + 8 * len(self.saved) + size) % 16:
            size += 8
        return size

    def _vector_save_offset(self, index: int) -> int:
        return self.frame + 16 * self.saved_vectors.index(index)

    def prologue(self) -> str:
        lines = [".text", ".align 32", f".function {self.name}", f"{self.name}:",
                 ".cfi_startproc", "endbr64"]
        for register in self.saved:
            lines += [f"push {register}", f".cfi_push {register}"]
        pushed = 8 * len(self.saved)
        for register, offset in self.stack_loads:
            lines.append(f"mov {register}, qword [rsp + {offset + pushed}]")
        allocation = self._allocation()
        if allocation:
            lines += [f"sub rsp, {allocation}", f".cfi_adjust {allocation}"]
        for index in self.saved_vectors:
            offset = self._vector_save_offset(index)
            lines += [f"{self.vector_move} xmmword [rsp + {offset}], xmm{index}",
                      f".cfi_savexmm xmm{index}, {offset}"]
        # after the saves, which write the frame's top (within a page of the entry rsp)
        lines += [f"mov qword [rsp + {offset}], 0" for offset in self.probe_offsets()]
        return "\n".join(lines)

    def probe_offsets(self) -> List[int]:
        """The prologue's stack probes, rsp-relative, from the top: a page below the rsp
        the prologue found, then a page further each, while inside the frame."""
        allocation = self._allocation()
        return list(range(allocation - self.PAGE, -1, -self.PAGE))

    def epilogue(self, xmm_only: bool = False) -> str:
        """xmm_only: this path wrote no ymm/zmm register, so the upper state is as the
        caller left it and vzeroupper (a few cycles on a short call) is skipped."""
        # Every generated function returns 0 (AESGEN_OK), so C callers can tail-call it.
        lines = [f"{self.vector_move} xmm{index}, xmmword [rsp + {self._vector_save_offset(index)}]"
                 for index in self.saved_vectors]
        lines.append("xor eax, eax")
        if xmm_only:
            lines.append(".xmm_only")
        elif self.clear_upper:
            lines.append("vzeroupper")
        allocation = self._allocation()
        # The CFI rows after the pops describe the caller's frame; a template may place
        # code after this ret (a loop out of line, another exit), whose rows must be the
        # body's again: the DWARF state is saved here and restored after the ret.
        frame = bool(allocation or self.saved)
        if frame:
            lines.append(".cfi_remember")
        if allocation:
            lines += [f"add rsp, {allocation}", f".cfi_adjust -{allocation}"]
        for register in reversed(self.saved):
            lines += [f"pop {register}", f".cfi_pop {register}"]
        lines.append("ret")
        if frame:
            lines.append(".cfi_restore")
        return "\n".join(lines)

    def end(self) -> str:
        return "\n".join([".cfi_endproc", f".endfunction {self.name}"])
