/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * XTS API and sector-helper tests.
 *
 * xts-api: bad key lengths and NULL pointers -> AESGEN_EINVAL with the context
 * untouched; len 0..15 -> AESGEN_EINVAL with dst (and an in-place buffer)
 * untouched; the largest data unit (AESGEN_XTS_MAX_DATA_UNIT, 2^20 blocks) against
 * the reference, one byte or block more -> AESGEN_EINVAL with dst untouched; K1 == K2 accepted; encrypt/decrypt only read the context; white
 * box: the context's three schedules against the tests' own key expansion
 * (k1_dec = the equivalent inverse cipher schedule the asm decrypt needs, also
 * checked against the CPU's AESIMC where there is AES-NI); contexts keep the ISA
 * of their init, and an asm ISA's context holds its generated XTS functions
 * once they are linked.
 *
 * xts-sectors: aesgen_xts_{en,de}crypt_sectors against one call per sector and
 * against the reference, for sector sizes 16, 512, 520 (stealing in every
 * sector) and 4096; first sectors 0, near 2^32, up to 2^64 - 1 and across it
 * (the sector number carries into byte 8); EINVAL for a len that is not a
 * multiple of the sector size and for sector sizes below 16 (dst untouched);
 * len 0 accepted.
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness.h"
#include "isa.h"
#include "reference.h"
#include "tests.h"
#include "xts_harness.h"

static void bad_key_lengths(const char *isa)
{
    static const size_t bad[] = { 0, 1, 16, 24, 31, 33, 40, 47, 49, 56, 63, 65, 96, 128, SIZE_MAX };
    uint8_t key[128];
    aesgen_xts_ctx ctx;
    xts_random_key(key, sizeof key);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fill_pattern(&ctx, sizeof ctx);
        check_int(aesgen_xts_init(&ctx, key, bad[i]), AESGEN_EINVAL, "%s xts init key_len %zu",
                  isa, bad[i]);
        check(still_pattern(&ctx, sizeof ctx), "%s xts init key_len %zu leaves ctx untouched",
              isa, bad[i]);
    }
    for (size_t k = 0; k < 3; k++)
        check_int(aesgen_xts_init(&ctx, key, xts_key_sizes[k]), AESGEN_OK,
                  "%s xts init key_len %zu", isa, xts_key_sizes[k]);
}

static void null_pointers(const char *isa)
{
    uint8_t key[64], tweak[16] = { 1 }, src[32] = { 2 }, dst[32];
    aesgen_xts_ctx ctx;
    xts_random_key(key, sizeof key);
    fill_pattern(&ctx, sizeof ctx);
    check_int(aesgen_xts_init(&ctx, NULL, 32), AESGEN_EINVAL, "%s xts init with NULL key", isa);
    check(still_pattern(&ctx, sizeof ctx), "%s xts init with NULL key leaves ctx untouched", isa);
    check_int(aesgen_xts_init(NULL, key, 32), AESGEN_EINVAL, "%s xts init with NULL ctx", isa);
    aesgen_xts_init(&ctx, key, 32);
    for (int d = 0; d < 2; d++) {
        enum xts_dir dir = (enum xts_dir)d;
        const char *name = xts_dir_name(dir);
        memset(dst, 0xee, sizeof dst);
        check_int(xts_api(NULL, dir, dst, src, 32, tweak), AESGEN_EINVAL, "%s xts %s NULL ctx",
                  isa, name);
        check_int(xts_api(&ctx, dir, NULL, src, 32, tweak), AESGEN_EINVAL, "%s xts %s NULL dst",
                  isa, name);
        check_int(xts_api(&ctx, dir, dst, NULL, 32, tweak), AESGEN_EINVAL, "%s xts %s NULL src",
                  isa, name);
        check_int(xts_api(&ctx, dir, dst, src, 32, NULL), AESGEN_EINVAL, "%s xts %s NULL tweak",
                  isa, name);
        check_int(xts_api_sectors(NULL, dir, dst, src, 32, 16, 0), AESGEN_EINVAL,
                  "%s xts %s sectors NULL ctx", isa, name);
        check(dst[0] == 0xee && dst[31] == 0xee, "%s xts %s: refused calls leave dst untouched",
              isa, name);
    }
}

