/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * The IPsec forms: RFC 3686 (CTR), RFC 4106 (GCM) and RFC 4543 (GMAC) on every ISA.
 *  - Known answers: tests/vectors/normalized/rfc3686.jsonl (RFC 3686 section 6),
 *    rfc4106.jsonl and rfc4543.jsonl (draft-mcgrew-gcm-test-01's ESP packets, from the
 *    Linux kernel's testmgr templates; see tests/vectors/SOURCES.md).
 *  - OpenSSL differential: EVP aes-N-ctr from the counter block nonce || iv || 00000001,
 *    EVP aes-N-gcm with the nonce salt || iv (RFC 4543: AAD = aad || iv || data, no text).
 *  - Misuse: key and AAD lengths, tag lengths, NULL pointers, the RFC 3686 length limit,
 *    keys never initialized: AESGEN_EINVAL and nothing written.
 */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gcm_harness.h"
#include "harness.h"
#include "isa.h"
#include "reference.h"
#include "tests.h"
#include "vectors.h"

enum { MAX_TEXT = 256 };

struct ipsec_vector {
    char id[160];
    uint8_t key[36], iv[8], aad[12], pt[MAX_TEXT], ct[MAX_TEXT], tag[16];
    size_t key_len, aad_len, len;
    bool valid;
};

struct ipsec_list {
    const char *mode;
    struct ipsec_vector *cases;
    size_t count, cap;
};

static bool hex_into(const struct json_object *o, const char *key, uint8_t *out, size_t cap,
                     size_t *len)
{
    const char *hex = json_string(o, key);
    if (hex == NULL || strlen(hex) / 2 > cap)
        return false;
    long n = hex_decode(hex, out, cap);
    *len = n < 0 ? 0 : (size_t)n;
    return n >= 0;
}

static bool add_ipsec_vector(const struct json_object *o, const char *where, void *ctx)
{
    struct ipsec_list *list = ctx;
    list->cases = vector_grow(list->cases, list->count, &list->cap, sizeof *list->cases);
    struct ipsec_vector *v = &list->cases[list->count];
    memset(v, 0, sizeof *v);
    const char *mode = json_string(o, "mode"), *result = json_string(o, "result");
    const char *id = json_string(o, "id");
    snprintf(v->id, sizeof v->id, "%s", id ? id : "?");
    long keybits = 0;
    size_t iv_len = 0, ct_len = 0, tag_len = 0;
    v->valid = result && strcmp(result, "valid") == 0;
    bool is_ctr = strcmp(list->mode, "rfc3686") == 0, is_gmac = strcmp(list->mode, "rfc4543") == 0;
    bool ok = mode && strcmp(mode, list->mode) == 0 && json_integer(o, "keybits", &keybits) &&
              hex_into(o, "key", v->key, sizeof v->key, &v->key_len) &&
              (size_t)keybits == (v->key_len - 4) * 8 &&
              hex_into(o, "iv", v->iv, sizeof v->iv, &iv_len) && iv_len == 8 &&
              hex_into(o, "pt", v->pt, sizeof v->pt, &v->len);
    if (ok && !is_ctr)
        ok = hex_into(o, "aad", v->aad, sizeof v->aad, &v->aad_len) &&
             hex_into(o, "tag", v->tag, sizeof v->tag, &tag_len) && tag_len == 16;
    if (ok && !is_gmac)
        ok = hex_into(o, "ct", v->ct, sizeof v->ct, &ct_len) && ct_len == v->len && v->valid;
    if (!check(ok, "%s: well-formed %s vector \"%s\"", where, list->mode, v->id))
        return false;
    list->count++;
    return true;
}

static struct ipsec_list load(const struct test_config *config, const char *mode,
                              const char *path, size_t min_cases)
{
    struct ipsec_list list = { mode, NULL, 0, 0 };
    struct vector_file file = { path, false, min_cases };
    size_t used = 0;
    if (vector_file_read(config->vectors_dir, &file, add_ipsec_vector, &list, &used))
        check_note("vectors: %s: %zu %s cases", path, used, mode);
    return list;
}

/* ---- RFC 3686 ------------------------------------------------------------- */

/* OpenSSL CTR from the RFC's counter block; a packet's 32-bit counter never wraps here. */
static void ref_rfc3686(const uint8_t *k, size_t key_len, const uint8_t iv[8], uint8_t *dst,
                        const uint8_t *src, size_t len)
{
    uint8_t block[16] = { 0 };
    memcpy(block, k + key_len - 4, 4);
    memcpy(block + 4, iv, 8);
    block[15] = 1;
    ref_ctr(k, key_len - 4, block, dst, src, len);
}

static void rfc3686_known_answers(const char *isa, const struct ipsec_list *list)
{
    for (size_t i = 0; i < list->count; i++) {
        const struct ipsec_vector *v = &list->cases[i];
        aesgen_rfc3686_key key;
        uint8_t out[MAX_TEXT];
        int rc = aesgen_rfc3686_init_isa(&key, v->key, v->key_len, isa);
        rc = rc ? rc : aesgen_rfc3686_crypt(&key, v->iv, out, v->pt, v->len);
        check(rc == AESGEN_OK && memcmp(out, v->ct, v->len) == 0,
              "%s rfc3686 aes-%zu \"%s\" encrypts to the RFC's ciphertext (rc %d)", isa,
              (v->key_len - 4) * 8, v->id, rc);
        memcpy(out, v->ct, v->len);
        rc = aesgen_rfc3686_crypt(&key, v->iv, out, out, v->len);
        check(rc == AESGEN_OK && memcmp(out, v->pt, v->len) == 0,
              "%s rfc3686 \"%s\" decrypts in place", isa, v->id);
    }
}

static void rfc3686_differential(const char *isa, const uint8_t *pt)
{
    static const size_t key_lens[] = { 20, 28, 36 };
    bool ok = true;
    size_t cases = 0;
    for (size_t k = 0; k < 3; k++) {
        for (int round = 0; round < 40; round++) {
            uint8_t raw[36], iv[8];
            static uint8_t got[4200], want[4200];
            size_t len = round < 20 ? (size_t)round * 17 : rng_below(4200);
            rng_fill(raw, key_lens[k]);
            rng_fill(iv, 8);
            if (round % 4 == 1)
                memset(iv + 4, 0xff, 4);   /* the IV's low half all ones: no carry into it */
            aesgen_rfc3686_key key;
            ok = ok && aesgen_rfc3686_init_isa(&key, raw, key_lens[k], isa) == AESGEN_OK &&
                 aesgen_rfc3686_crypt(&key, iv, got, pt, len) == AESGEN_OK;
            ref_rfc3686(raw, key_lens[k], iv, want, pt, len);
            ok = ok && memcmp(got, want, len) == 0;
            cases++;
        }
    }
    check(ok, "%s rfc3686: %zu packets (key_len 20/28/36, 0..4199 bytes) match OpenSSL CTR "
          "from nonce || iv || 1", isa, cases);
}

static void rfc3686_misuse(void)
{
    static const size_t bad[] = { 0, 3, 4, 16, 19, 21, 24, 27, 29, 32, 35, 37, 40 };
    uint8_t raw[40] = { 7 }, iv[8] = { 1 }, src[32] = { 2 }, dst[32];
    aesgen_rfc3686_key key, blank;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fill_pattern(&key, sizeof key);
        int rc = aesgen_rfc3686_init(&key, raw, bad[i]);
        check(rc == AESGEN_EINVAL && still_pattern(&key, sizeof key),
              "rfc3686 init key_len %zu: EINVAL (got %d), key untouched", bad[i], rc);
    }
    fill_pattern(&key, sizeof key);
    check(aesgen_rfc3686_init(&key, NULL, 20) == AESGEN_EINVAL && still_pattern(&key, sizeof key),
          "rfc3686 init NULL key material: EINVAL, key untouched");
    check(aesgen_rfc3686_init(NULL, raw, 20) == AESGEN_EINVAL, "rfc3686 init NULL key");
    aesgen_rfc3686_init(&key, raw, 20);
    memset(&blank, 0, sizeof blank);
    struct { const aesgen_rfc3686_key *key; const uint8_t *iv; uint8_t *dst; const uint8_t *src;
             size_t len; const char *what; } calls[] = {
        { NULL, iv, dst, src, 32, "NULL key" },
        { &blank, iv, dst, src, 32, "a key never initialized" },
        { &key, NULL, dst, src, 32, "NULL iv" },
        { &key, iv, NULL, src, 32, "NULL dst" },
        { &key, iv, dst, NULL, 32, "NULL src" },
        /* one byte more than 2^32 - 1 blocks: the RFC's 32-bit block counter */
        { &key, iv, dst, src, (size_t)(((UINT64_C(1) << 32) - 1) * 16 + 1), "len past the limit" },
        { &key, iv, dst, src, SIZE_MAX, "len SIZE_MAX" },
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        memset(dst, 0xee, sizeof dst);
        int rc = aesgen_rfc3686_crypt(calls[i].key, calls[i].iv, calls[i].dst, calls[i].src,
                                      calls[i].len);
        check(rc == AESGEN_EINVAL && all_bytes_are(dst, sizeof dst, 0xee),
              "rfc3686 crypt with %s: EINVAL (got %d), dst untouched", calls[i].what, rc);
    }
    check(aesgen_rfc3686_crypt(&key, iv, NULL, NULL, 0) == AESGEN_OK,
          "rfc3686 crypt of 0 bytes with NULL buffers: OK");
}

