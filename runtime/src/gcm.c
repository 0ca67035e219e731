/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * GCM API glue (SP 800-38D): key setup, J0, the streaming state machine,
 * partial blocks, limits, tags.  The bulk work is done by the key's
 * implementation functions (asm_abi.h contracts: whole blocks only); this
 * file handles everything that is not a whole block:
 *  - AAD is hashed in whole blocks as it comes; a partial block waits in buf.
 *  - Text: whole blocks go to enc_update/dec_update; a partial block at the
 *    end of a call is en/decrypted here with one keystream block (kept in ks
 *    for the next call) and its ciphertext bytes wait in buf, to be hashed
 *    once the block is complete or at final (zero-padded).
 *  - ctr is the counter block of the next keystream block; it advances with
 *    inc32 (the low 32 bits, mod 2^32) as SP 800-38D says.
 */
#include <string.h>
#include "internal.h"

/* Phases of a message; 0 (a wiped or never started context) is "no message". */
enum {
    GCM_IDLE = 0,
    GCM_AAD  = 0x41414400,   /* started; AAD may come */
    GCM_ENC  = 0x454e4300,   /* encrypt_update seen */
    GCM_DEC  = 0x44454300,   /* decrypt_update seen */
};

/* SP 800-38D limits, in bytes: len(P) <= 2^39 - 256 bits, len(A) and len(IV)
 * <= 2^64 - 1 bits. */
#define GCM_MAX_TEXT ((UINT64_C(1) << 36) - 32)
#define GCM_MAX_AAD  ((UINT64_C(1) << 61) - 1)
#define GCM_MAX_IV   ((UINT64_C(1) << 61) - 1)

/*
 * Blocks the assembly loads with one 16-byte load are written with one 16-byte store:
 * a load that spans several smaller stores cannot take its data from the store buffer
 * and waits for them to reach the cache, a stall on every message's critical path.
 * (A GNU C vector: SSE2 moves on any x86-64.)
 */
typedef uint64_t block128 __attribute__((vector_size(16)));

static void store_block(uint8_t out[16], uint64_t low8, uint64_t high8)
{
    const block128 v = { low8, high8 };
    memcpy(out, &v, 16);
}

static uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* n bytes at p (0 < n < 16) as the low bytes of a zero-padded little-endian 128-bit
 * value, read with a few loads that stay inside [p, p + n). */
static void load_partial(const uint8_t *p, size_t n, uint64_t *low, uint64_t *high)
{
    *low = *high = 0;
    if (n >= 8) {
        *low = load64(p);
        *high = n > 8 ? load64(p + n - 8) >> (8 * (16 - n)) : 0;
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, p, 4);
        memcpy(&b, p + n - 4, 4);
        *low = a | (uint64_t)b << (8 * (n - 4));
    } else {
        for (size_t i = 0; i < n; i++)
            *low |= (uint64_t)p[i] << (8 * i);
    }
}

/* The low n bytes (0 < n < 16) of (low, high) to p, with stores that stay inside
 * [p, p + n) (two overlapping ones write the same bytes twice). */
static void store_partial(uint8_t *p, uint64_t low, uint64_t high, size_t n)
{
    if (n >= 8) {
        memcpy(p, &low, 8);
        if (n > 8) {
            const uint64_t last = high << (8 * (16 - n)) | low >> (8 * (n - 8));
            memcpy(p + n - 8, &last, 8);
        }
    } else if (n >= 4) {
        const uint32_t a = (uint32_t)low, b = (uint32_t)(low >> (8 * (n - 4)));
        memcpy(p, &a, 4);
        memcpy(p + n - 4, &b, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)(low >> (8 * i));
    }
}

/* n bytes at p (0 < n < 16) as the low bytes of a zero-padded block, stored with one
 * 16-byte store. */
static void store_partial_block(uint8_t out[16], const uint8_t *p, size_t n)
{
    uint64_t low, high;
    load_partial(p, n, &low, &high);
    store_block(out, low, high);
}

/* Empties the pending block, keeping the invariant that buf is zero past buf_len. */
static void buf_reset(aesgen_gcm_ctx *ctx)
{
    store_block(ctx->buf, 0, 0);
    ctx->buf_len = 0;
}

/* The 16-byte block [be64(a) || be64(b)], e.g. GCM's lengths block. */
static void store_be128(uint8_t out[16], uint64_t a, uint64_t b)
{
    store_block(out, __builtin_bswap64(a), __builtin_bswap64(b));
}

