/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * CTR mode streaming glue around one implementation function (asm or generic).
 *
 * The implementation encrypts whole calls from a given counter, including a
 * final partial block, but cannot carry from the low into the high 64 bits of
 * the counter and keeps no state.  This file keeps the stream state:
 *  - ctr: the counter of the next block not yet started;
 *  - pos: how many bytes of the block in progress were used (0: none in progress).
 * When a call ends mid-block, the rest of that keystream block is not kept:
 * the next call regenerates it (one 16-byte call on zeros with the previous
 * counter), so the common one-shot path does no extra work.
 *
 * aesgen_ctr_crypt_iv is the stateless one-shot: the counter comes from the
 * caller's iv, the context is only read.
 */
#include <string.h>
#include "bytes.h"
#include "internal.h"

int aesgen_ctr_init(aesgen_ctr_ctx *ctx, const uint8_t *key, size_t key_len,
                    const uint8_t iv[16])
{
    return aesgen_ctr_init_isa(ctx, key, key_len, iv, NULL);
}

int aesgen_ctr_init_isa(aesgen_ctr_ctx *ctx, const uint8_t *key, size_t key_len,
                        const uint8_t iv[16], const char *isa)
{
    if (ctx == NULL || key == NULL || iv == NULL || !aesgen_key_len_valid(key_len))
        return AESGEN_EINVAL;
    const aesgen_isa_impl *impl;
    aesgen_mode_fns fns;
    const int err = aesgen_isa_resolve(isa, &impl, &fns);
    if (err != AESGEN_OK)
        return err;
    /* The counter is read before the key is written, in case iv lies in ctx. */
    const uint64_t hi = load_be64(iv), lo = load_be64(iv + 8);
    impl->expand(&ctx->key, key, key_len);
    ctx->crypt = fns.ctr;
    ctx->crypt_iv = fns.ctr_iv;
    ctx->ctr[0] = lo;
    ctx->ctr[1] = hi;
    memset(ctx->ks, 0, sizeof ctx->ks);
    ctx->pos = 0;
    ctx->ks_valid = 0;
    return AESGEN_OK;
}

int aesgen_ctr_set_iv(aesgen_ctr_ctx *ctx, const uint8_t iv[16])
{
    if (ctx == NULL || iv == NULL || ctx->crypt == NULL)
        return AESGEN_EINVAL;
    ctx->ctr[1] = load_be64(iv);
    ctx->ctr[0] = load_be64(iv + 8);
    ctx->pos = 0;
    if (ctx->ks_valid) {
        ctx->ks_valid = 0;
        aesgen_drop_keystream(ctx->ks);
    }
    return AESGEN_OK;
}

int aesgen_ctr_get_iv(const aesgen_ctr_ctx *ctx, uint8_t iv[16])
{
    if (ctx == NULL || iv == NULL || ctx->crypt == NULL)
        return AESGEN_EINVAL;
    store_be64(iv, ctx->ctr[1]);
    store_be64(iv + 8, ctx->ctr[0]);
    return AESGEN_OK;
}

/* Uses the rest of the block in progress (pos != 0); returns the bytes consumed. */
static size_t ctr_finish_block(aesgen_ctr_ctx *ctx, uint8_t *dst, const uint8_t *src,
                               size_t len)
{
    if (!ctx->ks_valid) {
        memset(ctx->ks, 0, sizeof ctx->ks);
        ctx->crypt(&ctx->key, ctx->ks, ctx->ks, sizeof ctx->ks, ctx->ctr[0] - 1,
                   ctx->ctr[1] - (ctx->ctr[0] == 0));
        ctx->ks_valid = 1;
    }
    const size_t n = aesgen_use_keystream(ctx->ks, &ctx->pos, dst, src, len);
    if (ctx->pos == 0)            /* used up (and wiped) */
        ctx->ks_valid = 0;
    return n;
}

/* len bytes from the counter block hi:lo, on a block boundary: one implementation call,
 * or two where the low counter half wraps within them (the second from hi + 1; a call of
 * at most SIZE_MAX bytes crosses the wrap once at most).  Reads nothing of ctx but the
 * key and the function, so the stateless aesgen_ctr_crypt_iv shares it. */
static void ctr_run(const aesgen_ctr_ctx *ctx, uint8_t *dst, const uint8_t *src, size_t len,
                    uint64_t lo, uint64_t hi)
{
    const uint64_t blocks = len / 16 + (len % 16 != 0);
    const uint64_t room = 0 - lo;   /* blocks before the wrap; 0 means 2^64 */
    if (room != 0 && blocks > room) {
        const size_t first = (size_t)room * 16;
        ctx->crypt(&ctx->key, dst, src, first, lo, hi);
        dst += first;
        src += first;
        len -= first;
        lo = 0;
        hi += 1;
    }
    ctx->crypt(&ctx->key, dst, src, len, lo, hi);
}

