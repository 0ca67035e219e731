# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Vector register allocation for the plans (generator/plan.py).

A plan names every vector register a template uses; running out of the ISA's register
file is how a knob value that does not fit (UNROLL=16 with round keys in registers) is
detected, before anything is rendered.
"""

from .isa import Isa


class DoesNotFit(Exception):
    """A knob combination this ISA cannot generate (registers, key-struct limits)."""


class RegisterBudgetError(DoesNotFit):
    def __init__(self, isa: Isa, needed: int, names):
        self.isa, self.needed, self.names = isa, needed, names
        super().__init__(f"needs {needed} vector registers, {isa.name} has "
                         f"{isa.vector_registers}")


class VecReg:
    """str() is the ISA's full-width name; .x / .y / .z are the narrower/wider views."""

    def __init__(self, kind: str, index: int, role: str):
        self.kind, self.index, self.role = kind, index, role
        self.x, self.y, self.z = f"xmm{index}", f"ymm{index}", f"zmm{index}"

    def __str__(self):
        return f"{self.kind}{self.index}"

    def as_xmm(self):
        """The same register used at 128 bits (for single-block code)."""
        return VecReg("xmm", self.index, self.role)


class VectorRegisters:
    def __init__(self, isa: Isa):
        self.isa = isa
        self.assigned = []
        self.requested = 0

    def one(self, role: str) -> VecReg:
        return self.many(role, 1)[0]

    def many(self, role: str, count: int):
        return self.named([f"{role}{i}" if count > 1 else role for i in range(count)])

    def named(self, names):
        """One register per name, in order."""
        names = list(names)
        count = len(names)
        first = self.requested
        self.requested += count
        if self.requested > self.isa.vector_registers:
            raise RegisterBudgetError(self.isa, self.requested, names)
        regs = [VecReg(self.isa.vector_kind, first + i, name) for i, name in enumerate(names)]
        self.assigned.extend(regs)
        return regs

    @property
    def free(self) -> int:
        return self.isa.vector_registers - self.requested

    def one_or_none(self, role: str):
        """A register if one is left, else None (the template falls back to memory)."""
        return self.one(role) if self.free > 0 else None

    def up_to(self, role: str, count: int):
        """As many of count registers as are left (possibly none)."""
        return self.many(role, min(count, self.free)) if self.free > 0 else []

    def keyed_up_to(self, role: str, keys):
        """Registers for the last keys that fit: keyed_up_to("K-", range(1, 14)) keeps the
        lowest keys when registers run out."""
        keys = list(keys)[:self.free]
        return self.keyed(role, keys)

    def keyed(self, role: str, keys):
        """One register per key, named role+key: keyed("KLAST-", range(1, 14))."""
        return {key: self.one(f"{role}{key}") for key in keys}
