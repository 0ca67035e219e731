/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * CPU feature detection: CPUID says what the processor has, XGETBV says which
 * register state the OS saves on context switches.  An ISA is usable only if
 * both agree (e.g. AVX-512 in a VM or kernel that does not enable ZMM state
 * would fault): each ISA's mask holds the CPUID features and the OS-state bits.
 *
 * Three layers: reading CPUID/XCR0 (per compiler: GNU C's <cpuid.h> and inline
 * asm, or MSVC's __cpuidex/_xgetbv), asking the OS what XCR0 cannot tell (macOS
 * enables the AVX-512 state lazily, at a thread's first AVX-512 instruction, so
 * XCR0 shows it only after that; the kernel says whether it will through the
 * hw.optional.avx512f sysctl), and the decision (aesgen_cpu_features_from), a pure
 * function of those inputs over the table of gen/aesgen_gen.h (generator/features.py),
 * which the tests run on a table of CPUs.
 */
#include <stdatomic.h>
#include "internal.h"

#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif

#define CPUID1_ECX_OSXSAVE (1u << 27)
#define XCR0_SSE_YMM       0x6u      /* the state every VEX ISA needs */
#define XCR0_OPMASK_ZMM    0xe0u     /* opmask, ZMM_Hi256, Hi16_ZMM */

unsigned aesgen_cpu_features_from(const aesgen_cpuid_facts *c)
{
    unsigned f = 0;
    /* Each feature's CPUID bit; a leaf above the highest the CPU reports reads as 0. */
#define CPUID_FEATURE(bit, title, leaf, subleaf, reg, n)                               \
    {                                                                                  \
        const aesgen_cpuid_regs *r = (leaf) == 1 ? &c->leaf1 : (leaf) == 7 ? &c->leaf7 \
                                                                            : NULL;    \
        if (r != NULL && (subleaf) == 0 && c->max_leaf >= (leaf) && ((r->reg >> (n)) & 1u)) \
            f |= (bit);                                                                \
    }
    AESGEN_GEN_CPUID_FEATURES(CPUID_FEATURE)
#undef CPUID_FEATURE
    /* Without OSXSAVE, XGETBV faults: then no OS state is enabled. */
    uint64_t xcr0 = 0;
    if (c->max_leaf >= 1 && (c->leaf1.ecx & CPUID1_ECX_OSXSAVE)) {
        xcr0 = c->xcr0;
        if (c->os_grants_avx512 && (xcr0 & XCR0_SSE_YMM) == XCR0_SSE_YMM)
            xcr0 |= XCR0_OPMASK_ZMM;
    }
#define XCR0_FEATURE(bit, title, state) \
    if ((xcr0 & (state)) == (state))    \
        f |= (bit);
    AESGEN_GEN_XCR0_FEATURES(XCR0_FEATURE)
#undef XCR0_FEATURE
    return f;
}

#if defined(_MSC_VER) && !defined(__clang__) && defined(_M_X64)
#include <intrin.h>
#include <immintrin.h>
#define HAVE_CPUID 1
static aesgen_cpuid_regs cpuid(unsigned leaf, unsigned subleaf)
{
    int r[4];
    __cpuidex(r, (int)leaf, (int)subleaf);
    aesgen_cpuid_regs regs = { (unsigned)r[0], (unsigned)r[1], (unsigned)r[2], (unsigned)r[3] };
    return regs;
}
static uint64_t read_xcr0(void)
{
    return _xgetbv(0);
}
#elif defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define HAVE_CPUID 1
static aesgen_cpuid_regs cpuid(unsigned leaf, unsigned subleaf)
{
    aesgen_cpuid_regs r = { 0, 0, 0, 0 };
    __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
    return r;
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
    aesgen_cpuid_facts c = { 0 };
    c.max_leaf = cpuid(0, 0).eax;
    if (c.max_leaf >= 1)
        c.leaf1 = cpuid(1, 0);
    if (c.max_leaf >= 7)
        c.leaf7 = cpuid(7, 0);
    if (c.max_leaf >= 1 && (c.leaf1.ecx & CPUID1_ECX_OSXSAVE))
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
