/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * API tests: argument checking (bad key lengths, NULL pointers) with contexts
 * left untouched on error, len == 0, ISA selection and its error codes,
 * aesgen_strerror, aesgen_wipe, the counter modes' key schedules (rows included),
 * contexts keeping their ISA, the end of an
 * XCTR stream, the counter modes' stateless one-shots (aesgen_ctr_crypt_iv,
 * aesgen_xctr_crypt_iv), and the AESGEN_ISA environment variable (in child processes,
 * since it is read only at first use).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "child.h"
#include "harness.h"
#include "internal.h"   /* the generic functions an ISA lacking a mode uses: white box */
#include "isa.h"
#include "reference.h"
#include "tests.h"


static void strerror_never_null(void)
{
    static const int codes[] = { AESGEN_OK, AESGEN_EINVAL, AESGEN_EBADMSG, AESGEN_ENOTSUP,
                                 -1, 1, 12345, INT_MIN, INT_MAX };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *s = aesgen_strerror(codes[i]);
        check(s != NULL && s[0] != '\0', "aesgen_strerror(%d) is a non-empty string", codes[i]);
    }
    check(strcmp(aesgen_strerror(AESGEN_EINVAL), aesgen_strerror(AESGEN_ENOTSUP)) != 0,
          "aesgen_strerror tells EINVAL and ENOTSUP apart");
}

static void bad_key_lengths(enum mode mode)
{
    static const size_t bad[] = { 0, 1, 8, 15, 17, 20, 23, 25, 31, 33, 40, 48, 64, SIZE_MAX };
    uint8_t key[64] = { 1 }, iv[16] = { 2 };
    struct stream s;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fill_pattern(&s.ctx, sizeof s.ctx);
        int rc = stream_init(&s, mode, key, bad[i], iv);
        check_int(rc, AESGEN_EINVAL, "%s init with key_len %zu", mode_name(mode), bad[i]);
        check(still_pattern(&s.ctx, sizeof s.ctx), "%s init with key_len %zu leaves ctx untouched",
              mode_name(mode), bad[i]);
    }
    for (size_t k = 0; k < 3; k++)
        check_int(stream_init(&s, mode, key, key_sizes[k], iv), AESGEN_OK,
                  "%s init with key_len %zu", mode_name(mode), key_sizes[k]);
}

static void null_pointers(enum mode mode)
{
    uint8_t key[32] = { 3 }, iv[16] = { 4 }, buf[32] = { 0 };
    struct stream s;
    const char *m = mode_name(mode);
    fill_pattern(&s.ctx, sizeof s.ctx);
    check_int(stream_init(&s, mode, NULL, 16, iv), AESGEN_EINVAL, "%s init with NULL key", m);
    check_int(stream_init(&s, mode, key, 16, NULL), AESGEN_EINVAL, "%s init with NULL iv", m);
    check(still_pattern(&s.ctx, sizeof s.ctx), "%s failed inits leave ctx untouched", m);
    if (mode == MODE_CTR)
        check_int(aesgen_ctr_init(NULL, key, 16, iv), AESGEN_EINVAL, "ctr init with NULL ctx");
    else
        check_int(aesgen_xctr_init(NULL, key, 16, iv), AESGEN_EINVAL, "xctr init with NULL ctx");

    stream_init(&s, mode, key, 16, iv);
    struct stream before;
    memcpy(&before, &s, sizeof s);
    check_int(stream_crypt(&s, NULL, buf, 5), AESGEN_EINVAL, "%s crypt with NULL dst", m);
    check_int(stream_crypt(&s, buf, NULL, 5), AESGEN_EINVAL, "%s crypt with NULL src", m);
    check(memcmp(&before, &s, sizeof s) == 0, "%s failed crypts leave ctx untouched", m);
    if (mode == MODE_CTR)
        check_int(aesgen_ctr_crypt(NULL, buf, buf, 5), AESGEN_EINVAL, "ctr crypt with NULL ctx");
    else
        check_int(aesgen_xctr_crypt(NULL, buf, buf, 5), AESGEN_EINVAL, "xctr crypt with NULL ctx");
}

