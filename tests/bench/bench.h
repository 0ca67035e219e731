/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * aesgen benchmark -- shared types.
 *
 * The bench is split by concern:
 *   bench_main.c       the sampling loop, the order of the run
 *   bench_options.c    command line, environment, BENCH_FILTER
 *   bench_machine.c    CPU pinning, CPUID/XGETBV, TSC and core clock, AES-round ceiling
 *   bench_workloads.c  the table of workloads (mode x implementation family)
 *   bench_report.c     tables, JSON file, Linux tcrypt-format lines
 *
 * A workload is one mode (CTR, XCTR, XTS, GCM) with a setup and a run function
 * for our library (one instance per ISA) and, where OpenSSL has the mode, for OpenSSL.
 * Adding a mode means adding functions and one entry to bench_workloads[].
 */
#ifndef AESGEN_BENCH_H
#define AESGEN_BENCH_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_MAX_LEN    16384   /* largest message; src and dst stay in L1 together */
#define BENCH_MAX_IMPLS  8       /* generic + 4 ISAs + auto + OpenSSL, with room to spare */
#define BENCH_MAX_LENGTHS 32     /* --lengths */
#define BENCH_KEY_MAX    64      /* key material handed to setup (XTS needs 2 keys) */
#define BENCH_MAX_SAMPLES 101
#define BENCH_EXTRA_OUT  64      /* room after dst[len] for what else a message writes */

/*
 * Encrypt `count` messages of `len` bytes, each one started afresh (new IV, same key),
 * from src to dst.  The loop over messages lives inside the workload so the timed path
 * has no indirect call per message.
 */
typedef void bench_run_fn(void *state, uint8_t *dst, const uint8_t *src, size_t len,
                          size_t count);

/* Makes the per-key state of our library for one ISA; NULL if it cannot. */
typedef void *bench_setup_ours_fn(const char *isa, const uint8_t *key, size_t key_len);
/* Makes the per-key state of the peer (OpenSSL); NULL if it cannot. */
typedef void *bench_setup_peer_fn(unsigned keybits, const uint8_t *key, size_t key_len);
typedef void bench_teardown_fn(void *state);

typedef struct bench_workload {
    const char *mode;             /* filter value and JSON "mode": "ctr", "xts-enc" */
    const char *family;           /* a second filter value shared by related workloads
                                     ("xts" for xts-enc and xts-dec); NULL if none */
    const char *title;            /* table heading: "CTR" */
    const char *tcrypt_alg;       /* tcrypt's algorithm name; NULL: "<mode>(aes)" */
    const char *tcrypt_op;        /* "encryption" (NULL) or "decryption" */
    unsigned key_factor;          /* key material = key_factor * AES key size (XTS: 2) */
    unsigned extra_blocks;        /* AES blocks per message beyond ceil(len/16) (XTS tweak: 1) */
    unsigned extra_out;           /* bytes a message writes after dst[len] that the output
                                     check compares too (GCM: the tag; at most
                                     BENCH_EXTRA_OUT) */
    int tcrypt_lines;             /* also print Linux tcrypt-format lines */
    const char *ours_per_message; /* what one timed message costs us, for the header */
    const char *peer_per_message; /* same for the peer; NULL when there is no peer */
    bench_setup_ours_fn *setup_ours;
    bench_run_fn *run_ours;
    bench_teardown_fn *teardown_ours;
    bench_setup_peer_fn *setup_peer;   /* NULL: OpenSSL lacks the mode, tables print "-" */
    bench_run_fn *run_peer;
    bench_teardown_fn *teardown_peer;
} bench_workload;

extern const bench_workload bench_workloads[];
extern const size_t bench_workload_count;

/* One implementation ready to time: a workload's state for one ISA or for the peer. */
typedef struct bench_impl {
    const char *name;            /* "aesni_avx", ..., "generic", "openssl" */
    int is_peer;
    bench_run_fn *run;
    bench_teardown_fn *teardown;
    void *state;
} bench_impl;