/* len 0..15 is refused and nothing is written, out of place or in place. */
static void short_units(const char *isa)
{
    uint8_t key[64], tweak[16], src[16], buf[16];
    aesgen_xts_ctx ctx;
    xts_random_key(key, sizeof key);
    rng_fill(tweak, sizeof tweak);
    rng_fill(src, sizeof src);
    aesgen_xts_init(&ctx, key, 64);
    for (int d = 0; d < 2; d++) {
        enum xts_dir dir = (enum xts_dir)d;
        for (size_t len = 0; len < 16; len++) {
            struct guarded dst = guarded_alloc(16, 0);
            memset(dst.data, 0xee, 16);
            int rc = xts_api(&ctx, dir, dst.data, src, len, tweak);
            bool untouched = guarded_intact(&dst) && all_bytes_are(dst.data, 16, 0xee);
            check(rc == AESGEN_EINVAL && untouched, "%s xts %s len=%zu: EINVAL (got %d), dst untouched",
                  isa, xts_dir_name(dir), len, rc);
            memcpy(buf, src, 16);
            rc = xts_api(&ctx, dir, buf, buf, len, tweak);
            check(rc == AESGEN_EINVAL && memcmp(buf, src, 16) == 0,
                  "%s xts %s len=%zu in place: EINVAL (got %d), buffer untouched", isa,
                  xts_dir_name(dir), len, rc);
            guarded_free(&dst);
        }
    }
}

/* IEEE 1619's limit: 2^20 blocks per data unit work, anything longer is refused. */
static void largest_units(const char *isa)
{
    const size_t max = AESGEN_XTS_MAX_DATA_UNIT;
    uint8_t key[64], tweak[16];
    aesgen_xts_ctx ctx;
    xts_random_key(key, sizeof key);
    rng_fill(tweak, sizeof tweak);
    aesgen_xts_init(&ctx, key, sizeof key);
    uint8_t *src = xmalloc(max + 16), *dst = xmalloc(max + 16), *want = xmalloc(max);
    rng_fill(src, max + 16);
    for (int d = 0; d < 2; d++) {
        enum xts_dir dir = (enum xts_dir)d;
        static const size_t ok_lens[] = { AESGEN_XTS_MAX_DATA_UNIT, AESGEN_XTS_MAX_DATA_UNIT - 1 };
        for (size_t i = 0; i < 2; i++) {
            xts_reference(dir, key, sizeof key, tweak, want, src, ok_lens[i]);
            int rc = xts_api(&ctx, dir, dst, src, ok_lens[i], tweak);
            check_int(rc, AESGEN_OK, "%s xts %s len=%zu (the largest data units)", isa,
                      xts_dir_name(dir), ok_lens[i]);
            check_bytes(dst, want, ok_lens[i], "%s xts %s len=%zu against the reference", isa,
                        xts_dir_name(dir), ok_lens[i]);
        }
        static const size_t long_lens[] = { AESGEN_XTS_MAX_DATA_UNIT + 1,
                                            AESGEN_XTS_MAX_DATA_UNIT + 16 };
        for (size_t i = 0; i < 2; i++) {
            memset(dst, 0xee, max + 16);
            int rc = xts_api(&ctx, dir, dst, src, long_lens[i], tweak);
            check(rc == AESGEN_EINVAL && all_bytes_are(dst, max + 16, 0xee),
                  "%s xts %s len=%zu (over 2^20 blocks): EINVAL (got %d), dst untouched", isa,
                  xts_dir_name(dir), long_lens[i], rc);
        }
        memset(dst, 0xee, max + 16);
        int rc = xts_api_sectors(&ctx, dir, dst, src, max + 16, max + 16, 0);
        check(rc == AESGEN_EINVAL && all_bytes_are(dst, max + 16, 0xee),
              "%s xts %s_sectors sector_size=%zu (over 2^20 blocks): EINVAL (got %d), dst "
              "untouched", isa, xts_dir_name(dir), max + 16, rc);
    }
    free(want);
    free(dst);
    free(src);
}

