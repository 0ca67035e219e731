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

/* Weak: when gen/ does not exist yet the library has no assembly, and these
 * resolve to NULL instead of breaking the link. */
#define GCM_ALT_SET(isa, alt)                                                            \
    { "_" #alt, aesgen_gcm_ghash_##isa##_##alt, aesgen_gcm_enc_update_##isa##_##alt,       \
      aesgen_gcm_dec_update_##isa##_##alt, aesgen_gcm_enc_record_##isa##_##alt,           \
      aesgen_gcm_dec_record_##isa##_##alt }

#define WEAK_ISA(isa)                                                                \
    extern aesgen_ctr_fn aesgen_ctr_crypt_##isa __attribute__((weak));               \
    extern aesgen_xctr_fn aesgen_xctr_crypt_##isa __attribute__((weak));             \
    extern aesgen_xts_fn aesgen_xts_encrypt_##isa __attribute__((weak));             \
    extern aesgen_xts_fn aesgen_xts_decrypt_##isa __attribute__((weak));             \
    extern aesgen_gcm_ghash_fn aesgen_gcm_ghash_##isa __attribute__((weak));         \
    extern aesgen_gcm_update_fn aesgen_gcm_enc_update_##isa __attribute__((weak));   \
    extern aesgen_gcm_update_fn aesgen_gcm_dec_update_##isa __attribute__((weak));  \
    extern aesgen_gcm_record_fn aesgen_gcm_enc_record_##isa __attribute__((weak));   \
    extern aesgen_gcm_record_fn aesgen_gcm_dec_record_##isa __attribute__((weak));   \
    AESGEN_DECLARE_GCM_ALT(isa, school)                                               \
    AESGEN_DECLARE_GCM_ALT(isa, karatsuba)
WEAK_ISA(aesni_avx)
WEAK_ISA(vaes_avx2)
WEAK_ISA(avx10_256)
WEAK_ISA(avx10_512)

#define ASM_ISA(isa)                                                                  \
    { .name = #isa, .is_asm = true, .ctr_fn = aesgen_ctr_crypt_##isa,                 \
      .xctr_fn = aesgen_xctr_crypt_##isa, .xts_encrypt_fn = aesgen_xts_encrypt_##isa, \
      .xts_decrypt_fn = aesgen_xts_decrypt_##isa, .gcm_ghash_fn = aesgen_gcm_ghash_##isa, \
      .gcm_enc_update_fn = aesgen_gcm_enc_update_##isa,                               \
      .gcm_dec_update_fn = aesgen_gcm_dec_update_##isa,                               \
      .gcm_enc_record_fn = aesgen_gcm_enc_record_##isa,                               \
      .gcm_dec_record_fn = aesgen_gcm_dec_record_##isa,                               \
      .gcm_alt = { GCM_ALT_SET(isa, school), GCM_ALT_SET(isa, karatsuba) } }

struct test_isa test_isas[ISA_COUNT] = {
    { .name = "generic", .is_slow = true },
    ASM_ISA(aesni_avx),
    ASM_ISA(vaes_avx2),
    ASM_ISA(avx10_256),
    ASM_ISA(avx10_512),
};

/* ---- The tests' own feature detection ---------------------------------- */

struct cpu_features {
    bool aes, pclmul, avx, osxsave, avx2, bmi2, vaes, vpclmul;
    bool avx512f, avx512bw, avx512vl, avx512dq, xgetbv1;
    bool os_ymm, os_zmm;       /* XCR0 enables the state the ISA needs */
};

static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t)hi << 32 | lo;
}

static struct cpu_features detect_cpu(void)
{
    struct cpu_features f = { 0 };
    unsigned a, b, c, d, max_leaf = __get_cpuid_max(0, NULL);
    if (max_leaf < 1 || !__get_cpuid_count(1, 0, &a, &b, &c, &d))
        return f;
    f.pclmul = c >> 1 & 1;
    f.aes = c >> 25 & 1;
    f.osxsave = c >> 27 & 1;
    f.avx = c >> 28 & 1;
    if (f.osxsave) {
        uint64_t xcr0 = read_xcr0();
        f.os_ymm = (xcr0 & 0x6) == 0x6;        /* SSE + AVX state */
        f.os_zmm = (xcr0 & 0xe6) == 0xe6;      /* + opmask, ZMM_Hi256, Hi16_ZMM */
    }
    if (max_leaf >= 7 && __get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        f.avx2 = b >> 5 & 1;
        f.bmi2 = b >> 8 & 1;
        f.avx512f = b >> 16 & 1;
        f.avx512dq = b >> 17 & 1;
        f.avx512bw = b >> 30 & 1;
        f.avx512vl = b >> 31 & 1;
        f.vaes = c >> 9 & 1;
        f.vpclmul = c >> 10 & 1;
    }
    if (max_leaf >= 0xd && __get_cpuid_count(0xd, 1, &a, &b, &c, &d))
        f.xgetbv1 = f.osxsave && (a >> 2 & 1);
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

struct feature_need {
    const char *name;
    bool have;
};

static bool all_present(const struct feature_need *needs, size_t n, const char **missing)
{
    for (size_t i = 0; i < n; i++) {
        if (!needs[i].have) {
            *missing = needs[i].name;
            return false;
        }
    }
    return true;
}

bool cpu_can_run(const char *isa_name, const char **missing)
{
    const struct cpu_features *f = cpu();
    /* Cumulative: each ISA needs everything of the ones before it. */
    const struct feature_need needs[] = {
        { "AES-NI", f->aes }, { "PCLMULQDQ", f->pclmul }, { "AVX", f->avx },
        { "OS support for YMM state (XCR0)", f->osxsave && f->os_ymm },
        { "AVX2", f->avx2 }, { "VAES", f->vaes }, { "VPCLMULQDQ", f->vpclmul }, { "BMI2", f->bmi2 },
        { "AVX512F", f->avx512f }, { "AVX512BW", f->avx512bw }, { "AVX512VL", f->avx512vl },
        { "AVX512DQ", f->avx512dq },
        { "OS support for opmask/ZMM state (XCR0)", f->os_zmm },
    };
    size_t count;
    if (strcmp(isa_name, "generic") == 0)
        count = 0;
    else if (strcmp(isa_name, "aesni_avx") == 0)
        count = 4;
    else if (strcmp(isa_name, "vaes_avx2") == 0)
        count = 8;
    else
        count = sizeof needs / sizeof needs[0];
    *missing = NULL;
    return all_present(needs, count, missing);
}

bool cpu_has_xgetbv1(void)
{
    return cpu()->xgetbv1;
}

bool cpu_has_avx(void)
{
    return cpu()->avx && cpu()->osxsave && cpu()->os_ymm;
}

bool cpu_has_avx512(void)
{
    return cpu_has_avx() && cpu()->avx512f && cpu()->os_zmm;
}

/* ---- Deciding what runs ------------------------------------------------- */

static bool gen_file_exists(const char *repo_root, const char *isa_name, const char *mode)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/gen/%s/%s.S", repo_root, isa_name, mode);
    return access(path, R_OK) == 0;
}

