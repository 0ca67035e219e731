/*
 * Differential check of one set of generated CTR/XCTR/XTS objects against OpenSSL, without
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
#define DECLARE(isa) ctr_fn aesgen_ctr_crypt_##isa; xctr_fn aesgen_xctr_crypt_##isa; \
                     xts_fn aesgen_xts_encrypt_##isa, aesgen_xts_decrypt_##isa;
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
    int (*supported)(void);
} isas[] = {
#define ISA(name, supported) { #name, aesgen_ctr_crypt_##name, aesgen_xctr_crypt_##name, \
                               aesgen_xts_encrypt_##name, aesgen_xts_decrypt_##name, supported }
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
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
