/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Page-edge tests: buffers that end exactly where an inaccessible page
 * begins, or start right after one.  An implementation that reads or writes
 * even one byte past the end (a full-vector load of the tail, say) faults.
 *
 * The arenas (page_arena.h): src lives in the first data area, dst in the
 * second.  A fault is caught (SIGSEGV handler + siglongjmp), counted as a
 * failure that names the case and the faulting address, and the tests go on.
 *
 * XTS (test_xts_page_edges) uses the same arena: every data-unit length 16..320
 * and some long ones, ciphertext stealing lengths included, both directions.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness.h"
#include "isa.h"
#include "page_arena.h"
#include "tests.h"
#include "xts_harness.h"

/* Where the fault hit, relative to the buffers, for the failure message. */
static void describe_fault(char *out, size_t cap, const uint8_t *src, const uint8_t *dst,
                           size_t len)
{
    const struct fault_region regions[] = { { "src", src, len }, { "dst", dst, len } };
    describe_fault_in(out, cap, regions, 2);
}

/* ---- The tests ------------------------------------------------------------ */

/* The stream is first advanced by `prefix` bytes elsewhere, so the call at
 * the edge also starts in the middle of a keystream block. */
static void check_edge(const char *isa, enum mode mode, size_t key_len, const uint8_t *key,
                       const uint8_t *iv, const struct arena *a, const struct edge_placement *p,
                       size_t len, size_t prefix, const uint8_t *pt, uint8_t *want)
{
    uint8_t scratch[64];
    reference(mode, key, key_len, iv, want, pt, prefix + len);
    uint8_t *src, *dst;
    arena_place_pair(a, p, len, &src, &dst);
    memcpy(src, pt + prefix, len);
    struct stream s;
    int rc = stream_init(&s, mode, key, key_len, iv);
    if (rc == AESGEN_OK)
        rc = stream_crypt(&s, scratch, pt, prefix);
    if (sigsetjmp(fault_return, 1) != 0) {
        char where[96];
        describe_fault(where, sizeof where, src, dst, len);
        check(false, "%s %s aes-%u %s len=%zu after %zu bytes: faulted at %s", isa,
              mode_name(mode), key_bits(key_len), p->name, len, prefix, where);
        return;
    }
    fault_armed = 1;
    if (rc == AESGEN_OK)
        rc = stream_crypt(&s, dst, src, len);
    fault_armed = 0;
    check(rc == AESGEN_OK && memcmp(dst, want + prefix, len) == 0,
          "%s %s aes-%u %s len=%zu after %zu bytes", isa, mode_name(mode), key_bits(key_len),
          p->name, len, prefix);
}

static void run_isa(const char *isa, const struct arena *a, const uint8_t *pt, uint8_t *want)
{
    static const size_t long_lengths[] = { 1000, 4096 + 17, 2 * 4096 + 33 };
    uint8_t key[32], iv[16];
    for (size_t k = 0; k < 3; k++) {
        rng_fill(key, sizeof key);
        for (int mode = 0; mode < MODE_COUNT; mode++) {
            rng_fill(iv, sizeof iv);
            for (size_t p = 0; p < EDGE_PLACEMENT_COUNT; p++) {
                /* From a block boundary, and from 5 bytes into a block. */
                for (size_t len = 0; len <= 320; len++)
                    for (size_t prefix = 0; prefix <= 5; prefix += 5)
                        check_edge(isa, (enum mode)mode, key_sizes[k], key, iv, a,
                                   &edge_placements[p], len, prefix, pt, want);
                for (size_t l = 0; l < sizeof long_lengths / sizeof long_lengths[0]; l++)
                    if (long_lengths[l] <= a->data_size)
                        for (size_t prefix = 0; prefix <= 17; prefix += 17)
                            check_edge(isa, (enum mode)mode, key_sizes[k], key, iv, a,
                                       &edge_placements[p], long_lengths[l], prefix, pt, want);
            }
        }
    }
}

