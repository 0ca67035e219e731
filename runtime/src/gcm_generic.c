/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Portable constant-time GCM pieces ("generic" ISA): GHASH without tables,
 * CTR with inc32 on the bitsliced AES, one-block AES, and the H-power setup; and
 * a GHASH by pshufb lookups (aesgen_gcm_ghash_ssse3, what vperm_ssse3's GCM takes;
 * at the end).
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
 * dst = src ^ keystream over len bytes (the last block may be partial), keystream
 * block j = AES(ctr + j) with inc32: only the last 4 bytes (big-endian) count, mod 2^32.  As the
 * bitsliced cipher's little-endian words, the counter is the high half of
 * each block's second word, byte-swapped.
 */
void aesgen_gcm_ctr32_generic(const aesgen_aes_key *key, uint8_t *dst, const uint8_t *src,
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
    aesgen_gcm_ctr32_generic(&key->aes, dst, src, len, ctr);
    return aesgen_gcm_ghash_generic(key, acc, dst, len);
}

/* GHASH first: in place, src is the ciphertext only until it is decrypted. */
int aesgen_gcm_dec_update_generic(const aesgen_gcm_key *key, uint8_t *dst, const uint8_t *src,
                                  size_t len, const uint8_t ctr[16], uint8_t acc[16])
{
    len &= ~AESGEN_GCM_SECRET_COUNTER;     /* this code never branches on the counter */
    aesgen_gcm_ghash_generic(key, acc, src, len);
    aesgen_gcm_ctr32_generic(&key->aes, dst, src, len, ctr);
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

/* ---- GHASH on SSSE3: 4-bit lookups by pshufb (vperm_ssse3's GCM) ---------- */

#if defined(__SSE2__) || defined(_M_X64)    /* every x86-64 compiler (MSVC: _M_X64) */
#include <tmmintrin.h>

#if defined(__GNUC__) || defined(__clang__)
#define TARGET_SSSE3 __attribute__((target("ssse3")))
#else
#define TARGET_SSSE3
#endif

/*
 * The 256-bit carry-less product a * b of two 128-bit integers (the reflected
 * elements, b a power of H times x^-1, so gf_reduce finishes it) by 4-bit lookups.
 * With a = sum_k a_k 256^k (bytes a_k = l_k + 16 h_k, nibbles l_k, h_k):
 *     a * b = sum_j 256^j R_j,  R_j = sum_k 256^k (T_j[l_k] + U_j[h_k]),
 * where T_j[n] is byte j of n * b and U_j[n] byte j of (16 n) * b (n < 16; j = 0..16,
 * as n * b has at most 131 bits and 16 n * b 135).  Each table is 16 bytes, so R_j is
 * two pshufb of the tables by the vectors of a's low and high nibbles: one lookup per
 * byte, every byte at once, with the secret nibbles only as pshufb indices (no
 * memory address and no branch depends on them).  The sum over j, a byte shift of
 * each R_j, is linear, so a group of blocks multiplied by different powers of H sums
 * its R_j first and shifts once per group: per block 34 pshufb and 34 XOR, per group
 * 31 byte shifts and one reduction.  Four blocks to a group: their eight nibble
 * vectors fit in registers beside the table being shuffled and the sums; eight would
 * not, and a lookup whose index is spilled needs two loads (not measured).
 *
 * The tables of a power are built from its 16 multiples n * b (shifts and XORs) by a
 * 16 x 16 byte transposition: row n, byte j -> table j, lane n.  A call builds
 * GHASH_GROUP powers (2.1 KiB on the stack, wiped at the end), or H's alone when it
 * has at most GHASH_CHAIN_BLOCKS blocks.  Zen 4: 1.47 cycles/byte at 16 KiB, a third
 * of the pmuludq GHASH (products with holes, as clmul32) this replaced.
 */
enum { GHASH_GROUP = 4, GHASH_TABLES = 17 };

typedef struct ghash_power_tables {
    __m128i t[GHASH_TABLES];    /* T_j: byte j of n * b, lane n */
    __m128i u[GHASH_TABLES];    /* U_j: byte j of 16 n * b, lane n */
} ghash_power_tables;

#if defined(__GNUC__) || defined(__clang__)
#define GHASH_INLINE TARGET_SSSE3 static inline __attribute__((always_inline))
#define GHASH_NOINLINE TARGET_SSSE3 static __attribute__((noinline))
#else
#define GHASH_INLINE static __forceinline
#define GHASH_NOINLINE static __declspec(noinline)
#endif

/* x * 2^s as 128 bits (the bits pushed out are the caller's; s = 1..7, a literal: the
 * shift counts are immediates, for every compiler). */
#define SHL128(x, s) _mm_or_si128(_mm_slli_epi64((x), (s)),                            \
                                  _mm_srli_epi64(_mm_slli_si128((x), 8), 64 - (s)))

