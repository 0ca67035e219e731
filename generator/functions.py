# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The C contracts of the generated functions: the one list of their prototypes.

A generated function is named aesgen_<base>_<isa>[_<variant>]; its base names its
contract, a typedef of runtime/src/asm_abi.h (where each contract is documented).  The
manifest and gen/aesgen_gen.h print the prototypes from here, and gen/aesgen_gen.h
checks at compile time that each declaration has its typedef's type.
"""

import re
from dataclasses import dataclass
from typing import Tuple

from .errors import TemplateError


@dataclass(frozen=True)
class Contract:
    typedef: str                  # asm_abi.h's function type
    returns: str
    params: Tuple[str, ...]

    def prototype(self, symbol: str) -> str:
        return f"{self.returns} {symbol}({', '.join(self.params)})"


_KEY = "const aesgen_aes_key *key"
_GCM_KEY = "const aesgen_gcm_key *key"
_UPDATE = (_GCM_KEY, "uint8_t *dst", "const uint8_t *src", "size_t len",
           "const uint8_t ctr[16]", "uint8_t acc[16]")
_RECORD = (_GCM_KEY, "uint8_t *dst", "const uint8_t *src", "size_t len",
           "aesgen_gcm_record *rec")
_XTS = ("const aesgen_aes_key *key1", "const aesgen_aes_key *key2", "uint8_t *dst",
        "const uint8_t *src", "size_t len", "const uint8_t iv[16]")

# base name -> contract
CONTRACTS = {
    "ctr_crypt": Contract("aesgen_ctr_fn", "int",
                          (_KEY, "uint8_t *dst", "const uint8_t *src", "size_t len",
                           "uint64_t ctr_lo", "uint64_t ctr_hi")),
    "ctr_crypt_iv": Contract("aesgen_ctr_iv_fn", "int",
                             (_KEY, "uint8_t *dst", "const uint8_t *src", "size_t len",
                              "const uint8_t ctr[16]")),
    "xctr_crypt": Contract("aesgen_xctr_fn", "int",
                           (_KEY, "uint8_t *dst", "const uint8_t *src", "size_t len",
                            "const uint8_t iv[16]", "uint64_t index")),
    "xts_encrypt": Contract("aesgen_xts_fn", "int", _XTS),
    "xts_decrypt": Contract("aesgen_xts_fn", "int", _XTS),
    "gcm_ghash": Contract("aesgen_gcm_ghash_fn", "int",
                          (_GCM_KEY, "uint8_t acc[16]", "const uint8_t *data", "size_t len")),
    "gcm_enc_update": Contract("aesgen_gcm_update_fn", "int", _UPDATE),
    "gcm_dec_update": Contract("aesgen_gcm_update_fn", "int", _UPDATE),
    "gcm_enc_record": Contract("aesgen_gcm_record_fn", "int", _RECORD),
    "gcm_dec_record": Contract("aesgen_gcm_record_fn", "int", _RECORD),
}


@dataclass(frozen=True)
class GeneratedFunction:
    symbol: str
    base: str                     # key of CONTRACTS
    isa: str
    variant: str                  # "" or the name of a uarch variant's set ("ghashkaratsuba")

    @property
    def contract(self) -> Contract:
        return CONTRACTS[self.base]

    @property
    def prototype(self) -> str:
        return self.contract.prototype(self.symbol)


def symbol(base: str, isa: str, variant: str = "") -> str:
    """variant: "" or "_<name>" (a set of functions with other knobs, see
    generator/render.py's variants)."""
    return f"aesgen_{base}_{isa}{variant}"


def parse_symbol(name: str, isa: str) -> GeneratedFunction:
    """The function a generated symbol names; a symbol without a contract is an error."""
    match = re.fullmatch(rf"aesgen_(\w+?)_{re.escape(isa)}(?:_(\w+))?", name)
    if not match or match.group(1) not in CONTRACTS:
        raise TemplateError(f"function {name} has no contract in generator/functions.py "
                            f"(bases: {', '.join(CONTRACTS)}, suffix _{isa}[_<variant>])")
    return GeneratedFunction(name, match.group(1), isa, match.group(2) or "")


def prototype_of(name: str, isa: str) -> str:
    return parse_symbol(name, isa).prototype
