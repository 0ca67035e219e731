/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* Shared helpers of the test groups. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

const size_t key_sizes[3] = { 16, 24, 32 };

const char *mode_name(enum mode mode)
{
    return mode == MODE_CTR ? "ctr" : "xctr";
}

unsigned key_bits(size_t key_len)
{
    return (unsigned)key_len * 8;
}

int stream_init(struct stream *s, enum mode mode, const uint8_t *key, size_t key_len,
                const uint8_t iv[16])
{
    s->mode = mode;
    if (mode == MODE_CTR)
        return aesgen_ctr_init(&s->ctx.ctr, key, key_len, iv);
    return aesgen_xctr_init(&s->ctx.xctr, key, key_len, iv);
}

int stream_crypt(struct stream *s, uint8_t *dst, const uint8_t *src, size_t len)
{
    if (s->mode == MODE_CTR)
        return aesgen_ctr_crypt(&s->ctx.ctr, dst, src, len);
    return aesgen_xctr_crypt(&s->ctx.xctr, dst, src, len);
}

int stream_crypt_chunks(struct stream *s, uint8_t *dst, const uint8_t *src, size_t len,
                        const size_t *chunks, size_t chunk_count)
{
    size_t done = 0;
    for (size_t i = 0; i <= chunk_count; i++) {
        size_t n = i < chunk_count ? chunks[i] : len - done;
        if (n > len - done)
            n = len - done;
        int rc = stream_crypt(s, dst + done, src + done, n);
        if (rc != AESGEN_OK)
            return rc;
        done += n;
    }
    return AESGEN_OK;
}

/* CTR's and XCTR's one-shots are aesgen_ctr_crypt_iv and aesgen_xctr_crypt_iv on a
 * context keyed under another IV (iv with every byte flipped), so an implementation that
 * read the context's IV would fail; the streaming calls are tested through
 * stream_crypt_chunks. */
int api_oneshot(enum mode mode, const uint8_t *key, size_t key_len, const uint8_t iv[16],
                uint8_t *dst, const uint8_t *src, size_t len)
{
    struct stream s;
    uint8_t decoy[16];
    for (size_t i = 0; i < sizeof decoy; i++)
        decoy[i] = (uint8_t)~iv[i];
    int rc = stream_init(&s, mode, key, key_len, decoy);
    if (rc != AESGEN_OK)
        return rc;
    return mode == MODE_XCTR ? aesgen_xctr_crypt_iv(&s.ctx.xctr, iv, dst, src, len)
                             : aesgen_ctr_crypt_iv(&s.ctx.ctr, iv, dst, src, len);
}

void reference(enum mode mode, const uint8_t *key, size_t key_len, const uint8_t iv[16],
               uint8_t *dst, const uint8_t *src, size_t len)
{
    if (mode == MODE_CTR)
        ref_ctr(key, key_len, iv, dst, src, len);
    else
        ref_xctr(key, key_len, iv, 1, dst, src, len);
}

enum { UNTOUCHED_PATTERN = 0x5a };

void fill_pattern(void *p, size_t n)
{
    memset(p, UNTOUCHED_PATTERN, n);
}

bool still_pattern(const void *p, size_t n)
{
    return all_bytes_are(p, n, UNTOUCHED_PATTERN);
}

bool all_bytes_are(const void *p, size_t n, uint8_t value)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != value)
            return false;
    return true;
}

bool all_zero(const void *p, size_t n)
{
    return all_bytes_are(p, n, 0);
}

size_t thread_chunk_len(uint64_t *state)
{
    *state = *state * 6364136223846793005u + 1442695040888963407u;   /* an LCG (Knuth's MMIX) */
    return (size_t)(*state >> 33) % 3000;
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        exit(3);
    }
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        exit(3);
    }
    return q;
}

static uint8_t guard_byte(size_t i)
{
    return (uint8_t)(0xa5 ^ i * 7);
}

struct guarded guarded_alloc(size_t len, size_t misalign)
{
    struct guarded g;
    g.base = xmalloc(len + 2 * GUARD_BYTES + 16);
    g.data = g.base + GUARD_BYTES + misalign % 16;
    g.len = len;
    size_t total = len + 2 * GUARD_BYTES + 16;
    for (size_t i = 0; i < total; i++)
        g.base[i] = guard_byte(i);
    return g;
}

bool guarded_intact(const struct guarded *g)
{
    size_t total = g->len + 2 * GUARD_BYTES + 16;
    size_t data_start = (size_t)(g->data - g->base), data_end = data_start + g->len;
    for (size_t i = 0; i < total; i++)
        if ((i < data_start || i >= data_end) && g->base[i] != guard_byte(i))
            return false;
    return true;
}

void guarded_free(struct guarded *g)
{
    free(g->base);
    g->base = g->data = NULL;
}
