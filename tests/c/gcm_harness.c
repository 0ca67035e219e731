/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* Shared helpers of the GCM test groups: the API both ways, and the references. */
#include "gcm_harness.h"

#ifndef AESGEN_TEST_NO_OPENSSL
#include <openssl/evp.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness.h"
#include "reference.h"

const size_t gcm_tag_lengths[GCM_TAG_LENGTH_COUNT] = { 4, 8, 12, 13, 14, 15, 16 };

const char *gcm_dir_name(enum gcm_dir dir)
{
    return dir == GCM_ENCRYPT ? "encrypt" : "decrypt";
}

/* ---- The API ----------------------------------------------------------------- */

int gcm_api_oneshot(enum gcm_dir dir, const aesgen_gcm_key *key, const uint8_t *iv,
                    size_t iv_len, const uint8_t *aad, size_t aad_len, uint8_t *dst,
                    const uint8_t *src, size_t len, uint8_t *tag, size_t tag_len)
{
    if (dir == GCM_ENCRYPT)
        return aesgen_gcm_encrypt(key, iv, iv_len, aad, aad_len, dst, src, len, tag, tag_len);
    return aesgen_gcm_decrypt(key, iv, iv_len, aad, aad_len, dst, src, len, tag, tag_len);
}

int gcm_api_streamed(enum gcm_dir dir, const aesgen_gcm_key *key, const uint8_t *iv,
                     size_t iv_len, const uint8_t *aad, size_t aad_len,
                     const size_t *aad_chunks, size_t aad_chunk_count, uint8_t *dst,
                     const uint8_t *src, size_t len, const size_t *text_chunks,
                     size_t text_chunk_count, uint8_t *tag, size_t tag_len)
{
    aesgen_gcm_ctx ctx;
    int rc = aesgen_gcm_start(&ctx, key, iv, iv_len);
    if (rc != AESGEN_OK)
        return rc;
    size_t done = 0;
    for (size_t i = 0; i <= aad_chunk_count; i++) {
        size_t n = i < aad_chunk_count ? aad_chunks[i] : aad_len - done;
        if (n > aad_len - done)
            n = aad_len - done;
        if ((rc = aesgen_gcm_aad(&ctx, aad ? aad + done : NULL, n)) != AESGEN_OK)
            return rc;
        done += n;
    }
    done = 0;
    for (size_t i = 0; i <= text_chunk_count; i++) {
        size_t n = i < text_chunk_count ? text_chunks[i] : len - done;
        if (n > len - done)
            n = len - done;
        uint8_t *d = dst ? dst + done : NULL;
        const uint8_t *s = src ? src + done : NULL;
        rc = dir == GCM_ENCRYPT ? aesgen_gcm_encrypt_update(&ctx, d, s, n)
                                : aesgen_gcm_decrypt_update(&ctx, d, s, n);
        if (rc != AESGEN_OK)
            return rc;
        done += n;
    }
    if (dir == GCM_ENCRYPT)
        return aesgen_gcm_encrypt_final(&ctx, tag, tag_len);
    return aesgen_gcm_decrypt_final(&ctx, tag, tag_len);
}

#ifndef AESGEN_TEST_NO_OPENSSL
/* ---- OpenSSL ------------------------------------------------------------------ */

static const EVP_CIPHER *gcm_cipher(size_t key_len)
{
    switch (key_len) {
    case 16: return EVP_aes_128_gcm();
    case 24: return EVP_aes_192_gcm();
    case 32: return EVP_aes_256_gcm();
    }
    return NULL;
}

/* The main thread's context (the threads group computes its answers first). */
static EVP_CIPHER_CTX *gcm_evp_ctx(void)
{
    static EVP_CIPHER_CTX *ctx;
    if (!ctx && !(ctx = EVP_CIPHER_CTX_new()))
        ref_die("EVP_CIPHER_CTX_new (GCM)");
    return ctx;
}

bool gcm_ref_evp(enum gcm_dir dir, const uint8_t *key, size_t key_len, const uint8_t *iv,
                 size_t iv_len, const uint8_t *aad, size_t aad_len, uint8_t *dst,
                 const uint8_t *src, size_t len, uint8_t tag[16], size_t tag_len)
{
    EVP_CIPHER_CTX *ctx = gcm_evp_ctx();
    int enc = dir == GCM_ENCRYPT, out_len = 0;
    if (!gcm_cipher(key_len) || iv_len == 0 || iv_len > GCM_OPENSSL_MAX_IV
        || aad_len > (1u << 30) || len > (1u << 30)
        || EVP_CipherInit_ex(ctx, gcm_cipher(key_len), NULL, NULL, NULL, enc) != 1
        || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, (int)iv_len, NULL) != 1
        || EVP_CipherInit_ex(ctx, NULL, NULL, key, iv, enc) != 1)
        ref_die("EVP_CipherInit_ex (GCM)");
    if (aad_len && EVP_CipherUpdate(ctx, NULL, &out_len, aad, (int)aad_len) != 1)
        ref_die("EVP_CipherUpdate (GCM AAD)");
    if (len && (EVP_CipherUpdate(ctx, dst, &out_len, src, (int)len) != 1
                || out_len != (int)len))
        ref_die("EVP_CipherUpdate (GCM)");
    uint8_t none[16];
    if (enc) {
        if (EVP_CipherFinal_ex(ctx, none, &out_len) != 1 || out_len != 0
            || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag) != 1)
            ref_die("EVP_CipherFinal_ex / GET_TAG (GCM)");
        return true;
    }
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, (int)tag_len, tag) != 1)
        ref_die("EVP_CTRL_GCM_SET_TAG");
    return EVP_CipherFinal_ex(ctx, none, &out_len) == 1;
}