/* The stateless one-shot of a counter mode, on the stream's context. */
static int crypt_iv(const struct stream *s, const uint8_t iv[16], uint8_t *dst,
                    const uint8_t *src, size_t len)
{
    return s->mode == MODE_CTR ? aesgen_ctr_crypt_iv(&s->ctx.ctr, iv, dst, src, len)
                               : aesgen_xctr_crypt_iv(&s->ctx.xctr, iv, dst, src, len);
}

/* aesgen_ctr_crypt_iv and aesgen_xctr_crypt_iv: argument checks, the context only read,
 * an IV inside the buffers, on every runnable implementation of the mode and key size;
 * CTR also from counters whose low half wraps within the call (split in two). */
static void crypt_iv_contract(enum mode mode)
{
    const char *m = mode_name(mode);
    uint8_t key[32], iv[16], buf[64];
    rng_fill(key, sizeof key);
    rng_fill(iv, sizeof iv);
    struct stream s, unset;
    memset(&unset, 0, sizeof unset);
    unset.mode = mode;
    stream_init(&s, mode, key, 16, iv);
    memset(buf, 0xee, sizeof buf);
    check_int(mode == MODE_CTR ? aesgen_ctr_crypt_iv(NULL, iv, buf, buf, 5)
                               : aesgen_xctr_crypt_iv(NULL, iv, buf, buf, 5),
              AESGEN_EINVAL, "%s crypt_iv: NULL ctx", m);
    check_int(crypt_iv(&s, NULL, buf, buf, 5), AESGEN_EINVAL, "%s crypt_iv: NULL iv", m);
    check_int(crypt_iv(&unset, iv, buf, buf, 5), AESGEN_EINVAL,
              "%s crypt_iv: a context never initialized", m);
    check_int(crypt_iv(&s, iv, NULL, buf, 5), AESGEN_EINVAL, "%s crypt_iv: NULL dst", m);
    check_int(crypt_iv(&s, iv, buf, NULL, 5), AESGEN_EINVAL, "%s crypt_iv: NULL src", m);
    check(all_bytes_are(buf, sizeof buf, 0xee), "%s crypt_iv: refused calls write nothing", m);
    check_int(crypt_iv(&s, iv, NULL, NULL, 0), AESGEN_OK,
              "%s crypt_iv: 0 bytes with NULL buffers", m);

    /* Lengths on both sides of each path: one block, the final groups (and a call from
     * index 1 that fits one: START=table), the groups, the main loop. */
    static const size_t lengths[] = { 1, 15, 16, 17, 63, 64, 65, 127, 128, 200, 255, 256, 257,
                                      320, 447, 448, 449, 511, 512, 513, 1023, 1024, 1025,
                                      1500, 2048, 4100 };
    enum { MAXLEN = 4100, SLACK = 32 };
    uint8_t *pt = xmalloc(MAXLEN), *want = xmalloc(MAXLEN), *got = xmalloc(MAXLEN + 2 * SLACK);
    rng_fill(pt, MAXLEN);
    /* CTR: a random counter, and one whose low half wraps after 6 blocks (and whose high
     * half then wraps too: all 128 bits carry) */
    const size_t starts = mode == MODE_CTR ? 2 : 1;
    FOR_EACH_RUNNABLE_VARIANT(isa, mode == MODE_CTR ? TEST_MODE_ctr : TEST_MODE_xctr) {
        if (!isa_select(isa))
            continue;
        const char *name = isa_label(isa);
        for (size_t run = 0; run < 3 * starts; run++) {     /* key sizes x counter starts */
            size_t key_len = key_sizes[run / starts];
            rng_fill(iv, sizeof iv);
            if (run % starts == 1) {
                memset(iv, 0xff, sizeof iv);
                iv[15] = 0xfa;
            }
            /* a context in the middle of a block of another stream */
            uint8_t other_iv[16], head[21];
            rng_fill(other_iv, sizeof other_iv);
            stream_init(&s, mode, key, key_len, other_iv);
            stream_crypt(&s, head, pt, sizeof head);
            struct stream before;
            memcpy(&before, &s, sizeof s);
            for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
                size_t len = lengths[l];
                reference(mode, key, key_len, iv, want, pt, len);
                memset(got, 0xee, MAXLEN + 2 * SLACK);
                int rc = crypt_iv(&s, iv, got + SLACK, pt, len);
                check(rc == AESGEN_OK && memcmp(got + SLACK, want, len) == 0 &&
                      all_bytes_are(got, SLACK, 0xee) &&
                      all_bytes_are(got + SLACK + len, SLACK, 0xee),
                      "%s %s crypt_iv aes-%u iv ..%02x len=%zu", name, m, key_bits(key_len),
                      iv[15], len);
                /* the IV inside the output (in place), overlapping either end or within */
                const long at[] = { -15, -1, 0, 7, (long)len - 16, (long)len - 1 };
                for (size_t a = 0; a < sizeof at / sizeof at[0]; a++) {
                    if (at[a] < -15 || at[a] > (long)len - 1)
                        continue;
                    uint8_t *out = got + SLACK;
                    memcpy(out, pt, len);
                    memcpy(out + at[a], iv, sizeof iv);
                    uint8_t pt_here[MAXLEN];
                    memcpy(pt_here, out, len);          /* the text the call sees */
                    reference(mode, key, key_len, iv, want, pt_here, len);
                    rc = crypt_iv(&s, out + at[a], out, out, len);
                    check(rc == AESGEN_OK && memcmp(out, want, len) == 0,
                          "%s %s crypt_iv aes-%u iv ..%02x len=%zu in place, iv at dst%+ld",
                          name, m, key_bits(key_len), iv[15], len, at[a]);
                }
            }
            check(memcmp(&before, &s, sizeof s) == 0,
                  "%s %s crypt_iv aes-%u leaves the context as it was", name, m,
                  key_bits(key_len));
            uint8_t rest[30], rest_want[sizeof head + sizeof rest];
            stream_crypt(&s, rest, pt + sizeof head, sizeof rest);
            reference(mode, key, key_len, other_iv, rest_want, pt, sizeof rest_want);
            check_bytes(rest, rest_want + sizeof head, sizeof rest,
                        "%s %s aes-%u: the stream goes on after crypt_iv calls", name, m,
                        key_bits(key_len));
        }
    }
    isa_select_reset();
    free(pt);
    free(want);
    free(got);
}

