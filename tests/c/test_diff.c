/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Differential tests against OpenSSL: every length up to 1100 (in one call and
 * in two), lengths around multiples of 256, random lengths, 1 MiB, counters
 * about to wrap, streaming with random split points, in place, and
 * misaligned buffers.
 *
 * The portable C implementation is slower, so it may get a sample: `stride`
 * skips lengths and `random_rounds` shrinks the random parts.  Its bitsliced
 * code turned out fast enough for every length, so only the random rounds
 * are fewer (the whole group takes about a second).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness.h"
#include "isa.h"
#include "reference.h"
#include "tests.h"

enum { MAX_LEN = 20000 + 512 };

struct sample {
    size_t stride;             /* every stride-th length of the dense range */
    size_t random_rounds;      /* random lengths / random stream splits per key and mode */
};

/* Random key, IV and plaintext of the run; plaintexts are prefixes of pt. */
struct material {
    uint8_t key[32];
    uint8_t iv[16];
    uint8_t *pt;
    uint8_t *want;
};

static void fresh_key_iv(struct material *m)
{
    rng_fill(m->key, sizeof m->key);
    rng_fill(m->iv, sizeof m->iv);
}

/* One message through a fresh context, out of place, checked against the
 * reference and for writes outside dst and to src. */
static void check_length(const char *isa, enum mode mode, size_t key_len, struct material *m,
                         size_t len, const char *what)
{
    struct guarded out = guarded_alloc(len, 0);
    reference(mode, m->key, key_len, m->iv, m->want, m->pt, len);
    int rc = api_oneshot(mode, m->key, key_len, m->iv, out.data, m->pt, len);
    check(rc == AESGEN_OK && memcmp(out.data, m->want, len) == 0 && guarded_intact(&out),
          "%s %s aes-%u %s len=%zu: matches OpenSSL, nothing written outside dst",
          isa, mode_name(mode), key_bits(key_len), what, len);
    guarded_free(&out);
}

/* Two calls: the second starts `first` bytes into the stream, usually in the
 * middle of a keystream block, and runs to the end of the message. */
static void check_two_calls(const char *isa, enum mode mode, size_t key_len, struct material *m,
                            size_t len, size_t first)
{
    struct guarded out = guarded_alloc(len, 0);
    reference(mode, m->key, key_len, m->iv, m->want, m->pt, len);
    struct stream st;
    stream_init(&st, mode, m->key, key_len, m->iv);
    int rc = stream_crypt_chunks(&st, out.data, m->pt, len, &first, 1);
    check(rc == AESGEN_OK && memcmp(out.data, m->want, len) == 0 && guarded_intact(&out),
          "%s %s aes-%u len=%zu as %zu + %zu bytes", isa, mode_name(mode), key_bits(key_len),
          len, first, len - first);
    guarded_free(&out);
}

static void dense_lengths(const char *isa, enum mode mode, size_t key_len, struct material *m,
                          const struct sample *s)
{
    for (size_t len = 0; len <= 1100; len += len < 80 ? 1 : s->stride) {
        check_length(isa, mode, key_len, m, len, "dense");
        check_two_calls(isa, mode, key_len, m, len, (size_t)rng_below(len < 48 ? len + 1 : 48));
    }
}

/* A message long enough to spend most of its time in the main loop. */
static void long_message(const char *isa, enum mode mode, size_t key_len, struct material *m)
{
    enum { LONG = (1 << 20) + 7 };
    uint8_t *pt = xmalloc(LONG), *want = xmalloc(LONG), *got = xmalloc(LONG);
    rng_fill(pt, LONG);
    reference(mode, m->key, key_len, m->iv, want, pt, LONG);
    int rc = api_oneshot(mode, m->key, key_len, m->iv, got, pt, LONG);
    check(rc == AESGEN_OK && memcmp(got, want, LONG) == 0, "%s %s aes-%u len=%d", isa,
          mode_name(mode), key_bits(key_len), LONG);
    free(pt);
    free(want);
    free(got);
}

static void lengths_near_256_multiples(const char *isa, enum mode mode, size_t key_len,
                                       struct material *m, const struct sample *s)
{
    for (size_t k = 256; k <= 20000; k += 256 * s->stride)
        for (size_t len = k - 1; len <= k + 1; len++)
            check_length(isa, mode, key_len, m, len, "256k+-1");
}

static void random_lengths(const char *isa, enum mode mode, size_t key_len, struct material *m,
                           const struct sample *s)
{
    for (size_t i = 0; i < s->random_rounds; i++) {
        fresh_key_iv(m);
        check_length(isa, mode, key_len, m, (size_t)rng_below(20001), "random");
    }
}

