/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Two documented GCM contracts (runtime/include/aesgen.h):
 *  - Alignment: aesgen_gcm_key is declared 16-byte aligned (_Alignof is 16), all the
 *    library needs: a key object at 16, 32 and 48 bytes past a 64-byte boundary (as
 *    malloc may return; valid C, the sanitizer build checks it) gives OpenSSL's
 *    results on every ISA, one-shot and streamed.
 *  - Streamed decryption releases plaintext before the tag is checked: with a forged
 *    tag, decrypt_update has already written the plaintext and only decrypt_final
 *    reports AESGEN_EBADMSG (so callers must hold it back); the one-shot
 *    aesgen_gcm_decrypt wipes dst instead.
 * And, white box, the ISA-independent pieces of vperm_ssse3's GCM: its updates and
 * records across the inc32 wrap and the table-free GHASH functions.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gcm_harness.h"
#include "harness.h"
#include "internal.h"   /* vperm_ssse3's GCM updates, called directly: white box */
#include "isa.h"
#include "tests.h"

enum { MSG = 700 };

_Static_assert(_Alignof(aesgen_gcm_key) == 16, "aesgen_gcm_key: the documented alignment");

static void misaligned_keys(const char *isa, const uint8_t *pt)
{
    /* C11: aligned_alloc's size is a multiple of the alignment */
    uint8_t *area = aligned_alloc(64, (sizeof(aesgen_gcm_key) + 64 + 63) & ~(size_t)63);
    if (area == NULL)
        exit(3);
    static const size_t offsets[] = { 16, 32, 48 };
    for (size_t o = 0; o < 3; o++) {
        aesgen_gcm_key *key = (aesgen_gcm_key *)(void *)(area + offsets[o]);
        uint8_t raw[32], iv[12], aad[29], got[MSG], want[MSG], tag[16], want_tag[16];
        rng_fill(raw, sizeof raw);
        rng_fill(iv, sizeof iv);
        rng_fill(aad, sizeof aad);
        bool ok = aesgen_gcm_init_isa(key, raw, sizeof raw, isa) == AESGEN_OK;
        gcm_ref_evp(GCM_ENCRYPT, raw, sizeof raw, iv, 12, aad, sizeof aad, want, pt, MSG,
                    want_tag, 16);
        ok = ok && aesgen_gcm_encrypt(key, iv, 12, aad, sizeof aad, got, pt, MSG, tag, 16) == 0 &&
             memcmp(got, want, MSG) == 0 && memcmp(tag, want_tag, 16) == 0;
        size_t chunks[3] = { 17, 300, MSG };
        ok = ok && gcm_api_streamed(GCM_ENCRYPT, key, iv, 12, aad, sizeof aad, NULL, 0, got, pt,
                                    MSG, chunks, 3, tag, 16) == AESGEN_OK &&
             memcmp(got, want, MSG) == 0 && memcmp(tag, want_tag, 16) == 0;
        check(ok, "%s gcm key object at 64-byte boundary + %zu: one-shot and streamed match "
              "OpenSSL", isa, offsets[o]);
    }
    free(area);
}

static void plaintext_before_tag(const char *isa, const uint8_t *pt)
{
    uint8_t raw[16], iv[12], ct[MSG], out[MSG], tag[16];
    rng_fill(raw, sizeof raw);
    rng_fill(iv, sizeof iv);
    aesgen_gcm_key key;
    aesgen_gcm_init_isa(&key, raw, sizeof raw, isa);
    aesgen_gcm_encrypt(&key, iv, 12, NULL, 0, ct, pt, MSG, tag, 16);
    tag[3] ^= 1;   /* forged */
    aesgen_gcm_ctx ctx;
    aesgen_gcm_start(&ctx, &key, iv, 12);
    memset(out, 0, sizeof out);
    int rc = aesgen_gcm_decrypt_update(&ctx, out, ct, MSG);
    check(rc == AESGEN_OK && memcmp(out, pt, MSG) == 0,
          "%s gcm: decrypt_update releases the plaintext before the tag is known", isa);
    check_int(aesgen_gcm_decrypt_final(&ctx, tag, 16), AESGEN_EBADMSG,
              "%s gcm: only decrypt_final reports the forgery", isa);
    memset(out, 0x5a, sizeof out);
    rc = aesgen_gcm_decrypt(&key, iv, 12, NULL, 0, out, ct, MSG, tag, 16);
    check(rc == AESGEN_EBADMSG && all_zero(out, MSG),
          "%s gcm: the one-shot decrypt wipes dst on a forgery (rc %d)", isa, rc);
}