/* ---- RFC 4106 ------------------------------------------------------------- */

static bool ref_gcm_esp(enum gcm_dir dir, const uint8_t *k, size_t key_len, const uint8_t iv[8],
                        const uint8_t *aad, size_t aad_len, uint8_t *dst, const uint8_t *src,
                        size_t len, uint8_t tag[16], size_t tag_len)
{
    uint8_t nonce[12];
    memcpy(nonce, k + key_len - 4, 4);
    memcpy(nonce + 4, iv, 8);
    return gcm_ref_evp(dir, k, key_len - 4, nonce, 12, aad, aad_len, dst, src, len, tag,
                       tag_len);
}

static void rfc4106_known_answers(const char *isa, const struct ipsec_list *list)
{
    static const size_t tag_lens[] = { 8, 12, 16 };
    for (size_t i = 0; i < list->count; i++) {
        const struct ipsec_vector *v = &list->cases[i];
        aesgen_gcm_esp_key key;
        uint8_t out[MAX_TEXT], back[MAX_TEXT], tag[16];
        if (!check_int(aesgen_gcm_esp_init_isa(&key, v->key, v->key_len, isa), AESGEN_OK,
                       "%s gcm esp init \"%s\"", isa, v->id))
            continue;
        for (size_t t = 0; t < 3; t++) {
            size_t tl = tag_lens[t];
            int rc = aesgen_rfc4106_encrypt(&key, v->iv, v->aad, v->aad_len, out, v->pt, v->len,
                                            tag, tl);
            check(rc == AESGEN_OK && memcmp(out, v->ct, v->len) == 0 &&
                  memcmp(tag, v->tag, tl) == 0, "%s rfc4106 aes-%zu aad %zu \"%s\" tag %zu: "
                  "the known ciphertext and ICV (rc %d)", isa, (v->key_len - 4) * 8, v->aad_len,
                  v->id, tl, rc);
            rc = aesgen_rfc4106_decrypt(&key, v->iv, v->aad, v->aad_len, back, v->ct, v->len,
                                        v->tag, tl);
            check(rc == AESGEN_OK && memcmp(back, v->pt, v->len) == 0,
                  "%s rfc4106 \"%s\" tag %zu decrypts (rc %d)", isa, v->id, tl, rc);
        }
        uint8_t bad[16];
        memcpy(bad, v->tag, 16);
        bad[rng_below(16)] ^= (uint8_t)(1u << rng_below(8));
        memset(back, 0x5a, sizeof back);
        int rc = aesgen_rfc4106_decrypt(&key, v->iv, v->aad, v->aad_len, back, v->ct, v->len,
                                        bad, 16);
        check(rc == AESGEN_EBADMSG && all_zero(back, v->len),
              "%s rfc4106 \"%s\" with a flipped ICV bit: EBADMSG (got %d), dst wiped", isa,
              v->id, rc);
        uint8_t other_iv[8];
        memcpy(other_iv, v->iv, 8);
        other_iv[7] ^= 1;
        rc = aesgen_rfc4106_decrypt(&key, other_iv, v->aad, v->aad_len, back, v->ct, v->len,
                                    v->tag, 16);
        check(rc == AESGEN_EBADMSG, "%s rfc4106 \"%s\" under another IV: EBADMSG", isa, v->id);
    }
}

