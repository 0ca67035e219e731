/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* Runs this test binary again in a child process with some environment variables set or
 * removed (the library reads AESGEN_ISA and AESGEN_VARIANT once per process, so only a
 * fresh process shows what a variable does). */
#ifndef AESGEN_TESTS_CHILD_H
#define AESGEN_TESTS_CHILD_H

#include <stdbool.h>
#include <stddef.h>

/* Set when the tests run on an emulated CPU (tests/emulated/run.py): the emulator's
 * command, which children run through too, and /proc/cpuinfo describes the host. */
#define TEST_EMULATOR_ENV "AESGEN_TEST_EMULATOR"

struct child_var {
    const char *name;   /* e.g. "AESGEN_ISA" */
    const char *value;  /* NULL: removed from the child's environment */
};

/* Runs `self flag` with this process's environment, minus each named variable, plus each
 * one that has a value; the child's first output line goes to report.  True if the child
 * exited with status 0. */
bool run_child_with(const char *self, const char *flag, const struct child_var *vars,
                    size_t nvars, char *report, size_t cap);

#endif