/* Starts at a block boundary; the stream state moves on past the call's blocks. */
static void ctr_from_boundary(aesgen_ctr_ctx *ctx, uint8_t *dst, const uint8_t *src,
                              size_t len)
{
    ctr_run(ctx, dst, src, len, ctx->ctr[0], ctx->ctr[1]);
    const uint64_t blocks = len / 16 + (len % 16 != 0);
    const uint64_t lo = ctx->ctr[0] + blocks;
    ctx->ctr[1] += lo < ctx->ctr[0];
    ctx->ctr[0] = lo;
    ctx->pos = (uint32_t)(len % 16);
    ctx->ks_valid = 0;
}

/* Every other case of aesgen_ctr_crypt: a block in progress, or a wrap of the low
 * counter half within the call. */
static AESGEN_NOINLINE int ctr_crypt_general(aesgen_ctr_ctx *ctx, uint8_t *dst,
                                             const uint8_t *src, size_t len)
{
    if (ctx->pos != 0) {
        const size_t n = ctr_finish_block(ctx, dst, src, len);
        dst += n;
        src += n;
        len -= n;
    }
    if (len != 0)
        ctr_from_boundary(ctx, dst, src, len);
    return AESGEN_OK;
}

int aesgen_ctr_crypt(aesgen_ctr_ctx *ctx, uint8_t *dst, const uint8_t *src, size_t len)
{
    if (ctx == NULL || ctx->crypt == NULL || (len != 0 && (dst == NULL || src == NULL)))
        return AESGEN_EINVAL;
    if (len == 0)
        return AESGEN_OK;
    /* The common case, kept to a few instructions and a tail call: on a block
     * boundary and no wrap of the low counter half before the last block. */
    /* LAST = the low counter half of the call's last block; computed from len - 1
     * with one overflow check (fewer instructions and no saved register: at 64 bytes
     * each instruction here is about 1% of the call). */
    const uint64_t lo = ctx->ctr[0];
    uint64_t last;
    if (__builtin_expect(ctx->pos == 0 && !__builtin_add_overflow(lo, (len - 1) / 16, &last),
                         1)) {
        const uint64_t hi = ctx->ctr[1];
        ctx->ctr[0] = last + 1;                   /* 0 when the last block was 2^64 - 1 */
        ctx->ctr[1] = hi + (last == UINT64_MAX);
        ctx->pos = (uint32_t)len % 16;
        return ctx->crypt(&ctx->key, dst, src, len, lo, hi);
    }
    return ctr_crypt_general(ctx, dst, src, len);
}

/* aesgen_ctr_crypt_iv whose blocks cross the wrap of the low counter half (out of line,
 * so that the common path keeps its tail call). */
static AESGEN_COLD int ctr_crypt_iv_wrapping(const aesgen_ctr_ctx *ctx, uint8_t *dst,
                                             const uint8_t *src, size_t len, uint64_t lo,
                                             uint64_t hi)
{
    ctr_run(ctx, dst, src, len, lo, hi);
    return AESGEN_OK;
}

int aesgen_ctr_crypt_iv(const aesgen_ctr_ctx *ctx, const uint8_t iv[16], uint8_t *dst,
                        const uint8_t *src, size_t len)
{
    if (ctx == NULL || ctx->crypt == NULL || iv == NULL ||
        (len != 0 && (dst == NULL || src == NULL)))
        return AESGEN_EINVAL;
    if (len == 0)
        return AESGEN_OK;
    /* LAST = the low counter half of the last block, as in aesgen_ctr_crypt.  The
     * function from the block (crypt_iv) reads iv itself, in a vector register: the byte
     * swap here only decides the branch, so the call does not wait for it (asm_abi.h).
     * Either way the counter is read before anything is written, so iv may lie in dst
     * or src. */
    const uint64_t lo = load_be64(iv + 8);
    uint64_t last;
    if (__builtin_expect(!__builtin_add_overflow(lo, (len - 1) / 16, &last), 1)) {
        if (__builtin_expect(ctx->crypt_iv != NULL, 1))
            return ctx->crypt_iv(&ctx->key, dst, src, len, iv);
        return ctx->crypt(&ctx->key, dst, src, len, lo, load_be64(iv));
    }
    return ctr_crypt_iv_wrapping(ctx, dst, src, len, lo, load_be64(iv));
}
