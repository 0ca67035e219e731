/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * GCM differential tests against OpenSSL's EVP aes-{128,192,256}-gcm (group
 * gcm-differential), every ISA, every key size.  Each message: one-shot encrypt
 * (ciphertext and tag, guarded buffers) and decrypt, and streamed both ways in
 * random chunks; every few messages also forgeries: one bit flipped in the tag,
 * the ciphertext, the AAD or the IV must make decrypt return AESGEN_EBADMSG and
 * wipe dst (one-shot) or make decrypt_final fail (streamed).
 *  - text lengths: every length 0..600; every multiple of 64 up to 2200 and
 *    +-1, +-15, +-16, +-17 around it (the main-loop strides of every ISA are
 *    multiples of 64 bytes); random lengths up to 20000; 256 KiB + 13;
 *  - AAD: every length 0..600 (and random lengths with the texts above);
 *  - IV: every length 1..128 (OpenSSL's limit), 12 bytes most of the time;
 *  - every tag length 4, 8, 12..16, with lengths around the block and stride edges;
 *  - in place (encrypt and decrypt) at every length class above;
 *  - src, dst, AAD and IV at every offset 0..15 from 16-byte alignment;
 *  - counter wraps: 16-byte IVs solved so that J0's low 32 bits are 2^32 - 1 - k,
 *    so inc32 wraps inside the message (at every block position of a stride).
 * The portable C code gets fewer random lengths (40 instead of 200 per key size) and
 * forgeries every 4th message instead of every 3rd.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "gcm_harness.h"
#include "harness.h"
#include "isa.h"
#include "tests.h"

enum { MAX_LEN = 20000 + 64, MAX_AAD = 600 + 64, MAX_IV = 128 + 16,
       LONG_LEN = (1 << 18) + 13, MAX_CHUNKS = 256 };

struct sample {
    size_t random_rounds;      /* random text lengths per key size */
    size_t forge_every;        /* forgeries every n-th message */
};

struct material {
    const char *isa;
    const struct sample *s;
    uint8_t key[32];
    size_t key_len;
    aesgen_gcm_key gk;
    uint8_t *in, *aad, *iv;    /* random; messages use prefixes */
    uint8_t *want;
    size_t messages;           /* checked so far, to pace tag lengths and forgeries */
};

/* One message's shape. */
struct shape {
    size_t len, aad_len, iv_len, tag_len;
    const uint8_t *iv;         /* NULL: m->iv */
    const char *what;
};

static unsigned bits(const struct material *m)
{
    return key_bits(m->key_len);
}

/* Mostly 12 bytes (the fast path), otherwise any length 1..128. */
static size_t pick_iv_len(void)
{
    return rng_below(4) ? 12 : 1 + (size_t)rng_below(GCM_OPENSSL_MAX_IV);
}

static size_t next_tag_len(struct material *m)
{
    return gcm_tag_lengths[m->messages % GCM_TAG_LENGTH_COUNT];
}

static void describe(const struct material *m, const struct shape *sh, char *out, size_t cap)
{
    snprintf(out, cap, "%s gcm aes-%u %s len=%zu aad=%zu iv=%zu tag=%zu", m->isa, bits(m),
             sh->what, sh->len, sh->aad_len, sh->iv_len, sh->tag_len);
}

/* Flips one random bit of p[0..n). */
static void flip_bit(uint8_t *p, size_t n)
{
    size_t bit = (size_t)rng_below(8 * n);
    p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
}

/* Decrypt of a forged message: EBADMSG, dst wiped, nothing outside it. */
static void forgeries(struct material *m, const struct shape *sh, const uint8_t *iv,
                      const uint8_t tag[16], const char *name)
{
    static const char *const parts[4] = { "tag", "ciphertext", "aad", "iv" };
    uint8_t *ct = xmalloc(sh->len), *aad = xmalloc(sh->aad_len), *ivc = xmalloc(sh->iv_len);
    for (int part = 0; part < 4; part++) {
        uint8_t t[16];
        memcpy(t, tag, 16);
        memcpy(ct, m->want, sh->len);
        memcpy(aad, m->aad, sh->aad_len);
        memcpy(ivc, iv, sh->iv_len);
        size_t n = part == 0 ? sh->tag_len : part == 1 ? sh->len
                 : part == 2 ? sh->aad_len : sh->iv_len;
        if (n == 0)
            continue;
        flip_bit(part == 0 ? t : part == 1 ? ct : part == 2 ? aad : ivc, n);
        struct guarded dst = guarded_alloc(sh->len, 1);
        memset(dst.data, 0xee, sh->len);
        int rc = aesgen_gcm_decrypt(&m->gk, ivc, sh->iv_len, aad, sh->aad_len, dst.data, ct,
                                    sh->len, t, sh->tag_len);
        check(rc == AESGEN_EBADMSG && all_zero(dst.data, sh->len) && guarded_intact(&dst),
              "%s: one bit of the %s flipped: decrypt returns EBADMSG (got %d), dst wiped",
              name, parts[part], rc);
        if (part == 0 || part == 1) {
            size_t chunks[MAX_CHUNKS];
            size_t nc = gcm_random_chunks(chunks, MAX_CHUNKS, sh->len);
            rc = gcm_api_streamed(GCM_DECRYPT, &m->gk, ivc, sh->iv_len, aad, sh->aad_len, NULL,
                                  0, dst.data, ct, sh->len, chunks, nc, t, sh->tag_len);
            check(rc == AESGEN_EBADMSG && guarded_intact(&dst),
                  "%s: one bit of the %s flipped: streamed decrypt_final returns EBADMSG "
                  "(got %d)", name, parts[part], rc);
        }
        guarded_free(&dst);
    }
    free(ct);
    free(aad);
    free(ivc);
}

/* The whole check of one message shape: one-shot both ways, streamed both ways,
 * and every few messages the forgeries. */
static void check_message(struct material *m, const struct shape *sh)
{
    char name[200];
    describe(m, sh, name, sizeof name);
    const uint8_t *iv = sh->iv ? sh->iv : m->iv;
    uint8_t want_tag[16];
    gcm_ref_evp(GCM_ENCRYPT, m->key, m->key_len, iv, sh->iv_len, m->aad, sh->aad_len, m->want,
                m->in, sh->len, want_tag, 16);

    struct guarded dst = guarded_alloc(sh->len, sh->len % 16), tag = guarded_alloc(sh->tag_len, 9);
    int rc = aesgen_gcm_encrypt(&m->gk, iv, sh->iv_len, m->aad, sh->aad_len, dst.data, m->in,
                                sh->len, tag.data, sh->tag_len);
    check(rc == AESGEN_OK && memcmp(dst.data, m->want, sh->len) == 0
          && memcmp(tag.data, want_tag, sh->tag_len) == 0 && guarded_intact(&dst)
          && guarded_intact(&tag),
          "%s: encrypt matches OpenSSL (ct and tag), nothing written outside them (rc %d)",
          name, rc);
    rc = aesgen_gcm_decrypt(&m->gk, iv, sh->iv_len, m->aad, sh->aad_len, dst.data, m->want,
                            sh->len, want_tag, sh->tag_len);
    check(rc == AESGEN_OK && memcmp(dst.data, m->in, sh->len) == 0 && guarded_intact(&dst),
          "%s: decrypt of OpenSSL's ciphertext and tag (rc %d)", name, rc);

    size_t aad_chunks[MAX_CHUNKS], text_chunks[MAX_CHUNKS];
    size_t na = gcm_random_chunks(aad_chunks, MAX_CHUNKS, sh->aad_len);
    size_t nt = gcm_random_chunks(text_chunks, MAX_CHUNKS, sh->len);
    uint8_t t[16];
    rc = gcm_api_streamed(GCM_ENCRYPT, &m->gk, iv, sh->iv_len, m->aad, sh->aad_len, aad_chunks,
                          na, dst.data, m->in, sh->len, text_chunks, nt, t, sh->tag_len);
    check(rc == AESGEN_OK && memcmp(dst.data, m->want, sh->len) == 0
          && memcmp(t, want_tag, sh->tag_len) == 0 && guarded_intact(&dst),
          "%s: streamed encrypt (%zu aad and %zu text chunks) matches OpenSSL (rc %d)", name,
          na + 1, nt + 1, rc);
    nt = gcm_random_chunks(text_chunks, MAX_CHUNKS, sh->len);
    memcpy(t, want_tag, 16);
    rc = gcm_api_streamed(GCM_DECRYPT, &m->gk, iv, sh->iv_len, m->aad, sh->aad_len, aad_chunks,
                          na, dst.data, m->want, sh->len, text_chunks, nt, t, sh->tag_len);
    check(rc == AESGEN_OK && memcmp(dst.data, m->in, sh->len) == 0 && guarded_intact(&dst),
          "%s: streamed decrypt (%zu text chunks) (rc %d)", name, nt + 1, rc);
    /* in place (dst == src), both ways, in other chunks: a partial block's bytes are read
     * before they are written */
    nt = gcm_random_chunks(text_chunks, MAX_CHUNKS, sh->len);
    memcpy(dst.data, m->in, sh->len);
    rc = gcm_api_streamed(GCM_ENCRYPT, &m->gk, iv, sh->iv_len, m->aad, sh->aad_len, aad_chunks,
                          na, dst.data, dst.data, sh->len, text_chunks, nt, t, sh->tag_len);
    check(rc == AESGEN_OK && memcmp(dst.data, m->want, sh->len) == 0
          && memcmp(t, want_tag, sh->tag_len) == 0 && guarded_intact(&dst),
          "%s: streamed encrypt in place (%zu text chunks) matches OpenSSL (rc %d)", name,
          nt + 1, rc);
    nt = gcm_random_chunks(text_chunks, MAX_CHUNKS, sh->len);
    memcpy(dst.data, m->want, sh->len);
    memcpy(t, want_tag, 16);
    rc = gcm_api_streamed(GCM_DECRYPT, &m->gk, iv, sh->iv_len, m->aad, sh->aad_len, aad_chunks,
                          na, dst.data, dst.data, sh->len, text_chunks, nt, t, sh->tag_len);
    check(rc == AESGEN_OK && memcmp(dst.data, m->in, sh->len) == 0 && guarded_intact(&dst),
          "%s: streamed decrypt in place (%zu text chunks) (rc %d)", name, nt + 1, rc);
    guarded_free(&dst);
    guarded_free(&tag);

    if (m->messages++ % m->s->forge_every == 0)
        forgeries(m, sh, iv, want_tag, name);
}

static void message(struct material *m, size_t len, size_t aad_len, size_t iv_len,
                    const char *what)
{
    struct shape sh = { len, aad_len, iv_len, next_tag_len(m), NULL, what };
    check_message(m, &sh);
}

static void dense_lengths(struct material *m)
{
    for (size_t len = 0; len <= 600; len++)
        message(m, len, (size_t)rng_below(rng_below(4) ? 40 : 601), pick_iv_len(), "dense");
}

static void stride_edges(struct material *m)
{
    static const int deltas[] = { -17, -16, -15, -1, 0, 1, 15, 16, 17 };
    for (size_t k = 64; k <= 2200; k += 64)
        for (size_t d = 0; d < sizeof deltas / sizeof deltas[0]; d++)
            if (k + deltas[d] > 600 && k + deltas[d] <= 2200)
                message(m, (size_t)((long)k + deltas[d]), (size_t)rng_below(100), pick_iv_len(),
                        "stride edge");
}

static void random_lengths(struct material *m)
{
    for (size_t i = 0; i < m->s->random_rounds; i++)
        message(m, (size_t)rng_below(20001), (size_t)rng_below(601), pick_iv_len(), "random");
}

static void aad_lengths(struct material *m)
{
    for (size_t aad = 0; aad <= 600; aad++)
        message(m, (size_t)rng_below(rng_below(4) ? 50 : 300), aad, pick_iv_len(), "aad sweep");
}

static void iv_lengths(struct material *m)
{
    for (size_t iv = 1; iv <= GCM_OPENSSL_MAX_IV; iv++)
        message(m, (size_t)rng_below(300), (size_t)rng_below(40), iv, "iv sweep");
}

/* Every tag length with the block and stride edges of the text. */
static void tag_lengths(struct material *m)
{
    static const size_t lens[] = { 0, 1, 15, 16, 17, 255, 256, 257, 1023, 1024 };
    for (size_t t = 0; t < GCM_TAG_LENGTH_COUNT; t++)
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
            struct shape sh = { lens[l], (size_t)rng_below(30), 12, gcm_tag_lengths[t], NULL,
                                "tag sweep" };
            check_message(m, &sh);
        }
}

