/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/*
 * The Windows x64 test program (built with x86_64-w64-mingw32-gcc from the runtime, the
 * Win64 flavour of every generated file and the shared C tests; run under wine by
 * tests/win/run.py).  Usage: aesgen_win_tests.exe [--only GROUP]...
 * Environment as tests/c/main.c's: AESGEN_ROOT, AESGEN_VECTORS (a copy of tests/vectors
 * with the .gz files decompressed beside them), AESGEN_TEST_SEED.
 * The groups: the known answers of every mode (tests/c/test_*kat.c), the ABI groups
 * (tests/c/test_abi.c, test_gcm_abi.c: every generated function called directly, its
 * output against the tests' own reference, through the Win64 thunk), what only Win64
 * has (win64-abi), and the unwind test (test_unwind.c).
 * The last line of output is `N passed, N failed, N skipped`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "abi.h"
#include "check.h"
#include "isa.h"
#include "tests.h"
#include "win_tests.h"

void aesgen_test_bad_clobber_rsi(void);
void aesgen_test_bad_clobber_xmm6(void);
void aesgen_test_bad_clobber_xmm15(void);
void aesgen_test_bad_beyond_parameters(void);
void aesgen_test_good_shadow_writer(void);

void test_win64_abi(const struct test_config *config)
{
    (void)config;
    check_set_group("win64-abi");
    static const uint64_t args[6] = { 1, 2, 3, 4, 5, 6 };
    struct abi_call c = abi_call_through_thunk(aesgen_test_good_shadow_writer, args);
    const char *why = abi_violation(&c);
    check(why == NULL, "win64 abi harness: a function writing its shadow space and stack "
          "arguments passes (%s)", why ? why : "");
    c = abi_call_through_thunk(aesgen_test_bad_clobber_rsi, args);
    check(c.clobbered == 1u << 7, "win64 abi harness: notices rsi clobbered");
    c = abi_call_through_thunk(aesgen_test_bad_clobber_xmm6, args);
    check(c.clobbered == 1u << 8, "win64 abi harness: notices xmm6 clobbered");
    c = abi_call_through_thunk(aesgen_test_bad_clobber_xmm15, args);
    check(c.clobbered == 1u << 17, "win64 abi harness: notices xmm15 clobbered");
    c = abi_call_through_thunk(aesgen_test_bad_beyond_parameters, args);
    check(c.stack_clobbered && abi_violation(&c) != NULL,
          "win64 abi harness: notices a write above the shadow space and stack arguments");
}

struct group {
    const char *name;
    void (*run)(const struct test_config *config);
};

static const struct group groups[] = {
    { "known-answer", test_known_answers },
    { "xts-known-answer", test_xts_known_answers },
    { "gcm-known-answer", test_gcm_known_answers },
    { "abi", test_abi },
    { "xts-abi", test_xts_abi },
    { "gcm-abi", test_gcm_abi },
    { "win64-abi", test_win64_abi },
    { "unwind", test_unwind },
};

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

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    const char *seed_text = getenv("AESGEN_TEST_SEED");
    uint64_t seed = seed_text ? strtoull(seed_text, NULL, 0) : 20240601;
    rng_seed(seed);
    static char vectors[4200];
    struct test_config config;
    const char *root = getenv("AESGEN_ROOT");
    config.repo_root = root && *root ? root : ".";
    const char *vec = getenv("AESGEN_VECTORS");
    if (!vec || !*vec) {
        snprintf(vectors, sizeof vectors, "%s/tests/vectors", config.repo_root);
        vec = vectors;
    }
    config.vectors_dir = vec;
    config.self_path = argv[0];
    check_note("aesgen Windows x64 tests: seed %llu (AESGEN_TEST_SEED), vectors %s",
               (unsigned long long)seed, config.vectors_dir);

    check_set_group("isa availability");
    isa_resolve();
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        if (!wanted(groups[g].name, argc, argv))
            continue;
        clock_t start = clock();
        unsigned long failed_before = check_failed_count(), total_before = check_total_count();
        groups[g].run(&config);
        check_note("group %-16s %6.2f s, %6lu checks, %lu failed", groups[g].name,
                   (double)(clock() - start) / CLOCKS_PER_SEC,
                   check_total_count() - total_before, check_failed_count() - failed_before);
    }
    return check_finish();
}
