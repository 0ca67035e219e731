/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * GCM API tests (group gcm-api), every ISA:
 *  - init: bad key lengths and NULL pointers -> AESGEN_EINVAL, key object untouched;
 *  - misuse -> AESGEN_EINVAL with nothing written (ctx, dst and tag unchanged) and
 *    the message still usable afterwards: zero-length IV (start and one-shot), AAD
 *    after data (also after a 0-byte update, which ends the AAD), any call after
 *    final, calls on a context never started, encrypt and decrypt calls mixed, bad
 *    tag lengths (streamed finals and one-shot), NULL pointers (NULL with length 0
 *    is fine);
 *  - limits: 2^36 - 32 bytes of text and 2^61 - 1 bytes of AAD per message, tested
 *    without processing that much: a call whose length alone, or with what came
 *    before, goes over is refused (its buffers sit before guard pages, so a call
 *    wrongly accepted faults, is caught and reported); white box (the context's
 *    byte counters set just below the limit): exactly the limit is accepted, one
 *    byte more is not;
 *  - decrypt_final: a wrong tag (each bit of each byte position, every tag length)
 *    returns AESGEN_EBADMSG; bytes beyond tag_len are not compared;
 *  - finals wipe the context; contexts are plain data (a copy made mid-message
 *    continues identically); the key object is only read by messages;
 *  - white box: the key's AES schedule, H^32..H^1 in asm_abi.h's form (reflected,
 *    times x^-1) and the 48 zero bytes after them; a key keeps the ISA of its init
 *    and holds aesgen_gcm_{ghash,enc_update,dec_update}_<isa> once they are linked.
 * gcm-threads: one key object per ISA shared by several threads at once, each with
 * its own contexts (streamed in random chunks, and one-shot), both directions.
 */
#define _GNU_SOURCE   /* setenv, unsetenv, strdup */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "internal.h"   /* aesgen_gcm_ghash_for_cpu: white box */
#include "gcm_harness.h"
#include "harness.h"
#include "isa.h"
#include "page_arena.h"
#include "reference.h"
#include "tests.h"

#define GCM_MAX_TEXT ((UINT64_C(1) << 36) - 32)
#define GCM_MAX_AAD  ((UINT64_C(1) << 61) - 1)

/* A key, a message and its answer, shared by the checks of one ISA. */
struct fixture {
    const char *isa;
    uint8_t raw[32];
    aesgen_gcm_key key;
    uint8_t iv[12], aad[64], pt[300], ct[300], tag[16];
};

static bool fixture_init(struct fixture *f, const char *isa)
{
    f->isa = isa;
    rng_fill(f->iv, sizeof f->iv);
    rng_fill(f->aad, sizeof f->aad);
    rng_fill(f->pt, sizeof f->pt);
    if (!gcm_make_key(&f->key, f->raw, 32, isa))
        return false;
    gcm_ref_encrypt(f->raw, 32, f->iv, 12, f->aad, sizeof f->aad, f->ct, f->pt, sizeof f->pt,
                    f->tag);
    return true;
}

/* ---- init ----------------------------------------------------------------------- */

static void init_errors(const char *isa)
{
    static const size_t bad[] = { 0, 1, 8, 15, 17, 20, 23, 25, 31, 33, 48, 64, SIZE_MAX };
    uint8_t raw[64];
    aesgen_gcm_key key;
    rng_fill(raw, sizeof raw);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fill_pattern(&key, sizeof key);
        check_int(aesgen_gcm_init(&key, raw, bad[i]), AESGEN_EINVAL, "%s gcm init key_len %zu",
                  isa, bad[i]);
        check(still_pattern(&key, sizeof key), "%s gcm init key_len %zu leaves the key untouched",
              isa, bad[i]);
    }
    fill_pattern(&key, sizeof key);
    check_int(aesgen_gcm_init(&key, NULL, 16), AESGEN_EINVAL, "%s gcm init with NULL key bytes", isa);
    check(still_pattern(&key, sizeof key), "%s gcm init with NULL key bytes leaves the key untouched",
          isa);
    check_int(aesgen_gcm_init(NULL, raw, 16), AESGEN_EINVAL, "%s gcm init with NULL key object", isa);
    for (size_t k = 0; k < 3; k++)
        check_int(aesgen_gcm_init(&key, raw, key_sizes[k]), AESGEN_OK, "%s gcm init key_len %zu",
                  isa, key_sizes[k]);
}

/* ---- misuse ---------------------------------------------------------------------- */

/* A refused call: EINVAL, and the context exactly as before. */
static void refused(const char *isa, int rc, const aesgen_gcm_ctx *ctx,
                    const aesgen_gcm_ctx *before, const char *what)
{
    check(rc == AESGEN_EINVAL && memcmp(ctx, before, sizeof *ctx) == 0,
          "%s gcm %s: EINVAL (got %d), context unchanged", isa, what, rc);
}

