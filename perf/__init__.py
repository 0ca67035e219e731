# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""aesgen performance tooling: llvm-mca estimates of the generated main loops (make mca,
mca-check, mca-baseline), the knob sweep (make explore) and the bench calibration/charts.

Python 3 standard library only; it imports the generator for ISAs, modes and knobs.
"""

import json
import os

from generator.errors import UsageError

BENCH_SCHEMA = "aesgen-bench-1"


def read_json(path: str):
    """The JSON document at path; a file that cannot be read or is not JSON is bad input
    (UsageError, exit 2) naming the path."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as error:
        raise UsageError(f"cannot read '{path}': {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise UsageError(f"'{path}' is not JSON ({error.msg}, line {error.lineno})") from None


def read_bench_results(path: str) -> dict:
    """A results file the bench wrote (--json), checked for its schema and records."""
    doc = read_json(path)
    if (not isinstance(doc, dict) or doc.get("schema") != BENCH_SCHEMA
            or not isinstance(doc.get("results"), list)):
        raise UsageError(f"'{path}' is not a bench results file (schema {BENCH_SCHEMA})")
    return doc


def check_writable(path: str, option: str) -> None:
    """Before minutes of work: path (a file to write, its directories made as needed) can
    be written; else UsageError naming the option and the obstacle."""
    if os.path.exists(path):
        if os.path.isdir(path) or not os.access(path, os.W_OK):
            raise UsageError(f"{option} {path}: cannot write that file")
        return
    parent = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise UsageError(f"{option} {path}: {parent} is a file, not a directory")
    if not os.access(parent, os.W_OK):
        raise UsageError(f"{option} {path}: {parent} is not writable")
