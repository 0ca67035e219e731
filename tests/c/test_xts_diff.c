/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * XTS differential tests against OpenSSL (EVP_aes_128_xts / EVP_aes_256_xts) and,
 * for AES-192, which OpenSSL lacks, against the tests' ECB-built XTS (checked
 * against every published vector in xts-known-answer): encrypt and decrypt,
 * every length 16..300, every length up to 2117 that is a multiple of 16 or one
 * byte either side (each main-loop stride of 16 x UNROLL x lanes, for any UNROLL
 * and 1, 2 or 4 lanes, +-1, +-15, +-16, +-17), random lengths up to 20000 with
 * fresh keys and tweaks, 1 MiB + 7, in place, every src/dst misalignment; and
 * decrypt(encrypt(x)) == x for every key size.  OpenSSL refuses K1 == K2, so the
 * keys have distinct halves.
 *
 * The portable C code gets a smaller sample of the random and misaligned parts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness.h"
#include "isa.h"
#include "tests.h"
#include "xts_harness.h"

enum { MAX_LEN = 20000 + 64, LONG_LEN = (1 << 20) + 7 };

struct sample {
    size_t random_rounds;      /* random lengths per key size */
    size_t dst_offset_step;    /* misaligned: dst offsets 0, step, 2*step, ... < 16 */
};

struct material {
    const char *isa;
    uint8_t key[64];
    size_t key_len;
    uint8_t tweak[16];
    aesgen_xts_ctx ctx;
    uint8_t *in;               /* random input; messages are its prefixes */
    uint8_t *want;
    uint8_t *back;             /* decrypt(encrypt(in)) */
};

static bool rekey(struct material *m)
{
    xts_random_key(m->key, m->key_len);
    rng_fill(m->tweak, 16);
    return check_int(aesgen_xts_init(&m->ctx, m->key, m->key_len), AESGEN_OK,
                     "%s xts init key_len %zu", m->isa, m->key_len);
}

static const char *oracle(size_t key_len)
{
    return xts_openssl_has(key_len) ? "OpenSSL" : "the ECB-built reference";
}

/* One data unit both ways, out of place into a guarded buffer; then the
 * ciphertext decrypts back to the input. */
static void check_length(struct material *m, size_t len, const char *what)
{
    unsigned bits = xts_aes_bits(m->key_len);
    struct guarded out = guarded_alloc(len, 0);
    for (int d = 0; d < 2; d++) {
        enum xts_dir dir = (enum xts_dir)d;
        xts_reference(dir, m->key, m->key_len, m->tweak, m->want, m->in, len);
        int rc = xts_api(&m->ctx, dir, out.data, m->in, len, m->tweak);
        check(rc == AESGEN_OK && memcmp(out.data, m->want, len) == 0 && guarded_intact(&out),
              "%s xts aes-%u %s %s len=%zu: matches %s, nothing written outside dst (rc %d)",
              m->isa, bits, xts_dir_name(dir), what, len, oracle(m->key_len), rc);
    }
    xts_api(&m->ctx, XTS_ENCRYPT, out.data, m->in, len, m->tweak);
    int rc = xts_api(&m->ctx, XTS_DECRYPT, m->back, out.data, len, m->tweak);
    check(rc == AESGEN_OK && memcmp(m->back, m->in, len) == 0,
          "%s xts aes-%u %s len=%zu: decrypt(encrypt(x)) == x", m->isa, bits, what, len);
    guarded_free(&out);
}

static void dense_lengths(struct material *m)
{
    for (size_t len = 16; len <= 300; len++)
        check_length(m, len, "dense");
}

/* Every multiple of 16 up to 2117 and the lengths one byte either side: all the
 * stride edges (and edge +-15, +-16, +-17) of every loop shape. */
static void stride_edges(struct material *m)
{
    for (size_t len = 301; len <= 2117; len++)
        if (len % 16 == 0 || len % 16 == 1 || len % 16 == 15)
            check_length(m, len, "stride edge");
}

static void random_lengths(struct material *m, const struct sample *s)
{
    for (size_t i = 0; i < s->random_rounds; i++) {
        if (!rekey(m))
            return;
        check_length(m, 16 + (size_t)rng_below(20000 - 16 + 1), "random");
    }
}

