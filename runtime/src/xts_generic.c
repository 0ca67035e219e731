/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Portable constant-time AES-XTS (IEEE 1619 / SP 800-38E) with ciphertext
 * stealing: aesgen_xts_encrypt_generic / aesgen_xts_decrypt_generic, with the
 * asm_abi.h contract (key1 is the decryption schedule for decrypt).
 *
 * Blocks go through the bitsliced cipher of aes_bitsliced.c 4 at a time; the
 * tweaks are kept as two little-endian 64-bit words (lo, hi), which is the
 * GF(2^128) element of IEEE 1619 with bit i of the 128-bit integer being the
 * coefficient of x^i.  Nothing branches on or indexes by secret data.
 *
 * Ciphertext stealing, with m full blocks and r = len % 16 > 0 trailing bytes
 * (P_m / C_m the partial block, T_j = T * x^j):
 *   encrypt: CC = E_{T_{m-1}}(P_{m-1});  C_m = CC[0..r);
 *            C_{m-1} = E_{T_m}(P_m || CC[r..16))
 *   decrypt: PP = D_{T_m}(C_{m-1});      P_m = PP[0..r);
 *            P_{m-1} = D_{T_{m-1}}(C_m || PP[r..16))
 * so decryption uses the last two tweaks in reverse order.
 */
#include <string.h>
#include "bytes.h"
#include "internal.h"

typedef void cipher4_fn(uint64_t words[8], const aesgen_bs_key *bk);

/* A tweak: the 128-bit little-endian value as its low and high 64-bit words. */
typedef struct xts_tweak {
    uint64_t lo, hi;
} xts_tweak;

/*
 * T * x in GF(2^128) mod x^128 + x^7 + x^2 + x + 1: a 128-bit left shift, and
 * the bit shifted out folds back as 0x87.  The fold uses a mask made from that
 * bit (0 or all ones), not a branch: the tweak is secret (it is AES_K2(iv)).
 */
static xts_tweak tweak_mul_x(xts_tweak t)
{
    const uint64_t carry_mask = 0 - (t.hi >> 63);
    xts_tweak r;
    r.hi = (t.hi << 1) | (t.lo >> 63);
    r.lo = (t.lo << 1) ^ (0x87u & carry_mask);
    return r;
}

/*
 * nblocks (>= 0) full blocks from src to dst through cipher(block ^ T_j) ^ T_j,
 * 4 at a time.  *t is the tweak of the first block and is advanced past the
 * last.  Unused slots of a final partial group hold zeros and are discarded.
 * dst may equal src.
 */
static void xts_blocks(const aesgen_bs_key *bk, cipher4_fn *cipher, uint8_t *dst,
                       const uint8_t *src, size_t nblocks, xts_tweak *t)
{
    uint64_t w[8], tw[8];
    while (nblocks > 0) {
        const size_t n = nblocks < AESGEN_BS_BLOCKS ? nblocks : AESGEN_BS_BLOCKS;
        memset(w, 0, sizeof w);
        memset(tw, 0, sizeof tw);
        for (size_t b = 0; b < n; b++) {
            tw[2 * b] = t->lo;
            tw[2 * b + 1] = t->hi;
            w[2 * b] = load_le64(src + 16 * b) ^ t->lo;
            w[2 * b + 1] = load_le64(src + 16 * b + 8) ^ t->hi;
            *t = tweak_mul_x(*t);
        }
        cipher(w, bk);
        for (size_t b = 0; b < n; b++) {
            store_le64(dst + 16 * b, w[2 * b] ^ tw[2 * b]);
            store_le64(dst + 16 * b + 8, w[2 * b + 1] ^ tw[2 * b + 1]);
        }
        src += 16 * n;
        dst += 16 * n;
        nblocks -= n;
    }
    aesgen_wipe(w, sizeof w);
    aesgen_wipe(tw, sizeof tw);
}

/* One block through the cipher with tweak t (t itself unchanged). */
static void xts_one_block(const aesgen_bs_key *bk, cipher4_fn *cipher, uint8_t *dst,
                          const uint8_t *src, xts_tweak t)
{
    xts_blocks(bk, cipher, dst, src, 1, &t);
    aesgen_wipe(&t, sizeof t);
}

