/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Differential check of one set of generated CTR/XCTR/XTS/GCM objects against OpenSSL, without
 * the runtime: used by tests/python/test_gen_files.py to prove that non-default knob
 * variants (UNROLL, TAIL, KEYS) are correct, not just that they assemble.
 *
 * Links against the eight generated objects of one variant.  Prints one line per
 * (isa, mode, key size) and exits non-zero on any mismatch or any write outside dst.
 */
#include <immintrin.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    _Alignas(16) uint8_t rk[15][16];
    uint32_t rounds;
} aes_key;

typedef void ctr_fn(const aes_key *, uint8_t *, const uint8_t *, size_t, uint64_t, uint64_t);
typedef void xctr_fn(const aes_key *, uint8_t *, const uint8_t *, size_t, const uint8_t *,
                     uint64_t);
typedef int xts_fn(const aes_key *, const aes_key *, uint8_t *, const uint8_t *, size_t,
                   const uint8_t *);
/* The GCM key as the assembly reads it: round keys, then H^32..H^1 at offset 256. */
typedef struct {
    aes_key aes;
    _Alignas(64) uint8_t h_powers[32][16];
    uint8_t h_pad[48];
} gcm_key;
typedef int ghash_fn(const gcm_key *, uint8_t *, const uint8_t *, size_t);
typedef int gcm_update_fn(const gcm_key *, uint8_t *, const uint8_t *, size_t, const uint8_t *,
                          uint8_t *);
#define DECLARE(isa) ctr_fn aesgen_ctr_crypt_##isa; xctr_fn aesgen_xctr_crypt_##isa; \
                     xts_fn aesgen_xts_encrypt_##isa, aesgen_xts_decrypt_##isa; \
                     ghash_fn aesgen_gcm_ghash_##isa; \
                     gcm_update_fn aesgen_gcm_enc_update_##isa, aesgen_gcm_dec_update_##isa;
DECLARE(aesni_avx) DECLARE(vaes_avx2) DECLARE(avx10_256) DECLARE(avx10_512)

static int has_avx(void) { return __builtin_cpu_supports("avx") && __builtin_cpu_supports("aes"); }
static int has_vaes(void) { return has_avx() && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("vaes"); }
static int has_avx512(void)
{
    return has_vaes() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
}

static const struct {
    const char *name;
    ctr_fn *ctr;
    xctr_fn *xctr;
    xts_fn *xts_encrypt, *xts_decrypt;
    ghash_fn *ghash;
    gcm_update_fn *gcm_enc, *gcm_dec;
    int (*supported)(void);
} isas[] = {
#define ISA(name, supported) { #name, aesgen_ctr_crypt_##name, aesgen_xctr_crypt_##name, \
                               aesgen_xts_encrypt_##name, aesgen_xts_decrypt_##name, \
                               aesgen_gcm_ghash_##name, aesgen_gcm_enc_update_##name, \
                               aesgen_gcm_dec_update_##name, supported }
    ISA(aesni_avx, has_avx),
    ISA(vaes_avx2, has_vaes),
    ISA(avx10_256, has_avx512),
    ISA(avx10_512, has_avx512),
};

/* Round keys from OpenSSL's own view of the cipher are not exposed, so expand here with
 * the FIPS-197 algorithm (the S-box computed from its definition). */
static uint8_t sbox[256];

static uint8_t gf_mul(uint8_t a, uint8_t b)
{
    uint8_t r = 0;
    for (; b; b >>= 1, a = (uint8_t)((a << 1) ^ ((a & 0x80) ? 0x1b : 0)))
        if (b & 1) r ^= a;
    return r;
}

static void make_sbox(void)
{
    for (int x = 0; x < 256; x++) {
        uint8_t inv = 0;
        for (int y = 1; x && y < 256; y++)
            if (gf_mul((uint8_t)x, (uint8_t)y) == 1) { inv = (uint8_t)y; break; }
        uint8_t s = inv ^ 0x63;
        for (int i = 1; i < 5; i++) s ^= (uint8_t)((inv << i) | (inv >> (8 - i)));
        sbox[x] = s;
    }
}

