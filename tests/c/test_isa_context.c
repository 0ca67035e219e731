/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Per-context ISA (aesgen_*_init_isa): every init call takes an ISA for that
 * context alone.  Checked here for CTR, XCTR, XTS, GCM, RFC 3686 and the GCM ESP key:
 *  - the context gets that ISA's functions, and the process-wide selection is
 *    neither changed nor consulted;
 *  - two contexts of different ISAs used alternately, and from two threads at once,
 *    give the same bytes as each other and as OpenSSL;
 *  - an unknown name is AESGEN_EINVAL and an ISA the CPU lacks AESGEN_ENOTSUP, with
 *    nothing written.  "Lacks" is provoked with the library's test mask of CPU
 *    features (internal.h), since this CPU may have every ISA; ISAs the tests' own
 *    CPUID check finds missing are also checked unmasked.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gcm_harness.h"
#include "harness.h"
#include "internal.h"
#include "isa.h"
#include "reference.h"
#include "tests.h"
#include "xts_harness.h"

static const aesgen_isa_impl *impl_named(const char *name)
{
    for (int id = 0; id < AESGEN_ISA_COUNT; id++)
        if (strcmp(aesgen_isa_impl_get((aesgen_isa_id)id)->name, name) == 0)
            return aesgen_isa_impl_get((aesgen_isa_id)id);
    return NULL;
}

/* One init call of each kind on pattern-filled memory: its result, and whether the
 * memory is still the pattern. */
enum ctx_kind { K_CTR, K_XCTR, K_XTS, K_GCM, K_RFC3686, K_GCM_ESP, K_COUNT };
static const char *const kind_names[K_COUNT] = { "ctr", "xctr", "xts", "gcm", "rfc3686",
                                                 "gcm-esp" };

union any_ctx {
    aesgen_ctr_ctx ctr;
    aesgen_xctr_ctx xctr;
    aesgen_xts_ctx xts;
    aesgen_gcm_key gcm;
    aesgen_rfc3686_key rfc3686;
    aesgen_gcm_esp_key esp;
};

static int init_kind(enum ctx_kind kind, union any_ctx *c, const char *isa)
{
    static const uint8_t key[64] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                     17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30,
                                     31, 32, 33, 34, 35, 36 };
    static const uint8_t iv[16] = { 0xf0, 0xf1 };
    switch (kind) {
    case K_CTR:     return aesgen_ctr_init_isa(&c->ctr, key, 32, iv, isa);
    case K_XCTR:    return aesgen_xctr_init_isa(&c->xctr, key, 32, iv, isa);
    case K_XTS:     return aesgen_xts_init_isa(&c->xts, key, 64, isa);
    case K_GCM:     return aesgen_gcm_init_isa(&c->gcm, key, 32, isa);
    case K_RFC3686: return aesgen_rfc3686_init_isa(&c->rfc3686, key, 36, isa);
    default:        return aesgen_gcm_esp_init_isa(&c->esp, key, 36, isa);
    }
}

/* The function of impl a context takes: the current variant's (isa.c), else impl's own. */
#define ON_VARIANT(impl, member, own) \
    ((impl)->variants[aesgen_variant_current()].member ? (impl)->variants[aesgen_variant_current()].member \
                                                       : (impl)->own)

/* A context of an ISA chosen by "auto" may hold a length plan's function (isa.c): the one
 * a long call takes is the ISA's. */
static aesgen_mode_fns beyond_plans(aesgen_mode_fns f)
{
    aesgen_mode_fns picked;
    return aesgen_length_plan_pick(&f, (size_t)1 << 20, &picked) ? picked : f;
}

/* A GCM key of that ISA holds its GHASH set: the variant's, else its own (through a
 * streaming length plan's dispatcher when "auto" chose the ISA: its long calls'). */
static bool gcm_key_holds(const aesgen_gcm_key *key, const aesgen_isa_impl *impl)
{
    aesgen_mode_fns f = { 0 };
    f.gcm.ghash = key->ghash;
    f.gcm.enc_update = key->enc_update;
    return beyond_plans(f).gcm.ghash == ON_VARIANT(impl, gcm.ghash, gcm_ghash) &&
           key->encrypt_block == impl->encrypt_block;
}

