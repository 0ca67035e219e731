/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * The IPsec forms of CTR and GCM, with their RFCs' key and IV layouts:
 *  - RFC 3686: key = AES key || 4-byte nonce; per packet an 8-byte IV; counter block
 *    nonce || IV || BE32(1), the last 32 bits counting blocks (at most 2^32 - 1).
 *  - RFC 4106 (GCM) and RFC 4543 (GMAC): key = AES key || 4-byte salt; per packet an
 *    8-byte IV; the GCM nonce is salt || IV (12 bytes).  RFC 4106 authenticates the ESP
 *    AAD (SPI || sequence number, 8 bytes, or SPI || extended sequence number, 12);
 *    RFC 4543 authenticates the ESP AAD, the IV and the payload, and encrypts nothing.
 * Each is a thin layer: the nonce is built here, the mode's own code does the rest.
 */
#include <string.h>
#include "bytes.h"
#include "internal.h"

/* RFC 3686 counter block: the block counter is its last 32 bits and starts at 1. */
#define RFC3686_MAX_LEN ((UINT64_C(1) << 32) - 1) * 16

static uint64_t load_be32(const uint8_t *p)
{
    return (uint64_t)p[0] << 24 | (uint64_t)p[1] << 16 | (uint64_t)p[2] << 8 | p[3];
}

/* An AES key followed by 4 bytes (RFC 3686 nonce, RFC 4106/4543 salt). */
static int key_with_salt_valid(const uint8_t *k, size_t key_len)
{
    return k != NULL && key_len >= 4 && aesgen_key_len_valid(key_len - 4);
}

/* ---- RFC 3686 ------------------------------------------------------------- */

int aesgen_rfc3686_init(aesgen_rfc3686_key *key, const uint8_t *k, size_t key_len)
{
    return aesgen_rfc3686_init_isa(key, k, key_len, NULL);
}

int aesgen_rfc3686_init_isa(aesgen_rfc3686_key *key, const uint8_t *k, size_t key_len,
                            const char *isa)
{
    if (key == NULL || !key_with_salt_valid(k, key_len))
        return AESGEN_EINVAL;
    const aesgen_isa_impl *impl;
    aesgen_mode_fns fns;
    const int err = aesgen_isa_resolve(isa, &impl, &fns);
    if (err != AESGEN_OK)
        return err;
    uint8_t copy[36];
    memcpy(copy, k, key_len);   /* k may lie in *key */
    impl->expand(&key->aes, copy, key_len - 4);
    memcpy(key->nonce, copy + key_len - 4, 4);
    key->crypt = fns.ctr;
    aesgen_wipe(copy, sizeof copy);
    return AESGEN_OK;
}

int aesgen_rfc3686_crypt(const aesgen_rfc3686_key *key, const uint8_t iv[8], uint8_t *dst,
                         const uint8_t *src, size_t len)
{
    if (key == NULL || key->crypt == NULL || iv == NULL || (uint64_t)len > RFC3686_MAX_LEN ||
        (len != 0 && (dst == NULL || src == NULL)))
        return AESGEN_EINVAL;
    if (len == 0)
        return AESGEN_OK;
    /* The counter block as two big-endian halves; the low 32 bits run from 1 to at most
     * 2^32 - 1, so the implementation never has to carry between the halves. */
    const uint64_t hi = load_be32(key->nonce) << 32 | load_be32(iv);
    const uint64_t lo = load_be32(iv + 4) << 32 | 1;
    return key->crypt(&key->aes, dst, src, len, lo, hi);
}

/* ---- RFC 4106 / RFC 4543 ---------------------------------------------------- */

int aesgen_gcm_esp_init(aesgen_gcm_esp_key *key, const uint8_t *k, size_t key_len)
{
    return aesgen_gcm_esp_init_isa(key, k, key_len, NULL);
}

int aesgen_gcm_esp_init_isa(aesgen_gcm_esp_key *key, const uint8_t *k, size_t key_len,
                            const char *isa)
{
    if (key == NULL || !key_with_salt_valid(k, key_len))
        return AESGEN_EINVAL;
    uint8_t salt[4];
    memcpy(salt, k + key_len - 4, 4);   /* before *key is written: k may lie in it */
    const int err = aesgen_gcm_init_isa(&key->gcm, k, key_len - 4, isa);
    if (err == AESGEN_OK)
        memcpy(key->salt, salt, 4);
    return err;
}