/* inc32 applied n times: the last 4 bytes as a big-endian counter mod 2^32. */
static void inc32(uint8_t ctr[16], uint64_t n)
{
    const uint64_t high = load64(ctr + 8);
    const uint32_t c = __builtin_bswap32((uint32_t)(high >> 32)) + (uint32_t)n;
    store_block(ctr, load64(ctr), (high & 0xffffffffu) | (uint64_t)__builtin_bswap32(c) << 32);
}

static int tag_len_valid(size_t tag_len)
{
    return tag_len == 4 || tag_len == 8 || (tag_len >= 12 && tag_len <= 16);
}

/* The argument rules each call's checks share (the streaming calls add their state,
 * the one-shot calls check them all at once). */
static int iv_valid(const uint8_t *iv, size_t iv_len)
{
    return iv != NULL && iv_len != 0 && (uint64_t)iv_len <= GCM_MAX_IV;
}

/* len more bytes of AAD after `before`; aad may be NULL only when len is 0. */
static int aad_valid(const uint8_t *aad, size_t len, uint64_t before)
{
    return (len == 0 || aad != NULL) && (uint64_t)len <= GCM_MAX_AAD - before;
}

/* len more bytes of text after `before`; dst and src may be NULL only when len is 0. */
static int text_valid(const uint8_t *dst, const uint8_t *src, size_t len, uint64_t before)
{
    return (len == 0 || (dst != NULL && src != NULL)) && (uint64_t)len <= GCM_MAX_TEXT - before;
}

/* ---- Key ------------------------------------------------------------------ */

/* h_halves[i] = (low 8 bytes ^ high 8 bytes of h_powers[i]), twice: the powers' half
 * sums that Karatsuba multiplies by the data's (aesgen.h; the assembly's UNROLL=8
 * Karatsuba loops read them, the others make them in registers). */
static void half_sums(aesgen_gcm_key *key)
{
    for (int i = 0; i < AESGEN_GCM_H_POWERS; i++) {
        uint64_t lo, hi;
        memcpy(&lo, key->h_powers[i], 8);
        memcpy(&hi, key->h_powers[i] + 8, 8);
        const uint64_t sum = lo ^ hi;
        memcpy(key->h_halves[i], &sum, 8);
        memcpy(key->h_halves[i] + 8, &sum, 8);
    }
}

int aesgen_gcm_init(aesgen_gcm_key *key, const uint8_t *k, size_t key_len)
{
    return aesgen_gcm_init_isa(key, k, key_len, NULL);
}

int aesgen_gcm_init_isa(aesgen_gcm_key *key, const uint8_t *k, size_t key_len, const char *isa)
{
    if (key == NULL || k == NULL || !aesgen_key_len_valid(key_len))
        return AESGEN_EINVAL;
    const aesgen_isa_impl *impl;
    aesgen_mode_fns fns;
    const int err = aesgen_isa_resolve(isa, &impl, &fns);
    if (err != AESGEN_OK)
        return err;
    uint8_t copy[32];
    memcpy(copy, k, key_len);   /* k may lie in *key, which is cleared below */
    memset(key, 0, sizeof *key);
    impl->expand(&key->aes, copy, key_len);
    aesgen_wipe(copy, sizeof copy);
    /* The ISA's functions or its variant for this CPU's uarch (isa.c); short calls: see
     * aesgen_mode_fns.gcm_short. */
    key->ghash = fns.gcm.ghash;
    key->enc_update = fns.gcm.enc_update;
    key->dec_update = fns.gcm.dec_update;
    key->enc_record = fns.gcm.enc_record;
    key->dec_record = fns.gcm.dec_record;
    key->encrypt_block = impl->encrypt_block;
    key->ghash_short = fns.gcm_short.ghash;
    key->enc_update_short = fns.gcm_short.enc_update;
    key->dec_update_short = fns.gcm_short.dec_update;
    key->record_pads = impl->gcm_record_pads;
    impl->gcm_setup(key);
    half_sums(key);
    return AESGEN_OK;
}

static int key_ready(const aesgen_gcm_key *key)
{
    return key != NULL && key->ghash != NULL && key->enc_update != NULL &&
           key->dec_update != NULL && key->encrypt_block != NULL &&
           key->ghash_short != NULL && key->enc_update_short != NULL &&
           key->dec_update_short != NULL;
}

