# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Issue 12's marks: where `make bench` results stand against the peers' anchors.

The anchors (perf/anchors.json) are the best peer's % of the AES-256 ceiling on the
issue's Zen 5 machine, per workload and message length; the mark of a cell is
factor x its anchor (1.05), for AES-128 and AES-256 alike, and for GCM at the longest
length at least the issue's GB/s floor, taken to % through that machine's ceiling.
% of the ceiling is what `make bench` reports beside GB/s, so results of any run compare
with the marks; they *apply* only on the anchors' uarch, and the report says which
uarch the results were measured on (the CPUID signature the bench records).

Several runs (one results file each, `make marks` takes MARKS_RUNS of them): each cell's
median over the runs against its mark, and whether every run met it, since a cell that
meets its mark only in some runs is not yet a lead.  A cell whose output did not verify
in any run is never met.

    python3 -m perf marks build/bench/marks/run-*.json [--impl auto|best|ISA] [--check]
"""

import os
import statistics
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from generator import uarch
from generator.errors import UsageError

from . import read_bench_results, read_json

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ANCHORS = os.path.join(REPO, "perf", "anchors.json")
NOT_OURS = frozenset({"openssl", "generic"})   # bench impls that are not aesgen's code

# A cell's standing, with the character the table shows after its median.
MET, MEDIAN_ONLY, SHORT, WRONG, MISSING = "met", "median only", "short", "wrong", "missing"
FLAGS = {MET: " ", MEDIAN_ONLY: "~", SHORT: "<", WRONG: "!", MISSING: "?"}


@dataclass(frozen=True)
class Anchors:
    factor: float
    lengths: Tuple[int, ...]
    pct: Dict[str, Tuple[float, ...]]          # mode -> % of the AES-256 ceiling per length
    floor_length: int
    floor_modes: Tuple[str, ...]
    floor_gb_per_s: Dict[int, float]           # keybits -> GB/s on the anchors' machine
    ceiling_gb_per_s: Dict[int, float]         # keybits -> that machine's AES ceiling
    uarch: str
    machine: str
    source: str
    path: str

    @property
    def modes(self) -> List[str]:
        return list(self.pct)

    @property
    def keybits(self) -> List[int]:
        """The key sizes held to the marks: those whose ceiling the file gives."""
        return sorted(self.ceiling_gb_per_s)

    def mark(self, mode: str, keybits: int, length: int) -> float:
        """The % of the ceiling a cell must reach: factor x the anchor, and at the floor's
        length at least the floor's share of the anchors' machine's ceiling."""
        value = self.factor * self.pct[mode][self.lengths.index(length)]
        if mode in self.floor_modes and length == self.floor_length:
            value = max(value, 100.0 * self.floor_gb_per_s[keybits]
                        / self.ceiling_gb_per_s[keybits])
        return value


def load_anchors(path: str = ANCHORS) -> Anchors:
    data = read_json(path)
    lengths = tuple(data["lengths"])
    for mode, row in data["pct_ceiling"].items():
        if len(row) != len(lengths):
            raise ValueError(f"{path}: {mode} has {len(row)} anchors for {len(lengths)} lengths")
    floors = data["floors_gb_per_s"]
    return Anchors(
        factor=data["factor"], lengths=lengths,
        pct={mode: tuple(row) for mode, row in data["pct_ceiling"].items()},
        floor_length=floors["length"], floor_modes=tuple(floors["modes"]),
        floor_gb_per_s={int(k): v for k, v in floors.items() if k.isdigit()},
        ceiling_gb_per_s={int(k): v for k, v in data["machine"]["ceiling_gb_per_s"].items()},
        uarch=data["machine"]["uarch"], machine=data["machine"]["description"],
        source=data["source"], path=os.path.relpath(path, REPO))


