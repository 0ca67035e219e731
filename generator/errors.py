# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
"""Errors the CLI reports to the user (exit status 2), as opposed to bugs."""


class UsageError(Exception):
    """Bad input from the user: an unknown name, a knob value out of range.

    The message names the bad value and the valid ones.
    """


class TemplateError(Exception):
    """A template produced something the model or a lint pass rejects."""