static void zero_length(enum mode mode)
{
    uint8_t key[32] = { 5 }, iv[16] = { 6 }, buf[16], want[16], pt[16] = { 7 };
    struct stream s;
    const char *m = mode_name(mode);
    stream_init(&s, mode, key, 16, iv);
    struct stream before;
    memcpy(&before, &s, sizeof s);
    memset(buf, 0xee, sizeof buf);
    check_int(stream_crypt(&s, buf, pt, 0), AESGEN_OK, "%s crypt of 0 bytes", m);
    check_int(stream_crypt(&s, NULL, NULL, 0), AESGEN_OK, "%s crypt of 0 bytes, NULL buffers", m);
    check(memcmp(&before, &s, sizeof s) == 0 && buf[0] == 0xee,
          "%s crypt of 0 bytes changes neither ctx nor dst", m);
    /* and the stream still starts at its beginning */
    stream_crypt(&s, buf, pt, 16);
    reference(mode, key, 16, iv, want, pt, 16);
    check_bytes(buf, want, 16, "%s first block after empty calls", m);
}

static void selection_errors(void)
{
    const char *before = aesgen_isa_name();
    check_int(aesgen_select_isa("no_such_isa"), AESGEN_EINVAL, "select unknown name");
    check_int(aesgen_select_isa(""), AESGEN_EINVAL, "select empty name");
    check_int(aesgen_select_isa(NULL), AESGEN_EINVAL, "select NULL name");
    check(strcmp(aesgen_isa_name(), before) == 0, "failed selections leave the selection alone");
    check_int(aesgen_isa_supported("no_such_isa"), 0, "unknown name is not supported");
    check_int(aesgen_isa_supported(NULL), 0, "NULL name is not supported");
    check_int(aesgen_isa_supported("generic"), 1, "generic is supported");
    check_int(aesgen_isa_supported("auto"), 1, "auto is supported");

    size_t unsupported = 0;
    for (size_t i = 0; i < ISA_COUNT; i++) {
        if (aesgen_isa_supported(test_isas[i].name))
            continue;
        unsupported++;
        check_int(aesgen_select_isa(test_isas[i].name), AESGEN_ENOTSUP, "select unusable %s",
                  test_isas[i].name);
        check(strcmp(aesgen_isa_name(), before) == 0, "select unusable %s leaves the selection",
                  test_isas[i].name);
    }
    if (unsupported == 0)
        check_note("note: every ISA is usable here, so AESGEN_ENOTSUP cannot be provoked");
}

