/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Portable constant-time AES ("generic" ISA): the bitsliced cipher and its
 * equivalent inverse cipher (used by xts_generic.c), and AES-CTR and AES-XCTR.
 *
 * Bitsliced: 4 blocks (64 bytes) are processed at once as 8 64-bit planes,
 * plane j holding bit j of each of the 64 bytes.  Every step is a fixed
 * sequence of AND/XOR/shift operations, so nothing depends on secret data:
 * no table lookups, no branches.  The S-box is the depth-16 circuit of
 * Boyar and Peralta ("A depth-16 circuit for the AES S-box", 2011), checked
 * by the tests (known answers, OpenSSL differential) through every mode.
 * (The shorter bottom layer the vperm_ssse3 rounds take from the 113-gate
 * circuit, generator/sbox_circuit.py, made this code 9-11% slower on Zen 4
 * with gcc 12 -O2, CTR, XTS encryption and GCM at 16 KiB: not taken.)
 *
 * Bit layout.  Loading the 64 bytes as 8 little-endian words and transposing
 * every byte column of the resulting 8x8 bit matrices (transpose8x8) puts byte
 * b of the buffer at bit 8*(b%8) + b/8 of each plane.  With b = 16*blk + 4*col
 * + row (AES state bytes are column-major) that bit position is
 *     32*(col&1) + 8*row + 2*blk + (col>>1),
 * so each 32-bit half of a plane holds one column parity, each byte of a half
 * one state row, and the row rotations of MixColumns are rotations of the
 * 32-bit halves by whole bytes.  ShiftRows is the permutation derived below.
 *
 * The inverse cipher reuses the forward S-box circuit rather than a second
 * one: with S(x) = A(x^-1) ^ 0x63 (A the linear part of the affine map),
 *     S^-1(y) = A^-1(S(z) ^ 0x63)   where z = A^-1(y ^ 0x63),
 * since S(z) ^ 0x63 = A(z^-1) gives A^-1(S(z) ^ 0x63) = z^-1, and z^-1 is the
 * x with A(x^-1) = y ^ 0x63.  Two cheap linear maps around the same circuit.
 */
#include <string.h>
#include "bytes.h"
#include "internal.h"

#define BS_BLOCKS AESGEN_BS_BLOCKS
#define BS_BYTES  (16 * BS_BLOCKS)

typedef uint64_t planes[8];

static uint64_t bswap64(uint64_t x)
{
    return __builtin_bswap64(x);
}

/* Swaps the bits of *a selected by (mask << shift) with the bits of *b selected by mask. */
static inline void swap_bits(uint64_t *a, uint64_t *b, uint64_t mask, unsigned shift)
{
    uint64_t t = ((*a >> shift) ^ *b) & mask;
    *b ^= t;
    *a ^= t << shift;
}

/*
 * Transposes, for each byte position m, the 8x8 bit matrix (word n, bit j of
 * byte m): afterwards bit n of byte m of w[j] is the former bit j of byte m of
 * w[n].  Each step swaps one bit of the word index with the same bit of the
 * bit index.  It is its own inverse.
 */
static void transpose8x8(planes w)
{
    for (int n = 0; n < 8; n += 2)
        swap_bits(&w[n], &w[n + 1], 0x5555555555555555u, 1);
    static const int pairs_of_2[4] = { 0, 1, 4, 5 };
    for (int i = 0; i < 4; i++)
        swap_bits(&w[pairs_of_2[i]], &w[pairs_of_2[i] + 2], 0x3333333333333333u, 2);
    for (int n = 0; n < 4; n++)
        swap_bits(&w[n], &w[n + 4], 0x0f0f0f0f0f0f0f0fu, 4);
}

