#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Writes the Windows x64 flavour (generator/flavours.py "win": Win64 ABI, NASM win64
with SEH tables) of every file gen/manifest.json lists, with the knobs it records, to
OUT/<isa>/<mode>.asm: the assembly the Windows test program is linked with.  Not
committed (gen/ holds the Linux flavour); a file whose text is unchanged is not
rewritten, so make reassembles only what changed.

Usage: python3 tests/win/gen_win.py --out DIR
"""

import argparse
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)

from generator import manifest                      # noqa: E402
from generator.abi import get_abi                   # noqa: E402
from generator.flavours import FLAVOURS             # noqa: E402
from generator.isa import get_isa                   # noqa: E402
from generator.knobs import resolve                 # noqa: E402
from generator.modes import get_mode                # noqa: E402
from generator.render import generate               # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    flavour = FLAVOURS["win"]
    recorded = manifest.load(os.path.join(REPO, "gen"))
    if not recorded:
        print("gen/manifest.json: missing or unreadable (run make gen)", file=sys.stderr)
        return 2
    for (isa_name, mode_name), entry in sorted(recorded.items()):
        mode, isa = get_mode(mode_name), get_isa(isa_name)
        knobs = resolve(mode, isa, entry["knobs"])
        text = generate(mode, isa, knobs, get_abi(flavour.abi),
                        printers={flavour.syntax: flavour.printer})[flavour.syntax]
        path = os.path.join(args.out, isa_name, f"{mode_name}.asm")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as handle:
                if handle.read() == text:
                    continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