static void start_errors(const struct fixture *f)
{
    aesgen_gcm_ctx ctx;
    fill_pattern(&ctx, sizeof ctx);
    check_int(aesgen_gcm_start(&ctx, &f->key, f->iv, 0), AESGEN_EINVAL,
              "%s gcm start with a zero-length IV", f->isa);
    check_int(aesgen_gcm_start(&ctx, &f->key, NULL, 12), AESGEN_EINVAL,
              "%s gcm start with NULL iv", f->isa);
    check_int(aesgen_gcm_start(&ctx, NULL, f->iv, 12), AESGEN_EINVAL,
              "%s gcm start with NULL key", f->isa);
    check(still_pattern(&ctx, sizeof ctx), "%s gcm refused starts leave the context untouched",
          f->isa);
    check_int(aesgen_gcm_start(NULL, &f->key, f->iv, 12), AESGEN_EINVAL,
              "%s gcm start with NULL ctx", f->isa);
    /* one-shot: nothing written */
    uint8_t dst[300], tag[16];
    fill_pattern(dst, sizeof dst);
    fill_pattern(tag, sizeof tag);
    int rc1 = aesgen_gcm_encrypt(&f->key, f->iv, 0, f->aad, 5, dst, f->pt, sizeof dst, tag, 16);
    int rc2 = aesgen_gcm_decrypt(&f->key, f->iv, 0, f->aad, 5, dst, f->ct, sizeof dst, f->tag, 16);
    int rc3 = aesgen_gcm_encrypt(NULL, f->iv, 12, f->aad, 5, dst, f->pt, sizeof dst, tag, 16);
    int rc4 = aesgen_gcm_decrypt(&f->key, NULL, 12, f->aad, 5, dst, f->ct, sizeof dst, f->tag, 16);
    check(rc1 == AESGEN_EINVAL && rc2 == AESGEN_EINVAL && rc3 == AESGEN_EINVAL
          && rc4 == AESGEN_EINVAL && still_pattern(dst, sizeof dst) && still_pattern(tag, 16),
          "%s gcm one-shot with iv_len 0, NULL key or NULL iv: EINVAL (got %d %d %d %d), "
          "dst and tag untouched", f->isa, rc1, rc2, rc3, rc4);
    /* NULL AAD or text with a length: refused before anything is read or written */
    int rc5 = aesgen_gcm_encrypt(&f->key, f->iv, 12, NULL, 5, dst, f->pt, sizeof dst, tag, 16);
    int rc6 = aesgen_gcm_decrypt(&f->key, f->iv, 12, NULL, 5, dst, f->ct, sizeof dst, f->tag, 16);
    int rc7 = aesgen_gcm_encrypt(&f->key, f->iv, 12, f->aad, 5, dst, NULL, 17, tag, 16);
    int rc8 = aesgen_gcm_decrypt(&f->key, f->iv, 12, f->aad, 5, NULL, f->ct, 17, f->tag, 16);
    check(rc5 == AESGEN_EINVAL && rc6 == AESGEN_EINVAL && rc7 == AESGEN_EINVAL
          && rc8 == AESGEN_EINVAL && still_pattern(dst, sizeof dst) && still_pattern(tag, 16),
          "%s gcm one-shot with NULL aad or NULL text and a length: EINVAL (got %d %d %d %d), "
          "dst and tag untouched", f->isa, rc5, rc6, rc7, rc8);
}

/* Streams the fixture's message (aad, then text) with the given final, checking it. */
static void finish_message(const struct fixture *f, aesgen_gcm_ctx *ctx, enum gcm_dir dir,
                           size_t text_done, const char *what)
{
    uint8_t out[300], tag[16];
    int rc = dir == GCM_ENCRYPT
             ? aesgen_gcm_encrypt_update(ctx, out + text_done, f->pt + text_done,
                                         sizeof out - text_done)
             : aesgen_gcm_decrypt_update(ctx, out + text_done, f->ct + text_done,
                                         sizeof out - text_done);
    if (dir == GCM_ENCRYPT) {
        rc = rc ? rc : aesgen_gcm_encrypt_final(ctx, tag, 16);
        check(rc == AESGEN_OK && memcmp(out + text_done, f->ct + text_done,
                                        sizeof out - text_done) == 0
              && memcmp(tag, f->tag, 16) == 0,
              "%s gcm %s: the message goes on and ends with the right tag (rc %d)", f->isa, what,
              rc);
    } else {
        memcpy(tag, f->tag, 16);
        rc = rc ? rc : aesgen_gcm_decrypt_final(ctx, tag, 16);
        check(rc == AESGEN_OK && memcmp(out + text_done, f->pt + text_done,
                                        sizeof out - text_done) == 0,
              "%s gcm %s: the message goes on and verifies (rc %d)", f->isa, what, rc);
    }
}

static int update(aesgen_gcm_ctx *ctx, enum gcm_dir dir, uint8_t *dst, const uint8_t *src,
                  size_t len)
{
    return dir == GCM_ENCRYPT ? aesgen_gcm_encrypt_update(ctx, dst, src, len)
                              : aesgen_gcm_decrypt_update(ctx, dst, src, len);
}

static int final(aesgen_gcm_ctx *ctx, enum gcm_dir dir, uint8_t *tag, size_t tag_len)
{
    return dir == GCM_ENCRYPT ? aesgen_gcm_encrypt_final(ctx, tag, tag_len)
                              : aesgen_gcm_decrypt_final(ctx, tag, tag_len);
}

/* AAD after data, mixed directions, NULL pointers: refused mid-message, and the
 * message then finishes correctly. */
