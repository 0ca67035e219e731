/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * AES key expansion (FIPS-197 section 5.2), written once over 32-bit words and
 * parameterized by how SubWord is computed: a bitsliced S-box circuit for the
 * portable path, AESKEYGENASSIST for the assembly ISAs.  Both are constant
 * time: no table lookups or branches depend on the key.
 *
 * The decryption schedule (equivalent inverse cipher, FIPS-197 5.3.5, in the
 * order of asm_abi.h) is the encryption schedule reversed, with InvMixColumns
 * applied to the middle round keys: by AESIMC, or portably by the linear
 * formula below (no tables either).
 *
 * Words are little-endian loads of 4 key bytes, so byte 0 of the FIPS word is
 * the low 8 bits, RotWord is a rotate right by 8, and storing the words
 * little-endian gives the round keys in the byte order AESENC expects.
 */
#include <string.h>
#include "internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

typedef uint32_t sub_word_fn(uint32_t w);

static uint32_t load_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void store_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint32_t rotr8(uint32_t w)
{
    return (w >> 8) | (w << 24);
}

int aesgen_key_len_valid(size_t key_len)
{
    return key_len == 16 || key_len == 24 || key_len == 32;
}

/* rk_rows[i] = rk[i] in each of its four 16-byte lanes (aesgen.h), for every slot: the
 * unused ones repeat the zeros of rk. */
static void fill_rows(aesgen_aes_key *k)
{
    for (size_t i = 0; i < 15; i++)
        for (size_t lane = 0; lane < 4; lane++)
            memcpy(&k->rk_rows[i][16 * lane], k->rk[i], 16);
}

static void expand_key_words(aesgen_aes_key *out, const uint8_t *key, size_t key_len,
                             sub_word_fn *sub_word)
{
    const size_t nk = key_len / 4;
    const uint32_t rounds = (uint32_t)nk + 6;
    const size_t nwords = 4 * ((size_t)rounds + 1);
    uint32_t w[60];
    uint32_t rcon = 1;

    for (size_t i = 0; i < nk; i++)
        w[i] = load_le32(key + 4 * i);
    for (size_t i = nk; i < nwords; i++) {
        uint32_t t = w[i - 1];
        if (i % nk == 0) {
            t = rotr8(sub_word(t)) ^ rcon;   /* SubWord commutes with RotWord */
            rcon = (rcon << 1) ^ (0x11b & -(rcon >> 7));   /* xtime, public value */
        } else if (nk == 8 && i % nk == 4) {
            t = sub_word(t);
        }
        w[i] = w[i - nk] ^ t;
    }

    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < nwords; i++)
        store_le32(&out->rk[i / 4][4 * (i % 4)], w[i]);
    out->rounds = rounds;
    fill_rows(out);
    aesgen_wipe(w, sizeof w);
}

/* Bad key_len: AESGEN_EINVAL and *out untouched. */
static int expand_key_checked(aesgen_aes_key *out, const uint8_t *key, size_t key_len,
                              sub_word_fn *sub_word)
{
    if (out == NULL || key == NULL || !aesgen_key_len_valid(key_len))
        return AESGEN_EINVAL;
    expand_key_words(out, key, key_len, sub_word);
    return AESGEN_OK;
}

int aesgen_expand_key_generic(aesgen_aes_key *out, const uint8_t *key, size_t key_len)
{
    return expand_key_checked(out, key, key_len, aesgen_sub_word_ct);
}

/* Multiplies each of the 4 bytes of w by 2 in GF(2^8); masks, no branches. */
static uint32_t xtime4(uint32_t w)
{
    const uint32_t high = (w >> 7) & 0x01010101u;
    return ((w & 0x7f7f7f7fu) << 1) ^ (high * 0x1bu);
}

static uint32_t rotr16(uint32_t w)
{
    return (w >> 16) | (w << 16);
}