@dataclass
class Cell:
    mode: str
    keybits: int
    length: int
    mark: float
    runs: List[float] = field(default_factory=list)   # % of the ceiling, one per run
    wrong: bool = False                              # some run's output did not verify

    @property
    def median(self) -> Optional[float]:
        return statistics.median(self.runs) if self.runs else None

    @property
    def status(self) -> str:
        if self.wrong:
            return WRONG
        if not self.runs:
            return MISSING
        if min(self.runs) >= self.mark:
            return MET
        return MEDIAN_ONLY if self.median >= self.mark else SHORT


def read_results(paths: Sequence[str]) -> List[dict]:
    """The bench's results files; a clear error for one that is not one."""
    if not paths:
        raise UsageError("no results file given (make bench writes build/bench/results.json; "
                         "make marks build/bench/marks/run-*.json)")
    return [read_bench_results(path) for path in paths]


def impls_in(docs: Sequence[dict]) -> List[str]:
    seen = []
    for doc in docs:
        for record in doc["results"]:
            if record["impl"] not in seen:
                seen.append(record["impl"])
    return seen


def evaluate(anchors: Anchors, docs: Sequence[dict], impl: str = "auto") -> List[Cell]:
    """One Cell per (mode, key size, length) of the anchors, with each run's % of the
    ceiling: impl's, or with impl "best" the most of aesgen's implementations in that run
    (every ISA and auto, never OpenSSL or the generic C)."""
    ours = [i for i in impls_in(docs) if i not in NOT_OURS]
    if impl != "best" and impl not in ours:
        raise UsageError(f"no results for impl '{impl}' in the files; valid: "
                         + ", ".join(["best"] + ours))
    cells = {}
    for mode in anchors.modes:
        for keybits in anchors.keybits:
            for length in anchors.lengths:
                cells[(mode, keybits, length)] = Cell(mode, keybits, length,
                                                      anchors.mark(mode, keybits, length))
    for doc in docs:
        best: Dict[tuple, float] = {}
        for record in doc["results"]:
            key = (record["mode"], record["keybits"], record["length"])
            if key not in cells or record["impl"] in NOT_OURS:
                continue
            if impl != "best" and record["impl"] != impl:
                continue
            if record.get("verified") is False:
                cells[key].wrong = True
                continue
            pct = record.get("pct_ceiling")
            if pct is not None:
                best[key] = max(best.get(key, pct), pct)
        for key, pct in best.items():
            cells[key].runs.append(pct)
    return list(cells.values())


def measured_on(docs: Sequence[dict]) -> Tuple[str, Optional[str]]:
    """(a description of the machine the results came from, its uarch name or None).
    Results of different CPUs do not make one median: that is an error."""
    signatures = set()
    for doc in docs:
        m = doc.get("machine", {})
        signatures.add((m.get("model", "?"), m.get("vendor"), m.get("family"),
                        m.get("model_id"), m.get("variant")))
    if len({s[:4] for s in signatures}) > 1:
        raise UsageError("the results come from different CPUs: "
                         + "; ".join(sorted(str(s[:4]) for s in signatures)))
    model, vendor, family, model_id, _ = sorted(signatures, key=str)[0]
    variants = sorted({s[4] for s in signatures if s[4]})
    if vendor is None or family is None or model_id is None:
        return (f"{model} (no CPUID signature in the results: a bench before 2026-12-07)",
                None)
    row = uarch.for_cpu(vendor, family, model_id)
    text = (f"{model}, CPUID {vendor} family {family:#x} model {model_id:#x}, "
            f"uarch {row.name if row else 'none of generator/uarch.py (default)'}")
    if variants:
        text += f"; variant run: {', '.join(variants)}"
    return text, row.name if row else None


