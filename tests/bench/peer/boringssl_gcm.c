/*
 * Peer benchmark (optional, not part of make bench or make test): BoringSSL's VAES/AVX-512
 * AES-GCM assembly, the floor issue 4 names, against aesgen_gcm_encrypt/decrypt (ISA
 * avx10_512) per TLS record (12-byte IV, 13-byte AAD, 16-byte tag), in one process.
 *
 *   make bench-boringssl BORINGSSL_GCM_S=/path/to/gen/bcm/aes-gcm-avx10-x86_64-linux.S
 *
 * BoringSSL's file is not part of this repository: bring your own checkout (measured
 * with rthrfrd/boringssl @ 3e2858d5, whose .S has gcm_init_vpclmulqdq_avx10_512 and
 * aes_gcm_{enc,dec}_update_vaes_avx10_512).  Its C driver (crypto/fipsmodule/aes/
 * gcm.cc.inc) is mirrored below for one message (IV, AAD, data, finish), without the
 * EVP_AEAD layer, so BoringSSL's figures are a lower bound on its real cost while ours
 * go through the full one-shot API.  Single blocks (E(0), E(J0), a partial block) use
 * AES-NI as BoringSSL's aes_hw_encrypt does on such CPUs.
 * First everything is checked against OpenSSL EVP (ciphertext, tag, forgeries); then
 * ours and BoringSSL's batches (~batch_us each) alternate, median ns per record.
 *
 *   boringssl_gcm [runs=3] [samples=21] [batch_us=200]      env BENCH_CPU: CPU to pin to
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <immintrin.h>

#include <openssl/aes.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "aesgen.h"

/* ---- BoringSSL prototypes (crypto/fipsmodule/aes/internal.h of that tree) ---- */
typedef struct { uint64_t hi, lo; } u128;
typedef struct bssl_aes_key {          /* BoringSSL AES_KEY: rd_key[60] then rounds */
    _Alignas(16) uint32_t rd_key[60];
    unsigned rounds;                   /* hw convention: number of rounds - 1 (9/11/13) */
} bssl_aes_key;
_Static_assert(offsetof(bssl_aes_key, rounds) == 240, "AES_KEY layout");

void gcm_init_vpclmulqdq_avx10_512(u128 Htable[16], const uint64_t H[2]);
void gcm_gmult_vpclmulqdq_avx10(uint8_t Xi[16], const u128 Htable[16]);
void gcm_ghash_vpclmulqdq_avx10_512(uint8_t Xi[16], const u128 Htable[16],
                                    const uint8_t *in, size_t len);
void aes_gcm_enc_update_vaes_avx10_512(const uint8_t *in, uint8_t *out, size_t len,
                                       const bssl_aes_key *key, const uint8_t ivec[16],
                                       const u128 Htable[16], uint8_t Xi[16]);
void aes_gcm_dec_update_vaes_avx10_512(const uint8_t *in, uint8_t *out, size_t len,
                                       const bssl_aes_key *key, const uint8_t ivec[16],
                                       const u128 Htable[16], uint8_t Xi[16]);

/* ---- AES-NI key schedule and single block (stand-ins for aes_hw_set_encrypt_key /
 *      aes_hw_encrypt, which BoringSSL uses as key->block on this CPU) ---- */
static __m128i ks_mix(__m128i k, __m128i t) {
    k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
    k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
    k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
    return _mm_xor_si128(k, t);
}
#define KS128(i, rc) \
    rk[i] = ks_mix(rk[i - 1], _mm_shuffle_epi32(_mm_aeskeygenassist_si128(rk[i - 1], rc), 0xff))
#define KS256A(i, rc) \
    rk[i] = ks_mix(rk[i - 2], _mm_shuffle_epi32(_mm_aeskeygenassist_si128(rk[i - 1], rc), 0xff))
#define KS256B(i) \
    rk[i] = ks_mix(rk[i - 2], _mm_shuffle_epi32(_mm_aeskeygenassist_si128(rk[i - 1], 0), 0xaa))