static void rfc4106_differential(const char *isa, const uint8_t *pt)
{
    static const size_t key_lens[] = { 20, 28, 36 };
    bool ok = true;
    size_t cases = 0;
    for (size_t k = 0; k < 3; k++) {
        for (int round = 0; round < 30; round++) {
            uint8_t raw[36], iv[8], aad[12], tag[16], want_tag[16];
            static uint8_t got[2100], want[2100], back[2100];
            size_t len = round < 10 ? (size_t)round * 13 : rng_below(2100);
            size_t aad_len = round % 2 ? 12 : 8, tag_len = round % 3 == 0 ? 8 : round % 3 == 1 ? 12 : 16;
            rng_fill(raw, key_lens[k]);
            rng_fill(iv, 8);
            rng_fill(aad, sizeof aad);
            aesgen_gcm_esp_key key;
            ok = ok && aesgen_gcm_esp_init_isa(&key, raw, key_lens[k], isa) == AESGEN_OK &&
                 aesgen_rfc4106_encrypt(&key, iv, aad, aad_len, got, pt, len, tag, tag_len) == 0;
            ref_gcm_esp(GCM_ENCRYPT, raw, key_lens[k], iv, aad, aad_len, want, pt, len, want_tag,
                        16);
            ok = ok && memcmp(got, want, len) == 0 && memcmp(tag, want_tag, tag_len) == 0 &&
                 aesgen_rfc4106_decrypt(&key, iv, aad, aad_len, back, got, len, tag,
                                        tag_len) == AESGEN_OK &&
                 memcmp(back, pt, len) == 0;
            cases++;
        }
    }
    check(ok, "%s rfc4106: %zu packets (key_len 20/28/36, AAD 8/12, ICV 8/12/16) match "
          "OpenSSL GCM with nonce salt || iv", isa, cases);
}

