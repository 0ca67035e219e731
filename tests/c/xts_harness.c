/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* Shared helpers of the XTS test groups. */
#include "xts_harness.h"

#include <string.h>

#include "check.h"
#include "reference.h"

const size_t xts_key_sizes[3] = { 32, 48, 64 };

const char *xts_dir_name(enum xts_dir dir)
{
    return dir == XTS_ENCRYPT ? "encrypt" : "decrypt";
}

unsigned xts_aes_bits(size_t xts_key_len)
{
    return (unsigned)(xts_key_len / 2 * 8);
}

bool xts_openssl_has(size_t xts_key_len)
{
    return xts_key_len == 32 || xts_key_len == 64;
}

int xts_api(const aesgen_xts_ctx *ctx, enum xts_dir dir, uint8_t *dst, const uint8_t *src,
            size_t len, const uint8_t tweak[16])
{
    if (dir == XTS_ENCRYPT)
        return aesgen_xts_encrypt(ctx, dst, src, len, tweak);
    return aesgen_xts_decrypt(ctx, dst, src, len, tweak);
}

int xts_api_sectors(const aesgen_xts_ctx *ctx, enum xts_dir dir, uint8_t *dst,
                    const uint8_t *src, size_t len, size_t sector_size, uint64_t first_sector)
{
    if (dir == XTS_ENCRYPT)
        return aesgen_xts_encrypt_sectors(ctx, dst, src, len, sector_size, first_sector);
    return aesgen_xts_decrypt_sectors(ctx, dst, src, len, sector_size, first_sector);
}

int xts_oneshot(enum xts_dir dir, const uint8_t *key, size_t key_len, const uint8_t tweak[16],
                uint8_t *dst, const uint8_t *src, size_t len)
{
    aesgen_xts_ctx ctx;
    int rc = aesgen_xts_init(&ctx, key, key_len);
    if (rc == AESGEN_OK)
        rc = xts_api(&ctx, dir, dst, src, len, tweak);
    return rc;
}

void xts_reference(enum xts_dir dir, const uint8_t *key, size_t key_len,
                   const uint8_t tweak[16], uint8_t *dst, const uint8_t *src, size_t len)
{
    ref_xts(dir == XTS_ENCRYPT, key, key_len, tweak, dst, src, len);
}

void xts_random_key(uint8_t *key, size_t key_len)
{
    size_t half = key_len / 2;
    rng_fill(key, key_len);
    if (memcmp(key, key + half, half) == 0)
        key[half] ^= 1;
}

void xts_sector_tweak(uint64_t first, uint64_t i, uint8_t tweak[16])
{
    uint64_t low = first + i, high = low < first ? 1 : 0;
    memset(tweak, 0, 16);
    for (int b = 0; b < 8; b++) {
        tweak[b] = (uint8_t)(low >> (8 * b));
        tweak[8 + b] = (uint8_t)(high >> (8 * b));
    }
}
