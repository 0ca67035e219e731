# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""make explore: sweep the knobs of one mode and ISA, check, estimate and measure each.

For every knob combination the generator accepts (UNROLL x KEYS x TAIL <= UNROLL; one
whose registers do not fit is listed as such):
1. generate the variant into build/explore/<mode>-<isa>/<knobs>/ (the other files of
   the library stay the committed gen/ ones);
2. correctness: tests/c/variant_check.c (all ISAs, modes and key sizes against OpenSSL)
   linked with this variant's objects; the bench's own comparison with OpenSSL counts
   too.  A wrong variant is shown as WRONG and never ranked;
3. llvm-mca estimates on the models whose CPU can run it (perf/mca.py);
4. a library and bench binary of its own (the default build's runtime and bench objects,
   this variant's assembly), timed at 1420, 4096 and 16384 bytes, AES-128 and AES-256.

Timing on a shared machine: the bench pins its CPU and reports medians; its % of
ceiling is a ratio against a vaesenc-chain run taken right before each sample, so clock
drift cancels.  The sweep runs ROUNDS rounds, each timing every variant once (the order
rotating), and compares each variant with the default knobs *of the same round*; the
table shows medians over rounds.

The default is what this machine's uarch (generator/uarch.py) runs today: the built-in
knobs, or its entry of generator/tuning.json (on a CPU in no row of the table, the
"default" entry).  Every variant is timed with its file's own functions
(AESGEN_VARIANT=none), not a uarch variant the file also holds.

--apply writes the winner into generator/tuning.json, as the entry of this machine's
uarch only, or the "default" entry on a CPU in no row (with the machine, the date and the
measured gains; an entry for another uarch must be measured there: llvm-mca's models of
other CPUs may rank, never decide),
and only when the win is clear and repeatable: more than APPLY_MARGIN at some length
and key size (median of the per-round ratios to the default, no round slower), more
than APPLY_NOISE over all of them (geometric mean), and no loss beyond APPLY_NOISE at
any.  Then a second look before anything is written: the winner and the default alone,
in fresh rounds at make bench's default lengths, the lengths of one to a few vectors
between them and the sweep's own (CONFIRM_LENGTHS), and no loss beyond APPLY_NOISE at
any of them.  A sweep of 512 B and
up had applied a set 2-5% slower at 16 B, another one 16% slower at 128 B.
"""

import csv
import datetime
import glob
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from generator import tuning
from generator.abi import SYSV
from generator.errors import UsageError
from generator.isa import ISAS, has_mode
from generator.knobs import parse_assignment, resolve, uarch_knobs
from generator.uarch import host_uarch
from generator.modes import MODES
from generator.manifest import file_entry
from generator.plan import Refused, combinations
from generator.render import build

from . import mca, plots

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LENGTHS = (1420, 4096, 16384)
BENCH_MAX_LENGTHS = 32         # tests/bench/bench.h
KEY_BITS = (128, 256)
APPLY_MARGIN = 0.03
APPLY_NOISE = 0.01     # a median this much below the default counts as a loss
# --apply's second look: make bench's default lengths (tests/bench/bench_options.c), and
# the lengths of one to a few vectors between them, where TAIL and ONEPASS sets part ways
BENCH_DEFAULT_LENGTHS = (16, 64, 256, 512, 1024, 1420, 4096, 16384)
CONFIRM_LENGTHS = tuple(sorted(BENCH_DEFAULT_LENGTHS + (32, 48, 96, 128, 192, 320, 384, 768,
                                                        2048)))
DEFAULT_ROUNDS = 5


def say(text):
    print(text, file=sys.stderr, flush=True)


@dataclass
class Candidate:
    knobs: Dict[str, object]
    is_default: bool
    directory: str = ""
    status: str = "pending"        # ok, WRONG, no fit, invalid, error, unchecked, unmeasured
    reason: str = ""
    estimates: List[mca.Estimate] = field(default_factory=list)
    bench: str = ""                # the variant's bench binary
    rounds: List[Dict] = field(default_factory=list)   # per round {(bits, len): record}
    core_ghz: List[float] = field(default_factory=list)

    @property
    def tag(self) -> str:
        return " ".join(f"{k}={v}" for k, v in sorted(self.knobs.items()))

    @property
    def short(self) -> str:
        """'reg T4 U8' for chart labels."""
        return " ".join(f"{k[0]}{v}" if isinstance(v, int) else str(v)
                        for k, v in sorted(self.knobs.items()))

    @property
    def slug(self) -> str:
        return "-".join(f"{k.lower()}{v}" for k, v in sorted(self.knobs.items()))


# ---- the sweep ---------------------------------------------------------------------------

def entry_name(uarch) -> str:
    """generator/tuning.json's name for this machine's entries: its uarch, or "default"
    (None: a CPU in no row of generator/uarch.py)."""
    return uarch.name if uarch else tuning.DEFAULT


def current_knobs(mode, isa, uarch=None) -> Dict[str, object]:
    """The knobs this uarch runs today: the built-in defaults with its measured entry of
    generator/tuning.json over them (None: a CPU in no row, the "default" entry)."""
    knobs = resolve(mode, isa, {})
    tuned = uarch_knobs(mode, isa).get(entry_name(uarch))
    if tuned:
        knobs = dict(knobs, **tuned)
        if knobs.get("TAIL", 0) > knobs.get("UNROLL", 0):
            knobs["TAIL"] = knobs["UNROLL"]
    return knobs


def parse_only(text: str, mode) -> Dict[str, object]:
    """'TWEAK=ahead,UNROLL=4': the knob values every swept candidate must have (--only)."""
    only = {}
    for part in filter(None, text.split(",")):
        name, value = parse_assignment(part)
        if name not in mode.knobs:
            raise UsageError(f"--only {part}: knob {name} does not apply to mode "
                             f"{mode.name}; its knobs: {', '.join(mode.knobs)}")
        only[name] = value
    return only


def sweep(mode, isa, uarch=None, only=None) -> List[Candidate]:
    """Every distinct resolved knob combination, the default (what this uarch runs today)
    first; ones whose registers do not fit are kept with status 'no fit' so the table
    can say so.  only: {knob: value} that every candidate but the default must have."""
    default = current_knobs(mode, isa, uarch)
    seen, out = set(), [Candidate(default, True)]
    seen.add(tuple(sorted(default.items())))
    for assignments in combinations(mode, isa):
        knobs = resolve(mode, isa, assignments)
        key = tuple(sorted(knobs.items()))
        if only and any(knobs.get(name) != value for name, value in only.items()):
            continue
        if key not in seen:
            seen.add(key)
            out.append(Candidate(knobs, False))
    return out


# ---- building ----------------------------------------------------------------------------

def run(cmd, **kwargs):
    return subprocess.run(cmd, capture_output=True, text=True, **kwargs)


class BaseBuild:
    """The default build's pieces a variant reuses: runtime objects, the list of gen
    objects the library holds, the bench objects."""

    def __init__(self, build: str):
        self.build = build
        self.runtime_objects = sorted(glob.glob(os.path.join(build, "obj", "runtime", "*.o")))
        gen_root = os.path.join(build, "obj", "gen")
        self.gen_files = sorted(os.path.relpath(p, gen_root)[:-2] + ".S"
                                for p in glob.glob(os.path.join(gen_root, "*", "*.o")))
        self.bench_objects = sorted(glob.glob(os.path.join(build, "bench", "*.o")))
        if not self.runtime_objects or not self.bench_objects:
            raise UsageError(f"{build}: no runtime or bench objects; run `make "
                             f"BUILD={build} lib bench` first (make explore does)")
        if not self.gen_files:
            raise UsageError(f"{build}: the library has no generated assembly (gen/ "
                             "incomplete?); run make gen")


def assemble(source: str, obj: str):
    os.makedirs(os.path.dirname(obj), exist_ok=True)
    result = run(["cc", "-c", "-Wa,--noexecstack", "-o", obj, source])
    if result.returncode != 0:
        raise RuntimeError(f"assembling {source}:\n{result.stderr}")


class Workspace:
    """build/explore/<mode>-<isa>/: shared objects once, then one directory per variant."""

    def __init__(self, base: BaseBuild, mode, isa, root: str):
        self.base, self.mode, self.isa, self.root = base, mode, isa, root
        self.target = f"{isa.name}/{mode.name}.S"
        if self.target not in base.gen_files:
            raise UsageError(f"{self.target} is not part of the library build "
                             f"({', '.join(base.gen_files)})")
        common = os.path.join(root, "common")
        self.common_objects = []
        for name in base.gen_files:
            if name != self.target:
                obj = os.path.join(common, name[:-2] + ".o")
                assemble(os.path.join(REPO, "gen", name), obj)
                self.common_objects.append(obj)
        self.checker_object = os.path.join(common, "variant_check.o")
        result = run(["cc", "-O1", "-std=c11", "-c", "-o", self.checker_object,
                      "-I" + os.path.join(REPO, "runtime", "include"),
                      "-I" + os.path.join(REPO, "runtime", "src"),
                      "-I" + os.path.join(REPO, "gen"),
                      os.path.join(REPO, "tests", "c", "variant_check.c")])
        if result.returncode != 0:
            raise RuntimeError(f"compiling tests/c/variant_check.c:\n{result.stderr}")

    def prepare(self, c: Candidate):
        """Generate, check, estimate and link one variant; sets c.status."""
        c.directory = os.path.join(self.root, c.slug)
        try:
            output = build(self.mode, self.isa, c.knobs, SYSV)
            texts = output.texts
        except Refused as error:
            c.status, c.reason = "no fit", error.reason
            return
        except Exception as error:       # pylint: disable=broad-except
            # Anything else that stops the generator (the plans refuse what does not
            # fit above): this combination cannot be built, the sweep goes on.
            c.status, c.reason = "invalid", f"{type(error).__name__}: {error}"
            return
        source = os.path.join(c.directory, "gen", self.target)
        os.makedirs(os.path.dirname(source), exist_ok=True)
        with open(source, "w", encoding="utf-8") as handle:
            handle.write(texts["S"])
        try:
            obj = os.path.join(c.directory, "obj", self.target[:-2] + ".o")
            assemble(source, obj)
            objects = self.common_objects + [obj]
            self.check(c, objects)
            entry = file_entry(self.mode, self.isa, c.knobs, SYSV, output)
            variant = mca.parse_variant(texts["S"], entry, source)
            c.estimates = mca.estimate([variant])
            if c.status == "ok":
                self.link_bench(c, objects)
        except (RuntimeError, mca.McaError) as error:
            c.status, c.reason = "error", str(error).strip().splitlines()[0][:200]

    def check(self, c: Candidate, objects):
        checker = os.path.join(c.directory, "variant_check")
        result = run(["cc", "-o", checker, self.checker_object, *objects, "-lcrypto"])
        if result.returncode != 0:
            raise RuntimeError(f"linking variant_check: {result.stderr}")
        result = run([checker])
        lines = result.stdout.strip().splitlines()
        if any(line.startswith(f"SKIP {self.isa.name}") for line in lines):
            c.status, c.reason = "unchecked", f"this CPU cannot run {self.isa.name}"
        elif result.returncode != 0 or not lines or not lines[-1].endswith(" 0 failed"):
            failures = [line for line in lines if line.startswith("FAIL")]
            c.status = "WRONG"
            c.reason = (failures[0] if failures else (lines[-1] if lines else
                        f"variant_check exit {result.returncode}"))
        else:
            c.status = "ok"

    def link_bench(self, c: Candidate, objects):
        library = os.path.join(c.directory, "libaesgen.a")
        if os.path.exists(library):
            os.remove(library)
        result = run(["ar", "rcs", library, *self.base.runtime_objects, *objects])
        if result.returncode != 0:
            raise RuntimeError(f"ar: {result.stderr}")
        c.bench = os.path.join(c.directory, "bench")
        result = run(["cc", "-o", c.bench, *self.base.bench_objects, library, "-lcrypto"])
        if result.returncode != 0:
            raise RuntimeError(f"linking the bench: {result.stderr}")


# ---- measuring ---------------------------------------------------------------------------

def bench_env(c: Candidate, **extra) -> Dict[str, str]:
    """The environment of a variant's bench run: the candidate's own functions are timed
    (the file's), not a uarch variant the file also holds for this CPU; the bench's
    message lengths are the run's (its len= filters pick among those: a length the bench
    did not run was a workload it did not have)."""
    return dict(os.environ, AESGEN_VARIANT="none",
                BENCH_LENGTHS=",".join(str(n) for n in LENGTHS), **extra)


def bench_modes(c: Candidate, mode: str, isa: str) -> List[str]:
    """The bench's names for a generated mode: 'ctr', or 'xts-enc' and 'xts-dec' (a mode
    with directions), found by one short run without a mode filter."""
    results = os.path.join(c.directory, "discover.json")
    spec = ",".join([f"impl={isa}", f"len={LENGTHS[0]}", "bits=128"])
    env = bench_env(c, BENCH_FILTER=spec, BENCH_QUICK="1")
    result = run([c.bench, "--json", results], env=env)
    if result.returncode != 0:
        raise RuntimeError(f"bench failed: {result.stderr.strip()[:200]}")
    with open(results, encoding="utf-8") as handle:
        names = {r["mode"] for r in json.load(handle)["results"]}
    return sorted(n for n in names if n == mode or n.startswith(mode + "-"))


def bench_once(c: Candidate, modes: List[str], isa: str, samples: int):
    """One timed run of the variant's bench: {(bench mode, bits, len): record} and the
    core clock."""
    results = os.path.join(c.directory, "results.json")
    spec = ",".join([f"mode={m}" for m in modes] + [f"impl={isa}"]
                    + [f"len={n}" for n in LENGTHS])
    env = bench_env(c, BENCH_FILTER=spec, BENCH_SAMPLES=str(samples))
    env.pop("BENCH_QUICK", None)
    result = run([c.bench, "--json", results], env=env)
    if result.returncode != 0:
        raise RuntimeError(f"bench failed: {result.stderr.strip()[:200]}")
    with open(results, encoding="utf-8") as handle:
        document = json.load(handle)
    records = {(r["mode"], r["keybits"], r["length"]): r for r in document["results"]
               if r["mode"] in modes and r["impl"] == isa and r["keybits"] in KEY_BITS}
    return records, document["machine"].get("core_ghz")


def measure(candidates: List[Candidate], mode: str, isa: str, rounds: int, samples: int):
    """Times every correct variant `rounds` times; returns the bench mode names used."""
    timed = [c for c in candidates if c.status == "ok"]
    if not timed:
        return []
    modes = bench_modes(timed[0], mode, isa)
    if not modes:
        for c in timed:
            c.status, c.reason = "unmeasured", f"the bench has no {mode} workload"
        return []
    for r in range(rounds):
        shift = r % len(timed) if timed else 0
        order = timed[shift:] + timed[:shift]
        say(f"  bench round {r + 1}/{rounds}: {len(order)} variants ({', '.join(modes)})")
        for c in order:
            try:
                records, ghz = bench_once(c, modes, isa, samples)
            except RuntimeError as error:
                c.status, c.reason = "error", str(error)
                continue
            if not records:
                c.status, c.reason = "unmeasured", f"the bench gave no {mode}/{isa} cases"
                continue
            if any(rec.get("verified") is False for rec in records.values()):
                c.status, c.reason = "WRONG", "the bench's output check against the " \
                                              "reference failed"
                continue
            c.rounds.append(records)
            if ghz:
                c.core_ghz.append(ghz)
        timed = [c for c in timed if c.status == "ok"]
    return modes


# ---- ranking -----------------------------------------------------------------------------

def cases(c: Candidate):
    return sorted(set().union(*(set(r) for r in c.rounds))) if c.rounds else []


def median_of(c: Candidate, case, key):
    values = [r[case][key] for r in c.rounds if case in r and r[case].get(key) is not None]
    return statistics.median(values) if values else None


def ratios_to_default(c: Candidate, default: Candidate, case) -> List[float]:
    """Per round: this variant's % of ceiling / the default's in the same round."""
    out = []
    for mine, theirs in zip(c.rounds, default.rounds):
        if case in mine and case in theirs and theirs[case].get("pct_ceiling"):
            out.append(mine[case]["pct_ceiling"] / theirs[case]["pct_ceiling"])
        elif case in mine and case in theirs:      # no ceiling measured: plain GB/s
            out.append(mine[case]["gb_per_s"] / theirs[case]["gb_per_s"])
    return out


def geometric_mean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


@dataclass
class Ranked:
    candidate: Candidate
    vs_default: Optional[float]            # geometric mean of the median ratios
    ratios: Dict[tuple, List[float]]       # per case, per round


def rank(candidates: List[Candidate]) -> List[Ranked]:
    default = next(c for c in candidates if c.is_default)
    ok = [c for c in candidates if c.status == "ok" and c.rounds]
    ranked = []
    for c in ok:
        ratios = {case: ratios_to_default(c, default, case) for case in cases(c)} \
            if default.rounds else {}
        medians = [statistics.median(v) for v in ratios.values() if v]
        score = geometric_mean(medians)
        if score is None:   # the default itself could not be timed: rank by GB/s
            score = geometric_mean([median_of(c, case, "gb_per_s") for case in cases(c)])
        ranked.append(Ranked(c, score, ratios))
    ranked.sort(key=lambda r: -(r.vs_default or 0))
    return ranked


def case_name(case) -> str:
    return f"{case[0]} AES-{case[1]} {case[2]} B"


def clear_win(r: Ranked, rounds: int):
    """(True, '') when r beats the default clearly and repeatably somewhere and loses
    nowhere: at some (length, key size) the median of the per-round ratios is above
    1 + APPLY_MARGIN with no round slower than the default, their geometric mean over
    all (length, key size) above 1 + APPLY_NOISE, and at every one the median at least
    1 - APPLY_NOISE (a knob that changes only some lengths, such as ONEPASS, leaves the
    others equal within the noise; one case ahead by chance among many does not
    count)."""
    if r.candidate.is_default:
        return False, "the default knobs won"
    if rounds < 3:
        return False, f"{rounds} round(s); --apply needs at least 3"
    if not r.ratios:
        return False, "no measurements"
    wins, unsteady, best = [], [], None
    for case, values in sorted(r.ratios.items()):
        if len(values) < rounds:
            return False, f"{case_name(case)}: only {len(values)} of {rounds} rounds"
        median = statistics.median(values)
        if median < 1 - APPLY_NOISE:
            return False, (f"{case_name(case)}: {median - 1:+.1%} against the default "
                           f"(a loss beyond the {APPLY_NOISE:.0%} noise)")
        if median > 1 + APPLY_MARGIN:
            (wins if min(values) >= 1.0 else unsteady).append(case)
        if best is None or median > best[1]:
            best = (case, median)
    if wins and (r.vs_default or 0) <= 1 + APPLY_NOISE:
        return False, (f"{r.vs_default - 1:+.1%} over the default over all lengths and key "
                       f"sizes (a win at {case_name(wins[0])} alone; needs > "
                       f"{APPLY_NOISE:.0%} overall)")
    if not wins:
        if unsteady:
            return False, (f"{case_name(unsteady[0])}: ahead by the median but slower than "
                           f"the default in one round (no win in every round)")
        return False, (f"{case_name(best[0])}: {best[1] - 1:+.1%} over the default, the most "
                       f"(needs > {APPLY_MARGIN:.0%} somewhere)")
    return True, ""


def first_loss(r: Ranked) -> Optional[str]:
    """The first (length, key size) where r's median ratio to the default is below
    1 - APPLY_NOISE, in clear_win's words, or None."""
    for case, values in sorted(r.ratios.items()):
        if values and statistics.median(values) < 1 - APPLY_NOISE:
            return (f"{case_name(case)}: {statistics.median(values) - 1:+.1%} against the "
                    f"default (a loss beyond the {APPLY_NOISE:.0%} noise)")
    return None


