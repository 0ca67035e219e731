/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * The contract between the C runtime and the generated assembly (gen/<isa>/<mode>.S).
 *
 * Every generated function follows the System V AMD64 ABI; its contract (function
 * type) is here, its declaration in gen/aesgen_gen.h.
 * Each returns 0 (AESGEN_OK), so that the C glue can end in a tail call.
 * The assembly reads aesgen_aes_key (round keys rk[0..rounds] at offset 0, 16 bytes
 * each, the round count at offset 240, and with KEYS=rows each key's 64-byte row from
 * offset 256: every key expansion writes them), aesgen_gcm_key (public header) and
 * aesgen_gcm_record (below) directly.  Their offsets are defined once, in
 * generator/layout.py; gen/aesgen_gen.h repeats each as AESGEN_LAYOUT_* with a
 * _Static_assert against these structs, so a struct changed alone fails to compile.
 */
#ifndef AESGEN_ASM_ABI_H
#define AESGEN_ASM_ABI_H

#include <stddef.h>
#include <stdint.h>
#include "aesgen.h"

/*
 * CTR: block j of this call uses the counter value (ctr_hi:ctr_lo + j) as a
 * 128-bit big-endian block (the integer value, not the byte string).  Passed by
 * value: a 16-byte load of a counter just written as two 8-byte stores would miss
 * store forwarding on every short message.
 * Precondition: the low half does not wrap inside the call, i.e.
 * ctr_lo + ceil(len / 16) - 1 <= 2^64 - 1.  The caller splits calls at wraps.
 * len may be anything (0 too); a final partial block uses the first len % 16
 * bytes of its keystream block.  Neither ctr nor any memory outside
 * [src, src+len) and [dst, dst+len) is written or read (besides key).
 */
typedef int aesgen_ctr_fn(const aesgen_aes_key *key, uint8_t *dst, const uint8_t *src,
                           size_t len, uint64_t ctr_lo, uint64_t ctr_hi);

/*
 * CTR from the counter block in memory (16 bytes, big-endian: aesgen_ctr_crypt_iv's
 * iv), for one-shot messages: the same output as aesgen_ctr_fn with ctr_hi:ctr_lo the
 * block's value, and the same precondition.  ctr is read before anything is written, so
 * it may lie inside dst or src.  It exists because the integers' byte swap, in general
 * registers, would stand between the caller's IV and the first round (on Intel cores
 * whose vector ports run the rounds of ymm and xmm code it waits for them).  ISAs
 * without it (vperm_ssse3, generic) leave the contexts' pointer NULL.
 */
typedef int aesgen_ctr_iv_fn(const aesgen_aes_key *key, uint8_t *dst, const uint8_t *src,
                              size_t len, const uint8_t ctr[16]);

/*
 * XCTR: block j of this call uses keystream AES_K(iv XOR LE128(index + j)).
 * index >= 1 and index + ceil(len/16) - 1 <= 2^64 - 1.
 */
typedef int aesgen_xctr_fn(const aesgen_aes_key *key, uint8_t *dst, const uint8_t *src,
                            size_t len, const uint8_t iv[16], uint64_t index);

/*
 * XTS (IEEE 1619 / SP 800-38E), one data unit of len >= 16 bytes, with ciphertext
 * stealing when len % 16 != 0.  key2 is the tweak key's encryption schedule: the
 * function computes T = AES_K2(iv) itself.  key1 is the data key's schedule:
 *  - for aesgen_xts_encrypt_<isa>: the encryption schedule;
 *  - for aesgen_xts_decrypt_<isa>: the equivalent-inverse-cipher schedule used by
 *    AESDEC: dec.rk[0] = enc.rk[rounds], dec.rk[i] = InvMixColumns(enc.rk[rounds - i])
 *    for 0 < i < rounds, dec.rk[rounds] = enc.rk[0]; dec.rounds = enc.rounds.
 * Block j's tweak is T * x^j in GF(2^128) (little-endian, reduction 0x87).
 * len < 16 is a caller error (the C glue returns AESGEN_EINVAL before calling).
 */
typedef int aesgen_xts_fn(const aesgen_aes_key *key1, const aesgen_aes_key *key2,
                          uint8_t *dst, const uint8_t *src, size_t len, const uint8_t iv[16]);