static void gcm_esp_misuse(void)
{
    static const size_t bad_keys[] = { 0, 4, 16, 19, 21, 24, 32, 35, 37 };
    uint8_t raw[40] = { 3 }, iv[8] = { 4 }, aad[20] = { 5 }, src[32] = { 6 }, dst[32], tag[16];
    aesgen_gcm_esp_key key, blank;
    for (size_t i = 0; i < sizeof bad_keys / sizeof bad_keys[0]; i++) {
        fill_pattern(&key, sizeof key);
        int rc = aesgen_gcm_esp_init(&key, raw, bad_keys[i]);
        check(rc == AESGEN_EINVAL && still_pattern(&key, sizeof key),
              "gcm esp init key_len %zu: EINVAL (got %d), key untouched", bad_keys[i], rc);
    }
    check(aesgen_gcm_esp_init(NULL, raw, 20) == AESGEN_EINVAL, "gcm esp init NULL key");
    fill_pattern(&key, sizeof key);
    check(aesgen_gcm_esp_init(&key, NULL, 20) == AESGEN_EINVAL && still_pattern(&key, sizeof key),
          "gcm esp init NULL key material: EINVAL, key untouched");
    aesgen_gcm_esp_init(&key, raw, 20);
    memset(&blank, 0, sizeof blank);
    struct { const aesgen_gcm_esp_key *key; const uint8_t *iv, *aad; size_t aad_len; uint8_t *dst;
             const uint8_t *src; size_t tag_len; const char *what; } calls[] = {
        { NULL, iv, aad, 8, dst, src, 16, "NULL key" },
        { &blank, iv, aad, 8, dst, src, 16, "a key never initialized" },
        { &key, NULL, aad, 8, dst, src, 16, "NULL iv" },
        { &key, iv, NULL, 8, dst, src, 16, "NULL aad" },
        { &key, iv, aad, 0, dst, src, 16, "aad_len 0" },
        { &key, iv, aad, 4, dst, src, 16, "aad_len 4" },
        { &key, iv, aad, 16, dst, src, 16, "aad_len 16 (the IV appended, kernel style)" },
        { &key, iv, aad, 20, dst, src, 16, "aad_len 20" },
        { &key, iv, aad, 8, NULL, src, 16, "NULL dst" },
        { &key, iv, aad, 8, dst, NULL, 16, "NULL src" },
        { &key, iv, aad, 8, dst, src, 4, "tag_len 4" },
        { &key, iv, aad, 8, dst, src, 13, "tag_len 13" },
        { &key, iv, aad, 8, dst, src, 15, "tag_len 15" },
        { &key, iv, aad, 8, dst, src, 17, "tag_len 17" },
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        memset(dst, 0xee, sizeof dst);
        memset(tag, 0xee, sizeof tag);
        int rc = aesgen_rfc4106_encrypt(calls[i].key, calls[i].iv, calls[i].aad,
                                        calls[i].aad_len, calls[i].dst, calls[i].src, 32, tag,
                                        calls[i].tag_len);
        check(rc == AESGEN_EINVAL && all_bytes_are(dst, 32, 0xee) && all_bytes_are(tag, 16, 0xee),
              "rfc4106 encrypt with %s: EINVAL (got %d), nothing written", calls[i].what, rc);
        rc = aesgen_rfc4106_decrypt(calls[i].key, calls[i].iv, calls[i].aad, calls[i].aad_len,
                                    calls[i].dst, calls[i].src, 32, tag, calls[i].tag_len);
        check(rc == AESGEN_EINVAL && all_bytes_are(dst, 32, 0xee),
              "rfc4106 decrypt with %s: EINVAL (got %d), dst untouched", calls[i].what, rc);
    }
    /* RFC 4543 */
    struct { const aesgen_gcm_esp_key *key; const uint8_t *iv, *aad; size_t aad_len;
             const uint8_t *data; size_t len; const char *what; } macs[] = {
        { NULL, iv, aad, 8, src, 32, "NULL key" },
        { &blank, iv, aad, 8, src, 32, "a key never initialized" },
        { &key, NULL, aad, 8, src, 32, "NULL iv" },
        { &key, iv, NULL, 8, src, 32, "NULL aad" },
        { &key, iv, aad, 16, src, 32, "aad_len 16" },
        { &key, iv, aad, 0, src, 32, "aad_len 0" },
        { &key, iv, aad, 8, NULL, 32, "NULL data with len 32" },
    };
    for (size_t i = 0; i < sizeof macs / sizeof macs[0]; i++) {
        memset(tag, 0xee, sizeof tag);
        int rc = aesgen_rfc4543_mac(macs[i].key, macs[i].iv, macs[i].aad, macs[i].aad_len,
                                    macs[i].data, macs[i].len, tag);
        check(rc == AESGEN_EINVAL && all_bytes_are(tag, 16, 0xee),
              "rfc4543 mac with %s: EINVAL (got %d), tag untouched", macs[i].what, rc);
        rc = aesgen_rfc4543_verify(macs[i].key, macs[i].iv, macs[i].aad, macs[i].aad_len,
                                   macs[i].data, macs[i].len, tag);
        check(rc == AESGEN_EINVAL, "rfc4543 verify with %s: EINVAL (got %d)", macs[i].what, rc);
    }
    check(aesgen_rfc4543_mac(&key, iv, aad, 8, src, 32, NULL) == AESGEN_EINVAL,
          "rfc4543 mac with NULL tag: EINVAL");
    check(aesgen_rfc4543_verify(&key, iv, aad, 8, src, 32, NULL) == AESGEN_EINVAL,
          "rfc4543 verify with NULL tag: EINVAL");
    check(aesgen_rfc4543_mac(&key, iv, aad, 12, NULL, 0, tag) == AESGEN_OK,
          "rfc4543 mac of an empty payload with NULL data: OK");
}

