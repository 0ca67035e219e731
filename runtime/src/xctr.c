/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * XCTR mode streaming glue; same scheme as ctr.c (see there).  Block i uses
 * AES(iv ^ LE128(i)) with i = 1, 2, ...; index is the next i not yet started.
 * i stays below 2^64 (the implementations only add to the low half), so a
 * context ends after block 2^64 - 1: index then reads 0 and further blocks
 * are refused with AESGEN_EINVAL.
 */
#include <string.h>
#include "internal.h"

int aesgen_xctr_init(aesgen_xctr_ctx *ctx, const uint8_t *key, size_t key_len,
                     const uint8_t iv[16])
{
    return aesgen_xctr_init_isa(ctx, key, key_len, iv, NULL);
}

int aesgen_xctr_init_isa(aesgen_xctr_ctx *ctx, const uint8_t *key, size_t key_len,
                         const uint8_t iv[16], const char *isa)
{
    if (ctx == NULL || key == NULL || iv == NULL || !aesgen_key_len_valid(key_len))
        return AESGEN_EINVAL;
    const aesgen_isa_impl *impl;
    aesgen_mode_fns fns;
    const int err = aesgen_isa_resolve(isa, &impl, &fns);
    if (err != AESGEN_OK)
        return err;
    uint8_t iv_copy[16];
    memcpy(iv_copy, iv, sizeof iv_copy);   /* iv may lie in ctx */
    impl->expand(&ctx->key, key, key_len);
    memcpy(ctx->iv, iv_copy, sizeof ctx->iv);
    ctx->index = 1;
    memset(ctx->ks, 0, sizeof ctx->ks);
    ctx->pos = 0;
    ctx->ks_valid = 0;
    ctx->crypt = fns.xctr;
    ctx->plan = (uint16_t)fns.xctr_plan;
    return AESGEN_OK;
}

int aesgen_xctr_set_iv(aesgen_xctr_ctx *ctx, const uint8_t iv[16])
{
    if (ctx == NULL || iv == NULL || ctx->crypt == NULL)
        return AESGEN_EINVAL;
    memmove(ctx->iv, iv, sizeof ctx->iv);
    ctx->index = 1;
    ctx->pos = 0;
    if (ctx->ks_valid) {
        ctx->ks_valid = 0;
        aesgen_drop_keystream(ctx->ks);
    }
    return AESGEN_OK;
}

int aesgen_xctr_get_index(const aesgen_xctr_ctx *ctx, uint64_t *index)
{
    if (ctx == NULL || index == NULL || ctx->crypt == NULL)
        return AESGEN_EINVAL;
    *index = ctx->index;
    return AESGEN_OK;
}

/* A call of len bytes on ctx goes through its plan (aesgen_xctr_call_planned: the plan's
 * choice, or ctx->crypt without one) from the shortest length a class of any xctr plan
 * covers; never where no xctr plan was generated. */
#define XCTR_PLANNED(len)                                                                  \
    (AESGEN_GEN_LENGTH_CLASSES_FROM_xctr != SIZE_MAX && (len) >= AESGEN_GEN_LENGTH_CLASSES_FROM_xctr)
/* len 0 or planned: both leave the short calls' path at one compare (each instruction on
 * it shows: a compare of its own for the plan read 0.97x for AES-256 at 32-64 B on the
 * Intel Xeon guest, where this one reads 1.00). */
#define XCTR_RARE(len)                                                                     \
    (AESGEN_GEN_LENGTH_CLASSES_FROM_xctr == SIZE_MAX                                       \
         ? (len) == 0                                                                      \
         : (size_t)((len) - 1) >= AESGEN_GEN_LENGTH_CLASSES_FROM_xctr - 1)

aesgen_xctr_fn *aesgen_xctr_target(const aesgen_xctr_ctx *ctx, size_t len)
{
    aesgen_xctr_fn *f = XCTR_PLANNED(len) ? aesgen_length_plan_xctr(ctx->plan, len) : NULL;
    return f != NULL ? f : ctx->crypt;
}

/* 1 if blocks (>= 1) more blocks starting at index next stay below 2^64. */
static int xctr_blocks_left(uint64_t next, uint64_t blocks)
{
    return next != 0 && blocks - 1 <= UINT64_MAX - next;
}

static size_t xctr_finish_block(aesgen_xctr_ctx *ctx, uint8_t *dst, const uint8_t *src,
                                size_t len)
{
    if (!ctx->ks_valid) {
        memset(ctx->ks, 0, sizeof ctx->ks);
        ctx->crypt(&ctx->key, ctx->ks, ctx->ks, sizeof ctx->ks, ctx->iv, ctx->index - 1);
        ctx->ks_valid = 1;
    }
    const size_t n = aesgen_use_keystream(ctx->ks, &ctx->pos, dst, src, len);
    if (ctx->pos == 0)            /* used up (and wiped) */
        ctx->ks_valid = 0;
    return n;
}

