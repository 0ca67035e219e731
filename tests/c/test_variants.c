/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * The "variants" group: which functions a context takes, by microarchitecture and by
 * length (runtime/src/isa.c; the tables come from generator/uarch.py and
 * generator/tuning.json through gen/aesgen_gen.h).
 *  - CPUID signatures -> uarch, on a table written here from the vendors' model
 *    numbers (not from generator/uarch.py);
 *  - aesgen_select_variant / aesgen_variant_name, and AESGEN_VARIANT in a child;
 *  - for every ISA and every uarch name, a new context holds that uarch's variant
 *    functions (gen/aesgen_gen.h's mapping) or the ISA's own;
 *  - the length plans: with "auto" and the plan's uarch, each length takes the class's
 *    ISA (white box: aesgen_length_plan_pick), the outputs match OpenSSL at and around
 *    every class boundary, one-shot and streamed across it; a named ISA keeps its own
 *    functions at every length.
 * The variants' own correctness (known answers, OpenSSL, page edges, ABI thunk) is
 * checked by those groups, which run every variant entry of tests/c/isa.c.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "child.h"
#include "gcm_harness.h"
#include "harness.h"
#include "internal.h"
#include "isa.h"
#include "reference.h"
#include "tests.h"

/* ---- CPUID signature -> uarch ----------------------------------------------------- */

static const char *const uarch_names[AESGEN_UARCH_LIMIT] = {
    [AESGEN_UARCH_DEFAULT] = "default",
#define UARCH_NAME(name, NAME) [AESGEN_UARCH_##NAME] = #name,
    AESGEN_GEN_UARCHES(UARCH_NAME)
#undef UARCH_NAME
    [AESGEN_UARCH_NONE] = "none",
};

static const struct signature {
    const char *vendor;
    unsigned family, model;
    const char *want;
    const char *what;
} signatures[] = {
    { "AuthenticAMD", 0x19, 0x11, "znver4", "EPYC 9004 Genoa (this session's machine)" },
    { "AuthenticAMD", 0x19, 0x18, "znver4", "Threadripper 7000 Storm Peak" },
    { "AuthenticAMD", 0x19, 0x61, "znver4", "Ryzen 7000 Raphael" },
    { "AuthenticAMD", 0x19, 0x74, "znver4", "Ryzen 7040 Phoenix" },
    { "AuthenticAMD", 0x19, 0xa0, "znver4", "EPYC 9004 Bergamo" },
    { "AuthenticAMD", 0x19, 0x01, "default", "EPYC 7003 Milan (Zen 3)" },
    { "AuthenticAMD", 0x19, 0x21, "default", "Ryzen 5000 Vermeer (Zen 3)" },
    { "AuthenticAMD", 0x19, 0x50, "default", "Ryzen 5000 Cezanne (Zen 3)" },
    { "AuthenticAMD", 0x1a, 0x02, "znver5", "EPYC 9005 Turin" },
    { "AuthenticAMD", 0x1a, 0x11, "znver5", "EPYC 9005 Turin dense" },
    { "AuthenticAMD", 0x1a, 0x24, "znver5", "Ryzen AI 300 Strix Point" },
    { "AuthenticAMD", 0x1a, 0x44, "znver5", "Ryzen 9000 Granite Ridge" },
    { "AuthenticAMD", 0x17, 0x01, "znver1", "EPYC 7001 Naples, Ryzen 1000 (Zen)" },
    { "AuthenticAMD", 0x17, 0x11, "znver1", "Ryzen 2000G Raven Ridge (Zen)" },
    { "AuthenticAMD", 0x17, 0x20, "znver1", "Ryzen 3000 Dali (Zen)" },
    { "AuthenticAMD", 0x17, 0x08, "default", "Ryzen 2000 Pinnacle Ridge (Zen+)" },
    { "AuthenticAMD", 0x17, 0x18, "default", "Ryzen 3000G Picasso (Zen+)" },
    { "AuthenticAMD", 0x17, 0x31, "default", "EPYC 7002 Rome (Zen 2)" },
    { "GenuineIntel", 6, 0x8f, "sapphirerapids", "Xeon Sapphire Rapids" },
    { "GenuineIntel", 6, 0xcf, "sapphirerapids", "Xeon Emerald Rapids" },
    { "GenuineIntel", 6, 0x55, "default", "Xeon Skylake-SP" },
    { "GenuineIntel", 6, 0x6a, "default", "Xeon Ice Lake-SP" },
    { "GenuineIntel", 6, 0xad, "default", "Xeon Granite Rapids" },
    { "GenuineIntel", 0x19, 0x8f, "default", "family differs" },
    { "AuthenticAMD", 6, 0x8f, "default", "vendor differs" },
    { "HygonGenuine", 0x18, 0x01, "default", "Hygon Dhyana" },
    { "", 0, 0, "default", "no CPUID" },
};

static void signature_table(void)
{
    for (size_t i = 0; i < sizeof signatures / sizeof signatures[0]; i++) {
        const struct signature *s = &signatures[i];
        aesgen_uarch_id id = aesgen_uarch_for_cpu(s->vendor, s->family, s->model);
        const char *got = id < AESGEN_UARCH_LIMIT ? uarch_names[id] : "?";
        check(strcmp(got, s->want) == 0, "uarch of \"%s\" family 0x%x model 0x%x (%s): %s "
              "(got %s)", s->vendor, s->family, s->model, s->what, s->want, got);
    }
}

/* The tests' own reading of this CPU's signature (display family and model). */
static void host_signature(char vendor[13], unsigned *family, unsigned *model)
{
    unsigned a = 0, b = 0, c = 0, d = 0;
    memset(vendor, 0, 13);
    *family = *model = 0;
    __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
    memcpy(vendor, &b, 4);
    memcpy(vendor + 4, &d, 4);
    memcpy(vendor + 8, &c, 4);
    __asm__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
    unsigned base_family = (a >> 8) & 0xf, base_model = (a >> 4) & 0xf;
    *family = base_family == 15 ? base_family + ((a >> 20) & 0xff) : base_family;
    *model = base_family == 6 || base_family == 15 ? base_model | ((a >> 12) & 0xf0) : base_model;
}

/* This CPU's uarch by the table above where it lists the CPU, else by the library's. */
static const char *host_uarch(void)
{
    char vendor[13];
    unsigned family, model;
    host_signature(vendor, &family, &model);
    for (size_t i = 0; i < sizeof signatures / sizeof signatures[0]; i++)
        if (strcmp(signatures[i].vendor, vendor) == 0 && signatures[i].family == family &&
            signatures[i].model == model)
            return signatures[i].want;
    check_note("variants: this CPU (%s family 0x%x model 0x%x) is not in the signature table",
               vendor, family, model);
    return uarch_names[aesgen_uarch_for_cpu(vendor, family, model)];
}

/* ---- The selection and its errors ------------------------------------------------- */

static void selection(void)
{
    static const char *const bad[] = { "", "znver9", "Default", "auto ", "znver4\n",
                                       "avx10_512", "generic" };
    for (int id = 0; id < AESGEN_UARCH_LIMIT; id++) {
        int rc = aesgen_select_variant(uarch_names[id]);
        check(rc == AESGEN_OK && strcmp(aesgen_variant_name(), uarch_names[id]) == 0,
              "aesgen_select_variant(\"%s\") (rc %d, now %s)", uarch_names[id], rc,
              aesgen_variant_name());
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            rc = aesgen_select_variant(bad[b]);
            check(rc == AESGEN_EINVAL && strcmp(aesgen_variant_name(), uarch_names[id]) == 0,
                  "aesgen_select_variant(\"%s\"): EINVAL (got %d), the variant stays %s",
                  bad[b], rc, uarch_names[id]);
        }
        rc = aesgen_select_variant(NULL);
        check(rc == AESGEN_EINVAL && strcmp(aesgen_variant_name(), uarch_names[id]) == 0,
              "aesgen_select_variant(NULL): EINVAL (got %d)", rc);
    }
    const char *mine = host_uarch();
    int rc = aesgen_select_variant("auto");
    check(rc == AESGEN_OK && strcmp(aesgen_variant_name(), mine) == 0,
          "aesgen_select_variant(\"auto\"): this CPU's, %s (rc %d, got %s)", mine, rc,
          aesgen_variant_name());
}

