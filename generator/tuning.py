# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""generator/tuning.json: knob defaults measured on a real CPU by `make explore ... APPLY=1`.

Per mode and ISA it holds the knobs that won the sweep and the CPU they were measured
on.  knobs.resolve() layers them over the mode's built-in defaults (the user's KNOB=VALUE
assignments still win), so `make gen` reproduces the tuned files.  Delete an entry to go
back to the built-in defaults.
"""

import json
import os

from .errors import UsageError

TUNING_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tuning.json")
SCHEMA = "aesgen-tuning-1"


def load(path=None) -> dict:
    """The whole document; an absent file means no tuning."""
    path = path or TUNING_FILE
    if not os.path.exists(path):
        return {"schema": SCHEMA, "tuning": {}}
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except ValueError as error:
        raise UsageError(f"{path}: not valid JSON ({error})") from None
    if document.get("schema") != SCHEMA or not isinstance(document.get("tuning"), dict):
        raise UsageError(f"{path}: expected schema {SCHEMA!r} with a 'tuning' object")
    return document


def tuned_knobs(mode: str, isa: str, path=None) -> dict:
    """{KNOB: value} measured for this mode and ISA, or {}."""
    entry = load(path)["tuning"].get(mode, {}).get(isa)
    if entry is None:
        return {}
    knobs = entry.get("knobs")
    if not isinstance(knobs, dict):
        raise UsageError(f"{path or TUNING_FILE}: tuning.{mode}.{isa} has no 'knobs' object")
    return dict(knobs)


def save_entry(mode: str, isa: str, entry: dict, path=None) -> None:
    """Writes (or replaces) one mode/ISA entry, keeping the others."""
    path = path or TUNING_FILE
    document = load(path)
    document["tuning"].setdefault(mode, {})[isa] = entry
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1, sort_keys=True)
        handle.write("\n")