static void sequence_errors(const struct fixture *f, enum gcm_dir dir)
{
    const char *d = gcm_dir_name(dir);
    const uint8_t *in = dir == GCM_ENCRYPT ? f->pt : f->ct;
    enum gcm_dir other = dir == GCM_ENCRYPT ? GCM_DECRYPT : GCM_ENCRYPT;
    aesgen_gcm_ctx ctx, before;
    uint8_t out[300], tag[16];
    char what[120];

    aesgen_gcm_start(&ctx, &f->key, f->iv, 12);
    before = ctx;
    refused(f->isa, aesgen_gcm_aad(&ctx, NULL, 5), &ctx, &before, "aad with NULL and len 5");
    refused(f->isa, aesgen_gcm_aad(NULL, f->aad, 5), &ctx, &before, "aad with NULL ctx");
    check_int(aesgen_gcm_aad(&ctx, NULL, 0), AESGEN_OK, "%s gcm aad of 0 bytes, NULL", f->isa);
    aesgen_gcm_aad(&ctx, f->aad, sizeof f->aad);
    before = ctx;
    fill_pattern(out, sizeof out);
    snprintf(what, sizeof what, "%s_update with NULL dst", d);
    refused(f->isa, update(&ctx, dir, NULL, in, 5), &ctx, &before, what);
    snprintf(what, sizeof what, "%s_update with NULL src", d);
    refused(f->isa, update(&ctx, dir, out, NULL, 5), &ctx, &before, what);
    snprintf(what, sizeof what, "%s_update with NULL ctx", d);
    refused(f->isa, update(NULL, dir, out, in, 5), &ctx, &before, what);
    check(still_pattern(out, sizeof out), "%s gcm refused %s_updates write nothing", f->isa, d);
    check_int(update(&ctx, dir, NULL, NULL, 0), AESGEN_OK, "%s gcm %s_update of 0 bytes, NULL",
              f->isa, d);

    /* a 0-byte update ended the AAD */
    before = ctx;
    refused(f->isa, aesgen_gcm_aad(&ctx, f->aad, 1), &ctx, &before, "aad after a 0-byte update");
    check_int(update(&ctx, dir, out, in, 7), AESGEN_OK, "%s gcm %s_update of 7 bytes", f->isa, d);
    before = ctx;
    refused(f->isa, aesgen_gcm_aad(&ctx, f->aad, 1), &ctx, &before, "aad after data");
    refused(f->isa, aesgen_gcm_aad(&ctx, f->aad, 0), &ctx, &before, "aad of 0 bytes after data");
    snprintf(what, sizeof what, "%s_update after %s_update", gcm_dir_name(other), d);
    fill_pattern(out + 7, sizeof out - 7);
    refused(f->isa, update(&ctx, other, out + 7, in + 7, 9), &ctx, &before, what);
    fill_pattern(tag, sizeof tag);
    snprintf(what, sizeof what, "%s_final after %s_update", gcm_dir_name(other), d);
    refused(f->isa, final(&ctx, other, tag, 16), &ctx, &before, what);
    snprintf(what, sizeof what, "%s_final with NULL tag", d);
    refused(f->isa, final(&ctx, dir, NULL, 16), &ctx, &before, what);
    snprintf(what, sizeof what, "%s_final with NULL ctx", d);
    refused(f->isa, final(NULL, dir, tag, 16), &ctx, &before, what);
    check(still_pattern(out + 7, sizeof out - 7) && still_pattern(tag, 16),
          "%s gcm refused calls in a %s message write nothing", f->isa, d);
    snprintf(what, sizeof what, "%s after refused calls", d);
    finish_message(f, &ctx, dir, 7, what);
}

/* Everything after final, and on a context never started, is refused. */
static void after_final(const struct fixture *f, enum gcm_dir dir)
{
    const char *d = gcm_dir_name(dir);
    aesgen_gcm_ctx ctx, before;
    uint8_t out[32], tag[16];
    char what[120];
    for (int state = 0; state < 2; state++) {
        if (state == 0) {
            memset(&ctx, 0, sizeof ctx);
        } else {
            memcpy(tag, f->tag, 16);
            aesgen_gcm_start(&ctx, &f->key, f->iv, 12);
            aesgen_gcm_aad(&ctx, f->aad, sizeof f->aad);
            update(&ctx, dir, out, dir == GCM_ENCRYPT ? f->pt : f->ct, 20);
            final(&ctx, dir, tag, 16);
        }
        const char *when = state == 0 ? "on a context never started" : "after final";
        before = ctx;
        fill_pattern(out, sizeof out);
        fill_pattern(tag, sizeof tag);
        snprintf(what, sizeof what, "aad %s", when);
        refused(f->isa, aesgen_gcm_aad(&ctx, f->aad, 3), &ctx, &before, what);
        for (int o = 0; o < 2; o++) {
            enum gcm_dir any = (enum gcm_dir)o;
            snprintf(what, sizeof what, "%s_update %s (%s message)", gcm_dir_name(any), when, d);
            refused(f->isa, update(&ctx, any, out, f->pt, 20), &ctx, &before, what);
            snprintf(what, sizeof what, "%s_update of 0 bytes %s (%s message)",
                     gcm_dir_name(any), when, d);
            refused(f->isa, update(&ctx, any, out, f->pt, 0), &ctx, &before, what);
            snprintf(what, sizeof what, "%s_final %s (%s message)", gcm_dir_name(any), when, d);
            refused(f->isa, final(&ctx, any, tag, 16), &ctx, &before, what);
        }
        check(still_pattern(out, sizeof out) && still_pattern(tag, sizeof tag),
              "%s gcm calls %s (%s message) write nothing", f->isa, when, d);
    }
    /* and the context can be started again */
    check_int(aesgen_gcm_start(&ctx, &f->key, f->iv, 12), AESGEN_OK,
              "%s gcm start again after final", f->isa);
    aesgen_gcm_aad(&ctx, f->aad, sizeof f->aad);
    finish_message(f, &ctx, dir, 0, "restarted after final");
}