/* SubBytes on all 64 bytes: the S-box circuit with U0 = most significant bit. */
static void sub_bytes(planes p)
{
    const uint64_t U0 = p[7], U1 = p[6], U2 = p[5], U3 = p[4];
    const uint64_t U4 = p[3], U5 = p[2], U6 = p[1], U7 = p[0];
    /* Top linear layer: the 8 input bits to 27 linear forms. */
    uint64_t T1 = U0 ^ U3; uint64_t T2 = U0 ^ U5; uint64_t T3 = U0 ^ U6;
    uint64_t T4 = U3 ^ U5; uint64_t T5 = U4 ^ U6; uint64_t T6 = T1 ^ T5;
    uint64_t T7 = U1 ^ U2; uint64_t T8 = U7 ^ T6; uint64_t T9 = U7 ^ T7;
    uint64_t T10 = T6 ^ T7; uint64_t T11 = U1 ^ U5; uint64_t T12 = U2 ^ U5;
    uint64_t T13 = T3 ^ T4; uint64_t T14 = T6 ^ T11; uint64_t T15 = T5 ^ T11;
    uint64_t T16 = T5 ^ T12; uint64_t T17 = T9 ^ T16; uint64_t T18 = U3 ^ U7;
    uint64_t T19 = T7 ^ T18; uint64_t T20 = T1 ^ T19; uint64_t T21 = U6 ^ U7;
    uint64_t T22 = T7 ^ T21; uint64_t T23 = T2 ^ T22; uint64_t T24 = T2 ^ T10;
    uint64_t T25 = T20 ^ T17; uint64_t T26 = T3 ^ T16; uint64_t T27 = T1 ^ T12;
    /* Non-linear middle, shared with the inverse S-box (34 AND). */
    uint64_t M1 = T13 & T6; uint64_t M2 = T23 & T8; uint64_t M3 = T14 ^ M1;
    uint64_t M4 = T19 & U7; uint64_t M5 = M4 ^ M1; uint64_t M6 = T3 & T16;
    uint64_t M7 = T22 & T9; uint64_t M8 = T26 ^ M6; uint64_t M9 = T20 & T17;
    uint64_t M10 = M9 ^ M6; uint64_t M11 = T1 & T15; uint64_t M12 = T4 & T27;
    uint64_t M13 = M12 ^ M11; uint64_t M14 = T2 & T10; uint64_t M15 = M14 ^ M11;
    uint64_t M16 = M3 ^ M2; uint64_t M17 = M5 ^ T24; uint64_t M18 = M8 ^ M7;
    uint64_t M19 = M10 ^ M15; uint64_t M20 = M16 ^ M13; uint64_t M21 = M17 ^ M15;
    uint64_t M22 = M18 ^ M13; uint64_t M23 = M19 ^ T25; uint64_t M24 = M22 ^ M23;
    uint64_t M25 = M22 & M20; uint64_t M26 = M21 ^ M25; uint64_t M27 = M20 ^ M21;
    uint64_t M28 = M23 ^ M25; uint64_t M29 = M28 & M27; uint64_t M30 = M26 & M24;
    uint64_t M31 = M20 & M23; uint64_t M32 = M27 & M31; uint64_t M33 = M27 ^ M25;
    uint64_t M34 = M21 & M22; uint64_t M35 = M24 & M34; uint64_t M36 = M24 ^ M25;
    uint64_t M37 = M21 ^ M29; uint64_t M38 = M32 ^ M33; uint64_t M39 = M23 ^ M30;
    uint64_t M40 = M35 ^ M36; uint64_t M41 = M38 ^ M40; uint64_t M42 = M37 ^ M39;
    uint64_t M43 = M37 ^ M38; uint64_t M44 = M39 ^ M40; uint64_t M45 = M42 ^ M41;
    uint64_t M46 = M44 & T6; uint64_t M47 = M40 & T8; uint64_t M48 = M39 & U7;
    uint64_t M49 = M43 & T16; uint64_t M50 = M38 & T9; uint64_t M51 = M37 & T17;
    uint64_t M52 = M42 & T15; uint64_t M53 = M45 & T27; uint64_t M54 = M41 & T10;
    uint64_t M55 = M44 & T13; uint64_t M56 = M40 & T23; uint64_t M57 = M39 & T19;
    uint64_t M58 = M43 & T3; uint64_t M59 = M38 & T22; uint64_t M60 = M37 & T20;
    uint64_t M61 = M42 & T1; uint64_t M62 = M45 & T4; uint64_t M63 = M41 & T2;
    /* Bottom linear layer; the XNORs add the affine constant 0x63. */
    uint64_t L0 = M61 ^ M62; uint64_t L1 = M50 ^ M56; uint64_t L2 = M46 ^ M48;
    uint64_t L3 = M47 ^ M55; uint64_t L4 = M54 ^ M58; uint64_t L5 = M49 ^ M61;
    uint64_t L6 = M62 ^ L5; uint64_t L7 = M46 ^ L3; uint64_t L8 = M51 ^ M59;
    uint64_t L9 = M52 ^ M53; uint64_t L10 = M53 ^ L4; uint64_t L11 = M60 ^ L2;
    uint64_t L12 = M48 ^ M51; uint64_t L13 = M50 ^ L0; uint64_t L14 = M52 ^ M61;
    uint64_t L15 = M55 ^ L1; uint64_t L16 = M56 ^ L0; uint64_t L17 = M57 ^ L1;
    uint64_t L18 = M58 ^ L8; uint64_t L19 = M63 ^ L4; uint64_t L20 = L0 ^ L1;
    uint64_t L21 = L1 ^ L7; uint64_t L22 = L3 ^ L12; uint64_t L23 = L18 ^ L2;
    uint64_t L24 = L15 ^ L9; uint64_t L25 = L6 ^ L10; uint64_t L26 = L7 ^ L9;
    uint64_t L27 = L8 ^ L10; uint64_t L28 = L11 ^ L14; uint64_t L29 = L11 ^ L17;
    uint64_t S0 = L6 ^ L24; uint64_t S1 = ~(L16 ^ L26); uint64_t S2 = ~(L19 ^ L28);
    uint64_t S3 = L6 ^ L21; uint64_t S4 = L20 ^ L22; uint64_t S5 = L25 ^ L29;
    uint64_t S6 = ~(L13 ^ L27); uint64_t S7 = ~(L6 ^ L23);
    p[7] = S0; p[6] = S1; p[5] = S2; p[4] = S3;
    p[3] = S4; p[2] = S5; p[1] = S6; p[0] = S7;
}