def confirm_lengths(sweep_lengths) -> tuple:
    """CONFIRM_LENGTHS and the sweep's own lengths, at most BENCH_MAX_LENGTHS."""
    extra = [n for n in sweep_lengths if n not in CONFIRM_LENGTHS]
    room = BENCH_MAX_LENGTHS - len(CONFIRM_LENGTHS)
    return tuple(sorted(CONFIRM_LENGTHS + tuple(extra[:room])))


def confirm(winner: Candidate, default: Candidate, mode: str, isa: str, rounds: int,
            samples: int):
    """--apply's second look: the winner and the default alone, `rounds` fresh rounds at
    confirm_lengths(LENGTHS); (True, "") when the winner loses nowhere beyond the noise,
    else (False, why)."""
    global LENGTHS
    saved = LENGTHS
    LENGTHS = confirm_lengths(saved)
    try:
        pair = [Candidate(dict(c.knobs), c.is_default, c.directory, "ok", bench=c.bench)
                for c in (default, winner)]
        say(f"  confirming {winner.tag} against the default at "
            f"{','.join(str(n) for n in LENGTHS)} B, {rounds} rounds")
        measure(pair, mode, isa, rounds, samples)
        failed = [c for c in pair if c.status != "ok" or len(c.rounds) < rounds]
        if failed:
            return False, (f"the confirmation could not time {failed[0].tag} "
                           f"({failed[0].status}: {failed[0].reason})")
        loss = first_loss(next(r for r in rank(pair) if not r.candidate.is_default))
        return (False, f"at the confirmation, {loss}") if loss else (True, "")
    finally:
        LENGTHS = saved