/*
 * InvMixColumns of one column (byte r of w = row r).  As in the bitsliced
 * cipher: the circulant (14,11,13,9) is (2,3,1,1) * (5,0,4,0), i.e.
 * a[r] ^= 4*(a[r] ^ a[r+2]), then MixColumns 2*t[r] ^ a[r+1] ^ t[r+2] with
 * t[r] = a[r] ^ a[r+1].  Row r+k of w is byte r of w rotated right by 8k.
 */
static uint32_t inv_mix_column(uint32_t w)
{
    w ^= xtime4(xtime4(w ^ rotr16(w)));
    const uint32_t a1 = rotr8(w), t = w ^ a1;
    return xtime4(t) ^ a1 ^ rotr16(t);
}

static void inv_mix_round_key(uint8_t out[16], const uint8_t in[16])
{
    uint32_t w[4];
    for (int c = 0; c < 4; c++)
        w[c] = inv_mix_column(load_le32(in + 4 * c));
    for (int c = 0; c < 4; c++)
        store_le32(out + 4 * c, w[c]);
}

typedef void round_key_fn(uint8_t out[16], const uint8_t in[16]);

/* Copies a round key; memmove because the in-place conversion may pass out == in. */
static void copy_round_key(uint8_t out[16], const uint8_t in[16])
{
    memmove(out, in, 16);
}

/*
 * dec.rk[i] = f(enc.rk[rounds - i]) with f the identity for the first and last
 * round keys and InvMixColumns for the others.  Pairs (i, rounds - i) are
 * read before either is written, so dec may be enc.  Unused slots are zeroed.
 */
static void dec_key_with(aesgen_aes_key *dec, const aesgen_aes_key *enc,
                         round_key_fn *inv_mix)
{
    const uint32_t rounds = enc->rounds;
    for (uint32_t i = 0; i <= rounds / 2; i++) {
        const uint32_t j = rounds - i;
        uint8_t a[16], b[16];
        memcpy(a, enc->rk[i], 16);
        memcpy(b, enc->rk[j], 16);
        round_key_fn *f = (i == 0) ? copy_round_key : inv_mix;
        f(dec->rk[i], b);
        f(dec->rk[j], a);
        aesgen_wipe(a, sizeof a);
        aesgen_wipe(b, sizeof b);
    }
    for (uint32_t i = rounds + 1; i < 15; i++)
        memset(dec->rk[i], 0, 16);
    dec->rounds = rounds;
    fill_rows(dec);
}

void aesgen_dec_key_generic(aesgen_aes_key *dec, const aesgen_aes_key *enc)
{
    dec_key_with(dec, enc, inv_mix_round_key);
}

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("aes,sse2")))
static void inv_mix_round_key_aesni(uint8_t out[16], const uint8_t in[16])
{
    const __m128i k = _mm_loadu_si128((const __m128i *)(const void *)in);
    _mm_storeu_si128((__m128i *)(void *)out, _mm_aesimc_si128(k));
}

void aesgen_dec_key_aesni(aesgen_aes_key *dec, const aesgen_aes_key *enc)
{
    dec_key_with(dec, enc, inv_mix_round_key_aesni);
}
#else
void aesgen_dec_key_aesni(aesgen_aes_key *dec, const aesgen_aes_key *enc)
{
    dec_key_with(dec, enc, inv_mix_round_key);
}
#endif

#if defined(__x86_64__) || defined(__i386__)
/* AESKEYGENASSIST with rcon 0: dword 0 of the result is SubWord(dword 1 of x). */
__attribute__((target("aes,sse2")))
static uint32_t sub_word_aesni(uint32_t w)
{
    __m128i x = _mm_set_epi32(0, 0, (int)w, 0);
    return (uint32_t)_mm_cvtsi128_si32(_mm_aeskeygenassist_si128(x, 0));
}

int aesgen_expand_key_aesni(aesgen_aes_key *out, const uint8_t *key, size_t key_len)
{
    return expand_key_checked(out, key, key_len, sub_word_aesni);
}
#else
int aesgen_expand_key_aesni(aesgen_aes_key *out, const uint8_t *key, size_t key_len)
{
    return expand_key_checked(out, key, key_len, aesgen_sub_word_ct);
}
#endif
