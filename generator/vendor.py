# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""`python3 -m generator vendor`: a ready-to-copy directory of the generated assembly, the C
runtime, the public headers and source lists for CMake, Meson, Bazel and make.

The bundle is a pure function of its options (prefix, ISAs, modes, OS flavours), the
knobs gen/manifest.json records and this repository's sources: `bundle()` returns
{relative path: text}; writing, `--check` and SHA256SUMS all start from it.

Symbol prefix P: every external name of the bundle becomes P + name.  The assembly gets it
from the printers (symbol_prefix); the C code from `#define aesgen_x P##aesgen_x` maps:
the public names in include/aesgen.h (so code written against aesgen.h compiles
unchanged), the raw entry points in include/aesgen_asm.h, the runtime's internal names in
src/aesgen_config.h, which every runtime file includes first.  The maps rename every
`aesgen_*` identifier the sources use (types too: harmless in C, and distinct types per
copy in C++); a test links two bundles and checks with nm that no unprefixed name is
left.  aesgen_config.h also hides every runtime symbol (the pragma, after the system
headers) and names the environment variables' prefix (upper-case P).
"""

import hashlib
import json
import os
import re
from typing import Dict, List

from . import SPDX_LICENSE, VERSION, layout, manifest
from .abi import get_abi
from .errors import UsageError
from .features import FEATURES
from .flavours import FLAVOURS
from .isa import ISAS
from .knobs import resolve
from .modes import MODES
from .render import build

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNTIME_SRC = os.path.join(REPO, "runtime", "src")
BUNDLE_MANIFEST = "manifest.json"
BUNDLE_SCHEMA = "aesgen-bundle-1"
PREFIX_RE = re.compile(r"^[a-z][a-z0-9_]*_$")

# The runtime's C files every bundle holds (the portable code, CPU detection, dispatch,
# key setup, the GCM key setup intrinsics that isa.c references for every asm ISA) and
# those of one mode's API; ipsec.c (RFC 3686, 4106, 4543) needs CTR and GCM.
COMMON_C = ("aes_bitsliced.c", "cpu.c", "gcm_clmul.c", "gcm_generic.c", "isa.c",
            "key_expand.c", "util.c", "xts_generic.c")
MODE_C = {"ctr": ("ctr.c",), "xctr": ("xctr.c",), "xts": ("xts.c",),
          "gcm": ("gcm.c", "gcm_ctr_ghash.c")}
IPSEC_MODES = ("ctr", "gcm")
PRIVATE_HEADERS = ("bytes.h", "cpu_signature.h", "ct.h", "internal.h")

# The headers the runtime's files include, taken in before the visibility pragma of
# aesgen_config.h so that no system declaration is marked hidden.
SYSTEM_HEADERS = """#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#endif
#if defined(__x86_64__) || defined(_M_X64)
#if defined(__GNUC__) || defined(__clang__)
#include <cpuid.h>
#endif
#include <immintrin.h>
#endif
#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif"""

# Known answers for include/aesgen_asm.h, from outside the code: the AES-128 key of
# FIPS-197 Appendix A.1 and its expanded key (the w[i] words of that appendix, four per
# round key), and H = AES_K(0^128) computed with OpenSSL 3.0.19
# (`openssl enc -aes-128-ecb -K <key> -nopad` of 16 zero bytes).  tests/python/
# test_vendor.py checks them against OpenSSL and against the runtime.
KAT_KEY = "2b7e151628aed2a6abf7158809cf4f3c"
KAT_ROUND_KEYS = (
    "2b7e151628aed2a6abf7158809cf4f3c", "a0fafe1788542cb123a339392a6c7605",
    "f2c295f27a96b9435935807a7359f67f", "3d80477d4716fe3e1e237e446d7a883b",
    "ef44a541a8525b7fb671253bdb0bad00", "d4d1c6f87c839d87caf2b8bc11f915bc",
    "6d88a37a110b3efddbf98641ca0093fd", "4e54f70e5f5fc9f384a64fb24ea6dc4f",
    "ead27321b58dbad2312bf5607f8d292f", "ac7766f319fadc2128d12941575c006e",
    "d014f9a8c9ee2589e13f0cc8b6630ca6")
KAT_H = "7df76b0c1ab899b33e42f047b91b546f"

GCM_R = 0xE1 << 120                              # SP 800-38D's R, bit-reflected order
X_INVERSE = (1 << 127) | (1 << 126) | (1 << 121) | 1   # x^-1, byte-reflected order


def gf_multiply(x: int, y: int) -> int:
    """x * y in GF(2^128) as SP 800-38D writes elements (big-endian, bit 127 is x^0)."""
    z, v = 0, y
    for i in range(127, -1, -1):
        if (x >> i) & 1:
            z ^= v
        v = (v >> 1) ^ GCM_R if v & 1 else v >> 1
    return z


def stored_power(h: int) -> bytes:
    """The h_powers form of asm_abi.h: byte-reflected (the bytes of h as a little-endian
    integer, which is h's big-endian value) and multiplied by x^-1: a left shift, and x^-1
    added when the x^0 coefficient (bit 127) falls out."""
    value = (h << 1) & ((1 << 128) - 1)
    if h >> 127:
        value ^= X_INVERSE
    return value.to_bytes(16, "little")


