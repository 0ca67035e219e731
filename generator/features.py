# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""CPU features: how each is detected (CPUID bit or XCR0 state), its bit in the runtime,
and which features an instruction form needs.

This is the one table of those facts.  generator/isa.py names the features each ISA
needs; the runtime's feature bits, detection table and ISA masks (gen/aesgen_gen.h) are
generated from here; generator/lint.py and perf/mca.py both decide with
`instruction_features` what an instruction needs.
"""

import re
from dataclasses import dataclass
from typing import Iterable, Optional, Tuple


@dataclass(frozen=True)
class Feature:
    name: str                   # as generator/isa.py and perf/mca.py spell it
    c_name: str                 # the runtime's bit: AESGEN_CPU_<c_name>
    title: str                  # for messages ("AVX512BW", "OS support for YMM state")
    cpuid: Optional[Tuple[int, int, str, int]] = None   # leaf, subleaf, register, bit
    xcr0: int = 0               # OS-enabled state: these XCR0 bits must all be set

    def as_json(self):
        out = {"c_bit": f"AESGEN_CPU_{self.c_name}", "title": self.title}
        if self.cpuid:
            leaf, subleaf, register, bit = self.cpuid
            out["cpuid"] = {"leaf": leaf, "subleaf": subleaf, "register": register, "bit": bit}
        else:
            out["xcr0"] = self.xcr0
        return out


# In the order of the runtime's bits (bit i = i-th entry).  XCR0: 1 SSE, 2 AVX (upper
# ymm), 5 opmask, 6 ZMM_Hi256, 7 Hi16_ZMM.
FEATURES = {f.name: f for f in (
    Feature("aes", "AESNI", "AES-NI", cpuid=(1, 0, "ecx", 25)),
    Feature("pclmulqdq", "PCLMUL", "PCLMULQDQ", cpuid=(1, 0, "ecx", 1)),
    Feature("avx", "AVX", "AVX", cpuid=(1, 0, "ecx", 28)),
    Feature("os:xmm+ymm", "OS_YMM", "OS support for YMM state (XCR0)", xcr0=0x6),
    Feature("avx2", "AVX2", "AVX2", cpuid=(7, 0, "ebx", 5)),
    Feature("bmi2", "BMI2", "BMI2", cpuid=(7, 0, "ebx", 8)),
    Feature("vaes", "VAES", "VAES", cpuid=(7, 0, "ecx", 9)),
    Feature("vpclmulqdq", "VPCLMUL", "VPCLMULQDQ", cpuid=(7, 0, "ecx", 10)),
    Feature("avx512f", "AVX512F", "AVX512F", cpuid=(7, 0, "ebx", 16)),
    Feature("avx512dq", "AVX512DQ", "AVX512DQ", cpuid=(7, 0, "ebx", 17)),
    Feature("avx512bw", "AVX512BW", "AVX512BW", cpuid=(7, 0, "ebx", 30)),
    Feature("avx512vl", "AVX512VL", "AVX512VL", cpuid=(7, 0, "ebx", 31)),
    Feature("os:opmask+zmm", "OS_ZMM", "OS support for opmask/ZMM state (XCR0)", xcr0=0xe6),
    Feature("ssse3", "SSSE3", "SSSE3", cpuid=(1, 0, "ecx", 9)),
)}


def bit(name: str) -> int:
    return 1 << list(FEATURES).index(name)


def mask(names: Iterable[str]) -> int:
    value = 0
    for name in names:
        value |= bit(name)
    return value


# ---- what an instruction form needs -------------------------------------------------------

# Mnemonics that exist only EVEX-encoded (AVX-512 / AVX10), whatever the registers.
EVEX_ONLY = re.compile(r"^(v(p(xor|and|andn|or|ternlog)[dq]|movdq[au](8|16|32|64)|"
                       r"broadcast[if](32x4|64x2|32x8|64x4)|extract[if](32x4|64x2|32x8|64x4)|"
                       r"insert[if](32x4|64x2|32x8|64x4)|shuf[if](32x4|64x2)|pcompress|"
                       r"pexpand|permt2|align[dq])|k(mov|and|or|xor|not|shift|test|ortest|add)\w*)$")
# Mnemonics that exist only VEX-encoded: no form of theirs reaches zmm, xmm16-31 or an
# opmask (EVEX spells them vmovdqu8/.../64, vpxord/q, vpandd/q, vpord/q, vpblendm*).
VEX_ONLY = re.compile(r"^v(movdq[au]|p(xor|and|andn|or)|pblend(d|w|vb)|ptest|"
                      r"blendv(ps|pd)|maskmov\w*|zeroupper|zeroall)$")
# EVEX forms on byte/word elements or 8/32/64-bit opmasks: AVX512BW; 8-bit opmask moves
# and 64x2 lane forms: AVX512DQ.
_BW = re.compile(r"^(vmovdqu(8|16)|k\w+[dq])$")
_DQ = re.compile(r"^(k\w+b|v(broadcast|extract|insert)[if]64x2)$")
# Instructions on byte elements: on zmm (or with EVEX-only registers) they need AVX512BW.
_SSE41 = re.compile(r"^(pextr[bdq]|pinsr[bdq]|ptest|pblend\w*|pmov[sz]x\w*|pmuldq|pmulld|"
                    r"pmin[su][bdw]|pmax[su][bdw]|packusdw|pcmpeqq|round\w+|dpp[sd])$")
_BYTE_ELEMENTS = re.compile(r"^vp(shufb|addb|subb|cmpeqb|alignr|slldq|srldq|blendmb)$")


def instruction_features(mnemonic: str, kinds: Iterable[str], high_vector: bool = False,
                         opmask: bool = False) -> set:
    """The CPU features one instruction needs.  kinds: the register kinds among its
    operands ("xmm", "ymm", "zmm", "k", "gpr"); high_vector: it names a vector register
    16..31; opmask: it is masked ({k}) or names an opmask register."""
    kinds = set(kinds)
    vectors = kinds & {"xmm", "ymm", "zmm"}
    need = set()
    if mnemonic.startswith("v"):
        need |= {"avx", "os:xmm+ymm"}
    evex = "zmm" in kinds or "k" in kinds or opmask or high_vector or \
        bool(EVEX_ONLY.match(mnemonic))
    if evex:
        need |= {"avx512f", "os:opmask+zmm", "avx", "os:xmm+ymm"}
        if vectors - {"zmm"}:
            need.add("avx512vl")
        if _BW.match(mnemonic) or _BYTE_ELEMENTS.match(mnemonic):
            need.add("avx512bw")
        if _DQ.match(mnemonic):
            need.add("avx512dq")
    if "ymm" in kinds and (mnemonic.startswith("vp") or mnemonic.endswith("i128")):
        need.add("avx2")
    if mnemonic.startswith(("vaes", "aes")):
        need.add("aes")
        if vectors & {"ymm", "zmm"}:
            need.add("vaes")
    if "pclmul" in mnemonic:
        need.add("pclmulqdq")
        if vectors & {"ymm", "zmm"}:
            need.add("vpclmulqdq")
    # legacy-SSE forms (vperm_ssse3): pshufb and palignr are SSSE3; SSE4.1's inserts,
    # extracts, blends and tests are in no ISA's list, so using one is refused
    if mnemonic in ("pshufb", "palignr", "phaddd", "pmaddubsw", "psignb", "pabsb"):
        need.add("ssse3")
    if _SSE41.match(mnemonic):
        need.add("sse4.1")
    if mnemonic in ("shlx", "shrx", "sarx", "bzhi", "pdep", "pext", "mulx", "rorx"):
        need.add("bmi2")
    return need
