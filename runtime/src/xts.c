/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * XTS API glue: key setup (with the K1 != K2 rule), argument checks, and the sector
 * helpers.
 *
 * One call is one data unit and the implementation (asm or generic) does all
 * of it, tweak encryption and ciphertext stealing included, so encrypt and
 * decrypt are a check and a tail call.  The context is never written after
 * init, which is why it is const and shareable between threads.
 */
#include <string.h>
#include "bytes.h"
#include "internal.h"

/* K1 || K2 with each half an AES-128, -192 or -256 key. */
static int xts_key_len_valid(size_t key_len)
{
    return key_len == 32 || key_len == 48 || key_len == 64;
}

/* One data unit: at least one block, at most 2^20 (IEEE 1619-2018, SP 800-38E). */
static int unit_len_valid(size_t len)
{
    return len >= 16 && len <= AESGEN_XTS_MAX_DATA_UNIT;
}

/* The checks and key setup of both init calls; allow_equal: K1 == K2 is accepted. */
static int xts_init(aesgen_xts_ctx *ctx, const uint8_t *key, size_t key_len, const char *isa,
                    int allow_equal)
{
    if (ctx == NULL || key == NULL || !xts_key_len_valid(key_len))
        return AESGEN_EINVAL;
    const size_t half = key_len / 2;
    /* IEEE 1619-2018 5.1: the halves must differ.  Compared in constant time, so the
     * time a refusal takes tells nothing about where the halves differ. */
    if (!allow_equal && aesgen_ct_equal(key, key + half, half))
        return AESGEN_EINVAL;
    const aesgen_isa_impl *impl;
    aesgen_mode_fns fns;
    const int err = aesgen_isa_resolve(isa, &impl, &fns);
    if (err != AESGEN_OK)
        return err;
    uint8_t copy[64];
    memcpy(copy, key, key_len);   /* key may lie in ctx, which is written below */
    impl->expand(&ctx->k1_enc, copy, half);
    impl->expand(&ctx->k2_enc, copy + half, half);
    impl->dec_key(&ctx->k1_dec, &ctx->k1_enc);
    aesgen_wipe(copy, sizeof copy);
    ctx->encrypt = fns.xts_encrypt;
    ctx->decrypt = fns.xts_decrypt;
    return AESGEN_OK;
}

int aesgen_xts_init(aesgen_xts_ctx *ctx, const uint8_t *key, size_t key_len)
{
    return xts_init(ctx, key, key_len, NULL, 0);
}

int aesgen_xts_init_isa(aesgen_xts_ctx *ctx, const uint8_t *key, size_t key_len, const char *isa)
{
    return xts_init(ctx, key, key_len, isa, 0);
}

int aesgen_xts_init_allow_equal_keys(aesgen_xts_ctx *ctx, const uint8_t *key, size_t key_len,
                                     const char *isa)
{
    return xts_init(ctx, key, key_len, isa, 1);
}

int aesgen_xts_encrypt(const aesgen_xts_ctx *ctx, uint8_t *dst, const uint8_t *src,
                       size_t len, const uint8_t tweak[16])
{
    if (ctx == NULL || ctx->encrypt == NULL || dst == NULL || src == NULL || tweak == NULL
        || !unit_len_valid(len))
        return AESGEN_EINVAL;
    return ctx->encrypt(&ctx->k1_enc, &ctx->k2_enc, dst, src, len, tweak);
}

int aesgen_xts_decrypt(const aesgen_xts_ctx *ctx, uint8_t *dst, const uint8_t *src,
                       size_t len, const uint8_t tweak[16])
{
    if (ctx == NULL || ctx->decrypt == NULL || dst == NULL || src == NULL || tweak == NULL
        || !unit_len_valid(len))
        return AESGEN_EINVAL;
    return ctx->decrypt(&ctx->k1_dec, &ctx->k2_enc, dst, src, len, tweak);
}

/*
 * Sector s = first_sector + i as a 16-byte little-endian tweak: the low word
 * wraps at most once (there are fewer than 2^64 sectors), carrying into byte 8.
 */
static void sector_tweak(uint8_t tweak[16], uint64_t first_sector, uint64_t i)
{
    const uint64_t lo = first_sector + i;
    memset(tweak, 0, 16);
    store_le64(tweak, lo);
    tweak[8] = (uint8_t)(lo < first_sector);
}

/* Checks everything, then one implementation call per sector (none for len 0). */
static int xts_sectors(const aesgen_xts_ctx *ctx, int decrypt, uint8_t *dst,
                       const uint8_t *src, size_t len, size_t sector_size,
                       uint64_t first_sector)
{
    if (ctx == NULL || !unit_len_valid(sector_size) || len % sector_size != 0
        || (len != 0 && (dst == NULL || src == NULL)))
        return AESGEN_EINVAL;
    aesgen_xts_fn *fn = decrypt ? ctx->decrypt : ctx->encrypt;
    const aesgen_aes_key *key1 = decrypt ? &ctx->k1_dec : &ctx->k1_enc;
    if (fn == NULL)
        return AESGEN_EINVAL;
    uint8_t tweak[16];
    const size_t count = len / sector_size;
    for (size_t i = 0; i < count; i++) {
        sector_tweak(tweak, first_sector, i);
        fn(key1, &ctx->k2_enc, dst + i * sector_size, src + i * sector_size, sector_size, tweak);
    }
    return AESGEN_OK;
}

int aesgen_xts_encrypt_sectors(const aesgen_xts_ctx *ctx, uint8_t *dst, const uint8_t *src,
                               size_t len, size_t sector_size, uint64_t first_sector)
{
    return xts_sectors(ctx, 0, dst, src, len, sector_size, first_sector);
}

int aesgen_xts_decrypt_sectors(const aesgen_xts_ctx *ctx, uint8_t *dst, const uint8_t *src,
                               size_t len, size_t sector_size, uint64_t first_sector)
{
    return xts_sectors(ctx, 1, dst, src, len, sector_size, first_sector);
}