def _c_bytes(hex_text: str, per_line: int = 16) -> List[str]:
    data = bytes.fromhex(hex_text)
    return [" ".join(f"0x{b:02x}," for b in data[i:i + per_line])
            for i in range(0, len(data), per_line)]


# ---- options -----------------------------------------------------------------------------

def _names(text, table, what):
    """A comma-separated list of names of table, in the table's order (None: all)."""
    if text is None or text == "":
        return list(table)
    names = [n.strip() for n in text.split(",") if n.strip()]
    for name in names:
        if name not in table:
            raise UsageError(f"unknown {what} '{name}'; valid: {', '.join(table)}")
    if not names:
        raise UsageError(f"empty {what} list; valid: {', '.join(table)}")
    return [n for n in table if n in names]


def options(prefix=None, isa=None, mode=None, os_list=None) -> dict:
    prefix = prefix or ""
    if prefix and not PREFIX_RE.match(prefix):
        raise UsageError(f"bad prefix '{prefix}'; valid: lower-case letters, digits and "
                         "'_', starting with a letter and ending with '_' (e.g. aa_)")
    return {"prefix": prefix, "isas": _names(isa, ISAS, "ISA"),
            "modes": _names(mode, MODES, "mode"), "os": _names(os_list, FLAVOURS, "OS")}


def command_line(opts) -> str:
    words = ["python3 -m generator vendor --out DIR"]
    if opts["prefix"]:
        words.append(f"--prefix {opts['prefix']}")
    for flag, key, table in (("--isa", "isas", ISAS), ("--mode", "modes", MODES),
                             ("--os", "os", FLAVOURS)):
        if opts[key] != list(table):
            words.append(f"{flag} {','.join(opts[key])}")
    return " ".join(words)


# ---- names -------------------------------------------------------------------------------

def asm_name(mode: str, isa: str, os_name: str) -> str:
    return f"asm/aesgen-{mode}-{isa}-{os_name}.{FLAVOURS[os_name].syntax}"


def c_files(opts) -> List[str]:
    names = list(COMMON_C)
    for mode in opts["modes"]:
        names += MODE_C[mode]
    if all(m in opts["modes"] for m in IPSEC_MODES):
        names.append("ipsec.c")
    return sorted(names)


_COMMENT_OR_STRING = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                                re.S)
_IDENT = re.compile(r"\baesgen_[A-Za-z0-9_]*[A-Za-z0-9]\b")


def identifiers(text: str) -> set:
    """The aesgen_* identifiers of C code (comments, strings and #include names aside)."""
    code = _COMMENT_OR_STRING.sub(" ", text)
    code = re.sub(r"(?m)^\s*#\s*include\b.*$", " ", code)
    return set(_IDENT.findall(code))


def prefix_map(names, prefix: str) -> List[str]:
    return [f"#define {name} {prefix}{name}" for name in sorted(names)]


# ---- file headers ------------------------------------------------------------------------

def banner(opts, what: str) -> List[str]:
    return [f"Vendored by aesgen {VERSION}: {what}.  Do not edit; regenerate with",
            f"  {command_line(opts)}",
            "(`make vendor OUT=DIR ...` in the aesgen repository); README.md says how to use it."]


def c_comment(lines) -> str:
    return "/*\n" + "".join(f" * {line}".rstrip() + "\n" for line in lines) + " */\n"


def hash_comment(lines) -> str:
    return "".join(f"# {line}".rstrip() + "\n" for line in lines)


def spdx_c() -> str:
    return f"/* SPDX-License-Identifier: {SPDX_LICENSE} */\n"


def spdx_hash() -> str:
    return f"# SPDX-License-Identifier: {SPDX_LICENSE}\n"


def _read(*parts) -> str:
    with open(os.path.join(REPO, *parts), encoding="utf-8") as handle:
        return handle.read()


def _without_spdx(text: str) -> str:
    first, _, rest = text.partition("\n")
    if "SPDX-License-Identifier" not in first:
        raise UsageError(f"runtime file without an SPDX first line: {first}")
    return rest


# ---- the assembly ------------------------------------------------------------------------

def guard(text: str, flavour, opts) -> str:
    """The file with a vendoring line after its SPDX line, and everything after the header
    comment inside a guard that leaves nothing on a non-x86-64 target."""
    lines = text.split("\n")
    mark = ";" if flavour.syntax == "asm" else "#"
    note = [f"{mark} {line}".rstrip() for line in banner(opts, f"the {flavour.summary} flavour")]
    body_at = next(i for i, line in enumerate(lines) if not line.startswith(mark))
    head, body = lines[1:body_at], lines[body_at:]
    while body and body[-1] == "":
        body.pop()
    if flavour.syntax == "asm":
        begin = ["%ifidni __OUTPUT_FORMAT__, " + NASM_FORMATS.get(flavour.os, "win64")]
        end = ["%endif"]
        if flavour.os == "win":
            end = nasm_exclude_from_export(body) + end
    else:
        begin = ["#if defined(__x86_64__)"]
        end = ["#elif defined(__ELF__)", '\t.section .note.GNU-stack,"",%progbits', "#endif"]
        if flavour.os != "linux":
            end = ["#endif"]
    return "\n".join([lines[0], *note, *head, *begin, *body, *end]) + "\n"


