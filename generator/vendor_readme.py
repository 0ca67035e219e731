# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""README.md of a vendored bundle (generator/vendor.py): what is in it and how to build it."""

from . import SPDX_LICENSE, VERSION
from .flavours import FLAVOURS

# What tests/python/test_vendor.py and test_apple.py build the bundles with (Debian 12).
TESTED_WITH = ("GNU as 2.40 and GCC 12.2 (Linux, ELF)",
               "clang 14.0.6 (`-target x86_64-apple-macos11`: the -apple.S files assemble "
               "and disassemble to the Linux code; not run on macOS)",
               "NASM 2.16.01",
               "CMake 3.25.1, Meson 1.0.1 with ninja, GNU make 4.3",
               "Bazel 4.2.3 (Debian's `bazel-bootstrap`, offline; Linux only: the macOS "
               "branch of `BUILD.bazel` has not run)")

# What tests/python/test_vendor_win.py builds and runs the Windows flavour with (Debian 12).
TESTED_WINDOWS = (
    "Built on Linux with MinGW-w64 GCC 12 (`x86_64-w64-mingw32-gcc` 12-win32, Debian "
    "`gcc-mingw-w64-x86-64`), its GNU ld 2.40, and NASM 2.16.01 (`nasm -f win64`), from "
    "`sources.mk` as a plain make project would (the C files, `$(AESGEN_ASM_WIN)` with "
    "`$(AESGEN_NASMFLAGS_WIN)`, a prefixed bundle's `$(AA_AESGEN_...)`); run under wine "
    "8.0 (Debian 8.0~repack-4, a 64-bit prefix): "
    "every known-answer vector of every mode on every ISA the CPU has, the ISA the runtime "
    "picks, two bundles with prefixes `aa_` and `bb_` in one .exe (each with its own "
    "environment variable), and the bundle in a DLL (export table read with "
    "`x86_64-w64-mingw32-objdump -p`: only the user's entry, with and without a "
    "`__declspec(dllexport)`; and the API exported when `AESGEN_API` is "
    "`__declspec(dllexport)`).  `CMakeLists.txt` with CMake 3.25.1 configured on Linux for "
    "Windows (`CMAKE_SYSTEM_NAME=Windows`, the same MinGW-w64 GCC; NASM through CMake's "
    "`ASM_NASM`, `-f win64`): the `aa_` and `bb_` bundles in one .exe, run as above.",
    "Not tested: real Windows, MSVC and clang-cl (the C files are written for them: "
    "`__cpuid`/`_xgetbv` where the compiler is MSVC-like, but no MSVC has built them), "
    "lld, GNU ld before 2.40, CMake on Windows itself or with another generator than "
    "Ninja, `meson.build` for Windows (its NASM branch has not run), Bazel other than "
    "4.2.3 or on macOS.")


