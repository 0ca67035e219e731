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
 * Every length 0..1100 (the tails after one and two main-loop iterations of every
 * ISA and variant: 1024-byte strides at most) and some long ones; the 32 bytes beside
 * dst on its free side must keep their canary (a stray write inside the page).  Then the
 * other memory the calls touch at the edges, with the data on the heap: the context
 * (CTR, XCTR, XTS), the counter modes' crypt_iv IVs and XTS's tweak.
 *
 * XTS (test_xts_page_edges) uses the same arena: every data-unit length 16..1100
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

enum { MAX_EDGE_LENGTH = 1100 };

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
    uint8_t *canary = arena_set_canary(a, p->at_end, dst, len);
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
    check(rc == AESGEN_OK && memcmp(dst, want + prefix, len) == 0
              && arena_canary_intact(canary),
          "%s %s aes-%u %s len=%zu after %zu bytes (output, and the %d bytes beside dst)",
          isa, mode_name(mode), key_bits(key_len), p->name, len, prefix, ARENA_CANARY_BYTES);
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
                /* From a block boundary, and up to 320 bytes from 5 bytes into a block. */
                for (size_t len = 0; len <= MAX_EDGE_LENGTH; len++)
                    for (size_t prefix = 0; prefix <= (len <= 320 ? 5u : 0u); prefix += 5)
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

/* The lengths the context and IV cases run: none, partial, whole, a few vectors, a tail
 * after a main-loop iteration. */
static const size_t object_lengths[] = { 0, 1, 15, 16, 17, 100, 1000 };
enum { OBJECT_LENGTHS = sizeof object_lengths / sizeof object_lengths[0] };

/* One call of the context and IV cases, made by guarded() under the fault catcher. */
struct edge_object_call {
    enum { CTR_INIT, CTR_CRYPT, CTR_CRYPT_IV, XCTR_INIT, XCTR_CRYPT, XCTR_CRYPT_IV, XTS_INIT,
           XTS_CALL } what;
    void *ctx;
    const uint8_t *key, *iv, *src;
    size_t key_len, len;
    uint8_t *dst;
    enum xts_dir dir;
};

static int object_call(const struct edge_object_call *c)
{
    switch (c->what) {
    case CTR_INIT: return aesgen_ctr_init(c->ctx, c->key, c->key_len, c->iv);
    case CTR_CRYPT: return aesgen_ctr_crypt(c->ctx, c->dst, c->src, c->len);
    case CTR_CRYPT_IV: return aesgen_ctr_crypt_iv(c->ctx, c->iv, c->dst, c->src, c->len);
    case XCTR_INIT: return aesgen_xctr_init(c->ctx, c->key, c->key_len, c->iv);
    case XCTR_CRYPT: return aesgen_xctr_crypt(c->ctx, c->dst, c->src, c->len);
    case XCTR_CRYPT_IV: return aesgen_xctr_crypt_iv(c->ctx, c->iv, c->dst, c->src, c->len);
    case XTS_INIT: return aesgen_xts_init(c->ctx, c->key, c->key_len);
    case XTS_CALL: return xts_api(c->ctx, c->dir, c->dst, c->src, c->len, c->iv);
    }
    return -1;
}

/* The call's return code, or 1 (a failure named by the caller's message) if it faulted. */
static int guarded(const struct edge_object_call *c, const char *name)
{
    if (sigsetjmp(fault_return, 1) != 0) {
        check(false, "%s: faulted", name);
        return 1;
    }
    fault_armed = 1;
    int rc = object_call(c);
    fault_armed = 0;
    return rc;
}

/* CTR's and XCTR's contexts at both edges (init, crypt and crypt_iv with its IV at an
 * edge of the other area too), the data on the heap. */