static void bssl_aes_set_key(bssl_aes_key *key, const uint8_t *k, size_t klen) {
    __m128i rk[15];
    memset(key, 0, sizeof *key);
    if (klen == 16) {
        rk[0] = _mm_loadu_si128((const __m128i *)k);
        KS128(1, 0x01); KS128(2, 0x02); KS128(3, 0x04); KS128(4, 0x08); KS128(5, 0x10);
        KS128(6, 0x20); KS128(7, 0x40); KS128(8, 0x80); KS128(9, 0x1b); KS128(10, 0x36);
        for (int i = 0; i <= 10; i++) _mm_store_si128((__m128i *)key->rd_key + i, rk[i]);
        key->rounds = 9;
    } else if (klen == 32) {
        rk[0] = _mm_loadu_si128((const __m128i *)k);
        rk[1] = _mm_loadu_si128((const __m128i *)(k + 16));
        KS256A(2, 0x01); KS256B(3); KS256A(4, 0x02); KS256B(5); KS256A(6, 0x04); KS256B(7);
        KS256A(8, 0x08); KS256B(9); KS256A(10, 0x10); KS256B(11); KS256A(12, 0x20);
        KS256B(13); KS256A(14, 0x40);
        for (int i = 0; i <= 14; i++) _mm_store_si128((__m128i *)key->rd_key + i, rk[i]);
        key->rounds = 13;
    } else {
        abort();
    }
}

static inline void bssl_aes_encrypt(const uint8_t in[16], uint8_t out[16], const bssl_aes_key *key) {
    const __m128i *rk = (const __m128i *)key->rd_key;
    unsigned nr = key->rounds + 1;
    __m128i s = _mm_xor_si128(_mm_loadu_si128((const __m128i *)in), _mm_load_si128(rk));
    for (unsigned i = 1; i < nr; i++) s = _mm_aesenc_si128(s, _mm_load_si128(rk + i));
    s = _mm_aesenclast_si128(s, _mm_load_si128(rk + nr));
    _mm_storeu_si128((__m128i *)out, s);
}

/* ---- BoringSSL's GCM C driver logic, single-shot (mirrors gcm.cc.inc) ---- */
typedef struct {
    _Alignas(64) u128 Htable[16];
    bssl_aes_key aes;
} bssl_gcm_key;

static inline uint64_t ld64be(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return __builtin_bswap64(v); }
static inline uint32_t ld32be(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return __builtin_bswap32(v); }
static inline void st64be(uint8_t *p, uint64_t v) { v = __builtin_bswap64(v); memcpy(p, &v, 8); }
static inline void st32be(uint8_t *p, uint32_t v) { v = __builtin_bswap32(v); memcpy(p, &v, 4); }
static inline void xor16(uint8_t *o, const uint8_t *a, const uint8_t *b) {
    uint64_t x[2], y[2];
    memcpy(x, a, 16); memcpy(y, b, 16);
    x[0] ^= y[0]; x[1] ^= y[1];
    memcpy(o, x, 16);
}

static void bssl_gcm_init(bssl_gcm_key *gk, const uint8_t *k, size_t klen) {
    memset(gk, 0, sizeof *gk);
    bssl_aes_set_key(&gk->aes, k, klen);
    uint8_t h[16] = {0};
    bssl_aes_encrypt(h, h, &gk->aes);
    /* CRYPTO_ghash_init: H passed as a pair of byte-swapped 64-bit values. */
    uint64_t H[2] = {ld64be(h), ld64be(h + 8)};
    gcm_init_vpclmulqdq_avx10_512(gk->Htable, H);
}

typedef struct {
    uint8_t Yi[16], EKi[16], EK0[16];
    uint64_t len_aad, len_msg;
    _Alignas(16) uint8_t Xi[16];
    unsigned mres, ares;
} bssl_gcm_ctx;

