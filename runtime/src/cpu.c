/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * CPU feature detection: CPUID says what the processor has, XGETBV says which
 * register state the OS saves on context switches.  An ISA is usable only if
 * both agree (e.g. AVX-512 in a VM or kernel that does not enable ZMM state
 * would fault).
 */
#include <stdatomic.h>
#include "internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* XCR0 bits: which state components the OS saves. */
#define XCR0_SSE        (1u << 1)
#define XCR0_YMM        (1u << 2)
#define XCR0_OPMASK     (1u << 5)
#define XCR0_ZMM_HI256  (1u << 6)
#define XCR0_HI16_ZMM   (1u << 7)

/* XGETBV without needing -mxsave; only valid when CPUID reports OSXSAVE. */
static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static unsigned detect_features(void)
{
    unsigned eax, ebx, ecx, edx;
    unsigned f = 0;

    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
        return 0;
    if (ecx & bit_AES)
        f |= AESGEN_CPU_AESNI;
    if (ecx & bit_PCLMUL)
        f |= AESGEN_CPU_PCLMUL;

    /* Without OSXSAVE, XGETBV faults and no VEX/EVEX ISA can be used. */
    int osxsave = (ecx & bit_OSXSAVE) != 0;
    int has_avx = (ecx & bit_AVX) != 0;
    uint64_t xcr0 = osxsave ? read_xcr0() : 0;
    int ymm_state = (xcr0 & (XCR0_SSE | XCR0_YMM)) == (XCR0_SSE | XCR0_YMM);
    uint64_t zmm_bits = XCR0_OPMASK | XCR0_ZMM_HI256 | XCR0_HI16_ZMM;
    int zmm_state = ymm_state && (xcr0 & zmm_bits) == zmm_bits;
    if (!(has_avx && ymm_state))
        return f;
    f |= AESGEN_CPU_AVX;

    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
        return f;
    if (ebx & bit_AVX2)
        f |= AESGEN_CPU_AVX2;
    if (ebx & bit_BMI2)
        f |= AESGEN_CPU_BMI2;
    if (ecx & (1u << 9))            /* VAES */
        f |= AESGEN_CPU_VAES;
    if (ecx & (1u << 10))           /* VPCLMULQDQ */
        f |= AESGEN_CPU_VPCLMUL;
    if (zmm_state) {
        if (ebx & (1u << 16))
            f |= AESGEN_CPU_AVX512F;
        if (ebx & (1u << 17))
            f |= AESGEN_CPU_AVX512DQ;
        if (ebx & (1u << 30))
            f |= AESGEN_CPU_AVX512BW;
        if (ebx & (1u << 31))
            f |= AESGEN_CPU_AVX512VL;
    }
    return f;
}
#else
static unsigned detect_features(void)
{
    return 0;
}
#endif

/* Bit 31 marks "detected"; detection is idempotent, so a race only repeats it. */
#define FEATURES_KNOWN (1u << 31)
static atomic_uint cached_features;
static atomic_uint test_mask = AESGEN_CPU_KEEP_ALL;   /* see aesgen_cpu_test_mask */

unsigned aesgen_cpu_features(void)
{
    unsigned f = atomic_load_explicit(&cached_features, memory_order_relaxed);
    if (!(f & FEATURES_KNOWN)) {
        f = detect_features() | FEATURES_KNOWN;
        atomic_store_explicit(&cached_features, f, memory_order_relaxed);
    }
    return f & ~FEATURES_KNOWN & atomic_load_explicit(&test_mask, memory_order_relaxed);
}

void aesgen_cpu_test_mask(unsigned keep)
{
    atomic_store_explicit(&test_mask, keep, memory_order_relaxed);
}