/* The function the context holds is the named ISA's. */
static bool holds_impl(enum ctx_kind kind, const union any_ctx *c, const aesgen_isa_impl *impl)
{
    aesgen_mode_fns f = { 0 };
    switch (kind) {
    case K_CTR:     f.ctr = c->ctr.crypt;
                    return beyond_plans(f).ctr == ON_VARIANT(impl, ctr, ctr);
    case K_XCTR:    f.xctr = c->xctr.crypt;
                    return beyond_plans(f).xctr == ON_VARIANT(impl, xctr, xctr);
    case K_XTS:     f.xts_encrypt = c->xts.encrypt;
                    return beyond_plans(f).xts_encrypt ==
                           (impl->xts_encrypt ? ON_VARIANT(impl, xts_encrypt, xts_encrypt)
                                              : aesgen_xts_encrypt_generic);
    case K_GCM:     return gcm_key_holds(&c->gcm, impl);
    case K_RFC3686: f.ctr = c->rfc3686.crypt;
                    return beyond_plans(f).ctr == ON_VARIANT(impl, ctr, ctr);
    default:        return gcm_key_holds(&c->esp.gcm, impl);
    }
}

static void check_refused(enum ctx_kind kind, const char *isa, int want, const char *why)
{
    union any_ctx c;
    fill_pattern(&c, sizeof c);
    int rc = init_kind(kind, &c, isa);
    check(rc == want && still_pattern(&c, sizeof c), "%s init_isa(\"%s\") %s: %s (got %d), "
          "nothing written", kind_names[kind], isa ? isa : "(null)", why,
          want == AESGEN_EINVAL ? "EINVAL" : "ENOTSUP", rc);
}

/* Each runnable ISA per context; the process selection stays where it was. */
static void contexts_get_their_isa(void)
{
    const char *before = aesgen_isa_name();
    FOR_EACH_RUNNABLE_ISA(isa) {
        const aesgen_isa_impl *impl = impl_named(isa->name);
        for (int k = 0; k < K_COUNT; k++) {
            union any_ctx c;
            int rc = init_kind((enum ctx_kind)k, &c, isa->name);
            check(rc == AESGEN_OK && impl && holds_impl((enum ctx_kind)k, &c, impl),
                  "%s init_isa(\"%s\") gives that ISA's functions (rc %d)", kind_names[k],
                  isa->name, rc);
        }
        check(strcmp(aesgen_isa_name(), before) == 0,
              "init_isa(\"%s\") leaves the process selection at %s (now %s)", isa->name, before,
              aesgen_isa_name());
    }
    /* NULL: the process selection; "auto": the best here, as aesgen_select_isa says. */
    const aesgen_isa_impl *current = impl_named(aesgen_isa_name());
    for (int k = 0; k < K_COUNT; k++) {
        union any_ctx c;
        check(init_kind((enum ctx_kind)k, &c, NULL) == AESGEN_OK &&
              holds_impl((enum ctx_kind)k, &c, current),
              "%s init_isa(NULL) takes the process selection %s", kind_names[k], current->name);
    }
}

static void bad_names(void)
{
    static const char *const names[] = { "", "avx10", "AVX10_512", "avx10_512 ", "sse2",
                                         "generic\n" };
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++)
        for (int k = 0; k < K_COUNT; k++)
            check_refused((enum ctx_kind)k, names[n], AESGEN_EINVAL, "unknown name");
}

