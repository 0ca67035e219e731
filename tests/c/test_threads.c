/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Concurrency: distinct contexts used at the same time from several threads
 * (each thread a different ISA where possible) must not disturb each other.
 * Everything the threads compare against is computed beforehand, because the
 * OpenSSL reference here shares one EVP context.
 *
 * XTS (test_xts_threads): the context is only read after init, so one context
 * per ISA is shared by an encrypting and a decrypting thread at once.
 *
 * First use: the library picks its ISA and variant once per process, at the first call
 * that needs them.  Fresh child processes (--first-use-race) start several threads at
 * once on that first call (CTR and GCM), some with the selection changed at the same
 * moment; every output must be right and the process must settle on the ISA a single
 * thread's first use picks (with a thread selecting: on one of the two).
 */
#define _POSIX_C_SOURCE 200809L    /* pthread_barrier_t under -std=c11 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "child.h"
#include "gcm_harness.h"
#include "harness.h"
#include "isa.h"
#include "tests.h"
#include "xts_harness.h"

enum { THREADS = 6, MESSAGE = 64 * 1024 + 13, ROUNDS = 100 };

struct worker {
    pthread_t thread;
    const char *isa;
    enum mode mode;
    struct stream pristine;        /* initialized by the main thread, copied per round */
    const uint8_t *pt, *want;
    uint64_t seed;
    int mismatches;
};

static void *work(void *arg)
{
    struct worker *w = arg;
    uint8_t *out = malloc(MESSAGE);
    if (!out) {
        w->mismatches = -1;
        return NULL;
    }
    for (int round = 0; round < ROUNDS; round++) {
        struct stream s = w->pristine;            /* contexts are plain data */
        size_t done = 0;
        while (done < MESSAGE) {
            size_t n = thread_chunk_len(&w->seed);
            if (n > MESSAGE - done)
                n = MESSAGE - done;
            if (stream_crypt(&s, out + done, w->pt + done, n) != AESGEN_OK)
                break;
            done += n;
        }
        w->mismatches += done != MESSAGE || memcmp(out, w->want, MESSAGE) != 0;
    }
    free(out);
    return NULL;
}

void test_threads(const struct test_config *config)
{
    (void)config;
    check_set_group("threads");
    const struct test_isa *runnable[ISA_COUNT];
    size_t count = 0;
    FOR_EACH_RUNNABLE_ISA(isa)
        runnable[count++] = isa;
    if (count == 0)
        return;
    uint8_t key[32], iv[16];
    uint8_t *pt = xmalloc(MESSAGE), *want[MODE_COUNT] = { xmalloc(MESSAGE), xmalloc(MESSAGE) };
    rng_fill(key, sizeof key);
    rng_fill(iv, sizeof iv);
    rng_fill(pt, MESSAGE);
    for (int mode = 0; mode < MODE_COUNT; mode++)
        reference((enum mode)mode, key, 32, iv, want[mode], pt, MESSAGE);

    struct worker workers[THREADS];
    for (size_t t = 0; t < THREADS; t++) {
        struct worker *w = &workers[t];
        /* Round-robin over the ISAs, widest first, both modes. */
        const struct test_isa *isa = runnable[count - 1 - t % count];
        w->isa = isa->name;
        w->mode = (enum mode)(t % MODE_COUNT);
        w->pt = pt;
        w->want = want[w->mode];
        w->seed = rng_next();
        w->mismatches = 0;
        if (!isa_select(isa) || stream_init(&w->pristine, w->mode, key, 32, iv) != AESGEN_OK)
            w->mismatches = -1;
    }
    bool started[THREADS];
    for (size_t t = 0; t < THREADS; t++)
        started[t] = workers[t].mismatches == 0
                     && pthread_create(&workers[t].thread, NULL, work, &workers[t]) == 0;
    for (size_t t = 0; t < THREADS; t++) {
        if (started[t])
            pthread_join(workers[t].thread, NULL);
        check(started[t] && workers[t].mismatches == 0,
              "thread %zu (%s %s): %d of %d streamed messages differ from OpenSSL", t,
              workers[t].isa, mode_name(workers[t].mode), workers[t].mismatches, ROUNDS);
    }
    free(pt);
    free(want[0]);
    free(want[1]);
}

/* ---- XTS: one shared context per ISA ------------------------------------------ */