int variants_print_child(void)
{
    printf("variant=%s\n", aesgen_variant_name());
    return 0;
}

/* Runs this binary with --print-variant under AESGEN_VARIANT=value (NULL: unset). */
static bool child_variant(const char *self, const char *value, char *report, size_t cap)
{
    const struct child_var vars[] = { { "AESGEN_VARIANT", value } };
    return run_child_with(self, "--print-variant", vars, 1, report, cap);
}

static void environment_variable(const char *self)
{
    const char *mine = host_uarch();
    const char *cases[][2] = { { NULL, mine }, { "auto", mine }, { "no_such_uarch", mine },
                               { "", mine } };
    char report[128], want[128];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool ran = child_variant(self, cases[i][0], report, sizeof report);
        snprintf(want, sizeof want, "variant=%s", cases[i][1]);
        check(ran && strcmp(report, want) == 0, "AESGEN_VARIANT=%s: child reports \"%s\", "
              "want \"%s\"", cases[i][0] ? cases[i][0] : "(unset)", report, want);
    }
    for (int id = 0; id < AESGEN_UARCH_LIMIT; id++) {
        bool ran = child_variant(self, uarch_names[id], report, sizeof report);
        snprintf(want, sizeof want, "variant=%s", uarch_names[id]);
        check(ran && strcmp(report, want) == 0, "AESGEN_VARIANT=%s: child reports \"%s\"",
              uarch_names[id], report);
    }
}

