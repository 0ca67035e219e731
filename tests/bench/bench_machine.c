/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * Machine measurements for the bench: CPU pinning, feature detection (our own CPUID +
 * XGETBV, so the ceiling does not depend on the library under test), TSC rate, core
 * clock, and the AES-round ceiling from independent vaesenc chains.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include "bench.h"

const char *const bench_width_names[3] = {"xmm", "ymm", "zmm"};

/* MONOTONIC_RAW: not slewed by NTP, so a rate measured against it is the hardware's. */
double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

uint64_t bench_rdtsc(void)
{
    return __rdtsc();
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *values, size_t n)
{
    if (n == 0)
        return 0.0;
    qsort(values, n, sizeof *values, compare_doubles);
    if (n % 2)
        return values[n / 2];
    return (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

/* The last CPU we may run on: CPU 0 tends to get more of the interrupts. */
static int last_allowed_cpu(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return -1;
    for (int cpu = CPU_SETSIZE - 1; cpu >= 0; cpu--)
        if (CPU_ISSET(cpu, &set))
            return cpu;
    return -1;
}

void bench_allowed_cpus(char *out, size_t size)
{
    cpu_set_t set;
    size_t used = 0;
    out[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return;
    for (int cpu = 0; cpu < CPU_SETSIZE && used + 8 < size; cpu++)
        if (CPU_ISSET(cpu, &set))
            used += (size_t)snprintf(out + used, size - used, "%s%d", used ? ", " : "", cpu);
}

int bench_pin_cpu(int requested)
{
    int cpu = requested >= 0 ? requested : last_allowed_cpu();
    if (cpu < 0 || cpu >= CPU_SETSIZE)
        return -1;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return -1;
    return cpu;
}

void bench_cpu_model(char *out, size_t size)
{
    unsigned regs[12] = {0};
    unsigned max_ext = __get_cpuid_max(0x80000000u, NULL);
    if (max_ext < 0x80000004u) {
        snprintf(out, size, "unknown CPU");
        return;
    }
    for (unsigned i = 0; i < 3; i++)
        __get_cpuid(0x80000002u + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2],
                    &regs[4 * i + 3]);
    char brand[49];
    memcpy(brand, regs, 48);
    brand[48] = '\0';
    const char *start = brand;
    while (*start == ' ')
        start++;
    snprintf(out, size, "%s", start);
}

/* TSC ticks against MONOTONIC_RAW over a busy-waited interval; median of three. */
double bench_measure_tsc_ghz(void)
{
    double rates[3];
    for (unsigned i = 0; i < 3; i++) {
        double t0 = bench_now_ns();
        uint64_t c0 = bench_rdtsc();
        double t1;
        do
            t1 = bench_now_ns();
        while (t1 - t0 < 20e6);
        uint64_t c1 = bench_rdtsc();
        rates[i] = (double)(c1 - c0) / (t1 - t0);
    }
    return bench_median(rates, 3);
}

/*
 * One long chain of dependent register-register adds: each waits one cycle for the
 * previous one, so adds per second is the core clock.  reg+reg (not reg+imm) because
 * some cores fold small immediate adds at rename and would run the chain faster.
 * The loop counter is an independent chain and hides in the other ALUs.
 */
#define ADDS_PER_ITER 200
static void __attribute__((noinline)) dependent_add_chain(uint64_t iters)
{
    uint64_t acc = 0, addend = 1;
    __asm__ volatile("1:\n\t"
                     ".rept 200\n\t"
                     "add %2, %0\n\t"
                     ".endr\n\t"
                     "dec %1\n\t"
                     "jnz 1b\n\t"
                     : "+r"(acc), "+r"(iters)
                     : "r"(addend)
                     : "cc");
}

/* One clock sample: iters x ADDS_PER_ITER cycles, timed. */
double bench_core_ghz_sample(uint64_t iters)
{
    double t0 = bench_now_ns();
    dependent_add_chain(iters);
    double t1 = bench_now_ns();
    return (double)iters * ADDS_PER_ITER / (t1 - t0);
}

static uint64_t read_xcr0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

/*
 * vaesenc at each width needs both the instruction and the OS saving the registers:
 *   xmm (VEX.128): AES + AVX, XCR0 SSE|YMM
 *   ymm (VEX.256): + VAES
 *   zmm (EVEX.512): + VAES + AVX512F, XCR0 opmask|ZMM_Hi256|Hi16_ZMM
 */
void bench_detect_aes_widths(int has_width[3])
{
    unsigned a, b, c, d;
    has_width[0] = has_width[1] = has_width[2] = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return;
    int aes = (c >> 25) & 1, avx = (c >> 28) & 1, osxsave = (c >> 27) & 1;
    if (!aes || !avx || !osxsave)
        return;
    uint64_t xcr0 = read_xcr0();
    if ((xcr0 & 0x6) != 0x6)
        return;
    has_width[0] = 1;
    if (__get_cpuid_max(0, NULL) < 7)
        return;
    __cpuid_count(7, 0, a, b, c, d);
    int vaes = (c >> 9) & 1, avx512f = (b >> 16) & 1;
    has_width[1] = vaes;
    has_width[2] = vaes && avx512f && (xcr0 & 0xe0) == 0xe0;
}

/*
 * Independent vaesenc chains: CHAINS accumulators, each vaesenc depends only on the
 * previous one of its own chain, so with CHAINS >= latency x throughput the AES units
 * never wait.  8 and 14 chains are both run (BENCH_CHAIN_VARIANTS); the better counts.
 * Register 15 is the round key.  Registers 0..13 fit VEX encodings too.
 * Values are whatever the registers hold: AES has no slow data-dependent paths.
 */
#define VAESENC(w, n) "vaesenc %%" w "mm15, %%" w "mm" #n ", %%" w "mm" #n "\n\t"
#define CHAINS_8(w)                                                                        \
    VAESENC(w, 0) VAESENC(w, 1) VAESENC(w, 2) VAESENC(w, 3) VAESENC(w, 4) VAESENC(w, 5)    \
    VAESENC(w, 6) VAESENC(w, 7)
#define CHAINS_14(w)                                                                       \
    CHAINS_8(w) VAESENC(w, 8) VAESENC(w, 9) VAESENC(w, 10) VAESENC(w, 11) VAESENC(w, 12)   \
    VAESENC(w, 13)
#define VEC_CLOBBERS                                                                       \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",        \
    "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

/* vzeroupper: leave no dirty upper state to slow the SSE code the compiler emits. */
#define DEFINE_CHAIN_LOOP(name, body)                                                      \
    static void __attribute__((noinline)) name(uint64_t iters)                             \
    {                                                                                      \
        __asm__ volatile("1:\n\t" body body "dec %0\n\t"                                   \
                         "jnz 1b\n\t"                                                      \
                         "vzeroupper\n\t"                                                  \
                         : "+r"(iters)                                                     \
                         :                                                                 \
                         : VEC_CLOBBERS, "cc");                                            \
    }

DEFINE_CHAIN_LOOP(vaesenc_xmm_8, CHAINS_8("x"))
DEFINE_CHAIN_LOOP(vaesenc_ymm_8, CHAINS_8("y"))
DEFINE_CHAIN_LOOP(vaesenc_zmm_8, CHAINS_8("z"))
DEFINE_CHAIN_LOOP(vaesenc_xmm_14, CHAINS_14("x"))
DEFINE_CHAIN_LOOP(vaesenc_ymm_14, CHAINS_14("y"))
DEFINE_CHAIN_LOOP(vaesenc_zmm_14, CHAINS_14("z"))

typedef void chain_loop_fn(uint64_t iters);

typedef struct chain_variant {
    chain_loop_fn *fn;
    unsigned vaesenc_per_iter;
} chain_variant;

/* [width][variant]; each loop body is written twice, so 2 x chains instructions. */
static const chain_variant chain_variants[3][BENCH_CHAIN_VARIANTS] = {
    {{vaesenc_xmm_8, 16}, {vaesenc_xmm_14, 28}},
    {{vaesenc_ymm_8, 16}, {vaesenc_ymm_14, 28}},
    {{vaesenc_zmm_8, 16}, {vaesenc_zmm_14, 28}},
};

/* Iterations that take about target_ns, found by growing a small run. */
static uint64_t calibrate_iters(chain_loop_fn *fn, double target_ns)
{
    uint64_t iters = 1000;
    for (;;) {
        double t0 = bench_now_ns();
        fn(iters);
        double dt = bench_now_ns() - t0;
        if (dt >= target_ns / 4 || iters >= (1ull << 40))
            return (uint64_t)((double)iters * target_ns / (dt > 0 ? dt : 1)) + 1;
        iters *= 4;
    }
}

void bench_ceiling_calibrate(int width, double target_ns, uint64_t iters[BENCH_CHAIN_VARIANTS])
{
    for (int v = 0; v < BENCH_CHAIN_VARIANTS; v++)
        iters[v] = calibrate_iters(chain_variants[width][v].fn, target_ns);
}

/* Block-rounds per second of one chain variant: a short run taken right next to each
 * timed sample, so the sample's % of ceiling is measured at the clock it ran at. */
double bench_ceiling_rate(int width, int variant, uint64_t iters)
{
    const chain_variant *cv = &chain_variants[width][variant];
    double t0 = bench_now_ns();
    cv->fn(iters);
    double dt = bench_now_ns() - t0;
    return (double)iters * cv->vaesenc_per_iter * (1u << width) / (dt * 1e-9);
}

/*
 * Block-rounds per second at one width, one timed run per chain variant: a 128-bit
 * lane-round counts 1, so a ymm vaesenc counts 2 and a zmm one 4.
 */
void bench_ceiling_sample(int width, const uint64_t iters[BENCH_CHAIN_VARIANTS],
                          double rates[BENCH_CHAIN_VARIANTS])
{
    const unsigned lanes = 1u << width;
    for (int v = 0; v < BENCH_CHAIN_VARIANTS; v++) {
        const chain_variant *cv = &chain_variants[width][v];
        double t0 = bench_now_ns();
        cv->fn(iters[v]);
        double dt = bench_now_ns() - t0;
        rates[v] = (double)iters[v] * cv->vaesenc_per_iter * lanes / (dt * 1e-9);
    }
}
