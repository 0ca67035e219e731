# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
# tests/tests.mk -- `make test`: the C tests and the Python tests, one summary.
# Included by the top Makefile (CC, CFLAGS, ASFLAGS, BUILD, PYTHON) after
# runtime/runtime.mk (lib, RT_LIB_A).
#
#   make test                     tools check, lib, test binary, the fuzz targets
#                                 (tests/fuzz/fuzz.mk), the constant-time check
#                                 (tests/ct/ct.mk), tests/run.py
#   make test-sanitize            the C test binary built with clang, ASan and UBSan
#                                 in $(BUILD)-sanitize, run through tests/run.py
#   make test-huge                single calls past 4 GiB on every ISA (tests/c/huge_lengths.c;
#                                 minutes, so not part of make test; .ci/run runs it)
#   $(BUILD)/tests/aesgen_tests --only GROUP   one C group, by hand (the groups are
#                                 tests/c/main.c's groups[]; a wrong GROUP lists them)

TEST_DIR    := $(BUILD)/tests
# Listed, not globbed: tests/c also holds stand-alone programs (variant_check.c,
# built by tests/python/test_gen_files.py) that are not part of this binary.
TEST_C_SRCS := $(addprefix tests/c/,main.c check.c isa.c harness.c reference.c jsonl.c vectors.c \
                 test_api.c test_kat.c test_diff.c page_arena.c test_page_edge.c test_abi.c \
                 test_threads.c xts_harness.c test_xts_api.c test_xts_kat.c \
                 test_xts_diff.c gcm_harness.c test_gcm_api.c test_gcm_kat.c \
                 test_gcm_diff.c test_gcm_edge.c test_gcm_abi.c test_gcm_contract.c \
                 test_isa_context.c test_counter_readback.c test_xts_keys.c test_ipsec.c test_variants.c child.c \
                 test_cpu.c)
TEST_OBJS   := $(patsubst tests/c/%.c,$(TEST_DIR)/%.o,$(TEST_C_SRCS)) $(TEST_DIR)/abi_thunk.o
TEST_BIN    := $(TEST_DIR)/aesgen_tests

.PHONY: test test-tools test-bin test-sanitize test-huge
test: test-tools lib $(TEST_BIN) fuzz-bin ct-bin
	$(PYTHON) tests/run.py --build $(BUILD)

# The whole C suite under AddressSanitizer and UndefinedBehaviorSanitizer (any report
# aborts the binary: a failure).  A recursive make into its own build directory; CFLAGS
# and LDFLAGS go through the environment so the top Makefile still appends its own.
# ASan does not see the generated assembly's accesses (the page-edge tests do).
SANITIZE_BUILD ?= $(BUILD)-sanitize
SANITIZE_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
                  -fno-sanitize-recover=undefined
test-sanitize: | test-tools
	@CFLAGS="$(SANITIZE_FLAGS)" LDFLAGS="$(SANITIZE_FLAGS)" $(MAKE) --no-print-directory \
	  BUILD=$(SANITIZE_BUILD) CC=clang test-bin
	$(PYTHON) tests/run.py --build $(SANITIZE_BUILD) --skip-python --skip-fuzz --skip-ct --skip-win --skip-emulated

test-bin: $(TEST_BIN)

# Quiet when every tool is there; installs them (as root) or explains otherwise.
test-tools:
	@sh tests/tools.sh

# Order-only on test-tools: checked first, but never a reason to rebuild.
$(TEST_DIR)/%.o: tests/c/%.c | test-tools
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -pthread -MMD -MP -c -o $@ $<

$(TEST_DIR)/%.o: tests/c/%.S | test-tools
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(ASFLAGS) -MMD -MP -c -o $@ $<

# The static library, so the tests can reach the generated functions directly
# (the .so hides them); OpenSSL's libcrypto is the reference.
$(TEST_BIN): $(TEST_OBJS) $(RT_LIB_A)
	$(CC) $(LDFLAGS) -pthread -o $@ $(TEST_OBJS) $(RT_LIB_A) -lcrypto

HUGE_BIN  := $(TEST_DIR)/huge_lengths
HUGE_OBJS := $(addprefix $(TEST_DIR)/,huge_lengths.o check.o isa.o reference.o harness.o)
$(HUGE_BIN): $(HUGE_OBJS) $(RT_LIB_A)
	$(CC) $(LDFLAGS) -pthread -o $@ $^ -lcrypto

test-huge: test-tools lib $(HUGE_BIN)
	AESGEN_ROOT=$(CURDIR) $(HUGE_BIN)

-include $(TEST_OBJS:.o=.d) $(TEST_DIR)/huge_lengths.d
