/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * The oracle: OpenSSL's AES (EVP), plus an AES key schedule written here so
 * the generated assembly can be called directly with a key the library did
 * not make.
 */
#ifndef AESGEN_TEST_REFERENCE_H
#define AESGEN_TEST_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "aesgen.h"

/* The oracle's name in check messages: OpenSSL, or (built with AESGEN_TEST_NO_OPENSSL,
 * the Windows test) the tests' own AES that stands in for it (reference.c). */
#ifdef AESGEN_TEST_NO_OPENSSL
#define REFERENCE_NAME "the tests' own AES"
#else
#define REFERENCE_NAME "OpenSSL"
#endif

/* The oracle failing is a broken test environment, not a failed check: says
 * what failed and exits with status 3. */
_Noreturn void ref_die(const char *what);

/* OpenSSL AES-ECB encryption of len bytes (whole blocks), in place or not. */
void ref_ecb_encrypt(const uint8_t *key, size_t key_len, uint8_t *dst, const uint8_t *src,
                     size_t len);

/* The counter modes' last step: encrypts the ceil(len / 16) counter blocks in
 * place (AES-ECB) and sets dst = src XOR them. */
void ref_xor_keystream(const uint8_t *key, size_t key_len, uint8_t *counter_blocks, uint8_t *dst,
                       const uint8_t *src, size_t len);

/* CTR with a 128-bit big-endian counter starting at iv (OpenSSL aes-N-ctr). */
void ref_ctr(const uint8_t *key, size_t key_len, const uint8_t iv[16],
             uint8_t *dst, const uint8_t *src, size_t len);

/* XCTR: block j (j = 0, 1, ...) is src XOR AES_K(iv XOR LE128(first_index + j)),
 * built from OpenSSL AES-ECB.  The API's streams start at first_index = 1. */
void ref_xctr(const uint8_t *key, size_t key_len, const uint8_t iv[16], uint64_t first_index,
              uint8_t *dst, const uint8_t *src, size_t len);

/* The FIPS-197 key expansion into the layout the assembly reads. */
void ref_expand_key(const uint8_t *key, size_t key_len, aesgen_aes_key *out);
/* k->rk_rows from k->rk, as aesgen.h defines them (row i: rk[i] in each of four lanes);
 * ref_expand_key and ref_expand_dec_key call it. */
void ref_key_rows(aesgen_aes_key *k);

/* The 16-byte big-endian block of the counter value {ctr[0] low, ctr[1] high}. */
void ref_counter_block(const uint64_t ctr[2], uint8_t block[16]);

/* 16 bytes of counter block + n, mod 2^128, big-endian. */
void ref_counter_add(uint8_t block[16], uint64_t n);

/* XTS (IEEE 1619, ciphertext stealing), key = K1 || K2, len >= 16.
 * ref_xts_evp: OpenSSL's EVP_aes_{128,256}_xts (key_len 32 or 64; OpenSSL refuses
 * K1 == K2).  ref_xts_ecb: built here from OpenSSL AES-ECB, so it covers what
 * OpenSSL's XTS does not: AES-192 (key_len 48) and equal halves.
 * ref_xts: EVP where it can, else the ECB construction. */
void ref_xts_evp(int encrypt, const uint8_t *key, size_t key_len, const uint8_t tweak[16],
                 uint8_t *dst, const uint8_t *src, size_t len);
void ref_xts_ecb(int encrypt, const uint8_t *key, size_t key_len, const uint8_t tweak[16],
                 uint8_t *dst, const uint8_t *src, size_t len);
void ref_xts(int encrypt, const uint8_t *key, size_t key_len, const uint8_t tweak[16],
             uint8_t *dst, const uint8_t *src, size_t len);

/* The equivalent-inverse-cipher schedule AESDEC uses (asm_abi.h, XTS decrypt):
 * dec.rk[0] = enc.rk[rounds], dec.rk[i] = InvMixColumns(enc.rk[rounds - i]),
 * dec.rk[rounds] = enc.rk[0]. */
void ref_expand_dec_key(const aesgen_aes_key *enc, aesgen_aes_key *dec);

/* InvMixColumns of one 16-byte state (4 columns of 4 bytes), from its definition. */
void ref_inv_mix_columns(const uint8_t in[16], uint8_t out[16]);

#endif