/*
 * A^-1(y) ^ 0x05 on bitsliced bytes, which equals A^-1(y ^ 0x63): the inverse
 * affine map of the AES S-box, bit i = y[i+2] ^ y[i+5] ^ y[i+7] (mod 8) ^ bit i of 0x05.
 */
static void inv_affine(planes p)
{
    /* Written out: a copy of p through memcpy became 16-byte loads of the
     * 8-byte stores just made, which stall store forwarding. */
    const uint64_t y0 = p[0], y1 = p[1], y2 = p[2], y3 = p[3];
    const uint64_t y4 = p[4], y5 = p[5], y6 = p[6], y7 = p[7];
    p[0] = ~(y2 ^ y5 ^ y7);
    p[1] = y3 ^ y6 ^ y0;
    p[2] = ~(y4 ^ y7 ^ y1);
    p[3] = y5 ^ y0 ^ y2;
    p[4] = y6 ^ y1 ^ y3;
    p[5] = y7 ^ y2 ^ y4;
    p[6] = y0 ^ y3 ^ y5;
    p[7] = y1 ^ y4 ^ y6;
}

/* InvSubBytes on all 64 bytes: S^-1(y) = A^-1(S(A^-1(y ^ 0x63)) ^ 0x63) (see the top). */
static void inv_sub_bytes(planes p)
{
    inv_affine(p);
    sub_bytes(p);
    inv_affine(p);
}

/*
 * ShiftRows: new[row][col] = old[row][(col + row) % 4].  With the column at
 * bits 5 (col&1) and 0 (col>>1) of the position, the moves per row are:
 *   row 1: col0<-col1 (>>32), col1<-col2 (<<31), col2<-col3 (>>32), col3<-col0 (<<33)
 *   row 2: col1>>1 swaps with col0, col3 with col2: adjacent-bit swap
 *   row 3: col0<-col3 (>>33), col1<-col0 (<<32), col2<-col1 (>>31), col3<-col2 (<<32)
 */
static uint64_t shift_rows_plane(uint64_t x)
{
    const uint64_t row0 = x & 0x000000ff000000ffu;
    const uint64_t row1 = ((x >> 32) & 0x000000000000ff00u)
                        | ((x << 31) & 0x0000550000000000u)
                        | ((x << 33) & 0x0000aa0000000000u);
    const uint64_t row2 = ((x >> 1) & 0x0055000000550000u)
                        | ((x << 1) & 0x00aa000000aa0000u);
    const uint64_t row3 = ((x >> 33) & 0x0000000055000000u)
                        | ((x >> 31) & 0x00000000aa000000u)
                        | ((x << 32) & 0xff00000000000000u);
    return row0 | row1 | row2 | row3;
}

static void shift_rows(planes p)
{
    for (int j = 0; j < 8; j++)
        p[j] = shift_rows_plane(p[j]);
}

/*
 * InvShiftRows: new[row][col] = old[row][(col - row) % 4], so row 1 moves as
 * row 3 of ShiftRows and row 3 as row 1:
 *   row 1: col0<-col3 (>>33), col1<-col0 (<<32), col2<-col1 (>>31), col3<-col2 (<<32)
 *   row 3: col0<-col1 (>>32), col1<-col2 (<<31), col2<-col3 (>>32), col3<-col0 (<<33)
 */
