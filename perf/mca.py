# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""llvm-mca estimates of the main loops marked in generated files.

A generated file (gen/<isa>/<mode>.S) marks each main loop with
`# LLVM-MCA-BEGIN <name>` ... `# LLVM-MCA-END`.  The region as written is not one
instruction stream: it holds out-of-line paths (the CTR counter's carry path, taken one
iteration in 256/blocks-per-iteration) and the AES-128/192/256 round entry points.
llvm-mca would run all of it as straight-line code, so we extract *paths* instead:

- a path follows the region from the top, takes every unconditional forward jump,
  and falls through every conditional branch, except that path `aesNNN` takes the
  branches to labels ending in `_aesNNN` (the templates' round entry points);
- so `aes256` is the common iteration of AES-256 (no key-size branch taken, the rare
  carry path skipped), `aes128` / `aes192` the same for the shorter keys;
- a loop over the middle rounds inside the region (a backward branch to a label ending
  in `_middle_rounds`, the bitsliced rounds of templates/lib/bitslice.j2) runs Nr - 1
  times on path aesNNN (Nr = 10, 12, 14): the branch is taken Nr - 2 times, then falls
  through; n - 1 times fewer when the path entered the loop by a jump to a label ending
  in `_from_round<n>` (the counter modes' first rounds from tables); a region with such
  a label has the three key-size paths;
- a region without key-size labels has one path, `main`.

Cycles per iteration are llvm-mca's steady state: (cycles(2N) - cycles(N)) / N, which
removes the pipeline fill and drain that a single run's total includes.
A file's mode, ISA, knobs and each region's bytes per iteration come from its entry in
gen/manifest.json (generator/manifest.py), not from its comments.  Which CPU features an
instruction needs is generator/features.py's table, the one generator/lint.py applies.
"""

import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from generator import manifest
from generator.features import instruction_features
from generator.isa import ISAS

LLVM_MCA = os.environ.get("LLVM_MCA", "llvm-mca-19")
ITERATIONS = 20           # runs at N and 2N iterations; see the module docstring
TRIPLE = "x86_64-unknown-linux-gnu"

# What the real CPU behind each llvm-mca model can execute, in generator/isa.py's feature
# names.  llvm-mca itself happily "runs" zmm code on a model of a CPU without AVX-512
# (or refuses only some of it), so legality is decided here.
_AVX2 = frozenset({"ssse3", "aes", "pclmulqdq", "avx", "os:xmm+ymm", "avx2", "bmi2"})
_VAES = frozenset({"vaes", "vpclmulqdq"})
_AVX512 = frozenset({"avx512f", "avx512bw", "avx512vl", "avx512dq", "os:opmask+zmm"})
MODELS = {
    "skylake": _AVX2,                            # client Skylake: no AVX-512, no VAES
    "icelake-server": _AVX2 | _VAES | _AVX512,
    "sapphirerapids": _AVX2 | _VAES | _AVX512,
    "znver3": _AVX2 | _VAES,                     # VAES on ymm, no AVX-512
    "znver4": _AVX2 | _VAES | _AVX512,
    "znver5": _AVX2 | _VAES | _AVX512,
}
KNOWN_FEATURES = frozenset().union(*MODELS.values())

# Models whose estimates are known to be far from the hardware for some code.
# (model, predicate on the instruction list, note)
KNOWN_OFF = (
    ("znver4",
     lambda instrs: any(i.mnemonic.startswith("vaes") and "%zmm" in i.operands
                        for i in instrs),
     "about 2x optimistic for 512-bit VAES (Zen 4 executes a zmm vaesenc as two "
     "256-bit halves; the model does not)"),
)

KEY_LABEL = re.compile(r"_aes(128|192|256)$")
ROUNDS_LOOP_LABEL = re.compile(r"_middle_rounds$")
FROM_ROUND_LABEL = re.compile(r"_from_round(\d+)$")
ROUNDS = {"aes128": 10, "aes192": 12, "aes256": 14}
BEGIN = re.compile(r"^#\s*LLVM-MCA-BEGIN\s+(\S+)\s*$")
END = re.compile(r"^#\s*LLVM-MCA-END\s*$")
LABEL = re.compile(r"^\s*([.\w$]+):\s*$")
REGISTER = re.compile(r"%([xyz])mm(\d+)")


class McaError(Exception):
    """A generated file or llvm-mca did not give what we need; the message says why."""


@dataclass(frozen=True)
class Instr:
    text: str           # the line as llvm-mca gets it (comment removed)
    prefixes: tuple     # ("{disp32}",)
    mnemonic: str
    operands: str

    @property
    def branch_target(self) -> Optional[str]:
        if self.mnemonic.startswith("j"):
            return self.operands.strip()
        return None

    @property
    def unconditional(self) -> bool:
        return self.mnemonic == "jmp"


@dataclass
class Region:
    name: str
    items: list                   # Instr or ("label", name), in order
    bytes_per_iteration: int

    def labels(self) -> Dict[str, int]:
        return {item[1]: pos for pos, item in enumerate(self.items) if isinstance(item, tuple)}

    def paths(self) -> List[str]:
        bits = {KEY_LABEL.search(name).group(1) for name in self.labels()
                if KEY_LABEL.search(name)}
        if any(ROUNDS_LOOP_LABEL.search(name) for name in self.labels()):
            bits |= {"128", "192"}
        if not bits:
            return ["main"]
        return [f"aes{b}" for b in sorted(bits | {"256"}, key=int)]


@dataclass
class Variant:
    path: str                     # the file, as given
    mode: str
    isa: str
    knobs: Dict[str, object]
    regions: List[Region] = field(default_factory=list)


def parse_instruction(line: str) -> Optional[Instr]:
    code = line.split("#", 1)[0].strip()     # AT&T operands never contain '#'
    if not code or code.startswith("."):     # directives (.p2align ...) do not execute
        return None
    words = code.split(None, 1)
    prefixes = []
    while words and words[0].startswith("{"):
        prefixes.append(words[0])
        words = words[1].split(None, 1) if len(words) > 1 else []
    if not words:
        raise McaError(f"prefix without an instruction: {line.strip()}")
    operands = words[1] if len(words) > 1 else ""
    return Instr(code, tuple(prefixes), words[0], operands)


def parse_variant(text: str, entry: dict, path: str = "<text>") -> Variant:
    """Every marked region of one generated GNU as file; entry: its manifest entry."""
    lines = text.splitlines()
    variant = Variant(path, entry["mode"], entry["isa"], dict(entry["knobs"]))
    stated = {r["name"]: r["bytes_per_iteration"] for r in entry["mca_regions"]}
    # a uarch variant's labels carry its suffix (generator/render.py _apart): the region
    # reads them without it, so that its key-size paths are traced like the file's own
    suffixes = {r["name"]: r.get("variant", "") for r in entry["mca_regions"]}
    current, unsuffix = None, None
    for number, line in enumerate(lines, 1):
        begin = BEGIN.match(line)
        if begin:
            if current is not None:
                raise McaError(f"{path}:{number}: LLVM-MCA-BEGIN inside region {current[0]}")
            current = (begin.group(1), [])
            variant_suffix = suffixes.get(begin.group(1))
            unsuffix = (re.compile(rf"(\.L[\w$]+)_{re.escape(variant_suffix)}(?![\w$])")
                        if variant_suffix else None)
            continue
        if END.match(line):
            if current is None:
                raise McaError(f"{path}:{number}: LLVM-MCA-END without BEGIN")
            name, items = current
            if name not in stated:
                raise McaError(f"{path}: region {name} is not in its manifest entry "
                               f"({', '.join(stated) or 'none'}); run make gen")
            variant.regions.append(Region(name, items, stated[name]))
            current = None
            continue
        if current is not None:
            if unsuffix:
                line = unsuffix.sub(r"\1", line)
            label = LABEL.match(line)
            if label:
                current[1].append(("label", label.group(1)))
            else:
                instr = parse_instruction(line)
                if instr:
                    current[1].append(instr)
    if current is not None:
        raise McaError(f"{path}: region {current[0]} never ends")
    missing = set(stated) - {r.name for r in variant.regions}
    if missing:
        raise McaError(f"{path}: the manifest's region(s) {', '.join(sorted(missing))} are "
                       "not in the file; run make gen")
    return variant


def manifest_entry(path: str) -> dict:
    """The gen/manifest.json entry of gen/<isa>/<mode>.S (the manifest beside <isa>/)."""
    gen_dir = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    relative = os.path.relpath(os.path.abspath(path), gen_dir)
    for entry in manifest.load(gen_dir).values():
        if entry["files"]["S"]["path"] == relative:
            return entry
    raise McaError(f"{path}: not in {os.path.join(gen_dir, manifest.MANIFEST)}; run make gen")


def read_variant(path: str) -> Variant:
    with open(path, encoding="utf-8") as handle:
        return parse_variant(handle.read(), manifest_entry(path), path)


def trace(region: Region, path: str) -> List[Instr]:
    """The instructions one iteration executes on `path` (see the module docstring)."""
    labels = region.labels()
    take_suffix = f"_{path}" if path.startswith("aes") else None
    out, pos = [], 0
    repeats = {}          # rounds-loop label -> times its backward branch was taken
    skipped = 0           # middle rounds the path skipped (entered at _from_round<n>)
    while pos < len(region.items):
        item = region.items[pos]
        if isinstance(item, tuple):
            pos += 1
            continue
        out.append(item)
        target = item.branch_target
        if target in labels:
            if labels[target] <= pos and ROUNDS_LOOP_LABEL.search(target) and path in ROUNDS:
                if item.unconditional:
                    raise McaError(f"region {region.name}: the rounds loop {target} must end "
                                   f"in a conditional branch")
                repeats[target] = repeats.get(target, 0) + 1
                if repeats[target] <= ROUNDS[path] - 2 - skipped:
                    pos = labels[target]
                    continue
                pos += 1
                continue
            if labels[target] <= pos:
                raise McaError(f"region {region.name}: backward jump to {target} inside the "
                               f"region; only forward jumps can be traced")
            if item.unconditional or (take_suffix and target.endswith(take_suffix)):
                entered = FROM_ROUND_LABEL.search(target)
                if entered:
                    skipped = int(entered.group(1)) - 1
                pos = labels[target]
                continue
        pos += 1
    if not out:
        raise McaError(f"region {region.name}: no instructions")
    return out


# ---- legality --------------------------------------------------------------------------

def inferred_features(instrs: List[Instr]) -> set:
    """CPU features the instructions themselves show they need (a check on the ISA's
    declared features: a template that strays from its ISA cannot slip past), by
    generator/features.py's table."""
    need = set()
    for i in instrs:
        regs = REGISTER.findall(i.operands)
        kinds = {f"{kind}mm" for kind, _ in regs}
        opmask = bool(re.search(r"%k[0-7]\b", i.operands))
        if opmask:
            kinds.add("k")
        need |= instruction_features(i.mnemonic, kinds,
                                     high_vector=any(int(n) >= 16 for _, n in regs),
                                     opmask=opmask)
    return need


def required_features(isa: str, instrs: List[Instr]) -> set:
    declared = set(ISAS[isa].features) if isa in ISAS else set()
    need = declared | inferred_features(instrs)
    unknown = need - KNOWN_FEATURES
    if unknown:
        raise McaError(f"{isa}: feature(s) {', '.join(sorted(unknown))} unknown to "
                       f"perf/mca.py MODELS; say which models' CPUs have them")
    return need


def legal_models(features, models=None) -> List[str]:
    """The llvm-mca models whose real CPU has every one of these features."""
    return [m for m in (models or MODELS) if set(features) <= MODELS[m]]


def known_off_note(model: str, instrs: List[Instr]) -> Optional[str]:
    for off_model, applies, note in KNOWN_OFF:
        if off_model == model and applies(instrs):
            return note
    return None


# ---- running llvm-mca --------------------------------------------------------------------

def mca_version() -> str:
    try:
        out = subprocess.run([LLVM_MCA, "--version"], capture_output=True, text=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        raise McaError(f"{LLVM_MCA} --version failed: {error}") from None
    for line in out.splitlines():
        if "version" in line.lower():
            return line.strip()
    return out.strip().splitlines()[0] if out.strip() else "unknown"


# LLVM's name of this host's CPU -> the closest model of MODELS (same core design).
HOST_ALIASES = {
    "emeraldrapids": "sapphirerapids", "graniterapids": "sapphirerapids",
    "graniterapids-d": "sapphirerapids", "alderlake": "sapphirerapids",
    "raptorlake": "sapphirerapids", "meteorlake": "sapphirerapids",
    "icelake-client": "icelake-server", "tigerlake": "icelake-server",
    "rocketlake": "icelake-server",
    "skylake-avx512": "skylake", "cascadelake": "skylake", "cooperlake": "skylake",
    "znver2": "znver3",
}
# (Zen 1, LLVM's znver1, has no model here: its AES units and its VPCLMULQDQ, which holds
# both of them, are unlike Zen 3's, and llvm-mca 19's own znver1 model gives VPCLMULQDQ a
# latency of 100 cycles.)


def host_model() -> Optional[str]:
    """The model closest to this machine (LLVM's host CPU name, through HOST_ALIASES),
    or None when llvm-mca is missing or the CPU is unlike every model."""
    try:
        out = subprocess.run([LLVM_MCA, "--version"], capture_output=True, text=True).stdout
    except OSError:
        return None
    match = re.search(r"Host CPU:\s*(\S+)", out)
    if not match:
        return None
    name = match.group(1)
    name = HOST_ALIASES.get(name, name)
    return name if name in MODELS else None


def cpu_description() -> str:
    """'Intel(R) Xeon(R) Processor (family 6, model 0xcf)' from /proc/cpuinfo."""
    facts = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                key, _, value = line.partition(":")
                facts.setdefault(key.strip(), value.strip())
                if not line.strip():
                    break
    except OSError:
        return "unknown"
    model = facts.get("model", "")
    model = f"0x{int(model):02x}" if model.isdigit() else model
    return f"{facts.get('model name', 'unknown')} (family {facts.get('cpu family', '?')}, " \
           f"model {model})"


def _region_source(named_traces) -> str:
    parts = []
    for name, instrs in named_traces:
        parts.append(f"# LLVM-MCA-BEGIN {name}")
        parts.extend("\t" + i.text for i in instrs)
        parts.append("# LLVM-MCA-END")
    return "\n".join(parts) + "\n"


def _total_cycles(model: str, source: str, iterations: int) -> Dict[str, int]:
    cmd = [LLVM_MCA, f"-mtriple={TRIPLE}", f"-mcpu={model}", f"-iterations={iterations}",
           "-instruction-info=0", "-resource-pressure=0", "-"]
    result = subprocess.run(cmd, input=source, capture_output=True, text=True)
    if result.returncode != 0:
        raise McaError(f"{' '.join(cmd)} failed:\n{result.stderr.strip()}")
    cycles, name = {}, None
    for line in result.stdout.splitlines():
        match = re.match(r"^\[\d+\] Code Region - (\S+)", line)
        if match:
            name = match.group(1)
        match = re.match(r"^Total Cycles:\s+(\d+)", line)
        if match and name:
            cycles[name] = int(match.group(1))
    return cycles


def cycles_per_iteration(model: str, named_traces) -> Dict[str, float]:
    """Steady-state cycles per iteration of each (name, instructions) on one model."""
    source = _region_source(named_traces)
    short = _total_cycles(model, source, ITERATIONS)
    long = _total_cycles(model, source, 2 * ITERATIONS)
    out = {}
    for name, _ in named_traces:
        if name not in short or name not in long:
            raise McaError(f"llvm-mca -mcpu={model} reported no cycles for {name}")
        out[name] = (long[name] - short[name]) / ITERATIONS
    return out


@dataclass
class Estimate:
    file: str
    mode: str
    isa: str
    region: str
    path: str
    model: str
    cycles_per_iteration: float
    bytes_per_iteration: int
    instructions: int
    known_off: Optional[str]

    @property
    def key(self) -> str:
        return f"{self.region}/{self.path}/{self.model}"

    @property
    def bytes_per_cycle(self) -> float:
        return self.bytes_per_iteration / self.cycles_per_iteration

    @property
    def cycles_per_byte(self) -> float:
        return self.cycles_per_iteration / self.bytes_per_iteration

    def as_json(self) -> dict:
        return {"file": self.file, "mode": self.mode, "isa": self.isa, "region": self.region,
                "path": self.path, "model": self.model,
                "cycles_per_iteration": round(self.cycles_per_iteration, 3),
                "bytes_per_iteration": self.bytes_per_iteration,
                "bytes_per_cycle": round(self.bytes_per_cycle, 4),
                "cycles_per_byte": round(self.cycles_per_byte, 5),
                "instructions": self.instructions, "known_off": self.known_off}


def _jobs(variant: Variant, models):
    """(model, [(name, trace)], meta) per legal model of this variant: one llvm-mca input
    per model holds every path of every region, so a variant costs 2 runs per model."""
    per_model = {}
    for region in variant.regions:
        for path in region.paths():
            instrs = trace(region, path)
            for model in legal_models(required_features(variant.isa, instrs), models):
                per_model.setdefault(model, []).append((region, path, instrs))
    return per_model


def estimate(variants: List[Variant], models=None, jobs: int = 0) -> List[Estimate]:
    """Every legal (variant, region, path, model), run in parallel on `jobs` threads."""
    work = []
    for variant in variants:
        for model, items in _jobs(variant, models).items():
            work.append((variant, model, items))

    def run(job):
        variant, model, items = job
        names = [(f"{region.name}.{path}", instrs) for region, path, instrs in items]
        cycles = cycles_per_iteration(model, names)
        return [Estimate(variant.path, variant.mode, variant.isa, region.name, path, model,
                         cycles[f"{region.name}.{path}"], region.bytes_per_iteration,
                         len(instrs), known_off_note(model, instrs))
                for region, path, instrs in items]

    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 2) as pool:
        results = list(pool.map(run, work))
    flat = [e for batch in results for e in batch]
    flat.sort(key=sort_key)
    return flat


def sort_key(e: "Estimate"):
    """ISAs and modes in the generator's order, then region, path (key size), model."""
    from generator.modes import MODES
    isas, modes, models = list(ISAS), list(MODES), list(MODELS)
    return (isas.index(e.isa) if e.isa in isas else len(isas), os.path.dirname(e.file),
            modes.index(e.mode) if e.mode in modes else len(modes), e.file, e.region,
            int(e.path[3:]) if e.path.startswith("aes") else 0,
            models.index(e.model))


# ---- the set of generated files ---------------------------------------------------------

def generated_files(gen_dir: str, isas=None, modes=None) -> List[str]:
    """gen/<isa>/<mode>.S of every file gen/manifest.json lists (or of the ISAs and modes
    given), in the manifest's order."""
    entries = manifest.load(gen_dir)
    if not entries:
        raise McaError(f"{os.path.join(gen_dir, manifest.MANIFEST)}: missing; run make gen")
    return [os.path.join(gen_dir, e["files"]["S"]["path"]) for (isa, mode), e in entries.items()
            if (not isas or isa in isas) and (not modes or mode in modes)]


# ---- printing ---------------------------------------------------------------------------

def format_table(estimates: List[Estimate], version: str) -> str:
    """Rows: region and path; columns: models; cells: cycles/iteration (bytes/cycle)."""
    models = [m for m in MODELS if any(e.model == m for e in estimates)]
    rows, cells, notes = [], {}, {}
    for e in estimates:
        row = (e.region, e.path, e.bytes_per_iteration)
        if row not in rows:
            rows.append(row)
        mark = ""
        if e.known_off:
            notes.setdefault(e.known_off, (len(notes) + 1, e.model))
            mark = "!" * notes[e.known_off][0]
        cells[(row, e.model)] = f"{e.cycles_per_iteration:7.2f} ({e.bytes_per_cycle:5.2f}){mark}"
    width = max([len(r[0]) for r in rows] + [6])
    cell_width = 17
    lines = [f"llvm-mca estimates ({version}): cycles per main-loop iteration, steady state, "
             "(bytes per cycle)",
             f"{'region':<{width}}  {'path':<6} {'B/iter':>6}  "
             + " ".join(f"{m:>{cell_width}}" for m in models)]
    for row in rows:
        line = f"{row[0]:<{width}}  {row[1]:<6} {row[2]:>6}  "
        line += " ".join(f"{cells.get((row, m), '-'):>{cell_width}}" for m in models)
        lines.append(line.rstrip())
    lines.append("-: the model's CPU lacks the ISA (never run)")
    for note, (number, model) in notes.items():
        lines.append(f"{'!' * number}: {model} is known to be off here: {note}")
    return "\n".join(lines)