/*
 * GCM (SP 800-38D).  The GHASH key material lives in struct aesgen_gcm_key (public
 * header) right after the AES key: the asm reads key->aes (offset 0) and
 * key->h_powers (offset AESGEN_GCM_H_POWERS_OFFSET): H^68 .. H^1, highest first, each
 * 16 bytes, followed by 64 zero bytes.  Each power is stored byte-reflected (reversed
 * byte order, as a little-endian 128-bit integer) and multiplied by x^-1 modulo
 * x^128 + x^7 + x^2 + x + 1, the form in which a carry-less product needs no bit shift
 * (see templates/gcm.j2).  acc is the GHASH accumulator in the same byte-reflected form
 * (all zero at the start of a message; the tag is bswap(acc) ^ E_K(J0)).
 *
 * ghash:       acc = GHASH_H(acc, data) over len bytes, len a multiple of 16.
 * enc_update:  CTR with inc32 from the counter block ctr (16 bytes, the counter block of
 *              the first block in big-endian/GCM order), dst = src ^ keystream, then GHASH
 *              over dst.  len a multiple of 16.  ctr is not written.
 * dec_update:  the same with GHASH over src (the ciphertext).
 * In place (dst == src) is allowed.
 */
typedef struct aesgen_gcm_key aesgen_gcm_key;
typedef int aesgen_gcm_ghash_fn(const aesgen_gcm_key *key, uint8_t acc[16],
                                const uint8_t *data, size_t len);
typedef int aesgen_gcm_update_fn(const aesgen_gcm_key *key, uint8_t *dst, const uint8_t *src,
                                 size_t len, const uint8_t ctr[16], uint8_t acc[16]);

/*
 * The update and record functions take len | AESGEN_GCM_SECRET_COUNTER when the
 * counter is secret: J0 from an IV of any length but 12 bytes is GHASH_H(IV), a
 * function of the key.  Then nothing may branch on the counter or use it in an
 * address.  Without the flag the counter is public (a 12-byte IV gives J0 = IV || 1),
 * and the EVEX bulk loops decide from it when a counter byte carries (templates/
 * gcm.j2, bulk_counters); with it they take the carry path every iteration.  Every
 * implementation accepts the flag (lengths are below 2^36: bit 63 is free).
 */
#define AESGEN_GCM_SECRET_COUNTER ((size_t)1 << 63)

/*
 * Records: one whole message per call, the one-shot API's fast path.
 * enc_record / dec_record en/decrypt len bytes of src into dst with the counter blocks
 * J0 + 1, J0 + 2, ... (inc32), hash the AAD (aad_len <= AESGEN_GCM_RECORD_MAX_AAD bytes;
 * not read when 0), the ciphertext and rec->lengths, and write the full tag
 * bswap(GHASH) ^ E_K(J0) to rec->tag (also used as scratch for E_K(J0)).  lengths is
 * GHASH's last block in the asm's reflected form: the bit lengths of the text and of
 * the AAD as two little-endian 64-bit integers, in that order.
 *  - EVEX ISAs (avx10_*): any len and aad_len; the tail_* fields are not read.
 *  - VEX ISAs (aesni_avx, vaes_avx2), no byte masks: aad_len is a multiple of 16 (the
 *    caller pads the AAD with zeros) and so is len; the message's partial block, if any
 *    (tail_len = 1..15 bytes), is in tail zero-padded, with its counter block (J0 +
 *    1 + len/16) in tail_ctr; the function replaces tail with its output (the first
 *    tail_len bytes are the result).  lengths counts the message's real lengths.
 * Only [src, src+len), [dst, dst+len), the AAD, the key and rec are accessed.  The AAD
 * is hashed and the ciphertext of decryption read before any byte of dst is written.
 */
#define AESGEN_GCM_RECORD_MAX_AAD (16 * AESGEN_GCM_H_POWERS)
typedef struct aesgen_gcm_record {   /* offsets: generator/layout.py GCM_RECORD */
    uint8_t j0[16];
    uint64_t lengths[2];
    const uint8_t *aad;
    size_t aad_len;
    uint8_t tag[16];
    uint8_t tail_ctr[16];    /* VEX */
    uint8_t tail[16];        /* VEX */
    size_t tail_len;         /* VEX */
} aesgen_gcm_record;
typedef int aesgen_gcm_record_fn(const aesgen_gcm_key *key, uint8_t *dst, const uint8_t *src,
                                 size_t len, aesgen_gcm_record *rec);

/* The generated functions themselves are declared in gen/aesgen_gen.h (generated from
 * generator/functions.py and gen/manifest.json), which checks each declaration against
 * its typedef above. */

#endif