static void bad_tag_lengths(const struct fixture *f)
{
    static const size_t bad[] = { 0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 17, 32, SIZE_MAX };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t t = bad[i];
        uint8_t dst[300], tag[16];
        char what[120];
        fill_pattern(dst, sizeof dst);
        fill_pattern(tag, sizeof tag);
        int rc1 = aesgen_gcm_encrypt(&f->key, f->iv, 12, f->aad, sizeof f->aad, dst, f->pt,
                                     sizeof dst, tag, t);
        int rc2 = aesgen_gcm_decrypt(&f->key, f->iv, 12, f->aad, sizeof f->aad, dst, f->ct,
                                     sizeof dst, f->tag, t);
        check(rc1 == AESGEN_EINVAL && rc2 == AESGEN_EINVAL && still_pattern(dst, sizeof dst)
              && still_pattern(tag, sizeof tag),
              "%s gcm one-shot encrypt/decrypt tag_len %zu: EINVAL (got %d, %d), dst and tag "
              "untouched", f->isa, t, rc1, rc2);
        for (int d = 0; d < 2; d++) {
            enum gcm_dir dir = (enum gcm_dir)d;
            aesgen_gcm_ctx ctx, before;
            aesgen_gcm_start(&ctx, &f->key, f->iv, 12);
            aesgen_gcm_aad(&ctx, f->aad, sizeof f->aad);
            update(&ctx, dir, dst, dir == GCM_ENCRYPT ? f->pt : f->ct, 100);
            before = ctx;
            fill_pattern(tag, sizeof tag);
            snprintf(what, sizeof what, "%s_final tag_len %zu", gcm_dir_name(dir), t);
            refused(f->isa, final(&ctx, dir, tag, t), &ctx, &before, what);
            check(still_pattern(tag, sizeof tag), "%s gcm %s: tag untouched", f->isa, what);
            snprintf(what, sizeof what, "%s after a refused final (tag_len %zu)",
                     gcm_dir_name(dir), t);
            finish_message(f, &ctx, dir, 100, what);
        }
    }
}

/* ---- limits -------------------------------------------------------------------- */

/*
 * A call over a limit must be refused before it touches a byte.  If it were
 * accepted it would run through gigabytes: so its buffers start at the beginning
 * of a guard-page arena (page_arena.h), where such a run faults within a few
 * pages, and the fault is caught and reported instead of ending the tests (or
 * scribbling over the heap).
 */
struct limit_call {
    enum { CALL_UPDATE, CALL_AAD, CALL_ONESHOT } kind;
    enum gcm_dir dir;
    aesgen_gcm_ctx *ctx;
    const struct fixture *f;
    size_t aad_len, len;
};

static const struct arena *limit_arena;

static int limit_call_run(const struct limit_call *c, bool *faulted)
{
    uint8_t *src = limit_arena->src_area, *dst = limit_arena->dst_area;
    struct fault_catcher catcher;
    volatile int rc = AESGEN_OK;
    *faulted = false;
    catch_faults(&catcher);
    if (sigsetjmp(fault_return, 1) != 0) {
        *faulted = true;
        release_faults(&catcher);
        return AESGEN_OK;
    }
    fault_armed = 1;
    switch (c->kind) {
    case CALL_UPDATE:
        rc = update(c->ctx, c->dir, dst, src, c->len);
        break;
    case CALL_AAD:
        rc = aesgen_gcm_aad(c->ctx, src, c->aad_len);
        break;
    case CALL_ONESHOT:
        rc = gcm_api_oneshot(c->dir, &c->f->key, c->f->iv, 12, src, c->aad_len, dst, src, c->len,
                             dst, 16);
        break;
    }
    fault_armed = 0;
    release_faults(&catcher);
    return rc;
}

/* EINVAL, no fault, the context as before, nothing written to dst. */
static void over_limit(const struct limit_call *c, const char *what)
{
    aesgen_gcm_ctx before;
    if (c->ctx)
        before = *c->ctx;
    fill_pattern(limit_arena->dst_area, 4096);
    bool faulted;
    int rc = limit_call_run(c, &faulted);
    check(!faulted && rc == AESGEN_EINVAL && (!c->ctx || memcmp(c->ctx, &before, sizeof before) == 0)
          && still_pattern(limit_arena->dst_area, 4096),
          "%s gcm %s: EINVAL (got %d%s), context unchanged, nothing written", c->f->isa, what, rc,
          faulted ? ": accepted, and faulted running through the guard pages" : "");
}

