/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * A program written against a vendored bundle's aesgen.h and aesgen_asm.h, as a user
 * writes it (tests/python/test_vendor.py builds it with CMake, Meson, sources.mk and
 * plain cc, one bundle or two).  KAT_ENTRY(vectors, expect_isa) (default name kat_run;
 * the two-bundle program compiles this file once per bundle with -DKAT_ENTRY=...):
 *  - the ISA the bundle picked is expect_isa (so a bundle whose assembly is missing or
 *    unused fails: no silent C fallback);
 *  - every line of the vectors file (tests/vendor/vectors.py writes it from
 *    tests/vectors/normalized) of a mode the bundle has, on every ISA of the bundle the
 *    CPU runs and on the portable code;
 *  - the known-answer bytes of aesgen_asm.h against the key layouts the runtime
 *    fills (the round keys; the GCM H powers), and one raw entry point called directly.
 * Prints "<entry>: N passed, N failed" and returns the failure count.  With
 * -DKAT_DLLEXPORT the entry is __declspec(dllexport) (a Windows DLL's one export,
 * tests/vendor/consumer_win.mk).  Portable to MinGW: no aligned_alloc (the GCM keys are
 * aligned locals: the type's own 16 bytes are all the library needs).
 */
#include <aesgen.h>
#include <aesgen_asm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef KAT_ENTRY
#define KAT_ENTRY kat_run
#endif
#if defined(KAT_DLLEXPORT)
#define KAT_EXPORT __declspec(dllexport)
#else
#define KAT_EXPORT
#endif
#define KAT_STR2(x) #x
#define KAT_STR(x) KAT_STR2(x)

static int passed, failed;

static void check(int ok, const char *what, const char *detail)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL %s: %s (%s)\n", KAT_STR(KAT_ENTRY), what, detail);
    }
}

static size_t unhex(const char *hex, uint8_t **out)
{
    size_t n = strcmp(hex, "-") == 0 ? 0 : strlen(hex) / 2;
    *out = malloc(n + 1);
    for (size_t i = 0; i < n; i++) {
        unsigned byte;
        sscanf(hex + 2 * i, "%2x", &byte);
        (*out)[i] = (uint8_t)byte;
    }
    return n;
}

/* The ISAs a bundle can have (a name not built in is simply not supported). */
static const char *const isas[] = { "generic", "vperm_ssse3", "aesni_avx", "vaes_avx2", "avx10_256",
                                    "avx10_512" };
#define ISA_COUNT (sizeof isas / sizeof isas[0])

typedef struct vec {
    char mode[8], result[12];
    uint8_t *key, *iv, *aad, *pt, *ct, *tag;
    size_t key_len, iv_len, aad_len, len, tag_len;
} vec;