# The NASM output format of each OS: a .asm file assembles to nothing in any other
# (e.g. -f win32).
NASM_FORMATS = {"win": "win64", "linux": "elf64", "apple": "macho64"}

# GNU ld (and lld) link a Windows DLL that marks nothing __declspec(dllexport) by exporting
# every global symbol of every object.  Each object of a bundle with the win flavour
# therefore names its own globals in a "-exclude-symbols:" linker directive (section
# .drectve; GNU ld 2.40 and later, lld): they stay out of such an automatic export table,
# while an explicit dllexport still exports (AESGEN_API).  A name that is not a symbol of
# the link is ignored.  Eight names a line keeps the files readable.
EXCLUDE_DIRECTIVE = " -exclude-symbols:"
EXCLUDE_NAMES_PER_LINE = 8


def _exclude_chunks(names) -> List[str]:
    names = sorted(names)
    return [",".join(names[i:i + EXCLUDE_NAMES_PER_LINE])
            for i in range(0, len(names), EXCLUDE_NAMES_PER_LINE)]


def nasm_exclude_from_export(body) -> List[str]:
    """The .drectve lines of a -win.asm file: the file's global symbols."""
    names = re.findall(r"^\s*global\s+([A-Za-z_][A-Za-z0-9_]*)", "\n".join(body), re.M)
    if not names:
        return []
    return (["", "; Not exported from a DLL by GNU ld's automatic export (README.md, Visibility).",
             "section .drectve info"]
            + [f'\tdb "{EXCLUDE_DIRECTIVE}{chunk}"' for chunk in _exclude_chunks(names)])


def c_exclude_from_export(names) -> List[str]:
    """aesgen_config.h's lines: every runtime object carries the directive for the C
    names of the bundle (identifiers that are types, not symbols, are ignored by the linker)."""
    return (["/* Windows with MinGW GCC or clang: a DLL that marks nothing __declspec(dllexport)",
             " * exports every global symbol (GNU ld's automatic export), so every runtime",
             " * object asks the linker to leave the bundle's names out (-exclude-symbols in",
             " * .drectve: GNU ld 2.40 and later, lld).  An explicit dllexport still exports.",
             " * (GCC emits top-level asm before any function or data and then names the",
             " * section of each, so the .text at the end only ends the directive.) */",
             "#if defined(_WIN32) && (defined(__GNUC__) || defined(__clang__))",
             '__asm__(".section .drectve\\n"']
            + [f'        "\\t.ascii \\"{EXCLUDE_DIRECTIVE}{chunk}\\"\\n"'
               for chunk in _exclude_chunks(names)]
            + ['        ".text");', "#endif", ""])


def isa_files(isa, modes) -> List[str]:
    """The generated files of one ISA a bundle of these modes needs: each mode the ISA
    has a file for; GCM on an ISA without gcm.S (vperm_ssse3) runs on the ISA's CTR
    file (runtime/src/gcm_ctr_ghash.c), so that file comes along."""
    names = [m for m in modes if m in isa.modes]
    if "gcm" in modes and "gcm" not in isa.modes and "ctr" in isa.modes and "ctr" not in names:
        names.append("ctr")
    return names


def assembly(opts, knobs_of):
    """{path: text} of the assembly and the manifest entries (one per ISA x mode)."""
    files, entries = {}, []
    for isa_name in opts["isas"]:
        for mode_name in isa_files(ISAS[isa_name], opts["modes"]):
            mode, isa = MODES[mode_name], ISAS[isa_name]
            knobs = resolve(mode, isa, knobs_of(isa_name, mode_name))
            entry = None
            # One render per calling convention, printed for each OS that uses it.
            for abi_name in sorted({FLAVOURS[o].abi for o in opts["os"]}):
                printers = {o: FLAVOURS[o].printer for o in opts["os"]
                            if FLAVOURS[o].abi == abi_name}
                output = build(mode, isa, knobs, get_abi(abi_name), printers=printers,
                               symbol_prefix=opts["prefix"])
                if entry is None:
                    entry = manifest.file_entry(mode, isa, knobs, get_abi(abi_name), output)
                    entry["files"] = {}
                for os_name, text in output.texts.items():
                    path = asm_name(mode_name, isa_name, os_name)
                    files[path] = guard(text, FLAVOURS[os_name], opts)
                    entry["files"][os_name] = path
            entry["files"] = {o: entry["files"][o] for o in opts["os"]}
            entry.pop("abi")
            entry["abis"] = {o: FLAVOURS[o].abi for o in opts["os"]}
            for f in entry["functions"]:
                f["linker_symbol"] = opts["prefix"] + f["symbol"]
            entries.append(entry)
    return files, entries


# ---- headers -----------------------------------------------------------------------------

