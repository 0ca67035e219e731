/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * `make test-huge`: single calls past 4 GiB, where 32-bit truncation of a length
 * or a block count would show.  A stand-alone program (not part of aesgen_tests:
 * it takes minutes), built by tests/tests.mk and run by .ci/run.
 *
 * On every ISA this CPU runs, on one mmap'd buffer, in place:
 *  - CTR: one aesgen_ctr_crypt of 4 GiB + 4113 bytes (the assembly sees all of it in
 *    one call), and one whose counter's low 64 bits wrap in the middle (2^27 blocks
 *    in); each followed by 4113 bytes more on the same context; and the wrapping one
 *    as one stateless aesgen_ctr_crypt_iv (the context keyed under another IV, left
 *    as it was);
 *  - XCTR: the same lengths;
 *  - GCM: aesgen_gcm_encrypt (one-shot, 12-byte IV) of 4 GiB + 4113 bytes, its
 *    aesgen_gcm_decrypt back, and one streamed encrypt_update of that length with a
 *    13-byte IV (a secret counter: the path AESGEN_GCM_SECRET_COUNTER selects);
 *  - XTS: the sector API over 257 data units of the largest size the library allows
 *    (AESGEN_XTS_MAX_DATA_UNIT = 2^20 blocks, IEEE 1619's limit: 4 GiB + 16 MiB in
 *    one call), sector numbers across 2^32, and back.
 * Each result is checked against OpenSSL's EVP (XCTR: built from AES-ECB, as in
 * reference.c) in 64 MiB chunks, regenerating the plaintext from its index.
 * generic (the slow portable code) runs the first call of each mode only: CTR
 * without the wrap, XCTR, GCM one-shot encryption, XTS sector encryption.
 * Usage: huge_lengths [ISA...] (default: every ISA this CPU runs).
 * Last line: `N passed, N failed, N skipped`.
 */
#define _GNU_SOURCE
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "aesgen.h"
#include "check.h"
#include "harness.h"
#include "isa.h"
#include "reference.h"

#define HUGE_LEN (((size_t)4 << 30) + 4113)
#define XTS_UNITS 257
#define XTS_LEN ((size_t)XTS_UNITS * AESGEN_XTS_MAX_DATA_UNIT)
#define MAP_LEN (XTS_LEN > HUGE_LEN ? XTS_LEN : HUGE_LEN)
enum { CHUNK = 64 << 20, TAIL = 4113 };

static uint8_t *buffer;       /* MAP_LEN bytes */
static uint8_t *chunk_in, *chunk_out;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The plaintext's 8-byte word i: a function of (seed, i) alone, so any chunk can be
 * made again. */
static uint64_t word(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + i * 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    return z ^ (z >> 27);
}

/* len bytes of the pattern from byte offset off (a multiple of 8). */
static void pattern(uint8_t *p, uint64_t seed, size_t off, size_t len)
{
    size_t words = len / 8;
    for (size_t i = 0; i < words; i++) {
        uint64_t w = word(seed, off / 8 + i);
        memcpy(p + 8 * i, &w, 8);
    }
    if (len % 8) {
        uint64_t w = word(seed, off / 8 + words);
        memcpy(p + 8 * words, &w, len % 8);
    }
}

/* Compares [off, off + n) of got with want; remembers the first difference. */
struct compare {
    bool ok;
    size_t first_bad;
};

static void compare_chunk(struct compare *c, const uint8_t *got, const uint8_t *want,
                          size_t off, size_t n)
{
    if (!c->ok || memcmp(got, want, n) == 0)
        return;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            c->ok = false;
            c->first_bad = off + i;
            return;
        }
}

static const EVP_CIPHER *cipher(const char *mode, size_t key_len)
{
    char name[32];
    snprintf(name, sizeof name, "aes-%zu-%s", key_len * 8, mode);
    const EVP_CIPHER *c = EVP_get_cipherbyname(name);
    if (!c)
        ref_die(name);
    return c;
}