enum { XTS_SECTOR = 520, XTS_SECTORS = 126, XTS_MESSAGE = XTS_SECTOR * XTS_SECTORS,
       XTS_ROUNDS = 30, XTS_FIRST_SECTOR = 1000 };

struct xts_worker {
    pthread_t thread;
    const char *isa;
    const aesgen_xts_ctx *ctx;     /* shared with the other direction's thread */
    enum xts_dir dir;
    const uint8_t *in, *want;
    int mismatches;
};

static void *xts_work(void *arg)
{
    struct xts_worker *w = arg;
    uint8_t *out = malloc(XTS_MESSAGE);
    if (!out) {
        w->mismatches = -1;
        return NULL;
    }
    for (int round = 0; round < XTS_ROUNDS; round++) {
        int rc = xts_api_sectors(w->ctx, w->dir, out, w->in, XTS_MESSAGE, XTS_SECTOR,
                                 XTS_FIRST_SECTOR);
        w->mismatches += rc != AESGEN_OK || memcmp(out, w->want, XTS_MESSAGE) != 0;
    }
    free(out);
    return NULL;
}

void test_xts_threads(const struct test_config *config)
{
    (void)config;
    check_set_group("xts-threads");
    static aesgen_xts_ctx contexts[ISA_COUNT];
    struct xts_worker workers[2 * ISA_COUNT];
    uint8_t key[64], tweak[16];
    uint8_t *in = xmalloc(XTS_MESSAGE), *want[2] = { xmalloc(XTS_MESSAGE), xmalloc(XTS_MESSAGE) };
    xts_random_key(key, sizeof key);
    rng_fill(in, XTS_MESSAGE);
    for (size_t i = 0; i < XTS_SECTORS; i++) {
        xts_sector_tweak(XTS_FIRST_SECTOR, i, tweak);
        for (int d = 0; d < 2; d++)
            xts_reference((enum xts_dir)d, key, sizeof key, tweak, want[d] + i * XTS_SECTOR,
                          in + i * XTS_SECTOR, XTS_SECTOR);
    }
    size_t n = 0;
    FOR_EACH_RUNNABLE_ISA(isa) {
        aesgen_xts_ctx *ctx = &contexts[isa - test_isas];
        bool ready = isa_select(isa) && aesgen_xts_init(ctx, key, sizeof key) == AESGEN_OK;
        for (int d = 0; d < 2; d++)
            workers[n++] = (struct xts_worker){ .isa = isa->name, .ctx = ctx,
                                                .dir = (enum xts_dir)d, .in = in,
                                                .want = want[d], .mismatches = ready ? 0 : -1 };
    }
    bool started[2 * ISA_COUNT];
    for (size_t t = 0; t < n; t++)
        started[t] = workers[t].mismatches == 0
                     && pthread_create(&workers[t].thread, NULL, xts_work, &workers[t]) == 0;
    for (size_t t = 0; t < n; t++) {
        if (started[t])
            pthread_join(workers[t].thread, NULL);
        check(started[t] && workers[t].mismatches == 0,
              "xts thread %zu (%s %s, context shared with the other direction): %d of %d "
              "rounds of %d sectors differ from the reference", t, workers[t].isa,
              xts_dir_name(workers[t].dir), workers[t].mismatches, XTS_ROUNDS, XTS_SECTORS);
    }
    free(in);
    free(want[0]);
    free(want[1]);
}

/* ---- First use from several threads at once, in a fresh process ---------------- */

enum { RACERS = 8, RACE_TEXT = 1000, RACE_GCM_TEXT = 300, RACE_CHILDREN = 12 };

struct racer {
    pthread_t thread;
    pthread_barrier_t *start;
    const uint8_t *key, *iv, *pt;
    const char *select;            /* a selection made at the same moment, or NULL */
    uint8_t ctr_out[RACE_TEXT], gcm_out[RACE_GCM_TEXT], tag[16];
    int rc;
};

static void *race(void *arg)
{
    struct racer *r = arg;
    aesgen_ctr_ctx ctr;
    aesgen_gcm_key gk;
    pthread_barrier_wait(r->start);
    if (r->select != NULL)
        aesgen_select_isa(r->select);
    r->rc = aesgen_ctr_init(&ctr, r->key, 32, r->iv);
    if (r->rc == AESGEN_OK)
        r->rc = aesgen_ctr_crypt(&ctr, r->ctr_out, r->pt, RACE_TEXT);
    if (r->rc == AESGEN_OK)
        r->rc = aesgen_gcm_init(&gk, r->key, 16);
    if (r->rc == AESGEN_OK)
        r->rc = aesgen_gcm_encrypt(&gk, r->iv, 12, r->key, 13, r->gcm_out, r->pt,
                                   RACE_GCM_TEXT, r->tag, 16);
    return NULL;
}

