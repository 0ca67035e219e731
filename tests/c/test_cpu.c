/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * cpu-features: the feature decision (aesgen_cpu_features_from in runtime/src/cpu.c) on
 * a table of CPUs and operating systems written out by hand -- which AESGEN_CPU_* bits
 * each must give -- and this machine's detected features against the kernel's view in
 * /proc/cpuinfo (Linux lists avx/avx512 flags only when the OS enables their state).
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "tests.h"

/* CPUID bits as the Intel SDM numbers them, spelled out again here on purpose. */
enum {
    C1_PCLMUL = 1u << 1, C1_AES = 1u << 25, C1_OSXSAVE = 1u << 27, C1_AVX = 1u << 28,
    B7_AVX2 = 1u << 5, B7_BMI2 = 1u << 8, B7_F = 1u << 16, B7_DQ = 1u << 17,
    B7_BW = 1u << 30, B7_VL = 1u << 31, C7_VAES = 1u << 9, C7_VPCLMUL = 1u << 10,
};

#define VEX_ALL  (AESGEN_CPU_AESNI | AESGEN_CPU_PCLMUL | AESGEN_CPU_AVX | AESGEN_CPU_AVX2 | \
                  AESGEN_CPU_BMI2 | AESGEN_CPU_VAES | AESGEN_CPU_VPCLMUL)
#define EVEX_ALL (AESGEN_CPU_AVX512F | AESGEN_CPU_AVX512BW | AESGEN_CPU_AVX512VL | \
                  AESGEN_CPU_AVX512DQ)

static const unsigned L1_MODERN = C1_AES | C1_PCLMUL | C1_OSXSAVE | C1_AVX;
static const unsigned B7_AVX512 = B7_AVX2 | B7_BMI2 | B7_F | B7_DQ | B7_BW | B7_VL;

static void decision_table(void)
{
    static const struct {
        const char *what;
        aesgen_cpuid_facts facts;
        unsigned want;
    } cases[] = {
        { "Sapphire Rapids / Zen 4, Linux (XCR0 0xe7)",
          { 0x20, L1_MODERN, B7_AVX512, C7_VAES | C7_VPCLMUL, 0xe7, 0 }, VEX_ALL | EVEX_ALL },
        { "the same CPU in a VM that saves no ZMM state (XCR0 0x07)",
          { 0x20, L1_MODERN, B7_AVX512, C7_VAES | C7_VPCLMUL, 0x07, 0 }, VEX_ALL },
        { "the same CPU on macOS before the first AVX-512 instruction (XCR0 0x07, sysctl 1)",
          { 0x20, L1_MODERN, B7_AVX512, C7_VAES | C7_VPCLMUL, 0x07, 1 }, VEX_ALL | EVEX_ALL },
        { "macOS's promise does not add AVX-512 the CPU lacks (Zen 3)",
          { 0x10, L1_MODERN, B7_AVX2 | B7_BMI2, C7_VAES | C7_VPCLMUL, 0x07, 1 }, VEX_ALL },
        { "macOS's promise needs YMM state (XCR0 0x03)",
          { 0x20, L1_MODERN, B7_AVX512, C7_VAES | C7_VPCLMUL, 0x03, 1 },
          AESGEN_CPU_AESNI | AESGEN_CPU_PCLMUL },
        { "opmask state missing (XCR0 0xc7)",
          { 0x20, L1_MODERN, B7_AVX512, C7_VAES | C7_VPCLMUL, 0xc7, 0 }, VEX_ALL },
        { "no OSXSAVE: XCR0 is not read, whatever it would say",
          { 0x20, C1_AES | C1_PCLMUL | C1_AVX, B7_AVX512, C7_VAES, 0xe7, 0 },
          AESGEN_CPU_AESNI | AESGEN_CPU_PCLMUL },
        { "Haswell: AVX2 and BMI2, no VAES",
          { 0x0d, L1_MODERN, B7_AVX2 | B7_BMI2, 0, 0x07, 0 },
          AESGEN_CPU_AESNI | AESGEN_CPU_PCLMUL | AESGEN_CPU_AVX | AESGEN_CPU_AVX2 |
          AESGEN_CPU_BMI2 },
        { "leaf 7 not reported (max leaf 6): its registers are ignored",
          { 6, L1_MODERN, B7_AVX512, C7_VAES, 0xe7, 0 },
          AESGEN_CPU_AESNI | AESGEN_CPU_PCLMUL | AESGEN_CPU_AVX },
        { "a CPU without AES-NI (hypervisor mask)",
          { 0x20, C1_OSXSAVE | C1_AVX, B7_AVX2, 0, 0x07, 0 },
          AESGEN_CPU_AVX | AESGEN_CPU_AVX2 },
        { "no CPUID leaf 1", { 0, L1_MODERN, B7_AVX512, C7_VAES, 0xe7, 1 }, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned got = aesgen_cpu_features_from(&cases[i].facts);
        check(got == cases[i].want, "cpu features: %s: 0x%x (got 0x%x)", cases[i].what,
              cases[i].want, got);
    }
}

/* The flags field of /proc/cpuinfo's first processor, or "" when there is none. */
static int read_cpuinfo_flags(char *flags, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[8192];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) == 0 && strchr(line, ':')) {
            snprintf(flags, size, " %s", strchr(line, ':') + 1);
            flags[strcspn(flags, "\n")] = ' ';
            found = 1;
        }
    }
    fclose(f);
    return found;
}

static void this_machine(void)
{
    static char flags[8192];
    if (!read_cpuinfo_flags(flags, sizeof flags)) {
        check_skip("cpu features of this machine: no /proc/cpuinfo flags");
        return;
    }
    static const struct { unsigned bit; const char *flag; } map[] = {
        { AESGEN_CPU_AESNI, "aes" },        { AESGEN_CPU_PCLMUL, "pclmulqdq" },
        { AESGEN_CPU_AVX, "avx" },          { AESGEN_CPU_AVX2, "avx2" },
        { AESGEN_CPU_BMI2, "bmi2" },        { AESGEN_CPU_VAES, "vaes" },
        { AESGEN_CPU_VPCLMUL, "vpclmulqdq" }, { AESGEN_CPU_AVX512F, "avx512f" },
        { AESGEN_CPU_AVX512BW, "avx512bw" }, { AESGEN_CPU_AVX512VL, "avx512vl" },
        { AESGEN_CPU_AVX512DQ, "avx512dq" },
    };
    unsigned detected = aesgen_cpu_features();
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        char word[32];
        snprintf(word, sizeof word, " %s ", map[i].flag);
        int listed = strstr(flags, word) != NULL;
        check(listed == !!(detected & map[i].bit),
              "cpu features of this machine: %s %s in /proc/cpuinfo and %s", map[i].flag,
              listed ? "listed" : "not listed", detected & map[i].bit ? "detected" : "not detected");
    }
}

void test_cpu_features(const struct test_config *config)
{
    (void)config;
    check_set_group("cpu-features");
    decision_table();
    this_machine();
}
