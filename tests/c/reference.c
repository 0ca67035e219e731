/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * The OpenSSL oracle and an independent AES key schedule.
 *
 * Built with AESGEN_TEST_NO_OPENSSL (the Windows test under wine: there is no OpenSSL
 * for mingw), the oracle is the tests' own AES instead: the FIPS-197 cipher and inverse
 * cipher from their definitions, on the key schedule below; CTR and OpenSSL's XTS are
 * then built from it (ref_ctr from counter blocks, ref_xts_evp is ref_xts_ecb).
 */
#include "reference.h"

#ifndef AESGEN_TEST_NO_OPENSSL
#include <openssl/evp.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef AESGEN_TEST_NO_OPENSSL
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

#endif

void ref_die(const char *what)
{
    fprintf(stderr, "reference (%s) failed: %s\n", REFERENCE_NAME, what);
    exit(3);
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
#ifndef AESGEN_TEST_NO_OPENSSL
    evp_run(ctr_cipher(key_len), key, iv, dst, src, len);
#else
    size_t blocks = (len + 15) / 16;
    uint8_t *stream = calloc(blocks + 1, 16);
    if (!stream)
        ref_die("calloc");
    for (size_t j = 0; j < blocks; j++) {
        memcpy(stream + 16 * j, iv, 16);
        ref_counter_add(stream + 16 * j, j);
    }
    ref_xor_keystream(key, key_len, stream, dst, src, len);
    free(stream);
#endif
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
    uint8_t *stream = calloc(blocks + 1, 16);
    if (!stream)
        ref_die("calloc");
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

static const uint8_t *sbox_table(void)
{
    static uint8_t sb[256];
    static int sbox_ready;
    if (!sbox_ready) {
        for (int i = 0; i < 256; i++)
            sb[i] = sbox((uint8_t)i);
        sbox_ready = 1;
    }
    return sb;
}

void ref_key_rows(aesgen_aes_key *k)
{
    for (int i = 0; i < 15; i++)
        for (int lane = 0; lane < 4; lane++)
            memcpy(k->rk_rows[i] + 16 * lane, k->rk[i], 16);
}

void ref_expand_key(const uint8_t *key, size_t key_len, aesgen_aes_key *out)
{
    const uint8_t *sb = sbox_table();
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
    ref_key_rows(out);
}

#ifdef AESGEN_TEST_NO_OPENSSL
/* ---- The tests' own AES (FIPS-197 sections 5.1 and 5.3) ------------------- */

/* state[r + 4c]: row r of column c, the byte order of blocks and round keys. */
static void add_round_key(uint8_t state[16], const uint8_t rk[16])
{
    for (int i = 0; i < 16; i++)
        state[i] ^= rk[i];
}

static uint8_t xtime(uint8_t a)
{
    return (uint8_t)(a << 1 ^ (a & 0x80 ? 0x1b : 0));
}

static void own_aes_block(int encrypt, const aesgen_aes_key *k, const uint8_t in[16],
                          uint8_t out[16])
{
    static uint8_t inv_sb[256];
    static int inv_ready;
    const uint8_t *sb = sbox_table();
    if (!inv_ready) {
        for (int i = 0; i < 256; i++)
            inv_sb[sb[i]] = (uint8_t)i;
        inv_ready = 1;
    }
    uint8_t s[16], t[16];
    int rounds = (int)k->rounds;
    memcpy(s, in, 16);
    if (encrypt) {
        add_round_key(s, k->rk[0]);
        for (int round = 1; round <= rounds; round++) {
            for (int i = 0; i < 16; i++)            /* SubBytes, ShiftRows */
                t[i] = sb[s[(i % 4) + 4 * ((i / 4 + i % 4) % 4)]];
            if (round < rounds) {
                for (int c = 0; c < 4; c++) {       /* MixColumns: 2a_i ^ 3a_i+1 ^ ... */
                    const uint8_t *a = t + 4 * c;
                    for (int r = 0; r < 4; r++) {
                        uint8_t a1 = a[(r + 1) % 4];
                        s[4 * c + r] = xtime(a[r]) ^ xtime(a1) ^ a1 ^ a[(r + 2) % 4]
                                       ^ a[(r + 3) % 4];
                    }
                }
            } else {
                memcpy(s, t, 16);
            }
            add_round_key(s, k->rk[round]);
        }
    } else {
        add_round_key(s, k->rk[rounds]);
        for (int round = rounds - 1; round >= 0; round--) {
            for (int i = 0; i < 16; i++)            /* InvShiftRows, InvSubBytes */
                t[(i % 4) + 4 * ((i / 4 + i % 4) % 4)] = inv_sb[s[i]];
            add_round_key(t, k->rk[round]);
            if (round > 0)
                ref_inv_mix_columns(t, s);
            else
                memcpy(s, t, 16);
        }
    }
    memcpy(out, s, 16);
}

void ref_ecb_encrypt(const uint8_t *key, size_t key_len, uint8_t *dst, const uint8_t *src,
                     size_t len)
{
    aesgen_aes_key k;
    if (key_len != 16 && key_len != 24 && key_len != 32)
        ref_die("ref_ecb_encrypt: bad key size");
    ref_expand_key(key, key_len, &k);
    for (size_t i = 0; i + 16 <= len; i += 16)
        own_aes_block(1, &k, src + i, dst + i);
}
#endif

/* ---- XTS ------------------------------------------------------------------ */

#ifndef AESGEN_TEST_NO_OPENSSL
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

/* K1's ECB cipher in one direction, keyed once per XTS call. */
typedef EVP_CIPHER_CTX *block_cipher;

static block_cipher block_cipher_init(int encrypt, const uint8_t *key, size_t key_len)
{
    static EVP_CIPHER_CTX *data_ctx;
    if (!data_ctx && !(data_ctx = EVP_CIPHER_CTX_new()))
        ref_die("EVP_CIPHER_CTX_new");
    if (EVP_CipherInit_ex(data_ctx, ecb_cipher(key_len), NULL, key, NULL, encrypt ? 1 : 0) != 1)
        ref_die("EVP_CipherInit_ex (ECB)");
    EVP_CIPHER_CTX_set_padding(data_ctx, 0);
    return data_ctx;
}

static void block_cipher_run(block_cipher c, uint8_t x[16])
{
    int out_len = 0;
    if (EVP_CipherUpdate(c, x, &out_len, x, 16) != 1 || out_len != 16)
        ref_die("EVP_CipherUpdate (ECB block of XTS)");
}
#else
void ref_xts_evp(int encrypt, const uint8_t *key, size_t key_len, const uint8_t tweak[16],
                 uint8_t *dst, const uint8_t *src, size_t len)
{
    ref_xts_ecb(encrypt, key, key_len, tweak, dst, src, len);
}

typedef struct { int encrypt; aesgen_aes_key key; } *block_cipher;

static block_cipher block_cipher_init(int encrypt, const uint8_t *key, size_t key_len)
{
    static struct { int encrypt; aesgen_aes_key key; } keyed;
    keyed.encrypt = encrypt;
    ref_expand_key(key, key_len, &keyed.key);
    return (block_cipher)&keyed;
}

static void block_cipher_run(block_cipher c, uint8_t x[16])
{
    own_aes_block(c->encrypt, &c->key, x, x);
}
#endif

static int xts_key_half_ok(size_t half)
{
    return half == 16 || half == 24 || half == 32;
}

/* T * x in GF(2^128), little-endian bytes, reduction 0x87 (IEEE 1619 5.2). */
static void xts_mul_x(uint8_t t[16])
{
    uint8_t carry = t[15] >> 7;
    for (int i = 15; i > 0; i--)
        t[i] = (uint8_t)(t[i] << 1 | t[i - 1] >> 7);
    t[0] = (uint8_t)(t[0] << 1) ^ (carry ? 0x87 : 0);
}

/* One block: out = AES_K1(in XOR t) XOR t, with the keyed ECB cipher c. */
static void xts_block(block_cipher c, const uint8_t t[16], const uint8_t in[16],
                      uint8_t out[16])
{
    uint8_t x[16];
    for (int i = 0; i < 16; i++)
        x[i] = in[i] ^ t[i];
    block_cipher_run(c, x);
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
    size_t half = key_len / 2, full = len / 16, tail = len % 16;
    if (len < 16 || !xts_key_half_ok(half))
        ref_die("ref_xts_ecb: bad length or key size");
    uint8_t t[16];
    ref_ecb_encrypt(key + half, half, t, tweak, 16);                /* T = AES_K2(tweak) */
    block_cipher data_ctx = block_cipher_init(encrypt, key, half);

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
    if ((key_len == 32 || key_len == 64) && memcmp(key, key + half, half) != 0)
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
    ref_key_rows(dec);
}
