# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""The GHASH schedule of the GCM loops: which GHASH step runs after which AES round.

GHASH of one iteration is a fixed sequence of numbered steps (templates/lib/ghash.j2,
macro ghash_step, emits each one); the AES rounds of the same iteration are independent
of it, so each step is placed before the first or after one of the nine middle rounds
every key size runs (KLAST-9 .. KLAST-1; AES-192/256 enter two and four rounds earlier,
before the steps placed "before KLAST-9"), where its carry-less multiplies and shuffles
fill the cycles the vaesenc chain leaves.

Step kinds (one vector = `lanes` blocks; a pair = two vectors, EVEX):
  load     decryption: the iteration's source vectors into the GHASH data registers
  reflect  byte-reflect both vectors of a pair (vpshufb)
  join     the running hash (ACC) joins block 0: the only step that waits for the
           previous iteration's reduction
  halves   Karatsuba: the half sums a_L ^ a_H of a pair's two vectors into T0/T1 (no
           multiply; its pair's mid step must follow it directly)
  mid/lo/hi  the middle, low and high partial products of a pair, added into MI/LO/HI
           (Karatsuba: mid first, from the half sums; schoolbook: mid last)
  one      all products of a single (odd) vector
  vload/vmul  16-register ISAs: one vector at a time through D (load or copy, reflect,
           join for vector 0), then its products
  fix      Karatsuba: MI ^= LO ^ HI
  unfix    Karatsuba into sums that already hold products (records: the AAD's): the
           same XOR first, so that the fix cancels it for those and they stay as they were
  lengths  records: the lengths block's product with its power
  fold_lo, fold_mi  the two folds of the reduction; lanes: the lanes' XOR into ACC

SCHEDULES below holds the schedules a person chose for the default UNROLL=4 main loops,
per ISA, GHASH method and direction, each measured with llvm-mca on every model of
mca/baseline.json, and for the UNROLL=8 loops of the variant that runs them (avx10_512,
Karatsuba: znver5), measured on that CPU.  Every other count of vectors (other UNROLL
values, the records' final groups) takes the rule of `_spread`.
"""

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

ROUNDS = 9         # the middle rounds every key size runs
SLOTS = ROUNDS + 2  # before the first of them, after each of them, and after the last round
BEFORE, AFTER_LAST = 0, ROUNDS + 1     # the slots that are not "after KLAST-m"


@dataclass(frozen=True)
class Step:
    number: int             # position in the GHASH sequence (0, 1, ...)
    kind: str
    index: int = 0          # the pair (mid/lo/hi/reflect), or the vector (one, vload, vmul)
    starts: bool = False    # the first product into its sum: written, not added
    last: bool = False      # mid/lo/hi: the pair's last product, which may overwrite it

    @property
    def name(self) -> str:
        return f"{self.kind}{self.index}" if self.kind in _INDEXED else self.kind


_INDEXED = {"reflect", "halves", "mid", "lo", "hi", "one", "vload", "vmul"}

# --- the chosen schedules -----------------------------------------------------------------
# Keys: (ISA, path, GHASH, direction, vectors); values: the step names before KLAST-9's
# round, then after each of the nine middle rounds, KLAST-9 first, then after the last
# round.  "pairs" is the EVEX path
# (two vectors a step, 32 registers), "single" the 16-register one (one vector a step
# through D; those ISAs have no room for GD: encryption reads the output of the
# iteration two before back from memory).
# Each table was chosen among measured candidates: llvm-mca 19 (perf/mca.py's method) on
# every model of mca/baseline.json, none slower than the schedule it replaced (the
# rendered text cut into nine chunks of equal line count), most faster.  To try another
# placement: edit the table, `make gen`, then `make mca` (the table) and `make mca-check`
# (against the baseline).  REASONS below is the why, printed into each file's header.
# The UNROLL=8 Karatsuba tables' slots after the rounds, the same for both directions.
_UNROLL8_AFTER = (
    ("halves2", "mid2"),                        # after KLAST-9
    ("lo2", "hi2"),                             # KLAST-8
    ("halves3", "mid3"),                        # KLAST-7
    ("lo3", "hi3"),                             # KLAST-6
    ("join", "halves0"),                        # KLAST-5
    ("mid0", "lo0"),                            # KLAST-4
    ("hi0", "fix"),                             # KLAST-3
    ("fold_lo", "fold_mi"),                     # KLAST-2
    ("lanes",),                                 # KLAST-1
)
SCHEDULES = {
    # 512-bit EVEX, Karatsuba (the default): pair 1 (vectors 2, 3) first, block 0's pair
    # last, so that the previous iteration's reduction (the loop-carried chain ending
    # in the lanes' XOR into ACC) has four rounds before "join" needs it.
    ("avx10_512", "pairs", "karatsuba", "dec", 4): (
        (),                                         # before KLAST-9
        ("load", "reflect1"),                       # after KLAST-9
        ("halves1", "mid1", "lo1"),                 # KLAST-8
        (),                                         # KLAST-7
        ("hi1", "reflect0"),                        # KLAST-6
        ("join",),                                  # KLAST-5
        ("halves0", "mid0", "lo0", "hi0"),          # KLAST-4
        ("fix",),                                   # KLAST-3
        ("fold_lo",),                               # KLAST-2
        ("fold_mi", "lanes"),                       # KLAST-1
    ),
    ("avx10_512", "pairs", "karatsuba", "enc", 4): (
        (),                                         # before KLAST-9
        (),
        ("reflect1", "halves1", "mid1"),
        (),
        ("lo1", "hi1", "reflect0"),
        ("join", "halves0", "mid0"),
        ("lo0",),
        ("hi0", "fix"),
        ("fold_lo",),
        ("fold_mi", "lanes"),
    ),
    # 512-bit EVEX, schoolbook (the alternate set): four multiplies a pair.
    ("avx10_512", "pairs", "school", "dec", 4): (
        (),                                         # before KLAST-9
        ("load", "reflect1"),
        ("lo1", "hi1"),
        (),
        ("mid1", "reflect0"),
        ("join", "lo0"),
        ("hi0",),
        ("mid0",),
        ("fold_lo",),
        ("fold_mi", "lanes"),
    ),
    ("avx10_512", "pairs", "school", "enc", 4): (
        (),                                         # before KLAST-9
        (),
        ("reflect0", "reflect1", "join"),
        ("lo0",),
        ("mid0",),
        ("hi0", "hi1"),
        ("lo1",),
        (),
        ("mid1", "fold_lo", "fold_mi"),
        (),
        ("lanes",),                                 # after the last round
    ),
    # 512-bit EVEX, Karatsuba, 8 vectors (the znver5 variant's UNROLL=8): the reflections
    # and pair 1's products before the first round, then two steps a round
    # (_UNROLL8_AFTER, below).  Measured on Zen 5 (the loop body alone, repeated in place,
    # 15 alternating runs, core cycles per 512 B): AES-128 encryption 65.0 with _spread's
    # placement, 63.5 with this one (broadcast keys, pshufd half sums), 58.2 with
    # KEYS=rows and HALVES=unpack too; decryption 68.2 -> 60.2 and AES-256 encryption
    # 78.9 -> 69.0-71.0, decryption 76.7 -> 71.0-72.4 (all three; two sets of runs).
    # Zen 5 has one carry-less multiplier beside its two AES pipes and four vector pipes
    # for the rest: a multiply issued early keeps that unit busy from the iteration's
    # start.
    ("avx10_512", "pairs", "karatsuba", "enc", 8): (
        ("reflect0", "reflect1", "reflect2", "reflect3",
         "halves1", "mid1", "lo1", "hi1"),          # before KLAST-9
    ) + _UNROLL8_AFTER,
    ("avx10_512", "pairs", "karatsuba", "dec", 8): (
        ("load", "reflect0", "reflect1", "reflect2", "reflect3",
         "halves1", "mid1", "lo1", "hi1"),          # before KLAST-9
    ) + _UNROLL8_AFTER,
    # 256-bit EVEX: the same shape, two blocks a vector.
    ("avx10_256", "pairs", "karatsuba", "dec", 4): (
        (),                                         # before KLAST-9
        ("load", "reflect1"),
        ("halves1", "mid1", "lo1"),
        (),
        ("hi1", "reflect0"),
        ("join", "halves0"),
        ("mid0",),
        ("lo0", "hi0", "fix"),
        ("fold_lo",),
        ("fold_mi", "lanes"),
    ),
    ("avx10_256", "pairs", "karatsuba", "enc", 4): (
        (),                                         # before KLAST-9
        (),
        ("reflect1", "halves1", "mid1", "lo1"),
        (),
        ("hi1", "reflect0"),
        ("join", "halves0", "mid0"),
        ("lo0",),
        (),
        ("hi0", "fix", "fold_lo"),
        ("fold_mi",),
        ("lanes",),
    ),
    ("avx10_256", "pairs", "school", "dec", 4): (
        (),                                         # before KLAST-9
        ("load", "reflect1", "lo1"),
        ("hi1",),
        (),
        ("mid1", "reflect0"),
        ("join", "lo0"),
        ("hi0",),
        ("mid0",),
        ("fold_lo",),
        ("fold_mi", "lanes"),
    ),
    ("avx10_256", "pairs", "school", "enc", 4): (
        (),                                         # before KLAST-9
        ("reflect1",),
        ("lo1", "hi1"),
        (),
        ("mid1", "reflect0"),
        ("join",),
        ("lo0", "hi0"),
        ("mid0",),
        ("fold_lo", "fold_mi"),
        ("lanes",),
    ),
    # 16 registers (VEX), one vector at a time through D.
    ("aesni_avx", "single", "school", "dec", 4): (
        (),                                         # before KLAST-9
        ("vload0",),
        (),
        ("vmul0", "vload1"),
        ("vmul1",),
        (),
        ("vload2", "vmul2"),
        ("vload3", "vmul3"),
        (),
        ("fold_lo", "fold_mi"),
        ("lanes",),
    ),
    ("vaes_avx2", "single", "school", "dec", 4): (
        (),                                         # before KLAST-9
        ("vload0", "vmul0"),
        ("vload1",),
        (),
        ("vmul1", "vload2"),
        ("vmul2",),
        ("vload3",),
        (),
        ("vmul3", "fold_lo", "fold_mi"),
        ("lanes",),
    ),
}
# Encryption on the 16-register ISAs (since 2026-12-07: an earlier iteration's ciphertext
# read back from memory, a vector at a time, as decryption loads its source) takes the
# decryption tables' placement.  Intel Xeon guest (family 6 model 0xa7), against
# _spread's rule, 4 alternating runs, AES-128 / AES-256: aesni_avx 1.01-1.02 / 1.01-1.04,
# vaes_avx2 1.00 / 1.00-1.03 at 256 B-16 KiB.
for _isa in ("aesni_avx", "vaes_avx2"):
    SCHEDULES[(_isa, "single", "school", "enc", 4)] = SCHEDULES[(_isa, "single", "school",
                                                                 "dec", 4)]
del _isa


class ScheduleError(Exception):
    """A table that does not hold the steps it must, or orders them wrongly."""


def steps(path: str, ghash: str, vectors: int, *, load: bool, fresh: bool = True,
          lengths: bool = False, join_last: bool = False, reduce: bool = True) -> List[Step]:
    """The GHASH steps of `vectors` vectors in their natural order (pair 0 first), or
    with join_last the join and pair 0's products after the other pairs' products.
    reduce=False: the sums stop after the fix (whole products, waiting unreduced for
    more: a record's first group of two in one sum)."""
    names: List[str] = []
    if ghash == "karatsuba" and not fresh:
        # the sums so far hold schoolbook products, which the fix must leave alone
        names.append("unfix")
    if path == "pairs":
        pairs = vectors // 2
        if load:
            names.append("load")
        names += [f"reflect{p}" for p in range(pairs)]
        order = (("halves", "mid", "lo", "hi") if ghash == "karatsuba"
                 else ("lo", "hi", "mid"))
        pair_order = list(range(1, pairs)) + [0] if join_last and pairs else list(range(pairs))
        for p in pair_order:
            if p == 0:
                names.append("join")
            names += [f"{kind}{p}" for kind in order]
        if vectors % 2:
            names.append(f"one{vectors - 1}")      # reflects (and joins, if vector 0) itself
    else:
        for j in range(vectors):
            names += [f"vload{j}", f"vmul{j}"]
    if ghash == "karatsuba":
        names.append("fix")
    if not reduce:
        if lengths:
            raise ScheduleError("the lengths block joins the sum that is reduced")
        return _numbered(names, ghash, fresh)
    if lengths:
        names.append("lengths")
    names += ["fold_lo", "fold_mi", "lanes"]
    return _numbered(names, ghash, fresh)


def _numbered(names: Sequence[str], ghash: str, fresh: bool) -> List[Step]:
    """Steps with their flags from the order of names: the first product into each sum
    starts it (when the sums are fresh), a pair's last product may overwrite the pair."""
    out, started = [], set()
    last_of_pair = {}
    for position, name in enumerate(names):
        kind, index = _parse(name)
        if kind in ("mid", "lo", "hi"):
            last_of_pair[index] = position
    for position, name in enumerate(names):
        kind, index = _parse(name)
        sums = {"mid": {"MI"}, "lo": {"LO"}, "hi": {"HI"},
                "one": {"LO", "MI", "HI"}, "vmul": {"LO", "MI", "HI"}}.get(kind, set())
        starts = fresh and bool(sums) and not (sums & started)
        started |= sums
        out.append(Step(position, kind, index, starts,
                        last=kind in ("mid", "lo", "hi") and last_of_pair[index] == position))
    return out


def _parse(name: str) -> Tuple[str, int]:
    for kind in sorted(_INDEXED, key=len, reverse=True):
        if name.startswith(kind) and name[len(kind):].isdigit():
            return kind, int(name[len(kind):])
    return name, 0


def schedule(isa: str, path: str, ghash: str, direction: str, vectors: int, *, load: bool,
             fresh: bool = True, lengths: bool = False, early: bool = False,
             reduce: bool = True) -> List[List[Step]]:
    """The steps of each of the SLOTS slots (BEFORE the first of the nine rounds, after
    each of them, AFTER_LAST): the chosen table when there is one for this case, else
    the rule of _spread (with early: its rule for data that is ready before the rounds)."""
    table = SCHEDULES.get((isa, path, ghash, direction, vectors))
    if table is None or lengths or not fresh or not reduce:
        return _spread(steps(path, ghash, vectors, load=load, fresh=fresh, lengths=lengths,
                             join_last=True, reduce=reduce), early=early)
    natural = steps(path, ghash, vectors, load=load, fresh=fresh, lengths=lengths)
    order = [name for slot in table for name in slot]
    wanted = sorted(step.name for step in natural)
    if sorted(order) != wanted:
        raise ScheduleError(f"GHASH schedule {isa}/{path}/{ghash}/{direction}: holds "
                            f"{', '.join(sorted(order))}; needs {', '.join(wanted)}")
    numbered = _numbered(order, ghash, fresh)
    _check_order(numbered, f"{isa}/{path}/{ghash}/{direction}")
    if len(table) > SLOTS:
        raise ScheduleError(f"GHASH schedule {isa}/{path}/{ghash}/{direction}: "
                            f"{len(table)} slots; there are {SLOTS}")
    by_name = {step.name: step for step in numbered}
    slots = [[by_name[name] for name in slot] for slot in table]
    return slots + [[] for _ in range(SLOTS - len(slots))]


def _check_order(order: List[Step], what: str):
    """Each step after the ones it reads: a pair is reflected before its products (and
    pair 0 joined), the sums are complete before the fix, the folds and the lanes."""
    seen = set()
    needs = {"mid": ("reflect",), "lo": ("reflect",), "hi": ("reflect",),
             "halves": ("reflect",)}
    for position, step in enumerate(order):
        if step.kind == "halves" and (position + 1 == len(order) or
                                      order[position + 1].name != f"mid{step.index}"):
            raise ScheduleError(f"GHASH schedule {what}: {step.name} not followed by "
                                f"mid{step.index} (the half sums live in T0/T1)")
        if step.kind in needs and f"reflect{step.index}" not in seen:
            raise ScheduleError(f"GHASH schedule {what}: {step.name} before reflect{step.index}")
        if step.kind in needs and step.index == 0 and "join" not in seen:
            raise ScheduleError(f"GHASH schedule {what}: {step.name} before join")
        if step.kind == "reflect" and "load" in {s.name for s in order} and "load" not in seen:
            raise ScheduleError(f"GHASH schedule {what}: {step.name} before load")
        if step.kind == "join" and "reflect0" not in seen:
            raise ScheduleError(f"GHASH schedule {what}: join before reflect0")
        if step.kind == "vmul" and f"vload{step.index}" not in seen:
            raise ScheduleError(f"GHASH schedule {what}: {step.name} before vload{step.index}")
        if step.kind == "vload" and step.index and f"vmul{step.index - 1}" not in seen:
            raise ScheduleError(f"GHASH schedule {what}: {step.name} overwrites D before "
                                f"vmul{step.index - 1}")
        if step.kind in ("fix", "lengths", "fold_lo", "fold_mi", "lanes"):
            products = [s for s in order if s.kind in ("mid", "lo", "hi", "one", "vmul")]
            if any(s.name not in seen for s in products):
                raise ScheduleError(f"GHASH schedule {what}: {step.name} before the last product")
        seen.add(step.name)
    names = [s.name for s in order]
    tail = [n for n in names if n in ("fix", "lengths", "fold_lo", "fold_mi", "lanes")]
    if tail != [n for n in ("fix", "lengths", "fold_lo", "fold_mi", "lanes") if n in names]:
        raise ScheduleError(f"GHASH schedule {what}: the reduction's steps out of order")


def _spread(ordered: List[Step], early: bool = False) -> List[List[Step]]:
    """The rule for counts without a table, on the steps in the order steps(join_last=True)
    gives (block 0's pair last, as in the tables: its join waits for the previous
    iteration's reduction, the other pairs' products do not): the products (and the
    steps before them) over the first six rounds as evenly as their count allows,
    fix/lengths with the first fold after KLAST-3, the second fold after KLAST-2, the
    lanes' XOR after KLAST-1 (one fold a round: each waits for the last).

    early (the data is in registers before the rounds: the records' decryption final
    groups): BEFORE takes the steps up to the first pair's low product (the unfix, the
    reflections, that pair's half sums and middle product), so the carry-less
    multiplier starts with the group; the rest is spread as above."""
    head = [s for s in ordered if s.kind not in ("fold_lo", "fold_mi", "lanes", "fix",
                                                  "lengths")]
    slots: List[List[Step]] = [[] for _ in range(SLOTS)]
    if early:
        first_lo = next((i for i, s in enumerate(head) if s.kind == "lo" and s.index), None)
        if first_lo is not None:
            slots[BEFORE], head = head[:first_lo + 1], head[first_lo + 1:]
    after = {m: BEFORE + 1 + ROUNDS - m for m in range(1, ROUNDS + 1)}   # after KLAST-m
    size, extra = divmod(len(head), 6)
    start = 0
    for i, m in enumerate(range(ROUNDS, ROUNDS - 6, -1)):
        end = start + size + (1 if i < extra else 0)
        slots[after[m]] = head[start:end]
        start = end
    for step in ordered:
        if step.kind in ("fix", "lengths", "fold_lo"):
            slots[after[3]].append(step)
        elif step.kind == "fold_mi":
            slots[after[2]].append(step)
        elif step.kind == "lanes":
            slots[after[1]].append(step)
    return slots


def in_order(path: str, ghash: str, vectors: int, *, load: bool, fresh: bool = True,
             lengths: bool = False) -> List[Step]:
    """All steps, in their natural order (GHASH that is not interleaved with AES)."""
    return steps(path, ghash, vectors, load=load, fresh=fresh, lengths=lengths)


def reasons(isa: str, ghash: str, vectors: int) -> List[str]:
    """Comment lines that say why the schedule of this ISA, method and count is what it is."""
    if any(key[0] == isa and key[2] == ghash and key[4] == vectors for key in SCHEDULES):
        return list(REASONS[(isa, vectors)])
    return ["This UNROLL has no chosen table: the steps are spread in their natural order",
            "but for block 0's pair, which comes last (its join waits for the previous",
            "iteration's reduction), the products over the first six rounds, one fold a",
            "round after them, the lanes' XOR after KLAST-1."]


_EVEX_REASONS = (
    "Why there: the loop is bound by the vector ports that vaesenc, vpclmulqdq and the",
    "shuffles share (llvm-mca: Zen 4/5 FP0/FP1, Intel port 0/5), so each round takes at",
    "most about two 512-bit multiplies beside its vaesenc, and the steps between rounds",
    "keep them busy while the AES chain waits on its own latency.  The one loop-carried",
    "dependence is ACC: the lanes' XOR of iteration i feeds \"join\" of iteration i+1, so",
    "the Karatsuba loops hash pair 1 (vectors 2, 3) first and block 0's pair last, and",
    "the folds follow the last product one round apart (each needs the previous one's",
    "result).  Where a model preferred another order (the schoolbook encryption), the",
    "table follows the measurement.",
)
REASONS = {
    ("avx10_512", 4): _EVEX_REASONS,
    ("avx10_256", 4): _EVEX_REASONS,
    ("avx10_512", 8): (
        "Why there (measured on Zen 5, which runs these loops): its one carry-less",
        "multiplier sits beside the two AES pipes, and the four vector pipes take the",
        "rest, so the loop is bound by the multiplies and the vector ops together.  The",
        "reflections and pair 1's products go before the first round, so the multiplier",
        "starts with the iteration; then two steps a round, the reduction's folds after",
        "KLAST-2 and the lanes' XOR after KLAST-1.",
    ),
    ("aesni_avx", 4): (
        "Why there: with 16 registers each vector goes through D (load, reflect, four",
        "products) before the next can be loaded; the products are spread over the",
        "rounds so that no round waits for more than one vector's multiplies, and the",
        "two folds come after the last product, ACC being written after the last round.",
    ),
}
REASONS[("vaes_avx2", 4)] = REASONS[("aesni_avx", 4)]
