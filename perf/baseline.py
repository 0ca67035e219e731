# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""mca/baseline.json: the committed llvm-mca estimates that `make mca-check` guards.

llvm-mca is deterministic, so unlike a wall-clock benchmark it can fail a test run:
an estimate more than TOLERANCE worse (cycles per byte) than the baseline fails, and so
does a variant that lost its LLVM-MCA markers, a region/path/model the baseline has but
the current files no longer give, and a new region/path/model of a baselined variant.
A variant file the baseline has never seen (a mode just added) is reported, not failed,
so that landing a mode and baselining it (`make mca-baseline`, the numbers then show in
review) can be two steps.
"""

import json
import os
from dataclasses import dataclass
from typing import Dict, List

from . import read_json

SCHEMA = "aesgen-mca-baseline-1"
TOLERANCE = 0.02            # fail when cycles per byte grow by more than 2%


@dataclass
class Finding:
    kind: str               # worse, missing, lost-markers, new, unguarded, better, note
    key: str
    message: str

    @property
    def fails(self) -> bool:
        return self.kind in ("worse", "missing", "lost-markers", "new")


def snapshot(estimates, regions_by_file: Dict[str, List[str]], version: str, method) -> dict:
    """The baseline document for these estimates (also what estimates.json embeds)."""
    keys = [e.key for e in estimates]
    if len(keys) != len(set(keys)):
        raise ValueError("two estimates share a region/path/model key: region names must "
                         "be unique across generated files")
    return {
        "schema": SCHEMA,
        "llvm_mca": version,
        "method": method,
        "tolerance": TOLERANCE,
        "variants": {path: sorted(names) for path, names in sorted(regions_by_file.items())},
        "estimates": {e.key: {"cycles_per_iteration": round(e.cycles_per_iteration, 3),
                              "bytes_per_iteration": e.bytes_per_iteration}
                      for e in estimates},
    }


def load(path: str) -> dict:
    if not os.path.exists(path):
        raise FileNotFoundError(path)       # mca-check says how to make one
    document = read_json(path)
    if document.get("schema") != SCHEMA:
        raise ValueError(f"{path}: schema {document.get('schema')!r}, expected {SCHEMA!r}")
    return document


def save(path: str, document: dict) -> None:
    """Sorted, one estimate per line, so that a review diff shows exactly what moved."""
    lines = ["{"]
    for name in sorted(k for k in document if k != "estimates"):
        lines.append(f" {json.dumps(name)}: {json.dumps(document[name], sort_keys=True)},")
    lines.append(' "estimates": {')
    entries = sorted(document["estimates"].items())
    for index, (key, value) in enumerate(entries):
        comma = "," if index < len(entries) - 1 else ""
        lines.append(f"  {json.dumps(key)}: {json.dumps(value, sort_keys=True)}{comma}")
    lines.append(" }")
    lines.append("}")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")


def _cycles_per_byte(entry) -> float:
    return entry["cycles_per_iteration"] / entry["bytes_per_iteration"]


def compare(baseline: dict, current: dict, tolerance: float = TOLERANCE) -> List[Finding]:
    """Findings of current (a snapshot) against baseline; see the module docstring."""
    findings = []
    for path, names in sorted(current["variants"].items()):
        if not names:
            findings.append(Finding("lost-markers", path,
                                    f"{path}: no LLVM-MCA-BEGIN/END region any more"))
    for path, names in sorted(baseline["variants"].items()):
        now = current["variants"].get(path)
        if now is None:
            findings.append(Finding("missing", path, f"{path}: variant no longer generated"))
            continue
        for name in sorted(set(names) - set(now)):
            if now:   # an empty list was reported as lost-markers already
                findings.append(Finding("lost-markers", f"{path}:{name}",
                                        f"{path}: region {name} is gone"))
    base, cur = baseline["estimates"], current["estimates"]
    for key in sorted(base):
        if key not in cur:
            findings.append(Finding("missing", key, f"{key}: no estimate now (model or "
                                                    "region missing)"))
            continue
        before, after = _cycles_per_byte(base[key]), _cycles_per_byte(cur[key])
        change = after / before - 1
        detail = (f"{key}: {before:.4f} -> {after:.4f} cycles/byte ({change:+.1%}; "
                  f"{base[key]['cycles_per_iteration']} -> {cur[key]['cycles_per_iteration']} "
                  f"cycles per iteration of {cur[key]['bytes_per_iteration']} bytes)")
        if change > tolerance:
            findings.append(Finding("worse", key, detail))
        elif change < -tolerance:
            findings.append(Finding("better", key, detail))
    file_of = {name: path for path, names in current["variants"].items() for name in names}
    unguarded = {}
    for key in sorted(set(cur) - set(base)):
        path = file_of.get(key.split("/")[0], "?")
        if path not in baseline["variants"]:
            unguarded.setdefault(path, []).append(key)
        else:
            findings.append(Finding("new", key, f"{key}: not in the baseline "
                                                "(run `make mca-baseline` and commit it)"))
    for path, keys in sorted(unguarded.items()):
        findings.append(Finding("unguarded", path,
                                f"{path}: {len(keys)} estimates, none in the baseline yet: "
                                "not guarded until `make mca-baseline` is run and committed"))
    if baseline.get("llvm_mca") != current.get("llvm_mca"):
        findings.append(Finding("note", "llvm_mca",
                                f"baseline made with {baseline.get('llvm_mca')}, now "
                                f"{current.get('llvm_mca')}: differences may be the tool's"))
    return findings


def report(findings: List[Finding], checked: int) -> str:
    lines = []
    for f in findings:
        tag = {"worse": "WORSE", "missing": "MISSING", "lost-markers": "LOST MARKERS",
               "new": "NEW", "unguarded": "NOT IN BASELINE", "better": "better",
               "note": "note"}[f.kind]
        lines.append(f"{tag}: {f.message}")
    failing = sum(f.fails for f in findings)
    better = sum(f.kind == "better" for f in findings)
    verdict = "FAILED" if failing else "ok"
    lines.append(f"mca-check {verdict}: {checked} estimates against mca/baseline.json, "
                 f"{failing} problem(s)"
                 + (f"; {better} better by >{TOLERANCE:.0%} (`make mca-baseline` to lock "
                    "in)" if better else ""))
    return "\n".join(lines)