static void long_message(struct material *m)
{
    uint8_t *in = xmalloc(LONG_LEN), *want = xmalloc(LONG_LEN), *got = xmalloc(LONG_LEN);
    uint8_t want_tag[16], tag[16];
    rng_fill(in, LONG_LEN);
    gcm_ref_evp(GCM_ENCRYPT, m->key, m->key_len, m->iv, 12, m->aad, 77, want, in, LONG_LEN,
                want_tag, 16);
    int rc = aesgen_gcm_encrypt(&m->gk, m->iv, 12, m->aad, 77, got, in, LONG_LEN, tag, 16);
    check(rc == AESGEN_OK && memcmp(got, want, LONG_LEN) == 0 && memcmp(tag, want_tag, 16) == 0,
          "%s gcm aes-%u encrypt len=%d matches OpenSSL (rc %d)", m->isa, bits(m), LONG_LEN, rc);
    rc = aesgen_gcm_decrypt(&m->gk, m->iv, 12, m->aad, 77, got, want, LONG_LEN, want_tag, 16);
    check(rc == AESGEN_OK && memcmp(got, in, LONG_LEN) == 0,
          "%s gcm aes-%u decrypt len=%d (rc %d)", m->isa, bits(m), LONG_LEN, rc);
    free(in);
    free(want);
    free(got);
}