# ---- output ------------------------------------------------------------------------------

def host_model(candidates) -> Optional[str]:
    model = mca.host_model()
    legal = {e.model for c in candidates for e in c.estimates}
    return model if model in legal else None


def primary_estimates(c: Candidate, bench_mode: str = "", path="aes256"):
    """{model: estimate} of the region the bench mode times (xts-enc: xts_enc_...; else
    the first region), for the table's llvm-mca columns."""
    if not c.estimates:
        return {}
    mode, _, direction = bench_mode.partition("-")
    regions = [e.region for e in c.estimates]
    region = next((r for r in regions if direction and r.startswith(f"{mode}_{direction}_")),
                  regions[0])
    return {e.model: e for e in c.estimates if e.region == region and e.path == path}


def primary_bench_mode(modes: List[str]) -> str:
    """The bench mode the table and chart show ('ctr'; 'xts-enc' of a mode with
    directions); the score and the CSV use all of them."""
    encrypting = [m for m in modes if m.endswith("-enc")]
    return (encrypting or modes or ["?"])[0]


def format_table(mode, isa, ranked: List[Ranked], candidates, models, rounds,
                 bench_mode) -> str:
    lines = [f"explore {mode.name}/{isa.name}: {len(candidates)} variants, {rounds} rounds; "
             f"GB/s medians; vs default = median of per-round ratios of % of ceiling "
             f"(geometric mean over lengths and key sizes); llvm-mca = bytes per cycle "
             f"of the main loop, AES-256 path"]
    if bench_mode != mode.name:
        lines.append(f"GB/s columns: bench mode {bench_mode}")
    gb_heads = [f"{bits}/{n}" for bits in KEY_BITS for n in LENGTHS]
    head = (f"{'rank':>4}  {'knobs':<26} {'vs def':>7}  "
            + " ".join(f"{h:>9}" for h in gb_heads) + "  "
            + " ".join(f"{m[:10]:>10}" for m in models))
    lines.append(head)
    for number, r in enumerate(ranked, 1):
        c = r.candidate
        est = primary_estimates(c, bench_mode)
        gb = [median_of(c, (bench_mode, bits, n), "gb_per_s") for bits in KEY_BITS
              for n in LENGTHS]
        name = c.tag + (" *" if c.is_default else "")
        lines.append(f"{number:>4}  {name:<26} {(r.vs_default - 1) * 100:>+6.1f}%  "
                     + " ".join(f"{g:>9.2f}" if g else f"{'-':>9}" for g in gb) + "  "
                     + " ".join(f"{est[m].bytes_per_cycle:>10.2f}" if m in est
                                else f"{'-':>10}" for m in models))
    others = [c for c in candidates if c not in [r.candidate for r in ranked]]
    for c in others:
        est = primary_estimates(c, bench_mode)
        lines.append(f"{'-':>4}  {c.tag + (' *' if c.is_default else ''):<26} "
                     f"{c.status.upper() if c.status == 'WRONG' else c.status}: {c.reason}"
                     + (("  llvm-mca B/cycle " + ", ".join(f"{m} {e.bytes_per_cycle:.2f}"
                                                    for m, e in est.items())) if est else ""))
    lines.append("*: what this uarch runs now (built-in, or its generator/tuning.json entry); "
                 "GB/s columns: AES key bits / message bytes")
    return "\n".join(lines)