/* CRYPTO_gcm128_init_ctx, iv_len == 12 path */
static inline void bssl_ctx_init(const bssl_gcm_key *key, bssl_gcm_ctx *ctx, const uint8_t iv[12]) {
    memset(ctx->Yi, 0, 16);
    memset(ctx->Xi, 0, 16);
    ctx->len_aad = ctx->len_msg = 0;
    ctx->ares = ctx->mres = 0;
    memcpy(ctx->Yi, iv, 12);
    ctx->Yi[15] = 1;
    uint32_t ctr = 1;
    bssl_aes_encrypt(ctx->Yi, ctx->EK0, &key->aes);
    ++ctr;
    st32be(ctx->Yi + 12, ctr);
}

/* CRYPTO_gcm128_aad (first and only call) */
static inline void bssl_aad(const bssl_gcm_key *key, bssl_gcm_ctx *ctx, const uint8_t *aad, size_t aad_len) {
    ctx->len_aad += aad_len;
    unsigned n = 0;
    size_t len_blocks = aad_len & ~(size_t)15;
    if (len_blocks) {
        gcm_ghash_vpclmulqdq_avx10_512(ctx->Xi, key->Htable, aad, len_blocks);
        aad += len_blocks;
        aad_len -= len_blocks;
    }
    if (aad_len) {
        n = (unsigned)aad_len;
        for (size_t i = 0; i < aad_len; ++i) ctx->Xi[i] ^= aad[i];
    }
    ctx->ares = n;
}

/* CRYPTO_gcm128_encrypt / _decrypt (first and only call; mres == 0 on entry) */
static inline void bssl_crypt(const bssl_gcm_key *key, bssl_gcm_ctx *ctx, const uint8_t *in,
                              uint8_t *out, size_t len, int enc) {
    ctx->len_msg += len;
    if (ctx->ares) {   /* first call finalizes GHASH(AAD) */
        gcm_gmult_vpclmulqdq_avx10(ctx->Xi, key->Htable);
        ctx->ares = 0;
    }
    unsigned n = 0;
    if (len > 0) {     /* hw_gcm_encrypt / hw_gcm_decrypt, gcm_x86_vaes_avx10_512 case */
        size_t bulk = len & ~(size_t)15;
        if (enc)
            aes_gcm_enc_update_vaes_avx10_512(in, out, bulk, &key->aes, ctx->Yi, key->Htable, ctx->Xi);
        else
            aes_gcm_dec_update_vaes_avx10_512(in, out, bulk, &key->aes, ctx->Yi, key->Htable, ctx->Xi);
        st32be(ctx->Yi + 12, ld32be(ctx->Yi + 12) + (uint32_t)(bulk / 16));
        in += bulk; out += bulk; len -= bulk;
    }
    /* len < 16 here, so the GHASH_CHUNK and whole-block ctr128 loops do nothing. */
    if (len) {
        uint32_t ctr = ld32be(ctx->Yi + 12);
        bssl_aes_encrypt(ctx->Yi, ctx->EKi, &key->aes);
        ++ctr;
        st32be(ctx->Yi + 12, ctr);
        if (enc) {
            while (len--) { ctx->Xi[n] ^= out[n] = in[n] ^ ctx->EKi[n]; ++n; }
        } else {
            while (len--) { uint8_t c = in[n]; ctx->Xi[n] ^= c; out[n] = c ^ ctx->EKi[n]; ++n; }
        }
    }
    ctx->mres = n;
}

/* CRYPTO_gcm128_finish: Xi becomes the full tag */
static inline void bssl_finish(const bssl_gcm_key *key, bssl_gcm_ctx *ctx) {
    if (ctx->mres || ctx->ares) gcm_gmult_vpclmulqdq_avx10(ctx->Xi, key->Htable);
    uint8_t len_block[16];
    st64be(len_block, ctx->len_aad << 3);
    st64be(len_block + 8, ctx->len_msg << 3);
    xor16(ctx->Xi, ctx->Xi, len_block);
    gcm_gmult_vpclmulqdq_avx10(ctx->Xi, key->Htable);
    xor16(ctx->Xi, ctx->Xi, ctx->EK0);
}