static void expand_key(aes_key *k, const uint8_t *key, int key_len)
{
    int nk = key_len / 4, nr = nk + 6;
    uint8_t w[240], rcon = 1;
    memcpy(w, key, (size_t)key_len);
    for (int i = nk; i < 4 * (nr + 1); i++) {
        uint8_t t[4];
        memcpy(t, w + 4 * (i - 1), 4);
        if (i % nk == 0) {
            uint8_t first = t[0];
            t[0] = sbox[t[1]] ^ rcon; t[1] = sbox[t[2]]; t[2] = sbox[t[3]]; t[3] = sbox[first];
            rcon = gf_mul(rcon, 2);
        } else if (nk > 6 && i % nk == 4) {
            for (int j = 0; j < 4; j++) t[j] = sbox[t[j]];
        }
        for (int j = 0; j < 4; j++) w[4 * i + j] = w[4 * (i - nk) + j] ^ t[j];
    }
    memcpy(k->rk, w, (size_t)16 * (nr + 1));
    k->rounds = (uint32_t)nr;
}

/* The equivalent inverse cipher schedule AESDEC uses. */
__attribute__((target("aes"))) static void decryption_key(aes_key *dec, const aes_key *enc)
{
    int nr = (int)enc->rounds;
    dec->rounds = enc->rounds;
    memcpy(dec->rk[0], enc->rk[nr], 16);
    memcpy(dec->rk[nr], enc->rk[0], 16);
    for (int i = 1; i < nr; i++)
        _mm_storeu_si128((__m128i *)dec->rk[i],
                         _mm_aesimc_si128(_mm_loadu_si128((const __m128i *)enc->rk[nr - i])));
}

static void ecb_encrypt(const uint8_t *key, int key_len, const uint8_t *in, uint8_t *out, int n)
{
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    const EVP_CIPHER *cipher = key_len == 16 ? EVP_aes_128_ecb()
                             : key_len == 24 ? EVP_aes_192_ecb() : EVP_aes_256_ecb();
    int written;
    EVP_EncryptInit_ex(c, cipher, NULL, key, NULL);
    EVP_CIPHER_CTX_set_padding(c, 0);
    EVP_EncryptUpdate(c, out, &written, in, n);
    EVP_CIPHER_CTX_free(c);
}

enum { MAX_LEN = 4200, GUARD = 64 };
static uint8_t src[MAX_LEN], dst[MAX_LEN + GUARD], expect[MAX_LEN], blocks[MAX_LEN + 16],
    stream[MAX_LEN + 16];

static void put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8) p[i] = (uint8_t)v;
}

/* Returns 1 when the output matches the reference and nothing past dst+len changed. */
static int check_one(int isa, int xctr, const uint8_t *key, int key_len, size_t len)
{
    aes_key k;
    size_t nblocks = (len + 15) / 16;
    uint64_t ctr[2] = {((uint64_t)rand() << 31) ^ (uint64_t)rand(), (uint64_t)rand()};
    uint8_t iv[16];
    uint64_t index = 1 + (uint64_t)(rand() % 5000);
    expand_key(&k, key, key_len);
    for (size_t i = 0; i < len; i++) src[i] = (uint8_t)rand();
    for (int i = 0; i < 16; i++) iv[i] = (uint8_t)rand();
    for (size_t b = 0; b < nblocks; b++) {
        if (xctr) {
            memcpy(blocks + 16 * b, iv, 16);
            for (int j = 0; j < 8; j++) blocks[16 * b + j] ^= (uint8_t)((index + b) >> (8 * j));
        } else {
            put_be64(blocks + 16 * b, ctr[1]);
            put_be64(blocks + 16 * b + 8, ctr[0] + b);
        }
    }
    ecb_encrypt(key, key_len, blocks, stream, (int)(16 * nblocks));
    for (size_t i = 0; i < len; i++) expect[i] = src[i] ^ stream[i];
    memset(dst, 0xA5, sizeof dst);
    if (xctr)
        isas[isa].xctr(&k, dst, src, len, iv, index);
    else
        isas[isa].ctr(&k, dst, src, len, ctr[0], ctr[1]);
    for (size_t i = len; i < len + GUARD; i++)
        if (dst[i] != 0xA5) return 0;
    return memcmp(dst, expect, len) == 0;
}