/* aesgen_xctr_crypt with a block in progress (pos != 0). */
static AESGEN_NOINLINE int xctr_crypt_general(aesgen_xctr_ctx *ctx, uint8_t *dst,
                                              const uint8_t *src, size_t len)
{
    const size_t head = len < 16 - ctx->pos ? len : 16 - ctx->pos;
    const size_t rest = len - head;
    const uint64_t blocks = rest / 16 + (rest % 16 != 0);
    if (blocks != 0 && !xctr_blocks_left(ctx->index, blocks))
        return AESGEN_EINVAL;   /* checked first: nothing is written */
    if (head != 0) {
        xctr_finish_block(ctx, dst, src, head);
        dst += head;
        src += head;
    }
    if (rest != 0) {
        (XCTR_PLANNED(rest) ? aesgen_xctr_call_planned : ctx->crypt)(&ctx->key, dst, src, rest,
                                                                    ctx->iv, ctx->index);
        ctx->index += blocks;
        ctx->pos = (uint32_t)(rest % 16);
        ctx->ks_valid = 0;
    }
    return AESGEN_OK;
}

/* A call on a block boundary (pos 0) through fn. */
static AESGEN_ALWAYS_INLINE int xctr_from_boundary(aesgen_xctr_ctx *ctx, uint8_t *dst,
                                                  const uint8_t *src, size_t len,
                                                  aesgen_xctr_fn *fn)
{
    const uint64_t index = ctx->index;
    uint64_t last;                               /* the index of the call's last block */
    if (index == 0 || __builtin_add_overflow(index, (len - 1) / 16, &last))
        return AESGEN_EINVAL;
    ctx->index = last + 1;                       /* 0 (exhausted) after block 2^64 - 1 */
    ctx->pos = (uint32_t)len % 16;
    return fn(&ctx->key, dst, src, len, ctx->iv, index);
}

/* aesgen_xctr_crypt of 0 bytes or of a length a class of a plan covers (XCTR_RARE). */
static AESGEN_COLD int xctr_crypt_rare(aesgen_xctr_ctx *ctx, uint8_t *dst, const uint8_t *src,
                                       size_t len)
{
    if (len == 0)
        return AESGEN_OK;
    if (ctx->pos != 0)
        return xctr_crypt_general(ctx, dst, src, len);
    return xctr_from_boundary(ctx, dst, src, len,
                              XCTR_PLANNED(len) ? aesgen_xctr_call_planned : ctx->crypt);
}

int aesgen_xctr_crypt(aesgen_xctr_ctx *ctx, uint8_t *dst, const uint8_t *src, size_t len)
{
    if (ctx == NULL || ctx->crypt == NULL || (len != 0 && (dst == NULL || src == NULL)))
        return AESGEN_EINVAL;
    if (XCTR_RARE(len))
        return xctr_crypt_rare(ctx, dst, src, len);
    if (__builtin_expect(ctx->pos == 0, 1))      /* the common case: a tail call */
        return xctr_from_boundary(ctx, dst, src, len, ctx->crypt);
    return xctr_crypt_general(ctx, dst, src, len);
}

/* aesgen_xctr_crypt_iv with iv inside the output: from a copy (out of line, so that the
 * common path keeps its tail call and saves no register). */
static AESGEN_COLD int xctr_crypt_iv_copied(const aesgen_xctr_ctx *ctx, const uint8_t iv[16],
                                            uint8_t *dst, const uint8_t *src, size_t len)
{
    uint8_t iv_copy[16];
    memcpy(iv_copy, iv, sizeof iv_copy);
    return (XCTR_PLANNED(len) ? aesgen_xctr_call_planned : ctx->crypt)(&ctx->key, dst, src, len,
                                                                     iv_copy, 1);
}

/* aesgen_xctr_crypt_iv of 0 bytes or of a length a class of a plan covers (XCTR_RARE). */
static AESGEN_COLD int xctr_crypt_iv_rare(const aesgen_xctr_ctx *ctx, const uint8_t iv[16],
                                          uint8_t *dst, const uint8_t *src, size_t len)
{
    if (len == 0)
        return AESGEN_OK;
    if (dst == NULL || src == NULL)
        return AESGEN_EINVAL;
    const uintptr_t at = (uintptr_t)iv, out = (uintptr_t)dst;
    if (at < out + len && out < at + 16)
        return xctr_crypt_iv_copied(ctx, iv, dst, src, len);
    return (XCTR_PLANNED(len) ? aesgen_xctr_call_planned : ctx->crypt)(&ctx->key, dst, src, len,
                                                                      iv, 1);
}

int aesgen_xctr_crypt_iv(const aesgen_xctr_ctx *ctx, const uint8_t iv[16], uint8_t *dst,
                         const uint8_t *src, size_t len)
{
    if (ctx == NULL || ctx->crypt == NULL || iv == NULL)
        return AESGEN_EINVAL;
    if (XCTR_RARE(len))
        return xctr_crypt_iv_rare(ctx, iv, dst, src, len);
    if (dst == NULL || src == NULL)
        return AESGEN_EINVAL;
    /* Block 1 + (len - 1) / 16 < 2^60 is always within the index's range.  The
     * implementations may read iv again after writing (vperm_ssse3 reads it per block),
     * so an iv inside the output is copied first; otherwise it is passed as it is. */
    const uintptr_t at = (uintptr_t)iv, out = (uintptr_t)dst;
    if (__builtin_expect(at < out + len && out < at + 16, 0))
        return xctr_crypt_iv_copied(ctx, iv, dst, src, len);
    return ctx->crypt(&ctx->key, dst, src, len, iv, 1);
}