def public_header(opts) -> str:
    text = _read("runtime", "include", "aesgen.h")
    first, _, rest = text.partition("\n")
    guard_line = "#define AESGEN_H\n"
    if guard_line not in rest:
        raise UsageError("runtime/include/aesgen.h: no '#define AESGEN_H' line")
    before, _, after = rest.partition(guard_line)
    block = ["", "/* ---- Vendored bundle ---- */", "",
             "/* Nothing of the bundle is exported from the program or shared object it is",
             " * built into: the API is hidden whatever the compiler flags.  To export it,",
             " * define AESGEN_API before including this header. */",
             "#if !defined(AESGEN_API) && (defined(__GNUC__) || defined(__clang__)) && "
             "!defined(_WIN32)",
             '#define AESGEN_API __attribute__((visibility("hidden")))',
             "#elif !defined(AESGEN_API)",
             "#define AESGEN_API",
             "#endif", "",
             "/* What this bundle holds: the API of these modes (the others' functions are",
             " * not in it), and these ISAs (used when the CPU has them). */"]
    block += [f"#define AESGEN_BUNDLE_{m.upper()} 1" for m in opts["modes"]]
    block += [f"#define AESGEN_BUNDLE_ISA_{i.upper()} 1" for i in opts["isas"]]
    if opts["prefix"]:
        block += ["", f"/* Symbol prefix {opts['prefix']}: the linker sees "
                      f"{opts['prefix']}aesgen_*, code keeps writing aesgen_*. */"]
        block += prefix_map(identifiers(text), opts["prefix"])
        # the comments name the environment variables this bundle's runtime reads
        # (AESGEN_ENV_PREFIX: AA_AESGEN_ISA, ...)
        after = re.sub(r"\bAESGEN_(ISA|VARIANT)\b",
                       lambda m: f"{opts['prefix'].upper()}{m.group(0)}", after)
    block.append("")
    return (first + "\n" + c_comment(banner(opts, "the public API (runtime/include/aesgen.h)"))
            + before + guard_line + "\n".join(block) + "\n" + after)


def _asm_abi_body() -> str:
    """runtime/src/asm_abi.h between its include guard, without its #include lines."""
    text = _read("runtime", "src", "asm_abi.h")
    start = text.index("#define AESGEN_ASM_ABI_H\n") + len("#define AESGEN_ASM_ABI_H\n")
    end = text.rindex("#endif")
    body = re.sub(r"(?m)^#include .*\n", "", text[start:end])
    return body.strip("\n") + "\n"


def asm_header(opts, entries) -> str:
    public = identifiers(_read("runtime", "include", "aesgen.h"))
    abi = identifiers(_read("runtime", "src", "asm_abi.h"))
    symbols = {f["symbol"] for e in entries for f in e["functions"]}
    out = [spdx_c().rstrip("\n"),
           c_comment(banner(opts, "the raw entry points of the generated assembly")
                     + ["",
                        "For callers that drive the assembly themselves (C and C++).  The",
                        "functions follow the System V ABI on Linux and macOS (the Win64 ABI",
                        "in the -win.asm files), return 0, and check nothing: the contracts",
                        "below say what the caller must guarantee.  Check the CPU first:",
                        "each function lists the CPU features it needs (CPUID bits and OS",
                        "state); aesgen.h's API does that for you."]).rstrip("\n"),
           "#ifndef AESGEN_ASM_H", "#define AESGEN_ASM_H", "",
           '#include "aesgen.h"', ""]
    if opts["prefix"]:
        out += [f"/* Symbol prefix {opts['prefix']} (see aesgen.h). */"]
        out += prefix_map((abi | symbols) - public, opts["prefix"])
        out.append("")
    out += ["#ifdef __cplusplus", 'extern "C" {', "#endif", "",
            "/* ---- Contracts (runtime/src/asm_abi.h) ---- */", "", _asm_abi_body()]
    out += ["/* ---- Layouts, with known answers ---- */", "",
            "/* aesgen_aes_key: rk[i] at offset 16 * i, the round keys in the byte order",
            " * FIPS-197 writes w[4i..4i+3], rounds (10, 12, 14) at offset 240.  Known answer:",
            " * FIPS-197 Appendix A.1, the AES-128 key below expands to these 11 round keys. */",
            "#define AESGEN_ASM_KAT_KEY { \\"]
    out += [f"    {line} \\" for line in _c_bytes(KAT_KEY)] + ["}"]
    out += ["#define AESGEN_ASM_KAT_ROUNDS 10", "#define AESGEN_ASM_KAT_ROUND_KEYS { \\"]
    out += [f"    {line} \\" for rk in KAT_ROUND_KEYS for line in _c_bytes(rk)] + ["}"]
    h = int(KAT_H, 16)
    h2 = gf_multiply(h, h)
    out += ["",
            "/* aesgen_gcm_key: the AES key at offset 0, then at AESGEN_GCM_H_POWERS_OFFSET",
            f" * ({layout.GCM_KEY.h_powers}) the powers H^{layout.GCM_H_POWERS} .. H^1 of the hash key "
            f"H = AES_K(0^128), 16 bytes each,",
            " * highest first, each byte-reflected and multiplied by x^-1 (see above), then",
            f" * {layout.GCM_H_PAD} zero bytes, then at {layout.GCM_KEY.h_halves} (h_halves) per power, "
            f"in the same order, its two",
            " * 8-byte halves XORed and stored twice (Karatsuba loops that hold no half sums",
            " * in registers read them).  For the key above (H from OpenSSL):",
            " *   AESGEN_ASM_KAT_H          H itself, as SP 800-38D writes it;",
            f" *   AESGEN_ASM_KAT_H_POWER_1  the 16 bytes at offset {layout.h_power(1)} (H^1);",
            f" *   AESGEN_ASM_KAT_H_POWER_2  the 16 bytes at offset {layout.h_power(2)} (H^2). */",
            "#define AESGEN_ASM_KAT_H { \\"]
    out += [f"    {line} \\" for line in _c_bytes(KAT_H)] + ["}"]
    out += ["#define AESGEN_ASM_KAT_H_POWER_1 { \\"]
    out += [f"    {line} \\" for line in _c_bytes(stored_power(h).hex())] + ["}"]
    out += ["#define AESGEN_ASM_KAT_H_POWER_2 { \\"]
    out += [f"    {line} \\" for line in _c_bytes(stored_power(h2).hex())] + ["}", ""]
    out += ["/* The other key forms the functions take: aesgen_xts_init fills an",
            " * aesgen_xts_ctx's k1_enc, k1_dec (the decryption schedule of the XTS contract)",
            " * and k2_enc; aesgen_gcm_init fills an aesgen_gcm_key (aligned as declared). */",
            ""]
    out += ["/* ---- Entry points of this bundle ---- */", "",
            "/* The CPU features below, and how to see each (all of a function's must hold):"]
    used = []
    for e in entries:
        used += [n for n in e["cpu_features"] if n not in used]
    for name in used:
        f = FEATURES[name]
        how = (f"CPUID.(EAX={f.cpuid[0]},ECX={f.cpuid[1]}):{f.cpuid[2].upper()}[{f.cpuid[3]}]"
               if f.cpuid else f"XGETBV(0) & {f.xcr0:#x} == {f.xcr0:#x} (the OS saves that state)")
        out.append(f" *   {name:<14} {how}")
    out += [" * macOS enables the AVX-512 state lazily: XCR0 shows it only after a thread's",
            ' * first AVX-512 instruction; sysctlbyname("hw.optional.avx512f") says whether it',
            " * will (src/cpu.c asks both). */", ""]
    for e in entries:
        files = ", ".join(os.path.basename(p) for p in e["files"].values())
        out.append(f"/* {e['mode']} on {e['isa']} ({files}); knobs "
                   f"{manifest.knob_text(e['knobs'])}.")
        out.append(f" * Needs the CPU features: {', '.join(e['cpu_features'])}. */")
        for f in e["functions"]:
            out.append(f"{f['prototype']};")
        out.append("")
    out += ["#ifdef __cplusplus", "}", "#endif", "", "#endif /* AESGEN_ASM_H */", ""]
    return "\n".join(out)