/* In place both ways: the ciphertext over the plaintext and back. */
static void in_place(struct material *m)
{
    struct guarded buf = guarded_alloc(MAX_LEN, 0);
    for (size_t len = 0; len <= 4200; len += len < 80 ? 1 : len < 600 ? 13 : 61) {
        size_t aad_len = (size_t)rng_below(50), iv_len = pick_iv_len(), tag_len = next_tag_len(m);
        uint8_t want_tag[16], tag[16];
        gcm_ref_evp(GCM_ENCRYPT, m->key, m->key_len, m->iv, iv_len, m->aad, aad_len, m->want,
                    m->in, len, want_tag, 16);
        memcpy(buf.data, m->in, len);
        int rc = aesgen_gcm_encrypt(&m->gk, m->iv, iv_len, m->aad, aad_len, buf.data, buf.data,
                                    len, tag, tag_len);
        check(rc == AESGEN_OK && memcmp(buf.data, m->want, len) == 0
              && memcmp(tag, want_tag, tag_len) == 0 && guarded_intact(&buf),
              "%s gcm aes-%u encrypt in place len=%zu aad=%zu iv=%zu (rc %d)", m->isa, bits(m),
              len, aad_len, iv_len, rc);
        rc = aesgen_gcm_decrypt(&m->gk, m->iv, iv_len, m->aad, aad_len, buf.data, buf.data, len,
                                want_tag, tag_len);
        check(rc == AESGEN_OK && memcmp(buf.data, m->in, len) == 0 && guarded_intact(&buf),
              "%s gcm aes-%u decrypt in place len=%zu (rc %d)", m->isa, bits(m), len, rc);
        size_t chunks[MAX_CHUNKS], n = gcm_random_chunks(chunks, MAX_CHUNKS, len);
        rc = gcm_api_streamed(GCM_ENCRYPT, &m->gk, m->iv, iv_len, m->aad, aad_len, NULL, 0,
                              buf.data, buf.data, len, chunks, n, tag, tag_len);
        check(rc == AESGEN_OK && memcmp(buf.data, m->want, len) == 0
              && memcmp(tag, want_tag, tag_len) == 0 && guarded_intact(&buf),
              "%s gcm aes-%u streamed encrypt in place len=%zu (rc %d)", m->isa, bits(m), len, rc);
        rc = gcm_api_streamed(GCM_DECRYPT, &m->gk, m->iv, iv_len, m->aad, aad_len, NULL, 0,
                              buf.data, buf.data, len, chunks, n, want_tag, tag_len);
        check(rc == AESGEN_OK && memcmp(buf.data, m->in, len) == 0 && guarded_intact(&buf),
              "%s gcm aes-%u streamed decrypt in place len=%zu (rc %d)", m->isa, bits(m), len, rc);
        m->messages++;
    }
    guarded_free(&buf);
}