/* ISAs this CPU really lacks, and (masked) the ones it has. */
static void unusable_isas(void)
{
    for (size_t i = 0; i < ISA_COUNT; i++) {
        const char *missing = NULL;
        if (!cpu_can_run(test_isas[i].name, &missing))
            for (int k = 0; k < K_COUNT; k++)
                check_refused((enum ctx_kind)k, test_isas[i].name, AESGEN_ENOTSUP,
                              "on a CPU without it");
    }
    static const struct { unsigned drop; const char *const isas[4]; } masks[] = {
        { AESGEN_CPU_AVX512F, { "avx10_256", "avx10_512" } },
        { AESGEN_CPU_VAES, { "vaes_avx2", "avx10_256", "avx10_512" } },
        { AESGEN_CPU_AESNI, { "aesni_avx", "vaes_avx2", "avx10_256", "avx10_512" } },
    };
    for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++) {
        aesgen_cpu_test_mask(AESGEN_CPU_KEEP_ALL & ~masks[m].drop);
        for (size_t i = 0; i < 4 && masks[m].isas[i]; i++)
            for (int k = 0; k < K_COUNT; k++)
                check_refused((enum ctx_kind)k, masks[m].isas[i], AESGEN_ENOTSUP,
                              "with the CPU feature masked");
        /* what is left still works, and "auto" falls back to it */
        union any_ctx c;
        check(init_kind(K_CTR, &c, "generic") == AESGEN_OK, "generic under a feature mask");
        aesgen_cpu_test_mask(AESGEN_CPU_KEEP_ALL);
    }
    /* Without AES-NI "auto" takes vperm_ssse3 (where the CPU has SSSE3), without SSSE3
     * too, generic; vperm_ssse3 itself needs nothing but SSSE3. */
    const char *lacks = NULL;
    if (cpu_can_run("vperm_ssse3", &lacks)) {
        aesgen_cpu_test_mask(AESGEN_CPU_KEEP_ALL & ~AESGEN_CPU_AESNI);
        for (int k = 0; k < K_COUNT; k++) {
            union any_ctx c;
            check(init_kind((enum ctx_kind)k, &c, "auto") == AESGEN_OK &&
                  holds_impl((enum ctx_kind)k, &c, impl_named("vperm_ssse3")),
                  "%s init_isa(\"auto\") without AES-NI is vperm_ssse3", kind_names[k]);
        }
        aesgen_cpu_test_mask(AESGEN_CPU_SSSE3);
        for (int k = 0; k < K_COUNT; k++) {
            union any_ctx c;
            check(init_kind((enum ctx_kind)k, &c, "vperm_ssse3") == AESGEN_OK,
                  "%s init_isa(\"vperm_ssse3\") with SSSE3 alone", kind_names[k]);
        }
        aesgen_cpu_test_mask(AESGEN_CPU_KEEP_ALL & ~(AESGEN_CPU_AESNI | AESGEN_CPU_SSSE3));
        for (int k = 0; k < K_COUNT; k++) {
            union any_ctx c;
            check(init_kind((enum ctx_kind)k, &c, "auto") == AESGEN_OK &&
                  holds_impl((enum ctx_kind)k, &c, impl_named("generic")),
                  "%s init_isa(\"auto\") without AES-NI and SSSE3 is generic", kind_names[k]);
            check_refused((enum ctx_kind)k, "vperm_ssse3", AESGEN_ENOTSUP, "without SSSE3");
        }
    }
    aesgen_cpu_test_mask(0);
    for (int k = 0; k < K_COUNT; k++) {
        union any_ctx c;
        check(init_kind((enum ctx_kind)k, &c, "auto") == AESGEN_OK &&
              holds_impl((enum ctx_kind)k, &c, impl_named("generic")),
              "%s init_isa(\"auto\") with no CPU features is generic", kind_names[k]);
    }
    aesgen_cpu_test_mask(AESGEN_CPU_KEEP_ALL);
}

/* ---- Two ISAs alternately ------------------------------------------------- */

enum { ALT_LEN = 3000 };

