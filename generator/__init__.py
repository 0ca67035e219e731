# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""aesgen: generates x86-64 AES assembly from Jinja2 templates.

The pipeline is: knobs -> template (Jinja2) -> neutral assembly text -> parse into the
instruction model -> passes (lint) -> printers (GNU as AT&T, NASM).
"""

import os as _os
import re as _re


def _read_version() -> str:
    """AESGEN_VERSION_STRING of runtime/include/aesgen.h, the one definition of the version."""
    header = _os.path.join(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))),
                           "runtime", "include", "aesgen.h")
    with open(header, encoding="utf-8") as f:
        match = _re.search(r'^#define AESGEN_VERSION_STRING "([0-9]+\.[0-9]+\.[0-9]+)"$',
                           f.read(), _re.M)
    if not match:
        raise RuntimeError(f"{header}: no AESGEN_VERSION_STRING line")
    return match.group(1)


VERSION = _read_version()

# The license of everything the generator writes (LICENSE explains the choice).
SPDX_LICENSE = "Apache-2.0 OR BSD-2-Clause"