/* src, dst, aad and iv each at an offset 0..15 from alignment. */
static void misaligned(struct material *m)
{
    for (size_t src_off = 0; src_off < 16; src_off++) {
        for (size_t dst_off = 0; dst_off < 16; dst_off++) {
            size_t aad_off = (src_off + dst_off) % 16, iv_off = (3 * src_off + dst_off + 1) % 16;
            size_t len = (size_t)rng_below(dst_off == src_off ? 3000 : 700);
            size_t aad_len = (size_t)rng_below(100), iv_len = pick_iv_len();
            size_t tag_len = next_tag_len(m);
            struct guarded src = guarded_alloc(len, src_off), dst = guarded_alloc(len, dst_off);
            struct guarded aad = guarded_alloc(aad_len, aad_off), iv = guarded_alloc(iv_len, iv_off);
            struct guarded tag = guarded_alloc(tag_len, (src_off + 7) % 16);
            memcpy(src.data, m->in, len);
            memcpy(aad.data, m->aad, aad_len);
            memcpy(iv.data, m->iv, iv_len);
            uint8_t want_tag[16];
            gcm_ref_evp(GCM_ENCRYPT, m->key, m->key_len, m->iv, iv_len, m->aad, aad_len, m->want,
                        m->in, len, want_tag, 16);
            int rc = aesgen_gcm_encrypt(&m->gk, iv.data, iv_len, aad.data, aad_len, dst.data,
                                        src.data, len, tag.data, tag_len);
            bool intact = guarded_intact(&src) && guarded_intact(&dst) && guarded_intact(&aad)
                          && guarded_intact(&iv) && guarded_intact(&tag);
            check(rc == AESGEN_OK && memcmp(dst.data, m->want, len) == 0
                  && memcmp(tag.data, want_tag, tag_len) == 0 && intact
                  && memcmp(src.data, m->in, len) == 0,
                  "%s gcm aes-%u encrypt misaligned src+%zu dst+%zu aad+%zu iv+%zu len=%zu "
                  "aad=%zu iv=%zu (rc %d)", m->isa, bits(m), src_off, dst_off, aad_off, iv_off,
                  len, aad_len, iv_len, rc);
            rc = aesgen_gcm_decrypt(&m->gk, iv.data, iv_len, aad.data, aad_len, src.data,
                                    dst.data, len, tag.data, tag_len);
            check(rc == AESGEN_OK && memcmp(src.data, m->in, len) == 0 && guarded_intact(&src)
                  && guarded_intact(&dst),
                  "%s gcm aes-%u decrypt misaligned src+%zu dst+%zu len=%zu (rc %d)", m->isa,
                  bits(m), dst_off, src_off, len, rc);
            rc = aesgen_gcm_encrypt(&m->gk, iv.data, iv_len, aad.data, aad_len, src.data,
                                    src.data, len, tag.data, tag_len);
            check(rc == AESGEN_OK && memcmp(src.data, m->want, len) == 0
                  && memcmp(tag.data, want_tag, tag_len) == 0 && guarded_intact(&src),
                  "%s gcm aes-%u encrypt misaligned in place +%zu len=%zu (rc %d)", m->isa,
                  bits(m), src_off, len, rc);
            guarded_free(&src);
            guarded_free(&dst);
            guarded_free(&aad);
            guarded_free(&iv);
            guarded_free(&tag);
            m->messages++;
        }
    }
}