/* ---- Dispatch by length ---------------------------------------------------- */

/* Up to this many bytes a call goes to the short-call functions (see aesgen.h). */
#define GCM_SHORT_CALL 64

static void ghash(const aesgen_gcm_key *key, uint8_t acc[16], const uint8_t *p, size_t len)
{
    (len <= GCM_SHORT_CALL ? key->ghash_short : key->ghash)(key, acc, p, len);
}

static void crypt_blocks(const aesgen_gcm_key *key, uint32_t phase, uint8_t *dst,
                         const uint8_t *src, size_t len, const uint8_t ctr[16], uint8_t acc[16],
                         uint32_t ctr_secret)
{
    const int is_short = len <= GCM_SHORT_CALL;
    if (ctr_secret)
        len |= AESGEN_GCM_SECRET_COUNTER;
    if (phase == GCM_DEC)
        (is_short ? key->dec_update_short : key->dec_update)(key, dst, src, len, ctr, acc);
    else
        (is_short ? key->enc_update_short : key->enc_update)(key, dst, src, len, ctr, acc);
}

/* ---- Start: J0, E_K(J0), the first counter -------------------------------- */

/* GHASH of len bytes with the last partial block zero-padded; len may be 0. */
static void ghash_padded(const aesgen_gcm_key *key, uint8_t acc[16], const uint8_t *p,
                         size_t len)
{
    const size_t whole = len & ~(size_t)15;
    if (whole != 0)
        ghash(key, acc, p, whole);
    if (len > whole) {
        uint8_t block[16] = { 0 };
        memcpy(block, p + whole, len - whole);
        ghash(key, acc, block, sizeof block);
    }
}

/* The reflected accumulator back in GCM byte order (two 8-byte swaps, not a byte loop:
 * this sits on every message's critical path). */
static void acc_to_block(uint8_t out[16], const uint8_t acc[16])
{
    uint64_t lo, hi;
    memcpy(&lo, acc, 8);
    memcpy(&hi, acc + 8, 8);
    hi = __builtin_bswap64(hi);
    lo = __builtin_bswap64(lo);
    memcpy(out, &hi, 8);
    memcpy(out + 8, &lo, 8);
}

/* J0 = IV || 0^31 || 1 for 96-bit IVs, else GHASH(IV || 0-pad || 0^64 || [len(IV)]_64). */
static void compute_j0(const aesgen_gcm_key *key, const uint8_t *iv, size_t iv_len,
                       uint8_t j0[16])
{
    if (iv_len == 12) {
        uint32_t iv_tail;
        memcpy(&iv_tail, iv + 8, 4);
        store_block(j0, load64(iv), iv_tail | (uint64_t)1 << 56);   /* iv || 00 00 00 01 */
        return;
    }
    uint8_t acc[16] = { 0 }, lengths[16] = { 0 };
    ghash_padded(key, acc, iv, iv_len);
    store_be128(lengths, 0, (uint64_t)iv_len * 8);
    ghash(key, acc, lengths, sizeof lengths);
    acc_to_block(j0, acc);
}

int aesgen_gcm_start(aesgen_gcm_ctx *ctx, const aesgen_gcm_key *key, const uint8_t *iv,
                     size_t iv_len)
{
    if (ctx == NULL || !key_ready(key) || !iv_valid(iv, iv_len))
        return AESGEN_EINVAL;
    uint8_t j0[16];
    compute_j0(key, iv, iv_len, j0);   /* before ctx is written: iv may lie in it */
    /* Only what is read before it is written: buf and ks are filled before use. */
    store_block(ctx->acc, 0, 0);
    ctx->aad_len = ctx->data_len = 0;
    buf_reset(ctx);
    ctx->key = key;
    key->encrypt_block(&key->aes, ctx->tag_mask, j0);
    memcpy(ctx->ctr, j0, sizeof j0);
    inc32(ctx->ctr, 1);
    ctx->ctr_secret = iv_len != 12;
    ctx->state = GCM_AAD;
    return AESGEN_OK;
}

/* ---- AAD ------------------------------------------------------------------ */

