"""aesgen: generates x86-64 AES assembly from Jinja2 templates.

The pipeline is: knobs -> template (Jinja2) -> neutral assembly text -> parse into the
instruction model -> passes (lint) -> printers (GNU as AT&T, NASM).
"""

VERSION = "0.1.0"
