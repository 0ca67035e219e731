# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Paths shared by the Python tests; importing it puts the repository on sys.path."""

import os
import shutil
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if REPO not in sys.path:
    sys.path.insert(0, REPO)

GEN = os.path.join(REPO, "gen")


def have(tool):
    return shutil.which(tool) is not None
