/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * What the test groups share: one interface over the CTR and XCTR contexts,
 * the matching reference, and buffers with guard bytes.
 */
#ifndef AESGEN_TEST_HARNESS_H
#define AESGEN_TEST_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aesgen.h"

enum mode { MODE_CTR, MODE_XCTR };
enum { MODE_COUNT = 2 };

extern const size_t key_sizes[3];     /* 16, 24, 32 */

const char *mode_name(enum mode mode);

/* A context of either mode, used through the public API. */
struct stream {
    enum mode mode;
    union {
        aesgen_ctr_ctx ctr;
        aesgen_xctr_ctx xctr;
    } ctx;
};

int stream_init(struct stream *s, enum mode mode, const uint8_t *key, size_t key_len,
                const uint8_t iv[16]);
int stream_crypt(struct stream *s, uint8_t *dst, const uint8_t *src, size_t len);

/* Feeds [0, len) to stream_crypt in the given chunk lengths (the last chunk
 * takes whatever remains); returns the first non-OK result. */
int stream_crypt_chunks(struct stream *s, uint8_t *dst, const uint8_t *src, size_t len,
                        const size_t *chunks, size_t chunk_count);

/* The whole message through the API in one call, on a fresh context keyed under
 * another IV: the stateless aesgen_ctr_crypt_iv or aesgen_xctr_crypt_iv (harness.c). */
int api_oneshot(enum mode mode, const uint8_t *key, size_t key_len, const uint8_t iv[16],
                uint8_t *dst, const uint8_t *src, size_t len);

/* What the API must produce for the whole message (XCTR streams start at 1). */
void reference(enum mode mode, const uint8_t *key, size_t key_len, const uint8_t iv[16],
               uint8_t *dst, const uint8_t *src, size_t len);

/* A heap buffer with GUARD_BYTES of a known pattern on both sides, to catch
 * writes just outside [data, data + len). */
enum { GUARD_BYTES = 64 };
struct guarded {
    uint8_t *base;
    uint8_t *data;
    size_t len;
};
struct guarded guarded_alloc(size_t len, size_t misalign);
bool guarded_intact(const struct guarded *g);
void guarded_free(struct guarded *g);

/* Memory set to a pattern before a call that must fail, to see afterwards
 * whether the call wrote to it. */
void fill_pattern(void *p, size_t n);
bool still_pattern(const void *p, size_t n);

/* Every one of the n bytes equals value (0: a wiped buffer). */
bool all_bytes_are(const void *p, size_t n, uint8_t value);
bool all_zero(const void *p, size_t n);

/* A chunk length in [0, 3000) from a worker thread's own generator state:
 * check.c's shared generator is not thread-safe. */
size_t thread_chunk_len(uint64_t *state);

void *xmalloc(size_t n);            /* exit(3) when out of memory */
void *xrealloc(void *p, size_t n);

/* Sizes like "aes-128" for names. */
unsigned key_bits(size_t key_len);

#endif
