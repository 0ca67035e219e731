# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""generator/tuning.json: what was measured faster on one microarchitecture, and where.

Two tables, both keyed by a uarch of generator/uarch.py (or "default": a CPU in no row of
it, see below) and each entry carrying the machine, the date and the measured gains (an
entry is applied only on the uarch it was measured on; an llvm-mca model of another CPU
may rank candidates, never decide):

- variants: mode -> ISA -> uarch -> {"knobs": {KNOB: value}, ...}.  The generator renders
  the ISA's file with its default knobs plus, for each uarch whose knobs differ, a
  variant of the functions (generator/render.py); the runtime takes the variant of the
  CPU's uarch (runtime/src/isa.c).  `make explore ... APPLY=1` writes these.
- lengths: mode -> uarch -> {"isa": ISA, "classes": [{"max_len": N, "isa": ISA}, ...]}:
  where "auto" takes that ISA on that uarch, a call of at most max_len bytes goes to the
  class's ISA instead (the first class that covers it; classes in ascending max_len).
  For gcm, "classes" are the one-shot records and the optional "stream_classes" the
  streaming calls (aesgen_gcm_aad, aesgen_gcm_*_update).
  A context whose ISA was named (aesgen_*_init_isa, AESGEN_ISA) keeps its ISA at every
  length.

The name "default" in either table is the entry of a CPU in no row of generator/uarch.py
(and of AESGEN_VARIANT=default): its knobs are a variant like a uarch's, its length plan a
plan like a uarch's.  A uarch with a row takes its own entries or the files' own
functions and no plan, never the default's: nothing measured the default's there.  A
default entry is measured on one CPU in no row, so its gains also say how the uarchs'
own entries of that mode compare (the same shape measured elsewhere, or not).

Delete an entry to go back to the defaults.
"""

import json
import os

from .errors import UsageError

TUNING_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tuning.json")
SCHEMA = "aesgen-tuning-2"
TABLES = ("variants", "lengths")
# What every entry must say besides its payload: where and when it was measured, and what.
PROVENANCE = ("machine", "date", "gains")


def _empty() -> dict:
    return {"schema": SCHEMA, "variants": {}, "lengths": {}}


def load(path=None) -> dict:
    """The whole document; an absent file means no tuning."""
    path = path or TUNING_FILE
    if not os.path.exists(path):
        return _empty()
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except ValueError as error:
        raise UsageError(f"{path}: not valid JSON ({error})") from None
    if not isinstance(document, dict) or document.get("schema") != SCHEMA or \
            not all(isinstance(document.get(t, {}), dict) for t in TABLES):
        raise UsageError(f"{path}: expected schema {SCHEMA!r} with the objects "
                         f"{', '.join(TABLES)}")
    for table in TABLES:
        document.setdefault(table, {})
    return document


def _check_provenance(where: str, entry) -> None:
    if not isinstance(entry, dict):
        raise UsageError(f"{where}: expected an object")
    missing = [k for k in PROVENANCE if not entry.get(k)]
    if missing:
        raise UsageError(f"{where}: no {', '.join(missing)} (every entry says where, when "
                         "and what was measured)")


# variants.<mode>.<isa>.default and lengths.<mode>.default: the entries of a CPU in no row
# of generator/uarch.py.
DEFAULT = "default"


def check_name(where: str, name: str) -> None:
    """A uarch of generator/uarch.py or DEFAULT, else UsageError naming the valid ones."""
    from .uarch import UARCHES
    if name != DEFAULT and name not in UARCHES:
        raise UsageError(f"{where}: unknown uarch '{name}'; valid: {DEFAULT} (a CPU in no "
                         f"row of generator/uarch.py), {', '.join(UARCHES)}")


def uarch_knobs(mode: str, isa: str, path=None) -> dict:
    """{uarch: {KNOB: value}} of the variants table for this mode and ISA (unchecked
    knobs: generator/knobs.py checks them against the mode)."""
    where_file = path or TUNING_FILE
    out = {}
    for name, entry in load(path)["variants"].get(mode, {}).get(isa, {}).items():
        where = f"{where_file}: variants.{mode}.{isa}.{name}"
        check_name(where, name)
        _check_provenance(where, entry)
        if not isinstance(entry.get("knobs"), dict):
            raise UsageError(f"{where}: no 'knobs' object")
        out[name] = dict(entry["knobs"])
    return out


CLASS_VARIANTS = ("uarch", "own")


def _classes(where: str, entry: dict, key: str) -> tuple:
    """((max_len, isa, variant, min_len, at_most), ...) of entry[key], checked: ascending
    max_len, other ISAs than entry's.  variant: "uarch" (absent: the ISA's functions for
    the plan's uarch, its variant where it has one) or "own" (the file's own functions,
    which may then be the plan's ISA itself: e.g. short calls keep the built-in knobs a
    uarch variant trades for long ones).  min_len (absent: 1): the class covers
    min_len..max_len bytes.  at_most ("last_vector_at_most"; absent: None, any): only the
    calls whose last vector of the plan's ISA holds at most that many bytes (a multiple
    of 16 below the vector), e.g. 129-1120 B with a last 64-byte vector of 16-32 bytes,
    which a narrower ISA fills where the plan's would leave lanes idle."""
    from .isa import ISAS
    classes, last = [], 0
    for c in entry.get(key, []):
        if not isinstance(c, dict) or c.get("isa") not in ISAS:
            raise UsageError(f"{where}: {key}: unknown ISA "
                             f"{c.get('isa') if isinstance(c, dict) else c!r}; valid: "
                             f"{', '.join(ISAS)}")
        max_len = c.get("max_len")
        if not isinstance(max_len, int) or max_len <= last:
            raise UsageError(f"{where}: max_len {max_len!r}: expected integers in "
                             "ascending order, each above 0")
        variant = c.get("variant", "uarch")
        if variant not in CLASS_VARIANTS:
            raise UsageError(f"{where}: {key}: bad variant {variant!r}; valid: "
                             f"{', '.join(CLASS_VARIANTS)}")
        if c["isa"] == entry["isa"] and variant == "uarch":
            raise UsageError(f"{where}: a class of {entry['isa']} itself (its own "
                             "functions: \"variant\": \"own\")")
        min_len = c.get("min_len", 1)
        if not isinstance(min_len, int) or not 1 <= min_len <= max_len:
            raise UsageError(f"{where}: {key}: min_len {min_len!r}: expected an integer "
                             f"1..{max_len} (the class's max_len)")
        at_most = c.get("last_vector_at_most")
        vector = ISAS[entry["isa"]].vector_bytes
        if at_most is not None and (not isinstance(at_most, int) or at_most % 16
                                    or not 16 <= at_most < vector):
            raise UsageError(f"{where}: {key}: last_vector_at_most {at_most!r}: expected a "
                             f"multiple of 16 below {entry['isa']}'s vector of {vector} bytes"
                             f" (valid: {', '.join(str(n) for n in range(16, vector, 16))})")
        unknown = sorted(set(c) - {"isa", "max_len", "variant", "min_len",
                                   "last_vector_at_most"})
        if unknown:
            raise UsageError(f"{where}: {key}: unknown field {unknown[0]!r}; valid: isa, "
                             "max_len, min_len, last_vector_at_most, variant")
        classes.append((max_len, c["isa"], variant, min_len, at_most))
        last = max_len
    return tuple(classes)