static void long_unit(struct material *m)
{
    uint8_t *in = xmalloc(LONG_LEN), *want = xmalloc(LONG_LEN), *got = xmalloc(LONG_LEN);
    rng_fill(in, LONG_LEN);
    for (int d = 0; d < 2; d++) {
        enum xts_dir dir = (enum xts_dir)d;
        xts_reference(dir, m->key, m->key_len, m->tweak, want, in, LONG_LEN);
        int rc = xts_api(&m->ctx, dir, got, in, LONG_LEN, m->tweak);
        check(rc == AESGEN_OK && memcmp(got, want, LONG_LEN) == 0, "%s xts aes-%u %s len=%d",
              m->isa, xts_aes_bits(m->key_len), xts_dir_name(dir), LONG_LEN);
    }
    free(in);
    free(want);
    free(got);
}

static void in_place(struct material *m)
{
    struct guarded buf = guarded_alloc(MAX_LEN, 0);
    for (size_t len = 16; len <= 4200; len += len < 80 ? 1 : 37) {
        for (int d = 0; d < 2; d++) {
            enum xts_dir dir = (enum xts_dir)d;
            xts_reference(dir, m->key, m->key_len, m->tweak, m->want, m->in, len);
            memcpy(buf.data, m->in, len);
            int rc = xts_api(&m->ctx, dir, buf.data, buf.data, len, m->tweak);
            check(rc == AESGEN_OK && memcmp(buf.data, m->want, len) == 0 && guarded_intact(&buf),
                  "%s xts aes-%u %s in place len=%zu (rc %d)", m->isa, xts_aes_bits(m->key_len),
                  xts_dir_name(dir), len, rc);
        }
    }
    guarded_free(&buf);
}

/* src and dst at offsets 0..15 each, and in place at each offset. */
static void misaligned(struct material *m, const struct sample *s)
{
    unsigned bits = xts_aes_bits(m->key_len);
    for (size_t src_off = 0; src_off < 16; src_off++) {
        for (size_t dst_off = 0; dst_off < 16; dst_off += s->dst_offset_step) {
            size_t len = 16 + (size_t)rng_below(dst_off == src_off ? 3000 : 700);
            enum xts_dir dir = (enum xts_dir)((src_off + dst_off) % 2);
            struct guarded src = guarded_alloc(len, src_off), dst = guarded_alloc(len, dst_off);
            memcpy(src.data, m->in, len);
            xts_reference(dir, m->key, m->key_len, m->tweak, m->want, m->in, len);
            int rc = xts_api(&m->ctx, dir, dst.data, src.data, len, m->tweak);
            check(rc == AESGEN_OK && memcmp(dst.data, m->want, len) == 0
                  && guarded_intact(&dst) && guarded_intact(&src)
                  && memcmp(src.data, m->in, len) == 0,
                  "%s xts aes-%u %s misaligned src+%zu dst+%zu len=%zu (rc %d)", m->isa, bits,
                  xts_dir_name(dir), src_off, dst_off, len, rc);
            rc = xts_api(&m->ctx, dir, src.data, src.data, len, m->tweak);
            check(rc == AESGEN_OK && memcmp(src.data, m->want, len) == 0 && guarded_intact(&src),
                  "%s xts aes-%u %s misaligned in place +%zu len=%zu (rc %d)", m->isa, bits,
                  xts_dir_name(dir), src_off, len, rc);
            guarded_free(&src);
            guarded_free(&dst);
        }
    }
}

static void run_isa(const struct test_isa *isa, struct material *m)
{
    struct sample s = isa->is_slow ? (struct sample){ 30, 5 } : (struct sample){ 150, 1 };
    m->isa = isa->name;
    for (size_t k = 0; k < 3; k++) {
        m->key_len = xts_key_sizes[k];
        if (!rekey(m))
            continue;
        dense_lengths(m);
        stride_edges(m);
        in_place(m);
        misaligned(m, &s);
        long_unit(m);
        random_lengths(m, &s);
    }
}

void test_xts_differential(const struct test_config *config)
{
    (void)config;
    check_set_group("xts-differential");
    struct material m;
    memset(&m, 0, sizeof m);
    m.in = xmalloc(MAX_LEN);
    m.want = xmalloc(MAX_LEN);
    m.back = xmalloc(MAX_LEN);
    rng_fill(m.in, MAX_LEN);
    FOR_EACH_RUNNABLE_VARIANT(isa, TEST_MODE_xts) {
        if (isa_select(isa))
            run_isa(isa, &m);
    }
    free(m.in);
    free(m.want);
    free(m.back);
}