static void evp_update(EVP_CIPHER_CTX *e, uint8_t *out, const uint8_t *in, size_t len)
{
    int n = 0;
    if (EVP_EncryptUpdate(e, out, &n, in, (int)len) != 1 || (size_t)n != len)
        ref_die("EVP_EncryptUpdate");
}

/* ---- CTR and XCTR ---------------------------------------------------------- */

/* wrap: the counter's low half starts at 2^64 - 2^27 and wraps 2 GiB into the message
 * (the C glue then splits the call there); else it starts low and nothing splits it.
 * one_shot: the message by aesgen_ctr_crypt_iv on a context keyed under another IV,
 * which must stay as it was (no further call on it). */
static void huge_ctr(const char *isa, const uint8_t *key, size_t key_len, bool wrap,
                     bool one_shot)
{
    uint8_t iv[16];
    rng_fill(iv, sizeof iv);
    if (wrap) {
        memset(iv + 8, 0xff, 8);
        iv[12] = 0xf8;
        memset(iv + 13, 0, 3);
    } else {
        iv[8] = 0;
    }
    const uint64_t seed = rng_next();
    pattern(buffer, seed, 0, HUGE_LEN);
    aesgen_ctr_ctx ctx, before;
    uint8_t other_iv[16];
    for (size_t i = 0; i < sizeof other_iv; i++)
        other_iv[i] = (uint8_t)~iv[i];
    check_int(aesgen_ctr_init(&ctx, key, key_len, one_shot ? other_iv : iv), AESGEN_OK,
              "%s ctr init", isa);
    memcpy(&before, &ctx, sizeof ctx);
    double t = now();
    int rc = one_shot ? aesgen_ctr_crypt_iv(&ctx, iv, buffer, buffer, HUGE_LEN)
                      : aesgen_ctr_crypt(&ctx, buffer, buffer, HUGE_LEN);
    double seconds = now() - t;
    check_int(rc, AESGEN_OK, "%s ctr %s of %zu bytes in one call", isa,
              one_shot ? "crypt_iv" : "crypt", HUGE_LEN);

    EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new();
    if (!e || EVP_EncryptInit_ex(e, cipher("ctr", key_len), NULL, key, iv) != 1)
        ref_die("EVP ctr init");
    struct compare c = { true, 0 };
    for (size_t off = 0; off < HUGE_LEN; off += CHUNK) {
        size_t n = HUGE_LEN - off < CHUNK ? HUGE_LEN - off : CHUNK;
        pattern(chunk_in, seed, off, n);
        evp_update(e, chunk_out, chunk_in, n);
        compare_chunk(&c, buffer + off, chunk_out, off, n);
    }
    check(c.ok, "%s aes-%zu ctr%s: %zu bytes (%s) equal OpenSSL's (first difference at byte "
          "%zu) [%.2f s]", isa, key_len * 8, one_shot ? " crypt_iv" : "", HUGE_LEN,
          wrap ? "the low counter half wrapping 2^27 blocks in" : "no wrap", c.first_bad,
          seconds);
    if (one_shot) {
        check(memcmp(&before, &ctx, sizeof ctx) == 0, "%s ctr crypt_iv leaves the context "
              "as it was", isa);
    } else {
        /* The context goes on where the huge call stopped. */
        uint8_t more[TAIL];
        pattern(chunk_in, seed ^ 1, 0, TAIL);
        memcpy(more, chunk_in, TAIL);
        check_int(aesgen_ctr_crypt(&ctx, more, more, TAIL), AESGEN_OK, "%s ctr crypt after",
                  isa);
        evp_update(e, chunk_out, chunk_in, TAIL);
        check_bytes(more, chunk_out, TAIL, "%s ctr: the %d bytes after the huge call", isa,
                    TAIL);
    }
    EVP_CIPHER_CTX_free(e);
    aesgen_wipe(&ctx, sizeof ctx);
}