/* Chunk lengths that hit the interesting boundaries of buffered keystream. */
static size_t random_chunk(void)
{
    static const size_t edges[] = { 0, 1, 15, 16, 17, 31, 32, 33, 64, 127, 128, 129, 256, 511 };
    if (rng_below(2))
        return edges[rng_below(sizeof edges / sizeof edges[0])];
    return (size_t)rng_below(1500);
}

static void random_streams(const char *isa, enum mode mode, size_t key_len, struct material *m,
                           const struct sample *s)
{
    size_t chunks[40];
    uint8_t *out = xmalloc(MAX_LEN);
    for (size_t i = 0; i < s->random_rounds; i++) {
        fresh_key_iv(m);
        size_t len = (size_t)rng_below(6000), n = 1 + (size_t)rng_below(40);
        for (size_t c = 0; c < n; c++)
            chunks[c] = random_chunk();
        reference(mode, m->key, key_len, m->iv, m->want, m->pt, len);
        struct stream st;
        stream_init(&st, mode, m->key, key_len, m->iv);
        int rc = stream_crypt_chunks(&st, out, m->pt, len, chunks, n);
        check(rc == AESGEN_OK && memcmp(out, m->want, len) == 0,
              "%s %s aes-%u streamed len=%zu in %zu random chunks (first %zu)", isa,
              mode_name(mode), key_bits(key_len), len, n + 1, chunks[0]);
    }
    free(out);
}

static void in_place(const char *isa, enum mode mode, size_t key_len, struct material *m,
                     const struct sample *s)
{
    uint8_t *buf = xmalloc(MAX_LEN);
    for (size_t len = 0; len <= 2100; len += len < 70 ? 1 : 37 * s->stride) {
        reference(mode, m->key, key_len, m->iv, m->want, m->pt, len);
        memcpy(buf, m->pt, len);
        int rc = api_oneshot(mode, m->key, key_len, m->iv, buf, buf, len);
        check(rc == AESGEN_OK && memcmp(buf, m->want, len) == 0,
              "%s %s aes-%u in place len=%zu", isa, mode_name(mode), key_bits(key_len), len);
    }
    free(buf);
}

/* src and dst at every pair of offsets 0..15 (and in place at each offset). */
static void misaligned(const char *isa, enum mode mode, size_t key_len, struct material *m,
                       const struct sample *s)
{
    for (size_t src_off = 0; src_off < 16; src_off++) {
        for (size_t dst_off = 0; dst_off < 16; dst_off += s->stride > 1 ? 5 : 1) {
            size_t len = (size_t)rng_below(dst_off == src_off ? 3000 : 700);
            struct guarded src = guarded_alloc(len, src_off), dst = guarded_alloc(len, dst_off);
            memcpy(src.data, m->pt, len);
            reference(mode, m->key, key_len, m->iv, m->want, m->pt, len);
            int rc = api_oneshot(mode, m->key, key_len, m->iv, dst.data, src.data, len);
            check(rc == AESGEN_OK && memcmp(dst.data, m->want, len) == 0
                  && guarded_intact(&dst) && memcmp(src.data, m->pt, len) == 0,
                  "%s %s aes-%u misaligned src+%zu dst+%zu len=%zu", isa, mode_name(mode),
                  key_bits(key_len), src_off, dst_off, len);
            rc = api_oneshot(mode, m->key, key_len, m->iv, src.data, src.data, len);
            check(rc == AESGEN_OK && memcmp(src.data, m->want, len) == 0 && guarded_intact(&src),
                  "%s %s aes-%u misaligned in place +%zu len=%zu", isa, mode_name(mode),
                  key_bits(key_len), src_off, len);
            guarded_free(&src);
            guarded_free(&dst);
        }
    }
}