def config_header(opts, entries, c_texts, gen_header) -> str:
    public = identifiers(_read("runtime", "include", "aesgen.h"))
    abi = identifiers(_read("runtime", "src", "asm_abi.h"))
    symbols = {f["symbol"] for e in entries for f in e["functions"]}
    internal = set()
    for text in list(c_texts.values()) + [gen_header]:
        internal |= identifiers(text)
    internal -= public | abi | symbols
    env = opts["prefix"].upper()
    out = [spdx_c().rstrip("\n"),
           c_comment(banner(opts, "the runtime's configuration")
                     + ["", "Included first by every runtime C file of the bundle (in src/): the",
                        "internal names' prefix, the environment variables' prefix, and",
                        "hidden visibility for every runtime symbol, whatever the flags."]
                     ).rstrip("\n"),
           "#ifndef AESGEN_CONFIG_H", "#define AESGEN_CONFIG_H", "",
           "/* The environment variables the runtime reads: "
           + (f"{env}AESGEN_ISA and {env}AESGEN_VARIANT (never the unprefixed ones). */"
              if env else "AESGEN_ISA and AESGEN_VARIANT. */"),
           f'#define AESGEN_ENV_PREFIX "{env}"', ""]
    if opts["prefix"]:
        out += [f"/* Symbol prefix {opts['prefix']} of the internal names. */"]
        out += prefix_map(internal, opts["prefix"])
        out.append("")
    out += ["/* The system headers first: their declarations must keep default visibility. */",
            SYSTEM_HEADERS, "",
            "#if (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)",
            "#pragma GCC visibility push(hidden)",
            "#endif", ""]
    if "win" in opts["os"]:
        out += c_exclude_from_export(opts["prefix"] + n for n in public | internal)
    out += ["#endif /* AESGEN_CONFIG_H */", ""]
    return "\n".join(out)


def runtime_file(name: str, opts) -> str:
    text = _read("runtime", "src", name)
    head = spdx_c() + c_comment(banner(opts, f"a copy of runtime/src/{name}"))
    if name.endswith(".c"):
        head += '#include "aesgen_config.h"\n'
    return head + _without_spdx(text)


# ---- source lists ------------------------------------------------------------------------

def lists(opts, files):
    c = [f"src/{n}" for n in c_files(opts)]
    headers = ["include/aesgen.h", "include/aesgen_asm.h"]
    private = sorted(p for p in files if p.startswith("src/") and p.endswith(".h"))
    asm = {os_name: sorted(p for p in files if p.startswith("asm/")
                           and p.endswith(f"-{os_name}.{FLAVOURS[os_name].syntax}"))
           for os_name in opts["os"]}
    return c, headers, private, asm


