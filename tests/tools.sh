#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
# Makes sure the tools the tests (and the generator's tests) need are present:
# nasm, llvm-mca-19, binutils (objdump, objcopy, readelf, nm), cmake and pkg-config
# (the install/consumer test, tests/python/test_install.py), and clang (assembles the
# macOS flavour, tests/python/test_apple.py; builds the fuzz targets and the
# constant-time check, tests/fuzz, tests/ct) with its libFuzzer/sanitizer runtimes
# (libclang-rt-N-dev for clang N), valgrind with its client-request headers, meson
# and ninja (the vendored bundle's Meson consumer, tests/python/test_vendor.py), and
# mingw-w64 and wine (the Windows x64 test program, tests/win; Debian 12's wine needs
# wine64 for 64-bit programs), Bazel (Debian's bazel-bootstrap: the vendored
# bundle's Bazel consumer, tests/python/test_vendor.py), and qemu-user (the C groups
# on emulated CPUs without AVX-512, VAES, AVX, AES-NI or SSSE3, tests/emulated).
# Quiet when all are there.  As root, installs what is missing with apt-get;
# otherwise exits 2 naming the Debian packages to install.
set -u

missing_tools=""
missing_packages=""

need() {   # need TOOL PACKAGE
    if ! command -v "$1" >/dev/null 2>&1; then
        missing_tools="$missing_tools $1"
        case " $missing_packages " in
            *" $2 "*) ;;
            *) missing_packages="$missing_packages $2" ;;
        esac
    fi
}

need_file() {   # need_file PATH PACKAGE: PATH must exist
    [ -e "$1" ] && return 0
    missing_tools="$missing_tools $1"
    case " $missing_packages " in
        *" $2 "*) ;;
        *) missing_packages="$missing_packages $2" ;;
    esac
}

# libFuzzer comes with clang's runtimes, packaged per clang version (Debian 12: clang 14).
need_fuzzer_runtime() {
    command -v clang >/dev/null 2>&1 || return 0      # need clang reports it
    clang_major=$(clang -dumpversion | cut -d. -f1)
    need_file "$(clang --print-runtime-dir)/libclang_rt.fuzzer-x86_64.a" "libclang-rt-$clang_major-dev"
}

check_all() {
    missing_tools=""
    missing_packages=""
    need nasm nasm
    need llvm-mca-19 llvm-19
    need objdump binutils
    need objcopy binutils
    need readelf binutils
    need nm binutils
    need cmake cmake
    need meson meson
    need ninja ninja-build
    need pkg-config pkg-config
    need clang clang
    need_fuzzer_runtime
    need valgrind valgrind
    need_file /usr/include/valgrind/memcheck.h valgrind
    need x86_64-w64-mingw32-gcc gcc-mingw-w64-x86-64
    need wine wine
    need_file /usr/lib/wine/wine64 wine64
    need bazel bazel-bootstrap
    need qemu-x86_64 qemu-user
}

# Two rounds: the libFuzzer runtime's package is named after the clang version,
# known only once clang is installed.
updated=""
for round in 1 2; do
    check_all
    [ -z "$missing_tools" ] && exit 0

    if [ "$(id -u)" -ne 0 ]; then
        echo "tests/tools.sh: missing:$missing_tools" >&2
        echo "tests/tools.sh: install the Debian packages:$missing_packages" >&2
        echo "    sudo apt-get install -y$missing_packages" >&2
        exit 2
    fi

    echo "tests/tools.sh: missing:$missing_tools; installing:$missing_packages" >&2
    if [ -z "$updated" ]; then
        apt-get update >&2 || { echo "tests/tools.sh: apt-get update failed" >&2; exit 2; }
        updated=yes
    fi
    # shellcheck disable=SC2086  # word splitting of the package list is intended
    DEBIAN_FRONTEND=noninteractive apt-get install -y $missing_packages >&2 \
        || { echo "tests/tools.sh: apt-get failed" >&2; exit 2; }
done

check_all
if [ -n "$missing_tools" ]; then
    echo "tests/tools.sh: still missing after install:$missing_tools" >&2
    exit 2
fi
