/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Differential check of generated CTR/XCTR/XTS/GCM objects against OpenSSL, without the
 * runtime: every function of every mode (the GCM record functions included) of each
 * variant in a table is run over many lengths and key sizes.
 *
 * Built two ways:
 *  - plain: the table is the main functions of the four ISAs (one object per ISA and
 *    mode linked in); perf/explore.py checks a knob variant this way;
 *  - with -DVARIANTS='"file.h"': the table comes from that file, which
 *    tests/python/test_gen_files.py writes for a batch of knob variants whose objects
 *    it renamed apart (objcopy --prefix-symbols), so one program checks many variants.
 *    The file defines `variants[]` (struct variant, below) and declares its functions.
 *
 * Prints one line per failing (variant, function, key size) and the summary
 * `N passed, N failed`; exits non-zero on any mismatch or any write outside dst.
 */
#include <immintrin.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asm_abi.h"

typedef aesgen_aes_key aes_key;
typedef aesgen_gcm_key gcm_key;

enum { ISA_VPERM_SSSE3, ISA_AESNI_AVX, ISA_VAES_AVX2, ISA_AVX10_256, ISA_AVX10_512 };

/* One set of generated functions; NULL where the variant does not have the mode. */
struct variant {
    const char *name;
    int isa;
    aesgen_ctr_fn *ctr;
    aesgen_xctr_fn *xctr;
    aesgen_xts_fn *xts_encrypt, *xts_decrypt;
    aesgen_gcm_ghash_fn *ghash;
    aesgen_gcm_update_fn *gcm_enc, *gcm_dec;
    aesgen_gcm_record_fn *gcm_enc_record, *gcm_dec_record;
    aesgen_ctr_iv_fn *ctr_iv;      /* ctr from the counter block in memory */
};

static int has_ssse3(void) { return __builtin_cpu_supports("ssse3"); }
static int has_avx(void) { return __builtin_cpu_supports("avx") && __builtin_cpu_supports("aes"); }
static int has_vaes(void) { return has_avx() && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("vaes"); }
static int has_avx512(void)
{
    return has_vaes() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
}

static const struct {
    const char *name;
    int (*supported)(void);
    int evex;       /* records take any length (else the caller pads, see asm_abi.h) */
} isas[] = {
    [ISA_VPERM_SSSE3] = {"vperm_ssse3", has_ssse3, 0},
    [ISA_AESNI_AVX] = {"aesni_avx", has_avx, 0},
    [ISA_VAES_AVX2] = {"vaes_avx2", has_vaes, 0},
    [ISA_AVX10_256] = {"avx10_256", has_avx512, 1},
    [ISA_AVX10_512] = {"avx10_512", has_avx512, 1},
};

#ifdef VARIANTS
#include VARIANTS
#else
#include "aesgen_gen.h"   /* the prototypes (with -Igen) */
#define VARIANT(isa, ISA) { #isa, ISA, aesgen_ctr_crypt_##isa, aesgen_xctr_crypt_##isa, \
                            aesgen_xts_encrypt_##isa, aesgen_xts_decrypt_##isa, \
                            aesgen_gcm_ghash_##isa, aesgen_gcm_enc_update_##isa, \
                            aesgen_gcm_dec_update_##isa, aesgen_gcm_enc_record_##isa, \
                            aesgen_gcm_dec_record_##isa, aesgen_ctr_crypt_iv_##isa }
static const struct variant variants[] = {
    VARIANT(aesni_avx, ISA_AESNI_AVX),
    VARIANT(vaes_avx2, ISA_VAES_AVX2),
    VARIANT(avx10_256, ISA_AVX10_256),
    VARIANT(avx10_512, ISA_AVX10_512),
};
#endif

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

/* rk_rows (aesgen.h: row i is rk[i] in each of four lanes), which KEYS=rows reads. */
static void key_rows(aes_key *k)
{
    for (int i = 0; i < 15; i++)
        for (int lane = 0; lane < 4; lane++)
            memcpy(k->rk_rows[i] + 16 * lane, k->rk[i], 16);
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
    key_rows(k);
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
    key_rows(dec);
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

/* The inputs' randomness: xorshift64*, seeded per shard.  (rand() locks and takes a
 * call per byte: it was 85% of this program's time.) */
static uint64_t rng_state = 1;

static uint32_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1Du) >> 32);
}