def target_name(opts) -> str:
    return f"{opts['prefix']}aesgen"


def var(opts, name: str) -> str:
    return f"{opts['prefix'].upper()}AESGEN_{name}"


def sources_json(opts, c, headers, private, asm) -> str:
    doc = {"license": f"SPDX-License-Identifier: {SPDX_LICENSE}",
           "about": " ".join(banner(opts, "the source lists")),
           "target": target_name(opts), "include_dirs": ["include"],
           "c_sources": c, "public_headers": headers, "private_headers": private,
           "asm": {os_name: {"syntax": FLAVOURS[os_name].syntax, "files": files}
                   for os_name, files in asm.items()}}
    return json.dumps(doc, indent=1) + "\n"


def sources_cmake(opts, c, headers, private, asm) -> str:
    out = [spdx_hash() + hash_comment(banner(opts, "the source lists for CMake"))
           + "# Paths relative to this file's directory (CMAKE_CURRENT_LIST_DIR).\n"]
    for name, items in ((var(opts, "C_SOURCES"), c), (var(opts, "PUBLIC_HEADERS"), headers),
                        (var(opts, "PRIVATE_HEADERS"), private),
                        *((var(opts, f"ASM_{o.upper()}"), f) for o, f in asm.items())):
        out.append(f"set({name}\n" + "".join(f"    ${{CMAKE_CURRENT_LIST_DIR}}/{p}\n"
                                              for p in items) + ")\n")
    return "\n".join(out)


def sources_mk(opts, c, headers, private, asm) -> str:
    d = var(opts, "DIR")
    out = [spdx_hash() + hash_comment(banner(opts, "the source lists for make"))
           + "# include this file; every path starts with $(" + d + "), this file's directory.\n",
           f"{d} := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))\n",
           f"{var(opts, 'INCLUDE_DIR')} := $({d})/include\n"]
    if "win" in asm:
        out.append("# NASM's flags for the -win.asm files (each assembles to nothing in another\n"
                   "# format); the objects are COFF, linked with the C objects.\n"
                   f"{var(opts, 'NASMFLAGS_WIN')} := -f {NASM_FORMATS['win']}\n")
    for name, items in ((var(opts, "C_SOURCES"), c), (var(opts, "PUBLIC_HEADERS"), headers),
                        (var(opts, "PRIVATE_HEADERS"), private),
                        *((var(opts, f"ASM_{o.upper()}"), f) for o, f in asm.items())):
        out.append(f"{name} := \\\n" + " \\\n".join(f"    $({d})/{p}" for p in items) + "\n")
    return "\n".join(out)


def sources_bzl(opts, c, headers, private, asm) -> str:
    out = [spdx_hash() + hash_comment(banner(opts, "the source lists for Bazel"))
           + "# Paths relative to this directory (the package of the bundle).\n"]
    for name, items in ((var(opts, "C_SOURCES"), c), (var(opts, "PUBLIC_HEADERS"), headers),
                        (var(opts, "PRIVATE_HEADERS"), private),
                        *((var(opts, f"ASM_{o.upper()}"), f) for o, f in asm.items())):
        out.append(f"{name} = [\n" + "".join(f'    "{p}",\n' for p in items) + "]\n")
    return "\n".join(out)


# Bazel: the OS a flavour of the assembly is for, as an @platforms constraint.  Bazel's cc
# rules assemble .S files with the C compiler; they do not run NASM, so the Windows
# flavour is left to the user (README.md) and the library is incompatible there.
BAZEL_OS = (("apple", "@platforms//os:macos"), ("win", "@platforms//os:windows"))


def build_bazel(opts, asm) -> str:
    t = target_name(opts)
    v = var(opts, "")
    incompatible = '["@platforms//:incompatible"]'
    by_os, compatible = [], []
    for os_name, constraint in BAZEL_OS:
        usable = os_name in asm and os_name != "win"
        if usable:
            by_os.append(f'        "{constraint}": {v}ASM_{os_name.upper()},\n')
        compatible.append(f'        "{constraint}": {"[]" if usable else incompatible},\n')
    # The default is ELF: Linux and the other ELF systems.
    by_os.append(f'        "//conditions:default": {v + "ASM_LINUX" if "linux" in asm else "[]"},\n')
    compatible.append(f'        "//conditions:default": {"[]" if "linux" in asm else incompatible},\n')
    names = [f"{v}{n}" for n in ("C_SOURCES", "PUBLIC_HEADERS", "PRIVATE_HEADERS")]
    names += [f"{v}ASM_{o.upper()}" for o in ("linux", "apple") if o in asm]
    load = "load(\n    \":sources.bzl\",\n" + "".join(f'    "{n}",\n' for n in names) + ")\n"
    return (spdx_hash() + hash_comment(banner(opts, "the Bazel package"))
            + f"# Use: deps = [\"//<this directory>:{t}\"].  Each assembly file assembles to\n"
            + "# nothing off x86-64.  Bazel's cc rules do not run NASM: on Windows build the\n"
            + "# bundle with CMake, or assemble asm/*-win.asm yourself (README.md).\n"
            + load + "\n"
            + f"cc_library(\n    name = \"{t}\",\n"
            + f"    srcs = {v}C_SOURCES + {v}PRIVATE_HEADERS + select({{\n"
            + "".join(by_os) + "    }),\n"
            + f"    hdrs = {v}PUBLIC_HEADERS,\n"
            + "    includes = [\"include\"],\n"
            + "    copts = [\"-std=c11\", \"-fvisibility=hidden\"],\n"
            + "    target_compatible_with = select({\n" + "".join(compatible) + "    }),\n"
            + "    visibility = [\"//visibility:public\"],\n)\n")