/* ---- RFC 4543 ------------------------------------------------------------- */

static void rfc4543_known_answers(const char *isa, const struct ipsec_list *list)
{
    for (size_t i = 0; i < list->count; i++) {
        const struct ipsec_vector *v = &list->cases[i];
        aesgen_gcm_esp_key key;
        uint8_t tag[16];
        if (!check_int(aesgen_gcm_esp_init_isa(&key, v->key, v->key_len, isa), AESGEN_OK,
                       "%s gcm esp init \"%s\"", isa, v->id))
            continue;
        int rc = aesgen_rfc4543_verify(&key, v->iv, v->aad, v->aad_len, v->pt, v->len, v->tag);
        check_int(rc, v->valid ? AESGEN_OK : AESGEN_EBADMSG, "%s rfc4543 verify \"%s\" (%s)",
                  isa, v->id, v->valid ? "valid" : "invalid");
        if (v->valid) {
            rc = aesgen_rfc4543_mac(&key, v->iv, v->aad, v->aad_len, v->pt, v->len, tag);
            check(rc == AESGEN_OK && memcmp(tag, v->tag, 16) == 0,
                  "%s rfc4543 mac \"%s\" is the known ICV (rc %d)", isa, v->id, rc);
            uint8_t other_iv[8];
            memcpy(other_iv, v->iv, 8);
            other_iv[0] ^= 0x80;
            check_int(aesgen_rfc4543_verify(&key, other_iv, v->aad, v->aad_len, v->pt, v->len,
                                            v->tag), AESGEN_EBADMSG,
                      "%s rfc4543 \"%s\": the IV is authenticated", isa, v->id);
        }
    }
}