/* 16-byte IVs whose J0 ends in 2^32 - 1 - k: the first counter block is J0 + 1,
 * so the (k + 1)-th block of the message wraps to 0 (inc32: no carry beyond). */
static void counter_wraps(struct material *m)
{
    static const uint32_t ks[] = { 0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 63, 127 };
    uint8_t h[16], j0[16], iv[16];
    gcm_ref_hash_key(m->key, m->key_len, h);
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        rng_fill(j0, 12);
        uint32_t low = 0xffffffffu - ks[i];
        for (int b = 0; b < 4; b++)
            j0[12 + b] = (uint8_t)(low >> (24 - 8 * b));
        gcm_iv_for_j0(h, j0, iv);
        uint8_t check_j0[16];
        gcm_ref_j0(h, iv, 16, check_j0);
        if (!check(memcmp(check_j0, j0, 16) == 0, "gcm aes-%u: solved IV gives J0 ending in %08x",
                   bits(m), low))
            continue;
        size_t lens[3] = { 16 * (ks[i] + 1) + (size_t)rng_below(40),
                           16 * (ks[i] + 1) + (size_t)rng_below(2000),
                           16 * ks[i] + 1 };
        for (int l = 0; l < 3; l++) {
            struct shape sh = { lens[l], (size_t)rng_below(40), 16, next_tag_len(m), iv,
                                "inc32 wrap" };
            char what[40];
            snprintf(what, sizeof what, "inc32 wrap after %u blocks", ks[i] + 1);
            sh.what = what;
            check_message(m, &sh);
        }
    }
}

