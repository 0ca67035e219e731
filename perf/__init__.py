# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""aesgen performance tooling: llvm-mca estimates of the generated main loops (make mca,
mca-check, mca-baseline), the knob sweep (make explore) and the bench calibration/charts.

Python 3 standard library only; it imports the generator for ISAs, modes and knobs.
"""
