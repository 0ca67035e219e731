/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * XTS keys with K1 == K2 (IEEE 1619-2018 5.1 requires distinct halves):
 *  - aesgen_xts_init and aesgen_xts_init_isa refuse them with AESGEN_EINVAL on every
 *    key size and ISA, and write nothing;
 *  - halves that differ in any single byte are accepted (every byte is compared);
 *  - aesgen_xts_init_allow_equal_keys accepts them (legacy data, published vectors)
 *    and gives the ECB-built reference's bytes;
 *  - the comparison (aesgen_ct_equal, shared with the GCM tag check) has no early
 *    exit: with the first bytes different and the rest of one operand on a
 *    PROT_NONE page it must still read on and fault (run in a child process), while
 *    comparing only the readable byte returns normally.  Reading every byte whatever
 *    the data is what makes the time independent of where the halves differ; the
 *    function has no data-dependent branch either (runtime/src/util.c).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "harness.h"
#include "internal.h"
#include "isa.h"
#include "reference.h"
#include "tests.h"
#include "xts_harness.h"

static void refusal(const char *isa)
{
    for (size_t k = 0; k < 3; k++) {
        size_t key_len = xts_key_sizes[k], half = key_len / 2;
        uint8_t key[64];
        aesgen_xts_ctx ctx;
        rng_fill(key, half);
        memcpy(key + half, key, half);
        fill_pattern(&ctx, sizeof ctx);
        int rc = aesgen_xts_init_isa(&ctx, key, key_len, isa);
        check(rc == AESGEN_EINVAL && still_pattern(&ctx, sizeof ctx),
              "%s xts aes-%u K1 == K2: init_isa EINVAL (got %d), ctx untouched", isa,
              xts_aes_bits(key_len), rc);
        if (strcmp(isa, aesgen_isa_name()) == 0) {
            rc = aesgen_xts_init(&ctx, key, key_len);
            check(rc == AESGEN_EINVAL && still_pattern(&ctx, sizeof ctx),
                  "%s xts aes-%u K1 == K2: init EINVAL (got %d), ctx untouched", isa,
                  xts_aes_bits(key_len), rc);
        }
        memset(key, 0, key_len);   /* IEEE 1619-2007 vector 1's all-zero key */
        check_int(aesgen_xts_init_isa(&ctx, key, key_len, isa), AESGEN_EINVAL,
                  "%s xts aes-%u all-zero key refused", isa, xts_aes_bits(key_len));

        /* One differing byte anywhere makes a valid key. */
        bool all_accepted = true;
        rng_fill(key, half);
        for (size_t i = 0; i < half; i++) {
            memcpy(key + half, key, half);
            key[half + i] ^= (uint8_t)(1u << (i % 8));
            all_accepted &= aesgen_xts_init_isa(&ctx, key, key_len, isa) == AESGEN_OK;
        }
        check(all_accepted, "%s xts aes-%u: halves differing in one byte (each position) are "
              "accepted", isa, xts_aes_bits(key_len));

        /* The opt-in call: equal halves, the reference's bytes, both directions. */
        uint8_t tweak[16], src[77], got[77], want[77];
        memcpy(key + half, key, half);
        rng_fill(tweak, sizeof tweak);
        rng_fill(src, sizeof src);
        ref_xts_ecb(1, key, key_len, tweak, want, src, sizeof src);
        rc = aesgen_xts_init_allow_equal_keys(&ctx, key, key_len, isa);
        check(rc == AESGEN_OK && aesgen_xts_encrypt(&ctx, got, src, sizeof src, tweak) == 0 &&
              memcmp(got, want, sizeof src) == 0 &&
              aesgen_xts_decrypt(&ctx, got, want, sizeof src, tweak) == 0 &&
              memcmp(got, src, sizeof src) == 0,
              "%s xts aes-%u init_allow_equal_keys: K1 == K2 works as the reference (rc %d)",
              isa, xts_aes_bits(key_len), rc);
        check(aesgen_xts_init_allow_equal_keys(&ctx, key, key_len, "no_such_isa") ==
              AESGEN_EINVAL, "xts init_allow_equal_keys with an unknown ISA: EINVAL");
    }
}

static void equal_function(void)
{
    uint8_t a[64], b[64];
    bool ok = true;
    for (size_t n = 0; n <= 64; n++) {
        rng_fill(a, n);
        memcpy(b, a, n);
        ok &= aesgen_ct_equal(a, b, n) == 1;
        for (size_t i = 0; i < n; i++) {
            for (int bit = 0; bit < 8; bit++) {
                b[i] ^= (uint8_t)(1u << bit);
                ok &= aesgen_ct_equal(a, b, n) == 0;
                b[i] ^= (uint8_t)(1u << bit);
            }
        }
    }
    check(ok, "aesgen_ct_equal: equal for equal bytes, unequal for every single flipped bit "
          "(lengths 0..64)");
}

/* The child compares n bytes of a (whose first byte differs from b's and whose second
 * byte starts a PROT_NONE page); exit status 0 if the call returned. */
static int compare_in_child(size_t n)
{
    long page = sysconf(_SC_PAGESIZE);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL);   /* the expected fault is not the harness's business */
        signal(SIGBUS, SIG_DFL);
        uint8_t *area = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (area == MAP_FAILED || mprotect(area + page, (size_t)page, PROT_NONE) != 0)
            _exit(2);
        uint8_t *a = area + page - 1;
        static uint8_t b[64];
        a[0] = 1;
        b[0] = 2;
        (void)aesgen_ct_equal(a, b, n);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

static void no_early_exit(void)
{
    int status = compare_in_child(1);
    check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "aesgen_ct_equal of the readable byte only returns (status %#x)", status);
    static const size_t lengths[] = { 16, 24, 32 };
    for (size_t i = 0; i < 3; i++) {
        status = compare_in_child(lengths[i]);
        check(WIFSIGNALED(status) && (WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGBUS),
              "aesgen_ct_equal of %zu bytes reads past the first difference (the child must "
              "fault on the PROT_NONE page; status %#x)", lengths[i], status);
    }
}

void test_xts_keys(const struct test_config *config)
{
    (void)config;
    check_set_group("xts-keys");
    FOR_EACH_RUNNABLE_ISA(isa)
        refusal(isa->name);
    equal_function();
    no_early_exit();
}
