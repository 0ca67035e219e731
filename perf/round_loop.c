/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* perf/bitslice_order.py's timer: run_rounds(n, frame) loops one bitsliced round n
 * times (the assembly the tool writes); printed: the median over 15 samples of the
 * cycles per round, a cycle being the time of one add in the bench's dependent chain
 * (tests/bench/bench_machine.c, register + register: a chain of immediate adds runs
 * several a cycle on cores that fold them at rename) measured right before each sample
 * (so clock changes cancel). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench.h"

void run_rounds(long n, void *frame);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC_RAW, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static unsigned char frame[4096] __attribute__((aligned(64)));

int main(void)
{
    enum { SAMPLES = 15 };
    const long rounds = 300000;
    double sample[SAMPLES];
    for (int k = 0; k < SAMPLES; k++) {
        double cycle = 1e-9 / bench_core_ghz_sample(200000);   /* 40 M adds, seconds */
        double t = now();
        run_rounds(rounds, frame);
        sample[k] = (now() - t) / (double)rounds / cycle;
    }
    qsort(sample, SAMPLES, sizeof sample[0], by_value);
    printf("%.2f\n", sample[SAMPLES / 2]);
    return 0;
}