def format_report(anchors: Anchors, cells: Sequence[Cell], machine: str,
                  machine_uarch: Optional[str], runs: int, impl: str) -> str:
    lines = [
        f"Issue 12's marks ({anchors.path}): {anchors.factor:g} x the peers' % of the "
        "AES-256 ceiling, both key sizes,",
        f"  on {anchors.machine};",
        f"  GCM at {anchors.floor_length} B at least "
        + " / ".join(f"{anchors.floor_gb_per_s[b]:g} GB/s (AES-{b})"
                     for b in sorted(anchors.floor_gb_per_s, reverse=True))
        + " there.",
        f"Results: {runs} run(s), impl {impl}, measured on {machine}.",
    ]
    if machine_uarch != anchors.uarch:
        lines.append(f"Not the anchors' uarch ({anchors.uarch}): the marks apply there; "
                     "here they only compare.")
    by_key = {(c.mode, c.keybits, c.length): c for c in cells}
    width = 12
    for keybits in reversed(anchors.keybits):
        lines.append("")
        lines.append(f"AES-{keybits}, median % of the ceiling / mark, by message bytes:")
        lines.append("".ljust(8) + "".join(str(n).rjust(width) for n in anchors.lengths))
        for mode in anchors.modes:
            row = mode.ljust(8)
            for length in anchors.lengths:
                c = by_key[(mode, keybits, length)]
                text = "." if c.median is None else f"{c.median:.1f}/{c.mark:.1f}"
                row += (text + FLAGS[c.status]).rjust(width)
            lines.append(row.rstrip())
    lines.append("")
    lines.append("after a cell: ~ its median meets the mark, some run did not; < short; "
                 "! its output did not verify; ? not measured")
    counts = {status: sum(1 for c in cells if c.status == status) for status in FLAGS}
    lines.append(f"{counts[MET]} of {len(cells)} cells met in every run, "
                 f"{counts[MEDIAN_ONLY]} by the median only, {counts[SHORT]} short, "
                 f"{counts[WRONG]} wrong, {counts[MISSING]} not measured")
    for c in cells:
        if c.status in (MEDIAN_ONLY, SHORT):
            below = sum(1 for r in c.runs if r < c.mark)
            lines.append(f"  {c.mode} AES-{c.keybits} {c.length} B: median {c.median:.1f} "
                         f"({min(c.runs):.1f}-{max(c.runs):.1f}), mark {c.mark:.2f}, "
                         f"{below} of {len(c.runs)} runs below")
    return "\n".join(lines)


def report(paths: Sequence[str], impl: str = "auto",
           anchors_path: str = ANCHORS) -> Tuple[str, List[Cell]]:
    return report_results(read_results(paths), impl, anchors_path)


def report_results(docs: Sequence[dict], impl: str = "auto",
                   anchors_path: str = ANCHORS) -> Tuple[str, List[Cell]]:
    """The report of results already read (make bench's report has its run in hand)."""
    anchors = load_anchors(anchors_path)
    machine, machine_uarch = measured_on(docs)
    cells = evaluate(anchors, docs, impl)
    return format_report(anchors, cells, machine, machine_uarch, len(docs), impl), cells


def command(args):
    if args.validate:           # make marks, before it replaces the last runs' files
        from generator.isa import ISAS
        valid = ["auto", "best", *ISAS]
        if args.impl not in valid:
            raise UsageError(f"--impl {args.impl}: valid: {', '.join(valid)}")
        load_anchors(args.anchors)
        return 0
    text, cells = report(args.results, args.impl, args.anchors)
    print(text)
    if args.check and any(c.status not in (MET, MEDIAN_ONLY) for c in cells):
        return 1
    return 0


def add_parser(sub):
    parser = sub.add_parser("marks", help="bench results against issue 12's marks "
                                          "(perf/anchors.json)")
    parser.add_argument("results", nargs="*", help="bench results files (one per run)")
    parser.add_argument("--impl", default="auto",
                        help="auto (default), best (the most of our ISAs per run) or an ISA")
    parser.add_argument("--anchors", default=ANCHORS,
                        help=f"the anchors file (default {os.path.relpath(ANCHORS, REPO)})")
    parser.add_argument("--validate", action="store_true",
                        help="only check --impl and the anchors file (no results read)")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when a cell's median misses its mark, did not verify "
                             "or was not measured")
    return parser