def write_csv(path, ranked: List[Ranked], candidates, modes):
    estimate_keys = sorted({(e.region, e.path, e.model) for c in candidates
                            for e in c.estimates},
                           key=lambda k: (k[0], k[1], list(mca.MODELS).index(k[2])))
    knob_names = sorted(candidates[0].knobs)
    header = (["rank", "status", "default"] + knob_names + ["vs_default"]
              + [f"gbps_{m}_aes{b}_{n}" for m in modes for b in KEY_BITS for n in LENGTHS]
              + [f"pct_ceiling_{m}_aes{b}_{n}" for m in modes for b in KEY_BITS
                 for n in LENGTHS]
              + [f"mca_{region}_{path}_{model}_cycles_per_iter"
                 for region, path, model in estimate_keys] + ["reason"])
    positions = {id(r.candidate): (i + 1, r) for i, r in enumerate(ranked)}
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for c in [r.candidate for r in ranked] + [c for c in candidates
                                                  if id(c) not in positions]:
            number, r = positions.get(id(c), ("", None))
            est = {(e.region, e.path, e.model): e.cycles_per_iteration for e in c.estimates}
            writer.writerow(
                [number, c.status, int(c.is_default)] + [c.knobs[k] for k in knob_names]
                + [f"{r.vs_default:.4f}" if r and r.vs_default else ""]
                + [_fmt(median_of(c, (m, b, n), "gb_per_s")) for m in modes for b in KEY_BITS
                   for n in LENGTHS]
                + [_fmt(median_of(c, (m, b, n), "pct_ceiling")) for m in modes
                   for b in KEY_BITS for n in LENGTHS]
                + [_fmt(est.get(k)) for k in estimate_keys] + [c.reason])


