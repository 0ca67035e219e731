/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Reading the counter back: aesgen_ctr_get_iv (the next counter block, OpenSSL's
 * updated IV and the Linux crypto API's iv_out) and aesgen_xctr_get_index.
 *  - Known answer: SP 800-38A F.5.1 encrypts 4 blocks from f0f1...feff, whose
 *    counter blocks end ...ff00, ...ff01, ...ff02 after the first: the next is ...ff03.
 *  - OpenSSL differential: after every call of random split streams (counters near
 *    the 2^64 and 2^128 wraps too), get_iv equals EVP_CIPHER_CTX_get_updated_iv of an
 *    EVP aes-N-ctr context fed the same calls.
 *  - Chaining: a message continued with set_iv(get_iv) on a block boundary is the
 *    same as one message.
 *  - XCTR: the index after n bytes, and the next keystream is the reference's from
 *    that index.
 *  - Misuse: NULL arguments, never-initialized contexts: AESGEN_EINVAL, nothing written.
 */
#include <openssl/evp.h>
#include <string.h>

#include "check.h"
#include "harness.h"
#include "isa.h"
#include "reference.h"
#include "tests.h"

static const EVP_CIPHER *evp_ctr(size_t key_len)
{
    return key_len == 16 ? EVP_aes_128_ctr() : key_len == 24 ? EVP_aes_192_ctr()
                                                              : EVP_aes_256_ctr();
}

static void sp800_38a_next_iv(const char *isa)
{
    static const uint8_t key[16] = { 0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
                                     0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c };
    static const uint8_t iv[16] = { 0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,
                                    0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff };
    static const uint8_t next[16] = { 0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,
                                      0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xff, 0x03 };
    uint8_t buf[64] = { 0 }, got[16];
    aesgen_ctr_ctx ctx;
    aesgen_ctr_init_isa(&ctx, key, sizeof key, iv, isa);
    check(aesgen_ctr_get_iv(&ctx, got) == AESGEN_OK && memcmp(got, iv, 16) == 0,
          "%s ctr get_iv after init is the iv", isa);
    aesgen_ctr_crypt(&ctx, buf, buf, sizeof buf);
    check(aesgen_ctr_get_iv(&ctx, got) == AESGEN_OK && memcmp(got, next, 16) == 0,
          "%s ctr get_iv after SP 800-38A F.5.1's 4 blocks is ...fdff03", isa);
}

/* Random split streams against OpenSSL's updated IV after every call. */
static void against_openssl(const char *isa, const uint8_t *pt)
{
    static const uint8_t tails[][16] = {
        { 0 },
        { 0, 0, 0, 0, 0, 0, 0, 0x11, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf9 },
        { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
          0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfa },
    };
    EVP_CIPHER_CTX *evp = EVP_CIPHER_CTX_new();
    if (evp == NULL)
        ref_die("EVP_CIPHER_CTX_new");
    for (size_t k = 0; k < 3; k++) {
        for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
            uint8_t key[32], iv[16], out[2000], ref_out[2000], got[16], want[16];
            size_t key_len = key_sizes[k];
            rng_fill(key, key_len);
            memcpy(iv, tails[t], 16);
            if (t == 0)
                rng_fill(iv, 16);
            aesgen_ctr_ctx ctx;
            if (aesgen_ctr_init_isa(&ctx, key, key_len, iv, isa) != AESGEN_OK ||
                EVP_EncryptInit_ex(evp, evp_ctr(key_len), NULL, key, iv) != 1)
                ref_die("ctr init");
            bool ok = true;
            size_t done = 0;
            for (int call = 0; call < 40 && ok; call++) {
                size_t n = call % 5 == 0 ? 0 : rng_below(70);
                int outl = 0;
                ok = aesgen_ctr_crypt(&ctx, out + done, pt + done, n) == AESGEN_OK &&
                     EVP_EncryptUpdate(evp, ref_out + done, &outl, pt + done, (int)n) == 1 &&
                     EVP_CIPHER_CTX_get_updated_iv(evp, want, 16) == 1 &&
                     aesgen_ctr_get_iv(&ctx, got) == AESGEN_OK && memcmp(got, want, 16) == 0 &&
                     memcmp(out + done, ref_out + done, n) == 0;
                done += n;
            }
            check(ok, "%s ctr aes-%u get_iv equals OpenSSL's updated IV after every call "
                  "(iv case %zu, %zu bytes)", isa, key_bits(key_len), t, done);
        }
    }
    EVP_CIPHER_CTX_free(evp);
}

/* set_iv(get_iv) continues a stream cut on a block boundary; after a partial block it
 * starts the next block (the rest of the partial block is skipped). */