static void huge_xctr(const char *isa, const uint8_t *key, size_t key_len)
{
    uint8_t iv[16];
    rng_fill(iv, sizeof iv);
    const uint64_t seed = rng_next();
    pattern(buffer, seed, 0, HUGE_LEN);
    aesgen_xctr_ctx ctx;
    check_int(aesgen_xctr_init(&ctx, key, key_len, iv), AESGEN_OK, "%s xctr init", isa);
    double t = now();
    int rc = aesgen_xctr_crypt(&ctx, buffer, buffer, HUGE_LEN);
    double seconds = now() - t;
    check_int(rc, AESGEN_OK, "%s xctr crypt of %zu bytes in one call", isa, HUGE_LEN);
    struct compare c = { true, 0 };
    for (size_t off = 0; off < HUGE_LEN; off += CHUNK) {
        size_t n = HUGE_LEN - off < CHUNK ? HUGE_LEN - off : CHUNK;
        pattern(chunk_in, seed, off, n);
        ref_xctr(key, key_len, iv, 1 + off / 16, chunk_out, chunk_in, n);
        compare_chunk(&c, buffer + off, chunk_out, off, n);
    }
    check(c.ok, "%s aes-%zu xctr: %zu bytes equal the AES-ECB reference (first difference "
          "at byte %zu) [%.2f s]", isa, key_len * 8, HUGE_LEN, c.first_bad, seconds);
    /* HUGE_LEN % 16 = 1: the next call starts inside block (HUGE_LEN / 16) + 1. */
    uint8_t more[TAIL], want[TAIL + 16], in[TAIL + 16];
    pattern(in, seed ^ 1, 0, TAIL + 16);
    memcpy(more, in + 1, TAIL);
    check_int(aesgen_xctr_crypt(&ctx, more, more, TAIL), AESGEN_OK, "%s xctr crypt after", isa);
    ref_xctr(key, key_len, iv, 1 + HUGE_LEN / 16, want, in, TAIL + 1);
    check_bytes(more, want + 1, TAIL, "%s xctr: the %d bytes after the huge call", isa, TAIL);
    aesgen_wipe(&ctx, sizeof ctx);
}

/* ---- GCM --------------------------------------------------------------------- */

/* OpenSSL's ciphertext of the pattern, compared chunk by chunk with buffer; its tag. */
static bool gcm_reference(const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
                          const uint8_t *aad, size_t aad_len, uint64_t seed, uint8_t tag[16],
                          struct compare *c)
{
    EVP_CIPHER_CTX *e = EVP_CIPHER_CTX_new();
    int n = 0;
    if (!e || EVP_EncryptInit_ex(e, cipher("gcm", key_len), NULL, NULL, NULL) != 1 ||
        EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_GCM_SET_IVLEN, (int)iv_len, NULL) != 1 ||
        EVP_EncryptInit_ex(e, NULL, NULL, key, iv) != 1 ||
        EVP_EncryptUpdate(e, NULL, &n, aad, (int)aad_len) != 1)
        ref_die("EVP gcm init");
    for (size_t off = 0; off < HUGE_LEN; off += CHUNK) {
        size_t len = HUGE_LEN - off < CHUNK ? HUGE_LEN - off : CHUNK;
        pattern(chunk_in, seed, off, len);
        evp_update(e, chunk_out, chunk_in, len);
        compare_chunk(c, buffer + off, chunk_out, off, len);
    }
    if (EVP_EncryptFinal_ex(e, chunk_out, &n) != 1 ||
        EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_GCM_GET_TAG, 16, tag) != 1)
        ref_die("EVP gcm final");
    EVP_CIPHER_CTX_free(e);
    return true;
}

static bool pattern_restored(uint64_t seed, size_t *first_bad)
{
    struct compare c = { true, 0 };
    for (size_t off = 0; off < HUGE_LEN; off += CHUNK) {
        size_t n = HUGE_LEN - off < CHUNK ? HUGE_LEN - off : CHUNK;
        pattern(chunk_in, seed, off, n);
        compare_chunk(&c, buffer + off, chunk_in, off, n);
    }
    *first_bad = c.first_bad;
    return c.ok;
}

