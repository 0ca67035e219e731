/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * cpu-features: the feature decision (aesgen_cpu_features_from in runtime/src/cpu.c,
 * over the CPUID/XCR0 table of gen/aesgen_gen.h) on a table of CPUs and operating
 * systems, each with the set of ISAs it must be able to run, written out by hand; and
 * this machine's detected features against the kernel's view in /proc/cpuinfo (Linux
 * lists avx/avx512 flags only when the OS enables their register state).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "child.h"
#include "internal.h"
#include "tests.h"

/* CPUID bits as the Intel SDM numbers them, spelled out again here on purpose. */
enum {
    C1_PCLMUL = 1u << 1, C1_AES = 1u << 25, C1_OSXSAVE = 1u << 27, C1_AVX = 1u << 28,
    B7_AVX2 = 1u << 5, B7_BMI2 = 1u << 8, B7_F = 1u << 16, B7_DQ = 1u << 17,
    B7_BW = 1u << 30, B7_VL = 1u << 31, C7_VAES = 1u << 9, C7_VPCLMUL = 1u << 10,
};

#define L1_MODERN (C1_AES | C1_PCLMUL | C1_OSXSAVE | C1_AVX)
#define B7_AVX512 (B7_AVX2 | B7_BMI2 | B7_F | B7_DQ | B7_BW | B7_VL)
#define C7_VECTOR (C7_VAES | C7_VPCLMUL)
#define FACTS(max, l1c, l7b, l7c, xcr0, mac) \
    { (max), { 0, 0, (l1c), 0 }, { 0, (l7b), (l7c), 0 }, (xcr0), (mac) }

/* The ISAs a feature set runs: their names, space-separated, in table order. */
static void usable_isas(unsigned features, char *out, size_t size)
{
    out[0] = '\0';
    for (int id = AESGEN_ISA_GENERIC + 1; id < AESGEN_ISA_COUNT; id++) {
        const aesgen_isa_impl *impl = aesgen_isa_impl_get((aesgen_isa_id)id);
        if ((features & impl->needs) == impl->needs) {
            size_t used = strlen(out);
            snprintf(out + used, size - used, "%s%s", used ? " " : "", impl->name);
        }
    }
}

