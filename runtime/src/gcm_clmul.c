/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * GCM pieces for the asm ISAs written with AES-NI and PCLMULQDQ intrinsics: the key
 * setup (H and its powers in the asm_abi.h form) and the one-block AES the C glue uses
 * for partial blocks and E_K(J0).  GHASH and the bulk CTR+GHASH are gen/<isa>/gcm.S.
 * The math is gcm_generic.c's (same reflected form, same reduction), with
 * PCLMULQDQ as the 64 x 64 carry-less multiply.  Compiled for AVX (VEX
 * encodings, so no SSE/AVX transition cost next to the generated code); the
 * table only uses these on CPUs with AES-NI, PCLMULQDQ and AVX.
 */
#include <string.h>
#include "internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define TARGET_CLMUL __attribute__((target("avx,aes,pclmul")))

/* Reverses the 16 bytes: GCM order <-> the reflected (little-endian) integer. */
TARGET_CLMUL static __m128i bswap128(__m128i x)
{
    const __m128i rev = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm_shuffle_epi8(x, rev);
}

TARGET_CLMUL static __m128i load128(const uint8_t *p)
{
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

TARGET_CLMUL static void store128(uint8_t *p, __m128i x)
{
    _mm_storeu_si128((__m128i *)(void *)p, x);
}

/*
 * a * b with b_tw = b * x^-1, all reflected: the 256-bit product (4 PCLMULQDQ),
 * then gf_reduce of gcm_generic.c with the shift-and-XOR folds done as
 * products by 0xc2 << 56 (x^63 + x^62 + x^57 as an integer): for a 64-bit q,
 * clmul(q, 0xc2 << 56) = (q>>1 ^ q>>2 ^ q>>7 : q<<63 ^ q<<62 ^ q<<57).
 */
TARGET_CLMUL static __m128i gf_mul(__m128i a, __m128i b_tw)
{
    const __m128i poly = _mm_set_epi64x(0, (long long)0xc200000000000000u);
    __m128i lo = _mm_clmulepi64_si128(a, b_tw, 0x00);
    __m128i hi = _mm_clmulepi64_si128(a, b_tw, 0x11);
    const __m128i mid = _mm_xor_si128(_mm_clmulepi64_si128(a, b_tw, 0x01),
                                      _mm_clmulepi64_si128(a, b_tw, 0x10));
    lo = _mm_xor_si128(lo, _mm_slli_si128(mid, 8));
    hi = _mm_xor_si128(hi, _mm_srli_si128(mid, 8));
    /* lo = (q1 : q0).  t = (t1 : t0); w = (q1 ^ t0 : q0 ^ t1) = (u : ...). */
    const __m128i t = _mm_clmulepi64_si128(lo, poly, 0x00);
    const __m128i w = _mm_xor_si128(lo, _mm_shuffle_epi32(t, 0x4e));
    const __m128i v = _mm_clmulepi64_si128(w, poly, 0x01);   /* (v1 : v0) from u */
    return _mm_xor_si128(hi, _mm_xor_si128(w, v));
}

/* H * x^-1 (see gf_div_x in gcm_generic.c): a 128-bit left shift by one and, if
 * bit 127 was set, XOR with (0xc2 << 56 : 1); the mask comes from an arithmetic
 * shift of that bit, not a branch. */
TARGET_CLMUL static __m128i gf_div_x(__m128i h)
{
    const __m128i poly = _mm_set_epi64x((long long)0xc200000000000000u, 1);
    const __m128i carries = _mm_srli_epi64(h, 63);               /* bit 63 of each half */
    const __m128i shifted = _mm_or_si128(_mm_slli_epi64(h, 1), _mm_slli_si128(carries, 8));
    const __m128i top = _mm_shuffle_epi32(h, 0xff);              /* the high dword everywhere */
    const __m128i mask = _mm_srai_epi32(top, 31);
    return _mm_xor_si128(shifted, _mm_and_si128(mask, poly));
}

TARGET_CLMUL static __m128i aes_encrypt(const aesgen_aes_key *key, __m128i x)
{
    x = _mm_xor_si128(x, load128(key->rk[0]));
    for (uint32_t r = 1; r < key->rounds; r++)
        x = _mm_aesenc_si128(x, load128(key->rk[r]));
    return _mm_aesenclast_si128(x, load128(key->rk[key->rounds]));
}

TARGET_CLMUL void aesgen_encrypt_block_aesni(const aesgen_aes_key *key, uint8_t out[16],
                                             const uint8_t in[16])
{
    store128(out, aes_encrypt(key, load128(in)));
}

/* H = AES_K(0^128); h_powers[i] = H^(AESGEN_GCM_H_POWERS - i) * x^-1, reflected (asm_abi.h). */
TARGET_CLMUL void aesgen_gcm_setup_clmul(aesgen_gcm_key *key)
{
    const __m128i h1 = gf_div_x(bswap128(aes_encrypt(&key->aes, _mm_setzero_si128())));
    __m128i p = h1;
    for (int i = AESGEN_GCM_H_POWERS - 1; i >= 0; i--) {
        store128(key->h_powers[i], p);
        p = gf_mul(p, h1);
    }
    memset(key->h_pad, 0, sizeof key->h_pad);
}

#else
/* Not x86: the asm ISAs do not exist, nothing here is referenced. */
typedef int aesgen_gcm_clmul_unused;
#endif