static void text_limit(const struct fixture *f, enum gcm_dir dir)
{
    const char *d = gcm_dir_name(dir);
    const uint8_t *in = dir == GCM_ENCRYPT ? f->pt : f->ct;
    aesgen_gcm_ctx ctx, before;
    uint8_t out[300], tag[16];
    char what[160];
    /* alone over the limit, and over it with what came before */
    static const uint64_t alone[] = { GCM_MAX_TEXT + 1, GCM_MAX_TEXT + 16, UINT64_C(1) << 40,
                                      SIZE_MAX };
    aesgen_gcm_start(&ctx, &f->key, f->iv, 12);
    aesgen_gcm_aad(&ctx, f->aad, sizeof f->aad);
    for (size_t i = 0; i < sizeof alone / sizeof alone[0]; i++) {
        snprintf(what, sizeof what, "%s_update of %#llx bytes (limit 2^36 - 32)", d,
                 (unsigned long long)alone[i]);
        over_limit(&(struct limit_call){ CALL_UPDATE, dir, &ctx, f, 0, (size_t)alone[i] }, what);
    }
    update(&ctx, dir, out, in, 100);
    snprintf(what, sizeof what, "%s_update of 2^36 - 32 - 99 bytes after 100", d);
    over_limit(&(struct limit_call){ CALL_UPDATE, dir, &ctx, f, 0, (size_t)(GCM_MAX_TEXT - 99) },
               what);
    snprintf(what, sizeof what, "%s after refused over-limit updates", d);
    finish_message(f, &ctx, dir, 100, what);

    snprintf(what, sizeof what, "one-shot %s of 2^36 - 31 bytes", d);
    over_limit(&(struct limit_call){ CALL_ONESHOT, dir, NULL, f, 3, (size_t)GCM_MAX_TEXT + 1 },
               what);

    /* white box: the byte counter just below the limit */
    aesgen_gcm_start(&ctx, &f->key, f->iv, 12);
    update(&ctx, dir, out, in, 16);
    ctx.data_len = GCM_MAX_TEXT - 17;
    check_int(update(&ctx, dir, out, in, 17), AESGEN_OK,
              "%s gcm %s_update reaching exactly 2^36 - 32 bytes (white box)", f->isa, d);
    before = ctx;
    snprintf(what, sizeof what, "%s_update of 1 byte at the limit (white box)", d);
    refused(f->isa, update(&ctx, dir, out, in, 1), &ctx, &before, what);
    check_int(update(&ctx, dir, out, in, 0), AESGEN_OK,
              "%s gcm %s_update of 0 bytes at the limit (white box)", f->isa, d);
    memcpy(tag, f->tag, 16);
    int rc = final(&ctx, dir, tag, 16);
    check(rc == (dir == GCM_ENCRYPT ? AESGEN_OK : AESGEN_EBADMSG),
          "%s gcm %s_final at the limit (white box): %s (got %d)", f->isa, d,
          dir == GCM_ENCRYPT ? "OK" : "EBADMSG", rc);
}

static void aad_limit(const struct fixture *f)
{
    aesgen_gcm_ctx ctx, before;
    uint8_t tag[16];
    char what[160];
    static const uint64_t alone[] = { GCM_MAX_AAD + 1, UINT64_C(1) << 62, SIZE_MAX };
    aesgen_gcm_start(&ctx, &f->key, f->iv, 12);
    for (size_t i = 0; i < sizeof alone / sizeof alone[0]; i++) {
        snprintf(what, sizeof what, "aad of %#llx bytes (limit 2^61 - 1)",
                 (unsigned long long)alone[i]);
        over_limit(&(struct limit_call){ CALL_AAD, GCM_ENCRYPT, &ctx, f, (size_t)alone[i], 0 },
                   what);
    }
    aesgen_gcm_aad(&ctx, f->aad, 5);
    over_limit(&(struct limit_call){ CALL_AAD, GCM_ENCRYPT, &ctx, f, (size_t)(GCM_MAX_AAD - 4), 0 },
               "aad of 2^61 - 5 bytes after 5");
    aesgen_gcm_aad(&ctx, f->aad + 5, sizeof f->aad - 5);
    finish_message(f, &ctx, GCM_ENCRYPT, 0, "encrypt after refused over-limit aad");

    for (int d = 0; d < 2; d++) {
        snprintf(what, sizeof what, "one-shot %s with 2^61 bytes of AAD",
                 gcm_dir_name((enum gcm_dir)d));
        over_limit(&(struct limit_call){ CALL_ONESHOT, (enum gcm_dir)d, NULL, f,
                                         (size_t)GCM_MAX_AAD + 1, 16 }, what);
    }

    /* white box: the AAD counter just below the limit */
    aesgen_gcm_start(&ctx, &f->key, f->iv, 12);
    aesgen_gcm_aad(&ctx, f->aad, 3);
    ctx.aad_len = GCM_MAX_AAD - 7;
    check_int(aesgen_gcm_aad(&ctx, f->aad, 7), AESGEN_OK,
              "%s gcm aad reaching exactly 2^61 - 1 bytes (white box)", f->isa);
    before = ctx;
    refused(f->isa, aesgen_gcm_aad(&ctx, f->aad, 1), &ctx, &before,
            "aad of 1 byte at the limit (white box)");
    check_int(aesgen_gcm_encrypt_final(&ctx, tag, 16), AESGEN_OK,
              "%s gcm encrypt_final with 2^61 - 1 bytes of AAD (white box)", f->isa);
}

