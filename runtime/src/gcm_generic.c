/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Portable constant-time GCM pieces ("generic" ISA): GHASH without tables,
 * CTR with inc32 on the bitsliced AES, one-block AES, and the H-power setup.
 * The GHASH and update functions have the asm_abi.h signatures and contracts
 * (aesgen_gcm_ghash_generic, aesgen_gcm_{enc,dec}_update_generic), so the C
 * glue in gcm.c treats every ISA alike.
 *
 * Field elements are kept in the byte-reflected form of asm_abi.h: the GCM
 * block read as a big-endian 128-bit integer, here two 64-bit words (hi, lo).
 * Bit 127 - i of that integer is the coefficient of x^i.  Reversing the bits
 * of both factors reverses the bits of a carry-less product, so the product of
 * two reflected elements is the reflected product, one bit lower; the stored
 * powers of H carry a factor x^-1 that cancels that shift (see gf_mul).
 *
 * The carry-less multiply uses ordinary integer multiplies on operands whose
 * bits are spread 4 apart (the "ctmul" idea): the carries of the integer sum
 * then land in bit positions that are masked away.  No table lookup and no
 * branch depends on H or the data.  (Integer multiplication is constant time
 * on the x86-64 CPUs this library targets.)
 */
#include <string.h>
#include "bytes.h"
#include "internal.h"

/* A GF(2^128) element in reflected form (see the top). */
typedef struct gf128 {
    uint64_t hi, lo;
} gf128;

/* A GCM-order block as an element: the big-endian reading of its 16 bytes. */
static gf128 gf_load_block(const uint8_t b[16])
{
    gf128 x = { load_be64(b), load_be64(b + 8) };
    return x;
}

/* The asm_abi.h memory form (acc, h_powers): the same integer, little-endian. */
static gf128 gf_load_reflected(const uint8_t b[16])
{
    gf128 x = { load_le64(b + 8), load_le64(b) };
    return x;
}

static void gf_store_reflected(uint8_t b[16], gf128 x)
{
    store_le64(b, x.lo);
    store_le64(b + 8, x.hi);
}

/*
 * The exact 64-bit carry-less product of two 32-bit values.  x_i holds the bits
 * of x at positions i mod 4; every integer product x_i * y_j has at most 8
 * terms per bit position, so its carries never reach the next position of the
 * same class (4 bits up), and masking keeps exactly the XOR of the terms.
 */