/* One of the four perfect shuffles whose composition transposes 16 x 16 bytes. */
#define GHASH_SHUFFLE(d, r)                                                            \
    do {                                                                               \
        d[0] = _mm_unpacklo_epi8(r[0], r[8]);   d[1] = _mm_unpackhi_epi8(r[0], r[8]);  \
        d[2] = _mm_unpacklo_epi8(r[1], r[9]);   d[3] = _mm_unpackhi_epi8(r[1], r[9]);  \
        d[4] = _mm_unpacklo_epi8(r[2], r[10]);  d[5] = _mm_unpackhi_epi8(r[2], r[10]); \
        d[6] = _mm_unpacklo_epi8(r[3], r[11]);  d[7] = _mm_unpackhi_epi8(r[3], r[11]); \
        d[8] = _mm_unpacklo_epi8(r[4], r[12]);  d[9] = _mm_unpackhi_epi8(r[4], r[12]); \
        d[10] = _mm_unpacklo_epi8(r[5], r[13]); d[11] = _mm_unpackhi_epi8(r[5], r[13]); \
        d[12] = _mm_unpacklo_epi8(r[6], r[14]); d[13] = _mm_unpackhi_epi8(r[6], r[14]); \
        d[14] = _mm_unpacklo_epi8(r[7], r[15]); d[15] = _mm_unpackhi_epi8(r[7], r[15]); \
    } while (0)

TARGET_SSSE3 static void ghash_tables(ghash_power_tables *tab, __m128i b)
{
    __m128i m[16], w[16];           /* m[n] = n * b mod 2^128 */
    const __m128i b2 = SHL128(b, 1), b4 = SHL128(b, 2), b8 = SHL128(b, 3);
    m[0] = _mm_setzero_si128();
    m[1] = b;
    m[2] = b2;
    m[3] = _mm_xor_si128(b2, b);
    m[4] = b4;
    m[5] = _mm_xor_si128(b4, b);
    m[6] = _mm_xor_si128(b4, b2);
    m[7] = _mm_xor_si128(b4, m[3]);
    m[8] = b8;
    m[9] = _mm_xor_si128(b8, b);
    m[10] = _mm_xor_si128(b8, b2);
    m[11] = _mm_xor_si128(b8, m[3]);
    m[12] = _mm_xor_si128(b8, b4);
    m[13] = _mm_xor_si128(b8, m[5]);
    m[14] = _mm_xor_si128(b8, m[6]);
    m[15] = _mm_xor_si128(b8, m[7]);
    GHASH_SHUFFLE(w, m);
    GHASH_SHUFFLE(m, w);
    GHASH_SHUFFLE(w, m);
    GHASH_SHUFFLE(tab->t, w);       /* row n, byte j -> T_j, lane n */
    /* T_16[n] = the bits of n * b above 2^128: from b's top byte, by n's bits 1..3 */
    const __m128i top = _mm_shuffle_epi8(b, _mm_set1_epi8(15));
    const __m128i bit1 = _mm_set_epi8(-1, -1, 0, 0, -1, -1, 0, 0, -1, -1, 0, 0, -1, -1, 0, 0);
    const __m128i bit2 = _mm_set_epi8(-1, -1, -1, -1, 0, 0, 0, 0, -1, -1, -1, -1, 0, 0, 0, 0);
    const __m128i bit3 = _mm_set_epi8(-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0);
    /* (top & mask) >> s per byte: the mask clears the bits psrlw would move across */
    const __m128i top1 = _mm_srli_epi16(_mm_and_si128(top, _mm_set1_epi8((char)0x80)), 7);
    const __m128i top2 = _mm_srli_epi16(_mm_and_si128(top, _mm_set1_epi8((char)0xc0)), 6);
    const __m128i top3 = _mm_srli_epi16(_mm_and_si128(top, _mm_set1_epi8((char)0xe0)), 5);
    tab->t[16] = _mm_xor_si128(_mm_and_si128(bit1, top1),
                               _mm_xor_si128(_mm_and_si128(bit2, top2),
                                             _mm_and_si128(bit3, top3)));
    /* U_j = byte j of (n * b) * 16: the high nibble of T_j's byte, the low of T_{j-1}'s */
    const __m128i low_nibbles = _mm_set1_epi8(0x0f);
    tab->u[0] = _mm_andnot_si128(low_nibbles, _mm_slli_epi16(tab->t[0], 4));
    for (int j = 1; j < GHASH_TABLES; j++)
        tab->u[j] = _mm_or_si128(_mm_andnot_si128(low_nibbles, _mm_slli_epi16(tab->t[j], 4)),
                                 _mm_and_si128(low_nibbles, _mm_srli_epi16(tab->t[j - 1], 4)));
}