static void contexts_at_edges(const char *isa, const struct arena *a, const uint8_t *pt,
                              uint8_t *want)
{
    uint8_t key[32], iv[16], *out = xmalloc(1000);
    for (size_t k = 0; k < 3; k++) {
        rng_fill(key, sizeof key);
        rng_fill(iv, sizeof iv);
        for (int at_end = 0; at_end < 2; at_end++) {
            const char *side = edge_side_name(at_end);
            aesgen_ctr_ctx *ctr = (aesgen_ctr_ctx *)(void *)arena_place(
                a->src_area, a->data_size, sizeof *ctr, at_end);
            aesgen_xctr_ctx *xctr = (aesgen_xctr_ctx *)(void *)arena_place(
                a->dst_area, a->data_size, sizeof *xctr, at_end);
            uint8_t *edge_iv = arena_place(a->src_area, a->data_size, 16, !at_end);
            memcpy(edge_iv, iv, 16);
            for (size_t l = 0; l < OBJECT_LENGTHS; l++) {
                const size_t len = object_lengths[l];
                const unsigned bits = key_bits(key_sizes[k]);
                char name[160];
                struct edge_object_call c = { CTR_INIT, ctr, key, edge_iv, pt, key_sizes[k],
                                              len, out, XTS_ENCRYPT };
                snprintf(name, sizeof name, "%s ctr aes-%u len=%zu with the context %s", isa,
                         bits, len, side);
                reference(MODE_CTR, key, key_sizes[k], iv, want, pt, len);
                int rc = guarded(&c, name);
                c.what = CTR_CRYPT;
                if (rc == AESGEN_OK)
                    rc = guarded(&c, name);
                check(rc == AESGEN_OK && memcmp(out, want, len) == 0, "%s", name);
                snprintf(name, sizeof name, "%s ctr_crypt_iv aes-%u len=%zu with the context "
                         "%s and the IV %s", isa, bits, len, side, edge_side_name(!at_end));
                memset(out, 0, len);
                c.what = CTR_CRYPT_IV;
                rc = guarded(&c, name);
                check(rc == AESGEN_OK && memcmp(out, want, len) == 0, "%s", name);
                snprintf(name, sizeof name, "%s xctr aes-%u len=%zu with the context %s", isa,
                         bits, len, side);
                reference(MODE_XCTR, key, key_sizes[k], iv, want, pt, len);
                c.ctx = xctr;
                c.what = XCTR_INIT;
                rc = guarded(&c, name);
                c.what = XCTR_CRYPT;
                if (rc == AESGEN_OK)
                    rc = guarded(&c, name);
                check(rc == AESGEN_OK && memcmp(out, want, len) == 0, "%s", name);
                snprintf(name, sizeof name, "%s xctr_crypt_iv aes-%u len=%zu with the context "
                         "%s and the IV %s", isa, bits, len, side, edge_side_name(!at_end));
                memset(out, 0, len);
                c.what = XCTR_CRYPT_IV;
                rc = guarded(&c, name);
                check(rc == AESGEN_OK && memcmp(out, want, len) == 0, "%s", name);
            }
        }
    }
    free(out);
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
        if (isa_select(isa)) {
            run_isa(isa->name, &a, pt, want);
            contexts_at_edges(isa->name, &a, pt, want);
        }
    }
    if (isa_select_auto()) {        /* the length plans, which named ISAs do not take */
        run_isa("auto", &a, pt, want);
        contexts_at_edges("auto", &a, pt, want);
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
    uint8_t *canary = arena_set_canary(a, p->at_end, dst, len);
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
    check(rc == AESGEN_OK && memcmp(dst, want, len) == 0 && arena_canary_intact(canary),
          "%s xts aes-%u %s %s len=%zu (rc %d; output, and the %d bytes beside dst)", isa,
          xts_aes_bits(key_len), xts_dir_name(dir), p->name, len, rc, ARENA_CANARY_BYTES);
}

/* The XTS context and the tweak at the edges (the context in the src area, the tweak at
 * the other end of the dst area), the data on the heap. */
static void xts_objects_at_edges(const char *isa, const struct arena *a, const uint8_t *key,
                                 size_t key_len, const uint8_t *tweak, const uint8_t *in,
                                 uint8_t *want)
{
    static const size_t lengths[] = { 16, 17, 31, 32, 100, 1000 };
    uint8_t *out = xmalloc(1000);
    for (int at_end = 0; at_end < 2; at_end++) {
        aesgen_xts_ctx *ctx = (aesgen_xts_ctx *)(void *)arena_place(
            a->src_area, a->data_size, sizeof *ctx, at_end);
        uint8_t *edge_tweak = arena_place(a->dst_area, a->data_size, 16, !at_end);
        memcpy(edge_tweak, tweak, 16);
        char name[160];
        struct edge_object_call c = { XTS_INIT, ctx, key, edge_tweak, in, key_len, 0, out,
                                      XTS_ENCRYPT };
        snprintf(name, sizeof name, "%s xts aes-%u init with the context %s", isa,
                 xts_aes_bits(key_len), edge_side_name(at_end));
        if (!check_int(guarded(&c, name), AESGEN_OK, "%s", name))
            continue;
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++)
            for (int d = 0; d < 2; d++) {
                c.what = XTS_CALL;
                c.len = lengths[l];
                c.dir = (enum xts_dir)d;
                xts_reference(c.dir, key, key_len, tweak, want, in, c.len);
                snprintf(name, sizeof name, "%s xts aes-%u %s len=%zu with the context %s and "
                         "the tweak %s", isa, xts_aes_bits(key_len), xts_dir_name(c.dir), c.len,
                         edge_side_name(at_end), edge_side_name(!at_end));
                const int rc = guarded(&c, name);
                check(rc == AESGEN_OK && memcmp(out, want, c.len) == 0, "%s", name);
            }
    }
    free(out);
}

static void run_xts_isa(const char *isa, const struct arena *a, const uint8_t *in, uint8_t *want)
{
    static const size_t long_lengths[] = { 1420, 4096, 4096 + 17, 2 * 4096 + 33, 3 * 4096 };
    for (size_t k = 0; k < 3; k++) {
        size_t key_len = xts_key_sizes[k];
        uint8_t key[64], tweak[16];
        aesgen_xts_ctx ctx;
        xts_random_key(key, key_len);
        rng_fill(tweak, sizeof tweak);
        if (!check_int(aesgen_xts_init(&ctx, key, key_len), AESGEN_OK, "%s xts init", isa))
            continue;
        xts_objects_at_edges(isa, a, key, key_len, tweak, in, want);
        for (int d = 0; d < 2; d++) {
            for (size_t p = 0; p < EDGE_PLACEMENT_COUNT; p++) {
                for (size_t len = 16; len <= MAX_EDGE_LENGTH; len++)
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
    if (isa_select_auto())
        run_xts_isa("auto", &a, in, want);
    free(in);
    free(want);
    arena_close_catching(&a, &catcher);
}