/* ---- tags ------------------------------------------------------------------------ */

static void wrong_tags(const struct fixture *f)
{
    for (size_t t = 0; t < GCM_TAG_LENGTH_COUNT; t++) {
        size_t tag_len = gcm_tag_lengths[t];
        for (size_t byte = 0; byte < 16; byte++) {
            for (int bit = 0; bit < 8; bit++) {
                uint8_t tag[16], out[300];
                memcpy(tag, f->tag, 16);
                tag[byte] ^= (uint8_t)(1u << bit);
                aesgen_gcm_ctx ctx;
                aesgen_gcm_start(&ctx, &f->key, f->iv, 12);
                aesgen_gcm_aad(&ctx, f->aad, sizeof f->aad);
                aesgen_gcm_decrypt_update(&ctx, out, f->ct, sizeof out);
                int rc = aesgen_gcm_decrypt_final(&ctx, tag, tag_len);
                int want = byte < tag_len ? AESGEN_EBADMSG : AESGEN_OK;
                check(rc == want, "%s gcm decrypt_final tag_len %zu, bit %d of byte "
                                  "%zu flipped: %s (got %d)", f->isa, tag_len, bit, byte,
                                  want == AESGEN_OK ? "OK (beyond tag_len)" : "EBADMSG", rc);
            }
        }
        uint8_t zero[16] = { 0 }, out[300];
        int rc = aesgen_gcm_decrypt(&f->key, f->iv, 12, f->aad, sizeof f->aad, out, f->ct,
                                    sizeof out, zero, tag_len);
        check(rc == AESGEN_EBADMSG && all_zero(out, sizeof out),
              "%s gcm decrypt with an all-zero tag (tag_len %zu): EBADMSG (got %d), dst wiped",
              f->isa, tag_len, rc);
    }
}

/* ---- state ------------------------------------------------------------------------ */

static void finals_wipe(const struct fixture *f)
{
    for (int d = 0; d < 2; d++) {
        enum gcm_dir dir = (enum gcm_dir)d;
        for (int bad = 0; bad < 2; bad++) {
            aesgen_gcm_ctx ctx;
            uint8_t out[300], tag[16];
            memcpy(tag, f->tag, 16);
            tag[0] ^= (uint8_t)bad;
            aesgen_gcm_start(&ctx, &f->key, f->iv, 12);
            aesgen_gcm_aad(&ctx, f->aad, 17);
            update(&ctx, dir, out, dir == GCM_ENCRYPT ? f->pt : f->ct, 21);
            int rc = final(&ctx, dir, tag, 16);
            if (dir == GCM_ENCRYPT && bad)
                continue;
            check(all_zero(&ctx, sizeof ctx), "%s gcm %s_final (rc %d) wipes the context", f->isa,
                  gcm_dir_name(dir), rc);
        }
    }
}

/* Contexts are plain data: a copy made mid-message (mid-block too) continues
 * exactly like the original. */
static void context_copies(const struct fixture *f)
{
    for (int d = 0; d < 2; d++) {
        enum gcm_dir dir = (enum gcm_dir)d;
        const uint8_t *in = dir == GCM_ENCRYPT ? f->pt : f->ct;
        aesgen_gcm_ctx a, b;
        uint8_t out_a[300], out_b[300], tag_a[16], tag_b[16];
        aesgen_gcm_start(&a, &f->key, f->iv, 12);
        aesgen_gcm_aad(&a, f->aad, 19);
        b = a;
        aesgen_gcm_aad(&a, f->aad + 19, sizeof f->aad - 19);
        aesgen_gcm_aad(&b, f->aad + 19, sizeof f->aad - 19);
        update(&a, dir, out_a, in, 37);
        b = a;
        memcpy(out_b, out_a, 37);
        update(&a, dir, out_a + 37, in + 37, sizeof out_a - 37);
        update(&b, dir, out_b + 37, in + 37, sizeof out_b - 37);
        memcpy(tag_a, f->tag, 16);
        memcpy(tag_b, f->tag, 16);
        int rc_a = final(&a, dir, tag_a, 16), rc_b = final(&b, dir, tag_b, 16);
        check(rc_a == AESGEN_OK && rc_b == AESGEN_OK && memcmp(out_a, out_b, sizeof out_a) == 0
              && memcmp(tag_a, tag_b, 16) == 0
              && memcmp(out_a, dir == GCM_ENCRYPT ? f->ct : f->pt, sizeof out_a) == 0,
              "%s gcm %s: a copy of the context made mid-message continues like the original",
              f->isa, gcm_dir_name(dir));
    }
}

/* Messages only read the key object. */
static void key_only_read(const struct fixture *f)
{
    aesgen_gcm_key copy = f->key;
    uint8_t out[300], tag[16];
    aesgen_gcm_encrypt(&f->key, f->iv, 12, f->aad, 33, out, f->pt, 299, tag, 16);
    aesgen_gcm_decrypt(&f->key, f->iv, 7, f->aad, 33, out, f->ct, 299, f->tag, 13);
    aesgen_gcm_encrypt(&f->key, f->aad, 60, NULL, 0, out, f->pt, 1, tag, 4);
    check(memcmp(&copy, &f->key, sizeof copy) == 0, "%s gcm: messages leave the key object as "
          "init made it", f->isa);
}

