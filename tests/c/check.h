/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * A tiny test framework: every check is counted, failures print their name.
 *
 * The C test binary ends with the line `N passed, N failed, N skipped`, which
 * tests/run.py parses; so nothing else may print a line of that shape last.
 */
#ifndef AESGEN_TEST_CHECK_H
#define AESGEN_TEST_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __MINGW32__   /* built with __USE_MINGW_ANSI_STDIO: C99 formats (%zu) */
#define CHECK_PRINTF(fmt_index) __attribute__((format(gnu_printf, fmt_index, fmt_index + 1)))
#else
#define CHECK_PRINTF(fmt_index) __attribute__((format(printf, fmt_index, fmt_index + 1)))
#endif

/* Counts one check; on failure prints "FAIL: <name>". Returns ok. */
bool check(bool ok, const char *name_fmt, ...) CHECK_PRINTF(2);

/* Counts one check comparing two byte strings; a failure also prints the
 * first differing offset and both bytes there. */
bool check_bytes(const uint8_t *got, const uint8_t *want, size_t len,
                 const char *name_fmt, ...) CHECK_PRINTF(4);

/* Counts one check that an int result equals the expected one. */
bool check_int(long got, long want, const char *name_fmt, ...) CHECK_PRINTF(3);

/* Counts one skipped check and prints "SKIP <reason>". */
void check_skip(const char *reason_fmt, ...) CHECK_PRINTF(1);

/* Prints an informational line (not counted). */
void check_note(const char *fmt, ...) CHECK_PRINTF(1);

/* What runs now (e.g. "avx10_512 variant znver4 (_ghashkaratsuba)"), printed after the group
 * on each failure; NULL: nothing. */
void check_set_context(const char *context);

/* Which test group runs now; printed if the process dies from a signal. */
void check_set_group(const char *group);

/* Prints the summary line; returns the process exit status (0 if no failure). */
int check_finish(void);

unsigned long check_failed_count(void);
unsigned long check_total_count(void);   /* passed + failed + skipped */

/* Deterministic pseudo-random numbers (xorshift64*), so failures reproduce.
 * The seed comes from AESGEN_TEST_SEED if set, and is printed at start. */
void rng_seed(uint64_t seed);
uint64_t rng_next(void);
uint64_t rng_below(uint64_t bound);   /* uniform-ish in [0, bound), bound > 0 */
void rng_fill(uint8_t *buf, size_t len);

/* Lowercase or uppercase hex to bytes; returns the byte count or -1. */
long hex_decode(const char *hex, uint8_t *out, size_t out_cap);

#endif