/* Encrypt and decrypt take a const context: it must stay as init left it. */
static void context_only_read(const char *isa)
{
    uint8_t key[48], tweak[16], src[600], dst[600];
    aesgen_xts_ctx ctx, before;
    xts_random_key(key, sizeof key);
    rng_fill(tweak, sizeof tweak);
    rng_fill(src, sizeof src);
    aesgen_xts_init(&ctx, key, sizeof key);
    memcpy(&before, &ctx, sizeof ctx);
    aesgen_xts_encrypt(&ctx, dst, src, 517, tweak);
    aesgen_xts_decrypt(&ctx, dst, src, 517, tweak);
    aesgen_xts_encrypt_sectors(&ctx, dst, src, 520, 520, 7);
    aesgen_xts_decrypt_sectors(&ctx, dst, src, 512, 16, 7);
    check(memcmp(&before, &ctx, sizeof ctx) == 0, "%s xts: encrypt/decrypt leave the context as "
          "init made it", isa);
}

/* IEEE 1619-2018 wants K1 != K2: aesgen_xts_init refuses equal halves; the opt-in
 * call for legacy keys accepts them and computes XTS as the ECB-built reference does. */
static void equal_halves(const char *isa)
{
    uint8_t key[64], tweak[16], src[100], got[100], want[100];
    rng_fill(key, 32);
    memcpy(key + 32, key, 32);
    rng_fill(tweak, sizeof tweak);
    rng_fill(src, sizeof src);
    aesgen_xts_ctx ctx;
    fill_pattern(&ctx, sizeof ctx);
    check_int(aesgen_xts_init(&ctx, key, 64), AESGEN_EINVAL, "%s xts init with K1 == K2", isa);
    check(still_pattern(&ctx, sizeof ctx), "%s xts init with K1 == K2 leaves ctx untouched", isa);
    if (!check_int(aesgen_xts_init_allow_equal_keys(&ctx, key, 64, NULL), AESGEN_OK,
                   "%s xts init_allow_equal_keys with K1 == K2", isa))
        return;
    aesgen_xts_encrypt(&ctx, got, src, sizeof src, tweak);
    ref_xts_ecb(1, key, 64, tweak, want, src, sizeof src);
    check_bytes(got, want, sizeof src, "%s xts encrypt with K1 == K2", isa);
}

/* The tests' InvMixColumns against the CPU's AESIMC: the schedule checks below
 * and the direct asm calls of xts-abi rely on it. */
__attribute__((target("aes,sse2"))) static void aesimc_hw(const uint8_t in[16], uint8_t out[16])
{
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)in);
    _mm_storeu_si128((__m128i *)(void *)out, _mm_aesimc_si128(x));
}

static void inv_mix_columns_self_test(void)
{
    const char *missing;
    if (!cpu_can_run("aesni_avx", &missing)) {
        check_skip("xts: AESIMC cross-check of the test's InvMixColumns (CPU lacks %s)", missing);
        return;
    }
    bool same = true;
    for (int i = 0; i < 200; i++) {
        uint8_t in[16], hw[16], sw[16];
        rng_fill(in, 16);
        aesimc_hw(in, hw);
        ref_inv_mix_columns(in, sw);
        same &= memcmp(hw, sw, 16) == 0;
    }
    check(same, "test InvMixColumns agrees with AESIMC");
}

/* The round keys and their 64-byte rows (every slot: the unused ones are zero in both). */
static bool same_schedule(const aesgen_aes_key *a, const aesgen_aes_key *b)
{
    return a->rounds == b->rounds && memcmp(a->rk, b->rk, 16 * (a->rounds + 1)) == 0
           && memcmp(a->rk_rows, b->rk_rows, sizeof a->rk_rows) == 0;
}

/* White box: the three schedules init stores, from the tests' own expansion. */
static void schedules(const char *isa)
{
    for (size_t k = 0; k < 3; k++) {
        size_t key_len = xts_key_sizes[k], half = key_len / 2;
        uint8_t key[64];
        aesgen_aes_key k1, k1_dec, k2;
        aesgen_xts_ctx ctx;
        xts_random_key(key, key_len);
        ref_expand_key(key, half, &k1);
        ref_expand_key(key + half, half, &k2);
        ref_expand_dec_key(&k1, &k1_dec);
        aesgen_xts_init(&ctx, key, key_len);
        check(same_schedule(&ctx.k1_enc, &k1), "%s xts aes-%u: ctx k1_enc is K1's schedule", isa,
              xts_aes_bits(key_len));
        check(same_schedule(&ctx.k2_enc, &k2), "%s xts aes-%u: ctx k2_enc is K2's schedule", isa,
              xts_aes_bits(key_len));
        check(same_schedule(&ctx.k1_dec, &k1_dec),
              "%s xts aes-%u: ctx k1_dec is K1's equivalent-inverse-cipher schedule", isa,
              xts_aes_bits(key_len));
    }
}

