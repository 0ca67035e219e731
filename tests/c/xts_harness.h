/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * What the XTS test groups share: one call for both directions of the API and
 * of the reference, keys with distinct halves, sector tweaks.
 */
#ifndef AESGEN_TEST_XTS_HARNESS_H
#define AESGEN_TEST_XTS_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aesgen.h"

enum xts_dir { XTS_ENCRYPT, XTS_DECRYPT };

extern const size_t xts_key_sizes[3];      /* K1 || K2: 32, 48, 64 */

const char *xts_dir_name(enum xts_dir dir); /* "encrypt", "decrypt" */
unsigned xts_aes_bits(size_t xts_key_len);  /* the AES key size: 128, 192, 256 */

/* OpenSSL has XTS for AES-128 and AES-256 only. */
bool xts_openssl_has(size_t xts_key_len);

int xts_api(const aesgen_xts_ctx *ctx, enum xts_dir dir, uint8_t *dst, const uint8_t *src,
            size_t len, const uint8_t tweak[16]);
int xts_api_sectors(const aesgen_xts_ctx *ctx, enum xts_dir dir, uint8_t *dst,
                    const uint8_t *src, size_t len, size_t sector_size, uint64_t first_sector);

/* init + one data unit. */
int xts_oneshot(enum xts_dir dir, const uint8_t *key, size_t key_len, const uint8_t tweak[16],
                uint8_t *dst, const uint8_t *src, size_t len);

/* OpenSSL EVP for AES-128/256, the ECB construction for AES-192. */
void xts_reference(enum xts_dir dir, const uint8_t *key, size_t key_len,
                   const uint8_t tweak[16], uint8_t *dst, const uint8_t *src, size_t len);

/* Random K1 || K2 with K1 != K2 (OpenSSL refuses equal halves). */
void xts_random_key(uint8_t *key, size_t key_len);

/* The tweak of data unit first + i: that number as 16 bytes little-endian
 * (dm-crypt plain64); a sum past 2^64 - 1 carries into byte 8. */
void xts_sector_tweak(uint64_t first, uint64_t i, uint8_t tweak[16]);

#endif