/* CTR counters whose low 32, 64, 96 or all 128 bits are about to wrap. */
static void counter_wraps(const char *isa, size_t key_len, struct material *m,
                          const struct sample *s)
{
    static const size_t lengths[] = { 0, 1, 16, 47, 48, 49, 63, 64, 65, 255, 256, 257, 1000, 4099 };
    static const struct { unsigned ff_bytes; uint8_t last; } wraps[] = {
        { 4, 0xfd }, { 4, 0xff }, { 8, 0xfd }, { 8, 0xff }, { 8, 0xf0 },
        { 12, 0xfd }, { 16, 0xfd }, { 16, 0xff }, { 16, 0x80 },
    };
    uint8_t *out = xmalloc(MAX_LEN);
    for (size_t w = 0; w < sizeof wraps / sizeof wraps[0]; w++) {
        for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l += s->stride > 1 ? 2 : 1) {
            size_t len = lengths[l];
            rng_fill(m->iv, 16);
            memset(m->iv + 16 - wraps[w].ff_bytes, 0xff, wraps[w].ff_bytes);
            m->iv[15] = wraps[w].last;
            reference(MODE_CTR, m->key, key_len, m->iv, m->want, m->pt, len);
            int rc = api_oneshot(MODE_CTR, m->key, key_len, m->iv, out, m->pt, len);
            check(rc == AESGEN_OK && memcmp(out, m->want, len) == 0,
                  "%s ctr aes-%u counter with %u low bytes ff..%02x len=%zu", isa,
                  key_bits(key_len), wraps[w].ff_bytes, wraps[w].last, len);
            /* Streamed in one call (the C glue splits it at the wrap itself) ... */
            struct stream st;
            stream_init(&st, MODE_CTR, m->key, key_len, m->iv);
            rc = stream_crypt(&st, out, m->pt, len);
            check(rc == AESGEN_OK && memcmp(out, m->want, len) == 0,
                  "%s ctr aes-%u counter with %u low bytes ff..%02x len=%zu streamed in one call",
                  isa, key_bits(key_len), wraps[w].ff_bytes, wraps[w].last, len);
            /* ... and so that a call ends or starts right at the wrap. */
            size_t before_wrap = 16 * (size_t)(0x100 - wraps[w].last);
            size_t chunks[3] = { before_wrap - 1, 1, 16 };
            stream_init(&st, MODE_CTR, m->key, key_len, m->iv);
            rc = stream_crypt_chunks(&st, out, m->pt, len, chunks, 3);
            check(rc == AESGEN_OK && memcmp(out, m->want, len) == 0,
                  "%s ctr aes-%u counter with %u low bytes ff..%02x len=%zu streamed across the wrap",
                  isa, key_bits(key_len), wraps[w].ff_bytes, wraps[w].last, len);
        }
    }
    free(out);
}

/* XCTR IVs with all bits set: the index is XORed in, so nothing may carry. */
static void xctr_extreme_ivs(const char *isa, size_t key_len, struct material *m)
{
    uint8_t *out = xmalloc(MAX_LEN);
    static const uint8_t fills[] = { 0x00, 0xff };
    for (size_t f = 0; f < 2; f++) {
        memset(m->iv, fills[f], 16);
        for (size_t len = 0; len <= 4200; len += 131) {
            reference(MODE_XCTR, m->key, key_len, m->iv, m->want, m->pt, len);
            int rc = api_oneshot(MODE_XCTR, m->key, key_len, m->iv, out, m->pt, len);
            check(rc == AESGEN_OK && memcmp(out, m->want, len) == 0,
                  "%s xctr aes-%u iv=%02x*16 len=%zu", isa, key_bits(key_len), fills[f], len);
        }
    }
    free(out);
}

static void run_isa(const struct test_isa *isa, struct material *m)
{
    struct sample s = isa->is_slow ? (struct sample){ 1, 60 } : (struct sample){ 1, 200 };
    for (size_t k = 0; k < 3; k++) {
        size_t key_len = key_sizes[k];
        for (int mode = 0; mode < MODE_COUNT; mode++) {
            fresh_key_iv(m);
            dense_lengths(isa->name, (enum mode)mode, key_len, m, &s);
            lengths_near_256_multiples(isa->name, (enum mode)mode, key_len, m, &s);
            random_lengths(isa->name, (enum mode)mode, key_len, m, &s);
            random_streams(isa->name, (enum mode)mode, key_len, m, &s);
            in_place(isa->name, (enum mode)mode, key_len, m, &s);
            misaligned(isa->name, (enum mode)mode, key_len, m, &s);
            long_message(isa->name, (enum mode)mode, key_len, m);
        }
        counter_wraps(isa->name, key_len, m, &s);
        xctr_extreme_ivs(isa->name, key_len, m);
    }
}

void test_differential(const struct test_config *config)
{
    (void)config;
    check_set_group("differential");
    struct material m;
    m.pt = xmalloc(MAX_LEN);
    m.want = xmalloc(MAX_LEN);
    rng_fill(m.pt, MAX_LEN);
    FOR_EACH_RUNNABLE_VARIANT(isa, TEST_MODE_ctr | TEST_MODE_xctr) {
        if (isa_select(isa))
            run_isa(isa, &m);
    }
    free(m.pt);
    free(m.want);
}
