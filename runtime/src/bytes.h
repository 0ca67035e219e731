/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * 64-bit words read and written in a fixed byte order, whatever the host's order and
 * alignment (memcpy; compilers emit one move, plus a byte swap where the orders differ).
 */
#ifndef AESGEN_BYTES_H
#define AESGEN_BYTES_H

#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define AESGEN_HOST_TO_LE64(v) __builtin_bswap64(v)
#define AESGEN_HOST_TO_BE64(v) (v)
#else
#define AESGEN_HOST_TO_LE64(v) (v)
#define AESGEN_HOST_TO_BE64(v) __builtin_bswap64(v)
#endif

static inline uint64_t load_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return AESGEN_HOST_TO_LE64(v);
}

static inline void store_le64(uint8_t *p, uint64_t v)
{
    v = AESGEN_HOST_TO_LE64(v);
    memcpy(p, &v, 8);
}

static inline uint64_t load_be64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return AESGEN_HOST_TO_BE64(v);
}

static inline void store_be64(uint8_t *p, uint64_t v)
{
    v = AESGEN_HOST_TO_BE64(v);
    memcpy(p, &v, 8);
}

#endif
