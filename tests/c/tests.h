/* SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause */
/* The test groups of the C test binary, run in this order by main.c. */
#ifndef AESGEN_TEST_TESTS_H
#define AESGEN_TEST_TESTS_H

struct test_config {
    const char *repo_root;     /* AESGEN_ROOT, else the current directory */
    const char *vectors_dir;   /* AESGEN_VECTORS, else <repo_root>/tests/vectors */
    const char *self_path;     /* this binary, for the subprocess tests */
};

void test_api(const struct test_config *config);
void test_known_answers(const struct test_config *config);
void test_differential(const struct test_config *config);
void test_page_edges(const struct test_config *config);
void test_abi(const struct test_config *config);
void test_threads(const struct test_config *config);
void test_first_use_threads(const struct test_config *config);
int threads_first_use_child(void);
void test_xts_api(const struct test_config *config);
void test_xts_sectors(const struct test_config *config);
void test_xts_known_answers(const struct test_config *config);
void test_xts_differential(const struct test_config *config);
void test_xts_page_edges(const struct test_config *config);
void test_xts_abi(const struct test_config *config);
void test_xts_threads(const struct test_config *config);
void test_gcm_api(const struct test_config *config);
void test_gcm_known_answers(const struct test_config *config);
void test_gcm_differential(const struct test_config *config);
void test_gcm_page_edges(const struct test_config *config);
void test_gcm_abi(const struct test_config *config);
void test_gcm_threads(const struct test_config *config);
void test_cpu_features(const struct test_config *config);
void test_gcm_contract(const struct test_config *config);
void test_isa_context(const struct test_config *config);
void test_counter_readback(const struct test_config *config);
void test_xts_keys(const struct test_config *config);
void test_ipsec(const struct test_config *config);
void test_variants(const struct test_config *config);

/* The child side of the AESGEN_ISA test (main.c runs it for --print-isa). */
int api_print_isa_child(void);
/* The child side of the AESGEN_VARIANT test (--print-variant). */
int variants_print_child(void);

#endif