/* White box: the key material asm_abi.h describes. */

/* The key holds the GCM set of the selected ISA and variant (isa.h: isa_gcm_expected;
 * the variants: test_variants.c). */
static void key_holds_expected_set(const struct test_isa *isa, const aesgen_gcm_key *key,
                                   const char *how)
{
    struct test_gcm_set want = isa_gcm_expected(isa);
    check(key->ghash == want.ghash && key->enc_update == want.enc_update
          && key->dec_update == want.dec_update && key->enc_record == want.enc_record
          && key->dec_record == want.dec_record,
          "%s gcm key%s holds aesgen_gcm_{ghash,enc_update,dec_update,enc_record,dec_record}_%s%s",
          isa->name, how, isa->name, want.suffix);
}

static void key_layout(const struct test_isa *isa)
{
    for (size_t k = 0; k < 3; k++) {
        uint8_t raw[32], h[16], power[16];
        aesgen_gcm_key key;
        aesgen_aes_key schedule;
        if (!gcm_make_key(&key, raw, key_sizes[k], isa->name))
            continue;
        unsigned bits = key_bits(key_sizes[k]);
        ref_expand_key(raw, key_sizes[k], &schedule);
        check(key.aes.rounds == schedule.rounds
              && memcmp(key.aes.rk, schedule.rk, 16 * (schedule.rounds + 1)) == 0
              && memcmp(key.aes.rk_rows, schedule.rk_rows, sizeof schedule.rk_rows) == 0,
              "%s gcm aes-%u key: the AES schedule and its rows", isa->name, bits);
        gcm_ref_hash_key(raw, key_sizes[k], h);
        memcpy(power, h, 16);
        for (int i = AESGEN_GCM_H_POWERS - 1; i >= 0; i--) {        /* H^1 is last */
            uint8_t reflected[16], want[16];
            gcm_reflect(power, reflected);
            gcm_reflected_div_x(reflected, want);
            check_bytes(key.h_powers[i], want, 16, "%s gcm aes-%u key: h_powers[%d] "
                                     "is H^%d reflected, times x^-1", isa->name, bits, i,
                                     AESGEN_GCM_H_POWERS - i);
            gf128_mul(power, h, power);
        }
        check(all_zero(key.h_pad, sizeof key.h_pad), "%s gcm aes-%u key: 48 zero bytes after "
              "the powers", isa->name, bits);
        if (isa->is_asm && isa->gcm_ghash_fn && isa->gcm_enc_update_fn && isa->gcm_dec_update_fn)
            key_holds_expected_set(isa, &key, "");
    }
}

/* A key keeps the implementation of its init after the selection moves on. */
static void keys_keep_their_isa(void)
{
    uint8_t raw[32], iv[12], aad[20], pt[333], want[333], got[333], want_tag[16], tag[16];
    rng_fill(iv, sizeof iv);
    rng_fill(aad, sizeof aad);
    rng_fill(pt, sizeof pt);
    FOR_EACH_RUNNABLE_ISA(first) {
        FOR_EACH_RUNNABLE_ISA(second) {
            if (first == second || !isa_select(first))
                continue;
            aesgen_gcm_key key;
            if (!gcm_make_key(&key, raw, 32, first->name))
                continue;
            gcm_ref_encrypt(raw, 32, iv, 12, aad, sizeof aad, want, pt, sizeof pt, want_tag);
            if (!isa_select(second))
                continue;
            int rc = aesgen_gcm_encrypt(&key, iv, 12, aad, sizeof aad, got, pt, sizeof pt, tag, 16);
            check(rc == AESGEN_OK && memcmp(got, want, sizeof got) == 0
                  && memcmp(tag, want_tag, 16) == 0,
                  "gcm key from %s used after selecting %s (rc %d)", first->name, second->name, rc);
        }
    }
}

void test_gcm_api(const struct test_config *config)
{
    (void)config;
    check_set_group("gcm-api");
    struct arena arena;
    if (!check(arena_map(&arena), "map pages with PROT_NONE guards"))
        return;
    limit_arena = &arena;
    FOR_EACH_RUNNABLE_ISA(isa) {
        if (!isa_select(isa))
            continue;
        struct fixture f;
        init_errors(isa->name);
        if (!fixture_init(&f, isa->name))
            continue;
        start_errors(&f);
        for (int d = 0; d < 2; d++) {
            sequence_errors(&f, (enum gcm_dir)d);
            after_final(&f, (enum gcm_dir)d);
            text_limit(&f, (enum gcm_dir)d);
        }
        bad_tag_lengths(&f);
        aad_limit(&f);
        wrong_tags(&f);
        finals_wipe(&f);
        context_copies(&f);
        key_only_read(&f);
        key_layout(isa);
    }
    keys_keep_their_isa();
    limit_arena = NULL;
    arena_unmap(&arena);
}

/* ---- threads: one key object, many messages at once --------------------------------- */

enum { THREAD_MESSAGE = 64 * 1024 + 13, THREAD_AAD = 29, THREAD_ROUNDS = 40,
       THREADS_PER_KEY = 3 };