static void bssl_seal(const bssl_gcm_key *key, const uint8_t iv[12], const uint8_t *aad, size_t aad_len,
                      uint8_t *dst, const uint8_t *src, size_t len, uint8_t tag[16]) {
    bssl_gcm_ctx ctx;
    bssl_ctx_init(key, &ctx, iv);
    bssl_aad(key, &ctx, aad, aad_len);
    bssl_crypt(key, &ctx, src, dst, len, 1);
    bssl_finish(key, &ctx);
    memcpy(tag, ctx.Xi, 16);
}

static int bssl_open(const bssl_gcm_key *key, const uint8_t iv[12], const uint8_t *aad, size_t aad_len,
                     uint8_t *dst, const uint8_t *src, size_t len, const uint8_t tag[16]) {
    bssl_gcm_ctx ctx;
    bssl_ctx_init(key, &ctx, iv);
    bssl_aad(key, &ctx, aad, aad_len);
    bssl_crypt(key, &ctx, src, dst, len, 0);
    bssl_finish(key, &ctx);
    if (CRYPTO_memcmp(ctx.Xi, tag, 16) != 0) {   /* EVP_AEAD open: wipe output on failure */
        memset(dst, 0, len);
        return 0;
    }
    return 1;
}

/* ---- OpenSSL EVP reference ---- */
static int ossl_gcm(int enc, const uint8_t *k, size_t klen, const uint8_t *iv, const uint8_t *aad,
                    size_t aad_len, uint8_t *out, const uint8_t *in, size_t len, uint8_t tag[16]) {
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    const EVP_CIPHER *ciph = klen == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm();
    int ok = 1, outl = 0;
    ok &= EVP_CipherInit_ex(c, ciph, NULL, NULL, NULL, enc);
    ok &= EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, 12, NULL);
    ok &= EVP_CipherInit_ex(c, NULL, NULL, k, iv, enc);
    if (aad_len) ok &= EVP_CipherUpdate(c, NULL, &outl, aad, (int)aad_len);
    if (len) ok &= EVP_CipherUpdate(c, out, &outl, in, (int)len);
    if (!enc) ok &= EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, 16, tag);
    int fin = EVP_CipherFinal_ex(c, out + len, &outl);
    if (enc) { ok &= fin; ok &= EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag); }
    else ok = ok && fin;
    EVP_CIPHER_CTX_free(c);
    return ok;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static void fill_rand(uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
        p[i] = (uint8_t)(rng_state >> 24);
    }
}

#define MAXLEN 16400