/* Appends up to 16 - buf_len bytes to buf; returns how many. */
/* buf always holds zeros past buf_len, so a pending block is already padded. */
static size_t buf_fill(aesgen_gcm_ctx *ctx, const uint8_t *p, size_t len)
{
    size_t n = 16 - ctx->buf_len;
    if (n > len)
        n = len;
    if (ctx->buf_len == 0 && n != 0 && n < 16)
        store_partial_block(ctx->buf, p, n);   /* the usual case: one store */
    else if (n != 0)
        memcpy(ctx->buf + ctx->buf_len, p, n);
    ctx->buf_len += (uint32_t)n;
    return n;
}


/* Hashes the pending partial block zero-padded, if any, and forgets its keystream. */
static void buf_flush(aesgen_gcm_ctx *ctx)
{
    if (ctx->buf_len != 0) {
        ghash(ctx->key, ctx->acc, ctx->buf, 16);
        buf_reset(ctx);
    }
    aesgen_wipe16(ctx->ks);
}

int aesgen_gcm_aad(aesgen_gcm_ctx *ctx, const uint8_t *aad, size_t len)
{
    if (ctx == NULL || ctx->state != GCM_AAD || !aad_valid(aad, len, ctx->aad_len))
        return AESGEN_EINVAL;
    if (len == 0)
        return AESGEN_OK;   /* aad may be NULL: no pointer arithmetic on it */
    ctx->aad_len += len;
    if (ctx->buf_len != 0) {
        const size_t n = buf_fill(ctx, aad, len);
        aad += n;
        len -= n;
        if (ctx->buf_len < 16)
            return AESGEN_OK;
        ghash(ctx->key, ctx->acc, ctx->buf, 16);
        buf_reset(ctx);
    }
    const size_t whole = len & ~(size_t)15;
    if (whole != 0)
        ghash(ctx->key, ctx->acc, aad, whole);
    buf_fill(ctx, aad + whole, len - whole);
    return AESGEN_OK;
}

/* ---- Text ----------------------------------------------------------------- */

static int update_check(const aesgen_gcm_ctx *ctx, uint32_t phase, const uint8_t *dst,
                        const uint8_t *src, size_t len)
{
    if (ctx == NULL || (ctx->state != GCM_AAD && ctx->state != phase))
        return AESGEN_EINVAL;
    return text_valid(dst, src, len, ctx->data_len) ? AESGEN_OK : AESGEN_EINVAL;
}

/* n bytes (0 < n < 16, buf_len + n <= 16) with the keystream of the block in progress (ks
 * from offset buf_len); the ciphertext bytes join buf.  In registers, not byte by
 * byte: the block is hashed as one 16-byte load once complete (buf_flush, often in
 * the same call), which byte stores would make wait for them to reach the cache; so
 * buf is written with one 16-byte store.  In place works: src is read before dst is
 * written. */
static void crypt_bytes(aesgen_gcm_ctx *ctx, uint32_t phase, uint8_t *dst, const uint8_t *src,
                        size_t n)
{
    const size_t at = ctx->buf_len;
    uint64_t in_low, in_high;
    load_partial(src, n, &in_low, &in_high);
    /* the keystream from byte `at` on, shifted down to the input's byte 0 */
    uint64_t ks_low = load64(ctx->ks), ks_high = load64(ctx->ks + 8);
    if (at >= 8) {
        ks_low = ks_high >> (8 * (at - 8));
        ks_high = 0;
    } else if (at != 0) {
        ks_low = ks_low >> (8 * at) | ks_high << (8 * (8 - at));
        ks_high >>= 8 * at;
    }
    const uint64_t out_low = in_low ^ ks_low, out_high = in_high ^ ks_high;
    store_partial(dst, out_low, out_high, n);
    /* the ciphertext's n bytes (zero above them: buf stays zero past buf_len), moved
     * up to byte `at` */
    uint64_t c_low = phase == GCM_DEC ? in_low : out_low;
    uint64_t c_high = phase == GCM_DEC ? in_high : out_high;
    if (n < 8) {
        c_low &= (UINT64_C(1) << (8 * n)) - 1;
        c_high = 0;
    } else {
        c_high = n == 8 ? 0 : c_high & ((UINT64_C(1) << (8 * (n - 8))) - 1);
    }
    if (at >= 8) {
        c_high = c_low << (8 * (at - 8));
        c_low = 0;
    } else if (at != 0) {
        c_high = c_high << (8 * at) | c_low >> (8 * (8 - at));
        c_low <<= 8 * at;
    }
    store_block(ctx->buf, load64(ctx->buf) | c_low, load64(ctx->buf + 8) | c_high);
    ctx->buf_len = (uint32_t)(at + n);
}