/* A context keeps the implementation of its init after the selection moves on. */
static void contexts_keep_their_isa(void)
{
    uint8_t key[64], tweak[16], src[333], want[333], got[333];
    xts_random_key(key, sizeof key);
    rng_fill(tweak, sizeof tweak);
    rng_fill(src, sizeof src);
    ref_xts_evp(1, key, 64, tweak, want, src, sizeof src);
    FOR_EACH_RUNNABLE_ISA(first) {
        FOR_EACH_RUNNABLE_ISA(second) {
            if (first == second || !isa_select(first))
                continue;
            aesgen_xts_ctx ctx;
            aesgen_xts_init(&ctx, key, sizeof key);
            if (!isa_select(second))
                continue;
            aesgen_xts_encrypt(&ctx, got, src, sizeof src, tweak);
            check_bytes(got, want, sizeof src, "xts ctx from %s used after selecting %s",
                        first->name, second->name);
            if (first->is_asm && first->xts_encrypt_fn && first->xts_decrypt_fn)
                check(ctx.encrypt == first->xts_encrypt_fn && ctx.decrypt == first->xts_decrypt_fn,
                      "xts ctx from %s holds aesgen_xts_{en,de}crypt_%s", first->name, first->name);
        }
    }
}

void test_xts_api(const struct test_config *config)
{
    (void)config;
    check_set_group("xts-api");
    inv_mix_columns_self_test();
    FOR_EACH_RUNNABLE_ISA(isa) {
        if (!isa_select(isa))
            continue;
        bad_key_lengths(isa->name);
        null_pointers(isa->name);
        short_units(isa->name);
        largest_units(isa->name);
        context_only_read(isa->name);
        equal_halves(isa->name);
        schedules(isa->name);
    }
    contexts_keep_their_isa();
}

/* ---- sector helpers -------------------------------------------------------- */

enum { SECTOR_BUF = 4 * 4096 };

/* len = count * sector_size through the helper, against one API call and one
 * reference call per sector. */
static void check_sectors(const char *isa, const aesgen_xts_ctx *ctx, const uint8_t *key,
                          size_t key_len, enum xts_dir dir, size_t sector_size, size_t count,
                          uint64_t first, const uint8_t *in)
{
    size_t len = sector_size * count;
    struct guarded got = guarded_alloc(len, 1);
    uint8_t *per_call = xmalloc(len), *want = xmalloc(len), tweak[16];
    int rc = xts_api_sectors(ctx, dir, got.data, in, len, sector_size, first);
    bool calls_ok = true;
    for (size_t i = 0; i < count; i++) {
        xts_sector_tweak(first, i, tweak);
        calls_ok &= xts_api(ctx, dir, per_call + i * sector_size, in + i * sector_size,
                            sector_size, tweak) == AESGEN_OK;
        xts_reference(dir, key, key_len, tweak, want + i * sector_size, in + i * sector_size,
                      sector_size);
    }
    const char *d = xts_dir_name(dir);
    unsigned bits = xts_aes_bits(key_len);
    check(rc == AESGEN_OK && calls_ok && memcmp(got.data, per_call, len) == 0
          && guarded_intact(&got),
          "%s xts aes-%u %s_sectors %zu x %zu from sector %#llx: same as one call per sector "
          "(rc %d)", isa, bits, d, count, sector_size, (unsigned long long)first, rc);
    check_bytes(got.data, want, len, "%s xts aes-%u %s_sectors %zu x %zu from sector %#llx: "
                "matches the reference with tweak = sector number, 16 bytes LE", isa, bits, d,
                count, sector_size, (unsigned long long)first);
    /* in place */
    memcpy(got.data, in, len);
    rc = xts_api_sectors(ctx, dir, got.data, got.data, len, sector_size, first);
    check(rc == AESGEN_OK && memcmp(got.data, want, len) == 0 && guarded_intact(&got),
          "%s xts aes-%u %s_sectors %zu x %zu from sector %#llx in place (rc %d)", isa, bits, d,
          count, sector_size, (unsigned long long)first, rc);
    guarded_free(&got);
    free(per_call);
    free(want);
}