/* R_j of a group of n blocks, block i's power pw[n - 1 - i] (n is a constant at every
 * call, so the branches fold away). */
GHASH_INLINE __m128i ghash_row(const ghash_power_tables *pw, const __m128i lo[4],
                               const __m128i hi[4], size_t n, int j)
{
#define GHASH_LOOKUP(i) _mm_xor_si128(_mm_shuffle_epi8(pw[n - 1 - (i)].t[j], lo[i]),  \
                                      _mm_shuffle_epi8(pw[n - 1 - (i)].u[j], hi[i]))
    __m128i r = GHASH_LOOKUP(0);
    if (n == 2)
        r = _mm_xor_si128(r, GHASH_LOOKUP(1));
    if (n == 3)
        r = _mm_xor_si128(_mm_xor_si128(r, GHASH_LOOKUP(1)), GHASH_LOOKUP(2));
    if (n == 4)
        r = _mm_xor_si128(_mm_xor_si128(r, GHASH_LOOKUP(1)),
                          _mm_xor_si128(GHASH_LOOKUP(2), GHASH_LOOKUP(3)));
#undef GHASH_LOOKUP
    return r;
}

/* x << 63 ^ x << 62 ^ x << 57 and x >> 1 ^ x >> 2 ^ x >> 7, per 64-bit lane. */
GHASH_INLINE __m128i fold_up(__m128i x)
{
    return _mm_xor_si128(_mm_xor_si128(_mm_slli_epi64(x, 63), _mm_slli_epi64(x, 62)),
                         _mm_slli_epi64(x, 57));
}

GHASH_INLINE __m128i fold_down(__m128i x)
{
    return _mm_xor_si128(_mm_xor_si128(_mm_srli_epi64(x, 1), _mm_srli_epi64(x, 2)),
                         _mm_srli_epi64(x, 7));
}

/* gf_reduce on vectors: q_lo = (q1, q0), q_hi = (q3, q2), each as (high lane, low lane).
 * w = (q1 ^ t0, q0) with t0 = fold_up(q0); the result is q_hi ^ w ^ fold_down(w) ^
 * (the high lane's fold_up moved to the low lane), which is gf_reduce's two words.
 * A second form of gf_reduce on purpose: calling it (through a store and two scalar
 * words) made the whole GHASH 19% slower at 16 KiB on Zen 4 (the reduction of each
 * group sits on the chain from one group to the next). */
GHASH_INLINE __m128i ghash_reduce(__m128i q_lo, __m128i q_hi)
{
    const __m128i w = _mm_xor_si128(q_lo, _mm_slli_si128(fold_up(q_lo), 8));
    return _mm_xor_si128(_mm_xor_si128(q_hi, w),
                         _mm_xor_si128(fold_down(w), _mm_srli_si128(fold_up(w), 8)));
}

/* y = (y + X_0) H^n + X_1 H^(n-1) + ... + X_(n-1) H over n = 1..4 blocks at data. */
GHASH_INLINE __m128i ghash_group(const ghash_power_tables *pw, __m128i y,
                                 const uint8_t *data, size_t n)
{
    const __m128i reverse = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m128i low_nibbles = _mm_set1_epi8(0x0f);
    __m128i lo[4], hi[4];
    for (size_t i = 0; i < 4; i++) {
        if (i < n) {
            __m128i x = _mm_shuffle_epi8(
                _mm_loadu_si128((const __m128i *)(const void *)(data + 16 * i)), reverse);
            if (i == 0)
                x = _mm_xor_si128(x, y);
            lo[i] = _mm_and_si128(x, low_nibbles);
            hi[i] = _mm_and_si128(_mm_srli_epi16(x, 4), low_nibbles);
        }
    }
    /* a * b = sum_j 256^j R_j: R_j's bytes go j up, into (q_hi, q_lo); two chains */
    __m128i a_lo = ghash_row(pw, lo, hi, n, 0), a_hi = ghash_row(pw, lo, hi, n, 16);
    __m128i b_lo, b_hi;
#define GHASH_ROW(acc, j)                                                              \
    do {                                                                               \
        const __m128i r = ghash_row(pw, lo, hi, n, j);                                 \
        acc##_lo = _mm_xor_si128(acc##_lo, _mm_slli_si128(r, j));                      \
        acc##_hi = _mm_xor_si128(acc##_hi, _mm_srli_si128(r, 16 - (j)));               \
    } while (0)
    {
        const __m128i r = ghash_row(pw, lo, hi, n, 1);
        b_lo = _mm_slli_si128(r, 1);
        b_hi = _mm_srli_si128(r, 15);
    }
    GHASH_ROW(a, 2);  GHASH_ROW(b, 3);  GHASH_ROW(a, 4);  GHASH_ROW(b, 5);
    GHASH_ROW(a, 6);  GHASH_ROW(b, 7);  GHASH_ROW(a, 8);  GHASH_ROW(b, 9);
    GHASH_ROW(a, 10); GHASH_ROW(b, 11); GHASH_ROW(a, 12); GHASH_ROW(b, 13);
    GHASH_ROW(a, 14); GHASH_ROW(b, 15);
#undef GHASH_ROW
    return ghash_reduce(_mm_xor_si128(a_lo, b_lo), _mm_xor_si128(a_hi, b_hi));
}