def length_plans(path=None) -> dict:
    """{mode: {uarch: (isa, ((max_len, isa, variant, min_len, at_most), ...), stream classes)}}
    of the lengths table, checked (the stream classes, gcm only, may be empty)."""
    from .isa import ISAS
    from .modes import MODES
    where_file = path or TUNING_FILE
    out = {}
    for mode, per_uarch in sorted(load(path)["lengths"].items()):
        if mode not in MODES:
            raise UsageError(f"{where_file}: lengths.{mode}: unknown mode; valid: "
                             f"{', '.join(MODES)}")
        for name, entry in sorted(per_uarch.items()):
            where = f"{where_file}: lengths.{mode}.{name}"
            check_name(where, name)
            _check_provenance(where, entry)
            if entry.get("isa") not in ISAS:
                raise UsageError(f"{where}: unknown ISA {entry.get('isa')!r}; valid: "
                                 f"{', '.join(ISAS)}")
            classes = _classes(where, entry, "classes")
            streams = _classes(where, entry, "stream_classes")
            if streams and mode != "gcm":
                raise UsageError(f"{where}: stream_classes: only gcm has them")
            if not classes and not streams:
                raise UsageError(f"{where}: no classes")
            out.setdefault(mode, {})[name] = (entry["isa"], classes, streams)
    return out


def _save(document: dict, path) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1, sort_keys=True)
        handle.write("\n")


def save_variant(mode: str, isa: str, uarch: str, entry: dict, path=None) -> None:
    """Writes (or replaces) one mode/ISA/uarch entry, keeping the others."""
    path = path or TUNING_FILE
    document = load(path)
    _check_provenance(f"variants.{mode}.{isa}.{uarch}", entry)
    document["variants"].setdefault(mode, {}).setdefault(isa, {})[uarch] = entry
    _save(document, path)
