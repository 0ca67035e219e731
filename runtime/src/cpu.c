/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * CPU feature detection: CPUID says what the processor has, XGETBV says which
 * register state the OS saves on context switches.  An ISA is usable only if
 * both agree (e.g. AVX-512 in a VM or kernel that does not enable ZMM state
 * would fault): each ISA's mask holds the CPUID features and the OS-state bits.
 */
#include <stdatomic.h>
#include "internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* XGETBV without needing -mxsave; only valid when CPUID reports OSXSAVE. */
static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

/* One CPUID register; 0 when the leaf does not exist. */
struct cpuid_regs {
    unsigned eax, ebx, ecx, edx;
};

static struct cpuid_regs cpuid(unsigned leaf, unsigned subleaf)
{
    struct cpuid_regs r = { 0, 0, 0, 0 };
    if (!__get_cpuid_count(leaf, subleaf, &r.eax, &r.ebx, &r.ecx, &r.edx))
        r.eax = r.ebx = r.ecx = r.edx = 0;
    return r;
}

/* The table of gen/aesgen_gen.h (generator/features.py): each feature's CPUID bit, and
 * the XCR0 state the OS must enable for the os: ones. */
static unsigned detect_features(void)
{
    unsigned f = 0;
#define CPUID_FEATURE(bit, title, leaf, subleaf, reg, n) \
    if ((cpuid(leaf, subleaf).reg >> (n)) & 1u)        \
        f |= (bit);
    AESGEN_GEN_CPUID_FEATURES(CPUID_FEATURE)
#undef CPUID_FEATURE
    /* Without OSXSAVE, XGETBV faults: then no OS state is enabled. */
    const int osxsave = (cpuid(1, 0).ecx & bit_OSXSAVE) != 0;
    const uint64_t xcr0 = osxsave ? read_xcr0() : 0;
#define XCR0_FEATURE(bit, title, state) \
    if ((xcr0 & (state)) == (state))    \
        f |= (bit);
    AESGEN_GEN_XCR0_FEATURES(XCR0_FEATURE)
#undef XCR0_FEATURE
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

unsigned aesgen_cpu_features(void)
{
    unsigned f = atomic_load_explicit(&cached_features, memory_order_relaxed);
    if (!(f & FEATURES_KNOWN)) {
        f = detect_features() | FEATURES_KNOWN;
        atomic_store_explicit(&cached_features, f, memory_order_relaxed);
    }
    return f & ~FEATURES_KNOWN;
}
