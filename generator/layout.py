# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The memory layouts the generated assembly reads: the one definition of every offset.

Templates address these structs only through the names here (`layout` in every
template); gen/aesgen_gen.h gets each offset as a macro with a _Static_assert against the
runtime's struct (runtime/include/aesgen.h, runtime/src/asm_abi.h), so a struct that
changes without this file fails to compile.
"""

from dataclasses import dataclass
from typing import Dict, Tuple


@dataclass(frozen=True)
class Field:
    member: str         # the C member
    offset: int
    size: int
    doc: str


@dataclass(frozen=True)
class Struct:
    c_type: str         # the C typedef name
    prefix: str         # of the macros: AESGEN_LAYOUT_<prefix>_<MEMBER>
    fields: Tuple[Field, ...]

    def offset(self, member: str) -> int:
        for field in self.fields:
            if field.member == member:
                return field.offset
        raise KeyError(f"{self.c_type} has no member {member}")

    def __getattr__(self, member):
        # layout.GCM_RECORD.tag in a template is the offset of tag
        for field in self.__dict__.get("fields", ()):
            if field.member == member:
                return field.offset
        raise AttributeError(member)


# The expanded key: rk[0..rounds], 16 bytes each, then the round count, then each round
# key as a 64-byte row (rk[i] in every 128-bit lane) for KEYS=rows: a plain vector load
# where the other placements broadcast 16 bytes (on Zen 5 a broadcast from memory takes a
# vector pipe's slot).
AES_KEY_ROW_BYTES = 64
AES_KEY_ROWS = 256
AES_KEY_BYTES = AES_KEY_ROWS + 15 * AES_KEY_ROW_BYTES

AES_KEY = Struct("aesgen_aes_key", "AES_KEY", (
    Field("rk", 0, 15 * 16, "round keys rk[0..rounds]"),
    Field("rounds", 240, 4, "10, 12 or 14"),
    Field("rk_rows", AES_KEY_ROWS, 15 * AES_KEY_ROW_BYTES,
          "rk[i] in all four 128-bit lanes of row i (64 bytes each)"),
))

# The powers of H the GCM key stores: H^68 .. H^1, highest first, then 64 zero bytes
# (a vector load that runs past H^1 reads zeros; h_halves starts a cache line as
# h_powers does).  68: two of avx10_512's 32-block iterations plus up to three AAD
# blocks and the lengths block fit one GHASH sum, so that a record of up to two
# iterations is hashed with one reduction (RECTAIL=stitched, templates/gcm_record.j2; 36
# before, one iteration and an AAD block: records_keep_last).
GCM_H_POWERS = 68
GCM_H_PAD = 64

GCM_KEY = Struct("aesgen_gcm_key", "GCM_KEY", (
    Field("aes", 0, AES_KEY_BYTES, "the AES key (AES_KEY)"),
    Field("h_powers", AES_KEY_BYTES, 16 * GCM_H_POWERS,
          f"H^{GCM_H_POWERS} .. H^1, reflected, times x^-1"),
    Field("h_pad", AES_KEY_BYTES + 16 * GCM_H_POWERS, GCM_H_PAD, "zeros after H^1"),
    Field("h_halves", AES_KEY_BYTES + 16 * GCM_H_POWERS + GCM_H_PAD, 16 * GCM_H_POWERS,
          "per power, in h_powers' order: its two 64-bit halves XORed, in both halves "
          "(Karatsuba's middle products)"),
))

# The record functions' argument block (asm_abi.h: struct aesgen_gcm_record).
GCM_RECORD = Struct("aesgen_gcm_record", "GCM_RECORD", (
    Field("j0", 0, 16, "the pre-counter block J0"),
    Field("lengths", 16, 16, "GHASH's lengths block, reflected"),
    Field("aad", 32, 8, "the AAD pointer"),
    Field("aad_len", 40, 8, "AAD bytes"),
    Field("tag", 48, 16, "the tag out (scratch for E_K(J0))"),
    Field("tail_ctr", 64, 16, "VEX: the partial block's counter block"),
    Field("tail", 80, 16, "VEX: the partial block, zero-padded, in and out"),
    Field("tail_len", 96, 8, "VEX: its length, 0..15"),
))

STRUCTS = (AES_KEY, GCM_KEY, GCM_RECORD)


def h_half(k: int) -> int:
    """Offset in the GCM key of H^k's half sum (1 <= k <= GCM_H_POWERS), h_power's order."""
    return h_power(k) - GCM_KEY.offset("h_powers") + GCM_KEY.offset("h_halves")


def h_power(k: int) -> int:
    """Offset in the GCM key of H^k (1 <= k <= GCM_H_POWERS); h_power(0) is the end of the powers
    (where the zero padding starts)."""
    if not 0 <= k <= GCM_H_POWERS:
        raise ValueError(f"H^{k}: the key holds H^1 .. H^{GCM_H_POWERS}")
    return GCM_KEY.offset("h_powers") + 16 * (GCM_H_POWERS - k)


def constants() -> Dict[str, int]:
    """Every layout fact as a C macro name -> value (gen/aesgen_gen.h, the manifest)."""
    out = {}
    for struct in STRUCTS:
        for field in struct.fields:
            out[f"AESGEN_LAYOUT_{struct.prefix}_{field.member.upper()}"] = field.offset
    out["AESGEN_LAYOUT_GCM_H_POWERS"] = GCM_H_POWERS
    return out


def as_json():
    return {"structs": {s.c_type: {f.member: {"offset": f.offset, "size": f.size}
                                   for f in s.fields} for s in STRUCTS},
            "gcm_h_powers": GCM_H_POWERS}