def _fmt(value):
    return "" if value is None else f"{value:.4g}"


def chart(path, mode, isa, ranked: List[Ranked], model: Optional[str], bench_mode):
    """Bars: measured GB/s (AES-256) per length; beside them llvm-mca's estimate of the
    main loop in GB/s (bytes per cycle x the measured core clock) on this CPU's model."""
    rows = []
    for r in ranked:
        c = r.candidate
        est = primary_estimates(c, bench_mode).get(model) if model else None
        ghz = statistics.median(c.core_ghz) if c.core_ghz else None
        predicted = est.bytes_per_cycle * ghz if est and ghz else 0
        rows.append([c.short + (" *" if c.is_default else "")]
                    + [median_of(c, (bench_mode, 256, n), "gb_per_s") or 0 for n in LENGTHS]
                    + [predicted])
    series = [f"{n} B" for n in LENGTHS] + [f"llvm-mca {model} (main loop)" if model
                                            else "llvm-mca (no model for this CPU)"]
    return plots.bar_chart(path, f"explore {mode}/{isa} ({bench_mode}): AES-256 GB/s by "
                           "variant, ranked "
                           "best first (* = default)", "GB/s", series, rows)


def apply_entry(r: Ranked, default: Candidate, rounds: int, uarch) -> dict:
    """generator/tuning.json's entry for this machine's uarch (None: a CPU in no row, the
    "default" entry): the winner's knobs, where and when it was measured, and its gains
    over what the uarch ran before."""
    ratios = {f"{case[0]}_aes{case[1]}_{case[2]}": round(statistics.median(v), 4)
              for case, v in sorted(r.ratios.items())}
    spread = {f"{case[0]}_aes{case[1]}_{case[2]}": [round(min(v), 4), round(max(v), 4)]
              for case, v in sorted(r.ratios.items())}
    return {"knobs": r.candidate.knobs, "replaces": default.knobs,
            "machine": f"{mca.cpu_description()} "
                       + (f"({uarch.name}: {uarch.summary})" if uarch else
                          "(in no row of generator/uarch.py)"),
            "date": datetime.date.today().isoformat(),
            "gains": "median over rounds of % of ceiling / the replaced knobs' in the same "
                     "round, per case: " + ", ".join(f"{k} {v:.3f}" for k, v in ratios.items()),
            "ratio_to_replaced_pct_ceiling": ratios, "ratio_spread": spread,
            "rounds": rounds, "llvm_mca_host_model": mca.host_model()}


