/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * libFuzzer target `gcm`: aesgen's GCM against OpenSSL's EVP aes-N-gcm.
 * Input layout (fuzz.h: missing bytes read as 0):
 *   byte    key size (% 3: 16, 24, 32) and ISA (/ 3)
 *   byte    flags: 1 in place, 2 streamed (else one-shot), 4 decrypt one-shot and
 *           encrypt streamed (or the other way round with 2)
 *   byte    IV length (% 128 + 1)
 *   byte    tag length (% 7: 4, 8, 12, 13, 14, 15, 16)
 *   byte    forgery (% 5): 0 none, 1 a tag bit, 2 a ciphertext bit, 3 an AAD bit,
 *           4 an IV bit flipped before decryption (the bit: next 2 bytes)
 *   2       [forgery] which bit
 *   byte    src misalignment (low nibble), dst misalignment (high nibble)
 *   32      key; then the IV (its length)
 *   2       AAD length (fuzz_len, at most 1024: records take up to 512)
 *   byte+   AAD chunk count (0..6) and lengths; text chunk count (0..8) and lengths
 *   rest    the AAD, then the text
 * Checks: encryption's ciphertext and tag equal OpenSSL's; decryption of the
 * untouched ciphertext gives the message back and accepts the tag; a forgery
 * returns AESGEN_EBADMSG (and the one-shot call wipes dst).
 */
#include <stdbool.h>
#include <string.h>

#include "aesgen.h"
#include "fuzz.h"
#include "gcm_harness.h"
#include "harness.h"

