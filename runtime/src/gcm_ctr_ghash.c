/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * GCM's update functions (asm_abi.h contracts) for an ISA that has a generated CTR
 * function but no gcm.S: vperm_ssse3 (no AES-NI, no PCLMULQDQ).  The keystream is the
 * ISA's CTR code (its one-block AES too), the GHASH the constant-time SSSE3 one of
 * gcm_generic.c (aesgen_gcm_ghash_ssse3: 4-bit lookups by pshufb, no secret address).
 *
 * GCM counts with inc32 (the last 32 bits of the counter block, mod 2^32) where the
 * CTR function counts over 64 bits, so a call is split where the low 32 bits wrap: the
 * part after the wrap restarts them at 0.  The split point is a function of the
 * counter, which is public only for 12-byte IVs; with AESGEN_GCM_SECRET_COUNTER
 * (any other IV length: J0 = GHASH_H(IV)) the generic update runs instead, which never
 * branches on the counter.
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
        /* blocks until the low 32 bits wrap (2^32 - low32, at least 1) */
        const uint64_t to_wrap = ((uint64_t)1 << 32) - (lo & 0xffffffffu);
        const size_t n = (uint64_t)(len / 16) > to_wrap ? (size_t)(to_wrap * 16) : len;
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
#endif
