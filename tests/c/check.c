/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* The tiny test framework of check.h. */
#define _GNU_SOURCE
#include "check.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A broken implementation can fail thousands of checks; the first ones tell
 * the story, the rest would only bury it. */
enum { MAX_PRINTED_FAILURES = 60 };

static unsigned long passed, failed, skipped;
static const char *current_group = "startup";
static const char *current_context;

static void report_failure(const char *name_fmt, va_list ap, const char *detail)
{
    if (failed > MAX_PRINTED_FAILURES)
        return;
    if (failed == MAX_PRINTED_FAILURES) {
        printf("FAIL: ... (further failures are counted but not printed)\n");
        return;
    }
    if (current_context)
        printf("FAIL: [%s] [%s] ", current_group, current_context);
    else
        printf("FAIL: [%s] ", current_group);
    vprintf(name_fmt, ap);
    if (detail && *detail)
        printf(" -- %s", detail);
    putchar('\n');
    fflush(stdout);
}

bool check(bool ok, const char *name_fmt, ...)
{
    if (ok) {
        passed++;
        return true;
    }
    va_list ap;
    va_start(ap, name_fmt);
    report_failure(name_fmt, ap, NULL);
    va_end(ap);
    failed++;
    return false;
}

bool check_bytes(const uint8_t *got, const uint8_t *want, size_t len, const char *name_fmt, ...)
{
    size_t i = 0;
    while (i < len && got[i] == want[i])
        i++;
    if (i == len) {
        passed++;
        return true;
    }
    char detail[128];
    snprintf(detail, sizeof detail, "first difference at byte %zu of %zu: got %02x, want %02x",
             i, len, got[i], want[i]);
    va_list ap;
    va_start(ap, name_fmt);
    report_failure(name_fmt, ap, detail);
    va_end(ap);
    failed++;
    return false;
}

bool check_int(long got, long want, const char *name_fmt, ...)
{
    if (got == want) {
        passed++;
        return true;
    }
    char detail[96];
    snprintf(detail, sizeof detail, "got %ld, want %ld", got, want);
    va_list ap;
    va_start(ap, name_fmt);
    report_failure(name_fmt, ap, detail);
    va_end(ap);
    failed++;
    return false;
}

void check_skip(const char *reason_fmt, ...)
{
    va_list ap;
    va_start(ap, reason_fmt);
    printf("SKIP ");
    vprintf(reason_fmt, ap);
    putchar('\n');
    va_end(ap);
    skipped++;
}

void check_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
    fflush(stdout);
}

unsigned long check_failed_count(void)
{
    return failed;
}

unsigned long check_total_count(void)
{
    return passed + failed + skipped;
}

/* If a test faults (the page-edge tests exist to provoke exactly that), say
 * where, using only async-signal-safe calls. */
static void on_fatal_signal(int sig)
{
    static const char prefix[] = "\nFATAL: signal ";
    char num[4] = { (char)('0' + sig / 10 % 10), (char)('0' + sig % 10), ' ', 0 };
    ssize_t ignored = write(STDOUT_FILENO, prefix, sizeof prefix - 1);
    ignored = write(STDOUT_FILENO, num, 3);
    ignored = write(STDOUT_FILENO, "in test group ", 14);
    ignored = write(STDOUT_FILENO, current_group, strlen(current_group));
    ignored = write(STDOUT_FILENO, "\n", 1);
    (void)ignored;
    signal(sig, SIG_DFL);
    raise(sig);
}

void check_set_context(const char *context)
{
    current_context = context;
}

void check_set_group(const char *group)
{
    static bool handlers_installed;
    if (!handlers_installed) {
        signal(SIGSEGV, on_fatal_signal);
#ifdef SIGBUS
        signal(SIGBUS, on_fatal_signal);
#endif
        signal(SIGILL, on_fatal_signal);
        signal(SIGFPE, on_fatal_signal);
        handlers_installed = true;
    }
    current_group = group;
    fflush(stdout);
}

int check_finish(void)
{
    printf("%lu passed, %lu failed, %lu skipped\n", passed, failed, skipped);
    fflush(stdout);
    return failed ? 1 : 0;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

void rng_seed(uint64_t seed)
{
    rng_state = seed ? seed : 0x9e3779b97f4a7c15u;   /* xorshift must not start at 0 */
}

uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

uint64_t rng_below(uint64_t bound)
{
    return rng_next() % bound;
}

void rng_fill(uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(rng_next() >> 56);
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

long hex_decode(const char *hex, uint8_t *out, size_t out_cap)
{
    size_t n = strlen(hex);
    if (n % 2 || n / 2 > out_cap)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return (long)(n / 2);
}