static void huge_gcm(const char *isa, const uint8_t *key, size_t key_len, bool full)
{
    aesgen_gcm_key gk;
    check_int(aesgen_gcm_init(&gk, key, key_len), AESGEN_OK, "%s gcm init", isa);
    uint8_t iv[13], aad[13], tag[16], want_tag[16];
    rng_fill(iv, sizeof iv);
    rng_fill(aad, sizeof aad);

    /* One-shot, 12-byte IV, in place. */
    const uint64_t seed = rng_next();
    pattern(buffer, seed, 0, HUGE_LEN);
    double t = now();
    int rc = aesgen_gcm_encrypt(&gk, iv, 12, aad, sizeof aad, buffer, buffer, HUGE_LEN, tag, 16);
    double seconds = now() - t;
    check_int(rc, AESGEN_OK, "%s gcm encrypt of %zu bytes in one call", isa, HUGE_LEN);
    struct compare c = { true, 0 };
    gcm_reference(key, key_len, iv, 12, aad, sizeof aad, seed, want_tag, &c);
    check(c.ok, "%s aes-%zu gcm one-shot, 12-byte IV: %zu bytes equal OpenSSL's (first "
          "difference at byte %zu) [%.2f s]", isa, key_len * 8, HUGE_LEN, c.first_bad, seconds);
    check_bytes(tag, want_tag, 16, "%s gcm one-shot: the tag of %zu bytes", isa, HUGE_LEN);
    if (!full) {
        aesgen_wipe(&gk, sizeof gk);
        return;
    }
    rc = aesgen_gcm_decrypt(&gk, iv, 12, aad, sizeof aad, buffer, buffer, HUGE_LEN, tag, 16);
    check_int(rc, AESGEN_OK, "%s gcm decrypt of %zu bytes in one call", isa, HUGE_LEN);
    size_t bad = 0;
    check(pattern_restored(seed, &bad), "%s gcm one-shot decrypt restores %zu bytes (first "
          "difference at byte %zu)", isa, HUGE_LEN, bad);

    /* Streamed, 13-byte IV (J0 = GHASH(IV): the secret-counter path), one update. */
    const uint64_t seed2 = rng_next();
    pattern(buffer, seed2, 0, HUGE_LEN);
    aesgen_gcm_ctx ctx;
    check_int(aesgen_gcm_start(&ctx, &gk, iv, 13), AESGEN_OK, "%s gcm start", isa);
    check_int(aesgen_gcm_aad(&ctx, aad, sizeof aad), AESGEN_OK, "%s gcm aad", isa);
    t = now();
    rc = aesgen_gcm_encrypt_update(&ctx, buffer, buffer, HUGE_LEN);
    seconds = now() - t;
    check_int(rc, AESGEN_OK, "%s gcm encrypt_update of %zu bytes in one call", isa, HUGE_LEN);
    check_int(aesgen_gcm_encrypt_final(&ctx, tag, 16), AESGEN_OK, "%s gcm final", isa);
    c = (struct compare){ true, 0 };
    gcm_reference(key, key_len, iv, 13, aad, sizeof aad, seed2, want_tag, &c);
    check(c.ok, "%s aes-%zu gcm streamed, 13-byte IV: %zu bytes equal OpenSSL's (first "
          "difference at byte %zu) [%.2f s]", isa, key_len * 8, HUGE_LEN, c.first_bad, seconds);
    check_bytes(tag, want_tag, 16, "%s gcm streamed: the tag of %zu bytes", isa, HUGE_LEN);
    aesgen_wipe(&gk, sizeof gk);
}

/* ---- XTS --------------------------------------------------------------------- */