/* Continues the partial block of an earlier call; returns the bytes used. */
static size_t finish_block(aesgen_gcm_ctx *ctx, uint32_t phase, uint8_t *dst,
                           const uint8_t *src, size_t len)
{
    if (ctx->buf_len == 0)
        return 0;
    size_t n = 16 - ctx->buf_len;
    if (n > len)
        n = len;
    crypt_bytes(ctx, phase, dst, src, n);
    if (ctx->buf_len == 16)
        buf_flush(ctx);
    return n;
}

/* Starts a partial block (0 < len < 16): one keystream block from ctr. */
static void start_block(aesgen_gcm_ctx *ctx, uint32_t phase, uint8_t *dst, const uint8_t *src,
                        size_t len)
{
    ctx->key->encrypt_block(&ctx->key->aes, ctx->ks, ctx->ctr);
    inc32(ctx->ctr, 1);
    crypt_bytes(ctx, phase, dst, src, len);
}

static int update(aesgen_gcm_ctx *ctx, uint32_t phase, uint8_t *dst, const uint8_t *src,
                  size_t len)
{
    const int err = update_check(ctx, phase, dst, src, len);
    if (err != AESGEN_OK)
        return err;
    if (ctx->state == GCM_AAD) {
        buf_flush(ctx);   /* the AAD ends here */
        ctx->state = phase;
    }
    if (len == 0)
        return AESGEN_OK;   /* dst and src may be NULL */
    ctx->data_len += len;
    const size_t n = finish_block(ctx, phase, dst, src, len);
    dst += n;
    src += n;
    len -= n;
    const size_t whole = len & ~(size_t)15;
    if (whole != 0) {
        crypt_blocks(ctx->key, phase, dst, src, whole, ctx->ctr, ctx->acc, ctx->ctr_secret);
        inc32(ctx->ctr, whole / 16);
    }
    if (len > whole)
        start_block(ctx, phase, dst + whole, src + whole, len - whole);
    return AESGEN_OK;
}

int aesgen_gcm_encrypt_update(aesgen_gcm_ctx *ctx, uint8_t *dst, const uint8_t *src, size_t len)
{
    return update(ctx, GCM_ENC, dst, src, len);
}

int aesgen_gcm_decrypt_update(aesgen_gcm_ctx *ctx, uint8_t *dst, const uint8_t *src, size_t len)
{
    return update(ctx, GCM_DEC, dst, src, len);
}

/* ---- Final ---------------------------------------------------------------- */

static int final_check(const aesgen_gcm_ctx *ctx, uint32_t phase, const uint8_t *tag,
                       size_t tag_len)
{
    if (ctx == NULL || (ctx->state != GCM_AAD && ctx->state != phase))
        return AESGEN_EINVAL;
    if (tag == NULL || !tag_len_valid(tag_len))
        return AESGEN_EINVAL;
    return AESGEN_OK;
}

/* tag = bswap(acc) ^ E_K(J0), in registers and stored once. */
void aesgen_gcm_tag_from_acc(uint8_t tag[16], const uint8_t acc[16], const uint8_t mask[16])
{
    const uint64_t high = __builtin_bswap64(load64(acc)) ^ load64(mask + 8);
    const uint64_t low = __builtin_bswap64(load64(acc + 8)) ^ load64(mask);
    store_block(tag, low, high);
}

/* The full tag: GHASH over the padded AAD and text and the lengths block,
 * XOR E_K(J0).  The pending partial block (if any) and the lengths block go
 * to GHASH in one call: short messages are dominated by calls.  Wipes the
 * context (the message is over). */
static void compute_tag(aesgen_gcm_ctx *ctx, uint8_t tag[16])
{
    uint8_t last[32];
    const size_t pending = ctx->buf_len != 0 ? 16 : 0;
    memcpy(last, ctx->buf, 16);          /* zero past buf_len (see buf_fill) */
    store_be128(last + pending, ctx->aad_len * 8, ctx->data_len * 8);
    ghash(ctx->key, ctx->acc, last, pending + 16);
    aesgen_wipe(last, sizeof last);
    aesgen_gcm_tag_from_acc(tag, ctx->acc, ctx->tag_mask);
    aesgen_wipe(ctx, sizeof *ctx);
}