def cmakelists(opts, asm) -> str:
    t = target_name(opts)
    alias = f"aesgen::{t}"
    branches = []
    for cond, os_name, lang in (("WIN32", "win", "ASM_NASM"), ("APPLE", "apple", "ASM"),
                                ("", "linux", "ASM")):
        keyword = "if" if not branches else ("elseif" if cond else "else")
        head = f"{keyword}({cond})" if cond else "else()"
        if os_name in asm:
            body = (f"  enable_language({lang})\n"
                    f"  set(_{t}_asm ${{{var(opts, 'ASM_' + os_name.upper())}}})\n")
        else:
            body = (f'  message(FATAL_ERROR "{t}: this bundle has no {os_name} assembly; '
                    f'regenerate it with --os including {os_name}")\n')
        branches.append(head + "\n" + body)
    return (spdx_hash() + hash_comment(banner(opts, "the CMake project"))
            + f"# Use: add_subdirectory(<this directory>) and link {alias}.\n"
            + "cmake_minimum_required(VERSION 3.16)\n"
            + f"project({t} VERSION {VERSION} LANGUAGES C)\n\n"
            + "include(${CMAKE_CURRENT_LIST_DIR}/sources.cmake)\n\n"
            + "# The OS's flavour of the assembly (each file assembles to nothing off x86-64).\n"
            + "".join(branches) + "endif()\n\n"
            + f"add_library({t} STATIC ${{{var(opts, 'C_SOURCES')}}} ${{_{t}_asm}})\n"
            + f"add_library({alias} ALIAS {t})\n"
            + f"target_include_directories({t} PUBLIC ${{CMAKE_CURRENT_LIST_DIR}}/include)\n"
            + f"set_target_properties({t} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON\n"
            + "                      POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)\n")


def meson_build(opts, c, asm) -> str:
    t = target_name(opts)

    def files(items):
        return "files(\n" + "".join(f"  '{p}',\n" for p in items) + ")"

    branches = []
    for cond, os_name in (("host_machine.system() == 'windows'", "win"),
                          ("host_machine.system() == 'darwin'", "apple"), ("", "linux")):
        keyword = "if" if not branches else ("elif" if cond else "else")
        head = f"{keyword} {cond}" if cond else "else"
        if os_name in asm:
            body = ("  add_languages('nasm', native: false)\n" if os_name == "win" else "")
            body += f"  {t}_asm = {files(asm[os_name])}\n"
        else:
            body = (f"  error('{t}: this bundle has no {os_name} assembly; regenerate it with "
                    f"--os including {os_name}')\n")
        branches.append(head + "\n" + body)
    return (spdx_hash() + hash_comment(banner(opts, "the Meson project"))
            + f"# Use as a subproject: subprojects/{t}/, then dependency('{t}', fallback: '{t}')"
            + f" (or subproject('{t}').get_variable('{t}_dep')).\n"
            + f"project('{t}', 'c', version: '{VERSION}', meson_version: '>=0.64',\n"
            + "  default_options: ['c_std=c11'])\n\n"
            + f"{t}_inc = include_directories('include')\n"
            + f"{t}_c = {files(c)}\n\n"
            + "".join(branches) + "endif\n\n"
            + f"{t}_lib = static_library('{t}', {t}_c, {t}_asm,\n"
            + f"  include_directories: {t}_inc, gnu_symbol_visibility: 'hidden', pic: true,\n"
            + "  install: false)\n"
            + f"{t}_dep = declare_dependency(link_with: {t}_lib, include_directories: {t}_inc)\n"
            + f"meson.override_dependency('{t}', {t}_dep)\n")


# ---- README, LICENSE, manifest -----------------------------------------------------------

def license_text(opts) -> str:
    return ("SPDX-License-Identifier: " + SPDX_LICENSE + "\n"
            + "\n".join(banner(opts, "the license")) + "\n\n"
            + _read("LICENSE") + "\n" + "=" * 78 + "\nLICENSES/Apache-2.0.txt\n\n"
            + _read("LICENSES", "Apache-2.0.txt") + "\n" + "=" * 78
            + "\nLICENSES/BSD-2-Clause.txt\n\n" + _read("LICENSES", "BSD-2-Clause.txt"))


def readme(opts, c, asm, entries) -> str:
    from .vendor_readme import text
    return text(opts, c, asm, entries, banner(opts, "this README"))


