# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Command line: python3 -m perf {mca,mca-check,mca-baseline,explore,bench-report,marks,
bitslice-order,bitslice-probe,aes-chain-probe} ...

Exit status: 0 done, 1 a check failed (mca-check, marks --check) or a step failed, 2 bad input or a
missing tool (the message names the valid values or the package to install).
"""

import argparse
import json
import os
import shutil
import sys

from generator.errors import UsageError
from generator.isa import ISAS
from generator.modes import MODES

from . import baseline, check_writable, mca

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = os.path.join(REPO, "mca", "baseline.json")
ESTIMATES_SCHEMA = "aesgen-mca-estimates-1"


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        raise UsageError(message)


def _choices(text, table, what):
    """'all' or a comma list of names from table (an ISA or mode or model table)."""
    if text in (None, "", "all"):
        return list(table)
    names = [n.strip() for n in text.split(",") if n.strip()]
    for name in names:
        if name not in table:
            raise UsageError(f"unknown {what} '{name}'; valid: {', '.join(table)}, all")
    return names


def require_llvm_mca():
    if shutil.which(mca.LLVM_MCA) is None:
        raise UsageError(f"{mca.LLVM_MCA} not found; install the Debian package llvm-19 "
                         "(tests/tools.sh does it as root)")


def method() -> dict:
    return {"iterations": [mca.ITERATIONS, 2 * mca.ITERATIONS],
            "cycles_per_iteration": f"(total cycles at {2 * mca.ITERATIONS} iterations - at "
                                    f"{mca.ITERATIONS}) / {mca.ITERATIONS}",
            "paths": "aesNNN: the iteration for that key size, common path (rare paths "
                     "such as the CTR carry skipped); main: the only path"}


def estimate_files(files, models=None):
    """(estimates, {file: [region names]}, llvm-mca version) of these generated files;
    a missing file is left out (mca-check then reports it), paths relative to the repo."""
    variants, regions = [], {}
    for path in files:
        if not os.path.exists(path):
            continue
        variant = mca.read_variant(path)
        variant.path = os.path.relpath(path, REPO)
        variants.append(variant)
        regions[variant.path] = [r.name for r in variant.regions]
    return mca.estimate(variants, models), regions, mca.mca_version()


def command_mca(args):
    require_llvm_mca()
    check_writable(args.json, "--json")
    models = _choices(args.model, mca.MODELS, "model")
    files = mca.generated_files(args.gen, _choices(args.isa, ISAS, "ISA"),
                                _choices(args.mode, MODES, "mode"))
    if not files:
        raise UsageError(f"gen/ has no file of --isa {args.isa or 'all'} --mode "
                         f"{args.mode or 'all'}; the modes of each ISA: "
                         + "; ".join(f"{isa.name}: {', '.join(isa.modes)}"
                                     for isa in ISAS.values()))
    estimates, regions, version = estimate_files(files, models)
    if not estimates:           # nothing to write over the last estimates with
        raise UsageError(f"no main loop of --isa {args.isa or 'all'} --mode "
                         f"{args.mode or 'all'} runs on --model {args.model or 'all'}; the "
                         "models each ISA runs on: "
                         + "; ".join(f"{isa.name}: {', '.join(mca.legal_models(isa.features))}"
                                     for isa in ISAS.values()))
    print(mca.format_table(estimates, version))
    document = {"schema": ESTIMATES_SCHEMA, "llvm_mca": version, "method": method(),
                "models": {m: sorted(mca.MODELS[m]) for m in models},
                "variants": regions, "estimates": [e.as_json() for e in estimates]}
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1)
        handle.write("\n")
    print(f"wrote {os.path.relpath(args.json)} ({len(estimates)} estimates)")
    return 0


def current_snapshot(gen_dir):
    estimates, regions, version = estimate_files(mca.generated_files(gen_dir))
    return baseline.snapshot(estimates, regions, version, method()), len(estimates)


def check(gen_dir, baseline_path):
    """(exit status, report text) of the current gen/ against the baseline file."""
    try:
        base = baseline.load(baseline_path)
    except FileNotFoundError:
        return 1, f"mca-check FAILED: {baseline_path} missing; run `make mca-baseline`"
    snapshot, count = current_snapshot(gen_dir)
    findings = baseline.compare(base, snapshot)
    return (1 if any(f.fails for f in findings) else 0), baseline.report(findings, count)


def command_mca_check(args):
    require_llvm_mca()
    status, text = check(args.gen, args.baseline)
    print(text)
    return status


def command_mca_baseline(args):
    require_llvm_mca()
    snapshot, count = current_snapshot(args.gen)
    baseline.save(args.baseline, snapshot)
    print(f"wrote {os.path.relpath(args.baseline)} ({count} estimates, {snapshot['llvm_mca']})")
    return 0


def build_parser():
    parser = _Parser(prog="python3 -m perf",
                     description="llvm-mca estimates, the knob sweep (explore), bench "
                                 "reports and marks, timing probes (docs/perf-tools.md).",
                     epilog=" ".join(__doc__.split("\n\n")[1].split()))
    sub = parser.add_subparsers(dest="command", metavar="{mca,mca-check,mca-baseline,"
                                                       "explore,bench-report,marks,bitslice-order,"
                                                       "bitslice-probe,aes-chain-probe}")
    sub.required = True
    gen_default = os.path.join(REPO, "gen")

    run = sub.add_parser("mca", help="llvm-mca estimates of every marked loop in gen/")
    run.add_argument("--gen", default=gen_default, help="directory of <isa>/<mode>.S")
    run.add_argument("--isa", help="comma list or all: " + ", ".join(ISAS))
    run.add_argument("--mode", help="comma list or all: " + ", ".join(MODES))
    run.add_argument("--model", help="comma list or all: " + ", ".join(mca.MODELS))
    run.add_argument("--json", default=os.path.join(REPO, "build", "mca", "estimates.json"))

    for name, text in (("mca-check", "compare gen/ with mca/baseline.json"),
                       ("mca-baseline", "rewrite mca/baseline.json from gen/")):
        command = sub.add_parser(name, help=text)
        command.add_argument("--gen", default=gen_default)
        command.add_argument("--baseline", default=BASELINE)

    from . import aes_chain_probe, bitslice_order, bitslice_probe, explore, marks, report
    explore.add_parser(sub)
    report.add_parser(sub)
    marks.add_parser(sub)
    bitslice_order.add_parser(sub)
    bitslice_probe.add_parser(sub)
    aes_chain_probe.add_parser(sub)
    return parser


def main(argv=None):
    from . import aes_chain_probe, bitslice_order, bitslice_probe, explore, marks, report
    handlers = {"mca": command_mca, "mca-check": command_mca_check,
                "mca-baseline": command_mca_baseline, "explore": explore.command,
                "bench-report": report.command, "marks": marks.command,
                "bitslice-order": bitslice_order.command,
                "bitslice-probe": bitslice_probe.command,
                "aes-chain-probe": aes_chain_probe.command}
    try:
        args = build_parser().parse_args(argv)
        return handlers[args.command](args)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:        # an output path that is a file, a directory not writable
        print(f"error: {error}", file=sys.stderr)
        return 2
    except mca.McaError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
