/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* ISA availability: the library's view checked against the tests' own CPUID. */
#define _GNU_SOURCE
#include "isa.h"

#include <cpuid.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "aesgen.h"
#include "check.h"

/* Every generated ISA of gen/aesgen_gen.h with its functions, then every uarch variant
 * the manifest lists: the ISA's functions with the variant's in place for its mode (the
 * variants are weak: a listed variant that is not linked is a failure, not a crash).
 * A mode without a generated file (AESGEN_GEN_HAS_<isa>_<mode>: vperm_ssse3) has NULL
 * functions here: the library runs the generic code for it, which the tests exercise
 * through the API, and there is nothing generated to call directly. */
#define HAS(isa, mode, have) AESGEN_GEN_HAS_##isa##_##mode(have, 0)
#define ASM_FNS(isa)                                                                  \
      .name = #isa, .is_asm = true, .ctr_fn = HAS(isa, ctr, aesgen_ctr_crypt_##isa),  \
      .ctr_iv_fn = HAS(isa, ctr, AESGEN_GEN_CTR_IV_##isa(aesgen_ctr_crypt_iv_##isa, 0)), \
      .xctr_fn = HAS(isa, xctr, aesgen_xctr_crypt_##isa),                             \
      .xts_encrypt_fn = HAS(isa, xts, aesgen_xts_encrypt_##isa),                      \
      .xts_decrypt_fn = HAS(isa, xts, aesgen_xts_decrypt_##isa),                      \
      .gcm_ghash_fn = HAS(isa, gcm, aesgen_gcm_ghash_##isa),                          \
      .gcm_enc_update_fn = HAS(isa, gcm, aesgen_gcm_enc_update_##isa),                \
      .gcm_dec_update_fn = HAS(isa, gcm, aesgen_gcm_dec_update_##isa),                \
      .gcm_enc_record_fn = HAS(isa, gcm, aesgen_gcm_enc_record_##isa),                \
      .gcm_dec_record_fn = HAS(isa, gcm, aesgen_gcm_dec_record_##isa),                \
      .gcm_stride = HAS(isa, gcm, AESGEN_GEN_STRIDE_##isa##_gcm),                     \
      .gcm_unroll = HAS(isa, gcm, AESGEN_GEN_UNROLL_##isa##_gcm)
#define ASM_ISA(isa, NAME, vector_bytes, evex, needs) \
    { ASM_FNS(isa), .suffix = "", .modes = TEST_MODE_ALL },

#define VARIANT_FNS_ctr(isa, v, unroll, stride) \
    .ctr_fn = aesgen_ctr_crypt_##isa##v,         \
    .ctr_iv_fn = AESGEN_GEN_CTR_IV_##isa(aesgen_ctr_crypt_iv_##isa##v, 0)
#define VARIANT_FNS_xctr(isa, v, unroll, stride) .xctr_fn = aesgen_xctr_crypt_##isa##v
#define VARIANT_FNS_xts(isa, v, unroll, stride) \
    .xts_encrypt_fn = aesgen_xts_encrypt_##isa##v, .xts_decrypt_fn = aesgen_xts_decrypt_##isa##v
#define VARIANT_FNS_gcm(isa, v, unroll, stride)                                       \
    .gcm_ghash_fn = aesgen_gcm_ghash_##isa##v,                                        \
    .gcm_enc_update_fn = aesgen_gcm_enc_update_##isa##v,                              \
    .gcm_dec_update_fn = aesgen_gcm_dec_update_##isa##v,                              \
    .gcm_enc_record_fn = aesgen_gcm_enc_record_##isa##v,                              \
    .gcm_dec_record_fn = aesgen_gcm_dec_record_##isa##v,                              \
    .gcm_stride = (stride), .gcm_unroll = (unroll)
#define VARIANT_ISA(isa, mode, v, uarch, unroll, stride)                              \
    { ASM_FNS(isa), VARIANT_FNS_##mode(isa, v, unroll, stride), .variant = #uarch,    \
      .suffix = #v, .modes = TEST_MODE_##mode },

/* The variant entries override some functions of ASM_FNS: that is their point. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
struct test_isa test_isas[TEST_ISA_TOTAL] = {
    { .name = "generic", .is_slow = true, .suffix = "", .modes = TEST_MODE_ALL },
    AESGEN_GEN_ISAS(ASM_ISA)
    AESGEN_GEN_VARIANT_SETS(VARIANT_ISA)
};
#pragma GCC diagnostic pop

/* ---- The tests' own feature detection ---------------------------------- */

/* What each ISA needs, and the names of the features (gen/aesgen_gen.h). */
struct isa_needs {
    const char *name;
    unsigned needs;
};
#define ISA_NEEDS(isa, NAME, vector_bytes, evex, needs) { #isa, needs },
static const struct isa_needs isa_needs[] = { AESGEN_GEN_ISAS(ISA_NEEDS) };

struct feature_name {
    unsigned bit;
    const char *title;
};
#define CPUID_NAME(bit, title, leaf, subleaf, reg, n) { bit, title },
#define XCR0_NAME(bit, title, state) { bit, title },
static const struct feature_name feature_names[] = {
    AESGEN_GEN_CPUID_FEATURES(CPUID_NAME) AESGEN_GEN_XCR0_FEATURES(XCR0_NAME)
};

static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t)hi << 32 | lo;
}

struct cpu_features {
    unsigned bits;         /* AESGEN_CPU_* present (CPUID) or enabled (XCR0) */
    bool xgetbv1;
};

static bool cpuid_bit(unsigned leaf, unsigned subleaf, int reg, unsigned n)
{
    unsigned r[4] = { 0, 0, 0, 0 };
    if (leaf > __get_cpuid_max(0, NULL) || !__get_cpuid_count(leaf, subleaf, &r[0], &r[1],
                                                                &r[2], &r[3]))
        return false;
    return r[reg] >> n & 1;
}

enum { REG_eax, REG_ebx, REG_ecx, REG_edx };

static struct cpu_features detect_cpu(void)
{
    struct cpu_features f = { 0, false };
#define CPUID_DETECT(bit, title, leaf, subleaf, reg, n) \
    if (cpuid_bit(leaf, subleaf, REG_##reg, n))          \
        f.bits |= bit;
    AESGEN_GEN_CPUID_FEATURES(CPUID_DETECT)
    bool osxsave = cpuid_bit(1, 0, REG_ecx, 27);
    uint64_t xcr0 = osxsave ? read_xcr0() : 0;
#define XCR0_DETECT(bit, title, state) \
    if ((xcr0 & (state)) == (state))   \
        f.bits |= bit;
    AESGEN_GEN_XCR0_FEATURES(XCR0_DETECT)
    f.xgetbv1 = osxsave && cpuid_bit(0xd, 1, REG_eax, 2);
    return f;
}

static const struct cpu_features *cpu(void)
{
    static struct cpu_features features;
    static bool detected;
    if (!detected) {
        features = detect_cpu();
        detected = true;
    }
    return &features;
}

bool cpu_can_run(const char *isa_name, const char **missing)
{
    *missing = NULL;
    if (strcmp(isa_name, "generic") == 0)
        return true;
    for (size_t i = 0; i < sizeof isa_needs / sizeof isa_needs[0]; i++) {
        if (strcmp(isa_needs[i].name, isa_name) != 0)
            continue;
        for (size_t j = 0; j < sizeof feature_names / sizeof feature_names[0]; j++)
            if ((isa_needs[i].needs & feature_names[j].bit) &&
                !(cpu()->bits & feature_names[j].bit)) {
                *missing = feature_names[j].title;
                return false;
            }
        return true;
    }
    *missing = "a name gen/aesgen_gen.h does not know";
    return false;
}

bool cpu_has_xgetbv1(void)
{
    return cpu()->xgetbv1;
}

static bool cpu_has(unsigned bits)
{
    return (cpu()->bits & bits) == bits;
}

bool cpu_has_avx(void)
{
    return cpu_has(AESGEN_CPU_AVX | AESGEN_CPU_OS_YMM);
}

bool cpu_has_avx512(void)
{
    return cpu_has_avx() && cpu_has(AESGEN_CPU_AVX512F | AESGEN_CPU_OS_ZMM);
}

/* ---- Deciding what runs ------------------------------------------------- */

static void resolve_one(struct test_isa *isa)
{
    const char *missing = NULL;
    bool cpu_ok = cpu_can_run(isa->name, &missing);
    bool lib_ok = aesgen_isa_supported(isa->name) == 1;

    if (lib_ok && !cpu_ok) {
        /* Running it would die of SIGILL: the library's detection is wrong. */
        check(false, "isa %s: library says supported but this CPU/OS lacks %s", isa->name, missing);
    } else if (lib_ok) {
        isa->runnable = check(true, "isa %s available", isa->name);
    } else if (!cpu_ok) {
        check_skip("%s: CPU/OS lacks %s", isa->name, missing);
    } else {
        check(false, "isa %s: this CPU/OS has every feature it needs, but the library "
              "reports it unsupported", isa->name);
    }
}

void isa_resolve(void)
{
    for (struct test_isa *isa = test_isas; isa < test_isas + ISA_COUNT; isa++)
        resolve_one(isa);
    /* A variant runs where its ISA does (whatever the CPU's uarch). */
    for (struct test_isa *v = test_isas + ISA_COUNT; v < test_isas + TEST_ISA_TOTAL; v++)
        for (struct test_isa *isa = test_isas; isa < test_isas + ISA_COUNT; isa++)
            if (strcmp(isa->name, v->name) == 0)
                v->runnable = isa->runnable;
}

const char *isa_label(const struct test_isa *isa)
{
    static char labels[TEST_ISA_TOTAL][96];
    char *label = labels[isa - test_isas];
    if (isa->variant == NULL)
        return isa->name;
    snprintf(label, sizeof labels[0], "%s variant %s (%s)", isa->name, isa->variant,
             isa->suffix);
    return label;
}

bool isa_asm_callable(const struct test_isa *isa)
{
    return isa->is_asm && isa->runnable;
}

bool isa_select(const struct test_isa *isa)
{
    const char *variant = isa->variant ? isa->variant : "none";
    check_set_context(isa->variant ? isa_label(isa) : NULL);
    int rc = aesgen_select_isa(isa->name);
    int vrc = aesgen_select_variant(variant);
    return check_int(rc, AESGEN_OK, "aesgen_select_isa(\"%s\")", isa->name) &&
           check_int(vrc, AESGEN_OK, "aesgen_select_variant(\"%s\")", variant);
}

bool isa_select_auto(void)
{
    check_set_context("auto");
    return check_int(aesgen_select_isa("auto"), AESGEN_OK, "aesgen_select_isa(\"auto\")") &&
           check_int(aesgen_select_variant("auto"), AESGEN_OK,
                     "aesgen_select_variant(\"auto\")");
}

void isa_select_reset(void)
{
    check_set_context(NULL);
    aesgen_select_variant("auto");
}

/* ---- GCM function sets ------------------------------------------------------ */

struct test_gcm_set isa_gcm_primary(const struct test_isa *isa)
{
    struct test_gcm_set set = { isa->modes & TEST_MODE_gcm ? isa->suffix : "", isa->gcm_ghash_fn, isa->gcm_enc_update_fn,
                                isa->gcm_dec_update_fn, isa->gcm_enc_record_fn,
                                isa->gcm_dec_record_fn };
    return set;
}

bool gcm_set_complete(const struct test_gcm_set *set)
{
    return set->ghash && set->enc_update && set->dec_update && set->enc_record &&
           set->dec_record;
}

struct test_gcm_set isa_gcm_expected(const struct test_isa *isa)
{
    return isa_gcm_primary(isa);
}
