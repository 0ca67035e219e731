/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* The OpenSSL oracle and an independent AES key schedule. */
#include "reference.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const EVP_CIPHER *ctr_cipher(size_t key_len)
{
    switch (key_len) {
    case 16: return EVP_aes_128_ctr();
    case 24: return EVP_aes_192_ctr();
    case 32: return EVP_aes_256_ctr();
    }
    return NULL;
}

static const EVP_CIPHER *ecb_cipher(size_t key_len)
{
    switch (key_len) {
    case 16: return EVP_aes_128_ecb();
    case 24: return EVP_aes_192_ecb();
    case 32: return EVP_aes_256_ecb();
    }
    return NULL;
}

void ref_die(const char *what)
{
    fprintf(stderr, "reference (OpenSSL) failed: %s\n", what);
    exit(3);
}

static EVP_CIPHER_CTX *shared_evp_ctx(void)
{
    static EVP_CIPHER_CTX *ctx;
    if (!ctx && !(ctx = EVP_CIPHER_CTX_new()))
        ref_die("EVP_CIPHER_CTX_new");
    return ctx;
}

/* EVP takes int lengths; the tests stay far below 2^31 but feed in chunks anyway. */
static void evp_run(const EVP_CIPHER *cipher, const uint8_t *key, const uint8_t *iv,
                    uint8_t *dst, const uint8_t *src, size_t len)
{
    EVP_CIPHER_CTX *ctx = shared_evp_ctx();
    if (!cipher || EVP_EncryptInit_ex(ctx, cipher, NULL, key, iv) != 1)
        ref_die("EVP_EncryptInit_ex");
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    while (len) {
        int chunk = len > (1u << 30) ? 1 << 30 : (int)len, out_len = 0;
        if (EVP_EncryptUpdate(ctx, dst, &out_len, src, chunk) != 1 || out_len != chunk)
            ref_die("EVP_EncryptUpdate");
        dst += chunk;
        src += chunk;
        len -= (size_t)chunk;
    }
}

void ref_ecb_encrypt(const uint8_t *key, size_t key_len, uint8_t *dst, const uint8_t *src,
                     size_t len)
{
    evp_run(ecb_cipher(key_len), key, NULL, dst, src, len);
}

void ref_xor_keystream(const uint8_t *key, size_t key_len, uint8_t *counter_blocks, uint8_t *dst,
                       const uint8_t *src, size_t len)
{
    size_t whole = (len + 15) & ~(size_t)15;
    ref_ecb_encrypt(key, key_len, counter_blocks, counter_blocks, whole);
    for (size_t i = 0; i < len; i++)
        dst[i] = src[i] ^ counter_blocks[i];
}

void ref_ctr(const uint8_t *key, size_t key_len, const uint8_t iv[16],
             uint8_t *dst, const uint8_t *src, size_t len)
{
    evp_run(ctr_cipher(key_len), key, iv, dst, src, len);
}

static void le128_xor_index(uint8_t block[16], const uint8_t iv[16], uint64_t first, uint64_t j)
{
    /* LE128(first + j) as a 128-bit sum: the carry goes into byte 8. */
    uint64_t low = first + j;
    uint64_t high = low < first ? 1 : 0;
    for (int b = 0; b < 8; b++) {
        block[b] = iv[b] ^ (uint8_t)(low >> (8 * b));
        block[8 + b] = iv[8 + b] ^ (uint8_t)(high >> (8 * b));
    }
}

void ref_xctr(const uint8_t *key, size_t key_len, const uint8_t iv[16], uint64_t first_index,
              uint8_t *dst, const uint8_t *src, size_t len)
{
    size_t blocks = (len + 15) / 16;
    uint8_t *stream = malloc(blocks * 16 + 16);
    if (!stream)
        ref_die("malloc");
    for (size_t j = 0; j < blocks; j++)
        le128_xor_index(stream + 16 * j, iv, first_index, j);
    ref_xor_keystream(key, key_len, stream, dst, src, len);
    free(stream);
}

void ref_counter_block(const uint64_t ctr[2], uint8_t block[16])
{
    for (int b = 0; b < 8; b++) {
        block[b] = (uint8_t)(ctr[1] >> (56 - 8 * b));
        block[8 + b] = (uint8_t)(ctr[0] >> (56 - 8 * b));
    }
}

void ref_counter_add(uint8_t block[16], uint64_t n)
{
    unsigned carry = 0;
    for (int b = 15; b >= 0; b--) {
        unsigned sum = block[b] + (unsigned)(n & 0xff) + carry;
        block[b] = (uint8_t)sum;
        carry = sum >> 8;
        n >>= 8;
    }
}

