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

/* The oracle failing is a broken test environment, not a failed check. */
static void die(const char *what)
{
    fprintf(stderr, "reference (OpenSSL) failed: %s\n", what);
    exit(3);
}

static EVP_CIPHER_CTX *shared_evp_ctx(void)
{
    static EVP_CIPHER_CTX *ctx;
    if (!ctx && !(ctx = EVP_CIPHER_CTX_new()))
        die("EVP_CIPHER_CTX_new");
    return ctx;
}

/* EVP takes int lengths; the tests stay far below 2^31 but feed in chunks anyway. */
static void evp_run(const EVP_CIPHER *cipher, const uint8_t *key, const uint8_t *iv,
                    uint8_t *dst, const uint8_t *src, size_t len)
{
    EVP_CIPHER_CTX *ctx = shared_evp_ctx();
    if (!cipher || EVP_EncryptInit_ex(ctx, cipher, NULL, key, iv) != 1)
        die("EVP_EncryptInit_ex");
    EVP_CIPHER_CTX_set_padding(ctx, 0);
    while (len) {
        int chunk = len > (1u << 30) ? 1 << 30 : (int)len, out_len = 0;
        if (EVP_EncryptUpdate(ctx, dst, &out_len, src, chunk) != 1 || out_len != chunk)
            die("EVP_EncryptUpdate");
        dst += chunk;
        src += chunk;
        len -= (size_t)chunk;
    }
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
        die("malloc");
    for (size_t j = 0; j < blocks; j++)
        le128_xor_index(stream + 16 * j, iv, first_index, j);
    evp_run(ecb_cipher(key_len), key, NULL, stream, stream, blocks * 16);
    for (size_t i = 0; i < len; i++)
        dst[i] = src[i] ^ stream[i];
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