static void fill_random(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i += 4) {
        uint32_t r = rnd();
        for (size_t j = 0; j < 4 && i + j < n; j++, r >>= 8)
            p[i + j] = (uint8_t)r;
    }
}

enum { MAX_LEN = 4200, GUARD = 64 };
static uint8_t src[MAX_LEN], dst[MAX_LEN + GUARD], expect[MAX_LEN], blocks[MAX_LEN + 16],
    stream[MAX_LEN + 16];

static void put_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8) p[i] = (uint8_t)v;
}

/* Returns 1 when the output matches the reference and nothing past dst+len changed.
 * xctr: 0 ctr, 1 xctr, 2 ctr from the counter block in memory (ctr_iv). */
static int check_one(const struct variant *v, int xctr, const uint8_t *key, int key_len, size_t len)
{
    aes_key k;
    size_t nblocks = (len + 15) / 16;
    uint64_t ctr[2] = {((uint64_t)rnd() << 32) | rnd(), rnd()};
    uint8_t iv[16];
    /* XCTR from index 1 half the time: a message's first call may take a path of its
     * own (START=table) */
    uint64_t index = rnd() % 2 ? 1 : 1 + (uint64_t)(rnd() % 5000);
    expand_key(&k, key, key_len);
    fill_random(src, len);
    fill_random(iv, 16);
    for (size_t b = 0; b < nblocks; b++) {
        if (xctr == 1) {
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
    if (xctr == 1) {
        v->xctr(&k, dst, src, len, iv, index);
    } else if (xctr == 2) {
        uint8_t block[16], copy[16];
        put_be64(block, ctr[1]);
        put_be64(block + 8, ctr[0]);
        memcpy(copy, block, 16);
        v->ctr_iv(&k, dst, src, len, block);
        if (memcmp(block, copy, 16) != 0) return 0;
    } else {
        v->ctr(&k, dst, src, len, ctr[0], ctr[1]);
    }
    for (size_t i = len; i < len + GUARD; i++)
        if (dst[i] != 0xA5) return 0;
    return memcmp(dst, expect, len) == 0;
}

/* XTS one data unit both ways against OpenSSL; 1 when right and nothing past dst changed. */
static int check_xts(const struct variant *v, const uint8_t *key, int half, size_t len)
{
    aes_key k1, k2, k1_dec;
    uint8_t iv[16];
    int written;
    expand_key(&k1, key, half);
    expand_key(&k2, key + half, half);
    decryption_key(&k1_dec, &k1);
    fill_random(src, len);
    fill_random(iv, 16);
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    EVP_EncryptInit_ex(c, half == 16 ? EVP_aes_128_xts() : EVP_aes_256_xts(), NULL, key, iv);
    EVP_EncryptUpdate(c, expect, &written, src, (int)len);
    EVP_CIPHER_CTX_free(c);
    memset(dst, 0xA5, sizeof dst);
    v->xts_encrypt(&k1, &k2, dst, src, len, iv);
    int ok = memcmp(dst, expect, len) == 0 && dst[len] == 0xA5;
    memset(dst, 0xA5, sizeof dst);
    v->xts_decrypt(&k1_dec, &k2, dst, expect, len, iv);
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
    for (int i = 1; i <= AESGEN_GCM_H_POWERS; i++, p = ghash_mul(p, h1))
        memcpy(g->h_powers[AESGEN_GCM_H_POWERS - i], &p, 16);
    memset(g->h_pad, 0, sizeof g->h_pad);
    for (int i = 0; i < AESGEN_GCM_H_POWERS; i++) {   /* each power's halves XORed, twice */
        uint64_t half[2];
        memcpy(half, g->h_powers[i], 16);
        half[0] ^= half[1];
        half[1] = half[0];
        memcpy(g->h_halves[i], half, 16);
    }
}

/* One GCM message (12-byte IV) through ghash + update, both ways, against OpenSSL. */
static int check_gcm(const struct variant *v, const gcm_key *g, const uint8_t *key, int key_len, size_t len,
                     size_t aad_len)
{
    static uint8_t aad[700];
    uint8_t iv[12], tag[16], acc[16], ctr[16], lengths[16] = {0}, j0[16], ej0[16];
    int written, ok = 1;
    fill_random(src, len);
    fill_random(aad, aad_len);
    fill_random(iv, 12);
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
        v->ghash(g, acc, aad, whole);
        if (aad_len > whole) {
            uint8_t last[16] = {0};
            memcpy(last, aad + whole, aad_len - whole);
            v->ghash(g, acc, last, 16);
        }
        memcpy(ctr, j0, 16);
        ctr[15] = 2;
        memset(dst, 0xA5, sizeof dst);
        (decrypt ? v->gcm_dec : v->gcm_enc)(g, dst, decrypt ? expect : src, len,
                                                          ctr, acc);
        v->ghash(g, acc, lengths, 16);
        for (int i = 0; i < 16; i++) ok &= (uint8_t)(acc[15 - i] ^ ej0[i]) == tag[i];
        ok &= memcmp(dst, decrypt ? src : expect, len) == 0 && dst[len] == 0xA5;
    }
    return ok;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    for (int i = 3; i >= 0; i--, v >>= 8) p[i] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* J0 of a 16-byte IV (SP 800-38D: GHASH_H(IV || 0^64 || [128]_64)), with the model's
 * product on the reflected form; OpenSSL derives its own J0 from the same IV, so a wrong
 * model here can only make the check fail.  A random J0 puts the counter's low bytes
 * anywhere, which reaches the carry paths of the counters in short messages too. */
static void j0_of_iv16(const gcm_key *g, const uint8_t iv[16], uint8_t j0[16])
{
    u128 h1, acc = 0;
    uint8_t lengths[16] = {0};
    lengths[15] = 128;
    memcpy(&h1, g->h_powers[AESGEN_GCM_H_POWERS - 1], 16);
    acc = ghash_mul(acc ^ load_reflected(iv), h1);
    acc = ghash_mul(acc ^ load_reflected(lengths), h1);
    for (int i = 0; i < 16; i++) j0[i] = (uint8_t)(acc >> (8 * (15 - i)));
}

/* One GCM message through a record function, both ways, against OpenSSL (16-byte IV):
 * ciphertext, full tag, nothing written outside dst.  VEX records take whole blocks and
 * a zero-padded AAD; the partial block goes through rec->tail (asm_abi.h). */
static int check_gcm_record(const struct variant *v, const gcm_key *g, const uint8_t *key,
                            int key_len, size_t len, size_t aad_len)
{
    static uint8_t aad[AESGEN_GCM_RECORD_MAX_AAD], padded_aad[AESGEN_GCM_RECORD_MAX_AAD];
    uint8_t iv[16], tag[16], j0[16];
    int written, ok = 1, evex = isas[v->isa].evex;
    fill_random(src, len);
    fill_random(aad, aad_len);
    fill_random(iv, 16);
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    EVP_EncryptInit_ex(c, key_len == 16 ? EVP_aes_128_gcm() : key_len == 24 ? EVP_aes_192_gcm()
                                                                              : EVP_aes_256_gcm(),
                       NULL, NULL, NULL);
    EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, 16, NULL);
    EVP_EncryptInit_ex(c, NULL, NULL, key, iv);
    if (aad_len) EVP_EncryptUpdate(c, NULL, &written, aad, (int)aad_len);
    EVP_EncryptUpdate(c, expect, &written, src, (int)len);
    EVP_EncryptFinal_ex(c, expect + len, &written);
    EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag);
    EVP_CIPHER_CTX_free(c);
    j0_of_iv16(g, iv, j0);
    size_t whole = evex ? len : len & ~(size_t)15, part = len - whole;
    size_t aad_whole = aad_len & ~(size_t)15;
    memset(padded_aad, 0, sizeof padded_aad);
    memcpy(padded_aad, aad, aad_len);
    for (int decrypt = 0; decrypt < 2; decrypt++) {
        const uint8_t *in = decrypt ? expect : src, *want = decrypt ? src : expect;
        aesgen_gcm_record rec;
        memset(&rec, 0, sizeof rec);
        memcpy(rec.j0, j0, 16);
        rec.lengths[0] = (uint64_t)len * 8;
        rec.lengths[1] = (uint64_t)aad_len * 8;
        rec.aad = evex ? aad : padded_aad;
        rec.aad_len = evex || aad_len == aad_whole ? aad_len : aad_whole + 16;
        if (part) {
            rec.tail_len = part;
            memcpy(rec.tail, in + whole, part);
            memcpy(rec.tail_ctr, j0, 16);
            put_be32(rec.tail_ctr + 12, get_be32(j0 + 12) + 1 + (uint32_t)(whole / 16));
        }
        memset(dst, 0xA5, sizeof dst);
        (decrypt ? v->gcm_dec_record : v->gcm_enc_record)(g, dst, in, whole, &rec);
        if (part) memcpy(dst + whole, rec.tail, part);
        ok &= memcmp(rec.tag, tag, 16) == 0;
        ok &= memcmp(dst, want, len) == 0;
        for (size_t i = len; i < len + GUARD; i++)
            if (dst[i] != 0xA5) ok = 0;
    }
    return ok;
}