/* vperm_ssse3's GCM updates (runtime/src/gcm_ctr_ghash.c) split a call where inc32's
 * low 32 bits wrap; a 12-byte IV never gets there within GCM's limits, so the split is
 * called directly here with public counters just below the wrap (and with the secret-
 * counter flag), against the bit-by-bit GHASH and inc32 CTR references. */
static bool vperm_runnable(void)
{
    for (int i = 0; i < ISA_COUNT; i++)
        if (strcmp(test_isas[i].name, "vperm_ssse3") == 0 && test_isas[i].runnable)
            return true;
    return false;               /* not runnable here: isa_resolve reported it */
}

static void vperm_updates_across_the_inc32_wrap(void)
{
    if (!vperm_runnable())
        return;
    enum { MAX = 16 * 12 };
    static const uint32_t lows[] = { 0xfffffffdu, 0xffffffffu, 0 };
    static const size_t lens[] = { 16, 48, 64, MAX };
    uint8_t raw[32], src[MAX], dst[MAX], want[MAX], h[16], y[16], acc[16], reflected[16];
    aesgen_gcm_key key;
    rng_fill(src, sizeof src);
    for (size_t key_len = 16; key_len <= 32; key_len += 16) {
        if (!gcm_make_key(&key, raw, key_len, "vperm_ssse3"))
            continue;
        gcm_ref_hash_key(raw, key_len, h);
        for (size_t l = 0; l < sizeof lows / sizeof lows[0]; l++)
            for (size_t n = 0; n < sizeof lens / sizeof lens[0]; n++)
                for (int secret = 0; secret < 2; secret++)
                    for (int dir = 0; dir < 2; dir++) {
                        const size_t len = lens[n];
                        uint8_t ctr[16];
                        rng_fill(ctr, 12);
                        ctr[12] = (uint8_t)(lows[l] >> 24);
                        ctr[13] = (uint8_t)(lows[l] >> 16);
                        ctr[14] = (uint8_t)(lows[l] >> 8);
                        ctr[15] = (uint8_t)lows[l];
                        gcm_ref_ctr32(raw, key_len, ctr, want, src, len);
                        memset(y, 0, sizeof y);
                        gcm_ref_ghash(h, y, dir ? src : want, len);
                        gcm_reflect(y, reflected);
                        memset(acc, 0, sizeof acc);
                        const size_t flagged = len | (secret ? AESGEN_GCM_SECRET_COUNTER : 0);
                        (dir ? aesgen_gcm_dec_update_vperm_ssse3
                             : aesgen_gcm_enc_update_vperm_ssse3)(&key, dst, src, flagged, ctr,
                                                                  acc);
                        check(memcmp(dst, want, len) == 0 && memcmp(acc, reflected, 16) == 0,
                              "vperm_ssse3 gcm %s_update across the inc32 wrap: aes-%zu, low "
                              "32 bits %#x, len %zu%s", dir ? "dec" : "enc", key_len * 8,
                              lows[l], len, secret ? ", secret counter" : "");
                    }
    }
}

/* The same split in vperm_ssse3's records (the one-shot API's whole message per call,
 * any length): J0's low 32 bits 2^32 - 1 - b, so the wrap falls on the message's block
 * b (b = 0 is J0 + 1), for every length up to and past the joint call (J0's block and
 * the text in one CTR call, RECORD_JOINT_BYTES) and past it, so that every partial
 * block is one whose counter wrapped, or the one just before. The reference: the
 * tests' own GCM with a 16-byte IV solved for that J0. */
