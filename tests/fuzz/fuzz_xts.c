/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * libFuzzer target `xts`: aesgen's XTS against OpenSSL's EVP (AES-192 and equal
 * key halves: the XTS built from OpenSSL's AES-ECB, reference.h).
 * Input layout (fuzz.h: missing bytes read as 0):
 *   byte    key size (% 3: K1 || K2 of 32, 48, 64 bytes) and ISA (/ 3)
 *   byte    flags: 1 in place, 2 K2 = K1, 4 the sector API (sector size next),
 *           8 decrypt first (the message is a ciphertext)
 *   2       [flag 4] sector size (fuzz_len, at least 16)
 *   byte    src misalignment (low nibble), dst misalignment (high nibble)
 *   64      key; 16 tweak (for the sector API: bytes 0..7 the first sector number)
 *   rest    the message (one data unit, or whole sectors: a partial sector is dropped)
 * Checks: both directions equal the reference; decrypt(encrypt(x)) = x; a data unit
 * under 16 bytes returns AESGEN_EINVAL and leaves dst untouched; equal halves are
 * refused by aesgen_xts_init (nothing written) and taken by the opt-in call.
 */
#include <string.h>

#include "aesgen.h"
#include "fuzz.h"
#include "harness.h"
#include "reference.h"
#include "xts_harness.h"

enum { FLAG_IN_PLACE = 1, FLAG_EQUAL_HALVES = 2, FLAG_SECTORS = 4, FLAG_DECRYPT_FIRST = 8 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t load_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The reference over len bytes: one data unit, or sectors with plain64 tweaks. */
static void expected(enum xts_dir dir, const uint8_t *key, size_t key_len,
                     const uint8_t tweak[16], size_t sector_size, uint8_t *dst,
                     const uint8_t *src, size_t len)
{
    if (sector_size == 0) {
        xts_reference(dir, key, key_len, tweak, dst, src, len);
        return;
    }
    uint64_t first = load_le64(tweak);
    for (size_t off = 0, i = 0; off < len; off += sector_size, i++) {
        uint8_t t[16];
        xts_sector_tweak(first, i, t);
        xts_reference(dir, key, key_len, t, dst + off, src + off, sector_size);
    }
}

static int run(const aesgen_xts_ctx *ctx, enum xts_dir dir, const uint8_t tweak[16],
               size_t sector_size, uint8_t *dst, const uint8_t *src, size_t len)
{
    if (sector_size == 0)
        return xts_api(ctx, dir, dst, src, len, tweak);
    return xts_api_sectors(ctx, dir, dst, src, len, sector_size, load_le64(tweak));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = { data, size };
    uint8_t choice = fuzz_byte(&in);
    size_t key_len = xts_key_sizes[choice % 3];
    const char *isa = fuzz_select_isa(choice / 3);
    uint8_t flags = fuzz_byte(&in);
    size_t sector_size = 0;
    if (flags & FLAG_SECTORS) {
        sector_size = fuzz_len(&in, 4096);
        if (sector_size < 16)
            sector_size += 16;
    }
    uint8_t misalign = fuzz_byte(&in);
    uint8_t key[64], tweak[16];
    fuzz_bytes(&in, key, sizeof key);
    if (flags & FLAG_EQUAL_HALVES)
        memcpy(key + key_len / 2, key, key_len / 2);
    fuzz_bytes(&in, tweak, sizeof tweak);
    size_t len;
    const uint8_t *msg = fuzz_rest(&in, &len);
    if (sector_size)
        len -= len % sector_size;
    enum xts_dir first = flags & FLAG_DECRYPT_FIRST ? XTS_DECRYPT : XTS_ENCRYPT;
    enum xts_dir second = first == XTS_ENCRYPT ? XTS_DECRYPT : XTS_ENCRYPT;

    fuzz_cover_shape(sector_size ? sector_size : len,
                     (sector_size ? 1u : 0u) | (first == XTS_DECRYPT ? 2u : 0u) |
                     (unsigned)(choice % 3) << 2);

    /* IEEE 1619-2018's rule: the normal init refuses K1 == K2 (and writes nothing);
     * the opt-in call for legacy keys accepts them, so the differential runs on both. */
    aesgen_xts_ctx ctx;
    const int equal_halves = memcmp(key, key + key_len / 2, key_len / 2) == 0;
    memset(&ctx, 0x5a, sizeof ctx);
    if (equal_halves) {
        fuzz_expect_int(isa, aesgen_xts_init(&ctx, key, key_len), AESGEN_EINVAL,
                        "init with K1 == K2");
        fuzz_expect_int(isa, all_bytes_are(&ctx, sizeof ctx, 0x5a), 1,
                        "a refused init writes nothing");
        fuzz_expect_int(isa, aesgen_xts_init_allow_equal_keys(&ctx, key, key_len, NULL),
                        AESGEN_OK, "init_allow_equal_keys");
    } else {
        fuzz_expect_int(isa, aesgen_xts_init(&ctx, key, key_len), AESGEN_OK, "init");
    }
    struct fuzz_buffer src = fuzz_alloc(len, misalign & 15);
    struct fuzz_buffer dst = flags & FLAG_IN_PLACE ? src : fuzz_alloc(len, misalign >> 4);
    if (len)
        memcpy(src.data, msg, len);
    if (!(flags & FLAG_IN_PLACE))
        memset(dst.data, 0xa5, len);

    if (sector_size == 0 && len < 16) {
        uint8_t before[16];
        memcpy(before, dst.data, len);
        fuzz_expect_int(isa, run(&ctx, first, tweak, 0, dst.data, src.data, len),
                        AESGEN_EINVAL, "a data unit under 16 bytes");
        fuzz_expect_bytes(isa, dst.data, before, len, "dst after AESGEN_EINVAL");
    } else {
        struct fuzz_buffer want = fuzz_alloc(len, 0), back = fuzz_alloc(len, 0);
        expected(first, key, key_len, tweak, sector_size, want.data, msg, len);
        fuzz_expect_int(isa, run(&ctx, first, tweak, sector_size, dst.data, src.data, len),
                        AESGEN_OK, xts_dir_name(first));
        fuzz_expect_bytes(isa, dst.data, want.data, len, xts_dir_name(first));
        /* And back: the second direction must restore the message. */
        fuzz_expect_int(isa, run(&ctx, second, tweak, sector_size, back.data, dst.data, len),
                        AESGEN_OK, xts_dir_name(second));
        fuzz_expect_bytes(isa, back.data, msg, len, "the round trip");
        fuzz_free(&back);
        fuzz_free(&want);
    }
    aesgen_wipe(&ctx, sizeof ctx);
    if (!(flags & FLAG_IN_PLACE))
        fuzz_free(&dst);
    fuzz_free(&src);
    return 0;
}