int aesgen_gcm_encrypt_final(aesgen_gcm_ctx *ctx, uint8_t *tag, size_t tag_len)
{
    const int err = final_check(ctx, GCM_ENC, tag, tag_len);
    if (err != AESGEN_OK)
        return err;
    uint8_t full[16];
    compute_tag(ctx, full);
    memcpy(tag, full, tag_len);
    aesgen_wipe16(full);
    return AESGEN_OK;
}

/* Whether the first tag_len bytes of the full tag are tag, in constant time; the usual
 * 16-byte tag inline. */
static int tag_matches(const uint8_t full[16], const uint8_t *tag, size_t tag_len)
{
    return tag_len == 16 ? aesgen_ct_equal16(full, tag) : aesgen_ct_equal(full, tag, tag_len);
}

int aesgen_gcm_decrypt_final(aesgen_gcm_ctx *ctx, const uint8_t *tag, size_t tag_len)
{
    const int err = final_check(ctx, GCM_DEC, tag, tag_len);
    if (err != AESGEN_OK)
        return err;
    uint8_t full[16];
    compute_tag(ctx, full);
    const int ok = tag_matches(full, tag, tag_len);
    aesgen_wipe16(full);
    return ok ? AESGEN_OK : AESGEN_EBADMSG;
}

/* ---- One-shot ------------------------------------------------------------- */

/* What the streaming calls could only reject after dst was written. */
static int oneshot_check(const uint8_t *tag, size_t tag_len)
{
    return tag != NULL && tag_len_valid(tag_len) ? AESGEN_OK : AESGEN_EINVAL;
}

/* The checks, start and AAD both one-shot calls begin with; on an error after start the
 * context is wiped (nothing was written to dst yet). */
static int oneshot_start(aesgen_gcm_ctx *ctx, const aesgen_gcm_key *key, const uint8_t *iv,
                         size_t iv_len, const uint8_t *aad, size_t aad_len, const uint8_t *tag,
                         size_t tag_len)
{
    int err = oneshot_check(tag, tag_len);
    if (err == AESGEN_OK)
        err = aesgen_gcm_start(ctx, key, iv, iv_len);
    if (err != AESGEN_OK)
        return err;
    err = aesgen_gcm_aad(ctx, aad, aad_len);
    if (err != AESGEN_OK)
        aesgen_wipe(ctx, sizeof *ctx);
    return err;
}

/* ---- One-shot in one asm call (the record functions) ------------------------ */

/* The key's record function for this direction when the AAD fits it, else NULL. */
static aesgen_gcm_record_fn *record_fn(const aesgen_gcm_key *key, uint32_t phase,
                                       size_t aad_len)
{
    if (key == NULL || aad_len > AESGEN_GCM_RECORD_MAX_AAD)
        return NULL;
    return phase == GCM_DEC ? key->dec_record : key->enc_record;
}

/* The VEX record contract (asm_abi.h): the AAD zero-padded to whole blocks, the text's
 * partial block zero-padded in the record with its counter block, its output copied
 * out afterwards. */
static void record_run_padded(const aesgen_gcm_key *key, aesgen_gcm_record_fn *fn,
                              uint8_t *dst, const uint8_t *src, size_t len, size_t secret,
                              aesgen_gcm_record *rec)
{
    uint8_t aad_copy[AESGEN_GCM_RECORD_MAX_AAD];
    const size_t aad_whole = rec->aad_len & ~(size_t)15, aad_part = rec->aad_len - aad_whole;
    if (aad_part != 0) {
        memcpy(aad_copy, rec->aad, aad_whole);
        store_partial_block(aad_copy + aad_whole, rec->aad + aad_whole, aad_part);
        rec->aad = aad_copy;
        rec->aad_len = aad_whole + 16;
    }
    const size_t whole = len & ~(size_t)15, part = len - whole;
    rec->tail_len = part;
    if (part != 0) {
        store_partial_block(rec->tail, src + whole, part);
        memcpy(rec->tail_ctr, rec->j0, 16);
        inc32(rec->tail_ctr, 1 + whole / 16);
    }
    fn(key, dst, src, whole | secret, rec);
    if (part != 0) {
        memcpy(dst + whole, rec->tail, part);
        aesgen_wipe16(rec->tail);   /* plaintext */
    }
}