static void one_vector(const vec *v, const char *isa, const char *line)
{
    uint8_t *out = malloc(v->len + 16), tag[16];
    int rc = AESGEN_EINVAL, ok = 0;
    (void)tag;
#ifdef AESGEN_BUNDLE_CTR
    if (strcmp(v->mode, "ctr") == 0) {
        aesgen_ctr_ctx ctx;
        rc = aesgen_ctr_init_isa(&ctx, v->key, v->key_len, v->iv, isa);
        if (rc == AESGEN_OK)
            rc = aesgen_ctr_crypt(&ctx, out, v->pt, v->len);
        ok = rc == AESGEN_OK && memcmp(out, v->ct, v->len) == 0;
    }
#endif
#ifdef AESGEN_BUNDLE_XCTR
    if (strcmp(v->mode, "xctr") == 0) {
        aesgen_xctr_ctx ctx;
        rc = aesgen_xctr_init_isa(&ctx, v->key, v->key_len, v->iv, isa);
        if (rc == AESGEN_OK)
            rc = aesgen_xctr_crypt(&ctx, out, v->pt, v->len);
        ok = rc == AESGEN_OK && memcmp(out, v->ct, v->len) == 0;
    }
#endif
#ifdef AESGEN_BUNDLE_XTS
    if (strcmp(v->mode, "xts") == 0) {
        aesgen_xts_ctx ctx;
        rc = aesgen_xts_init_allow_equal_keys(&ctx, v->key, v->key_len, isa);
        if (rc == AESGEN_OK)
            rc = aesgen_xts_encrypt(&ctx, out, v->pt, v->len, v->iv);
        ok = rc == AESGEN_OK && memcmp(out, v->ct, v->len) == 0;
        if (ok)
            ok = aesgen_xts_decrypt(&ctx, out, v->ct, v->len, v->iv) == AESGEN_OK &&
                 memcmp(out, v->pt, v->len) == 0;
    }
#endif
#ifdef AESGEN_BUNDLE_GCM
    if (strcmp(v->mode, "gcm") == 0) {
        aesgen_gcm_key key, *k = &key;
        rc = aesgen_gcm_init_isa(k, v->key, v->key_len, isa);
        if (strcmp(v->result, "valid") == 0) {
            if (rc == AESGEN_OK)
                rc = aesgen_gcm_encrypt(k, v->iv, v->iv_len, v->aad, v->aad_len, out, v->pt,
                                        v->len, tag, v->tag_len);
            ok = rc == AESGEN_OK && memcmp(out, v->ct, v->len) == 0 &&
                 memcmp(tag, v->tag, v->tag_len) == 0;
            if (ok)
                ok = aesgen_gcm_decrypt(k, v->iv, v->iv_len, v->aad, v->aad_len, out, v->ct,
                                        v->len, v->tag, v->tag_len) == AESGEN_OK &&
                     memcmp(out, v->pt, v->len) == 0;
        } else {
            ok = rc != AESGEN_OK ||
                 aesgen_gcm_decrypt(k, v->iv, v->iv_len, v->aad, v->aad_len, out, v->ct,
                                    v->len, v->tag, v->tag_len) != AESGEN_OK;
        }
    }
#endif
    check(ok, line, isa);
    free(out);
}

static int mode_in_bundle(const char *mode)
{
    (void)mode;
#ifdef AESGEN_BUNDLE_CTR
    if (strcmp(mode, "ctr") == 0) return 1;
#endif
#ifdef AESGEN_BUNDLE_XCTR
    if (strcmp(mode, "xctr") == 0) return 1;
#endif
#ifdef AESGEN_BUNDLE_XTS
    if (strcmp(mode, "xts") == 0) return 1;
#endif
#ifdef AESGEN_BUNDLE_GCM
    if (strcmp(mode, "gcm") == 0) return 1;
#endif
    return 0;
}

