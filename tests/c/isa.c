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

/* Every generated ISA of gen/aesgen_gen.h, with the functions and alternate sets the
 * manifest lists for it (the alternates are weak: a listed set that is not linked is a
 * failure of the gcm tests, not a crash). */
#define GCM_ALT_SET(isa, alt)                                                             \
    [GCM_ALT_##alt] = { "_" #alt, aesgen_gcm_ghash_##isa##_##alt,                           \
                        aesgen_gcm_enc_update_##isa##_##alt,                                \
                        aesgen_gcm_dec_update_##isa##_##alt,                                \
                        aesgen_gcm_enc_record_##isa##_##alt,                                \
                        aesgen_gcm_dec_record_##isa##_##alt },

/* A mode without a generated file (AESGEN_GEN_HAS_<isa>_<mode>: vperm_ssse3) has NULL
 * functions here: the library runs the generic code for it, which the tests exercise
 * through the API, and there is nothing generated to call directly. */
#define HAS(isa, mode, have) AESGEN_GEN_HAS_##isa##_##mode(have, 0)
#define ASM_ISA(isa, NAME, vector_bytes, evex, needs)                                 \
    { .name = #isa, .is_asm = true, .ctr_fn = HAS(isa, ctr, aesgen_ctr_crypt_##isa),  \
      .xctr_fn = HAS(isa, xctr, aesgen_xctr_crypt_##isa),                             \
      .xts_encrypt_fn = HAS(isa, xts, aesgen_xts_encrypt_##isa),                      \
      .xts_decrypt_fn = HAS(isa, xts, aesgen_xts_decrypt_##isa),                      \
      .gcm_ghash_fn = HAS(isa, gcm, aesgen_gcm_ghash_##isa),                          \
      .gcm_enc_update_fn = HAS(isa, gcm, aesgen_gcm_enc_update_##isa),                \
      .gcm_dec_update_fn = HAS(isa, gcm, aesgen_gcm_dec_update_##isa),                \
      .gcm_enc_record_fn = HAS(isa, gcm, aesgen_gcm_enc_record_##isa),                \
      .gcm_dec_record_fn = HAS(isa, gcm, aesgen_gcm_dec_record_##isa),                \
      .gcm_alt = { AESGEN_GEN_GCM_ALTERNATES_##isa(GCM_ALT_SET) },                    \
      .gcm_stride = HAS(isa, gcm, AESGEN_GEN_STRIDE_##isa##_gcm),                     \
      .gcm_unroll = HAS(isa, gcm, AESGEN_GEN_UNROLL_##isa##_gcm) },

struct test_isa test_isas[ISA_COUNT] = {
    { .name = "generic", .is_slow = true },
    AESGEN_GEN_ISAS(ASM_ISA)
};

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
}

bool isa_asm_callable(const struct test_isa *isa)
{
    return isa->is_asm && isa->runnable;
}

bool isa_select(const struct test_isa *isa)
{
    int rc = aesgen_select_isa(isa->name);
    return check_int(rc, AESGEN_OK, "aesgen_select_isa(\"%s\")", isa->name);
}

/* ---- GCM function sets ------------------------------------------------------ */

struct test_gcm_set isa_gcm_primary(const struct test_isa *isa)
{
    struct test_gcm_set set = { "", isa->gcm_ghash_fn, isa->gcm_enc_update_fn,
                                isa->gcm_dec_update_fn, isa->gcm_enc_record_fn,
                                isa->gcm_dec_record_fn };
    return set;
}

bool gcm_set_complete(const struct test_gcm_set *set)
{
    return set->ghash && set->enc_update && set->dec_update && set->enc_record &&
           set->dec_record;
}

/* Vendor string and display family (extended family added for base family 15). */
static void cpu_vendor_family(char vendor[13], unsigned *family)
{
    unsigned a = 0, b = 0, c = 0, d = 0;
    memset(vendor, 0, 13);
    *family = 0;
    if (__get_cpuid(0, &a, &b, &c, &d)) {
        memcpy(vendor, &b, 4);
        memcpy(vendor + 4, &d, 4);
        memcpy(vendor + 8, &c, 4);
    }
    if (__get_cpuid(1, &a, &b, &c, &d)) {
        unsigned base = (a >> 8) & 0xf;
        *family = base == 15 ? base + ((a >> 20) & 0xff) : base;
    }
}

/* The documented choice (README, "ISA preferences"): schoolbook on Intel and on AMD
 * family 0x19 (Zen 4), Karatsuba on AMD family 0x1a (Zen 5), else the primary set. */
struct test_gcm_set isa_gcm_expected(const struct test_isa *isa)
{
    const char *forced = getenv("AESGEN_GCM_GHASH");
    char vendor[13];
    unsigned family;
    cpu_vendor_family(vendor, &family);
    int alt = -1;   /* index into gcm_alt */
    if (forced && strcmp(forced, "school") == 0)
        alt = GCM_ALT_school;
    else if (forced && strcmp(forced, "karatsuba") == 0)
        alt = GCM_ALT_karatsuba;
    else if (strcmp(vendor, "GenuineIntel") == 0)
        alt = GCM_ALT_school;
    else if (strcmp(vendor, "AuthenticAMD") == 0 && family == 0x19)
        alt = GCM_ALT_school;
    else if (strcmp(vendor, "AuthenticAMD") == 0 && family == 0x1a)
        alt = GCM_ALT_karatsuba;
    if (alt >= 0 && isa->is_asm && gcm_set_complete(&isa->gcm_alt[alt]))
        return isa->gcm_alt[alt];
    return isa_gcm_primary(isa);
}