static void run_isa(const struct test_isa *isa, struct material *m)
{
    static const struct sample fast = { 200, 3 }, slow = { 40, 4 };
    m->s = isa->is_slow ? &slow : &fast;
    m->isa = isa->name;
    for (size_t k = 0; k < 3; k++) {
        m->key_len = key_sizes[k];
        if (!gcm_make_key(&m->gk, m->key, m->key_len, isa->name))
            continue;
        dense_lengths(m);
        stride_edges(m);
        aad_lengths(m);
        iv_lengths(m);
        tag_lengths(m);
        in_place(m);
        misaligned(m);
        counter_wraps(m);
        random_lengths(m);
        long_message(m);
    }
}

void test_gcm_differential(const struct test_config *config)
{
    (void)config;
    check_set_group("gcm-differential");
    struct material m;
    memset(&m, 0, sizeof m);
    m.in = xmalloc(MAX_LEN);
    m.aad = xmalloc(MAX_AAD);
    m.iv = xmalloc(MAX_IV);
    m.want = xmalloc(MAX_LEN);
    rng_fill(m.in, MAX_LEN);
    rng_fill(m.aad, MAX_AAD);
    rng_fill(m.iv, MAX_IV);
    FOR_EACH_RUNNABLE_VARIANT(isa, TEST_MODE_gcm) {
        if (!isa_select(isa))
            continue;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        size_t before = m.messages;
        run_isa(isa, &m);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        check_note("gcm-differential %s: %zu messages in %.2f s", isa->name,
                   m.messages - before,
                   (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    }
    free(m.in);
    free(m.aad);
    free(m.iv);
    free(m.want);
}