static void rfc4543_differential(const char *isa, const uint8_t *pt)
{
    static const size_t key_lens[] = { 20, 28, 36 };
    bool ok = true;
    size_t cases = 0;
    static uint8_t aad_all[12 + 8 + 1500];
    for (size_t k = 0; k < 3; k++) {
        for (int round = 0; round < 30; round++) {
            uint8_t raw[36], iv[8], aad[12], tag[16], want_tag[16];
            size_t len = round < 10 ? (size_t)round * 7 : rng_below(1500);
            size_t aad_len = round % 2 ? 12 : 8;
            rng_fill(raw, key_lens[k]);
            rng_fill(iv, 8);
            rng_fill(aad, sizeof aad);
            memcpy(aad_all, aad, aad_len);
            memcpy(aad_all + aad_len, iv, 8);
            memcpy(aad_all + aad_len + 8, pt, len);
            aesgen_gcm_esp_key key;
            ok = ok && aesgen_gcm_esp_init_isa(&key, raw, key_lens[k], isa) == AESGEN_OK &&
                 aesgen_rfc4543_mac(&key, iv, aad, aad_len, pt, len, tag) == AESGEN_OK;
            uint8_t none[1] = { 0 }, none_out[1];
            ref_gcm_esp(GCM_ENCRYPT, raw, key_lens[k], iv, aad_all, aad_len + 8 + len, none_out,
                        none, 0, want_tag, 16);
            ok = ok && memcmp(tag, want_tag, 16) == 0 &&
                 aesgen_rfc4543_verify(&key, iv, aad, aad_len, pt, len, tag) == AESGEN_OK;
            if (len != 0) {
                tag[rng_below(16)] ^= 4;
                ok = ok && aesgen_rfc4543_verify(&key, iv, aad, aad_len, pt, len, tag) ==
                               AESGEN_EBADMSG;
            }
            cases++;
        }
    }
    check(ok, "%s rfc4543: %zu packets (key_len 20/28/36, AAD 8/12) match OpenSSL GMAC over "
          "aad || iv || data; a flipped ICV bit fails", isa, cases);
}

void test_ipsec(const struct test_config *config)
{
    check_set_group("ipsec");
    struct ipsec_list ctr = load(config, "rfc3686", "normalized/rfc3686.jsonl", 9);
    struct ipsec_list gcm = load(config, "rfc4106", "normalized/rfc4106.jsonl", 16);
    struct ipsec_list gmac = load(config, "rfc4543", "normalized/rfc4543.jsonl", 2);
    uint8_t *pt = xmalloc(4200);
    rng_fill(pt, 4200);
    FOR_EACH_RUNNABLE_ISA(isa) {
        rfc3686_known_answers(isa->name, &ctr);
        rfc3686_differential(isa->name, pt);
        rfc4106_known_answers(isa->name, &gcm);
        rfc4106_differential(isa->name, pt);
        rfc4543_known_answers(isa->name, &gmac);
        rfc4543_differential(isa->name, pt);
    }
    rfc3686_misuse();
    gcm_esp_misuse();
    free(pt);
    free(ctr.cases);
    free(gcm.cases);
    free(gmac.cases);
}
