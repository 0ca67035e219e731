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

/* Slots of test_isa.gcm_alt, by GHASH value. */
enum { GCM_ALT_school, GCM_ALT_karatsuba, GCM_ALT_COUNT };

/* One set of generated GCM functions. */
struct test_gcm_set {
    const char *suffix;                /* "", "_school", "_karatsuba"; NULL: not generated */
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
    /* The alternate GHASH sets gen/manifest.json lists for gen/<isa>/gcm.S (suffix
     * _school, _karatsuba; the slot of a set not generated has a NULL suffix). */
    struct test_gcm_set gcm_alt[GCM_ALT_COUNT];
    size_t gcm_stride;         /* bytes per iteration of gen/<isa>/gcm.S's main loop */
    unsigned gcm_unroll;       /* its UNROLL knob */
};

extern struct test_isa test_isas[ISA_COUNT];

/* The ISA's main GCM set (no suffix). */
struct test_gcm_set isa_gcm_primary(const struct test_isa *isa);
/* Whether every function of the set is linked. */
bool gcm_set_complete(const struct test_gcm_set *set);
/* The set aesgen_gcm_init should put in a key on this CPU (AESGEN_GCM_GHASH as the
 * library reads it): the preferred alternate (school on Intel, karatsuba on AMD/Hygon)
 * when it is complete, else the primary. */
struct test_gcm_set isa_gcm_expected(const struct test_isa *isa);

/* Decides test_isas[].runnable: one counted check or skip per ISA. */
void isa_resolve(void);

/* The asm ISA's generated functions can be called directly: it is runnable here. */
bool isa_asm_callable(const struct test_isa *isa);

/* Selects the ISA in the library (a counted check); false if that failed. */
bool isa_select(const struct test_isa *isa);

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

#endif