static uint64_t clmul32(uint32_t x, uint32_t y)
{
    const uint64_t m0 = 0x1111111111111111u, m1 = m0 << 1, m2 = m0 << 2, m3 = m0 << 3;
    const uint64_t x0 = x & m0, x1 = x & m1, x2 = x & m2, x3 = x & m3;
    const uint64_t y0 = y & m0, y1 = y & m1, y2 = y & m2, y3 = y & m3;
    const uint64_t z0 = (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
    const uint64_t z1 = (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
    const uint64_t z2 = (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
    const uint64_t z3 = (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);
    return (z0 & m0) | (z1 & m1) | (z2 & m2) | (z3 & m3);
}

/* 64 x 64 -> 128 bits by Karatsuba on 32-bit halves (3 products, not 4). */
static gf128 clmul64(uint64_t x, uint64_t y)
{
    const uint32_t x0 = (uint32_t)x, x1 = (uint32_t)(x >> 32);
    const uint32_t y0 = (uint32_t)y, y1 = (uint32_t)(y >> 32);
    const uint64_t lo = clmul32(x0, y0), hi = clmul32(x1, y1);
    const uint64_t mid = clmul32(x0 ^ x1, y0 ^ y1) ^ lo ^ hi;
    gf128 r = { hi ^ (mid >> 32), lo ^ (mid << 32) };
    return r;
}

/*
 * Reduces the 256-bit product q[3..0] (q[3] highest) of a reflected element and
 * a reflected element times x^-1, giving the reflected product of the two
 * elements mod x^128 + x^7 + x^2 + x + 1.  The low half L = (q1, q0) holds the
 * coefficients of x^128 and up; x^128 = 1 + x + x^2 + x^7, and multiplying by
 * x^m is a right shift by m in reflected form, so L folds in as
 * L ^ L>>1 ^ L>>2 ^ L>>7.  The bits those shifts push out (from q0 only) are
 * themselves terms of x^128 and up: they are folded into q1 first (t0).
 */
static gf128 gf_reduce(uint64_t q3, uint64_t q2, uint64_t q1, uint64_t q0)
{
    const uint64_t t0 = (q0 << 63) ^ (q0 << 62) ^ (q0 << 57);
    const uint64_t t1 = (q0 >> 1) ^ (q0 >> 2) ^ (q0 >> 7);
    const uint64_t u = q1 ^ t0;
    const uint64_t v0 = (u << 63) ^ (u << 62) ^ (u << 57);
    const uint64_t v1 = (u >> 1) ^ (u >> 2) ^ (u >> 7);
    gf128 r = { q3 ^ u ^ v1, q2 ^ q0 ^ t1 ^ v0 };
    return r;
}

/*
 * a * b where b_tw is b * x^-1 (the stored form of the powers of H): the plain
 * 256-bit carry-less product of the two reflected operands already has each
 * coefficient where gf_reduce expects it.  Karatsuba again: 3 clmul64.
 */
static gf128 gf_mul(gf128 a, gf128 b_tw)
{
    const gf128 lo = clmul64(a.lo, b_tw.lo), hi = clmul64(a.hi, b_tw.hi);
    gf128 mid = clmul64(a.lo ^ a.hi, b_tw.lo ^ b_tw.hi);
    mid.hi ^= lo.hi ^ hi.hi;
    mid.lo ^= lo.lo ^ hi.lo;
    return gf_reduce(hi.hi, hi.lo ^ mid.hi, lo.hi ^ mid.lo, lo.lo);
}

/*
 * H * x^-1 from H (both reflected).  Dividing by x is a left shift; when the
 * x^0 coefficient (bit 127) is set, H + g is divided instead, which brings in
 * (g + 1) / x = x^127 + x^6 + x + 1: bits 0, 121, 126, 127.  Masked, not branched.
 */
static gf128 gf_div_x(gf128 h)
{
    const uint64_t mask = 0 - (h.hi >> 63);
    gf128 r = { (h.hi << 1) | (h.lo >> 63), h.lo << 1 };
    r.hi ^= mask & 0xc200000000000000u;
    r.lo ^= mask & 1u;
    return r;
}

int aesgen_gcm_ghash_generic(const aesgen_gcm_key *key, uint8_t acc[16],
                             const uint8_t *data, size_t len)
{
    const gf128 h = gf_load_reflected(key->h_powers[AESGEN_GCM_H_POWERS - 1]);
    gf128 y = gf_load_reflected(acc);
    for (size_t off = 0; off + 16 <= len; off += 16) {
        const gf128 x = gf_load_block(data + off);
        y.hi ^= x.hi;
        y.lo ^= x.lo;
        y = gf_mul(y, h);
    }
    gf_store_reflected(acc, y);
    return AESGEN_OK;
}

/* ---- AES: CTR with inc32, and single blocks, on the bitsliced cipher ------ */

/*
 * dst = src ^ keystream for whole blocks, keystream block j = AES(ctr + j)
 * with inc32: only the last 4 bytes (big-endian) count, mod 2^32.  As the
 * bitsliced cipher's little-endian words, the counter is the high half of
 * each block's second word, byte-swapped.
 */
static void ctr32_blocks(const aesgen_aes_key *key, uint8_t *dst, const uint8_t *src,
                         size_t len, const uint8_t ctr[16])
{
    aesgen_bs_key bk;
    uint64_t w[8];
    uint8_t ks[16 * AESGEN_BS_BLOCKS];
    aesgen_bs_key_init(&bk, key);
    const uint64_t word0 = load_le64(ctr), word1_lo = load_le64(ctr + 8) & 0xffffffffu;
    uint32_t c = (uint32_t)(load_be64(ctr + 8) & 0xffffffffu);
    for (size_t off = 0; off < len; off += sizeof ks) {
        for (int b = 0; b < AESGEN_BS_BLOCKS; b++) {
            w[2 * b] = word0;
            w[2 * b + 1] = word1_lo | (uint64_t)__builtin_bswap32(c + (uint32_t)b) << 32;
        }
        c += AESGEN_BS_BLOCKS;
        aesgen_bs_encrypt4(w, &bk);
        for (int i = 0; i < 8; i++)
            store_le64(ks + 8 * i, w[i]);
        const size_t n = len - off < sizeof ks ? len - off : sizeof ks;
        for (size_t i = 0; i < n; i++)
            dst[off + i] = src[off + i] ^ ks[i];
    }
    aesgen_wipe(&bk, sizeof bk);
    aesgen_wipe(w, sizeof w);
    aesgen_wipe(ks, sizeof ks);
}

/* Encryption first, then GHASH over the ciphertext just written. */
int aesgen_gcm_enc_update_generic(const aesgen_gcm_key *key, uint8_t *dst, const uint8_t *src,
                                  size_t len, const uint8_t ctr[16], uint8_t acc[16])
{
    len &= ~AESGEN_GCM_SECRET_COUNTER;     /* this code never branches on the counter */
    ctr32_blocks(&key->aes, dst, src, len, ctr);
    return aesgen_gcm_ghash_generic(key, acc, dst, len);
}

/* GHASH first: in place, src is the ciphertext only until it is decrypted. */
int aesgen_gcm_dec_update_generic(const aesgen_gcm_key *key, uint8_t *dst, const uint8_t *src,
                                  size_t len, const uint8_t ctr[16], uint8_t acc[16])
{
    len &= ~AESGEN_GCM_SECRET_COUNTER;     /* this code never branches on the counter */
    aesgen_gcm_ghash_generic(key, acc, src, len);
    ctr32_blocks(&key->aes, dst, src, len, ctr);
    return AESGEN_OK;
}

/* One block through the 4-block bitsliced cipher (the other 3 slots unused). */
void aesgen_encrypt_block_generic(const aesgen_aes_key *key, uint8_t out[16],
                                  const uint8_t in[16])
{
    aesgen_bs_key bk;
    uint64_t w[8] = { load_le64(in), load_le64(in + 8) };
    aesgen_bs_key_init(&bk, key);
    aesgen_bs_encrypt4(w, &bk);
    store_le64(out, w[0]);
    store_le64(out + 8, w[1]);
    aesgen_wipe(&bk, sizeof bk);
    aesgen_wipe(w, sizeof w);
}

/* H = AES_K(0^128); h_powers[i] = H^(32 - i) * x^-1, reflected (asm_abi.h). */
void aesgen_gcm_setup_generic(aesgen_gcm_key *key)
{
    uint8_t block[16] = { 0 };
    aesgen_encrypt_block_generic(&key->aes, block, block);
    const gf128 h1 = gf_div_x(gf_load_block(block));
    gf128 p = h1;
    for (int i = AESGEN_GCM_H_POWERS - 1; i >= 0; i--) {
        gf_store_reflected(key->h_powers[i], p);
        p = gf_mul(p, h1);   /* (H^k x^-1) * H: the next power, still times x^-1 */
    }
    memset(key->h_pad, 0, sizeof key->h_pad);
    aesgen_wipe(block, sizeof block);
    aesgen_wipe(&p, sizeof p);
}
