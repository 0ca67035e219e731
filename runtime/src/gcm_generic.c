/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Portable constant-time GCM pieces ("generic" ISA): GHASH without tables,
 * CTR with inc32 on the bitsliced AES, one-block AES, and the H-power setup; and
 * the same GHASH on SSE2 vectors (aesgen_gcm_ghash_sse2, what vperm_ssse3's GCM
 * takes; at the end).
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

/* ---- The same GHASH on SSE2 vectors (vperm_ssse3's GCM) ------------------- */

#if defined(__SSE2__) || defined(_M_X64)    /* every x86-64 compiler (MSVC: _M_X64) */
#include <emmintrin.h>

/*
 * The carry-less product above, two 32 x 32 -> 64 products at a time: pmuludq
 * (_mm_mul_epu32) multiplies the low 32 bits of each 64-bit lane, so the nine
 * 32-bit Karatsuba operands of a 128 x 128 product (three 64-bit operands, lo, hi
 * and lo ^ hi, each split again into low, high and low ^ high 32 bits) go in five
 * vectors (ghash_split).  An operand is kept as its four bit classes (positions
 * mod 4); a product is 16 pmuludq whose carries land in masked-away bits, exactly
 * as in clmul32.  Blocks go in groups of up to GHASH_GROUP: block i of n is
 * multiplied by H^(n - i) and the unreduced products are summed (AND and XOR
 * commute), so one Karatsuba recombination and one reduction serve the group and
 * the group's products are independent of each other.  Cost: 80 pmuludq and about
 * 120 other vector operations per block, a few scalar ones per group; no table,
 * no branch on H or the data.
 */
enum { GHASH_GROUP = 4 };

typedef struct ghash_operand {
    __m128i v[5][4];        /* ghash_split's five vectors, each as its four bit classes */
} ghash_operand;

static const uint64_t ghash_class_bits = 0x1111111111111111u;

/* x = [lo, hi] (64-bit lanes) into the five vectors whose lanes' low halves hold:
 * lo.l, hi.l | lo.h, hi.h | lo.x, hi.x | m.l, m.h | m.x, m.x, where m = lo ^ hi,
 * .l / .h the low / high 32 bits and .x their XOR. */
static void ghash_split(__m128i a, __m128i v[5])
{
    const __m128i ah = _mm_srli_epi64(a, 32);
    const __m128i m = _mm_xor_si128(a, _mm_shuffle_epi32(a, _MM_SHUFFLE(1, 0, 3, 2)));
    const __m128i mh = _mm_srli_epi64(m, 32);
    v[0] = a;
    v[1] = ah;
    v[2] = _mm_xor_si128(a, ah);
    v[3] = _mm_unpacklo_epi64(m, mh);
    v[4] = _mm_xor_si128(m, mh);
}

static void ghash_operand_init(ghash_operand *op, const uint8_t reflected[16])
{
    const __m128i m0 = _mm_set1_epi64x((long long)ghash_class_bits);
    __m128i v[5];
    ghash_split(_mm_loadu_si128((const __m128i *)(const void *)reflected), v);
    for (int j = 0; j < 5; j++)
        for (int c = 0; c < 4; c++)
            op->v[j][c] = _mm_and_si128(v[j], _mm_slli_epi64(m0, c));
}

/* Both lanes' 32 x 32 carry-less products of x's lanes and y's (classes given). */
static inline __m128i clmul32x2(__m128i x, const __m128i y[4])
{
    const __m128i m0 = _mm_set1_epi64x((long long)ghash_class_bits);
    const __m128i m1 = _mm_slli_epi64(m0, 1), m2 = _mm_slli_epi64(m0, 2),
                  m3 = _mm_slli_epi64(m0, 3);
    const __m128i x0 = _mm_and_si128(x, m0), x1 = _mm_and_si128(x, m1),
                  x2 = _mm_and_si128(x, m2), x3 = _mm_and_si128(x, m3);
#define MUL(a, b) _mm_mul_epu32(a, b)
#define XOR4(a, b, c, d) _mm_xor_si128(_mm_xor_si128(a, b), _mm_xor_si128(c, d))
    const __m128i z0 = XOR4(MUL(x0, y[0]), MUL(x1, y[3]), MUL(x2, y[2]), MUL(x3, y[1]));
    const __m128i z1 = XOR4(MUL(x0, y[1]), MUL(x1, y[0]), MUL(x2, y[3]), MUL(x3, y[2]));
    const __m128i z2 = XOR4(MUL(x0, y[2]), MUL(x1, y[1]), MUL(x2, y[0]), MUL(x3, y[3]));
    const __m128i z3 = XOR4(MUL(x0, y[3]), MUL(x1, y[2]), MUL(x2, y[1]), MUL(x3, y[0]));
#undef MUL
#undef XOR4
    return _mm_or_si128(_mm_or_si128(_mm_and_si128(z0, m0), _mm_and_si128(z1, m1)),
                        _mm_or_si128(_mm_and_si128(z2, m2), _mm_and_si128(z3, m3)));
}