static int correctness(void) {
    static const size_t lens[] = {0, 1, 13, 15, 16, 17, 31, 33, 48, 63, 64, 65, 100, 127, 128,
                                  200, 255, 256, 257, 300, 511, 512, 513, 1000, 1023, 1024, 1025,
                                  1420, 1421, 2047, 4096, 4097, 8191, 16383, 16384, 16399};
    static const size_t aadlens[] = {13, 0, 16, 29, 64, 256, 300};
    static uint8_t pt[MAXLEN], ct_o[MAXLEN + 16], ct_b[MAXLEN], ct_a[MAXLEN], back[MAXLEN];
    uint8_t aad[512], key[32], iv[12], tag_o[16], tag_b[16], tag_a[16];
    int fails = 0, checks = 0;
    for (int ki = 0; ki < 2; ki++) {
        size_t klen = ki ? 16 : 32;
        for (int rep = 0; rep < 3; rep++) {
            fill_rand(key, sizeof key);
            bssl_gcm_key bk;
            bssl_gcm_init(&bk, key, klen);
            aesgen_gcm_key ak;
            if (aesgen_gcm_init(&ak, key, klen) != AESGEN_OK) { printf("aesgen_gcm_init failed\n"); return 1; }
            /* OpenSSL's AES_set_encrypt_key: check the rounds convention and the byte layout */
            if (rep == 0) {
                AES_KEY ok;
                AES_set_encrypt_key(key, (int)klen * 8, &ok);
                int same_bytes = memcmp(ok.rd_key, bk.aes.rd_key, 16 * (bk.aes.rounds + 2)) == 0;
                int same_as_aesgen = memcmp(ak.aes.rk, bk.aes.rd_key, 16 * (bk.aes.rounds + 2)) == 0;
                printf("AES-%zu key schedule: OpenSSL AES_KEY.rounds=%d, aesgen rounds=%u, BoringSSL asm "
                       "expects rounds=%u (rounds-1); OpenSSL rd_key bytes %s AES-NI layout; aesgen rk bytes %s\n",
                       klen * 8, ok.rounds, ak.aes.rounds, bk.aes.rounds,
                       same_bytes ? "==" : "!=", same_as_aesgen ? "identical" : "DIFFERENT");
            }
            for (size_t ai = 0; ai < sizeof aadlens / sizeof *aadlens; ai++) {
                size_t alen = aadlens[ai];
                if (rep > 0 && alen != 13) continue;
                for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
                    size_t len = lens[li];
                    fill_rand(iv, 12); fill_rand(aad, alen); fill_rand(pt, len);
                    checks++;
                    if (!ossl_gcm(1, key, klen, iv, aad, alen, ct_o, pt, len, tag_o)) { printf("openssl enc failed\n"); return 1; }
                    bssl_seal(&bk, iv, aad, alen, ct_b, pt, len, tag_b);
                    int r = aesgen_gcm_encrypt(&ak, iv, 12, aad, alen, ct_a, pt, len, tag_a, 16);
                    int bad = 0;
                    if (memcmp(ct_b, ct_o, len) || memcmp(tag_b, tag_o, 16)) { bad = 1; printf("FAIL bssl seal  AES-%zu aad=%zu len=%zu\n", klen * 8, alen, len); }
                    if (r != AESGEN_OK || memcmp(ct_a, ct_o, len) || memcmp(tag_a, tag_o, 16)) { bad = 1; printf("FAIL aesgen enc AES-%zu aad=%zu len=%zu\n", klen * 8, alen, len); }
                    memset(back, 0xee, len);
                    if (!bssl_open(&bk, iv, aad, alen, back, ct_o, len, tag_o) || memcmp(back, pt, len)) { bad = 1; printf("FAIL bssl open  AES-%zu aad=%zu len=%zu\n", klen * 8, alen, len); }
                    memset(back, 0xee, len);
                    if (aesgen_gcm_decrypt(&ak, iv, 12, aad, alen, back, ct_o, len, tag_o, 16) != AESGEN_OK || memcmp(back, pt, len)) { bad = 1; printf("FAIL aesgen dec AES-%zu aad=%zu len=%zu\n", klen * 8, alen, len); }
                    /* tampered tag / ciphertext must be rejected */
                    uint8_t t2[16]; memcpy(t2, tag_o, 16); t2[len % 16] ^= 0x01;
                    if (bssl_open(&bk, iv, aad, alen, back, ct_o, len, t2)) { bad = 1; printf("FAIL bssl open accepted bad tag len=%zu\n", len); }
                    if (len) {
                        ct_o[len / 2] ^= 0x80;
                        if (bssl_open(&bk, iv, aad, alen, back, ct_o, len, tag_o)) { bad = 1; printf("FAIL bssl open accepted bad ct len=%zu\n", len); }
                        ct_o[len / 2] ^= 0x80;
                    }
                    fails += bad;
                }
            }
        }
    }
    printf("correctness: %d cases (AES-128/256, AAD 0..300, lengths 0..16399) vs OpenSSL EVP: %s (%d failing)\n",
           checks, fails ? "FAILED" : "all match", fails);

    /* Extra check of the transcribed assembly: its enc/dec_update also accept any
     * length in a final call (masked partial vector; BoringSSL's C never uses this). */
    int xfails = 0, xchecks = 0;
    for (size_t len = 1; len <= 1100; len += (len < 300 ? 1 : 37)) {
        for (int ki = 0; ki < 2; ki++) {
            size_t klen = ki ? 16 : 32;
            fill_rand(key, 32); fill_rand(iv, 12); fill_rand(aad, 13); fill_rand(pt, len);
            bssl_gcm_key bk;
            bssl_gcm_init(&bk, key, klen);
            ossl_gcm(1, key, klen, iv, aad, 13, ct_o, pt, len, tag_o);
            for (int dec = 0; dec <= 1; dec++) {
                bssl_gcm_ctx ctx;
                bssl_ctx_init(&bk, &ctx, iv);
                bssl_aad(&bk, &ctx, aad, 13);
                gcm_gmult_vpclmulqdq_avx10(ctx.Xi, bk.Htable);
                ctx.ares = 0;
                if (!dec) aes_gcm_enc_update_vaes_avx10_512(pt, ct_b, len, &bk.aes, ctx.Yi, bk.Htable, ctx.Xi);
                else aes_gcm_dec_update_vaes_avx10_512(ct_o, back, len, &bk.aes, ctx.Yi, bk.Htable, ctx.Xi);
                ctx.len_msg = len;
                bssl_finish(&bk, &ctx);
                xchecks++;
                if (memcmp(dec ? back : ct_b, dec ? pt : ct_o, len) || memcmp(ctx.Xi, tag_o, 16)) {
                    xfails++;
                    printf("FAIL asm any-length %s AES-%zu len=%zu\n", dec ? "dec" : "enc", klen * 8, len);
                }
            }
        }
    }
    printf("asm any-length enc/dec_update path: %d cases vs OpenSSL EVP: %s\n", xchecks,
           xfails ? "FAILED" : "all match");
    fails += xfails;
    return fails != 0;
}