/* T = AES_K2(iv), computed in the storage of bk (which is then overwritten by K1). */
static xts_tweak xts_first_tweak(aesgen_bs_key *bk, const aesgen_aes_key *key2,
                                 const uint8_t iv[16])
{
    uint64_t w[8] = { load_le64(iv), load_le64(iv + 8) };
    aesgen_bs_key_init(bk, key2);
    aesgen_bs_encrypt4(w, bk);
    const xts_tweak t = { w[0], w[1] };
    aesgen_wipe(w, sizeof w);
    return t;
}

/* Steals for encryption: the last full block (already in dst) and r bytes of src. */
static void xts_encrypt_steal(const aesgen_bs_key *bk, uint8_t *last_full, const uint8_t *tail_src,
                              uint8_t *tail_dst, size_t r, xts_tweak t_m)
{
    uint8_t pp[16];
    memcpy(pp, tail_src, r);               /* read P_m before C_m may overwrite it */
    memcpy(pp + r, last_full + r, 16 - r);
    memcpy(tail_dst, last_full, r);        /* C_m = CC[0..r) */
    xts_one_block(bk, aesgen_bs_encrypt4, last_full, pp, t_m);
    aesgen_wipe(pp, sizeof pp);
}

int aesgen_xts_encrypt_generic(const aesgen_aes_key *key1, const aesgen_aes_key *key2,
                               uint8_t *dst, const uint8_t *src, size_t len,
                               const uint8_t iv[16])
{
    if (len < 16)
        return AESGEN_EINVAL;
    aesgen_bs_key bk;
    xts_tweak t = xts_first_tweak(&bk, key2, iv);
    aesgen_bs_key_init(&bk, key1);
    const size_t m = len / 16, r = len % 16;
    xts_blocks(&bk, aesgen_bs_encrypt4, dst, src, m, &t);   /* t is now T_m */
    if (r != 0)
        xts_encrypt_steal(&bk, dst + 16 * (m - 1), src + 16 * m, dst + 16 * m, r, t);
    aesgen_wipe(&bk, sizeof bk);
    aesgen_wipe(&t, sizeof t);
    return AESGEN_OK;
}

/*
 * Steals for decryption: C_{m-1} and C_m (r bytes) are read from src before
 * anything at those positions of dst is written (dst may equal src).
 * t_prev is T_{m-1}; the first step uses T_m = T_{m-1} * x.
 */
static void xts_decrypt_steal(const aesgen_bs_key *bk, uint8_t *dst, const uint8_t *src,
                              size_t r, xts_tweak t_prev)
{
    uint8_t pp[16], cc[16];
    memcpy(cc, src + 16, r);                                  /* C_m */
    xts_one_block(bk, aesgen_bs_decrypt4, pp, src, tweak_mul_x(t_prev));
    memcpy(cc + r, pp + r, 16 - r);
    memcpy(dst + 16, pp, r);                                  /* P_m */
    xts_one_block(bk, aesgen_bs_decrypt4, dst, cc, t_prev);   /* P_{m-1} */
    aesgen_wipe(pp, sizeof pp);
    aesgen_wipe(cc, sizeof cc);
}

int aesgen_xts_decrypt_generic(const aesgen_aes_key *key1, const aesgen_aes_key *key2,
                               uint8_t *dst, const uint8_t *src, size_t len,
                               const uint8_t iv[16])
{
    if (len < 16)
        return AESGEN_EINVAL;
    aesgen_bs_key bk;
    xts_tweak t = xts_first_tweak(&bk, key2, iv);
    aesgen_bs_key_init(&bk, key1);
    const size_t m = len / 16, r = len % 16;
    if (r == 0) {
        xts_blocks(&bk, aesgen_bs_decrypt4, dst, src, m, &t);
    } else {
        xts_blocks(&bk, aesgen_bs_decrypt4, dst, src, m - 1, &t);   /* t is now T_{m-1} */
        xts_decrypt_steal(&bk, dst + 16 * (m - 1), src + 16 * (m - 1), r, t);
    }
    aesgen_wipe(&bk, sizeof bk);
    aesgen_wipe(&t, sizeof t);
    return AESGEN_OK;
}