/* ---- Contexts take their uarch's functions -------------------------------------- */

/* gen/aesgen_gen.h: which uarch takes which variant of which file; one function of each
 * mode identifies the set (the others are checked by the groups that run the entries). */
struct variant_row {
    const char *isa, *mode, *uarch;
    void (*fn)(void);
    void (*record)(void);          /* gcm: the encrypting record function */
};
#define ROW_FN_ctr(isa, v) (void (*)(void))aesgen_ctr_crypt_##isa##v, NULL
#define ROW_FN_xctr(isa, v) (void (*)(void))aesgen_xctr_crypt_##isa##v, NULL
#define ROW_FN_xts(isa, v) (void (*)(void))aesgen_xts_encrypt_##isa##v, NULL
#define ROW_FN_gcm(isa, v) (void (*)(void))aesgen_gcm_enc_update_##isa##v, \
                           (void (*)(void))aesgen_gcm_enc_record_##isa##v
#define UARCH_ROW(isa, mode, U, v) { #isa, #mode, NULL, ROW_FN_##mode(isa, v) },
#define ISA_ROWS(isa, NAME, vector_bytes, evex, needs) AESGEN_GEN_UARCH_VARIANTS_##isa(UARCH_ROW)
static struct variant_row variant_rows[] = {
    AESGEN_GEN_ISAS(ISA_ROWS)
    { NULL, NULL, NULL, NULL, NULL }
};
/* The uarch of each row, by the same macros (its NAME). */
#define UARCH_ROW_NAME(isa, mode, U, v) AESGEN_UARCH_##U,
#define ISA_ROW_NAMES(isa, NAME, vector_bytes, evex, needs) \
    AESGEN_GEN_UARCH_VARIANTS_##isa(UARCH_ROW_NAME)
static const int variant_row_uarch[] = { AESGEN_GEN_ISAS(ISA_ROW_NAMES) - 1 };

static const struct variant_row *row_of(const char *isa, const char *mode, const char *uarch)
{
    for (size_t i = 0; variant_rows[i].isa; i++)
        if (strcmp(variant_rows[i].isa, isa) == 0 && strcmp(variant_rows[i].mode, mode) == 0 &&
            strcmp(variant_rows[i].uarch, uarch) == 0)
            return &variant_rows[i];
    return NULL;
}

static void (*expected_fn(const char *isa, const char *mode, const char *uarch,
                          void (*own)(void)))(void)
{
    const struct variant_row *r = row_of(isa, mode, uarch);
    return r ? r->fn : own;
}

static void name_variant_rows(void)
{
    for (size_t i = 0; variant_rows[i].isa; i++)
        variant_rows[i].uarch = uarch_names[variant_row_uarch[i]];
}

static void contexts_take_their_variant(void)
{
    static const uint8_t key[64] = { 9, 8, 7, 6, 5, 4, 3, 2, 1 }, iv[16] = { 1 };
    FOR_EACH_RUNNABLE_ISA(isa) {
        if (!isa->is_asm)
            continue;
        for (int id = 0; id < AESGEN_UARCH_LIMIT; id++) {
            const char *u = uarch_names[id];
            if (!check_int(aesgen_select_variant(u), AESGEN_OK, "select variant %s", u))
                continue;
            aesgen_ctr_ctx ctr;
            aesgen_xctr_ctx xctr;
            aesgen_xts_ctx xts;
            aesgen_gcm_key gcm;
            bool ok = aesgen_ctr_init_isa(&ctr, key, 32, iv, isa->name) == AESGEN_OK &&
                      aesgen_xctr_init_isa(&xctr, key, 32, iv, isa->name) == AESGEN_OK &&
                      aesgen_xts_init_isa(&xts, key, 64, isa->name) == AESGEN_OK &&
                      aesgen_gcm_init_isa(&gcm, key, 32, isa->name) == AESGEN_OK;
            check(ok, "variant %s: %s contexts initialize", u, isa->name);
            if (!ok)
                continue;
            check((void (*)(void))ctr.crypt ==
                      expected_fn(isa->name, "ctr", u, (void (*)(void))isa->ctr_fn) &&
                  (void (*)(void))xctr.crypt ==
                      expected_fn(isa->name, "xctr", u, (void (*)(void))isa->xctr_fn) &&
                  (void (*)(void))xts.encrypt ==
                      expected_fn(isa->name, "xts", u, (void (*)(void))isa->xts_encrypt_fn) &&
                  (isa->gcm_enc_update_fn == NULL ||   /* vperm_ssse3: no gcm.S */
                   (void (*)(void))gcm.enc_update ==
                       expected_fn(isa->name, "gcm", u, (void (*)(void))isa->gcm_enc_update_fn)),
                  "variant %s: %s contexts hold that uarch's functions of gen/%s/*.S "
                  "(gen/aesgen_gen.h), else the files' own", u, isa->name, isa->name);
        }
    }
    size_t rows = 0;
    for (size_t i = 0; variant_rows[i].isa; i++)
        rows++;
    check_note("variants: %zu (isa, mode, uarch) rows of gen/aesgen_gen.h", rows);
    aesgen_select_variant("auto");
}

