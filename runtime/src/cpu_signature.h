/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * The CPU's signature as generator/uarch.py's rows name CPUs: the CPUID leaf 0 vendor
 * string and the display family and model of leaf 1, the extended fields folded in as the
 * SDM says (the extended family only for base family 15, the extended model for families
 * 6 and 15), which is also what Linux prints in /proc/cpuinfo.  The runtime matches it
 * against the uarch table (isa.c); the bench records it with its results, so that a
 * result names the uarch it was measured on (tests/bench, perf/marks.py).
 */
#ifndef AESGEN_CPU_SIGNATURE_H
#define AESGEN_CPU_SIGNATURE_H

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static inline void aesgen_cpu_signature(char vendor[13], unsigned *family, unsigned *model)
{
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    memset(vendor, 0, 13);
    *family = *model = 0;
    if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx))
        return;
    memcpy(vendor, &ebx, 4);
    memcpy(vendor + 4, &edx, 4);
    memcpy(vendor + 8, &ecx, 4);
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
        return;
    unsigned base_family = (eax >> 8) & 0xf, base_model = (eax >> 4) & 0xf;
    *family = base_family == 15 ? base_family + ((eax >> 20) & 0xff) : base_family;
    *model = (base_family == 6 || base_family == 15) ? base_model | ((eax >> 12) & 0xf0)
                                                     : base_model;
}
#else
static inline void aesgen_cpu_signature(char vendor[13], unsigned *family, unsigned *model)
{
    memset(vendor, 0, 13);
    *family = *model = 0;
}
#endif

#endif
