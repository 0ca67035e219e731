/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * The C test binary.  Usage: aesgen_tests [--only GROUP]...
 * An unknown GROUP or argument is refused (exit 2, the groups listed) before any test
 * runs, so a misspelled group cannot pass by running nothing.
 * Environment: AESGEN_ROOT (repository, default "."), AESGEN_VECTORS (vector
 * directory, default $AESGEN_ROOT/tests/vectors), AESGEN_TEST_SEED.
 * The last line of output is `N passed, N failed, N skipped`.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "isa.h"
#include "tests.h"

struct group {
    const char *name;
    void (*run)(const struct test_config *config);
};

static const struct group groups[] = {
    { "api", test_api },
    { "known-answer", test_known_answers },
    { "differential", test_differential },
    { "page-edge", test_page_edges },
    { "abi", test_abi },
    { "threads", test_threads },
    { "first-use-threads", test_first_use_threads },
    { "xts-api", test_xts_api },
    { "xts-sectors", test_xts_sectors },
    { "xts-known-answer", test_xts_known_answers },
    { "xts-differential", test_xts_differential },
    { "xts-page-edge", test_xts_page_edges },
    { "xts-abi", test_xts_abi },
    { "xts-threads", test_xts_threads },
    { "gcm-api", test_gcm_api },
    { "gcm-known-answer", test_gcm_known_answers },
    { "gcm-differential", test_gcm_differential },
    { "gcm-page-edge", test_gcm_page_edges },
    { "gcm-abi", test_gcm_abi },
    { "gcm-threads", test_gcm_threads },
    { "cpu-features", test_cpu_features },
    { "gcm-contract", test_gcm_contract },
    { "isa-context", test_isa_context },
    { "counter-readback", test_counter_readback },
    { "xts-keys", test_xts_keys },
    { "ipsec", test_ipsec },
    { "variants", test_variants },
};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool wanted(const char *name, int argc, char **argv)
{
    bool any_only = false;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--only") == 0) {
            any_only = true;
            if (strcmp(argv[i + 1], name) == 0)
                return true;
        }
    }
    return !any_only;
}

/* Every argument a `--only GROUP` pair with a known GROUP; else the usage and false. */
static bool arguments_valid(int argc, char **argv)
{
    for (int i = 1; i < argc; i += 2) {
        bool known = false;
        if (strcmp(argv[i], "--only") != 0)
            fprintf(stderr, "aesgen_tests: unknown argument '%s'\n", argv[i]);
        else if (i + 1 >= argc)
            fprintf(stderr, "aesgen_tests: --only needs a GROUP\n");
        else {
            for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
                known |= strcmp(argv[i + 1], groups[g].name) == 0;
            if (!known)
                fprintf(stderr, "aesgen_tests: unknown group '%s'\n", argv[i + 1]);
        }
        if (!known) {
            fprintf(stderr, "usage: aesgen_tests [--only GROUP]...; groups:");
            for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
                fprintf(stderr, "%s %s", g ? "," : "", groups[g].name);
            fprintf(stderr, "\n");
            return false;
        }
    }
    return true;
}

static struct test_config make_config(void)
{
    static char self[4096], vectors[4200];
    struct test_config config;
    const char *root = getenv("AESGEN_ROOT");
    config.repo_root = root && *root ? root : ".";
    const char *vec = getenv("AESGEN_VECTORS");
    if (!vec || !*vec) {
        snprintf(vectors, sizeof vectors, "%s/tests/vectors", config.repo_root);
        vec = vectors;
    }
    config.vectors_dir = vec;
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    config.self_path = self;
    return config;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && strcmp(argv[1], "--print-isa") == 0)
        return api_print_isa_child();
    if (argc > 1 && strcmp(argv[1], "--print-variant") == 0)
        return variants_print_child();
    if (argc > 1 && strcmp(argv[1], "--first-use-race") == 0)
        return threads_first_use_child();
    if (!arguments_valid(argc, argv))
        return 2;

    const char *seed_text = getenv("AESGEN_TEST_SEED");
    uint64_t seed = seed_text ? strtoull(seed_text, NULL, 0) : 20240601;
    rng_seed(seed);
    struct test_config config = make_config();
    check_note("aesgen C tests: seed %llu (AESGEN_TEST_SEED), repo %s, vectors %s",
               (unsigned long long)seed, config.repo_root, config.vectors_dir);

    check_set_group("isa availability");
    isa_resolve();
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        if (!wanted(groups[g].name, argc, argv))
            continue;
        double start = now_seconds();
        unsigned long failed_before = check_failed_count(), total_before = check_total_count();
        isa_select_reset();
        groups[g].run(&config);
        isa_select_reset();
        check_note("group %-16s %6.2f s, %6lu checks, %lu failed", groups[g].name,
                   now_seconds() - start, check_total_count() - total_before,
                   check_failed_count() - failed_before);
    }
    return check_finish();
}