#else
/* ---- Without OpenSSL (reference.c's own AES): the own GCM stands in --------------- */

bool gcm_ref_evp(enum gcm_dir dir, const uint8_t *key, size_t key_len, const uint8_t *iv,
                 size_t iv_len, const uint8_t *aad, size_t aad_len, uint8_t *dst,
                 const uint8_t *src, size_t len, uint8_t tag[16], size_t tag_len)
{
    if (iv_len == 0 || iv_len > GCM_OPENSSL_MAX_IV)
        ref_die("gcm_ref_evp: IV length");
    if (dir == GCM_ENCRYPT) {
        gcm_ref_own_encrypt(key, key_len, iv, iv_len, aad, aad_len, dst, src, len, tag);
        return true;
    }
    /* CTR is its own inverse; the tag is the one of encrypting the plaintext back. */
    uint8_t want[16], *back = malloc(len ? len : 1);
    if (!back)
        ref_die("malloc");
    gcm_ref_own_encrypt(key, key_len, iv, iv_len, NULL, 0, dst, src, len, want);
    gcm_ref_own_encrypt(key, key_len, iv, iv_len, aad, aad_len, back, dst, len, want);
    free(back);
    return memcmp(want, tag, tag_len) == 0;
}

#endif
/* ---- GF(2^128), SP 800-38D ----------------------------------------------------- */

static uint64_t load_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static void store_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

/* Algorithm 1: bit i of x (bit 0 = the most significant bit of byte 0) selects
 * V = y * x^i; V * x is a right shift of the bit string, folding with R = 0xe1 || 0^120. */
void gf128_mul(const uint8_t x[16], const uint8_t y[16], uint8_t out[16])
{
    uint64_t z_hi = 0, z_lo = 0, v_hi = load_be64(y), v_lo = load_be64(y + 8);
    for (int i = 0; i < 128; i++) {
        if (x[i / 8] >> (7 - i % 8) & 1) {
            z_hi ^= v_hi;
            z_lo ^= v_lo;
        }
        uint64_t lsb = v_lo & 1;
        v_lo = v_lo >> 1 | v_hi << 63;
        v_hi >>= 1;
        if (lsb)
            v_hi ^= 0xe1ull << 56;
    }
    store_be64(out, z_hi);
    store_be64(out + 8, z_lo);
}

void gcm_ref_hash_key(const uint8_t *key, size_t key_len, uint8_t h[16])
{
    static const uint8_t zero[16];
    ref_ecb_encrypt(key, key_len, h, zero, 16);
}

void gcm_ref_ghash(const uint8_t h[16], uint8_t y[16], const uint8_t *data, size_t len)
{
    for (size_t off = 0; off + 16 <= len; off += 16) {
        uint8_t t[16];
        for (int i = 0; i < 16; i++)
            t[i] = y[i] ^ data[off + i];
        gf128_mul(t, h, y);
    }
}

/* GHASH over data zero-padded to a whole block. */
static void ghash_padded(const uint8_t h[16], uint8_t y[16], const uint8_t *data, size_t len)
{
    size_t whole = len & ~(size_t)15;
    gcm_ref_ghash(h, y, data, whole);
    if (len > whole) {
        uint8_t block[16] = { 0 };
        memcpy(block, data + whole, len - whole);
        gcm_ref_ghash(h, y, block, 16);
    }
}

static void lengths_block(uint64_t a_bytes, uint64_t c_bytes, uint8_t block[16])
{
    store_be64(block, a_bytes * 8);
    store_be64(block + 8, c_bytes * 8);
}

void gcm_ref_j0(const uint8_t h[16], const uint8_t *iv, size_t iv_len, uint8_t j0[16])
{
    if (iv_len == 12) {
        memcpy(j0, iv, 12);
        j0[12] = j0[13] = j0[14] = 0;
        j0[15] = 1;
        return;
    }
    uint8_t lengths[16];
    memset(j0, 0, 16);
    ghash_padded(h, j0, iv, iv_len);
    lengths_block(0, iv_len, lengths);
    gcm_ref_ghash(h, j0, lengths, 16);
}

static void inc32(uint8_t block[16])
{
    for (int i = 15; i >= 12 && ++block[i] == 0; i--)
        ;
}