/* The child: "first-use ok=1 isa=NAME" on its first line (ok=0: a wrong output). */
int threads_first_use_child(void)
{
    static uint8_t key[32], iv[16], pt[RACE_TEXT], want[RACE_TEXT], gcm_want[RACE_GCM_TEXT];
    static struct racer racers[RACERS];
    uint8_t tag_want[16];
    for (size_t i = 0; i < sizeof pt; i++)
        pt[i] = (uint8_t)(i * 7 + 3);
    for (size_t i = 0; i < sizeof key; i++)
        key[i] = (uint8_t)(i * 13 + 1);
    memcpy(iv, key + 8, sizeof iv);
    iv[15] = 0xf0;                  /* the counter carries out of its last byte */
    const char *select = getenv("AESGEN_TEST_RACE_SELECT");
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, RACERS);
    for (int t = 0; t < RACERS; t++) {
        racers[t] = (struct racer){ .start = &start, .key = key, .iv = iv, .pt = pt,
                                    .select = t == RACERS - 1 ? select : NULL };
        pthread_create(&racers[t].thread, NULL, race, &racers[t]);
    }
    for (int t = 0; t < RACERS; t++)
        pthread_join(racers[t].thread, NULL);
    pthread_barrier_destroy(&start);
    /* the references after the threads (OpenSSL's context here is one) */
    reference(MODE_CTR, key, 32, iv, want, pt, RACE_TEXT);
    gcm_ref_encrypt(key, 16, iv, 12, key, 13, gcm_want, pt, RACE_GCM_TEXT, tag_want);
    int ok = 1;
    for (int t = 0; t < RACERS; t++)
        ok &= racers[t].rc == AESGEN_OK && memcmp(racers[t].ctr_out, want, RACE_TEXT) == 0
              && memcmp(racers[t].gcm_out, gcm_want, RACE_GCM_TEXT) == 0
              && memcmp(racers[t].tag, tag_want, 16) == 0;
    printf("first-use ok=%d isa=%s\n", ok, aesgen_isa_name());
    return 0;
}

void test_first_use_threads(const struct test_config *config)
{
    check_set_group("first-use-threads");
    /* without a selection; with AESGEN_ISA set and another ISA selected by one racer */
    static const struct child_var plain[] = { { "AESGEN_ISA", NULL },
                                              { "AESGEN_VARIANT", NULL },
                                              { "AESGEN_TEST_RACE_SELECT", NULL } };
    static const struct child_var selecting[] = { { "AESGEN_ISA", "aesni_avx" },
                                                  { "AESGEN_VARIANT", NULL },
                                                  { "AESGEN_TEST_RACE_SELECT", "generic" } };
    const bool aesni = aesgen_isa_supported("aesni_avx");
    /* the ISA one thread's first use picks in a fresh process (test_api.c's child) */
    char single[256] = "", want[160];
    bool ran_single = run_child_with(config->self_path, "--print-isa", plain, 3, single,
                                     sizeof single);
    const char *end = strchr(single, ' ');
    snprintf(want, sizeof want, "%.*s", end ? (int)(end - single) : 0, single);
    check(ran_single && strncmp(want, "isa=", 4) == 0,
          "a single thread's first use reports its ISA: \"%s\"", single);
    for (int run = 0; run < RACE_CHILDREN; run++) {
        const bool with_select = aesni && run % 2;
        char report[256];
        bool ran = run_child_with(config->self_path, "--first-use-race",
                                  with_select ? selecting : plain, 3, report, sizeof report);
        const char *isa = strstr(report, "isa=");
        bool settled = isa != NULL && (with_select ? strcmp(isa, "isa=aesni_avx") == 0 ||
                                                     strcmp(isa, "isa=generic") == 0
                                                   : strcmp(isa, want) == 0);
        check(ran && strncmp(report, "first-use ok=1 ", 15) == 0 && settled,
              "%d threads at the first call of a fresh process%s: child reports \"%s\"",
              RACERS, with_select ? " (AESGEN_ISA=aesni_avx, one thread selecting generic)" : "",
              report);
    }
}