/* The name "auto" resolves to, computed from aesgen_isa_supported: the last
 * usable name in the list is the widest. */
static const char *auto_choice(void)
{
    check_int(aesgen_select_isa("auto"), AESGEN_OK, "select auto");
    const char *name = aesgen_isa_name();
    check(name && strcmp(name, "auto") != 0 && aesgen_isa_supported(name) == 1,
          "auto resolves to a usable concrete ISA (%s)", name ? name : "NULL");
    bool some_asm = false;
    for (size_t i = 1; i < ISA_COUNT; i++)
        some_asm |= aesgen_isa_supported(test_isas[i].name) == 1;
    check(!some_asm || (name && strcmp(name, "generic") != 0),
          "auto prefers assembly over the portable code when it can run");
    return name ? name : "?";
}

static void selecting_each_isa(void)
{
    FOR_EACH_RUNNABLE_ISA(isa) {
        if (isa_select(isa))
            check(strcmp(aesgen_isa_name(), isa->name) == 0, "aesgen_isa_name() after selecting %s",
                  isa->name);
    }
}

/* White box: the schedule CTR and XCTR init store, rows included (KEYS=rows reads them),
 * from the tests' own expansion, on every ISA and key size. */
static void counter_mode_schedules(void)
{
    static const size_t key_sizes[] = { 16, 24, 32 };
    FOR_EACH_RUNNABLE_ISA(isa) {
        for (size_t k = 0; k < 3; k++) {
            uint8_t key[32], iv[16];
            aesgen_aes_key want;
            aesgen_ctr_ctx ctr;
            aesgen_xctr_ctx xctr;
            rng_fill(key, sizeof key);
            rng_fill(iv, sizeof iv);
            ref_expand_key(key, key_sizes[k], &want);
            if (aesgen_ctr_init_isa(&ctr, key, key_sizes[k], iv, isa->name) != AESGEN_OK
                || aesgen_xctr_init_isa(&xctr, key, key_sizes[k], iv, isa->name) != AESGEN_OK) {
                check(0, "%s aes-%zu: ctr and xctr init", isa->name, 8 * key_sizes[k]);
                continue;
            }
            check(ctr.key.rounds == want.rounds
                  && memcmp(ctr.key.rk, want.rk, sizeof want.rk) == 0
                  && memcmp(ctr.key.rk_rows, want.rk_rows, sizeof want.rk_rows) == 0,
                  "%s ctr aes-%zu: the context's round keys and rows", isa->name, 8 * key_sizes[k]);
            check(xctr.key.rounds == want.rounds
                  && memcmp(xctr.key.rk, want.rk, sizeof want.rk) == 0
                  && memcmp(xctr.key.rk_rows, want.rk_rows, sizeof want.rk_rows) == 0,
                  "%s xctr aes-%zu: the context's round keys and rows", isa->name, 8 * key_sizes[k]);
        }
    }
}

