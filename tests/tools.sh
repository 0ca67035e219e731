#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
# Makes sure the tools the tests (and the generator's tests) need are present:
# nasm, llvm-mca-19, binutils (objdump, objcopy, readelf, nm), and cmake and pkg-config
# (the install/consumer test, tests/python/test_install.py), clang (assembles the
# macOS flavour, tests/python/test_apple.py).
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
    need pkg-config pkg-config
    need clang clang
}

check_all
[ -z "$missing_tools" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "tests/tools.sh: missing:$missing_tools" >&2
    echo "tests/tools.sh: install the Debian packages:$missing_packages" >&2
    echo "    sudo apt-get install -y$missing_packages" >&2
    exit 2
fi

echo "tests/tools.sh: missing:$missing_tools; installing:$missing_packages" >&2
# shellcheck disable=SC2086  # word splitting of the package list is intended
apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y $missing_packages >&2 \
    || { echo "tests/tools.sh: apt-get failed" >&2; exit 2; }

check_all
if [ -n "$missing_tools" ]; then
    echo "tests/tools.sh: still missing after install:$missing_tools" >&2
    exit 2
fi