enum { FLAG_IN_PLACE = 1, FLAG_ENCRYPT_STREAMED = 2, FLAG_DECRYPT_STREAMED = 4 };
enum { FORGE_NONE, FORGE_TAG, FORGE_TEXT, FORGE_AAD, FORGE_IV, FORGE_KINDS };
enum { MAX_AAD = 1024, MAX_AAD_CHUNKS = 6, MAX_TEXT_CHUNKS = 8, MAX_CHUNK = 8192 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct gcm_case {
    const aesgen_gcm_key *key;
    const uint8_t *iv, *aad;
    size_t iv_len, aad_len, tag_len;
    size_t aad_chunks[MAX_AAD_CHUNKS], aad_chunk_count;
    size_t text_chunks[MAX_TEXT_CHUNKS], text_chunk_count;
};

static int gcm_run(const struct gcm_case *c, enum gcm_dir dir, bool streamed, uint8_t *dst,
                   const uint8_t *src, size_t len, uint8_t *tag)
{
    if (streamed)
        return gcm_api_streamed(dir, c->key, c->iv, c->iv_len, c->aad, c->aad_len,
                                c->aad_chunks, c->aad_chunk_count, dst, src, len,
                                c->text_chunks, c->text_chunk_count, tag, c->tag_len);
    return gcm_api_oneshot(dir, c->key, c->iv, c->iv_len, c->aad, c->aad_len, dst, src, len,
                           tag, c->tag_len);
}

static void flip_bit(uint8_t *p, size_t len, uint16_t bit)
{
    p[bit / 8 % len] ^= (uint8_t)(1u << bit % 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_input in = { data, size };
    uint8_t choice = fuzz_byte(&in);
    size_t key_len = key_sizes[choice % 3];
    const char *isa = fuzz_select_isa(choice / 3);
    uint8_t flags = fuzz_byte(&in);
    size_t iv_len = fuzz_byte(&in) % GCM_OPENSSL_MAX_IV + 1;
    size_t tag_len = gcm_tag_lengths[fuzz_byte(&in) % GCM_TAG_LENGTH_COUNT];
    int forge = fuzz_byte(&in) % FORGE_KINDS;
    uint16_t forged_bit = forge ? fuzz_u16(&in) : 0;
    uint8_t misalign = fuzz_byte(&in);
    uint8_t raw_key[32], iv[GCM_OPENSSL_MAX_IV];
    fuzz_bytes(&in, raw_key, sizeof raw_key);
    fuzz_bytes(&in, iv, iv_len);
    size_t aad_len = fuzz_len(&in, MAX_AAD);
    struct gcm_case c = { .iv = iv, .iv_len = iv_len, .tag_len = tag_len };
    c.aad_chunk_count = fuzz_chunks(&in, c.aad_chunks, MAX_AAD_CHUNKS, MAX_AAD);
    c.text_chunk_count = fuzz_chunks(&in, c.text_chunks, MAX_TEXT_CHUNKS, MAX_CHUNK);
    size_t rest;
    const uint8_t *bytes = fuzz_rest(&in, &rest);
    if (aad_len > rest)
        aad_len = rest;
    size_t len = rest - aad_len;
    const uint8_t *msg = bytes + aad_len;
    /* The AAD in its own buffer (misaligned like src), so ASan bounds it. */
    struct fuzz_buffer aad = fuzz_alloc(aad_len, misalign);
    if (aad_len)
        memcpy(aad.data, bytes, aad_len);
    c.aad = aad_len ? aad.data : NULL;
    c.aad_len = aad_len;

    fuzz_cover_shape(len, (flags & 7u) | (iv_len == 12 ? 8u : 0u));
    fuzz_cover_shape(aad_len, 8u + (unsigned)forge);

    aesgen_gcm_key key;
    fuzz_expect_int(isa, aesgen_gcm_init(&key, raw_key, key_len), AESGEN_OK, "init");
    c.key = &key;

    /* OpenSSL first: its ciphertext and full tag. */
    struct fuzz_buffer want = fuzz_alloc(len, 0);
    uint8_t want_tag[16];
    if (!gcm_ref_evp(GCM_ENCRYPT, raw_key, key_len, iv, iv_len, c.aad, aad_len, want.data, msg,
                     len, want_tag, 16))
        fuzz_fail(isa, "OpenSSL's GCM encryption failed");

    struct fuzz_buffer src = fuzz_alloc(len, misalign & 15);
    struct fuzz_buffer dst = flags & FLAG_IN_PLACE ? src : fuzz_alloc(len, misalign >> 4);
    if (len)
        memcpy(src.data, msg, len);
    uint8_t tag[16];
    memset(tag, 0xa5, sizeof tag);
    fuzz_expect_int(isa, gcm_run(&c, GCM_ENCRYPT, flags & FLAG_ENCRYPT_STREAMED, dst.data,
                                 src.data, len, tag), AESGEN_OK, "encrypt");
    fuzz_expect_bytes(isa, dst.data, want.data, len, "ciphertext");
    fuzz_expect_bytes(isa, tag, want_tag, tag_len, "tag");

    /* Decryption: dst now holds the ciphertext; decrypt it in place or into src. */
    uint8_t *ct = dst.data, *pt = flags & FLAG_IN_PLACE ? dst.data : src.data;
    if (forge == FORGE_TEXT && len == 0)
        forge = FORGE_TAG;
    if (forge == FORGE_AAD && aad_len == 0)
        forge = FORGE_TAG;
    switch (forge) {
    case FORGE_TAG:  flip_bit(tag, tag_len, forged_bit); break;
    case FORGE_TEXT: flip_bit(ct, len, forged_bit); break;
    case FORGE_AAD:  flip_bit(aad.data, aad_len, forged_bit); break;
    case FORGE_IV:   flip_bit(iv, iv_len, forged_bit); break;
    default: break;
    }
    bool streamed = flags & FLAG_DECRYPT_STREAMED;
    int rc = gcm_run(&c, GCM_DECRYPT, streamed, pt, ct, len, tag);
    if (forge == FORGE_NONE) {
        fuzz_expect_int(isa, rc, AESGEN_OK, "decrypt");
        fuzz_expect_bytes(isa, pt, msg, len, "decrypted text");
    } else {
        fuzz_expect_int(isa, rc, AESGEN_EBADMSG, "decrypt of a forgery");
        if (!streamed && !all_zero(pt, len))
            fuzz_fail(isa, "one-shot decrypt of a forgery left dst not wiped (%zu bytes)", len);
    }
    aesgen_wipe(&key, sizeof key);
    if (!(flags & FLAG_IN_PLACE))
        fuzz_free(&dst);
    fuzz_free(&src);
    fuzz_free(&want);
    fuzz_free(&aad);
    return 0;
}