/* A context keeps the implementation of its init; the selection moves on. */
static void contexts_keep_their_isa(void)
{
    uint8_t key[32], iv[16], pt[100], want[100], got[100];
    rng_fill(key, sizeof key);
    rng_fill(iv, sizeof iv);
    rng_fill(pt, sizeof pt);
    FOR_EACH_RUNNABLE_ISA(first) {
        FOR_EACH_RUNNABLE_ISA(second) {
            if (first == second || !isa_select(first))
                continue;
            aesgen_ctr_ctx ctr;
            aesgen_xctr_ctx xctr;
            aesgen_ctr_init(&ctr, key, 32, iv);
            aesgen_xctr_init(&xctr, key, 32, iv);
            aesgen_ctr_fn *ctr_fn = ctr.crypt;
            if (!isa_select(second))
                continue;
            aesgen_ctr_crypt(&ctr, got, pt, sizeof pt);
            ref_ctr(key, 32, iv, want, pt, sizeof pt);
            check_bytes(got, want, sizeof pt, "ctr ctx from %s used after selecting %s",
                        first->name, second->name);
            aesgen_xctr_crypt(&xctr, got, pt, sizeof pt);
            ref_xctr(key, 32, iv, 1, want, pt, sizeof pt);
            check_bytes(got, want, sizeof pt, "xctr ctx from %s used after selecting %s",
                        first->name, second->name);
            /* White box: the asm ISAs put their generated function in the context (the
             * generic one for a mode they have no file of: vperm_ssse3). */
            aesgen_ctr_fn *want_ctr = first->ctr_fn ? first->ctr_fn : aesgen_ctr_crypt_generic;
            aesgen_xctr_fn *want_xctr = first->xctr_fn ? first->xctr_fn
                                                       : aesgen_xctr_crypt_generic;
            if (first->is_asm)
                check(ctr_fn == want_ctr && ctr.crypt == want_ctr && xctr.crypt == want_xctr,
                      "ctx from %s holds %s's functions after selecting %s", first->name,
                      first->name, second->name);
        }
    }
}

/* White box (the index field is private): an XCTR stream ends after block
 * 2^64 - 1, which exercises the implementations at the top of the index. */
static void xctr_stream_end(void)
{
    uint8_t key[16], iv[16], pt[48], want[48], got[48];
    rng_fill(key, sizeof key);
    rng_fill(iv, sizeof iv);
    rng_fill(pt, sizeof pt);
    FOR_EACH_RUNNABLE_ISA(isa) {
        if (!isa_select(isa))
            continue;
        aesgen_xctr_ctx ctx;
        aesgen_xctr_init(&ctx, key, 16, iv);
        ctx.index = UINT64_MAX - 1;
        ref_xctr(key, 16, iv, UINT64_MAX - 1, want, pt, 32);
        memset(got, 0xee, sizeof got);
        check_int(aesgen_xctr_crypt(&ctx, got, pt, 33), AESGEN_EINVAL,
                  "%s xctr: 3 blocks with 2 left is refused", isa->name);
        check(got[0] == 0xee && got[32] == 0xee, "%s xctr: a refused call writes nothing",
              isa->name);
        check_int(aesgen_xctr_crypt(&ctx, got, pt, 21), AESGEN_OK, "%s xctr: block 2^64-2 and part of the last",
                  isa->name);
        check_int(aesgen_xctr_crypt(&ctx, got + 21, pt + 21, 11), AESGEN_OK,
                  "%s xctr: the rest of block 2^64-1", isa->name);
        check_bytes(got, want, 32, "%s xctr: blocks 2^64-2 and 2^64-1 match the reference",
                    isa->name);
        check_int(aesgen_xctr_crypt(&ctx, got, pt, 1), AESGEN_EINVAL,
                  "%s xctr: nothing after block 2^64-1", isa->name);
        check_int(aesgen_xctr_crypt(&ctx, got, pt, 0), AESGEN_OK,
                  "%s xctr: 0 bytes after the end is fine", isa->name);
    }
}