/* A 64 x 64 product from its Karatsuba pieces: low, high, (low ^ high) products. */
static gf128 karatsuba64(uint64_t l, uint64_t h, uint64_t x)
{
    x ^= l ^ h;
    gf128 r = { h ^ (x >> 32), l ^ (x << 32) };
    return r;
}

/* The reduced element from a group's summed products (the lanes of ghash_split). */
static gf128 ghash_finish(const __m128i s[5])
{
    uint64_t r[10];
    for (int j = 0; j < 5; j++)
        _mm_storeu_si128((__m128i *)(void *)(r + 2 * j), s[j]);
    const gf128 lo = karatsuba64(r[0], r[2], r[4]), hi = karatsuba64(r[1], r[3], r[5]);
    gf128 mid = karatsuba64(r[6], r[7], r[8]);
    mid.hi ^= lo.hi ^ hi.hi;
    mid.lo ^= lo.lo ^ hi.lo;
    return gf_reduce(hi.hi, hi.lo ^ mid.hi, lo.hi ^ mid.lo, lo.lo);
}

int aesgen_gcm_ghash_sse2(const aesgen_gcm_key *key, uint8_t acc[16],
                          const uint8_t *data, size_t len)
{
    ghash_operand powers[GHASH_GROUP];      /* powers[k] = H^(k+1) x^-1 */
    for (int k = 0; k < GHASH_GROUP; k++)
        ghash_operand_init(&powers[k], key->h_powers[AESGEN_GCM_H_POWERS - 1 - k]);
    gf128 y = gf_load_reflected(acc);
    size_t blocks = len / 16;
    while (blocks > 0) {
        const size_t n = blocks < GHASH_GROUP ? blocks : GHASH_GROUP;
        __m128i s[5] = { _mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128(),
                         _mm_setzero_si128(), _mm_setzero_si128() };
        for (size_t i = 0; i < n; i++) {
            gf128 x = gf_load_block(data + 16 * i);
            if (i == 0) {
                x.hi ^= y.hi;
                x.lo ^= y.lo;
            }
            __m128i v[5];
            ghash_split(_mm_set_epi64x((long long)x.hi, (long long)x.lo), v);
            const ghash_operand *h = &powers[n - 1 - i];
            /* written out: a loop kept s[] on the stack */
            s[0] = _mm_xor_si128(s[0], clmul32x2(v[0], h->v[0]));
            s[1] = _mm_xor_si128(s[1], clmul32x2(v[1], h->v[1]));
            s[2] = _mm_xor_si128(s[2], clmul32x2(v[2], h->v[2]));
            s[3] = _mm_xor_si128(s[3], clmul32x2(v[3], h->v[3]));
            s[4] = _mm_xor_si128(s[4], clmul32x2(v[4], h->v[4]));
        }
        y = ghash_finish(s);
        data += 16 * n;
        blocks -= n;
    }
    gf_store_reflected(acc, y);
    aesgen_wipe(powers, sizeof powers);
    return AESGEN_OK;
}
#else
/* Without SSE2 (not x86-64): the scalar products. */
int aesgen_gcm_ghash_sse2(const aesgen_gcm_key *key, uint8_t acc[16],
                          const uint8_t *data, size_t len)
{
    return aesgen_gcm_ghash_generic(key, acc, data, len);
}
#endif
