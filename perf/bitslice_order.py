# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""python3 -m perf bitslice-order: the order of the S-box middle's first-layer
clusters in the bitsliced rounds (generator/bitslice.py MIDDLE_CLUSTERS, CLUSTER_ORDER).

Every order of the clusters is scheduled, allocated and rated by the out-of-order model
(perf/ooo_model.py), for the encryption and the inverse round; the table lists the
best.  --measure N also times, on this machine, the model's best N orders and the
recorded one: each as a loop of middle rounds (perf/round_loop.c), pinned, every
candidate once per pass with the passes alternating, the median over the passes.
CLUSTER_ORDER is changed by hand, from a measurement, with the CPU named beside it.
"""

import itertools
import os
import statistics
import subprocess

from generator import bitslice
from generator.errors import UsageError

from . import ooo_model

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH_DIR = os.path.join(REPO, "tests", "bench")   # the core clock: the bench's add chain
FRAME = "rbx"           # the frame register of the timed loop (perf/round_loop.c)


def orders():
    return ["".join(p) for p in itertools.permutations(sorted(bitslice.MIDDLE_CLUSTERS))]


def rank(decrypt, machine=ooo_model.ZEN4):
    """[(model cycles of a middle round, order)], best first (ties by order)."""
    rated = []
    for order in orders():
        lines = bitslice.round_lines(1, FRAME, decrypt=decrypt, cluster_order=order)
        rated.append((ooo_model.cycles_per_iteration(lines, machine), order))
    return sorted(rated)


def loop_source(lines, after_loop=()):
    """The timed loop: the round's lines repeated n times, Intel syntax for GNU as;
    after_loop: lines run once when it ends (vzeroupper after ymm/zmm code)."""
    tables = dict(bitslice.TABLES, **bitslice.DECRYPT_TABLES)
    body = "\n".join("\t" + line.partition("#")[0].rstrip().replace("xmmword [", "xmmword ptr [")
                     for line in lines)
    consts = "\n".join(f".Lbs_{name}:\n\t.byte {', '.join(map(str, value))}"
                       for name, value in tables.items())
    return (".intel_syntax noprefix\n\t.section .rodata\n\t.align 64\n" + consts +
            "\n\t.text\n\t.globl run_rounds\nrun_rounds:\n\tpush rbx\n\tmov rbx, rsi\n1:\n" +
            body + "\n\tdec rdi\n\tjnz 1b\n" +
            "".join(f"\t{line}\n" for line in after_loop) + "\tpop rbx\n\tret\n"
            "\t.section .note.GNU-stack,\"\",@progbits\n")


def time_loops(programs, out, passes=5, cpu=1, cc="cc", after_loop=()):
    """{name: median cycles per pass} of each program ({name: lines}) looped on this
    machine (perf/round_loop.c), pinned to `cpu`, every program once per pass, the
    passes starting at a different program each."""
    check_timing(passes, cpu)
    os.makedirs(out, exist_ok=True)
    binaries = {}
    for name, lines in programs.items():
        source = os.path.join(out, f"{name}.s")
        with open(source, "w") as f:
            f.write(loop_source(lines, after_loop))
        binary = source[:-2]
        subprocess.run([cc, "-O2", "-o", binary, "-I", BENCH_DIR,
                        os.path.join(REPO, "perf", "round_loop.c"),
                        os.path.join(BENCH_DIR, "bench_machine.c"), source], check=True)
        binaries[name] = binary
    names = list(programs)
    times = {name: [] for name in names}
    for p in range(passes):
        for name in names[p % len(names):] + names[:p % len(names)]:
            run = subprocess.run(["taskset", "-c", str(cpu), binaries[name]],
                                 check=True, capture_output=True, text=True)
            times[name].append(float(run.stdout))
    return {name: statistics.median(t) for name, t in times.items()}


def measure(decrypt, candidates, out, passes=5, cpu=1, cc="cc"):
    """{order: median cycles per middle round} on this machine."""
    kind = "dec" if decrypt else "enc"
    programs = {f"{kind}-{order}": bitslice.round_lines(1, FRAME, decrypt=decrypt,
                                                         cluster_order=order)
                for order in candidates}
    timed = time_loops(programs, out, passes, cpu, cc)
    return {order: timed[f"{kind}-{order}"] for order in candidates}


def check_timing(passes, cpu):
    """The shared timing options, before anything is built: a pass count of at least 1,
    a CPU this process may run on (taskset would fail after the build)."""
    if passes < 1:
        raise UsageError(f"--passes {passes}: valid: 1 or more")
    allowed = sorted(os.sched_getaffinity(0))
    if cpu not in allowed:
        raise UsageError(f"--cpu {cpu}: not a CPU this process may run on; allowed: "
                         + ", ".join(map(str, allowed)))


def timing_parser(sub, name, help_text, passes):
    """A subcommand that times loops with time_loops: --passes, --cpu and --out
    (build/<name>), the options the probes share."""
    parser = sub.add_parser(name, help=help_text)
    parser.add_argument("--passes", type=int, default=passes,
                        help=f"passes (default {passes})")
    parser.add_argument("--cpu", type=int, default=1, help="CPU to pin to (default 1)")
    parser.add_argument("--out", default=os.path.join(REPO, "build", name))
    return parser


def add_parser(sub):
    parser = sub.add_parser("bitslice-order", help="rank the bitsliced rounds' cluster "
                                                   "orders (model; --measure: timed)")
    parser.add_argument("--measure", type=int, default=0, metavar="N",
                        help="time the model's best N and the recorded order here")
    parser.add_argument("--top", type=int, default=8, help="orders listed (default 8)")
    parser.add_argument("--cpu", type=int, default=1, help="CPU to pin to (default 1)")
    parser.add_argument("--out", default=os.path.join(REPO, "build", "bitslice-order"))
    return parser


def command(args):
    if args.measure < 0 or args.top < 1:
        raise UsageError(f"--measure {args.measure} --top {args.top}: valid: --measure 0 or "
                         "more (0: the model only), --top 1 or more")
    if args.measure:
        check_timing(1, args.cpu)
    for decrypt in (False, True):
        name = "inverse round" if decrypt else "round"
        recorded = bitslice.CLUSTER_ORDER[decrypt]
        rated = rank(decrypt)
        model = dict((order, cycles) for cycles, order in rated)
        print(f"{name}: recorded {recorded} (model {model[recorded]:.1f} cycles)")
        timed = {}
        if args.measure:
            candidates = [o for _, o in rated[:args.measure]]
            if recorded not in candidates:
                candidates.append(recorded)
            timed = measure(decrypt, candidates, args.out, cpu=args.cpu)
        for cycles, order in rated[:args.top]:
            extra = f"  measured {timed[order]:.1f}" if order in timed else ""
            print(f"  {order}  model {cycles:5.1f}{extra}")
        if recorded in timed and recorded not in [o for _, o in rated[:args.top]]:
            print(f"  {recorded}  model {model[recorded]:5.1f}  measured {timed[recorded]:.1f}")
    return 0