static uint64_t inv_shift_rows_plane(uint64_t x)
{
    const uint64_t row0 = x & 0x000000ff000000ffu;
    const uint64_t row1 = ((x >> 33) & 0x0000000000005500u)
                        | ((x >> 31) & 0x000000000000aa00u)
                        | ((x << 32) & 0x0000ff0000000000u);
    const uint64_t row2 = ((x >> 1) & 0x0055000000550000u)
                        | ((x << 1) & 0x00aa000000aa0000u);
    const uint64_t row3 = ((x >> 32) & 0x00000000ff000000u)
                        | ((x << 31) & 0x5500000000000000u)
                        | ((x << 33) & 0xaa00000000000000u);
    return row0 | row1 | row2 | row3;
}

static void inv_shift_rows(planes p)
{
    for (int j = 0; j < 8; j++)
        p[j] = inv_shift_rows_plane(p[j]);
}

/* Row r of the result holds row r+1 (mod 4) of x: rotate each 32-bit half by a byte. */
static uint64_t rows_up1(uint64_t x)
{
    return ((x >> 8) & 0x00ffffff00ffffffu) | ((x << 24) & 0xff000000ff000000u);
}

static uint64_t rows_up2(uint64_t x)
{
    return ((x >> 16) & 0x0000ffff0000ffffu) | ((x << 16) & 0xffff0000ffff0000u);
}

/*
 * Multiplies every byte by 2 (xtime): planes move up one bit and bit 7 folds
 * back in with the AES polynomial 0x11b (bits 0, 1, 3, 4).
 */
static void xtime(planes out, const planes t)
{
    const uint64_t top = t[7];
    out[0] = top;
    out[1] = t[0] ^ top;
    out[2] = t[1];
    out[3] = t[2] ^ top;
    out[4] = t[3] ^ top;
    out[5] = t[4];
    out[6] = t[5];
    out[7] = t[6];
}

/*
 * MixColumns: out[r] = 2*a[r] ^ 3*a[r+1] ^ a[r+2] ^ a[r+3]
 *                    = 2*t[r] ^ a[r+1] ^ t[r+2]   with t[r] = a[r] ^ a[r+1].
 */
static void mix_columns(planes p)
{
    planes a1, t, xt;
    for (int j = 0; j < 8; j++) {
        a1[j] = rows_up1(p[j]);
        t[j] = p[j] ^ a1[j];
    }
    xtime(xt, t);
    for (int j = 0; j < 8; j++)
        p[j] = xt[j] ^ a1[j] ^ rows_up2(t[j]);
}

/*
 * InvMixColumns = MixColumns after the circulant (5, 0, 4, 0):
 * (2,3,1,1) * (5,0,4,0) = (14,11,13,9) as circulants, and
 * 5*a[r] ^ 4*a[r+2] = a[r] ^ 4*(a[r] ^ a[r+2]), two xtimes of one sum.
 */
static void inv_mix_columns(planes p)
{
    planes u, x2, x4;
    for (int j = 0; j < 8; j++)
        u[j] = p[j] ^ rows_up2(p[j]);
    xtime(x2, u);
    xtime(x4, x2);
    for (int j = 0; j < 8; j++)
        p[j] ^= x4[j];
    mix_columns(p);
}

static void add_round_key(planes p, const planes rk)
{
    for (int j = 0; j < 8; j++)
        p[j] ^= rk[j];
}

void aesgen_bs_key_init(aesgen_bs_key *bk, const aesgen_aes_key *key)
{
    bk->rounds = key->rounds;
    for (unsigned r = 0; r <= key->rounds; r++) {
        const uint64_t lo = load_le64(key->rk[r]), hi = load_le64(key->rk[r] + 8);
        for (int blk = 0; blk < BS_BLOCKS; blk++) {
            bk->rk[r][2 * blk] = lo;
            bk->rk[r][2 * blk + 1] = hi;
        }
        transpose8x8(bk->rk[r]);
    }
}

/* Encrypts 4 blocks given (and returned) as 8 little-endian words, 2 per block. */
static void encrypt_4_blocks(planes words, const aesgen_bs_key *bk)
{
    transpose8x8(words);
    add_round_key(words, bk->rk[0]);
    for (unsigned r = 1; r < bk->rounds; r++) {
        sub_bytes(words);
        shift_rows(words);
        mix_columns(words);
        add_round_key(words, bk->rk[r]);
    }
    sub_bytes(words);
    shift_rows(words);
    add_round_key(words, bk->rk[bk->rounds]);
    transpose8x8(words);
}

/* Decrypts 4 blocks with the equivalent inverse cipher (FIPS-197 5.3.5), whose
 * round structure is the cipher's: the decryption schedule holds the
 * InvMixColumns of the middle round keys. */