/* ---- timing ---- */
static inline uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

enum { IMPL_OURS = 0, IMPL_BSSL = 1 };
typedef struct {
    const aesgen_gcm_key *ak;
    const bssl_gcm_key *bk;
    const uint8_t *iv, *aad, *src;
    uint8_t *dst;
    const uint8_t *tag;   /* for decrypt */
    uint8_t *tagout;
    size_t len;
    int dec;
} job;

static volatile int sink;

static __attribute__((noinline)) void run_batch(const job *j, int impl, long iters) {
    int acc = 0;
    if (impl == IMPL_OURS) {
        if (!j->dec)
            for (long i = 0; i < iters; i++)
                acc += aesgen_gcm_encrypt(j->ak, j->iv, 12, j->aad, 13, j->dst, j->src, j->len, j->tagout, 16);
        else
            for (long i = 0; i < iters; i++)
                acc += aesgen_gcm_decrypt(j->ak, j->iv, 12, j->aad, 13, j->dst, j->src, j->len, j->tag, 16);
    } else {
        if (!j->dec)
            for (long i = 0; i < iters; i++)
                bssl_seal(j->bk, j->iv, j->aad, 13, j->dst, j->src, j->len, j->tagout);
        else
            for (long i = 0; i < iters; i++)
                acc += bssl_open(j->bk, j->iv, j->aad, 13, j->dst, j->src, j->len, j->tag) - 1;
    }
    sink += acc;
}