static void resolve_one(struct test_isa *isa, const char *repo_root)
{
    const char *missing = NULL;
    bool cpu_ok = cpu_can_run(isa->name, &missing);
    bool lib_ok = aesgen_isa_supported(isa->name) == 1;
    bool gen_exists = isa->is_asm && gen_file_exists(repo_root, isa->name, "ctr");
    isa->xts_generated = isa->is_asm && gen_file_exists(repo_root, isa->name, "xts");
    isa->gcm_generated = isa->is_asm && gen_file_exists(repo_root, isa->name, "gcm");

    if (lib_ok && !cpu_ok) {
        /* Running it would die of SIGILL: the library's detection is wrong. */
        check(false, "isa %s: library says supported but this CPU/OS lacks %s", isa->name, missing);
    } else if (lib_ok && isa->is_asm && (!isa->ctr_fn || !isa->xctr_fn)) {
        check(false, "isa %s: library says supported but aesgen_{ctr,xctr}_crypt_%s are not linked",
              isa->name, isa->name);
    } else if (lib_ok) {
        isa->runnable = check(true, "isa %s available", isa->name);
    } else if (!cpu_ok) {
        check_skip("%s: CPU/OS lacks %s", isa->name, missing);
    } else if (!isa->is_asm) {
        check(false, "isa %s: the portable implementation must always be supported", isa->name);
    } else if (gen_exists) {
        check(false, "isa %s: gen/%s/ctr.S exists and the CPU has the features, "
              "but the library reports it unsupported (built without the assembly?)",
              isa->name, isa->name);
    } else {
        check_skip("%s: library built without assembly (gen/%s/ctr.S does not exist yet)",
                   isa->name, isa->name);
    }
}

void isa_resolve(const char *repo_root)
{
    for (struct test_isa *isa = test_isas; isa < test_isas + ISA_COUNT; isa++)
        resolve_one(isa, repo_root);
}

bool isa_xts_asm_usable(const struct test_isa *isa)
{
    if (!isa->is_asm || !isa->runnable)
        return false;
    bool linked = isa->xts_encrypt_fn && isa->xts_decrypt_fn;
    if (!isa->xts_generated && !linked) {
        check_skip("xts asm %s: not generated yet (no gen/%s/xts.S)", isa->name, isa->name);
        return false;
    }
    return check(linked, "xts asm %s: gen/%s/xts.S exists, so aesgen_xts_{encrypt,decrypt}_%s "
                 "must be linked into the library", isa->name, isa->name, isa->name);
}

bool isa_gcm_asm_usable(const struct test_isa *isa)
{
    if (!isa->is_asm || !isa->runnable)
        return false;
    bool linked = isa->gcm_ghash_fn && isa->gcm_enc_update_fn && isa->gcm_dec_update_fn;
    if (!isa->gcm_generated && !linked) {
        check_skip("gcm asm %s: not generated yet (no gen/%s/gcm.S)", isa->name, isa->name);
        return false;
    }
    return check(linked, "gcm asm %s: gen/%s/gcm.S exists, so aesgen_gcm_{ghash,enc_update,"
                 "dec_update}_%s must be linked into the library", isa->name, isa->name,
                 isa->name);
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
        alt = 0;
    else if (forced && strcmp(forced, "karatsuba") == 0)
        alt = 1;
    else if (strcmp(vendor, "GenuineIntel") == 0)
        alt = 0;
    else if (strcmp(vendor, "AuthenticAMD") == 0 && family == 0x19)
        alt = 0;
    else if (strcmp(vendor, "AuthenticAMD") == 0 && family == 0x1a)
        alt = 1;
    if (alt >= 0 && isa->is_asm && gcm_set_complete(&isa->gcm_alt[alt]))
        return isa->gcm_alt[alt];
    return isa_gcm_primary(isa);
}