static void alternate_ctr(const char *a, const char *b, const uint8_t *pt)
{
    uint8_t key[32], iv[16], want[ALT_LEN], out_a[ALT_LEN], out_b[ALT_LEN];
    rng_fill(key, sizeof key);
    rng_fill(iv, sizeof iv);
    iv[15] = 0xf0;   /* the low byte carries a few blocks in */
    ref_ctr(key, sizeof key, iv, want, pt, ALT_LEN);
    aesgen_ctr_ctx ca, cb;
    aesgen_xctr_ctx xa, xb;
    bool ok = aesgen_ctr_init_isa(&ca, key, 32, iv, a) == AESGEN_OK &&
              aesgen_ctr_init_isa(&cb, key, 32, iv, b) == AESGEN_OK &&
              aesgen_xctr_init_isa(&xa, key, 32, iv, a) == AESGEN_OK &&
              aesgen_xctr_init_isa(&xb, key, 32, iv, b) == AESGEN_OK;
    size_t done = 0;
    while (ok && done < ALT_LEN) {
        size_t n = rng_below(200);
        if (n > ALT_LEN - done)
            n = ALT_LEN - done;
        ok = aesgen_ctr_crypt(&ca, out_a + done, pt + done, n) == AESGEN_OK &&
             aesgen_ctr_crypt(&cb, out_b + done, pt + done, n) == AESGEN_OK;
        done += n;
    }
    check(ok && memcmp(out_a, want, ALT_LEN) == 0 && memcmp(out_b, want, ALT_LEN) == 0,
          "ctr contexts %s and %s used alternately match OpenSSL", a, b);
    ref_xctr(key, sizeof key, iv, 1, want, pt, ALT_LEN);
    for (done = 0; ok && done < ALT_LEN;) {
        size_t n = rng_below(200);
        if (n > ALT_LEN - done)
            n = ALT_LEN - done;
        ok = aesgen_xctr_crypt(&xa, out_a + done, pt + done, n) == AESGEN_OK &&
             aesgen_xctr_crypt(&xb, out_b + done, pt + done, n) == AESGEN_OK;
        done += n;
    }
    check(ok && memcmp(out_a, want, ALT_LEN) == 0 && memcmp(out_b, want, ALT_LEN) == 0,
          "xctr contexts %s and %s used alternately match the reference", a, b);
}

static void alternate_xts_gcm(const char *a, const char *b, const uint8_t *pt)
{
    uint8_t key[64], tweak[16], got_a[600], got_b[600], want[600];
    xts_random_key(key, sizeof key);
    aesgen_xts_ctx xa, xb;
    bool ok = aesgen_xts_init_isa(&xa, key, 64, a) == AESGEN_OK &&
              aesgen_xts_init_isa(&xb, key, 64, b) == AESGEN_OK;
    for (int unit = 0; ok && unit < 8; unit++) {
        size_t len = 16 + rng_below(580);
        rng_fill(tweak, sizeof tweak);
        ref_xts_evp(1, key, 64, tweak, want, pt, len);
        ok = aesgen_xts_encrypt(&xa, got_a, pt, len, tweak) == AESGEN_OK &&
             aesgen_xts_encrypt(&xb, got_b, pt, len, tweak) == AESGEN_OK &&
             memcmp(got_a, want, len) == 0 && memcmp(got_b, want, len) == 0;
    }
    check(ok, "xts contexts %s and %s used alternately match OpenSSL", a, b);

    uint8_t iv[12], aad[40], tag_a[16], tag_b[16], want_tag[16];
    aesgen_gcm_key ga, gb;
    ok = aesgen_gcm_init_isa(&ga, key, 32, a) == AESGEN_OK &&
         aesgen_gcm_init_isa(&gb, key, 32, b) == AESGEN_OK;
    for (int msg = 0; ok && msg < 8; msg++) {
        size_t len = rng_below(600), aad_len = rng_below(sizeof aad);
        rng_fill(iv, sizeof iv);
        rng_fill(aad, sizeof aad);
        gcm_ref_evp(GCM_ENCRYPT, key, 32, iv, 12, aad, aad_len, want, pt, len, want_tag, 16);
        ok = aesgen_gcm_encrypt(&ga, iv, 12, aad, aad_len, got_a, pt, len, tag_a, 16) == 0 &&
             aesgen_gcm_encrypt(&gb, iv, 12, aad, aad_len, got_b, pt, len, tag_b, 16) == 0 &&
             memcmp(got_a, want, len) == 0 && memcmp(got_b, want, len) == 0 &&
             memcmp(tag_a, want_tag, 16) == 0 && memcmp(tag_b, want_tag, 16) == 0;
    }
    check(ok, "gcm keys %s and %s used alternately match OpenSSL", a, b);
}

/* ---- Two ISAs from two threads ------------------------------------------- */

enum { THREAD_LEN = 40000, THREAD_ROUNDS = 30 };

struct isa_worker {
    pthread_t thread;
    aesgen_ctr_ctx ctr;            /* pristine, copied per round */
    aesgen_gcm_key gcm;
    const uint8_t *pt, *want_ctr, *want_gcm, *iv;
    const uint8_t *want_tag;
    uint64_t seed;
    int mismatches;
};