static long calibrate(const job *j, int impl, double batch_ns) {
    long iters = 8;
    for (;;) {
        uint64_t t0 = now_ns();
        run_batch(j, impl, iters);
        uint64_t dt = now_ns() - t0;
        if (dt > batch_ns / 4 || iters > (1L << 26)) {
            double per = (double)dt / iters;
            long n = (long)(batch_ns / per);
            return n < 1 ? 1 : n;
        }
        iters *= 2;
    }
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 3;
    int samples = argc > 2 ? atoi(argv[2]) : 21;
    double batch_ns = (argc > 3 ? atof(argv[3]) : 200.0) * 1000.0;
    if (samples < 1 || samples > 1001 || runs < 1) { fprintf(stderr, "bad args\n"); return 2; }

    cpu_set_t set;
    /* BENCH_CPU, else the last CPU this process may run on (as make bench) */
    int cpu = -1;
    if (getenv("BENCH_CPU"))
        cpu = atoi(getenv("BENCH_CPU"));
    else if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                cpu = c;
    CPU_ZERO(&set);
    CPU_SET(cpu < 0 ? 0 : cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) perror("sched_setaffinity");
    else printf("pinned to CPU %d\n", cpu < 0 ? 0 : cpu);

    int r = aesgen_select_isa("avx10_512");
    if (r != AESGEN_OK) { printf("aesgen_select_isa(avx10_512) = %d (%s)\n", r, aesgen_strerror(r)); return 1; }
    printf("aesgen ISA: %s\n", aesgen_isa_name());

    if (correctness()) { printf("correctness check failed: not timing\n"); return 1; }

    static const size_t lens[] = {16, 64, 256, 512, 1024, 1420, 4096, 16384};
    enum { NL = sizeof lens / sizeof *lens };
    uint8_t *src = aligned_alloc(64, MAXLEN + 64), *dst = aligned_alloc(64, MAXLEN + 64);
    uint8_t *ct = aligned_alloc(64, MAXLEN + 64);
    uint8_t key[32], iv[12], aad[13], tag[16], tagout[16];
    fill_rand(key, 32); fill_rand(iv, 12); fill_rand(aad, 13); fill_rand(src, MAXLEN);

    printf("\nper-record: 12-byte IV, 13-byte AAD, 16-byte tag; batches ~%.0f us, %d samples per "
           "(length, impl), ours/BoringSSL batches alternate; median ns/record; ratio = BoringSSL/ours "
           "(>1: ours faster)\n", batch_ns / 1000, samples);

    double *so = malloc(sizeof(double) * samples), *sb = malloc(sizeof(double) * samples);
    for (int run = 1; run <= runs; run++) {
        for (int ki = 0; ki < 2; ki++) {
            size_t klen = ki ? 16 : 32;
            static aesgen_gcm_key ak;
            static bssl_gcm_key bk;
            aesgen_gcm_init(&ak, key, klen);
            bssl_gcm_init(&bk, key, klen);
            for (int dec = 0; dec <= 1; dec++) {
                printf("\nrun %d  AES-%zu-GCM %s\n", run, klen * 8, dec ? "decrypt" : "encrypt");
                printf("%7s %14s %14s %8s %10s %10s\n", "length", "ours ns/rec", "bssl ns/rec", "ratio",
                       "ours GB/s", "bssl GB/s");
                for (int li = 0; li < NL; li++) {
                    size_t len = lens[li];
                    job j = {&ak, &bk, iv, aad, dec ? ct : src, dst, tag, tagout, len, dec};
                    if (dec) {   /* valid ciphertext + tag for this length */
                        aesgen_gcm_encrypt(&ak, iv, 12, aad, 13, ct, src, len, tag, 16);
                    }
                    long n_o = calibrate(&j, IMPL_OURS, batch_ns);
                    long n_b = calibrate(&j, IMPL_BSSL, batch_ns);
                    run_batch(&j, IMPL_OURS, n_o);   /* warm-up */
                    run_batch(&j, IMPL_BSSL, n_b);
                    for (int s = 0; s < samples; s++) {
                        for (int k = 0; k < 2; k++) {
                            int impl = (s & 1) ? 1 - k : k;   /* alternate which goes first */
                            long n = impl == IMPL_OURS ? n_o : n_b;
                            uint64_t t0 = now_ns();
                            run_batch(&j, impl, n);
                            uint64_t dt = now_ns() - t0;
                            (impl == IMPL_OURS ? so : sb)[s] = (double)dt / n;
                        }
                    }
                    qsort(so, samples, sizeof *so, cmp_double);
                    qsort(sb, samples, sizeof *sb, cmp_double);
                    double mo = so[samples / 2], mb = sb[samples / 2];
                    printf("%7zu %14.1f %14.1f %8.3f %10.2f %10.2f\n", len, mo, mb, mb / mo, len / mo,
                           len / mb);
                    fflush(stdout);
                }
            }
        }
    }
    return sink == 12345 ? 3 : 0;
}