static void wipe_zeroes(void)
{
    uint8_t buf[77];
    memset(buf, 0xab, sizeof buf);
    aesgen_wipe(buf + 1, 75);
    bool zero = buf[0] == 0xab && buf[76] == 0xab;
    for (size_t i = 1; i < 76; i++)
        zero &= buf[i] == 0;
    check(zero, "aesgen_wipe zeroes exactly the given range");
    aesgen_wipe(NULL, 0);
    check(true, "aesgen_wipe(NULL, 0) returns");
}

/* ---- AESGEN_ISA, in child processes ---------------------------------------- */

/* Child side: report the selection made at first use, and whether the library
 * works with it.  With "late", set AESGEN_ISA only after first use. */
int api_print_isa_child(void)
{
    const char *late = getenv("AESGEN_TEST_LATE_ISA");
    const char *name = aesgen_isa_name();
    if (late) {
        setenv("AESGEN_ISA", late, 1);
        name = aesgen_isa_name();
    }
    uint8_t key[16] = { 1, 2, 3 }, iv[16] = { 4, 5, 6 }, pt[100] = { 7 }, got[100], want[100];
    aesgen_ctr_ctx ctx;
    int ok = aesgen_ctr_init(&ctx, key, 16, iv) == AESGEN_OK
             && aesgen_ctr_crypt(&ctx, got, pt, sizeof pt) == AESGEN_OK;
    ref_ctr(key, 16, iv, want, pt, sizeof pt);
    ok = ok && memcmp(got, want, sizeof pt) == 0;
    printf("isa=%s ok=%d\n", name, ok);
    return 0;
}

/* Runs this binary with --print-isa under AESGEN_ISA=value and AESGEN_TEST_LATE_ISA=late
 * (NULL: unset) and returns its report. */
static bool run_child(const char *self, const char *value, const char *late,
                      char *report, size_t cap)
{
    const struct child_var vars[] = { { "AESGEN_ISA", value },
                                      { "AESGEN_TEST_LATE_ISA", late } };
    return run_child_with(self, "--print-isa", vars, 2, report, cap);
}

static void check_child(const char *self, const char *value, const char *late,
                        const char *expected_isa)
{
    char report[256], want[128];
    bool ran = run_child(self, value, late, report, sizeof report);
    snprintf(want, sizeof want, "isa=%s ok=1", expected_isa);
    check(ran && strcmp(report, want) == 0, "AESGEN_ISA=%s%s%s: child reports \"%s\", want \"%s\"",
          value ? value : "(unset)", late ? ", then set after first use to " : "",
          late ? late : "", report, want);
}

static void environment_variable(const char *self, const char *auto_isa)
{
    check_child(self, NULL, NULL, auto_isa);
    check_child(self, "auto", NULL, auto_isa);
    check_child(self, "no_such_isa", NULL, auto_isa);     /* ignored: auto */
    check_child(self, "", NULL, auto_isa);
    for (size_t i = 0; i < ISA_COUNT; i++) {
        bool usable = aesgen_isa_supported(test_isas[i].name) == 1;
        check_child(self, test_isas[i].name, NULL, usable ? test_isas[i].name : auto_isa);
    }
    /* Read once, at first use: a later change has no effect. */
    check_child(self, NULL, "generic", auto_isa);
}

void test_api(const struct test_config *config)
{
    check_set_group("api");
    strerror_never_null();
    for (int mode = 0; mode < MODE_COUNT; mode++) {
        bad_key_lengths((enum mode)mode);
        null_pointers((enum mode)mode);
        zero_length((enum mode)mode);
    }
    selection_errors();
    const char *auto_isa = auto_choice();
    selecting_each_isa();
    counter_mode_schedules();
    contexts_keep_their_isa();
    xctr_stream_end();
    crypt_iv_contract(MODE_CTR);
    crypt_iv_contract(MODE_XCTR);
    wipe_zeroes();
    environment_variable(config->self_path, auto_isa);
}