/* The median result of one (workload, keybits, length, impl). */
typedef struct bench_result {
    const bench_workload *workload;
    unsigned keybits;
    size_t len;
    const char *impl;
    int is_peer;
    double ns_per_msg;
    double gb_per_s;             /* 1e9 bytes per second */
    double cycles_per_byte;      /* core cycles (measured clock) */
    double tsc_per_msg;          /* TSC ticks per message, for tcrypt lines */
    double pct_ceiling;          /* < 0 when the ceiling is unknown */
    size_t batch;                /* messages per timed sample */
    unsigned samples;
    int verified;                /* 1 output matched the reference, 0 mismatch, -1 no reference */
} bench_result;

/* What the machine measurements found; medians over the same passes as the workloads. */
typedef struct bench_machine {
    int cpu;                     /* CPU pinned to, -1 if pinning failed */
    char model[64];
    char vendor[13];             /* CPUID leaf 0 */
    unsigned family, model_id;   /* display family and model (CPUID leaf 1), as the runtime's */
    const char *variant;         /* aesgen_variant_name(): the uarch whose choices ran */
    double tsc_ghz;
    double core_ghz;             /* dependent-add chain, median; used for cycles/byte */
    double core_ghz_min;         /* spread of the clock samples, to show drift */
    double core_ghz_max;
    int has_width[3];            /* vaesenc usable at xmm, ymm, zmm */
    double rounds_per_s[3];      /* AES block-rounds per second at each width, 0 if unusable */
    double ceiling;              /* the most of rounds_per_s[], 0 if none */
    int ceiling_width;           /* index into rounds_per_s of the ceiling */
} bench_machine;

extern const char *const bench_width_names[3];   /* "xmm", "ymm", "zmm" */

/* bench_options.c */
typedef struct bench_options {
    int with_generic;
    int quick;
    int cpu;                    /* -1: pick one */
    unsigned samples;
    double sample_target_ns;    /* how long one timed batch should take */
    const char *filter;         /* "mode=ctr,bits=256,len=1420,impl=openssl" or NULL */
    const char *json_path;
    int tcrypt_all;
    size_t lengths[BENCH_MAX_LENGTHS];   /* message lengths of the run (--lengths) */
    size_t n_lengths;
} bench_options;

/* 1 if parsed; 0 after printing why not.  --help prints and exits. */
int bench_parse_options(int argc, char **argv, bench_options *o);
/* 1 if the filter names this value for key (impl=auto: opt-in columns). */
int bench_filter_names(const char *spec, const char *key, const char *value);
/* Allowed unless the filter names values for key and none of them is this one. */
int bench_filter_allows(const char *spec, const char *key, const char *value);
int bench_filter_allows_number(const char *spec, const char *key, size_t value);
/* The filter's mode values name this workload's mode or family (or there are none). */
int bench_filter_allows_workload(const char *spec, const bench_workload *w);

/* bench_machine.c */
double bench_now_ns(void);
double bench_median(double *values, size_t n);   /* sorts values */
int bench_pin_cpu(int requested);                 /* requested < 0: pick one; returns cpu or -1 */
void bench_allowed_cpus(char *out, size_t size);  /* "0, 1": the CPUs this process may run on */
void bench_cpu_model(char *out, size_t size);
double bench_measure_tsc_ghz(void);
double bench_core_ghz_sample(uint64_t iters);     /* iters x 200 dependent adds */
void bench_detect_aes_widths(int has_width[3]);
double bench_ceiling_rate(int width, int variant, uint64_t iters);
#define BENCH_CHAIN_VARIANTS 2                      /* 8 and 14 independent chains */
void bench_ceiling_calibrate(int width, double target_ns, uint64_t iters[BENCH_CHAIN_VARIANTS]);
void bench_ceiling_sample(int width, const uint64_t iters[BENCH_CHAIN_VARIANTS],
                          double rates[BENCH_CHAIN_VARIANTS]);
uint64_t bench_rdtsc(void);

/* bench_report.c */
void bench_print_machine(const bench_machine *m);
void bench_print_table(const bench_result *results, size_t n, const char *const *impls,
                       size_t n_impls, const bench_machine *m);
void bench_print_tcrypt(const bench_result *results, size_t n, const char *const *impls,
                        size_t n_impls, unsigned first_test);
int bench_write_json(const char *path, const bench_result *results, size_t n,
                     const bench_machine *m, unsigned samples, double sample_target_ns);

#endif