/* The tables of powers H^1 .. H^count (powers[k]: H^(k+1) x^-1). */
TARGET_SSSE3 static void ghash_powers(ghash_power_tables *powers, const aesgen_gcm_key *key,
                                      size_t count)
{
    for (size_t k = 0; k < count; k++)
        ghash_tables(&powers[k], _mm_loadu_si128((const __m128i *)(const void *)
                                                 key->h_powers[AESGEN_GCM_H_POWERS - 1 - k]));
}

/* y after `blocks` blocks at data: groups of four while they last (powers holds
 * H^1..H^4), then one group of the rest (1 to 3: it needs only that many powers). */
TARGET_SSSE3 static __m128i ghash_blocks(const ghash_power_tables *powers, __m128i y,
                                         const uint8_t *data, size_t blocks)
{
    for (; blocks >= 4; blocks -= 4, data += 64)
        y = ghash_group(powers, y, data, 4);
    if (blocks == 3)
        y = ghash_group(powers, y, data, 3);
    else if (blocks == 2)
        y = ghash_group(powers, y, data, 2);
    else if (blocks == 1)
        y = ghash_group(powers, y, data, 1);
    return y;
}

/*
 * Up to this many blocks a call multiplies block by block by H alone (ghash_chain): the
 * three more tables of H^2..H^4 cost more than the groups save.  Zen 4, measured: the
 * chain takes 0.39 / 0.54 / 0.77 / 0.98 of the groups' time at 1 / 4 / 8 / 14 blocks,
 * 1.02 at 15.  A record (aesgen_gcm_ghash_ssse3_message) allows two blocks more: in
 * groups it pays a whole reduction for each of up to two groups of one, its AAD's
 * padded block and its lengths block (measured: groups win there from about 18).
 */
enum { GHASH_CHAIN_BLOCKS = 14, GHASH_CHAIN_BLOCKS_RECORD = GHASH_CHAIN_BLOCKS + 2 };

/* The same block by block, by H alone (powers[0]). */
TARGET_SSSE3 static __m128i ghash_chain(const ghash_power_tables *powers, __m128i y,
                                        const uint8_t *data, size_t blocks)
{
    for (; blocks > 0; blocks--, data += 16)
        y = ghash_group(powers, y, data, 1);
    return y;
}

/* A call of at most GHASH_CHAIN_BLOCKS blocks (a function of its own: beside it the
 * compiler allocated the groups' loop worse, 3.5% slower at 16 KiB). */
GHASH_NOINLINE void ghash_short_call(const aesgen_gcm_key *key, uint8_t acc[16],
                                     const uint8_t *data, size_t blocks)
{
    ghash_power_tables h;
    ghash_powers(&h, key, 1);
    __m128i y = _mm_loadu_si128((const __m128i *)(const void *)acc);
    y = ghash_chain(&h, y, data, blocks);
    _mm_storeu_si128((__m128i *)(void *)acc, y);
    aesgen_wipe(&h, sizeof h);
}

TARGET_SSSE3 int aesgen_gcm_ghash_ssse3(const aesgen_gcm_key *key, uint8_t acc[16],
                                        const uint8_t *data, size_t len)
{
    ghash_power_tables powers[GHASH_GROUP];
    size_t blocks = len / 16;
    if (blocks <= GHASH_CHAIN_BLOCKS) {
        if (blocks != 0)
            ghash_short_call(key, acc, data, blocks);
        return AESGEN_OK;
    }
    ghash_powers(powers, key, GHASH_GROUP);
    __m128i y = _mm_loadu_si128((const __m128i *)(const void *)acc);
    for (; blocks >= 4; blocks -= 4, data += 64)
        y = ghash_group(powers, y, data, 4);
    if (blocks == 3)
        y = ghash_group(powers, y, data, 3);
    else if (blocks == 2)
        y = ghash_group(powers, y, data, 2);
    else if (blocks == 1)
        y = ghash_group(powers, y, data, 1);
    _mm_storeu_si128((__m128i *)(void *)acc, y);
    aesgen_wipe(powers, sizeof powers);
    return AESGEN_OK;
}

