/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Concurrency: distinct contexts used at the same time from several threads
 * (each thread a different ISA where possible) must not disturb each other.
 * Everything the threads compare against is computed beforehand, because the
 * OpenSSL reference here shares one EVP context.
 *
 * XTS (test_xts_threads): the context is only read after init, so one context
 * per ISA is shared by an encrypting and a decrypting thread at once.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
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