static void chaining(const char *isa, const uint8_t *pt)
{
    uint8_t key[16], iv[16], next[16], want[800], got[800];
    rng_fill(key, sizeof key);
    rng_fill(iv, sizeof iv);
    ref_ctr(key, sizeof key, iv, want, pt, sizeof want);
    aesgen_ctr_ctx ctx;
    aesgen_ctr_init_isa(&ctx, key, sizeof key, iv, isa);
    aesgen_ctr_crypt(&ctx, got, pt, 320);
    aesgen_ctr_get_iv(&ctx, next);
    aesgen_ctr_set_iv(&ctx, next);
    aesgen_ctr_crypt(&ctx, got + 320, pt + 320, sizeof got - 320);
    check_bytes(got, want, sizeof want, "%s ctr set_iv(get_iv) at a block boundary continues "
                "the message", isa);
    aesgen_ctr_set_iv(&ctx, iv);
    aesgen_ctr_crypt(&ctx, got, pt, 100);        /* 6 blocks and 4 bytes: 7 begun */
    aesgen_ctr_get_iv(&ctx, next);
    aesgen_ctr_set_iv(&ctx, next);
    aesgen_ctr_crypt(&ctx, got + 112, pt + 112, 200);
    check_bytes(got + 112, want + 112, 200, "%s ctr set_iv(get_iv) after a partial block "
                "starts at the next block", isa);
}

static void xctr_index(const char *isa, const uint8_t *pt)
{
    uint8_t key[24], iv[16], got[600], want[600];
    rng_fill(key, sizeof key);
    rng_fill(iv, sizeof iv);
    aesgen_xctr_ctx ctx;
    uint64_t index = 0;
    aesgen_xctr_init_isa(&ctx, key, sizeof key, iv, isa);
    check(aesgen_xctr_get_index(&ctx, &index) == AESGEN_OK && index == 1,
          "%s xctr index after init is 1 (got %llu)", isa, (unsigned long long)index);
    static const size_t splits[] = { 0, 1, 15, 16, 17, 33, 100, 256 };
    size_t done = 0;
    bool ok = true;
    for (size_t i = 0; i < sizeof splits / sizeof splits[0]; i++) {
        aesgen_xctr_crypt(&ctx, got, pt, splits[i]);
        done += splits[i];
        uint64_t begun = (done + 15) / 16;
        ok = ok && aesgen_xctr_get_index(&ctx, &index) == AESGEN_OK && index == 1 + begun;
    }
    check(ok, "%s xctr index is 1 + the blocks begun after every call", isa);
    /* On a block boundary the next keystream is the reference's from that index. */
    aesgen_xctr_set_iv(&ctx, iv);
    aesgen_xctr_crypt(&ctx, got, pt, 160);
    aesgen_xctr_get_index(&ctx, &index);
    ref_xctr(key, sizeof key, iv, index, want, pt, 200);
    aesgen_xctr_crypt(&ctx, got, pt, 200);
    check(index == 11 && memcmp(got, want, 200) == 0,
          "%s xctr: after index %llu the keystream is block %llu's", isa,
          (unsigned long long)index, (unsigned long long)index);
    aesgen_xctr_set_iv(&ctx, iv);
    check(aesgen_xctr_get_index(&ctx, &index) == AESGEN_OK && index == 1,
          "%s xctr index after set_iv is 1", isa);
    /* The end of the context: index 0 once block 2^64 - 1 has begun. */
    aesgen_xctr_set_iv(&ctx, iv);
    ctx.index = UINT64_MAX - 1;
    aesgen_xctr_crypt(&ctx, got, pt, 20);
    check(aesgen_xctr_get_index(&ctx, &index) == AESGEN_OK && index == 0,
          "%s xctr index reads 0 at the end of the context (got %llu)", isa,
          (unsigned long long)index);
}

static void misuse(void)
{
    uint8_t key[16] = { 1 }, iv[16] = { 2 }, out[16];
    uint64_t index = 77;
    aesgen_ctr_ctx ctx, blank;
    aesgen_xctr_ctx xctx, xblank;
    memset(&blank, 0, sizeof blank);
    memset(&xblank, 0, sizeof xblank);
    aesgen_ctr_init(&ctx, key, sizeof key, iv);
    aesgen_xctr_init(&xctx, key, sizeof key, iv);
    memset(out, 0xee, sizeof out);
    check(aesgen_ctr_get_iv(NULL, out) == AESGEN_EINVAL && all_bytes_are(out, 16, 0xee),
          "ctr get_iv NULL ctx: EINVAL, iv untouched");
    check(aesgen_ctr_get_iv(&ctx, NULL) == AESGEN_EINVAL, "ctr get_iv NULL iv: EINVAL");
    check(aesgen_ctr_get_iv(&blank, out) == AESGEN_EINVAL && all_bytes_are(out, 16, 0xee),
          "ctr get_iv on a never-initialized context: EINVAL, iv untouched");
    check(aesgen_xctr_get_index(NULL, &index) == AESGEN_EINVAL && index == 77,
          "xctr get_index NULL ctx: EINVAL, index untouched");
    check(aesgen_xctr_get_index(&xctx, NULL) == AESGEN_EINVAL, "xctr get_index NULL index");
    check(aesgen_xctr_get_index(&xblank, &index) == AESGEN_EINVAL && index == 77,
          "xctr get_index on a never-initialized context: EINVAL, index untouched");
}

void test_counter_readback(const struct test_config *config)
{
    (void)config;
    check_set_group("counter-readback");
    uint8_t pt[2000];
    rng_fill(pt, sizeof pt);
    FOR_EACH_RUNNABLE_ISA(isa) {
        sp800_38a_next_iv(isa->name);
        against_openssl(isa->name, pt);
        chaining(isa->name, pt);
        xctr_index(isa->name, pt);
    }
    misuse();
}