static int passed, failed;

static void count(int bad) { bad ? failed++ : passed++; }

static void check_variant(const struct variant *v)
{
    static const char *const names[] = { "ctr", "xctr", "ctr_iv" };
    for (int xctr = 0; xctr < 3; xctr++) {
        if (!(xctr == 1 ? (void *)v->xctr : xctr == 2 ? (void *)v->ctr_iv : (void *)v->ctr))
            continue;
        for (int key_len = 16; key_len <= 32; key_len += 8) {
            uint8_t key[32];
            int bad = 0;
            fill_random(key, 32);
            for (size_t len = 0; len <= MAX_LEN && !bad; len += len < 1100 ? 1 : 61)
                if (!check_one(v, xctr, key, key_len, len)) {
                    printf("FAIL %s %s AES-%d len %zu\n", v->name, names[xctr],
                           key_len * 8, len);
                    bad = 1;
                }
            count(bad);
        }
    }
    if (v->xts_encrypt)
        for (int half = 16; half <= 32; half += 16) {
            uint8_t key[64];
            int bad = 0;
            fill_random(key, 64);
            for (size_t len = 16; len <= MAX_LEN && !bad; len += len < 1100 ? 1 : 61)
                if (!check_xts(v, key, half, len)) {
                    printf("FAIL %s xts AES-%d len %zu\n", v->name, half * 8, len);
                    bad = 1;
                }
            count(bad);
        }
    if (v->ghash)
        for (int key_len = 16; key_len <= 32; key_len += 8) {
            static gcm_key g;
            uint8_t key[32];
            int bad = 0;
            fill_random(key, 32);
            gcm_setup(&g, key, key_len);
            for (size_t blocks = 0; blocks * 16 <= MAX_LEN && !bad; blocks += blocks < 70 ? 1 : 13)
                if (!check_gcm(v, &g, key, key_len, blocks * 16, (size_t)rnd() % 600)) {
                    printf("FAIL %s gcm update AES-%d len %zu\n", v->name, key_len * 8,
                           blocks * 16);
                    bad = 1;
                }
            count(bad);
            bad = 0;
            /* every length up to 1100 (past two iterations of the widest bulk loop, 512
             * bytes, and every final-group size), then sparser; the AAD empty on every
             * third (the records' one-sum and no-AAD paths) */
            for (size_t len = 0; len <= MAX_LEN && !bad; len += len < 1100 ? 1 : 61) {
                size_t aad_len = len % 3 == 0 ? 0 : (size_t)rnd() % (AESGEN_GCM_RECORD_MAX_AAD + 1);
                if (!check_gcm_record(v, &g, key, key_len, len, aad_len)) {
                    printf("FAIL %s gcm record AES-%d len %zu aad %zu\n", v->name,
                           key_len * 8, len, aad_len);
                    bad = 1;
                }
            }
            count(bad);
        }
}

/* variant_check [SHARD COUNT]: the variants whose index is SHARD modulo COUNT (all of
 * them by default), so that the test can run shards side by side. */
int main(int argc, char **argv)
{
    int skipped[sizeof isas / sizeof isas[0]] = {0};
    size_t shard = 0, count = 1;
    if (argc == 3) {
        shard = strtoul(argv[1], NULL, 10);
        count = strtoul(argv[2], NULL, 10);
    }
    if (argc != 1 && (argc != 3 || count == 0 || shard >= count)) {
        fprintf(stderr, "usage: %s [SHARD COUNT] (0 <= SHARD < COUNT)\n", argv[0]);
        return 2;
    }
    make_sbox();
    rng_state = 0x9E3779B97F4A7C15u * (1 + shard);
    for (size_t i = shard; i < sizeof variants / sizeof variants[0]; i += count) {
        const struct variant *v = &variants[i];
        if (!isas[v->isa].supported()) {
            if (!skipped[v->isa]++)
                printf("SKIP %s: this CPU lacks its features\n", isas[v->isa].name);
            continue;
        }
        check_variant(v);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