def bundle_manifest(opts, entries, files) -> str:
    doc = {"license": f"SPDX-License-Identifier: {SPDX_LICENSE}",
           "schema": BUNDLE_SCHEMA, "generator": f"aesgen {VERSION}",
           "about": " ".join(banner(opts, "the manifest")),
           "options": opts, "command": command_line(opts), "target": target_name(opts),
           "environment": [f"{opts['prefix'].upper()}AESGEN_ISA",
                           f"{opts['prefix'].upper()}AESGEN_VARIANT"],
           "files": {p: hashlib.sha256(t.encode("utf-8")).hexdigest()
                     for p, t in sorted(files.items())},
           "generated": entries}
    return json.dumps(doc, indent=1) + "\n"


def bundle(opts, knobs_of=None) -> Dict[str, str]:
    """{relative path: text} of the whole bundle."""
    if knobs_of is None:
        recorded = manifest.load(os.path.join(REPO, "gen"))

        def knobs_of(isa, mode):
            entry = recorded.get((isa, mode))
            return entry["knobs"] if entry else {}
    files, entries = assembly(opts, knobs_of)
    isas = [ISAS[name] for name in opts["isas"]]
    gen_entries = [dict(e, files={"S": {"path": e["files"][opts["os"][0]]}}) for e in entries]
    gen_header = manifest.header_text(
        gen_entries, isas=isas, modes=opts["modes"],
        regenerate="regenerate the bundle: " + command_line(opts))
    c_texts = {name: runtime_file(name, opts) for name in c_files(opts)}
    for name, text in c_texts.items():
        files[f"src/{name}"] = text
    for name in PRIVATE_HEADERS:
        files[f"src/{name}"] = runtime_file(name, opts)
    files["src/aesgen_gen.h"] = gen_header
    files["src/asm_abi.h"] = (spdx_c() + c_comment(banner(opts, "the runtime's view of "
                                                          "include/aesgen_asm.h"))
                              + '#include "aesgen_asm.h"\n')
    files["src/aesgen_config.h"] = config_header(opts, entries, c_texts, gen_header)
    files["include/aesgen.h"] = public_header(opts)
    files["include/aesgen_asm.h"] = asm_header(opts, entries)
    c, headers, private, asm = lists(opts, files)
    files["sources.json"] = sources_json(opts, c, headers, private, asm)
    files["sources.cmake"] = sources_cmake(opts, c, headers, private, asm)
    files["sources.mk"] = sources_mk(opts, c, headers, private, asm)
    files["sources.bzl"] = sources_bzl(opts, c, headers, private, asm)
    files["BUILD.bazel"] = build_bazel(opts, asm)
    files["CMakeLists.txt"] = cmakelists(opts, asm)
    files["meson.build"] = meson_build(opts, c, asm)
    files["LICENSE"] = license_text(opts)
    files["README.md"] = readme(opts, c, asm, entries)
    files[BUNDLE_MANIFEST] = bundle_manifest(opts, entries, files)
    # sha256sum -c skips the '#' lines.
    files["SHA256SUMS"] = spdx_hash() + hash_comment(
        banner(opts, "the sha256 of every other file; check with `sha256sum -c SHA256SUMS`")
    ) + "".join(f"{hashlib.sha256(t.encode('utf-8')).hexdigest()}  {p}\n"
                for p, t in sorted(files.items()))
    return dict(sorted(files.items()))


# ---- the command -------------------------------------------------------------------------

def write(out: str, files: Dict[str, str]):
    for path, text in files.items():
        target = os.path.join(out, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)


def foreign(directory: str, files: Dict[str, str]) -> List[str]:
    """Files under the bundle's own directories that the bundle does not hold (left over
    from an earlier bundle with other options, say): named, never deleted."""
    extra = []
    for sub in sorted({p.split("/")[0] for p in files if "/" in p}):
        for root, _, names in os.walk(os.path.join(directory, sub)):
            for name in names:
                path = os.path.relpath(os.path.join(root, name), directory).replace(os.sep, "/")
                if path not in files:
                    extra.append(path)
    return sorted(extra)


def read_options(directory: str):
    path = os.path.join(directory, BUNDLE_MANIFEST)
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
        if doc.get("schema") != BUNDLE_SCHEMA:
            raise ValueError(f"schema is not {BUNDLE_SCHEMA}")
        o = doc["options"]
        opts = options(o["prefix"], ",".join(o["isas"]), ",".join(o["modes"]),
                       ",".join(o["os"]))
        knobs = {(e["isa"], e["mode"]): e["knobs"] for e in doc["generated"]}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise UsageError(f"{path}: not a bundle manifest ({error}); make the bundle with "
                         "`python3 -m generator vendor --out DIR`") from None
    return opts, (lambda isa, mode: knobs.get((isa, mode), {}))


def check(directory: str) -> List[str]:
    """The bundle files of directory that differ from a fresh bundle or are missing."""
    opts, knobs_of = read_options(directory)
    bad = []
    for path, text in bundle(opts, knobs_of).items():
        target = os.path.join(directory, path)
        try:
            with open(target, "rb") as handle:
                same = handle.read() == text.encode("utf-8")
        except OSError:
            bad.append(f"missing: {path}")
            continue
        if not same:
            bad.append(f"differs: {path}")
    return bad