/* ---- FIPS-197 key expansion ---------------------------------------------- */

static uint8_t gf_mul(uint8_t a, uint8_t b)
{
    uint8_t product = 0;
    while (b) {
        if (b & 1)
            product ^= a;
        a = (uint8_t)(a << 1 ^ (a & 0x80 ? 0x1b : 0));
        b >>= 1;
    }
    return product;
}

/* The S-box computed from its definition (inverse in GF(2^8), then the affine
 * map), so no table is copied from anywhere. */
static uint8_t sbox(uint8_t x)
{
    uint8_t inv = 0;
    for (unsigned c = 1; c < 256 && x; c++) {
        if (gf_mul(x, (uint8_t)c) == 1) {
            inv = (uint8_t)c;
            break;
        }
    }
    uint8_t s = inv;
    for (int r = 1; r <= 4; r++)
        s ^= (uint8_t)(inv << r | inv >> (8 - r));
    return s ^ 0x63;
}

void ref_expand_key(const uint8_t *key, size_t key_len, aesgen_aes_key *out)
{
    static uint8_t sb[256];
    static int sbox_ready;
    if (!sbox_ready) {
        for (int i = 0; i < 256; i++)
            sb[i] = sbox((uint8_t)i);
        sbox_ready = 1;
    }
    size_t nk = key_len / 4, rounds = nk + 6, total_words = 4 * (rounds + 1);
    uint8_t w[60][4];
    uint8_t rcon = 1;
    memcpy(w, key, key_len);
    for (size_t i = nk; i < total_words; i++) {
        uint8_t t[4];
        memcpy(t, w[i - 1], 4);
        if (i % nk == 0) {
            uint8_t first = t[0];
            t[0] = sb[t[1]] ^ rcon;
            t[1] = sb[t[2]];
            t[2] = sb[t[3]];
            t[3] = sb[first];
            rcon = gf_mul(rcon, 2);
        } else if (nk > 6 && i % nk == 4) {
            for (int b = 0; b < 4; b++)
                t[b] = sb[t[b]];
        }
        for (int b = 0; b < 4; b++)
            w[i][b] = w[i - nk][b] ^ t[b];
    }
    memset(out, 0, sizeof *out);
    memcpy(out->rk, w, total_words * 4);
    out->rounds = (uint32_t)rounds;
}

/* ---- XTS ------------------------------------------------------------------ */

static const EVP_CIPHER *xts_cipher(size_t key_len)
{
    switch (key_len) {
    case 32: return EVP_aes_128_xts();
    case 64: return EVP_aes_256_xts();
    }
    return NULL;
}

/* OpenSSL's XTS: one EVP_CipherUpdate is one whole data unit. */
void ref_xts_evp(int encrypt, const uint8_t *key, size_t key_len, const uint8_t tweak[16],
                 uint8_t *dst, const uint8_t *src, size_t len)
{
    EVP_CIPHER_CTX *ctx = shared_evp_ctx();
    const EVP_CIPHER *cipher = xts_cipher(key_len);
    int out_len = 0;
    if (!cipher || len > (1u << 24)
        || EVP_CipherInit_ex(ctx, cipher, NULL, key, tweak, encrypt ? 1 : 0) != 1)
        ref_die("EVP_CipherInit_ex (XTS; equal key halves are refused)");
    if (EVP_CipherUpdate(ctx, dst, &out_len, src, (int)len) != 1 || out_len != (int)len)
        ref_die("EVP_CipherUpdate (XTS)");
}

/* T * x in GF(2^128), little-endian bytes, reduction 0x87 (IEEE 1619 5.2). */
static void xts_mul_x(uint8_t t[16])
{
    uint8_t carry = t[15] >> 7;
    for (int i = 15; i > 0; i--)
        t[i] = (uint8_t)(t[i] << 1 | t[i - 1] >> 7);
    t[0] = (uint8_t)(t[0] << 1) ^ (carry ? 0x87 : 0);
}

/* One block: out = AES_K1(in XOR t) XOR t, with the keyed ECB context c. */
static void xts_block(EVP_CIPHER_CTX *c, const uint8_t t[16], const uint8_t in[16],
                      uint8_t out[16])
{
    uint8_t x[16];
    int out_len = 0;
    for (int i = 0; i < 16; i++)
        x[i] = in[i] ^ t[i];
    if (EVP_CipherUpdate(c, x, &out_len, x, 16) != 1 || out_len != 16)
        ref_die("EVP_CipherUpdate (ECB block of XTS)");
    for (int i = 0; i < 16; i++)
        out[i] = x[i] ^ t[i];
}