def text(opts, c, asm, entries, banner) -> str:
    p = opts["prefix"]
    target = f"{p}aesgen"
    var = f"{p.upper()}AESGEN"
    env = p.upper()
    flavours = "\n".join(f"- `{o}`: {FLAVOURS[o].summary}; files `asm/aesgen-<mode>-<isa>-{o}."
                         f"{FLAVOURS[o].syntax}`" for o in opts["os"])
    functions = "\n".join(
        f"| {e['mode']} | {e['isa']} | {', '.join(f['linker_symbol'] for f in e['functions'])} "
        f"| {', '.join(e['cpu_features'])} |" for e in entries)
    tested = "\n".join(f"- {t}" for t in TESTED_WITH)
    tested_windows = "\n".join(f"- {t}" for t in TESTED_WINDOWS)
    windows = "" if "win" not in opts["os"] else f"""
## Windows x64

The `-win.asm` files follow the Win64 calling convention and carry SEH unwind tables
(`.pdata`/`.xdata`) for every function; assemble them with `nasm -f win64` (in another
format each assembles to nothing).  With plain make:

```make
include third_party/{target}/sources.mk
SRCS += $({var}_C_SOURCES) $({var}_ASM_WIN)
CPPFLAGS += -I$({var}_INCLUDE_DIR)
%.obj: %.asm
\tnasm $({var}_NASMFLAGS_WIN) -o $@ $<          # -f win64
```

CMake enables `ASM_NASM` on `WIN32` (CMake picks `-f win64` for a 64-bit target); Meson
adds the `nasm` language on Windows.

DLLs: MSVC's linker exports only what is marked `__declspec(dllexport)` (or listed in a
`.def` file), and the bundle marks nothing.  GNU ld (MinGW) exports *every* global
symbol of a DLL that has no `__declspec(dllexport)` at all.  So that this does not
export the bundle, every object of it carries a linker directive
(`-exclude-symbols:` in its `.drectve` section, naming the object's global symbols),
which GNU ld 2.40 and later and lld obey: the DLL then exports only your own
symbols.  With an older GNU ld (not tested), link the DLL with
`-Wl,--exclude-libs,lib{target}.a` (the bundle as a static library) or give it a `.def`
file.  To export the bundle's API from your DLL, define `AESGEN_API` as
`__declspec(dllexport)` before including `aesgen.h`, everywhere (an explicit dllexport
is not affected by the directive).

Tested:
{tested_windows}
"""
    prefix_rules = (
        f"This bundle was made with `--prefix {p}`: every external symbol is `{p}` + its "
        f"name (`{p}aesgen_gcm_init`, `{p}aesgen_ctr_crypt_avx10_512`, ...), the C API as "
        "well as the internal names and the assembly.  `include/aesgen.h` maps the usual "
        f"names onto them (`#define aesgen_gcm_init {p}aesgen_gcm_init`), so code written "
        "against aesgen.h compiles unchanged; a translation unit sees one bundle's API. "
        f"The runtime reads `{env}AESGEN_ISA` and `{env}AESGEN_VARIANT`, never the "
        "unprefixed variables, so two bundles in one process choose independently."
        if p else
        "This bundle has no prefix: its symbols are `aesgen_*` and it reads `AESGEN_ISA` "
        "and `AESGEN_VARIANT`.  To put two copies into one program (e.g. two libraries "
        "that each vendor aesgen), make each with its own `--prefix P`: every external "
        "symbol is then `P` + its name, and the environment variables are upper-case "
        "`P` + their name.")
    return f"""<!-- SPDX-License-Identifier: {SPDX_LICENSE} -->
<!-- {' '.join(' '.join(banner).split())} -->
# aesgen {VERSION}, vendored

AES-CTR, XCTR, XTS and GCM in generated x86-64 assembly with a C11 runtime that picks
the fastest code the CPU runs.  Copy this directory into your tree, add one line to your
build (below), include `aesgen.h`.  No Python, no generator, no `-D` flags.

Made by `{' '.join(banner[1].split())}`: ISAs {', '.join(opts['isas'])}; modes
{', '.join(opts['modes'])}; OS flavours {', '.join(opts['os'])}.

## What is in it

| path | what |
| --- | --- |
| `include/aesgen.h` | the public API (see the comments in it); `AESGEN_BUNDLE_<MODE>` and `AESGEN_BUNDLE_ISA_<ISA>` say what this bundle holds |
| `include/aesgen_asm.h` | the raw entry points of the assembly (C and C++), their contracts, the key layouts with known-answer bytes, the CPU features each function needs |
| `src/*.c`, `src/*.h` | the runtime: CPU detection, dispatch, key setup, the streaming API, the portable constant-time code; `src/aesgen_config.h` is its configuration (generated) |
| `asm/` | the assembly, one file per mode, ISA and OS; each assembles to nothing on a non-x86-64 target |
| `CMakeLists.txt`, `sources.cmake` | CMake |
| `meson.build` | Meson |
| `BUILD.bazel`, `sources.bzl` | Bazel (the package and its lists) |
| `sources.mk` | plain make lists |
| `sources.json` | the same lists for anything else |
| `manifest.json` | the options, every file's sha256, each assembly file's knobs, functions and CPU features |
| `SHA256SUMS` | `sha256sum -c SHA256SUMS` checks the copy without Python |
| `LICENSE` | Apache-2.0 OR BSD-2-Clause, both texts |

OS flavours:
{flavours}

The API of a mode not in the bundle is not in it either (its C file is left out: a call
fails to link, it never runs slower code).  The RFC 3686/4106/4543 functions come with
the modes ctr and gcm together.  Each ISA of the bundle is used when the CPU has it; the
portable C code runs only on a CPU with none of them, or when asked for by name
(`aesgen_select_isa("generic")`).  An ISA not in the bundle is not offered
(`aesgen_isa_supported` says 0).

The library is for x86-64.  On another target every assembly file assembles to an empty
object (a build that globs them still works, and a Linux one keeps its non-executable
stack), but the runtime refers to the assembly, so link it into x86-64 builds only.

| mode | ISA | functions (linker names) | CPU features |
| --- | --- | --- | --- |
{functions}

## Build it

CMake (3.16 or later):

```cmake
add_subdirectory(third_party/{target})
target_link_libraries(your_target PRIVATE aesgen::{target})
```

The target `{target}` is a static library with position-independent code (it can go into
a shared object); NASM is enabled on Windows.

Meson (0.64 or later): put the directory at `subprojects/{target}/`, then

```meson
{target}_dep = subproject('{target}').get_variable('{target}_dep')
executable('app', 'app.c', dependencies: {target}_dep)
```

(`dependency('{target}', fallback: '{target}')` would take an installed `{target}`
first, through pkg-config or CMake, and this bundle only where there is none.)

Bazel: the directory is a package (`BUILD.bazel`, a `cc_library` named `{target}`; its lists
in `sources.bzl`), here put at `third_party/{target}/`:

```python
cc_binary(name = "app", srcs = ["app.c"], deps = ["//third_party/{target}:{target}"])
```

It takes the `-apple.S` files on macOS and the `-linux.S` files elsewhere (each assembles
to nothing off x86-64), and is incompatible with Windows: Bazel's cc rules do not run
NASM, so there assemble the `-win.asm` files with `nasm -f win64` in a genrule, or use
CMake.

Plain make:

```make
include third_party/{target}/sources.mk
SRCS += $({var}_C_SOURCES) $({var}_ASM_LINUX)     # $({var}_ASM_APPLE) on macOS
CPPFLAGS += -I$({var}_INCLUDE_DIR)
```

(Windows: see "Windows x64" below.)

Compile the `.S` files with the C compiler (`cc -c x.S`); they go through the C
preprocessor.  Any C11 compiler: GCC, clang, or MSVC-like ones for the C files; the
header needs C11 or C++11 (`_Alignas`, `alignas`) in the code that includes it too.

## Visibility

The bundle exports nothing from the program or shared object it is built into: the API
is declared with hidden visibility in `include/aesgen.h`, the runtime's own symbols are
hidden by `src/aesgen_config.h` (a pragma after the system headers) and the assembly's
by `.hidden` / `.private_extern`.  None of it depends on your compiler flags.  To export
the API from your shared object, define `AESGEN_API` (e.g.
`__attribute__((visibility("default")))`) before including `aesgen.h`, everywhere.
Windows DLLs have no hidden visibility; what keeps the bundle out of their export table
is under "Windows x64" (when the bundle has the `win` flavour).
{windows}
## Symbol prefix

{prefix_rules}

## Checking a copy

`sha256sum -c SHA256SUMS` in this directory; or, with the aesgen repository,
`python3 -m generator vendor --check DIR`, which regenerates the bundle from the
options in `manifest.json` and names every file that differs or is missing.

## Tested with

{tested}

## License

Apache-2.0 OR BSD-2-Clause, at your choice (`LICENSE`).
"""
