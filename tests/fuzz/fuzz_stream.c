/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * CTR / XCTR differential target.  Input layout (fuzz.h: missing bytes read as 0):
 *   byte    key size (% 3: 16, 24, 32) and ISA (/ 3)
 *   byte    flags: 1 in place, 2 start with another IV and switch with set_iv,
 *           4 CTR: IV's low 64 bits = 2^64 - 1 - n (n: next byte), so the low half
 *           wraps inside the message, 8 CTR: high 64 bits all ones too (2^128 wrap),
 *           16 XCTR: the whole message by aesgen_xctr_crypt_iv on a context keyed
 *           under another IV (no chunks), 32 CTR: the same by aesgen_ctr_crypt_iv
 *   byte    [flag 4] n
 *   byte    src misalignment (low nibble), dst misalignment (high nibble)
 *   32      key (the first 16/24/32 bytes used)
 *   16      IV
 *   byte+   stream chunk count (0..8) and that many 2-byte chunk lengths (fuzz_len);
 *           the last chunk takes the rest, a chunk past the end is cut there
 *   rest    the message
 * Checks: the result equals the reference (OpenSSL aes-N-ctr; XCTR from AES-ECB)
 * for the whole message, whatever the chunks.
 */
#include "fuzz_stream.h"

#include <stdbool.h>
#include <string.h>

#include "aesgen.h"
#include "fuzz.h"

enum { FLAG_IN_PLACE = 1, FLAG_SET_IV = 2, FLAG_LOW_WRAP = 4, FLAG_HIGH_WRAP = 8,
       FLAG_XCTR_ONE_SHOT = 16, FLAG_CTR_ONE_SHOT = 32 };
enum { MAX_CHUNKS = 8, MAX_CHUNK = 8192 };   /* a chunk past the end is clamped */

static int set_iv(struct stream *s, const uint8_t iv[16])
{
    if (s->mode == MODE_CTR)
        return aesgen_ctr_set_iv(&s->ctx.ctr, iv);
    return aesgen_xctr_set_iv(&s->ctx.xctr, iv);
}

void fuzz_stream_one(enum mode mode, const uint8_t *data, size_t size)
{
    struct fuzz_input in = { data, size };
    uint8_t choice = fuzz_byte(&in);
    size_t key_len = key_sizes[choice % 3];
    const char *isa = fuzz_select_isa(choice / 3);
    uint8_t flags = fuzz_byte(&in);
    uint8_t below_wrap = flags & FLAG_LOW_WRAP ? fuzz_byte(&in) : 0;
    uint8_t misalign = fuzz_byte(&in);
    uint8_t key[32], iv[16];
    fuzz_bytes(&in, key, sizeof key);
    fuzz_bytes(&in, iv, sizeof iv);
    if (mode == MODE_CTR && flags & FLAG_LOW_WRAP) {
        memset(iv + 8, 0xff, 8);
        iv[15] = (uint8_t)(0xff - below_wrap);
        if (flags & FLAG_HIGH_WRAP)
            memset(iv, 0xff, 8);
    }
    size_t chunks[MAX_CHUNKS], len;
    size_t chunk_count = fuzz_chunks(&in, chunks, MAX_CHUNKS, MAX_CHUNK);
    const uint8_t *msg = fuzz_rest(&in, &len);

    const bool one_shot = flags & (mode == MODE_XCTR ? FLAG_XCTR_ONE_SHOT : FLAG_CTR_ONE_SHOT);
    fuzz_cover_shape(len, one_shot ? (mode == MODE_XCTR ? 15u : 12u + (flags & 12u) / 4)
                                   : (flags & 7u) | (chunk_count ? 8u : 0u));

    struct fuzz_buffer want = fuzz_alloc(len, 0);
    reference(mode, key, key_len, iv, want.data, msg, len);

    struct fuzz_buffer src = fuzz_alloc(len, misalign & 15);
    struct fuzz_buffer dst = flags & FLAG_IN_PLACE ? src : fuzz_alloc(len, misalign >> 4);
    if (len)
        memcpy(src.data, msg, len);
    struct stream s;
    if (one_shot) {
        uint8_t other[16];
        for (size_t i = 0; i < 16; i++)
            other[i] = (uint8_t)(iv[i] ^ 0x5c);
        fuzz_expect_int(isa, stream_init(&s, mode, key, key_len, other), AESGEN_OK, "init");
        fuzz_expect_int(isa, mode == MODE_XCTR
                                 ? aesgen_xctr_crypt_iv(&s.ctx.xctr, iv, dst.data, src.data, len)
                                 : aesgen_ctr_crypt_iv(&s.ctx.ctr, iv, dst.data, src.data, len),
                        AESGEN_OK, "crypt_iv");
        fuzz_expect_bytes(isa, dst.data, want.data, len, "crypt_iv");
        aesgen_wipe(&s, sizeof s);
        if (!(flags & FLAG_IN_PLACE))
            fuzz_free(&dst);
        fuzz_free(&src);
        fuzz_free(&want);
        return;
    }
    if (flags & FLAG_SET_IV) {
        uint8_t other[16];
        for (size_t i = 0; i < 16; i++)
            other[i] = (uint8_t)~iv[i];
        fuzz_expect_int(isa, stream_init(&s, mode, key, key_len, other), AESGEN_OK, "init");
        uint8_t scratch[37];
        memset(scratch, 0, sizeof scratch);
        fuzz_expect_int(isa, stream_crypt(&s, scratch, scratch, sizeof scratch), AESGEN_OK,
                        "crypt before set_iv");
        fuzz_expect_int(isa, set_iv(&s, iv), AESGEN_OK, "set_iv");
    } else {
        fuzz_expect_int(isa, stream_init(&s, mode, key, key_len, iv), AESGEN_OK, "init");
    }
    fuzz_expect_int(isa, stream_crypt_chunks(&s, dst.data, src.data, len, chunks, chunk_count),
                    AESGEN_OK, "crypt");
    fuzz_expect_bytes(isa, dst.data, want.data, len, mode_name(mode));
    aesgen_wipe(&s, sizeof s);

    if (!(flags & FLAG_IN_PLACE))
        fuzz_free(&dst);
    fuzz_free(&src);
    fuzz_free(&want);
}
