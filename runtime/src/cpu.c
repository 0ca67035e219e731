/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * CPU feature detection: CPUID says what the processor has, XGETBV says which
 * register state the OS saves on context switches.  An ISA is usable only if
 * both agree (e.g. AVX-512 in a VM or kernel that does not enable ZMM state
 * would fault).
 *
 * Three layers: reading CPUID/XCR0 (per compiler: GNU C's <cpuid.h> and inline
 * asm, or MSVC's __cpuidex/_xgetbv), asking the OS what XCR0 cannot tell (macOS
 * enables the AVX-512 state lazily, at a thread's first AVX-512 instruction, so
 * XCR0 shows it only after that; the kernel says whether it will through the
 * hw.optional.avx512f sysctl), and the decision (aesgen_cpu_features_from), a pure
 * function of those inputs that the tests run on a table of CPUs.
 */
#include <stdatomic.h>
#include "internal.h"

#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif

/* XCR0 bits: which state components the OS saves. */
#define XCR0_SSE        (1u << 1)
#define XCR0_YMM        (1u << 2)
#define XCR0_OPMASK     (1u << 5)
#define XCR0_ZMM_HI256  (1u << 6)
#define XCR0_HI16_ZMM   (1u << 7)

/* CPUID.1:ECX and CPUID.(7,0):EBX/ECX bits used here (Intel SDM vol. 2A, CPUID). */
#define L1_ECX_PCLMUL   (1u << 1)
#define L1_ECX_AES      (1u << 25)
#define L1_ECX_OSXSAVE  (1u << 27)
#define L1_ECX_AVX      (1u << 28)
#define L7_EBX_AVX2     (1u << 5)
#define L7_EBX_BMI2     (1u << 8)
#define L7_EBX_AVX512F  (1u << 16)
#define L7_EBX_AVX512DQ (1u << 17)
#define L7_EBX_AVX512BW (1u << 30)
#define L7_EBX_AVX512VL (1u << 31)
#define L7_ECX_VAES     (1u << 9)
#define L7_ECX_VPCLMUL  (1u << 10)

unsigned aesgen_cpu_features_from(const aesgen_cpuid_facts *c)
{
    unsigned f = 0;
    if (c->max_leaf < 1)
        return 0;
    if (c->leaf1_ecx & L1_ECX_AES)
        f |= AESGEN_CPU_AESNI;
    if (c->leaf1_ecx & L1_ECX_PCLMUL)
        f |= AESGEN_CPU_PCLMUL;

    /* Without OSXSAVE, XGETBV faults and no VEX/EVEX ISA can be used. */
    uint64_t xcr0 = (c->leaf1_ecx & L1_ECX_OSXSAVE) ? c->xcr0 : 0;
    int ymm_state = (xcr0 & (XCR0_SSE | XCR0_YMM)) == (XCR0_SSE | XCR0_YMM);
    uint64_t zmm_bits = XCR0_OPMASK | XCR0_ZMM_HI256 | XCR0_HI16_ZMM;
    int zmm_state = ymm_state && ((xcr0 & zmm_bits) == zmm_bits || c->os_grants_avx512);
    if (!((c->leaf1_ecx & L1_ECX_AVX) && ymm_state))
        return f;
    f |= AESGEN_CPU_AVX;

    if (c->max_leaf < 7)
        return f;
    if (c->leaf7_ebx & L7_EBX_AVX2)
        f |= AESGEN_CPU_AVX2;
    if (c->leaf7_ebx & L7_EBX_BMI2)
        f |= AESGEN_CPU_BMI2;
    if (c->leaf7_ecx & L7_ECX_VAES)
        f |= AESGEN_CPU_VAES;
    if (c->leaf7_ecx & L7_ECX_VPCLMUL)
        f |= AESGEN_CPU_VPCLMUL;
    if (zmm_state) {
        if (c->leaf7_ebx & L7_EBX_AVX512F)
            f |= AESGEN_CPU_AVX512F;
        if (c->leaf7_ebx & L7_EBX_AVX512DQ)
            f |= AESGEN_CPU_AVX512DQ;
        if (c->leaf7_ebx & L7_EBX_AVX512BW)
            f |= AESGEN_CPU_AVX512BW;
        if (c->leaf7_ebx & L7_EBX_AVX512VL)
            f |= AESGEN_CPU_AVX512VL;
    }
    return f;
}

#if defined(_MSC_VER) && !defined(__clang__) && defined(_M_X64)
#include <intrin.h>
#include <immintrin.h>
#define HAVE_CPUID 1
static void cpuid_count(unsigned leaf, unsigned sub, unsigned r[4])
{
    int regs[4];
    __cpuidex(regs, (int)leaf, (int)sub);
    for (int i = 0; i < 4; i++)
        r[i] = (unsigned)regs[i];
}
static uint64_t read_xcr0(void)
{
    return _xgetbv(0);
}
#elif defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define HAVE_CPUID 1
static void cpuid_count(unsigned leaf, unsigned sub, unsigned r[4])
{
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}
/* XGETBV without needing -mxsave; only valid when CPUID reports OSXSAVE. */
static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}
#endif

/* Whether the OS enables the AVX-512 state when a thread first uses it, although XCR0
 * does not show it yet (macOS; elsewhere XCR0 is the whole answer). */
static int os_grants_avx512_lazily(void)
{
#if defined(__APPLE__)
    int value = 0;
    size_t size = sizeof value;
    return sysctlbyname("hw.optional.avx512f", &value, &size, NULL, 0) == 0 && value == 1;
#else
    return 0;
#endif
}

static unsigned detect_features(void)
{
#ifdef HAVE_CPUID
    aesgen_cpuid_facts c = {0};
    unsigned r[4];
    cpuid_count(0, 0, r);
    c.max_leaf = r[0];
    if (c.max_leaf >= 1) {
        cpuid_count(1, 0, r);
        c.leaf1_ecx = r[2];
    }
    if (c.max_leaf >= 7) {
        cpuid_count(7, 0, r);
        c.leaf7_ebx = r[1];
        c.leaf7_ecx = r[2];
    }
    if (c.leaf1_ecx & L1_ECX_OSXSAVE)
        c.xcr0 = read_xcr0();
    c.os_grants_avx512 = os_grants_avx512_lazily();
    return aesgen_cpu_features_from(&c);
#else
    return 0;
#endif
}

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