void test_page_edges(const struct test_config *config)
{
    (void)config;
    check_set_group("page-edge");
    struct arena a;
    struct fault_catcher catcher;
    if (!arena_open_catching(&a, &catcher))
        return;
    uint8_t *pt = xmalloc(a.data_size + 64), *want = xmalloc(a.data_size + 64);
    rng_fill(pt, a.data_size + 64);
    FOR_EACH_RUNNABLE_VARIANT(isa, TEST_MODE_ctr | TEST_MODE_xctr) {
        if (isa_select(isa))
            run_isa(isa->name, &a, pt, want);
    }
    free(pt);
    free(want);
    arena_close_catching(&a, &catcher);
}

/* ---- XTS -------------------------------------------------------------------- */

static void check_xts_edge(const char *isa, const aesgen_xts_ctx *ctx, const uint8_t *key,
                           size_t key_len, enum xts_dir dir, const uint8_t *tweak,
                           const struct arena *a, const struct edge_placement *p, size_t len,
                           const uint8_t *in, uint8_t *want)
{
    xts_reference(dir, key, key_len, tweak, want, in, len);
    uint8_t *src, *dst;
    arena_place_pair(a, p, len, &src, &dst);
    memcpy(src, in, len);
    if (sigsetjmp(fault_return, 1) != 0) {
        char where[96];
        describe_fault(where, sizeof where, src, dst, len);
        check(false, "%s xts aes-%u %s %s len=%zu: faulted at %s", isa, xts_aes_bits(key_len),
              xts_dir_name(dir), p->name, len, where);
        return;
    }
    fault_armed = 1;
    int rc = xts_api(ctx, dir, dst, src, len, tweak);
    fault_armed = 0;
    check(rc == AESGEN_OK && memcmp(dst, want, len) == 0, "%s xts aes-%u %s %s len=%zu (rc %d)",
          isa, xts_aes_bits(key_len), xts_dir_name(dir), p->name, len, rc);
}

static void run_xts_isa(const char *isa, const struct arena *a, const uint8_t *in, uint8_t *want)
{
    static const size_t long_lengths[] = { 512, 1000, 1420, 4096, 4096 + 17, 2 * 4096 + 33,
                                           3 * 4096 };
    for (size_t k = 0; k < 3; k++) {
        size_t key_len = xts_key_sizes[k];
        uint8_t key[64], tweak[16];
        aesgen_xts_ctx ctx;
        xts_random_key(key, key_len);
        rng_fill(tweak, sizeof tweak);
        if (!check_int(aesgen_xts_init(&ctx, key, key_len), AESGEN_OK, "%s xts init", isa))
            continue;
        for (int d = 0; d < 2; d++) {
            for (size_t p = 0; p < EDGE_PLACEMENT_COUNT; p++) {
                for (size_t len = 16; len <= 320; len++)
                    check_xts_edge(isa, &ctx, key, key_len, (enum xts_dir)d, tweak, a,
                                   &edge_placements[p], len, in, want);
                for (size_t l = 0; l < sizeof long_lengths / sizeof long_lengths[0]; l++)
                    if (long_lengths[l] <= a->data_size)
                        check_xts_edge(isa, &ctx, key, key_len, (enum xts_dir)d, tweak, a,
                                       &edge_placements[p], long_lengths[l], in, want);
            }
        }
    }
}

void test_xts_page_edges(const struct test_config *config)
{
    (void)config;
    check_set_group("xts-page-edge");
    struct arena a;
    struct fault_catcher catcher;
    if (!arena_open_catching(&a, &catcher))
        return;
    uint8_t *in = xmalloc(a.data_size), *want = xmalloc(a.data_size);
    rng_fill(in, a.data_size);
    FOR_EACH_RUNNABLE_VARIANT(isa, TEST_MODE_xts) {
        if (isa_select(isa))
            run_xts_isa(isa->name, &a, in, want);
    }
    free(in);
    free(want);
    arena_close_catching(&a, &catcher);
}