static void run_vectors(const char *path)
{
    FILE *f = fopen(path, "r");
    check(f != NULL, "open the vectors file", path);
    if (f == NULL)
        return;
    static char line[1 << 16];
    size_t count = 0;
    while (fgets(line, sizeof line, f)) {
        char mode[8], result[12], *fields[6];
        char *copy = strdup(line);
        char *save = NULL, *word = strtok_r(copy, " \n", &save);
        int n = 0;
        if (word)
            snprintf(mode, sizeof mode, "%s", word);
        word = strtok_r(NULL, " \n", &save);
        if (word)
            snprintf(result, sizeof result, "%s", word);
        while (n < 6 && (word = strtok_r(NULL, " \n", &save)) != NULL)
            fields[n++] = word;
        if (n != 6) {
            check(0, "vectors line has 8 fields", line);
            free(copy);
            continue;
        }
        if (!mode_in_bundle(mode)) {
            free(copy);
            continue;
        }
        vec v = { { 0 }, { 0 }, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
        snprintf(v.mode, sizeof v.mode, "%s", mode);
        snprintf(v.result, sizeof v.result, "%s", result);
        v.key_len = unhex(fields[0], &v.key);
        v.iv_len = unhex(fields[1], &v.iv);
        v.aad_len = unhex(fields[2], &v.aad);
        v.len = unhex(fields[3], &v.pt);
        unhex(fields[4], &v.ct);
        v.tag_len = unhex(fields[5], &v.tag);
        for (size_t i = 0; i < ISA_COUNT; i++)
            if (aesgen_isa_supported(isas[i]))
                one_vector(&v, isas[i], mode);
        count++;
        free(v.key), free(v.iv), free(v.aad), free(v.pt), free(v.ct), free(v.tag);
        free(copy);
    }
    fclose(f);
    check(count > 0, "vectors of the bundle's modes were run", path);
    printf("%s: %zu vectors\n", KAT_STR(KAT_ENTRY), count);
}

/* aesgen_asm.h's known answers against what the runtime writes, and one raw call. */
static void run_layouts(void)
{
    static const uint8_t key[16] = AESGEN_ASM_KAT_KEY;
    static const uint8_t round_keys[11 * 16] = AESGEN_ASM_KAT_ROUND_KEYS;
    const aesgen_aes_key *schedule = NULL;
#ifdef AESGEN_BUNDLE_GCM
    static const uint8_t h_power_1[16] = AESGEN_ASM_KAT_H_POWER_1;
    static const uint8_t h_power_2[16] = AESGEN_ASM_KAT_H_POWER_2;
    aesgen_gcm_key gcm_key, *gk = &gcm_key;
    check(aesgen_gcm_init(gk, key, sizeof key) == AESGEN_OK, "gcm init", "layout");
    const uint8_t *bytes = (const uint8_t *)gk;
    check(memcmp(bytes + AESGEN_GCM_H_POWERS_OFFSET + 16 * (AESGEN_GCM_H_POWERS - 1), h_power_1, 16) == 0,
          "h_powers H^1 = AESGEN_ASM_KAT_H_POWER_1", "layout");
    check(memcmp(bytes + AESGEN_GCM_H_POWERS_OFFSET + 16 * (AESGEN_GCM_H_POWERS - 2), h_power_2, 16) == 0,
          "h_powers H^2 = AESGEN_ASM_KAT_H_POWER_2", "layout");
    check(memcmp(bytes, round_keys, sizeof round_keys) == 0 && gk->aes.rounds == 10,
          "gcm key's AES schedule = AESGEN_ASM_KAT_ROUND_KEYS", "layout");
#endif
#ifdef AESGEN_BUNDLE_XTS
    static const uint8_t xts_key[32] = { 0 };
    aesgen_xts_ctx xts;
    check(aesgen_xts_init_allow_equal_keys(&xts, xts_key, sizeof xts_key, NULL) == AESGEN_OK,
          "xts init", "layout");
#endif
#ifdef AESGEN_BUNDLE_CTR
    static const uint8_t iv[16] = { 0 };
    aesgen_ctr_ctx ctr;
    check(aesgen_ctr_init(&ctr, key, sizeof key, iv) == AESGEN_OK, "ctr init", "layout");
    schedule = &ctr.key;
#endif
    if (schedule != NULL)
        check(memcmp(schedule->rk, round_keys, sizeof round_keys) == 0 && schedule->rounds == 10,
              "aesgen_aes_key = AESGEN_ASM_KAT_ROUND_KEYS", "layout");
#if defined(AESGEN_BUNDLE_XTS) && defined(AESGEN_BUNDLE_ISA_AESNI_AVX)
    /* IEEE 1619 vector 1 through the raw entry point (both keys zero, tweak zero). */
    if (aesgen_isa_supported("aesni_avx")) {
        static const uint8_t expect[32] = {
            0x91, 0x7c, 0xf6, 0x9e, 0xbd, 0x68, 0xb2, 0xec, 0x9b, 0x9f, 0xe9, 0xa3, 0xea, 0xdd,
            0xa6, 0x92, 0xcd, 0x43, 0xd2, 0xf5, 0x95, 0x98, 0xed, 0x85, 0x8c, 0x02, 0xc2, 0x65,
            0x2f, 0xbf, 0x92, 0x2e };
        uint8_t in[32] = { 0 }, out[32], tweak[16] = { 0 };
        aesgen_xts_encrypt_aesni_avx(&xts.k1_enc, &xts.k2_enc, out, in, sizeof in, tweak);
        check(memcmp(out, expect, sizeof expect) == 0, "raw aesgen_xts_encrypt_aesni_avx",
              "IEEE 1619 vector 1");
    }
#endif
}

KAT_EXPORT int KAT_ENTRY(const char *vectors, const char *expect_isa)
{
    passed = failed = 0;
    printf("%s: isa %s\n", KAT_STR(KAT_ENTRY), aesgen_isa_name());
    check(strcmp(aesgen_isa_name(), expect_isa) == 0, "the ISA picked", expect_isa);
    run_layouts();
    run_vectors(vectors);
    printf("%s: %d passed, %d failed\n", KAT_STR(KAT_ENTRY), passed, failed);
    return failed;
}
