/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Which implementations (ISAs) the tests run, decided once at startup.
 *
 * The tests do their own CPUID + XGETBV check (code of their own, on the feature
 * table of gen/aesgen_gen.h), so that "the CPU lacks the feature" (a skip, printed
 * by name) can be told apart from "the library does not offer an ISA this CPU runs"
 * (a failure).  The ISA list, the functions and the main-loop strides come from
 * gen/aesgen_gen.h (gen/manifest.json), which the library is built from too.
 */
#ifndef AESGEN_TEST_ISA_H
#define AESGEN_TEST_ISA_H

#include <stdbool.h>

#include "aesgen_gen.h"

/* generic, then the generated ISAs */
enum { ISA_COUNT = 1 + AESGEN_GEN_ISA_COUNT };

/* Then one entry per uarch variant of gen/manifest.json (AESGEN_GEN_VARIANT_SETS). */
#define TEST_VARIANT_ROW(isa, mode, v, uarch, unroll, stride) +1
enum { VARIANT_COUNT = 0 AESGEN_GEN_VARIANT_SETS(TEST_VARIANT_ROW) };
#undef TEST_VARIANT_ROW
enum { TEST_ISA_TOTAL = ISA_COUNT + VARIANT_COUNT };

/* test_isa.modes: the modes whose functions a variant entry holds of its own. */
enum { TEST_MODE_ctr = 1, TEST_MODE_xctr = 2, TEST_MODE_xts = 4, TEST_MODE_gcm = 8,
       TEST_MODE_ALL = 15 };

/* One set of generated GCM functions. */
struct test_gcm_set {
    const char *suffix;                /* "" or a variant's "_ghashkaratsuba" */
    aesgen_gcm_ghash_fn *ghash;
    aesgen_gcm_update_fn *enc_update;
    aesgen_gcm_update_fn *dec_update;
    aesgen_gcm_record_fn *enc_record;
    aesgen_gcm_record_fn *dec_record;
};

struct test_isa {
    const char *name;          /* as aesgen_select_isa() knows it */
    bool is_asm;               /* has generated functions of its own */
    aesgen_ctr_fn *ctr_fn;     /* the generated functions */
    aesgen_ctr_iv_fn *ctr_iv_fn;   /* NULL where the ISA has none (AESGEN_GEN_CTR_IV_<isa>) */
    aesgen_xctr_fn *xctr_fn;
    bool runnable;             /* set by isa_resolve(): the tests exercise it */
    bool is_slow;              /* the portable C code: the tests take a smaller sample */
    aesgen_xts_fn *xts_encrypt_fn;
    aesgen_xts_fn *xts_decrypt_fn;
    aesgen_gcm_ghash_fn *gcm_ghash_fn;
    aesgen_gcm_update_fn *gcm_enc_update_fn;
    aesgen_gcm_update_fn *gcm_dec_update_fn;
    aesgen_gcm_record_fn *gcm_enc_record_fn;
    aesgen_gcm_record_fn *gcm_dec_record_fn;
    /* A variant entry: the uarch isa_select() selects (aesgen_select_variant), the
     * suffix of its functions and the modes it has them for (the other functions are
     * the ISA's own); a default entry: NULL, "" and TEST_MODE_ALL. */
    const char *variant;
    const char *suffix;
    unsigned modes;
    size_t gcm_stride;         /* bytes per iteration of the entry's GCM main loops (a gcm
                                  variant's own, else gen/<isa>/gcm.S's) */
    unsigned gcm_unroll;       /* their UNROLL knob */
};

/* [0, ISA_COUNT): the ISAs with their files' own functions; then the variant entries. */
extern struct test_isa test_isas[TEST_ISA_TOTAL];

/* The entry's GCM set (the variant's, in a gcm variant entry). */
struct test_gcm_set isa_gcm_primary(const struct test_isa *isa);
/* Whether every function of the set is linked. */
bool gcm_set_complete(const struct test_gcm_set *set);
/* The set aesgen_gcm_init puts in a key after isa_select(isa): the entry's. */
struct test_gcm_set isa_gcm_expected(const struct test_isa *isa);
/* "avx10_512" or "avx10_512 variant znver4 (_ghashkaratsuba)", for messages. */
const char *isa_label(const struct test_isa *isa);

/* Decides test_isas[].runnable: one counted check or skip per ISA. */
void isa_resolve(void);

/* The asm ISA's generated functions can be called directly: it is runnable here. */
bool isa_asm_callable(const struct test_isa *isa);

/* Selects the ISA in the library, and the entry's variant ("none" for a default
 * entry), a counted check; false if that failed.  Failures print the label from now on. */
bool isa_select(const struct test_isa *isa);
/* "auto" with the CPU's variant: what an application gets, length plans included (the
 * named ISAs run without them); a counted check, false if the selection failed. */
bool isa_select_auto(void);
/* Back to the CPU's variant ("auto") and no label (main.c, before each group). */
void isa_select_reset(void);

/* This CPU and OS can run the ISA, by the tests' own CPUID/XGETBV check.
 * If not, *missing names the first missing feature. */
bool cpu_can_run(const char *isa_name, const char **missing);

/* XGETBV with ECX=1 (XINUSE) is available: CPUID.(EAX=0DH,ECX=1):EAX[2]. */
bool cpu_has_xgetbv1(void);
bool cpu_has_avx(void);        /* AVX usable (CPUID + XCR0), so VZEROUPPER is legal */
bool cpu_has_avx512(void);     /* AVX512F usable (CPUID + XCR0) */

#define FOR_EACH_RUNNABLE_ISA(var)                                       \
    for (struct test_isa *var = test_isas; var < test_isas + ISA_COUNT; var++) \
        if (var->runnable)

/* The runnable ISAs and the variant entries that hold functions of the modes (a mask of
 * TEST_MODE_*): every variant is checked like the defaults where the CPU runs its ISA. */
#define FOR_EACH_RUNNABLE_VARIANT(var, mask)                                     \
    for (struct test_isa *var = test_isas; var < test_isas + TEST_ISA_TOTAL; var++) \
        if (var->runnable && (var->modes & (mask)))

#endif