def apply(mode, isa, r: Ranked, default: Candidate, rounds: int, uarch):
    """Writes the entry of this machine's uarch (None: the "default" entry, that of every
    CPU in no row of generator/uarch.py, replacing one measured on another such CPU)."""
    name = entry_name(uarch)
    tuning.save_variant(mode, isa, name, apply_entry(r, default, rounds, uarch))
    say(f"applied: generator/tuning.json variants.{mode}.{isa}.{name} = "
        f"{r.candidate.tag}; now run `make gen && make mca-baseline && make test` and commit "
        f"gen/, generator/tuning.json and mca/baseline.json")


# ---- driver ------------------------------------------------------------------------------

def explore(mode, isa, base: "BaseBuild", rounds, samples, do_apply, only="",
            wanted=None) -> int:
    """One mode x ISA sweep; base and wanted (--only parsed for this mode) are the inputs
    command() checked before any sweep replaced the last one's scratch."""
    root = os.path.join(base.build, "explore", f"{mode.name}-{isa.name}")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    say(f"explore {mode.name}/{isa.name}: scratch {os.path.relpath(root, REPO)}")
    workspace = Workspace(base, mode, isa, root)
    uarch = host_uarch()
    say(f"  this machine: {mca.cpu_description()}, uarch "
        f"{uarch.name if uarch else 'none of generator/uarch.py (its entries: default)'}")
    candidates = sweep(mode, isa, uarch, wanted or {})
    if only:
        say(f"  only the variants with {only} (and what this uarch runs today)")
    for number, c in enumerate(candidates, 1):
        workspace.prepare(c)
        say(f"  [{number}/{len(candidates)}] {c.tag}: {c.status}"
            + (f" ({c.reason})" if c.reason and c.status != "ok" else ""))
    modes = measure(candidates, mode.name, isa.name, rounds, samples)
    bench_mode = primary_bench_mode(modes)
    ranked = rank(candidates)
    models = [m for m in mca.MODELS if any(e.model == m for c in candidates
                                            for e in c.estimates)]
    print(format_table(mode, isa, ranked, candidates, models, rounds, bench_mode))
    csv_path = os.path.join(base.build, "explore", f"{mode.name}-{isa.name}.csv")
    write_csv(csv_path, ranked, candidates, modes)
    png_path = csv_path[:-4] + ".png"
    chart_note = chart(png_path, mode.name, isa.name, ranked, host_model(candidates),
                       bench_mode)
    print(f"wrote {os.path.relpath(csv_path, REPO)}"
          + (f", {os.path.relpath(png_path, REPO)}" if chart_note is None
             else f" (no chart: {chart_note})"))
    if not ranked:
        print("nothing ranked: no variant was both correct and measured")
        return 1 if do_apply else 0
    decide(mode.name, isa.name, ranked, candidates, rounds, samples, do_apply, uarch)
    return 0