/* The checks of start, aad, update and final together, then the whole message in one
 * call; rec->tag receives the full tag.  The key needs no key_ready: record_fn found a
 * record function in it, and only init sets one (with all the others).  Folded into
 * its two callers: a record of a few hundred bytes takes about 60 ns, and handing this
 * twelve arguments through the stack cost 5% of that on Zen 5. */
static AESGEN_ALWAYS_INLINE int record_run(const aesgen_gcm_key *key, aesgen_gcm_record_fn *fn,
                                           const uint8_t *iv, size_t iv_len, const uint8_t *aad,
                                           size_t aad_len, uint8_t *dst, const uint8_t *src,
                                           size_t len, const uint8_t *tag, size_t tag_len,
                                           aesgen_gcm_record *rec)
{
    if (!iv_valid(iv, iv_len) || !aad_valid(aad, aad_len, 0) ||
        !text_valid(dst, src, len, 0) || oneshot_check(tag, tag_len) != AESGEN_OK)
        return AESGEN_EINVAL;
    compute_j0(key, iv, iv_len, rec->j0);
    store_block((uint8_t *)rec->lengths, (uint64_t)len * 8, (uint64_t)aad_len * 8);
    rec->aad = aad;
    rec->aad_len = aad_len;
    const size_t secret = iv_len != 12 ? AESGEN_GCM_SECRET_COUNTER : 0;
    if (key->record_pads)
        record_run_padded(key, fn, dst, src, len, secret, rec);
    else
        fn(key, dst, src, len | secret, rec);
    return AESGEN_OK;
}

int aesgen_gcm_encrypt(const aesgen_gcm_key *key, const uint8_t *iv, size_t iv_len,
                       const uint8_t *aad, size_t aad_len, uint8_t *dst, const uint8_t *src,
                       size_t len, uint8_t *tag, size_t tag_len)
{
    aesgen_gcm_record_fn *fn = record_fn(key, GCM_ENC, aad_len);
    if (fn != NULL) {
        aesgen_gcm_record rec;
        const int err = record_run(key, fn, iv, iv_len, aad, aad_len, dst, src, len, tag,
                                   tag_len, &rec);
        if (err == AESGEN_OK && tag_len == sizeof rec.tag)
            memcpy(tag, rec.tag, sizeof rec.tag);   /* the usual tag: two moves, no call */
        else if (err == AESGEN_OK)
            memcpy(tag, rec.tag, tag_len);
        return err;
    }
    aesgen_gcm_ctx ctx;
    int err = oneshot_start(&ctx, key, iv, iv_len, aad, aad_len, tag, tag_len);
    if (err != AESGEN_OK)
        return err;
    err = aesgen_gcm_encrypt_update(&ctx, dst, src, len);
    if (err == AESGEN_OK)
        err = aesgen_gcm_encrypt_final(&ctx, tag, tag_len);   /* wipes ctx when it runs */
    if (err == AESGEN_EINVAL)
        aesgen_wipe(&ctx, sizeof ctx);
    return err;
}

int aesgen_gcm_decrypt(const aesgen_gcm_key *key, const uint8_t *iv, size_t iv_len,
                       const uint8_t *aad, size_t aad_len, uint8_t *dst, const uint8_t *src,
                       size_t len, const uint8_t *tag, size_t tag_len)
{
    aesgen_gcm_record_fn *fn = record_fn(key, GCM_DEC, aad_len);
    if (fn != NULL) {
        aesgen_gcm_record rec;
        int err = record_run(key, fn, iv, iv_len, aad, aad_len, dst, src, len, tag, tag_len,
                             &rec);
        if (err == AESGEN_OK && !tag_matches(rec.tag, tag, tag_len)) {
            aesgen_wipe(dst, len);
            err = AESGEN_EBADMSG;
        }
        aesgen_wipe16(rec.tag);   /* the expected tag */
        return err;
    }
    aesgen_gcm_ctx ctx;
    int err = oneshot_start(&ctx, key, iv, iv_len, aad, aad_len, tag, tag_len);
    if (err != AESGEN_OK)
        return err;
    err = aesgen_gcm_decrypt_update(&ctx, dst, src, len);
    if (err == AESGEN_OK) {
        err = aesgen_gcm_decrypt_final(&ctx, tag, tag_len);   /* wipes ctx when it runs */
        if (err == AESGEN_EBADMSG)
            aesgen_wipe(dst, len);
    }
    if (err == AESGEN_EINVAL)
        aesgen_wipe(&ctx, sizeof ctx);
    return err;
}