/* ---- Length plans ------------------------------------------------------------------ */

/* X-macro rows of gen/aesgen_gen.h into a table: mode, uarch, ISA and classes. */
struct plan_class {
    size_t max_len;
    const char *isa;
    bool own;                         /* FNS OWN: the file's own functions, not the uarch's */
    size_t min_len, period, at_most;  /* min_len..max_len, last vector of the plan's ISA
                                         (period bytes) holding at most at_most bytes */
};
struct plan_row {
    const char *mode, *isa;
    int uarch;
    struct plan_class classes[8];
    size_t n;
    struct plan_class streams[8];     /* gcm's streaming calls */
    size_t n_streams;
};
#define PLAN_FNS_TUNED false
#define PLAN_FNS_OWN true
#define PLAN_CLASS(max_len, isa, ISA, FNS, min_len, period, at_most) \
    { max_len, #isa, PLAN_FNS_##FNS, min_len, period, at_most },
#define PLAN_ROW(mode, U, isa, ISA, CLASSES, STREAMS) \
    { #mode, #isa, AESGEN_UARCH_##U, { CLASSES(PLAN_CLASS) }, 0, { STREAMS(PLAN_CLASS) }, 0 },
static struct plan_row plan_rows[] = {
    AESGEN_GEN_LENGTH_PLANS(PLAN_ROW)
    { NULL, NULL, 0, { { 0, NULL, false, 0, 0, 0 } }, 0, { { 0, NULL, false, 0, 0, 0 } }, 0 }
};

union plan_ctx {
    aesgen_ctr_ctx ctr;
    aesgen_xctr_ctx xctr;
    aesgen_xts_ctx xts;
    aesgen_gcm_key gcm;
};

static const struct test_isa *isa_named(const char *name)
{
    for (const struct test_isa *t = test_isas; t < test_isas + ISA_COUNT; t++)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

/* The ISA a call of len bytes should take under these classes; *own: the file's own
 * functions (not the uarch's variant). */
static const char *planned_isa(const struct plan_row *p, const struct plan_class *classes,
                               size_t n, size_t len, bool *own)
{
    for (size_t c = 0; c < n; c++)
        if (len >= classes[c].min_len && len <= classes[c].max_len &&
            (len - 1) % classes[c].period < classes[c].at_most) {
            *own = classes[c].own;
            return classes[c].isa;
        }
    *own = false;
    return p->isa;
}

/* The lengths worth checking: 16, each boundary and its neighbours, and past the last;
 * a class from min_len: that edge too, and where it takes only calls whose last vector
 * holds at most at_most bytes, both sides of that edge in its first and last periods. */
static size_t plan_lengths(const struct plan_class *classes, size_t n_classes, size_t *lens,
                           size_t cap)
{
    size_t n = 0;
    lens[n++] = 16;
    lens[n++] = 17;
    for (size_t c = 0; c < n_classes && n + 14 <= cap; c++) {
        size_t m = classes[c].max_len, low = classes[c].min_len, p = classes[c].period;
        lens[n++] = m - 1;
        lens[n++] = m;
        lens[n++] = m + 1;
        lens[n++] = m + 16;
        if (low > 1) {
            lens[n++] = low - 1;
            lens[n++] = low;
        }
        if (classes[c].at_most < p) {
            size_t first = (low - 1) / p * p, last = (m - 1) / p * p;
            for (size_t base = first; base <= last; base += last - first > 0 ? last - first : 1) {
                lens[n++] = base + classes[c].at_most;        /* the last in the class */
                lens[n++] = base + classes[c].at_most + 1;    /* one byte more: not */
                lens[n++] = base + p;                         /* a full last vector */
            }
        }
    }
    lens[n++] = n_classes ? classes[n_classes - 1].max_len + 500 : 1000;
    return n;
}

/* gcm's streaming calls: one message through start, aad, update in pieces of `piece`
 * bytes, final, both ways, against OpenSSL; 1 if right. */
static bool gcm_stream_right(const aesgen_gcm_key *gk, const uint8_t *key, size_t bits,
                             const uint8_t iv[12], const uint8_t *pt, size_t len, size_t piece,
                             size_t aad_len)
{
    static uint8_t got[4096 + 64], want[4096 + 64], back[4096 + 64];
    uint8_t tag[16], want_tag[16];
    aesgen_gcm_ctx ctx;
    gcm_ref_encrypt(key, bits / 8, iv, 12, pt, aad_len, want, pt, len, want_tag);
    bool ok = aesgen_gcm_start(&ctx, gk, iv, 12) == AESGEN_OK &&
              aesgen_gcm_aad(&ctx, pt, aad_len) == AESGEN_OK;
    for (size_t at = 0; ok && at < len; at += piece)
        ok = aesgen_gcm_encrypt_update(&ctx, got + at, pt + at,
                                       len - at < piece ? len - at : piece) == AESGEN_OK;
    ok = ok && aesgen_gcm_encrypt_final(&ctx, tag, 16) == AESGEN_OK;
    ok = ok && memcmp(got, want, len) == 0 && memcmp(tag, want_tag, 16) == 0;
    ok = ok && aesgen_gcm_start(&ctx, gk, iv, 12) == AESGEN_OK &&
         aesgen_gcm_aad(&ctx, pt, aad_len) == AESGEN_OK;
    for (size_t at = 0; ok && at < len; at += piece)
        ok = aesgen_gcm_decrypt_update(&ctx, back + at, want + at,
                                       len - at < piece ? len - at : piece) == AESGEN_OK;
    return ok && aesgen_gcm_decrypt_final(&ctx, want_tag, 16) == AESGEN_OK &&
           memcmp(back, pt, len) == 0;
}

/* The streaming classes of a gcm plan: which ISA each update length takes, and the
 * messages streamed in pieces of those lengths (and an AAD of that length) match. */
static void run_stream_classes(const struct plan_row *p, union plan_ctx *c, const uint8_t *key,
                               size_t bits, const uint8_t *pt)
{
    const char *u = uarch_names[p->uarch];
    aesgen_mode_fns f;
    memset(&f, 0, sizeof f);
    f.gcm.enc_update = c->gcm.enc_update;
    aesgen_mode_fns unused;
    if (!check(aesgen_length_plan_pick(&f, 16, &unused) == 1 &&
                   c->gcm.enc_update_short == c->gcm.enc_update,
               "length plan gcm %s: an auto key streams through the plan's functions, short "
               "calls too", u))
        return;
    size_t lens[32];
    size_t n = plan_lengths(p->streams, p->n_streams, lens, 30);
    uint8_t iv[12];
    rng_fill(iv, sizeof iv);
    for (size_t l = 0; l < n; l++) {
        bool own;
        const struct test_isa *want_isa = isa_named(planned_isa(p, p->streams, p->n_streams,
                                                                lens[l], &own));
        aesgen_mode_fns out;
        const struct variant_row *r = own ? NULL : row_of(want_isa->name, "gcm", u);
        bool picked = aesgen_length_plan_pick(&f, lens[l], &out) == 1;
        check(picked && (void (*)(void))out.gcm.enc_update ==
                            (r ? r->fn : (void (*)(void))want_isa->gcm_enc_update_fn),
              "length plan gcm %s AES-%zu: streaming calls of %zu bytes take %s%s", u, bits,
              lens[l], want_isa->name, own ? "'s own functions" : "");
        check(gcm_stream_right(&c->gcm, key, bits, iv, pt, 3 * lens[l] + 5, lens[l],
                               lens[l] % 97) &&
                  gcm_stream_right(&c->gcm, key, bits, iv, pt, lens[l], lens[l], lens[l]),
              "length plan gcm %s AES-%zu: messages streamed in %zu-byte calls match OpenSSL",
              u, bits, lens[l]);
    }
}

static aesgen_mode_fns context_of(const char *mode, const void *ctx);

/* The function a call of len bytes on context c takes through its plan; NULL if c holds
 * no plan.  xctr: the calls' own choice (aesgen_xctr_target: the context holds its plan);
 * ctr, xts, gcm: the plan's function the context holds (aesgen_length_plan_pick). */
static void (*plan_pick_fn(const struct plan_row *p, const union plan_ctx *c, size_t len))(void)
{
    if (strcmp(p->mode, "xctr") == 0)
        return c->xctr.plan ? (void (*)(void))aesgen_xctr_target(&c->xctr, len) : NULL;
    aesgen_mode_fns out, held = context_of(p->mode, c);
    if (!aesgen_length_plan_pick(&held, len, &out))
        return NULL;
    if (strcmp(p->mode, "ctr") == 0)
        return (void (*)(void))out.ctr;
    if (strcmp(p->mode, "xts") == 0)
        return (void (*)(void))out.xts_encrypt;
    return (void (*)(void))out.gcm.enc_record;
}

static void (*own_fn(const struct plan_row *p, const struct test_isa *t))(void)
{
    const char *u = uarch_names[p->uarch];
    if (strcmp(p->mode, "ctr") == 0)
        return expected_fn(t->name, "ctr", u, (void (*)(void))t->ctr_fn);
    if (strcmp(p->mode, "xctr") == 0)
        return expected_fn(t->name, "xctr", u, (void (*)(void))t->xctr_fn);
    if (strcmp(p->mode, "xts") == 0)
        return expected_fn(t->name, "xts", u, (void (*)(void))t->xts_encrypt_fn);
    const struct variant_row *r = row_of(t->name, "gcm", u);
    return r ? r->record : (void (*)(void))t->gcm_enc_record_fn;
}

/* The function of the plan's mode in the ISA's file itself (no uarch variant). */
static void (*file_fn(const struct plan_row *p, const struct test_isa *t))(void)
{
    if (strcmp(p->mode, "ctr") == 0)
        return (void (*)(void))t->ctr_fn;
    if (strcmp(p->mode, "xctr") == 0)
        return (void (*)(void))t->xctr_fn;
    if (strcmp(p->mode, "xts") == 0)
        return (void (*)(void))t->xts_encrypt_fn;
    return (void (*)(void))t->gcm_enc_record_fn;
}

/* A context's functions as the white-box call wants them. */
static aesgen_mode_fns context_of(const char *mode, const void *ctx)
{
    aesgen_mode_fns f;
    memset(&f, 0, sizeof f);
    if (strcmp(mode, "ctr") == 0)
        f.ctr = ((const aesgen_ctr_ctx *)ctx)->crypt;
    else if (strcmp(mode, "xctr") == 0)
        f.xctr = ((const aesgen_xctr_ctx *)ctx)->crypt;
    else if (strcmp(mode, "xts") == 0)
        f.xts_encrypt = ((const aesgen_xts_ctx *)ctx)->encrypt;
    else
        f.gcm.enc_record = (aesgen_gcm_record_fn *)((const aesgen_gcm_key *)ctx)->enc_record;
    return f;
}

static int plan_init(const char *mode, union plan_ctx *c, const uint8_t *key, size_t bits,
                     const uint8_t iv[16], const char *isa)
{
    if (strcmp(mode, "ctr") == 0)
        return aesgen_ctr_init_isa(&c->ctr, key, bits / 8, iv, isa);
    if (strcmp(mode, "xctr") == 0)
        return aesgen_xctr_init_isa(&c->xctr, key, bits / 8, iv, isa);
    if (strcmp(mode, "xts") == 0)
        return aesgen_xts_init_isa(&c->xts, key, bits / 4, isa);
    return aesgen_gcm_init_isa(&c->gcm, key, bits / 8, isa);
}

/* len bytes through the context (streamed: in two calls split at cut, where the mode
 * streams) and OpenSSL's (or the reference's) answer; 1 if they agree. */
static bool plan_output_right(const char *mode, union plan_ctx *c, const uint8_t *key,
                              size_t bits, const uint8_t iv[16], const uint8_t *pt, size_t len,
                              size_t cut)
{
    static uint8_t got[4096 + 64], want[4096 + 64];
    uint8_t tag[16], want_tag[16];
    if (strcmp(mode, "ctr") == 0) {
        aesgen_ctr_set_iv(&c->ctr, iv);
        aesgen_ctr_crypt(&c->ctr, got, pt, cut);
        aesgen_ctr_crypt(&c->ctr, got + cut, pt + cut, len - cut);
        ref_ctr(key, bits / 8, iv, want, pt, len);
    } else if (strcmp(mode, "xctr") == 0) {
        aesgen_xctr_set_iv(&c->xctr, iv);
        aesgen_xctr_crypt(&c->xctr, got, pt, cut);
        aesgen_xctr_crypt(&c->xctr, got + cut, pt + cut, len - cut);
        ref_xctr(key, bits / 8, iv, 1, want, pt, len);
    } else if (strcmp(mode, "xts") == 0) {
        uint8_t back[4096 + 64];
        aesgen_xts_encrypt(&c->xts, got, pt, len, iv);
        ref_xts(1, key, bits / 4, iv, want, pt, len);
        if (aesgen_xts_decrypt(&c->xts, back, got, len, iv) != AESGEN_OK ||
            memcmp(back, pt, len) != 0)
            return false;
    } else {
        uint8_t back[4096 + 64];
        aesgen_gcm_encrypt(&c->gcm, iv, 12, key, 13, got, pt, len, tag, 16);
        gcm_ref_encrypt(key, bits / 8, iv, 12, key, 13, want, pt, len, want_tag);
        if (memcmp(tag, want_tag, 16) != 0 ||
            aesgen_gcm_decrypt(&c->gcm, iv, 12, key, 13, back, got, len, tag, 16) != AESGEN_OK ||
            memcmp(back, pt, len) != 0)
            return false;
    }
    return memcmp(got, want, len) == 0;
}

/* What an "auto" context of the plan's mode holds on the selected variant: its function
 * (gcm: the record's, and the streaming update's). */
struct held_fns {
    void (*call)(void), (*update)(void);
    unsigned plan;                    /* xctr: the plan the context holds (0: none) */
};
static struct held_fns auto_context_fns(const struct plan_row *p, const uint8_t *key,
                                        const uint8_t iv[16])
{
    union plan_ctx c;
    struct held_fns h = { NULL, NULL, 0 };
    if (plan_init(p->mode, &c, key, 128, iv, NULL) != AESGEN_OK)
        return h;
    aesgen_mode_fns f = context_of(p->mode, &c);
    h.call = strcmp(p->mode, "ctr") == 0    ? (void (*)(void))f.ctr
             : strcmp(p->mode, "xctr") == 0 ? (void (*)(void))f.xctr
             : strcmp(p->mode, "xts") == 0  ? (void (*)(void))f.xts_encrypt
                                            : (void (*)(void))f.gcm.enc_record;
    if (strcmp(p->mode, "gcm") == 0)
        h.update = (void (*)(void))c.gcm.enc_update;
    h.plan = strcmp(p->mode, "xctr") == 0 ? c.xctr.plan : 0;
    return h;
}

/* The default plan ("default" in generator/tuning.json) is that of a CPU in no row of the
 * uarch table: a uarch with a row takes its own plan or none, never the default's (it was
 * not measured there). */
static void default_plan_is_for_no_uarch(const struct plan_row *p, const uint8_t *key,
                                         const uint8_t iv[16])
{
    aesgen_select_variant("default");
    struct held_fns dflt = auto_context_fns(p, key, iv);
    for (int id = 1; id < AESGEN_UARCH_LIMIT; id++) {
        aesgen_select_variant(uarch_names[id]);
        struct held_fns got = auto_context_fns(p, key, iv);
        /* only the functions the plan sets: gcm's records with classes, its streaming
         * calls with stream classes */
        bool call = p->n && (strcmp(p->mode, "xctr") == 0 ? got.plan == dflt.plan
                                                          : got.call == dflt.call);
        bool update = p->n_streams && got.update == dflt.update;
        check(!call && !update, "length plan %s default: %s does not take it", p->mode,
              uarch_names[id]);
    }
    aesgen_select_variant("default");
}

/* xctr's calls route by length (xctr.c): through the context's function below
 * AESGEN_GEN_LENGTH_CLASSES_FROM_xctr, through the plan from there.  A spy in place of the
 * context's function (it calls the real one) counts which calls reached it. */
static aesgen_xctr_fn *spied_xctr;
static unsigned spy_calls;
static int xctr_spy(const aesgen_aes_key *key, uint8_t *dst, const uint8_t *src, size_t len,
                    const uint8_t iv[16], uint64_t index)
{
    spy_calls++;
    return spied_xctr(key, dst, src, len, iv, index);
}

static void xctr_calls_route_by_length(const struct plan_row *p, const aesgen_xctr_ctx *c,
                                       const uint8_t *key, size_t bits, const uint8_t iv[16],
                                       const uint8_t *pt, size_t len)
{
    static uint8_t got[4096 + 64], want[4096 + 64];
    aesgen_xctr_ctx spied = *c;
    spied_xctr = c->crypt;
    spied.crypt = xctr_spy;
    ref_xctr(key, bits / 8, iv, 1, want, pt, len);
    bool planned = c->plan != 0 && len >= AESGEN_GEN_LENGTH_CLASSES_FROM_xctr;
    spy_calls = 0;
    bool right = aesgen_xctr_crypt_iv(&spied, iv, got, pt, len) == AESGEN_OK &&
                 memcmp(got, want, len) == 0;
    unsigned one_shot = spy_calls;
    spy_calls = 0;
    right = right && aesgen_xctr_set_iv(&spied, iv) == AESGEN_OK &&
            aesgen_xctr_crypt(&spied, got, pt, len) == AESGEN_OK && memcmp(got, want, len) == 0;
    check(right && one_shot == !planned && spy_calls == !planned,
          "length plan xctr %s AES-%zu: %zu bytes go %s (aesgen_xctr_crypt_iv and "
          "aesgen_xctr_crypt: %u and %u calls of the context's function)",
          uarch_names[p->uarch], bits, len,
          planned ? "through the plan" : "to the context's function", one_shot, spy_calls);
}

static void run_plan(const struct plan_row *p)
{
    const char *u = uarch_names[p->uarch];
    const struct test_isa *main_isa = isa_named(p->isa);
    bool runnable = main_isa && main_isa->runnable;
    for (size_t c = 0; c < p->n; c++) {
        const struct test_isa *t = isa_named(p->classes[c].isa);
        runnable = runnable && t && t->runnable;
    }
    if (!runnable) {
        check_skip("length plan %s %s on %s: this CPU does not run all its ISAs", p->mode, u,
                   p->isa);
        return;
    }
    /* "auto" must take the plan's ISA for the plan to apply: hide what is wider. */
    unsigned keep = AESGEN_CPU_KEEP_ALL;
#define ISA_MASK(name_, NAME, vector_bytes, evex, needs) \
    if (strcmp(#name_, p->isa) == 0)                      \
        keep = (needs);
    AESGEN_GEN_ISAS(ISA_MASK)
#undef ISA_MASK
    aesgen_cpu_test_mask(keep);
    aesgen_select_isa("auto");
    if (strcmp(aesgen_isa_name(), p->isa) != 0) {
        check_skip("length plan %s %s: \"auto\" avoids %s on this CPU (takes %s)", p->mode,
                   u, p->isa, aesgen_isa_name());
        aesgen_cpu_test_mask(AESGEN_CPU_KEEP_ALL);
        aesgen_select_isa("auto");
        return;
    }
    aesgen_select_variant(u);
    uint8_t key[64], iv[16], *pt = xmalloc(4096 + 64);
    rng_fill(key, sizeof key);
    rng_fill(iv, sizeof iv);
    rng_fill(pt, 4096 + 64);
    iv[15] = 0xf0;   /* the counter's low byte wraps within the first blocks */
    if (p->uarch == AESGEN_UARCH_DEFAULT)
        default_plan_is_for_no_uarch(p, key, iv);
    size_t lens[32];
    size_t n = plan_lengths(p->classes, p->n, lens, 30);
    for (size_t bits = 128; bits <= 256; bits += 128) {
        union plan_ctx c, named;
        if (!check_int(plan_init(p->mode, &c, key, bits, iv, NULL), AESGEN_OK,
                       "length plan %s %s: auto context", p->mode, u) ||
            !check_int(plan_init(p->mode, &named, key, bits, iv, p->isa), AESGEN_OK,
                       "length plan %s %s: context of the named ISA", p->mode, u))
            continue;
        aesgen_mode_fns auto_fns = context_of(p->mode, &c), named_fns = context_of(p->mode, &named);
        aesgen_mode_fns unused;
        if (p->n_streams) {
            aesgen_mode_fns named_stream = { 0 };
            named_stream.gcm.enc_update = named.gcm.enc_update;
            check(aesgen_length_plan_pick(&named_stream, 16, &unused) == 0,
                  "length plan gcm %s: a key that names %s streams through its own functions",
                  u, p->isa);
            run_stream_classes(p, &c, key, bits, pt);
        }
        if (!p->n)
            continue;
        check(plan_pick_fn(p, &c, 16) != NULL,
              "length plan %s %s: an auto context on %s holds the plan", p->mode, u, p->isa);
        check(aesgen_length_plan_pick(&named_fns, 16, &unused) == 0 &&
                  plan_pick_fn(p, &named, 16) == NULL,
              "length plan %s %s: a context that names %s holds its own function "
              "(that ISA at every length)", p->mode, u, p->isa);
        if (strcmp(p->mode, "xctr") == 0)   /* the calls no class covers take it */
            check((void (*)(void))auto_fns.xctr == own_fn(p, main_isa),
                  "length plan xctr %s: an auto context holds %s's function beside the plan",
                  u, p->isa);
        for (size_t l = 0; l < n; l++) {
            bool own;
            const struct test_isa *want_isa = isa_named(planned_isa(p, p->classes, p->n,
                                                                    lens[l], &own));
            void (*want)(void) = own ? file_fn(p, want_isa) : own_fn(p, want_isa);
            void (*got)(void) = plan_pick_fn(p, &c, lens[l]);
            check(got != NULL && got == want, "length plan %s %s AES-%zu: %zu bytes take %s",
                  p->mode, u, bits, lens[l], want_isa->name);
            size_t cut = strcmp(p->mode, "ctr") == 0 || strcmp(p->mode, "xctr") == 0
                             ? (lens[l] / 2) | 1 : 0;
            check(plan_output_right(p->mode, &c, key, bits, iv, pt, lens[l], 0) &&
                      plan_output_right(p->mode, &c, key, bits, iv, pt, lens[l], cut),
                  "length plan %s %s AES-%zu: %zu bytes match the reference (one call, and "
                  "streamed in two)", p->mode, u, bits, lens[l]);
            if (strcmp(p->mode, "xctr") == 0) {
                xctr_calls_route_by_length(p, &c.xctr, key, bits, iv, pt, lens[l]);
                xctr_calls_route_by_length(p, &named.xctr, key, bits, iv, pt, lens[l]);
            }
        }
    }
    free(pt);
    aesgen_cpu_test_mask(AESGEN_CPU_KEEP_ALL);
    aesgen_select_variant("auto");
    aesgen_select_isa("auto");
}

static void length_plans(void)
{
    size_t count = 0;
    for (struct plan_row *p = plan_rows; p->mode; p++, count++) {
        while (p->n < 8 && p->classes[p->n].isa)
            p->n++;
        while (p->n_streams < 8 && p->streams[p->n_streams].isa)
            p->n_streams++;
        run_plan(p);
    }
    check_note("variants: %zu length plan(s) in generator/tuning.json", count);
}

void test_variants(const struct test_config *config)
{
    check_set_group("variants");
    signature_table();
    selection();
    environment_variable(config->self_path);
    name_variant_rows();
    contexts_take_their_variant();
    length_plans();
    aesgen_select_variant("auto");
}