static void sector_layouts(const char *isa, const uint8_t *in)
{
    static const size_t sector_sizes[] = { 16, 512, 520, 4096 };
    static const size_t counts[] = { 1, 2, 3 };
    for (size_t k = 0; k < 3; k++) {
        uint8_t key[64];
        aesgen_xts_ctx ctx;
        size_t key_len = xts_key_sizes[k];
        xts_random_key(key, key_len);
        if (!check_int(aesgen_xts_init(&ctx, key, key_len), AESGEN_OK, "%s xts init", isa))
            continue;
        for (size_t s = 0; s < sizeof sector_sizes / sizeof sector_sizes[0]; s++) {
            size_t size = sector_sizes[s];
            size_t max_count = SECTOR_BUF / size < 7 ? SECTOR_BUF / size : 7;
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                size_t count = counts[c];
                /* The last sector is 2^32 - 1, 2^32; the last is 2^64 - 1; one past it. */
                const uint64_t firsts[] = { 0, (uint64_t)rng_next() >> 8, 0xffffffffu - count + 1,
                                            0xffffffffu, UINT64_MAX - count + 1, UINT64_MAX };
                for (size_t f = 0; f < sizeof firsts / sizeof firsts[0]; f++)
                    for (int d = 0; d < 2; d++)
                        check_sectors(isa, &ctx, key, key_len, (enum xts_dir)d, size, count,
                                      firsts[f], in);
            }
            for (int d = 0; d < 2; d++)
                check_sectors(isa, &ctx, key, key_len, (enum xts_dir)d, size, max_count,
                              UINT64_MAX - 1, in);
        }
    }
}

static void sector_errors(const char *isa, const uint8_t *in)
{
    static const struct { size_t len, sector_size; } bad[] = {
        { 513, 512 }, { 1000, 512 }, { 511, 512 }, { 1041, 520 }, { 1039, 520 }, { 4097, 4096 },
        { 4095, 4096 }, { 17, 16 }, { 8, 16 },
        { 15, 15 }, { 30, 15 }, { 16, 8 }, { 1, 1 }, { 0, 0 }, { 32, 0 },
    };
    uint8_t key[32];
    aesgen_xts_ctx ctx;
    xts_random_key(key, sizeof key);
    aesgen_xts_init(&ctx, key, sizeof key);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        for (int d = 0; d < 2; d++) {
            struct guarded dst = guarded_alloc(bad[i].len, 0);
            memset(dst.data, 0xee, bad[i].len);
            int rc = xts_api_sectors(&ctx, (enum xts_dir)d, dst.data, in, bad[i].len,
                                     bad[i].sector_size, 5);
            bool untouched = guarded_intact(&dst) && all_bytes_are(dst.data, bad[i].len, 0xee);
            check(rc == AESGEN_EINVAL && untouched,
                  "%s xts %s_sectors len=%zu sector_size=%zu: EINVAL (got %d), dst untouched",
                  isa, xts_dir_name((enum xts_dir)d), bad[i].len, bad[i].sector_size, rc);
            guarded_free(&dst);
        }
    }
    static const size_t sizes_for_empty[] = { 16, 512, 520, 4096 };
    for (size_t i = 0; i < sizeof sizes_for_empty / sizeof sizes_for_empty[0]; i++) {
        for (int d = 0; d < 2; d++) {
            uint8_t dst[16];
            memset(dst, 0xee, sizeof dst);
            int rc = xts_api_sectors(&ctx, (enum xts_dir)d, dst, in, 0, sizes_for_empty[i], 9);
            check(rc == AESGEN_OK && dst[0] == 0xee,
                  "%s xts %s_sectors len=0 sector_size=%zu: OK (got %d), nothing written", isa,
                  xts_dir_name((enum xts_dir)d), sizes_for_empty[i], rc);
        }
    }
}

void test_xts_sectors(const struct test_config *config)
{
    (void)config;
    check_set_group("xts-sectors");
    uint8_t *in = xmalloc(SECTOR_BUF);
    rng_fill(in, SECTOR_BUF);
    FOR_EACH_RUNNABLE_ISA(isa) {
        if (!isa_select(isa))
            continue;
        sector_errors(isa->name, in);
        sector_layouts(isa->name, in);
    }
    free(in);
}