/* XTS one data unit both ways against OpenSSL; 1 when right and nothing past dst changed. */
static int check_xts(int isa, const uint8_t *key, int half, size_t len)
{
    aes_key k1, k2, k1_dec;
    uint8_t iv[16];
    int written;
    expand_key(&k1, key, half);
    expand_key(&k2, key + half, half);
    decryption_key(&k1_dec, &k1);
    for (size_t i = 0; i < len; i++) src[i] = (uint8_t)rand();
    for (int i = 0; i < 16; i++) iv[i] = (uint8_t)rand();
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    EVP_EncryptInit_ex(c, half == 16 ? EVP_aes_128_xts() : EVP_aes_256_xts(), NULL, key, iv);
    EVP_EncryptUpdate(c, expect, &written, src, (int)len);
    EVP_CIPHER_CTX_free(c);
    memset(dst, 0xA5, sizeof dst);
    isas[isa].xts_encrypt(&k1, &k2, dst, src, len, iv);
    int ok = memcmp(dst, expect, len) == 0 && dst[len] == 0xA5;
    memset(dst, 0xA5, sizeof dst);
    isas[isa].xts_decrypt(&k1_dec, &k2, dst, expect, len, iv);
    return ok && memcmp(dst, src, len) == 0 && dst[len] == 0xA5;
}

/* GHASH product as the assembly defines it: a * b * x^-128 modulo the reversed GCM
 * polynomial, on byte-reflected values (schoolbook, then two folds by 0xc2 << 56). */
typedef unsigned __int128 u128;

static u128 clmul64(uint64_t a, uint64_t b)
{
    u128 r = 0;
    for (int i = 0; i < 64; i++)
        if ((b >> i) & 1) r ^= (u128)a << i;
    return r;
}

static u128 ghash_mul(u128 a, u128 b)
{
    const uint64_t poly = 0xc200000000000000ull;
    u128 lo = clmul64((uint64_t)a, (uint64_t)b), hi = clmul64((uint64_t)(a >> 64), (uint64_t)(b >> 64));
    u128 mi = clmul64((uint64_t)a, (uint64_t)(b >> 64)) ^ clmul64((uint64_t)(a >> 64), (uint64_t)b);
    mi ^= ((lo << 64) | (lo >> 64)) ^ clmul64((uint64_t)lo, poly);
    return hi ^ ((mi << 64) | (mi >> 64)) ^ clmul64((uint64_t)mi, poly);
}

static u128 load_reflected(const uint8_t *p)
{
    u128 v = 0;
    for (int i = 0; i < 16; i++) v = (v << 8) | p[i];
    return v;
}

/* H = E_K(0); H^1 in the stored form is reflect(H) * x^-1 (shift left, fold 0xc2..01). */
static void gcm_setup(gcm_key *g, const uint8_t *key, int key_len)
{
    uint8_t zero[16] = {0}, h_raw[16];
    expand_key(&g->aes, key, key_len);
    ecb_encrypt(key, key_len, zero, h_raw, 16);
    u128 h = load_reflected(h_raw);
    u128 h1 = (h << 1) ^ ((h >> 127) ? (((u128)0xc2 << 120) | 1) : 0), p = h1;
    for (int i = 1; i <= 32; i++, p = ghash_mul(p, h1))
        memcpy(g->h_powers[32 - i], &p, 16);
    memset(g->h_pad, 0, sizeof g->h_pad);
}

