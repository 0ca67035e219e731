# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""make bench, after the run: llvm-mca calibration against the measurement, and charts.

Calibration: for each mode, key size and ISA the bench measured, the main loop's
llvm-mca estimate (cycles per byte) on the model closest to this CPU next to the
measured cycles per byte of the longest message, and the error in %.  Every other
legal model's error is listed too, with models known to be off flagged.  The estimate
covers the main loop alone; the measurement adds per-message work (the call, the tail),
a few % at 16 KiB, so a small optimistic error is expected.

Then issue 12's marks (perf/marks.py) for the run's `auto` cells: one run, so each
cell's figure is that run's (`make marks` takes several).

Charts: <out>/<mode>.png, GB/s against message length, one panel per key size; one line
per implementation (our ISAs, OpenSSL, generic when measured) and the AES-round ceiling
(the bench's independent vaesenc chains) as a dashed line.
"""

import json
import os
import shutil
from typing import Dict, List

from generator import uarch
from generator.isa import ISAS

from . import marks, mca, plots, read_bench_results

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROUNDS = {128: 10, 192: 12, 256: 14}


def split_mode(bench_mode: str):
    """Bench mode -> (generated file's mode, direction): 'xts-enc' -> ('xts', 'enc')."""
    mode, _, direction = bench_mode.partition("-")
    return mode, direction


def preferred_variant(variant: mca.Variant) -> str:
    """The suffix of the file's functions the runtime takes on this machine (as
    aesgen_variant_current in runtime/src/isa.c: AESGEN_VARIANT, else the CPU's uarch),
    from the file's manifest entry; "" for its own functions."""
    name = os.environ.get("AESGEN_VARIANT", "")
    if name == "none":
        return ""
    if name not in uarch.UARCHES and name != "default":
        host = uarch.host_uarch()
        name = host.name if host else "default"
    try:
        entry = mca.manifest_entry(variant.path)
    except mca.McaError:
        return ""
    for v in entry.get("variants", []):
        if name in v["uarches"]:
            return "_" + v["name"]
    return ""


def pick_region(variant: mca.Variant, bench_mode: str):
    """The region a bench mode times, of the variant this machine runs (the file's own
    where it has none): '<mode>_<direction>...' for a mode with a direction, else
    '<mode>_<isa>_...', else the encrypt one, else the first."""
    mode, direction = split_mode(bench_mode)
    suffix = preferred_variant(variant)
    wanted = ([f"{mode}_{direction}{suffix}_", f"{mode}_{direction}_"] if direction
              else [f"{mode}_{variant.isa}_", f"{mode}_enc_"])
    for prefix in wanted:
        mine = [r for r in variant.regions if r.name.startswith(prefix)]
        # a template that does not name its regions per variant: the suffix at the end
        chosen = ([r for r in mine if suffix and r.name.endswith(suffix)] or
                  [r for r in mine if not any(r.name.endswith("_" + v) for v in
                                              _variant_names(variant))])
        if chosen:
            return chosen[0]
    return None if direction else (variant.regions[0] if variant.regions else None)


def _variant_names(variant: mca.Variant):
    try:
        return [v["name"] for v in mca.manifest_entry(variant.path).get("variants", [])]
    except mca.McaError:
        return []


def calibration_rows(results: dict, gen_dir: str) -> List[dict]:
    """One row per (mode, keybits, ISA) measured at its longest length."""
    records = [r for r in results["results"] if r["impl"] in ISAS
               and r.get("cycles_per_byte") and r.get("verified") is not False]
    longest = {}
    for r in records:
        key = (r["mode"], r["keybits"], r["impl"])
        if key not in longest or r["length"] > longest[key]["length"]:
            longest[key] = r
    variants = {}
    for bench_mode, _, isa in longest:
        mode = split_mode(bench_mode)[0]
        path = os.path.join(gen_dir, isa, f"{mode}.S")
        if (mode, isa) not in variants and os.path.exists(path):
            variants[(mode, isa)] = mca.read_variant(path)
    estimates = mca.estimate(list(variants.values())) if variants else []
    rows = []
    for (mode, bits, isa), record in sorted(longest.items(),
                                             key=lambda kv: (kv[0][0], kv[0][1],
                                                             list(ISAS).index(kv[0][2]))):
        variant = variants.get((split_mode(mode)[0], isa))
        region = pick_region(variant, mode) if variant else None
        if region is None:
            continue
        path = f"aes{bits}" if f"aes{bits}" in region.paths() else region.paths()[0]
        models = {e.model: e for e in estimates
                  if e.file == variant.path and e.region == region.name and e.path == path}
        measured = record["cycles_per_byte"]
        rows.append({
            "mode": mode, "keybits": bits, "isa": isa, "length": record["length"],
            "region": region.name, "path": path, "measured_cycles_per_byte": measured,
            "models": {m: {"cycles_per_byte": e.cycles_per_byte,
                           "error_pct": (e.cycles_per_byte - measured) / measured * 100,
                           "known_off": e.known_off}
                       for m, e in models.items()}})
    return rows


def format_calibration(rows, host: str, version: str) -> str:
    if not rows:
        return "llvm-mca calibration: nothing measured that has a marked main loop"
    lines = [f"llvm-mca calibration ({version}): main-loop estimate vs measured cycles/byte "
             f"at the longest message",
             f"this CPU: {mca.cpu_description()}; closest llvm-mca model: "
             f"{host or 'none of ' + ', '.join(mca.MODELS)}",
             f"{'mode':<9}{'key':<9}{'isa':<11}{'bytes':>6} {'measured':>9} "
             f"{(host or 'closest')[:14]:>14} {'error':>7}   other models (error)"]
    notes = {}
    for row in rows:
        mine = row["models"].get(host) if host else None
        others = []
        for model in mca.MODELS:
            entry = row["models"].get(model)
            if entry is None or model == host:
                continue
            flag = ""
            if entry["known_off"]:
                notes.setdefault(entry["known_off"], model)
                flag = " !"
            others.append(f"{model} {entry['error_pct']:+.0f}%{flag}")
        estimate = f"{mine['cycles_per_byte']:.3f}" if mine else "-"
        error = f"{mine['error_pct']:+.1f}%" if mine else "-"
        if mine and mine["known_off"]:
            notes.setdefault(mine["known_off"], host)
            error += " !"
        lines.append(f"{row['mode']:<9}{'AES-' + str(row['keybits']):<9}{row['isa']:<11}"
                     f"{row['length']:>6} {row['measured_cycles_per_byte']:>9.3f} "
                     f"{estimate:>14} {error:>7}   {', '.join(others)}")
    lines.append("error = (estimate - measured) / measured: negative = the model is "
                 "optimistic; the estimate is the main loop alone, the measurement adds "
                 "per-message work")
    for note, model in notes.items():
        lines.append(f"!: {model} is known to be off here: {note}")
    return "\n".join(lines)


def chart_panels(results: dict) -> Dict[str, list]:
    """{mode: [(panel title, {impl: [(len, GB/s)]}, ceiling GB/s)]}"""
    ceiling_rounds = results["machine"].get("ceiling_rounds_per_s") or 0
    by_mode = {}
    for r in results["results"]:
        if r.get("gb_per_s") is None:
            continue
        panel = by_mode.setdefault(r["mode"], {}).setdefault(r["keybits"], {})
        panel.setdefault(r["impl"], []).append((r["length"], r["gb_per_s"]))
    order = list(ISAS) + ["openssl", "generic"]
    out = {}
    for mode, panels in by_mode.items():
        out[mode] = []
        for bits in sorted(panels):
            series = dict(sorted(panels[bits].items(),
                                 key=lambda kv: order.index(kv[0]) if kv[0] in order else 99))
            ceiling = ceiling_rounds * 16 / ROUNDS.get(bits, 14) / 1e9 if ceiling_rounds else None
            out[mode].append((f"{mode.upper()}, AES-{bits}", series, ceiling))
    return out


def write_charts(results: dict, out_dir: str) -> List[str]:
    messages = []
    for mode, panels in chart_panels(results).items():
        path = os.path.join(out_dir, f"{mode}.png")
        problem = plots.line_chart(path, f"aesgen {mode.upper()}: GB/s vs message length on "
                                   f"{results['machine'].get('model', '?')}", panels)
        messages.append(f"chart: {os.path.relpath(path, REPO)}" if problem is None
                        else f"no chart for {mode}: {problem}")
    return messages


def command(args):
    results = read_bench_results(args.results)
    out_dir = args.out or os.path.dirname(os.path.abspath(args.results))
    if shutil.which(mca.LLVM_MCA):
        host = mca.host_model()
        rows = calibration_rows(results, args.gen)
        print(format_calibration(rows, host, mca.mca_version()))
        with open(os.path.join(out_dir, "calibration.json"), "w", encoding="utf-8") as handle:
            json.dump({"llvm_mca": mca.mca_version(), "host_model": host,
                       "cpu": mca.cpu_description(), "rows": rows}, handle, indent=1)
            handle.write("\n")
    else:
        print(f"llvm-mca calibration skipped: {mca.LLVM_MCA} not found (Debian llvm-19)")
    for message in write_charts(results, out_dir):
        print(message)
    if any(r["impl"] == "auto" for r in results["results"]):
        text, cells = marks.report_results([results])
        if any(c.runs for c in cells):
            print()
            print(text)
    return 0


def add_parser(sub):
    parser = sub.add_parser("bench-report", help="after make bench: llvm-mca calibration "
                                                 "and PNG charts")
    parser.add_argument("--results", required=True, help="the bench's results.json")
    parser.add_argument("--out", help="where the charts go (default: beside results.json)")
    parser.add_argument("--gen", default=os.path.join(REPO, "gen"))
    return parser