/* y after len bytes at p, the last block zero-padded; chain: powers holds H's alone.
 * Kept out of line: see aesgen_gcm_ghash_ssse3_message. */
GHASH_NOINLINE __m128i ghash_padded(const ghash_power_tables *powers, int chain, __m128i y,
                                    const uint8_t *p, size_t len)
{
    const size_t blocks = len / 16, part = len % 16;
    if (blocks != 0)
        y = chain ? ghash_chain(powers, y, p, blocks) : ghash_blocks(powers, y, p, blocks);
    if (part != 0) {
        uint8_t last[16] = { 0 };
        memcpy(last, p + 16 * blocks, part);
        y = ghash_chain(powers, y, last, 1);
    }
    return y;
}

/*
 * A whole message's GHASH for vperm_ssse3's records: the AAD and the text, each
 * zero-padded to whole blocks, then the lengths block, from zero, with one set of
 * tables; after_aad (if not NULL) runs between the AAD and the text (encryption writes
 * the text there: the AAD is read before any byte of dst is written, asm_abi.h).
 * Through the streaming calls a message builds H's tables in each of its three calls.
 * The text's groups of four are written out here, with every other product in
 * ghash_padded: so the compiler allocates their loop as in aesgen_gcm_ghash_ssse3
 * (with the other products beside it the loop was 2-3.5% slower at 16 KiB, Zen 4).
 */
TARGET_SSSE3 void aesgen_gcm_ghash_ssse3_message(const aesgen_gcm_key *key, uint8_t acc[16],
                                                 const uint8_t *aad, size_t aad_len,
                                                 void (*after_aad)(void *), void *arg,
                                                 const uint8_t *text, size_t text_len,
                                                 const uint8_t lengths[16])
{
    ghash_power_tables powers[GHASH_GROUP];
    const size_t blocks = (aad_len + 15) / 16 + (text_len + 15) / 16 + 1;
    const int chain = blocks <= GHASH_CHAIN_BLOCKS_RECORD;
    const size_t built = chain ? 1 : GHASH_GROUP;
    ghash_powers(powers, key, built);
    __m128i y = ghash_padded(powers, chain, _mm_setzero_si128(), aad, aad_len);
    if (after_aad != NULL)
        after_aad(arg);
    size_t done = 0;
    if (!chain)
        for (; text_len - done >= 64; done += 64)
            y = ghash_group(powers, y, text + done, 4);
    y = ghash_padded(powers, chain, y, text + done, text_len - done);
    y = ghash_padded(powers, chain, y, lengths, 16);
    _mm_storeu_si128((__m128i *)(void *)acc, y);
    aesgen_wipe(powers, built * sizeof powers[0]);
}
#else
/* Not x86-64: the scalar products. */
int aesgen_gcm_ghash_ssse3(const aesgen_gcm_key *key, uint8_t acc[16],
                          const uint8_t *data, size_t len)
{
    return aesgen_gcm_ghash_generic(key, acc, data, len);
}

void aesgen_gcm_ghash_ssse3_message(const aesgen_gcm_key *key, uint8_t acc[16],
                                    const uint8_t *aad, size_t aad_len,
                                    void (*after_aad)(void *), void *arg,
                                    const uint8_t *text, size_t text_len,
                                    const uint8_t lengths[16])
{
    const uint8_t *parts[2] = { aad, text };
    const size_t lens[2] = { aad_len, text_len };
    memset(acc, 0, 16);
    for (int i = 0; i < 2; i++) {
        const size_t whole = lens[i] & ~(size_t)15;
        if (whole != 0)
            aesgen_gcm_ghash_generic(key, acc, parts[i], whole);
        if (lens[i] > whole) {
            uint8_t last[16] = { 0 };
            memcpy(last, parts[i] + whole, lens[i] - whole);
            aesgen_gcm_ghash_generic(key, acc, last, sizeof last);
        }
        if (i == 0 && after_aad != NULL)
            after_aad(arg);
    }
    aesgen_gcm_ghash_generic(key, acc, lengths, 16);
}
#endif
