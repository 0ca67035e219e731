/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * What the GCM test groups share: the API in both directions (one-shot and
 * streamed in given chunks), and two references:
 *  - OpenSSL's EVP aes-{128,192,256}-gcm (IV 1..128 bytes, any tag length);
 *  - one written here from AES-ECB (OpenSSL) and a bit-by-bit GF(2^128)
 *    multiply straight from SP 800-38D (Algorithm 1), for any IV length, for the
 *    direct assembly calls (CTR with inc32, GHASH from any accumulator) and for
 *    IVs solved so that J0's counter sits just below the 32-bit wrap.
 * Blocks are in GCM byte order unless a name says "reflected" (asm_abi.h's
 * form: the 16 bytes reversed).
 */
#ifndef AESGEN_TEST_GCM_HARNESS_H
#define AESGEN_TEST_GCM_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aesgen.h"

enum gcm_dir { GCM_ENCRYPT, GCM_DECRYPT };

enum { GCM_TAG_LENGTH_COUNT = 7, GCM_OPENSSL_MAX_IV = 128 };
extern const size_t gcm_tag_lengths[GCM_TAG_LENGTH_COUNT];   /* 4, 8, 12, 13, 14, 15, 16 */

const char *gcm_dir_name(enum gcm_dir dir);                   /* "encrypt", "decrypt" */

/* ---- The API ----------------------------------------------------------------- */

/* aesgen_gcm_encrypt (tag is written) or aesgen_gcm_decrypt (tag is read). */
int gcm_api_oneshot(enum gcm_dir dir, const aesgen_gcm_key *key, const uint8_t *iv,
                    size_t iv_len, const uint8_t *aad, size_t aad_len, uint8_t *dst,
                    const uint8_t *src, size_t len, uint8_t *tag, size_t tag_len);

/* start, aad in the given chunk lengths, update in the given chunk lengths, final.
 * As in harness.h, the last chunk takes whatever remains (chunks may be 0 bytes;
 * a chunk count of 0 means one call with everything).  Returns the first
 * non-OK result (for decrypt, final's AESGEN_EBADMSG). */
int gcm_api_streamed(enum gcm_dir dir, const aesgen_gcm_key *key, const uint8_t *iv,
                     size_t iv_len, const uint8_t *aad, size_t aad_len,
                     const size_t *aad_chunks, size_t aad_chunk_count, uint8_t *dst,
                     const uint8_t *src, size_t len, const size_t *text_chunks,
                     size_t text_chunk_count, uint8_t *tag, size_t tag_len);

/* ---- References ------------------------------------------------------------ */

/* OpenSSL EVP.  Encrypt writes dst and the full 16-byte tag; decrypt checks the
 * first tag_len bytes of tag, writes dst and returns whether they matched.
 * iv_len 1..GCM_OPENSSL_MAX_IV (OpenSSL 3 refuses longer IVs). */
bool gcm_ref_evp(enum gcm_dir dir, const uint8_t *key, size_t key_len, const uint8_t *iv,
                 size_t iv_len, const uint8_t *aad, size_t aad_len, uint8_t *dst,
                 const uint8_t *src, size_t len, uint8_t tag[16], size_t tag_len);

/* The tests' own GCM: ciphertext and the full tag, any iv_len >= 1.  dst may
 * equal src. */
void gcm_ref_own_encrypt(const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
                         const uint8_t *aad, size_t aad_len, uint8_t *dst, const uint8_t *src,
                         size_t len, uint8_t tag[16]);

/* Encrypt: ciphertext and full tag, by OpenSSL where it can, else our own. */
void gcm_ref_encrypt(const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
                     const uint8_t *aad, size_t aad_len, uint8_t *dst, const uint8_t *src,
                     size_t len, uint8_t tag[16]);

/* x * y in GF(2^128), SP 800-38D Algorithm 1, bit by bit. */
void gf128_mul(const uint8_t x[16], const uint8_t y[16], uint8_t out[16]);

/* H = AES_K(0^128). */
void gcm_ref_hash_key(const uint8_t *key, size_t key_len, uint8_t h[16]);

/* y = GHASH_H continued from y over data (len a multiple of 16). */
void gcm_ref_ghash(const uint8_t h[16], uint8_t y[16], const uint8_t *data, size_t len);

/* J0 for any iv_len >= 1. */
void gcm_ref_j0(const uint8_t h[16], const uint8_t *iv, size_t iv_len, uint8_t j0[16]);

/* dst = src XOR AES_K(counter blocks from ctr, inc32: the last 4 bytes wrap
 * mod 2^32, the first 12 never change). */
void gcm_ref_ctr32(const uint8_t *key, size_t key_len, const uint8_t ctr[16], uint8_t *dst,
                   const uint8_t *src, size_t len);

/* A 16-byte IV whose J0 is exactly j0 (J0 = IV*H^2 + L*H, solved for IV). */
void gcm_iv_for_j0(const uint8_t h[16], const uint8_t j0[16], uint8_t iv[16]);

/* The 16 bytes reversed (GCM order <-> asm_abi.h's reflected form). */
void gcm_reflect(const uint8_t in[16], uint8_t out[16]);

/* x^-1 * a in the reflected form (asm_abi.h: how the key stores each power of H). */
void gcm_reflected_div_x(const uint8_t in[16], uint8_t out[16]);

/* ---- Misc -------------------------------------------------------------------- */

/* Random lengths of stream chunks for a message of len bytes: mostly small, some
 * across a block or a main-loop stride; count <= cap, sum may exceed len (the
 * streamed call clamps). */
size_t gcm_random_chunks(size_t *chunks, size_t cap, size_t len);

/* A random key of key_len bytes initialized under the ISA selected now. */
bool gcm_make_key(aesgen_gcm_key *key, uint8_t *raw, size_t key_len, const char *isa);

#endif
