# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The vendored bundles the tests build (test_vendor.py, test_vendor_win.py,
test_apple.py), written once per
run into $AESGEN_BUILD/vendor/bundles/<name> by generator/vendor.py; a file whose text
is unchanged is not rewritten, so the builds on top of them stay cached in build/."""

import os

from repo import REPO  # noqa: F401  (puts the repository on sys.path)

from generator import vendor

BUILD = os.environ.get("AESGEN_BUILD") or os.path.join(REPO, "build")
ROOT = os.path.join(BUILD, "vendor")

# name: vendor options (prefix, ISAs, modes, OS flavours); None is "all".
BUNDLES = {
    "full": ("", None, None, None),
    "aa": ("aa_", None, None, "linux,apple,win"),
    "bb": ("bb_", None, None, "linux,win"),
    "subset": ("", "aesni_avx,avx10_512", "xts,gcm", "linux"),
    "narrow": ("", "vaes_avx2", "ctr,gcm", "linux"),     # no aesni_avx: gcm.c's short path
    "fallback": ("", "vperm_ssse3", "gcm", "linux"),     # GCM on vperm's CTR file alone
    "no_gcm": ("", None, "ctr,xctr,xts", "linux"),       # every ISA, vperm_ssse3 too, no GCM
}

_made = {}


def write_if_changed(directory, files):
    for path, text in files.items():
        target = os.path.join(directory, path)
        data = text.encode("utf-8")
        try:
            with open(target, "rb") as handle:
                if handle.read() == data:
                    continue
        except OSError:
            pass
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(data)


def bundle(name):
    """(directory, {path: text}) of the named bundle, written if it changed."""
    if name not in _made:
        files = vendor.bundle(vendor.options(*BUNDLES[name]))
        directory = os.path.join(ROOT, "bundles", name)
        write_if_changed(directory, files)
        _made[name] = (directory, files)
    return _made[name]