static void *isa_work(void *arg)
{
    struct isa_worker *w = arg;
    uint8_t *out = malloc(THREAD_LEN);
    if (out == NULL) {
        w->mismatches = -1;
        return NULL;
    }
    for (int round = 0; round < THREAD_ROUNDS; round++) {
        aesgen_ctr_ctx c = w->ctr;
        size_t done = 0;
        while (done < THREAD_LEN) {
            size_t n = thread_chunk_len(&w->seed);
            if (n > THREAD_LEN - done)
                n = THREAD_LEN - done;
            if (aesgen_ctr_crypt(&c, out + done, w->pt + done, n) != AESGEN_OK)
                break;
            done += n;
        }
        w->mismatches += done != THREAD_LEN || memcmp(out, w->want_ctr, THREAD_LEN) != 0;
        uint8_t tag[16];
        int rc = aesgen_gcm_encrypt(&w->gcm, w->iv, 12, NULL, 0, out, w->pt, THREAD_LEN, tag, 16);
        w->mismatches += rc != AESGEN_OK || memcmp(out, w->want_gcm, THREAD_LEN) != 0 ||
                         memcmp(tag, w->want_tag, 16) != 0;
    }
    free(out);
    return NULL;
}

static void two_threads(const char *a, const char *b)
{
    uint8_t key[32], iv[16], tag[16];
    uint8_t *pt = xmalloc(THREAD_LEN), *want_ctr = xmalloc(THREAD_LEN),
            *want_gcm = xmalloc(THREAD_LEN);
    rng_fill(key, sizeof key);
    rng_fill(iv, sizeof iv);
    rng_fill(pt, THREAD_LEN);
    ref_ctr(key, sizeof key, iv, want_ctr, pt, THREAD_LEN);
    gcm_ref_evp(GCM_ENCRYPT, key, 32, iv, 12, NULL, 0, want_gcm, pt, THREAD_LEN, tag, 16);
    struct isa_worker w[2];
    const char *names[2] = { a, b };
    bool ok = true;
    for (int i = 0; i < 2; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].pt = pt;
        w[i].want_ctr = want_ctr;
        w[i].want_gcm = want_gcm;
        w[i].want_tag = tag;
        w[i].iv = iv;
        w[i].seed = rng_next() | 1;
        ok = ok && aesgen_ctr_init_isa(&w[i].ctr, key, 32, iv, names[i]) == AESGEN_OK &&
             aesgen_gcm_init_isa(&w[i].gcm, key, 32, names[i]) == AESGEN_OK;
    }
    int started = 0;
    for (int i = 0; ok && i < 2; i++)
        started += pthread_create(&w[i].thread, NULL, isa_work, &w[i]) == 0;
    for (int i = 0; i < started; i++)
        pthread_join(w[i].thread, NULL);
    check(ok && started == 2 && w[0].mismatches == 0 && w[1].mismatches == 0,
          "threads with ctr/gcm contexts of %s and %s at once match OpenSSL (%d, %d mismatches)",
          a, b, w[0].mismatches, w[1].mismatches);
    free(pt);
    free(want_ctr);
    free(want_gcm);
}

void test_isa_context(const struct test_config *config)
{
    (void)config;
    check_set_group("isa-context");
    contexts_get_their_isa();
    bad_names();
    unusable_isas();
    uint8_t *pt = xmalloc(ALT_LEN);
    rng_fill(pt, ALT_LEN);
    FOR_EACH_RUNNABLE_ISA(a) {
        FOR_EACH_RUNNABLE_ISA(b) {
            if (a >= b)
                continue;
            alternate_ctr(a->name, b->name, pt);
            alternate_xts_gcm(a->name, b->name, pt);
        }
    }
    free(pt);
    /* Threads: the widest and the narrowest vector ISA, and each against generic. */
    const struct test_isa *first = NULL, *last = NULL;
    FOR_EACH_RUNNABLE_ISA(isa) {
        if (!isa->is_asm)
            continue;
        if (first == NULL)
            first = isa;
        last = isa;
    }
    if (first != NULL && last != first)
        two_threads(first->name, last->name);
    if (last != NULL)
        two_threads("generic", last->name);
}