def decide(mode: str, isa: str, ranked: List[Ranked], candidates, rounds: int, samples: int,
           do_apply: bool, uarch):
    """The verdict on the sweep's winner; with do_apply, its entry is written only after
    a clear win and the confirmation."""
    winner = ranked[0]
    default = next(c for c in candidates if c.is_default)
    win, why = clear_win(winner, len(winner.candidate.rounds))
    print(f"winner {winner.candidate.tag}: "
          + ("a clear win over the default" if win else f"no clear win ({why})"))
    if not do_apply:
        return
    if win:
        win, why = confirm(winner.candidate, default, mode, isa, rounds, samples)
        print(f"confirmation: {'no loss at any length' if win else why}")
    if win:
        apply(mode, isa, winner, default, len(winner.candidate.rounds), uarch)
    else:
        print(f"not applied: {why}")


def parse_lengths(text: str):
    """'512,1420': the lengths, each 16..16384 (the bench's range), in the order given, at
    most BENCH_MAX_LENGTHS (tests/bench/bench.h) of them."""
    lengths = []
    parts = text.split(",")
    if len(parts) > BENCH_MAX_LENGTHS:
        raise UsageError(f"--lengths: {len(parts)} lengths; valid: at most "
                         f"{BENCH_MAX_LENGTHS} (the bench's limit)")
    for part in parts:
        try:
            n = int(part, 10)
        except ValueError:
            n = 0
        if not 16 <= n <= 16384:
            raise UsageError(f"--lengths: bad length '{part}'; valid: 16..16384, comma-separated")
        lengths.append(n)
    return tuple(lengths)