static void decision_table(void)
{
    static const struct {
        const char *what;
        aesgen_cpuid_facts facts;
        const char *isas;
    } cases[] = {
        { "Sapphire Rapids / Zen 4, Linux (XCR0 0xe7)",
          FACTS(0x20, L1_MODERN, B7_AVX512, C7_VECTOR, 0xe7, 0),
          "aesni_avx vaes_avx2 avx10_256 avx10_512" },
        { "the same CPU in a VM that saves no ZMM state (XCR0 0x07)",
          FACTS(0x20, L1_MODERN, B7_AVX512, C7_VECTOR, 0x07, 0), "aesni_avx vaes_avx2" },
        { "the same CPU on macOS before the first AVX-512 instruction (XCR0 0x07, sysctl 1)",
          FACTS(0x20, L1_MODERN, B7_AVX512, C7_VECTOR, 0x07, 1),
          "aesni_avx vaes_avx2 avx10_256 avx10_512" },
        { "macOS's promise does not add AVX-512 the CPU lacks (Zen 3)",
          FACTS(0x10, L1_MODERN, B7_AVX2 | B7_BMI2, C7_VECTOR, 0x07, 1), "aesni_avx vaes_avx2" },
        { "macOS's promise needs the YMM state (XCR0 0x03)",
          FACTS(0x20, L1_MODERN, B7_AVX512, C7_VECTOR, 0x03, 1), "" },
        { "opmask state missing (XCR0 0xc7)",
          FACTS(0x20, L1_MODERN, B7_AVX512, C7_VECTOR, 0xc7, 0), "aesni_avx vaes_avx2" },
        { "no OSXSAVE: XCR0 is not read, whatever it would say",
          FACTS(0x20, C1_AES | C1_PCLMUL | C1_AVX, B7_AVX512, C7_VECTOR, 0xe7, 0), "" },
        { "Haswell: AVX2 and BMI2, no VAES",
          FACTS(0x0d, L1_MODERN, B7_AVX2 | B7_BMI2, 0, 0x07, 0), "aesni_avx" },
        { "VAES without BMI2 (no such CPU, but the mask asks for both)",
          FACTS(0x10, L1_MODERN, B7_AVX2, C7_VECTOR, 0x07, 0), "aesni_avx" },
        { "leaf 7 not reported (max leaf 6): its registers are ignored",
          FACTS(6, L1_MODERN, B7_AVX512, C7_VECTOR, 0xe7, 0), "aesni_avx" },
        { "a CPU without AES-NI (hypervisor mask)",
          FACTS(0x20, C1_OSXSAVE | C1_AVX | C1_PCLMUL, B7_AVX512, C7_VECTOR, 0xe7, 0), "" },
        { "no CPUID leaf 1", FACTS(0, L1_MODERN, B7_AVX512, C7_VECTOR, 0xe7, 1), "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char got[128];
        usable_isas(aesgen_cpu_features_from(&cases[i].facts), got, sizeof got);
        check(strcmp(got, cases[i].isas) == 0, "cpu features: %s: runs [%s] (got [%s])",
              cases[i].what, cases[i].isas, got);
    }
    /* The facts hold CPUID leaves 1 and (7, 0) only: a feature the generator's table
     * takes from another leaf would read as absent. */
#define ONLY_KNOWN_LEAVES(bit, title, leaf, subleaf, reg, n)                             \
    check(((leaf) == 1 || (leaf) == 7) && (subleaf) == 0,                                \
          "cpu features: %s comes from CPUID leaf 1 or (7, 0), which detection reads", title);
    AESGEN_GEN_CPUID_FEATURES(ONLY_KNOWN_LEAVES)
#undef ONLY_KNOWN_LEAVES
}

/* The flags field of /proc/cpuinfo's first processor, space-padded, or 0 if none. */
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
    const char *emulator = getenv(TEST_EMULATOR_ENV);
    if (emulator && *emulator) {
        check_skip("cpu features of this machine: an emulated CPU (%s), which "
                   "/proc/cpuinfo does not describe", emulator);
        return;
    }
    if (!read_cpuinfo_flags(flags, sizeof flags)) {
        check_skip("cpu features of this machine: no /proc/cpuinfo flags");
        return;
    }
    /* OS_YMM: Linux lists avx only with the YMM state enabled; OS_ZMM likewise avx512f. */
    static const struct { unsigned bit; const char *flag; } map[] = {
        { AESGEN_CPU_AESNI, "aes" },          { AESGEN_CPU_PCLMUL, "pclmulqdq" },
        { AESGEN_CPU_AVX, "avx" },            { AESGEN_CPU_OS_YMM, "avx" },
        { AESGEN_CPU_AVX2, "avx2" },          { AESGEN_CPU_BMI2, "bmi2" },
        { AESGEN_CPU_VAES, "vaes" },          { AESGEN_CPU_VPCLMUL, "vpclmulqdq" },
        { AESGEN_CPU_AVX512F, "avx512f" },    { AESGEN_CPU_AVX512BW, "avx512bw" },
        { AESGEN_CPU_AVX512VL, "avx512vl" },  { AESGEN_CPU_AVX512DQ, "avx512dq" },
        { AESGEN_CPU_OS_ZMM, "avx512f" },
    };
    unsigned detected = aesgen_cpu_features();
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        char word[32];
        snprintf(word, sizeof word, " %s ", map[i].flag);
        int listed = strstr(flags, word) != NULL;
        check(listed == !!(detected & map[i].bit),
              "cpu features of this machine: bit 0x%x, %s %s in /proc/cpuinfo, %s", map[i].bit,
              map[i].flag, listed ? "listed" : "not listed",
              detected & map[i].bit ? "detected" : "not detected");
    }
}

void test_cpu_features(const struct test_config *config)
{
    (void)config;
    check_set_group("cpu-features");
    decision_table();
    this_machine();
}
