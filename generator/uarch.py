# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Microarchitectures the tuning file (generator/tuning.json) may name, by CPUID signature.

A uarch is a CPUID leaf 0 vendor, a display family (leaf 1, the extended family added for
base family 15) and ranges of display models (the extended model folded in for families
6 and 15, as runtime/src/isa.c computes them).  The generator renders each uarch's
measured knobs as a variant of the ISA's file, gen/aesgen_gen.h carries the table, and
the runtime picks the row matching the CPU at init (AESGEN_VARIANT overrides it).

A row says which CPUs the name covers, never what is fast there: that is the tuning
file's, each entry with the machine it was measured on.
"""

from dataclasses import dataclass
from typing import Optional, Tuple

from .errors import UsageError


@dataclass(frozen=True)
class Uarch:
    name: str                            # also the llvm-mca -mcpu model of the same CPUs
    vendor: str                          # CPUID leaf 0
    family: int                          # display family
    models: Tuple[Tuple[int, int], ...]  # inclusive ranges of display models
    summary: str

    def matches(self, vendor: str, family: int, model: int) -> bool:
        return (vendor == self.vendor and family == self.family
                and any(low <= model <= high for low, high in self.models))


UARCHES = {u.name: u for u in (
    Uarch("znver4", "AuthenticAMD", 0x19, ((0x10, 0x1f), (0x60, 0x7f), (0xa0, 0xaf)),
          "AMD Zen 4 (EPYC Genoa and Bergamo, Ryzen 7000/8000); family 0x19's other "
          "models are Zen 3, which has no AVX-512"),
    Uarch("znver5", "AuthenticAMD", 0x1a, ((0x00, 0x7f),),
          "AMD Zen 5 (EPYC Turin, Ryzen 9000 and AI 300)"),
    Uarch("sapphirerapids", "GenuineIntel", 6, ((0x8f, 0x8f), (0xcf, 0xcf)),
          "Intel Sapphire Rapids and Emerald Rapids (Golden/Raptor Cove server cores)"),
    Uarch("znver1", "AuthenticAMD", 0x17, ((0x01, 0x01), (0x11, 0x11), (0x20, 0x20)),
          "AMD Zen (EPYC Naples, Ryzen 1000 Summit Ridge, Raven Ridge, Dali); family "
          "0x17's other models are Zen+ (0x08, 0x18) and Zen 2 (from 0x30)"),
)}


def get_uarch(name: str) -> Uarch:
    try:
        return UARCHES[name]
    except KeyError:
        raise UsageError(f"unknown uarch '{name}'; valid: {', '.join(UARCHES)}") from None


def for_cpu(vendor: str, family: int, model: int) -> Optional[Uarch]:
    """The uarch whose rows cover this signature, or None (the default functions)."""
    for u in UARCHES.values():
        if u.matches(vendor, family, model):
            return u
    return None


def host_signature(cpuinfo: str = "/proc/cpuinfo") -> Tuple[str, int, int]:
    """(vendor, display family, display model) of this machine, from /proc/cpuinfo
    (which prints the display values), or ("", -1, -1) where it cannot tell."""
    vendor, family, model = "", -1, -1
    try:
        with open(cpuinfo, encoding="utf-8") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                key, value = key.strip(), value.strip()
                if key == "vendor_id" and not vendor:
                    vendor = value
                elif key == "cpu family" and family < 0:
                    family = int(value)
                elif key == "model" and model < 0:
                    model = int(value)
                elif not key and vendor:
                    break
    except (OSError, ValueError):
        pass
    return vendor, family, model


def host_uarch(cpuinfo: str = "/proc/cpuinfo") -> Optional[Uarch]:
    return for_cpu(*host_signature(cpuinfo))