static void huge_xts(const char *isa, const uint8_t *key, size_t key_len, bool full)
{
    aesgen_xts_ctx ctx;
    check_int(aesgen_xts_init(&ctx, key, key_len), AESGEN_OK, "%s xts init", isa);
    const uint64_t first = 0xffffffffu - 100;     /* the sector numbers cross 2^32 */
    const size_t unit = AESGEN_XTS_MAX_DATA_UNIT;
    const uint64_t seed = rng_next();
    pattern(buffer, seed, 0, XTS_LEN);
    double t = now();
    int rc = aesgen_xts_encrypt_sectors(&ctx, buffer, buffer, XTS_LEN, unit, first);
    double seconds = now() - t;
    check_int(rc, AESGEN_OK, "%s xts encrypt_sectors of %zu bytes in one call", isa, XTS_LEN);
    struct compare c = { true, 0 };
    for (size_t s = 0; s < XTS_UNITS; s++) {
        uint8_t tweak[16] = { 0 };
        const uint64_t sector = first + s;
        memcpy(tweak, &sector, 8);                 /* little-endian (x86) */
        pattern(chunk_in, seed, s * unit, unit);
        ref_xts_evp(1, key, key_len, tweak, chunk_out, chunk_in, unit);
        compare_chunk(&c, buffer + s * unit, chunk_out, s * unit, unit);
    }
    check(c.ok, "%s aes-%zu xts: %d data units of %zu bytes (the largest allowed) in one call "
          "equal OpenSSL's (first difference at byte %zu) [%.2f s]", isa, key_len * 4,
          XTS_UNITS, unit, c.first_bad, seconds);
    if (!full) {
        aesgen_wipe(&ctx, sizeof ctx);
        return;
    }
    rc = aesgen_xts_decrypt_sectors(&ctx, buffer, buffer, XTS_LEN, unit, first);
    check_int(rc, AESGEN_OK, "%s xts decrypt_sectors of %zu bytes in one call", isa, XTS_LEN);
    c = (struct compare){ true, 0 };
    for (size_t off = 0; off < XTS_LEN; off += CHUNK) {
        size_t n = XTS_LEN - off < CHUNK ? XTS_LEN - off : CHUNK;
        pattern(chunk_in, seed, off, n);
        compare_chunk(&c, buffer + off, chunk_in, off, n);
    }
    check(c.ok, "%s xts decrypt_sectors restores %zu bytes (first difference at byte %zu)", isa,
          XTS_LEN, c.first_bad);
    aesgen_wipe(&ctx, sizeof ctx);
}

/* Only the ISAs named on the command line, if any. */
static bool wanted(const char *isa, int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], isa) == 0)
            return true;
    return argc < 2;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *seed_text = getenv("AESGEN_TEST_SEED");
    uint64_t seed = seed_text ? strtoull(seed_text, NULL, 0) : 20240601;
    rng_seed(seed);
    check_note("aesgen huge-length tests: seed %llu (AESGEN_TEST_SEED)", (unsigned long long)seed);
    check_set_group("isa availability");
    isa_resolve();

    buffer = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
                  MAP_NORESERVE, -1, 0);
    if (buffer == MAP_FAILED)
        ref_die("mmap of the huge buffer");
    madvise(buffer, MAP_LEN, MADV_HUGEPAGE);      /* fewer page faults; fine if refused */
    chunk_in = xmalloc(CHUNK);
    chunk_out = xmalloc(CHUNK);

    check_set_group("huge");
    FOR_EACH_RUNNABLE_ISA(isa) {
        if (!wanted(isa->name, argc, argv) || !isa_select(isa))
            continue;
        double start = now();
        uint8_t key[64];
        rng_fill(key, sizeof key);
        /* The portable code runs at a few tens of MB/s: it takes the calls that reach
         * its own length handling, not the passes that only repeat the shared C glue's
         * (the wrap split, GCM decryption and streaming, XTS decryption). */
        const bool full = isa->is_asm;
        double t = now();
        huge_ctr(isa->name, key, 32, false, false);
        if (full) {
            huge_ctr(isa->name, key, 24, true, false);
            huge_ctr(isa->name, key, 16, true, true);
        }
        check_note("huge %s ctr: %.1f s", isa->name, now() - t);
        t = now();
        huge_xctr(isa->name, key, 16);
        check_note("huge %s xctr: %.1f s", isa->name, now() - t);
        t = now();
        huge_gcm(isa->name, key, 32, full);
        check_note("huge %s gcm: %.1f s", isa->name, now() - t);
        t = now();
        huge_xts(isa->name, key, 64, full);
        check_note("huge %s xts: %.1f s", isa->name, now() - t);
        check_note("huge %s: %.1f s", isa->name, now() - start);
    }
    munmap(buffer, MAP_LEN);
    free(chunk_in);
    free(chunk_out);
    return check_finish();
}
