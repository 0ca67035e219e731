/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* The groups only the Windows test program (tests/win/win_main.c) has. */
#ifndef AESGEN_TEST_WIN_TESTS_H
#define AESGEN_TEST_WIN_TESTS_H

#include "tests.h"

/* The Win64 thunk sees what only Win64 has: rdi, rsi, xmm6-15, the stack above the
 * parameter area, and lets a function use its shadow space (win_main.c). */
void test_win64_abi(const struct test_config *config);
/* Every generated function single-stepped: the system unwinder recovers the caller
 * from each instruction (test_unwind.c). */
void test_unwind(const struct test_config *config);

#endif