struct gcm_worker {
    pthread_t thread;
    const char *isa;
    const aesgen_gcm_key *key;      /* shared by THREADS_PER_KEY threads */
    enum gcm_dir dir;
    bool oneshot;
    uint8_t iv[16];
    const uint8_t *pt, *aad;
    uint8_t *ct;                    /* this thread's answer (its own IV) */
    uint8_t tag[16];
    uint64_t seed;
    int mismatches;
};

static void *gcm_work(void *arg)
{
    struct gcm_worker *w = arg;
    uint8_t *out = malloc(THREAD_MESSAGE);
    if (!out) {
        w->mismatches = -1;
        return NULL;
    }
    const uint8_t *in = w->dir == GCM_ENCRYPT ? w->pt : w->ct;
    const uint8_t *want = w->dir == GCM_ENCRYPT ? w->ct : w->pt;
    for (int round = 0; round < THREAD_ROUNDS; round++) {
        uint8_t tag[16];
        memcpy(tag, w->tag, 16);
        int rc;
        if (w->oneshot) {
            rc = gcm_api_oneshot(w->dir, w->key, w->iv, 16, w->aad, THREAD_AAD, out, in,
                                 THREAD_MESSAGE, tag, 16);
        } else {
            aesgen_gcm_ctx ctx;
            size_t done = 0;
            rc = aesgen_gcm_start(&ctx, w->key, w->iv, 16);
            rc = rc ? rc : aesgen_gcm_aad(&ctx, w->aad, 10);
            rc = rc ? rc : aesgen_gcm_aad(&ctx, w->aad + 10, THREAD_AAD - 10);
            while (rc == AESGEN_OK && done < THREAD_MESSAGE) {
                size_t n = thread_chunk_len(&w->seed);
                if (n > THREAD_MESSAGE - done)
                    n = THREAD_MESSAGE - done;
                rc = w->dir == GCM_ENCRYPT
                     ? aesgen_gcm_encrypt_update(&ctx, out + done, in + done, n)
                     : aesgen_gcm_decrypt_update(&ctx, out + done, in + done, n);
                done += n;
            }
            if (rc == AESGEN_OK)
                rc = w->dir == GCM_ENCRYPT ? aesgen_gcm_encrypt_final(&ctx, tag, 16)
                                           : aesgen_gcm_decrypt_final(&ctx, tag, 16);
        }
        w->mismatches += rc != AESGEN_OK || memcmp(out, want, THREAD_MESSAGE) != 0
                         || memcmp(tag, w->tag, 16) != 0;
    }
    free(out);
    return NULL;
}

void test_gcm_threads(const struct test_config *config)
{
    (void)config;
    check_set_group("gcm-threads");
    static aesgen_gcm_key keys[ISA_COUNT], copies[ISA_COUNT];
    static struct gcm_worker workers[THREADS_PER_KEY * ISA_COUNT];
    uint8_t raw[32], aad[THREAD_AAD];
    uint8_t *pt = xmalloc(THREAD_MESSAGE);
    rng_fill(raw, sizeof raw);
    rng_fill(aad, sizeof aad);
    rng_fill(pt, THREAD_MESSAGE);
    size_t n = 0;
    FOR_EACH_RUNNABLE_ISA(isa) {
        aesgen_gcm_key *key = &keys[isa - test_isas];
        bool ready = isa_select(isa) && aesgen_gcm_init(key, raw, sizeof raw) == AESGEN_OK;
        copies[isa - test_isas] = *key;
        for (int t = 0; t < THREADS_PER_KEY; t++) {
            struct gcm_worker *w = &workers[n++];
            *w = (struct gcm_worker){ .isa = isa->name, .key = key,
                                      .dir = (enum gcm_dir)(t % 2), .oneshot = t == 2,
                                      .pt = pt, .aad = aad, .ct = xmalloc(THREAD_MESSAGE),
                                      .seed = rng_next(), .mismatches = ready ? 0 : -1 };
            rng_fill(w->iv, sizeof w->iv);      /* each thread its own message */
            gcm_ref_encrypt(raw, sizeof raw, w->iv, 16, aad, THREAD_AAD, w->ct, pt,
                            THREAD_MESSAGE, w->tag);
        }
    }
    bool started[THREADS_PER_KEY * ISA_COUNT];
    for (size_t t = 0; t < n; t++)
        started[t] = workers[t].mismatches == 0
                     && pthread_create(&workers[t].thread, NULL, gcm_work, &workers[t]) == 0;
    for (size_t t = 0; t < n; t++) {
        if (started[t])
            pthread_join(workers[t].thread, NULL);
        check(started[t] && workers[t].mismatches == 0,
              "gcm thread %zu (%s %s%s, key shared with %d other threads): %d of %d messages "
              "differ from the reference", t, workers[t].isa, gcm_dir_name(workers[t].dir),
              workers[t].oneshot ? " one-shot" : " streamed", THREADS_PER_KEY - 1,
              workers[t].mismatches, THREAD_ROUNDS);
        free(workers[t].ct);
    }
    FOR_EACH_RUNNABLE_ISA(isa) {
        size_t i = (size_t)(isa - test_isas);
        check(memcmp(&copies[i], &keys[i], sizeof keys[i]) == 0,
              "gcm %s: the shared key object is unchanged after the threads", isa->name);
    }
    free(pt);
}
