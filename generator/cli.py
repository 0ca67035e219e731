# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Command line: python3 -m generator {gen,list,show,vendor} ...

Exit status: 0 done, 1 `gen --check` found stale files (or `vendor --check` files that
differ), 2 bad input (the message names the bad value and the valid ones).
"""

import argparse
import difflib
import os
import sys

from . import VERSION, manifest, vendor
from .abi import ABIS, get_abi
from .errors import TemplateError, UsageError
from .isa import ISAS, get_isa, has_mode
from .knobs import KNOBS, parse_assignment, resolve
from .modes import MODES, generated_pairs, get_mode
from .flavours import FLAVOURS, get_flavour
from .render import build, generate
from .plan import Refused, constraints
from .vregs import DoesNotFit

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        raise UsageError(message)


def build_parser():
    parser = _Parser(prog="python3 -m generator",
                     description="Generate x86-64 AES assembly (GNU as .S and NASM .asm).")
    parser.add_argument("--version", action="version", version=f"aesgen {VERSION}")
    sub = parser.add_subparsers(dest="command", metavar="{gen,list,show,vendor}")
    sub.required = True

    gen = sub.add_parser("gen", help="write gen/<isa>/<mode>.S and .asm, gen/manifest.json "
                                     "and gen/aesgen_gen.h",
                         description="Write gen/<isa>/<mode>.S and .asm. Without --isa or "
                                     "--mode: all of them.  gen/manifest.json and "
                                     "gen/aesgen_gen.h always describe every file (the "
                                     "others keep the knobs the manifest records).")
    show = sub.add_parser("show", help="print one generated file to stdout")
    # gen takes several (default all); show exactly one of each (_show refuses others)
    for command, count in ((gen, " (repeatable)"), (show, " (exactly one)")):
        command.add_argument("--isa", action="append", metavar="ISA",
                             help="one of: " + ", ".join(ISAS) + count)
        command.add_argument("--mode", action="append", metavar="MODE",
                             help="one of: " + ", ".join(MODES) + count)
        command.add_argument("--abi", default="sysv",
                             help="calling convention: " + ", ".join(ABIS) + " (show --os picks its own)")
        command.add_argument("knobs", nargs="*", metavar="KNOB=VALUE",
                             help="knob settings, see `list`")
    gen.add_argument("--out", default=os.path.join(REPO, "gen"), type=os.path.expanduser,
                     help="output directory (default: the repository's gen/)")
    gen.add_argument("--check", action="store_true",
                     help="write nothing; exit 1 if any file would change")
    gen.add_argument("--make-overrides", default="", metavar="WORDS",
                     help="make's command-line variables (`make gen` passes MAKEOVERRIDES): "
                          "the KNOB=VALUE words among them are knob settings, the rest "
                          "(ISA, MODE, BUILD, ...) are ignored")
    show.add_argument("--syntax", choices=("S", "asm"), default="S",
                      help="S = GNU as AT&T, asm = NASM")
    show.add_argument("--os", default="linux", metavar="OS",
                      help="target OS flavour, one of: " + ", ".join(FLAVOURS)
                           + " (linux: ELF, as in gen/)")
    sub.add_parser("list", help="ISAs, modes and knobs with their defaults")
    vend = sub.add_parser("vendor", help="write a ready-to-copy bundle (assembly, runtime, "
                                         "headers, CMake/Meson/Bazel/make lists)",
                          description="Write a bundle to copy into another project "
                                      "(generator/vendor.py; its README.md says how to "
                                      "build it).  Lists are comma-separated; default all.")
    target = vend.add_mutually_exclusive_group(required=True)
    target.add_argument("--out", metavar="DIR", type=os.path.expanduser,
                        help="write the bundle here")
    target.add_argument("--check", metavar="DIR", type=os.path.expanduser,
                        help="regenerate the bundle DIR/manifest.json describes; exit 1 "
                             "naming every file that differs or is missing")
    vend.add_argument("--prefix", default="", metavar="P",
                      help="symbol prefix: every external symbol is P + its name "
                           "(e.g. aa_); environment variables upper-case P + name")
    vend.add_argument("--isa", metavar="LIST", help="of: " + ", ".join(ISAS))
    vend.add_argument("--mode", metavar="LIST", help="of: " + ", ".join(MODES))
    vend.add_argument("--os", metavar="LIST", help="of: " + ", ".join(FLAVOURS))
    return parser


def _selected(names, table, getter):
    return [getter(name) for name in names] if names else list(table.values())


def _generate_checked(mode, isa, abi, assignments):
    """Resolve the knobs and generate; a knob combination whose plan does not fit is a
    usage error (exit 2) naming the values that fit, found by planning, not rendering."""
    if not has_mode(isa, mode.name):
        raise UsageError(f"ISA {isa.name} has no mode {mode.name}; its modes: "
                         + ", ".join(isa.modes))
    knobs = resolve(mode, isa, assignments)
    try:
        return knobs, generate(mode, isa, knobs, abi)
    except Refused as error:
        raise UsageError(str(error)) from None


def _make_knobs(words: str):
    """The knob settings among make's command-line variables.  make passes every
    variable of its command line (ISA=, GEN_OUT=, CC=...), so a name that is not a knob
    is not an error, unless it is one misspelled or in lower case (UNROL=16, Unroll=4:
    silently generating the defaults would be worse)."""
    knobs = []
    for word in words.split():
        name, sep, _ = word.partition("=")
        if not sep:
            continue
        if name in KNOBS:
            knobs.append(word)
            continue
        close = difflib.get_close_matches(name.upper(), KNOBS, n=1, cutoff=0.8)
        if close:
            raise UsageError(f"unknown knob '{name}' (did you mean {close[0]}?); "
                             f"knobs: {', '.join(KNOBS)}")
    return knobs


def _write_if_changed(path, text, check, stale):
    old = None
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            old = handle.read()
    if old == text:
        return
    stale.append(path)
    if not check:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)


def manifest_entries(out, abi, chosen):
    """The manifest's entries of the ISA x mode files in out: the knobs just generated
    (chosen: {(isa, mode): knobs}), else those the existing manifest records, else the
    defaults.  A pair with no file in out (a fresh --out / GEN_OUT directory holding only
    what was just generated) has no entry: the manifest describes the files beside it."""
    recorded = manifest.load(out)
    entries = []
    for isa, mode in generated_pairs():
        key = (isa.name, mode.name)
        if key not in chosen and not os.path.exists(os.path.join(out, isa.name,
                                                                 f"{mode.name}.S")):
            continue
        if key in chosen:
            knobs = chosen[key]
        elif key in recorded:
            knobs = resolve(mode, isa, recorded[key]["knobs"])
        else:
            knobs = resolve(mode, isa, {})
        try:
            output = build(mode, isa, knobs, abi)
        except DoesNotFit as error:
            raise UsageError(
                f"{os.path.join(out, manifest.MANIFEST)} records {isa.name}/{mode.name} "
                f"with {' '.join(f'{k}={v}' for k, v in sorted(knobs.items()))}, which "
                f"does not fit any more ({error}); regenerate it with knobs that fit: "
                f"gen --isa {isa.name} --mode {mode.name} KNOB=VALUE...") from None
        entries.append(manifest.file_entry(mode, isa, knobs, abi, output))
    return entries


def command_gen(args):
    abi = get_abi(args.abi)
    assignments = dict(parse_assignment(k)
                       for k in _make_knobs(args.make_overrides) + list(args.knobs))
    # Everything is generated before anything is written: a refused pair (or a manifest
    # that cannot be read) leaves the directory as it was, not half rewritten.
    outputs, chosen = [], {}
    for isa in _selected(args.isa, ISAS, get_isa):
        for mode in _selected(args.mode, MODES, get_mode):
            if not has_mode(isa, mode.name) and not (args.isa and args.mode):
                continue            # an ISA with fewer modes (vperm_ssse3)
            knobs, texts = _generate_checked(mode, isa, abi, assignments)
            chosen[(isa.name, mode.name)] = knobs
            outputs += [(os.path.join(args.out, isa.name, f"{mode.name}.{ext}"), text)
                        for ext, text in texts.items()]
    outputs += [(os.path.join(args.out, name), text) for name, text in
                manifest.outputs(manifest_entries(args.out, abi, chosen)).items()]
    stale = []
    for path, text in outputs:
        _write_if_changed(path, text, args.check, stale)
    verb = "stale" if args.check else "wrote"
    for path in stale:
        print(f"{verb}: {os.path.relpath(path)}")
    return 1 if (args.check and stale) else 0


def command_show(args):
    if len(args.isa or []) != 1 or len(args.mode or []) != 1:
        raise UsageError("show needs exactly one --isa and one --mode")
    assignments = dict(parse_assignment(k) for k in args.knobs)
    mode, isa, abi = get_mode(args.mode[0]), get_isa(args.isa[0]), get_abi(args.abi)
    knobs, texts = _generate_checked(mode, isa, abi, assignments)
    flavour = get_flavour(args.os)
    if flavour.os != "linux":
        if args.syntax != flavour.syntax:
            raise UsageError(f"--os {args.os} is a GNU as (.S) flavour; valid with --syntax S"
                             if flavour.syntax == "S" else
                             f"--os {args.os} is a NASM (.asm) flavour; valid with --syntax asm")
        texts = generate(mode, isa, knobs, get_abi(flavour.abi),
                         printers={flavour.syntax: flavour.printer})
    sys.stdout.write(texts[args.syntax])
    return 0


def command_list(_args):
    print("ISAs:")
    for isa in ISAS.values():
        print(f"  {isa.name:<10} {isa.summary}; needs {', '.join(isa.features)}"
              + ("" if len(isa.modes) == len(MODES) else f"; modes {', '.join(isa.modes)}"))
    print("modes:")
    for mode in MODES.values():
        defaults = " ".join(f"{k}={v}" for k, v in sorted(mode.defaults.items()))
        print(f"  {mode.name:<10} {mode.summary}; knobs {', '.join(mode.knobs)} "
              f"(defaults {defaults}, KEYS=reg on 32-register ISAs, mem on 16)")
    print("constraints (checked by the plan before anything is rendered):")
    for mode in MODES.values():
        for rule in constraints(mode):
            print(f"  {mode.name:<10} {rule}")
    print("knobs:")
    for knob in KNOBS.values():
        only = f" (on {', '.join(knob.isas)} only)" if knob.isas else ""
        print(f"  {knob.name:<10} {'|'.join(str(v) for v in knob.values)}{only}: {knob.doc}")
    return 0


def command_vendor(args):
    if args.check:
        if args.prefix or args.isa or args.mode or args.os:
            raise UsageError("--check reads the options from the bundle's manifest.json; "
                             "valid with --check: no --prefix, --isa, --mode or --os")
        bad = vendor.check(args.check)
        for line in bad:
            print(f"{line}", file=sys.stderr)
        if not bad:
            print(f"{args.check}: fresh")
        return 1 if bad else 0
    opts = vendor.options(args.prefix, args.isa, args.mode, args.os)
    files = vendor.bundle(opts)
    vendor.write(args.out, files)
    print(f"wrote {len(files)} files to {args.out}")
    for path in vendor.foreign(args.out, files):
        print(f"note: {path} is not part of this bundle (left alone)", file=sys.stderr)
    return 0


def main(argv=None):
    try:
        args = build_parser().parse_args(argv)
        handler = {"gen": command_gen, "list": command_list, "show": command_show,
                   "vendor": command_vendor}
        return handler[args.command](args)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except TemplateError as error:
        print(f"template error: {error}", file=sys.stderr)
        return 3
    except OSError as error:        # an --out path that is a file, not writable, ...
        print(f"error: {error}", file=sys.stderr)
        return 2