/*
 * IEEE 1619 section 5.3 with ciphertext stealing: m full blocks and r tail bytes.
 * Encrypt: block m-1 with tweak m-1 gives CC; the tail of the output is CC's first
 * r bytes; (tail of the input || rest of CC) with tweak m becomes block m-1.
 * Decrypt swaps the two tweaks.  Safe in place: the tail is copied first.
 */
void ref_xts_ecb(int encrypt, const uint8_t *key, size_t key_len, const uint8_t tweak[16],
                 uint8_t *dst, const uint8_t *src, size_t len)
{
    static EVP_CIPHER_CTX *data_ctx;
    size_t half = key_len / 2, full = len / 16, tail = len % 16;
    if (len < 16 || !ecb_cipher(half))
        ref_die("ref_xts_ecb: bad length or key size");
    if (!data_ctx && !(data_ctx = EVP_CIPHER_CTX_new()))
        ref_die("EVP_CIPHER_CTX_new");
    uint8_t t[16];
    evp_run(ecb_cipher(half), key + half, NULL, t, tweak, 16);      /* T = AES_K2(tweak) */
    if (EVP_CipherInit_ex(data_ctx, ecb_cipher(half), NULL, key, NULL, encrypt ? 1 : 0) != 1)
        ref_die("EVP_CipherInit_ex (ECB)");
    EVP_CIPHER_CTX_set_padding(data_ctx, 0);

    size_t plain_blocks = tail ? full - 1 : full;
    for (size_t j = 0; j < plain_blocks; j++) {
        xts_block(data_ctx, t, src + 16 * j, dst + 16 * j);
        xts_mul_x(t);
    }
    if (!tail)
        return;
    uint8_t t_next[16], in_tail[16], last_full[16], stolen[16], mixed[16];
    memcpy(t_next, t, 16);
    xts_mul_x(t_next);
    memcpy(in_tail, src + 16 * full, tail);
    memcpy(last_full, src + 16 * (full - 1), 16);
    xts_block(data_ctx, encrypt ? t : t_next, last_full, stolen);
    memcpy(mixed, in_tail, tail);
    memcpy(mixed + tail, stolen + tail, 16 - tail);
    memcpy(dst + 16 * full, stolen, tail);
    xts_block(data_ctx, encrypt ? t_next : t, mixed, dst + 16 * (full - 1));
}

void ref_xts(int encrypt, const uint8_t *key, size_t key_len, const uint8_t tweak[16],
             uint8_t *dst, const uint8_t *src, size_t len)
{
    size_t half = key_len / 2;
    if (xts_cipher(key_len) && memcmp(key, key + half, half) != 0)
        ref_xts_evp(encrypt, key, key_len, tweak, dst, src, len);
    else
        ref_xts_ecb(encrypt, key, key_len, tweak, dst, src, len);
}

void ref_inv_mix_columns(const uint8_t in[16], uint8_t out[16])
{
    for (int c = 0; c < 4; c++) {
        const uint8_t *a = in + 4 * c;
        uint8_t *b = out + 4 * c;
        b[0] = gf_mul(a[0], 14) ^ gf_mul(a[1], 11) ^ gf_mul(a[2], 13) ^ gf_mul(a[3], 9);
        b[1] = gf_mul(a[0], 9) ^ gf_mul(a[1], 14) ^ gf_mul(a[2], 11) ^ gf_mul(a[3], 13);
        b[2] = gf_mul(a[0], 13) ^ gf_mul(a[1], 9) ^ gf_mul(a[2], 14) ^ gf_mul(a[3], 11);
        b[3] = gf_mul(a[0], 11) ^ gf_mul(a[1], 13) ^ gf_mul(a[2], 9) ^ gf_mul(a[3], 14);
    }
}

void ref_expand_dec_key(const aesgen_aes_key *enc, aesgen_aes_key *dec)
{
    uint32_t rounds = enc->rounds;
    memset(dec, 0, sizeof *dec);
    dec->rounds = rounds;
    memcpy(dec->rk[0], enc->rk[rounds], 16);
    for (uint32_t i = 1; i < rounds; i++)
        ref_inv_mix_columns(enc->rk[rounds - i], dec->rk[i]);
    memcpy(dec->rk[rounds], enc->rk[0], 16);
}