def command(args):
    from .cli import _choices
    modes = _choices(args.mode, MODES, "mode")
    isas = _choices(args.isa, ISAS, "ISA")
    if args.rounds < 1:
        raise UsageError(f"--rounds {args.rounds}: valid: 1 or more")
    if not 1 <= args.samples <= 101:
        raise UsageError(f"--samples {args.samples}: valid: 1..101")
    if args.lengths:
        # the message lengths every table, chart and apply decision of this run uses
        global LENGTHS
        LENGTHS = parse_lengths(args.lengths)
    # Every input checked before the first sweep (which takes minutes and replaces the
    # last one's scratch): the pairs (an ISA without the mode is skipped when "all" chose
    # it, refused when named), --only against each mode, the build.
    pairs = []
    for mode in modes:
        for isa in isas:
            if not has_mode(ISAS[isa], mode):
                if args.isa != "all" and args.mode != "all":
                    raise UsageError(f"ISA {isa} has no mode {mode}; its modes: "
                                     + ", ".join(ISAS[isa].modes))
                continue
            pairs.append((MODES[mode], ISAS[isa], parse_only(args.only, MODES[mode])))
    if not pairs:
        raise UsageError(f"no ISA of '{args.isa}' has a mode of '{args.mode}'")
    base = BaseBuild(os.path.join(REPO, args.build))
    status = 0
    for mode, isa, wanted in pairs:
        status |= explore(mode, isa, base, args.rounds, args.samples, args.apply, args.only,
                          wanted)
    return status


def add_parser(sub):
    parser = sub.add_parser("explore", help="sweep the knobs: correctness, llvm-mca, GB/s")
    parser.add_argument("--mode", default="all", help="comma list or all: " + ", ".join(MODES))
    parser.add_argument("--isa", default="all", help="comma list or all: " + ", ".join(ISAS))
    parser.add_argument("--build", default="build", type=os.path.expanduser,
                        help="the default build to reuse")
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS,
                        help=f"timed rounds over all variants (default {DEFAULT_ROUNDS})")
    parser.add_argument("--samples", type=int, default=21, help="BENCH_SAMPLES per run")
    parser.add_argument("--lengths", default="",
                        help="comma list of message lengths, 16..16384 (default "
                             + ",".join(str(n) for n in LENGTHS) + ")")
    parser.add_argument("--only", default="",
                        help="comma list of KNOB=VALUE: sweep only the variants with these "
                             "values (beside what this uarch runs today)")
    parser.add_argument("--apply", action="store_true",
                        help="write a clear winner into generator/tuning.json, as the "
                             "entry of this machine's uarch")
    return parser