/* One GCM message (12-byte IV) through ghash + update, both ways, against OpenSSL. */
static int check_gcm(int isa, const gcm_key *g, const uint8_t *key, int key_len, size_t len,
                     size_t aad_len)
{
    static uint8_t aad[700];
    uint8_t iv[12], tag[16], acc[16], ctr[16], lengths[16] = {0}, j0[16], ej0[16];
    int written, ok = 1;
    for (size_t i = 0; i < len; i++) src[i] = (uint8_t)rand();
    for (size_t i = 0; i < aad_len; i++) aad[i] = (uint8_t)rand();
    for (int i = 0; i < 12; i++) iv[i] = (uint8_t)rand();
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    EVP_EncryptInit_ex(c, key_len == 16 ? EVP_aes_128_gcm() : key_len == 24 ? EVP_aes_192_gcm()
                                                                              : EVP_aes_256_gcm(),
                       NULL, key, iv);
    if (aad_len) EVP_EncryptUpdate(c, NULL, &written, aad, (int)aad_len);
    EVP_EncryptUpdate(c, expect, &written, src, (int)len);
    EVP_EncryptFinal_ex(c, expect + len, &written);
    EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag);
    EVP_CIPHER_CTX_free(c);
    memcpy(j0, iv, 12);
    j0[12] = j0[13] = j0[14] = 0;
    j0[15] = 1;
    ecb_encrypt(key, key_len, j0, ej0, 16);
    for (int i = 0; i < 8; i++) {
        lengths[7 - i] = (uint8_t)(((uint64_t)aad_len * 8) >> (8 * i));
        lengths[15 - i] = (uint8_t)(((uint64_t)len * 8) >> (8 * i));
    }
    for (int decrypt = 0; decrypt < 2; decrypt++) {
        size_t whole = aad_len & ~(size_t)15;
        memset(acc, 0, 16);
        isas[isa].ghash(g, acc, aad, whole);
        if (aad_len > whole) {
            uint8_t last[16] = {0};
            memcpy(last, aad + whole, aad_len - whole);
            isas[isa].ghash(g, acc, last, 16);
        }
        memcpy(ctr, j0, 16);
        ctr[15] = 2;
        memset(dst, 0xA5, sizeof dst);
        (decrypt ? isas[isa].gcm_dec : isas[isa].gcm_enc)(g, dst, decrypt ? expect : src, len,
                                                          ctr, acc);
        isas[isa].ghash(g, acc, lengths, 16);
        for (int i = 0; i < 16; i++) ok &= (uint8_t)(acc[15 - i] ^ ej0[i]) == tag[i];
        ok &= memcmp(dst, decrypt ? src : expect, len) == 0 && dst[len] == 0xA5;
    }
    return ok;
}

int main(void)
{
    int passed = 0, failed = 0;
    make_sbox();
    srand(1);
    for (size_t isa = 0; isa < sizeof isas / sizeof isas[0]; isa++) {
        if (!isas[isa].supported()) {
            printf("SKIP %s: this CPU lacks its features\n", isas[isa].name);
            continue;
        }
        for (int xctr = 0; xctr < 2; xctr++)
            for (int key_len = 16; key_len <= 32; key_len += 8) {
                uint8_t key[32];
                int bad = 0;
                for (int i = 0; i < 32; i++) key[i] = (uint8_t)rand();
                for (size_t len = 0; len <= MAX_LEN && !bad; len += len < 1100 ? 1 : 61)
                    if (!check_one((int)isa, xctr, key, key_len, len)) {
                        printf("FAIL %s %s AES-%d len %zu\n", isas[isa].name,
                               xctr ? "xctr" : "ctr", key_len * 8, len);
                        bad = 1;
                    }
                bad ? failed++ : passed++;
            }
        for (int half = 16; half <= 32; half += 16) {
            uint8_t key[64];
            int bad = 0;
            for (int i = 0; i < 64; i++) key[i] = (uint8_t)rand();
            for (size_t len = 16; len <= MAX_LEN && !bad; len += len < 1100 ? 1 : 61)
                if (!check_xts((int)isa, key, half, len)) {
                    printf("FAIL %s xts AES-%d len %zu\n", isas[isa].name, half * 8, len);
                    bad = 1;
                }
            bad ? failed++ : passed++;
        }
        for (int key_len = 16; key_len <= 32; key_len += 8) {
            static gcm_key g;
            uint8_t key[32];
            int bad = 0;
            for (int i = 0; i < 32; i++) key[i] = (uint8_t)rand();
            gcm_setup(&g, key, key_len);
            for (size_t blocks = 0; blocks * 16 <= MAX_LEN && !bad; blocks += blocks < 70 ? 1 : 13)
                if (!check_gcm((int)isa, &g, key, key_len, blocks * 16, (size_t)rand() % 600)) {
                    printf("FAIL %s gcm AES-%d len %zu\n", isas[isa].name, key_len * 8, blocks * 16);
                    bad = 1;
                }
            bad ? failed++ : passed++;
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