static void decrypt_4_blocks(planes words, const aesgen_bs_key *bk)
{
    transpose8x8(words);
    add_round_key(words, bk->rk[0]);
    for (unsigned r = 1; r < bk->rounds; r++) {
        inv_sub_bytes(words);
        inv_shift_rows(words);
        inv_mix_columns(words);
        add_round_key(words, bk->rk[r]);
    }
    inv_sub_bytes(words);
    inv_shift_rows(words);
    add_round_key(words, bk->rk[bk->rounds]);
    transpose8x8(words);
}

void aesgen_bs_encrypt4(uint64_t words[8], const aesgen_bs_key *bk)
{
    encrypt_4_blocks(words, bk);
}

void aesgen_bs_decrypt4(uint64_t words[8], const aesgen_bs_key *bk)
{
    decrypt_4_blocks(words, bk);
}

/* dst = src ^ keystream for n <= 64 bytes; keystream is 8 little-endian words. */
static void xor_keystream(uint8_t *dst, const uint8_t *src, size_t n, const planes ks)
{
    if (n == BS_BYTES) {
        for (int i = 0; i < 8; i++)
            store_le64(dst + 8 * i, load_le64(src + 8 * i) ^ ks[i]);
        return;
    }
    uint8_t bytes[BS_BYTES];
    for (int i = 0; i < 8; i++)
        store_le64(bytes + 8 * i, ks[i]);
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i] ^ bytes[i];
    aesgen_wipe(bytes, sizeof bytes);
}

/*
 * Counter blocks are big-endian 128-bit integers; as little-endian words the
 * high half comes first, byte-swapped.  A final group may run past the end of
 * the message and even wrap the low half: those blocks are computed and
 * discarded, never used.
 */
int aesgen_ctr_crypt_generic(const aesgen_aes_key *key, uint8_t *dst, const uint8_t *src,
                             size_t len, uint64_t ctr_lo, uint64_t ctr_hi)
{
    if (len == 0)
        return AESGEN_OK;
    aesgen_bs_key bk;
    planes w;
    aesgen_bs_key_init(&bk, key);
    const uint64_t hi_word = bswap64(ctr_hi);
    uint64_t lo = ctr_lo;
    while (len > 0) {
        for (int blk = 0; blk < BS_BLOCKS; blk++) {
            w[2 * blk] = hi_word;
            w[2 * blk + 1] = bswap64(lo + (uint64_t)blk);
        }
        encrypt_4_blocks(w, &bk);
        const size_t n = len < BS_BYTES ? len : BS_BYTES;
        xor_keystream(dst, src, n, w);
        dst += n;
        src += n;
        len -= n;
        lo += BS_BLOCKS;
    }
    aesgen_wipe(&bk, sizeof bk);
    aesgen_wipe(w, sizeof w);
    return AESGEN_OK;
}

/* XCTR block i is AES(iv ^ LE128(i)); i < 2^64, so only the low word changes. */
int aesgen_xctr_crypt_generic(const aesgen_aes_key *key, uint8_t *dst, const uint8_t *src,
                              size_t len, const uint8_t iv[16], uint64_t index)
{
    if (len == 0)
        return AESGEN_OK;
    aesgen_bs_key bk;
    planes w;
    aesgen_bs_key_init(&bk, key);
    const uint64_t iv_lo = load_le64(iv), iv_hi = load_le64(iv + 8);
    while (len > 0) {
        for (int blk = 0; blk < BS_BLOCKS; blk++) {
            w[2 * blk] = iv_lo ^ (index + (uint64_t)blk);
            w[2 * blk + 1] = iv_hi;
        }
        encrypt_4_blocks(w, &bk);
        const size_t n = len < BS_BYTES ? len : BS_BYTES;
        xor_keystream(dst, src, n, w);
        dst += n;
        src += n;
        len -= n;
        index += BS_BLOCKS;
    }
    aesgen_wipe(&bk, sizeof bk);
    aesgen_wipe(w, sizeof w);
    return AESGEN_OK;
}

/* The S-box on the 4 bytes of w, using bit slot i of each plane for byte i. */
uint32_t aesgen_sub_word_ct(uint32_t w)
{
    planes p;
    for (int j = 0; j < 8; j++) {
        p[j] = 0;
        for (int i = 0; i < 4; i++)
            p[j] |= (uint64_t)((w >> (8 * i + j)) & 1) << i;
    }
    sub_bytes(p);
    uint32_t out = 0;
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < 4; i++)
            out |= (uint32_t)((p[j] >> i) & 1) << (8 * i + j);
    aesgen_wipe(p, sizeof p);
    return out;
}