void gcm_ref_ctr32(const uint8_t *key, size_t key_len, const uint8_t ctr[16], uint8_t *dst,
                   const uint8_t *src, size_t len)
{
    size_t blocks = (len + 15) / 16;
    uint8_t *stream = xmalloc(blocks * 16 + 16), counter[16];
    memcpy(counter, ctr, 16);
    for (size_t j = 0; j < blocks; j++) {
        memcpy(stream + 16 * j, counter, 16);
        inc32(counter);
    }
    ref_xor_keystream(key, key_len, stream, dst, src, len);
    free(stream);
}

void gcm_ref_own_encrypt(const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
                         const uint8_t *aad, size_t aad_len, uint8_t *dst, const uint8_t *src,
                         size_t len, uint8_t tag[16])
{
    uint8_t h[16], j0[16], ctr[16], s[16] = { 0 }, lengths[16], mask[16];
    gcm_ref_hash_key(key, key_len, h);
    gcm_ref_j0(h, iv, iv_len, j0);
    memcpy(ctr, j0, 16);
    inc32(ctr);
    gcm_ref_ctr32(key, key_len, ctr, dst, src, len);
    ghash_padded(h, s, aad, aad_len);
    ghash_padded(h, s, dst, len);
    lengths_block(aad_len, len, lengths);
    gcm_ref_ghash(h, s, lengths, 16);
    ref_ecb_encrypt(key, key_len, mask, j0, 16);
    for (int i = 0; i < 16; i++)
        tag[i] = s[i] ^ mask[i];
}

void gcm_ref_encrypt(const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
                     const uint8_t *aad, size_t aad_len, uint8_t *dst, const uint8_t *src,
                     size_t len, uint8_t tag[16])
{
    if (iv_len >= 1 && iv_len <= GCM_OPENSSL_MAX_IV)
        gcm_ref_evp(GCM_ENCRYPT, key, key_len, iv, iv_len, aad, aad_len, dst, src, len, tag, 16);
    else
        gcm_ref_own_encrypt(key, key_len, iv, iv_len, aad, aad_len, dst, src, len, tag);
}

/* a^(2^128 - 2) = a^-1 (a != 0): square and multiply over the exponent's bits,
 * 127 ones and then a zero. */
static void gf128_inverse(const uint8_t a[16], uint8_t out[16])
{
    uint8_t r[16] = { 0x80 };    /* the polynomial 1 */
    for (int bit = 127; bit >= 0; bit--) {
        uint8_t sq[16];
        gf128_mul(r, r, sq);
        if (bit > 0)
            gf128_mul(sq, a, r);
        else
            memcpy(r, sq, 16);
    }
    memcpy(out, r, 16);
}

/* J0 = GHASH_H(IV || [0]_64 || [128]_64) = IV*H^2 + L*H, so IV = (J0 + L*H) * H^-2. */
void gcm_iv_for_j0(const uint8_t h[16], const uint8_t j0[16], uint8_t iv[16])
{
    uint8_t lengths[16], lh[16], h2[16], h2_inv[16], t[16];
    lengths_block(0, 16, lengths);
    gf128_mul(lengths, h, lh);
    gf128_mul(h, h, h2);
    gf128_inverse(h2, h2_inv);
    for (int i = 0; i < 16; i++)
        t[i] = j0[i] ^ lh[i];
    gf128_mul(t, h2_inv, iv);
}

void gcm_reflect(const uint8_t in[16], uint8_t out[16])
{
    uint8_t t[16];
    for (int i = 0; i < 16; i++)
        t[i] = in[15 - i];
    memcpy(out, t, 16);
}

/* x^-1 = x^127 + x^6 + x + 1 (x * x^-1 = x^128 + x^7 + x^2 + x = 1); in GCM bit
 * order that is 0xc2 in byte 0 and 0x01 in byte 15. */
void gcm_reflected_div_x(const uint8_t in[16], uint8_t out[16])
{
    static const uint8_t x_inverse[16] = { 0xc2, 0, 0, 0, 0, 0, 0, 0,
                                           0, 0, 0, 0, 0, 0, 0, 0x01 };
    uint8_t a[16], p[16];
    gcm_reflect(in, a);
    gf128_mul(a, x_inverse, p);
    gcm_reflect(p, out);
}

/* ---- Misc -------------------------------------------------------------------- */

size_t gcm_random_chunks(size_t *chunks, size_t cap, size_t len)
{
    size_t n = 0, sum = 0;
    while (n < cap && sum < len) {
        uint64_t r = rng_below(100);
        size_t c = r < 6 ? 0 : r < 50 ? (size_t)rng_below(18) : r < 80 ? (size_t)rng_below(100)
                                                                        : (size_t)rng_below(1100);
        chunks[n++] = c;
        sum += c;
    }
    return n;
}

bool gcm_make_key(aesgen_gcm_key *key, uint8_t *raw, size_t key_len, const char *isa)
{
    rng_fill(raw, key_len);
    return check_int(aesgen_gcm_init(key, raw, key_len), AESGEN_OK, "%s gcm init key_len %zu",
                     isa, key_len);
}
