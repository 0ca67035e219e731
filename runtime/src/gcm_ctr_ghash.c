/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * GCM's update and record functions (asm_abi.h contracts) for an ISA that has a
 * generated CTR function but no gcm.S: vperm_ssse3 (no AES-NI, no PCLMULQDQ).  The
 * keystream is the ISA's CTR code (its one-block AES too), the GHASH the constant-time
 * SSSE3 one of gcm_generic.c (aesgen_gcm_ghash_ssse3: 4-bit lookups by pshufb, no
 * secret address).
 *
 * GCM counts with inc32 (the last 32 bits of the counter block, mod 2^32) where the
 * CTR function counts over 64 bits, so a call is split where the low 32 bits wrap: the
 * part after the wrap restarts them at 0.  The split point is a function of the
 * counter, which is public only for 12-byte IVs; with AESGEN_GCM_SECRET_COUNTER
 * (any other IV length: J0 = GHASH_H(IV)) the generic CTR runs instead, which never
 * branches on the counter.
 *
 * The records (the one-shot API's whole message in one call) exist for speed: through
 * the streaming calls a short message makes two one-block CTR calls (E_K(J0), then its
 * text) and three GHASH calls that each build H's tables.  Zen 4, measured, one-shot
 * over the streaming composition: 16 B and 64 B +37-55%, 256 B +7-11%, 1420 B +4%.
 */
#include "bytes.h"
#include "internal.h"

/* A build whose gen/ has no vperm_ssse3 CTR (a vendored subset) has nothing to compose. */
#ifdef AESGEN_GEN_HAS_vperm_ssse3_ctr

static void ctr32_public(aesgen_ctr_fn *ctr, const aesgen_aes_key *key, uint8_t *dst,
                         const uint8_t *src, size_t len, const uint8_t cb[16])
{
    const uint64_t hi = load_be64(cb);
    uint64_t lo = load_be64(cb + 8);
    while (len > 0) {
        /* blocks until the low 32 bits wrap (2^32 - low32, at least 1); a partial last
         * block counts: its counter wraps too */
        const uint64_t to_wrap = ((uint64_t)1 << 32) - (lo & 0xffffffffu);
        const uint64_t blocks = len / 16 + (len % 16 != 0);
        const size_t n = blocks > to_wrap ? (size_t)(to_wrap * 16) : len;
        ctr(key, dst, src, n, lo, hi);
        dst += n;
        src += n;
        len -= n;
        lo &= ~(uint64_t)0xffffffffu;     /* inc32 wrapped: low 32 bits restart at 0 */
    }
}

/* E_K(in): the CTR keystream of one block whose counter is `in` (big-endian hi:lo),
 * XORed onto zeros.  The CTR code branches on its counter only in the bitsliced loop
 * (the counter planes, lib/bitslice.j2), which a 16-byte call never enters, and never
 * indexes by it; so a secret block (E_K(J0) from a GHASHed IV) stays constant-time. */
void aesgen_encrypt_block_vperm_ssse3(const aesgen_aes_key *key, uint8_t out[16],
                                      const uint8_t in[16])
{
    static const uint8_t zeros[16];
    aesgen_ctr_crypt_vperm_ssse3(key, out, zeros, 16, load_be64(in + 8), load_be64(in));
}

int aesgen_gcm_enc_update_vperm_ssse3(const aesgen_gcm_key *key, uint8_t *dst,
                                      const uint8_t *src, size_t len, const uint8_t ctr[16],
                                      uint8_t acc[16])
{
    if (len & AESGEN_GCM_SECRET_COUNTER)
        return aesgen_gcm_enc_update_generic(key, dst, src, len, ctr, acc);
    ctr32_public(aesgen_ctr_crypt_vperm_ssse3, &key->aes, dst, src, len, ctr);
    return aesgen_gcm_ghash_ssse3(key, acc, dst, len);
}

int aesgen_gcm_dec_update_vperm_ssse3(const aesgen_gcm_key *key, uint8_t *dst,
                                      const uint8_t *src, size_t len, const uint8_t ctr[16],
                                      uint8_t acc[16])
{
    if (len & AESGEN_GCM_SECRET_COUNTER)
        return aesgen_gcm_dec_update_generic(key, dst, src, len, ctr, acc);
    aesgen_gcm_ghash_ssse3(key, acc, src, len);        /* in place: src is ciphertext now */
    ctr32_public(aesgen_ctr_crypt_vperm_ssse3, &key->aes, dst, src, len, ctr);
    return AESGEN_OK;
}

/* ---- Records: a whole message per call (the one-shot API; asm_abi.h) -------- */

/* Up to this many text bytes, E_K(J0) and the text's keystream come from one CTR call
 * over a copy of the text behind a zero block, J0's: the vector-permute code runs up
 * to three blocks side by side, so J0's block costs little beside the text's, where a
 * call of its own costs one block's whole latency. */
enum { RECORD_JOINT_BYTES = 112 };

typedef struct record_crypt {
    const aesgen_gcm_key *key;
    uint8_t *dst;
    const uint8_t *src;
    size_t len;
    int secret;                     /* the counter is secret: no branch on it */
    const uint8_t *j0;
    uint8_t *mask;                  /* E_K(J0) */
} record_crypt;

/* dst = src ^ the keystream from J0 + 1 (inc32), mask = E_K(J0). */
static void record_keystream(void *arg)
{
    const record_crypt *r = arg;
    const aesgen_aes_key *aes = &r->key->aes;
    uint8_t ctr[16];                /* J0 + 1: inc32, arithmetic only */
    const uint64_t low = load_be64(r->j0 + 8);
    memcpy(ctr, r->j0, 8);
    store_be64(ctr + 8, (low & ~(uint64_t)0xffffffffu) | (uint32_t)(low + 1));
    if (r->secret) {
        aesgen_encrypt_block_vperm_ssse3(aes, r->mask, r->j0);
        aesgen_gcm_ctr32_generic(aes, r->dst, r->src, r->len, ctr);
    } else if (r->len <= RECORD_JOINT_BYTES) {
        uint8_t joint[16 + RECORD_JOINT_BYTES];
        memset(joint, 0, 16);
        if (r->len != 0)            /* src and dst may be NULL then */
            memcpy(joint + 16, r->src, r->len);
        ctr32_public(aesgen_ctr_crypt_vperm_ssse3, aes, joint, joint, 16 + r->len, r->j0);
        memcpy(r->mask, joint, 16);
        if (r->len != 0)
            memcpy(r->dst, joint + 16, r->len);
        aesgen_wipe(joint, 16 + r->len);
    } else {
        aesgen_encrypt_block_vperm_ssse3(aes, r->mask, r->j0);
        ctr32_public(aesgen_ctr_crypt_vperm_ssse3, aes, r->dst, r->src, r->len, ctr);
    }
}

/* The lengths block in GCM's byte order (rec->lengths is its reflected form). */
static void record_lengths(uint8_t out[16], const aesgen_gcm_record *rec)
{
    store_be64(out, rec->lengths[1]);
    store_be64(out + 8, rec->lengths[0]);
}

static int record(const aesgen_gcm_key *key, uint8_t *dst, const uint8_t *src, size_t len,
                  aesgen_gcm_record *rec, int decrypt)
{
    uint8_t acc[16], mask[16], lengths[16];
    record_crypt r = { key, dst, src, len & ~AESGEN_GCM_SECRET_COUNTER,
                       (len & AESGEN_GCM_SECRET_COUNTER) != 0, rec->j0, mask };
    record_lengths(lengths, rec);
    if (decrypt) {      /* the ciphertext is hashed before dst (maybe src) is written */
        aesgen_gcm_ghash_ssse3_message(key, acc, rec->aad, rec->aad_len, NULL, NULL, src,
                                       r.len, lengths);
        record_keystream(&r);
    } else {
        aesgen_gcm_ghash_ssse3_message(key, acc, rec->aad, rec->aad_len, record_keystream,
                                       &r, dst, r.len, lengths);
    }
    aesgen_gcm_tag_from_acc(rec->tag, acc, mask);
    aesgen_wipe(mask, sizeof mask);
    aesgen_wipe(acc, sizeof acc);
    return AESGEN_OK;
}

int aesgen_gcm_enc_record_vperm_ssse3(const aesgen_gcm_key *key, uint8_t *dst,
                                      const uint8_t *src, size_t len, aesgen_gcm_record *rec)
{
    return record(key, dst, src, len, rec, 0);
}

int aesgen_gcm_dec_record_vperm_ssse3(const aesgen_gcm_key *key, uint8_t *dst,
                                      const uint8_t *src, size_t len, aesgen_gcm_record *rec)
{
    return record(key, dst, src, len, rec, 1);
}
#endif