static void vperm_records_across_the_inc32_wrap(void)
{
    if (!vperm_runnable())
        return;
    enum { MAX = 16 * 12, AAD = 13 };
    uint8_t raw[32], src[MAX], dst[MAX], want[MAX], want_tag[16], h[16], iv[16], aad[AAD];
    aesgen_gcm_key key;
    rng_fill(src, sizeof src);
    rng_fill(aad, sizeof aad);
    for (size_t key_len = 16; key_len <= 32; key_len += 16) {
        if (!gcm_make_key(&key, raw, key_len, "vperm_ssse3"))
            continue;
        gcm_ref_hash_key(raw, key_len, h);
        for (uint32_t b = 0; b < 4; b++)
            for (size_t len = 0; len <= MAX; len += len < 140 ? 1 : 13)
                for (int secret = 0; secret < 2; secret++)
                    for (int dir = 0; dir < 2; dir++) {
                        uint8_t j0[16];
                        rng_fill(j0, 12);
                        const uint32_t low = 0xffffffffu - b;
                        for (int i = 0; i < 4; i++)
                            j0[12 + i] = (uint8_t)(low >> (24 - 8 * i));
                        gcm_iv_for_j0(h, j0, iv);
                        gcm_ref_own_encrypt(raw, key_len, iv, 16, aad, AAD, want, src, len,
                                            want_tag);
                        aesgen_gcm_record rec;
                        memset(&rec, 0, sizeof rec);
                        memcpy(rec.j0, j0, 16);
                        rec.lengths[0] = (uint64_t)len * 8;
                        rec.lengths[1] = (uint64_t)AAD * 8;
                        rec.aad = aad;
                        rec.aad_len = AAD;
                        const size_t flagged = len | (secret ? AESGEN_GCM_SECRET_COUNTER : 0);
                        (dir ? aesgen_gcm_dec_record_vperm_ssse3
                             : aesgen_gcm_enc_record_vperm_ssse3)(&key, dst, dir ? want : src,
                                                                  flagged, &rec);
                        check(memcmp(dst, dir ? src : want, len) == 0
                                  && memcmp(rec.tag, want_tag, 16) == 0,
                              "vperm_ssse3 gcm %s_record across the inc32 wrap: aes-%zu, J0's "
                              "low 32 bits 2^32 - %u, len %zu%s", dir ? "dec" : "enc",
                              key_len * 8, b + 1, len, secret ? ", secret counter" : "");
                    }
    }
}

/* The table-free GHASH functions without PCLMULQDQ, called directly against the
 * bit-by-bit reference: the SSSE3 one (vperm_ssse3's; pshufb lookups in groups of four
 * blocks, so every remainder 0..3 and several groups) and the scalar one (generic's),
 * from a random accumulator, over random data and over all-ones data (every nibble
 * 15: every table's last entry), for several random keys (the tables' top-byte terms
 * depend on the powers of H). */
static void table_free_ghash(void)
{
    enum { BLOCKS = 21 };
    static const struct {
        const char *name;
        aesgen_gcm_ghash_fn *fn;
    } fns[] = { { "ssse3", aesgen_gcm_ghash_ssse3 }, { "generic", aesgen_gcm_ghash_generic } };
    uint8_t raw[32], h[16], data[16 * BLOCKS], start[16], y[16], want[16], acc[16];
    aesgen_gcm_key key;
    for (int trial = 0; trial < 8; trial++) {
        const size_t key_len = trial % 2 ? 32 : 16;
        if (!gcm_make_key(&key, raw, key_len, "generic"))
            continue;
        gcm_ref_hash_key(raw, key_len, h);
        if (trial >= 6)
            memset(data, 0xff, sizeof data);
        else
            rng_fill(data, sizeof data);
        rng_fill(start, sizeof start);
        for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++) {
            /* the SSSE3 one needs vperm_ssse3's CPU (pshufb): named once where it lacks */
            if (fns[f].fn == aesgen_gcm_ghash_ssse3 && !vperm_runnable()) {
                if (trial == 0)
                    check_skip("aesgen_gcm_ghash_ssse3: the CPU cannot run vperm_ssse3");
                continue;
            }
            for (size_t blocks = 0; blocks <= BLOCKS; blocks++) {
                memcpy(y, start, 16);
                gcm_ref_ghash(h, y, data, 16 * blocks);
                gcm_reflect(y, want);
                gcm_reflect(start, acc);
                const int rc = fns[f].fn(&key, acc, data, 16 * blocks);
                check(rc == AESGEN_OK && memcmp(acc, want, 16) == 0,
                      "aesgen_gcm_ghash_%s: aes-%zu key %d, %zu blocks of %s data match the "
                      "bit-by-bit GHASH", fns[f].name, key_len * 8, trial, blocks,
                      trial >= 6 ? "all-ones" : "random");
            }
        }
    }
}

void test_gcm_contract(const struct test_config *config)
{
    (void)config;
    check_set_group("gcm-contract");
    uint8_t *pt = xmalloc(MSG);
    rng_fill(pt, MSG);
    FOR_EACH_RUNNABLE_ISA(isa) {
        misaligned_keys(isa->name, pt);
        plaintext_before_tag(isa->name, pt);
    }
    vperm_updates_across_the_inc32_wrap();
    vperm_records_across_the_inc32_wrap();
    table_free_ghash();
    free(pt);
}