/* The ESP AAD: SPI || 32-bit sequence number, or SPI || 64-bit extended sequence number. */
static int esp_aad_valid(const uint8_t *aad, size_t aad_len)
{
    return aad != NULL && (aad_len == 8 || aad_len == 12);
}

/* RFC 4106 section 6: the ICV is 16 bytes, or 8 or 12 where supported. */
static int rfc4106_tag_len_valid(size_t tag_len)
{
    return tag_len == 8 || tag_len == 12 || tag_len == 16;
}

static void esp_nonce(uint8_t nonce[12], const aesgen_gcm_esp_key *key, const uint8_t iv[8])
{
    memcpy(nonce, key->salt, 4);
    memcpy(nonce + 4, iv, 8);
}

int aesgen_rfc4106_encrypt(const aesgen_gcm_esp_key *key, const uint8_t iv[8],
                           const uint8_t *aad, size_t aad_len, uint8_t *dst, const uint8_t *src,
                           size_t len, uint8_t *tag, size_t tag_len)
{
    if (key == NULL || iv == NULL || !esp_aad_valid(aad, aad_len) ||
        !rfc4106_tag_len_valid(tag_len))
        return AESGEN_EINVAL;
    uint8_t nonce[12];
    esp_nonce(nonce, key, iv);
    return aesgen_gcm_encrypt(&key->gcm, nonce, sizeof nonce, aad, aad_len, dst, src, len, tag,
                              tag_len);
}

int aesgen_rfc4106_decrypt(const aesgen_gcm_esp_key *key, const uint8_t iv[8],
                           const uint8_t *aad, size_t aad_len, uint8_t *dst, const uint8_t *src,
                           size_t len, const uint8_t *tag, size_t tag_len)
{
    if (key == NULL || iv == NULL || !esp_aad_valid(aad, aad_len) ||
        !rfc4106_tag_len_valid(tag_len))
        return AESGEN_EINVAL;
    uint8_t nonce[12];
    esp_nonce(nonce, key, iv);
    return aesgen_gcm_decrypt(&key->gcm, nonce, sizeof nonce, aad, aad_len, dst, src, len, tag,
                              tag_len);
}

/* GMAC over aad || iv || data (RFC 4543, ESP), up to the final call. */
static int rfc4543_start(aesgen_gcm_ctx *ctx, const aesgen_gcm_esp_key *key,
                         const uint8_t iv[8], const uint8_t *aad, size_t aad_len,
                         const uint8_t *data, size_t len, const uint8_t *tag)
{
    if (key == NULL || iv == NULL || tag == NULL || !esp_aad_valid(aad, aad_len) ||
        (len != 0 && data == NULL))
        return AESGEN_EINVAL;
    uint8_t nonce[12];
    esp_nonce(nonce, key, iv);
    int err = aesgen_gcm_start(ctx, &key->gcm, nonce, sizeof nonce);
    if (err == AESGEN_OK)
        err = aesgen_gcm_aad(ctx, aad, aad_len);
    if (err == AESGEN_OK)
        err = aesgen_gcm_aad(ctx, iv, 8);
    if (err == AESGEN_OK)
        err = aesgen_gcm_aad(ctx, data, len);
    if (err != AESGEN_OK)
        aesgen_wipe(ctx, sizeof *ctx);
    return err;
}

int aesgen_rfc4543_mac(const aesgen_gcm_esp_key *key, const uint8_t iv[8], const uint8_t *aad,
                       size_t aad_len, const uint8_t *data, size_t len, uint8_t tag[16])
{
    aesgen_gcm_ctx ctx;
    const int err = rfc4543_start(&ctx, key, iv, aad, aad_len, data, len, tag);
    return err != AESGEN_OK ? err : aesgen_gcm_encrypt_final(&ctx, tag, 16);
}

int aesgen_rfc4543_verify(const aesgen_gcm_esp_key *key, const uint8_t iv[8],
                          const uint8_t *aad, size_t aad_len, const uint8_t *data, size_t len,
                          const uint8_t tag[16])
{
    aesgen_gcm_ctx ctx;
    const int err = rfc4543_start(&ctx, key, iv, aad, aad_len, data, len, tag);
    return err != AESGEN_OK ? err : aesgen_gcm_decrypt_final(&ctx, tag, 16);
}
