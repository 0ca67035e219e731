# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
# tests/fuzz/fuzz.mk -- libFuzzer targets (clang, ASan + UBSan), included by the top Makefile.
#
#   make fuzz [FUZZ_SECONDS=N] [FUZZ_TARGET=name] [FUZZ_JOBS=n]
#        fuzz each target (ctr, xctr, xts, gcm) for N seconds (default 60) after
#        replaying its corpus; new inputs go to $(FUZZ_BUILD)/corpus/<target>, crash
#        reproducers to $(FUZZ_BUILD)/artifacts/<target>/ (the path is printed)
#   make fuzz-bin        just build $(FUZZ_BUILD)/fuzz_<target>
# `make test` replays every file of tests/fuzz/corpus/<target>/ and fuzzes each target
# for a few seconds (tests/run.py runs tests/fuzz/run.py).
#
# The library is built again into $(FUZZ_BUILD) with clang, ASan, UBSan and libFuzzer's
# coverage instrumentation (a recursive make of runtime/runtime.mk with other CC, CFLAGS
# and BUILD).  The generated assembly is assembled unchanged: ASan does not see its
# memory accesses (the page-edge tests cover those).

FUZZ_CC      ?= clang
FUZZ_BUILD   ?= $(BUILD)-fuzz
FUZZ_TARGETS := ctr xctr xts gcm
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS  := -O1 -g -fno-omit-frame-pointer $(FUZZ_SAN)
FUZZ_LIB     := $(FUZZ_BUILD)/libaesgen.a
FUZZ_BINS    := $(addprefix $(FUZZ_BUILD)/fuzz_,$(FUZZ_TARGETS))
# The tests' oracle and helpers, shared with the C test binary.
FUZZ_TEST_SRCS := $(addprefix tests/c/,check.c harness.c reference.c gcm_harness.c xts_harness.c)
FUZZ_COMMON  := $(patsubst tests/c/%.c,$(FUZZ_BUILD)/tests/%.o,$(FUZZ_TEST_SRCS)) \
                $(FUZZ_BUILD)/tests/fuzz.o $(FUZZ_BUILD)/tests/fuzz_stream.o
FUZZ_INCLUDES := -Iruntime/include -Iruntime/src -Itests/c -Itests/fuzz

FUZZ_OBJS    := $(FUZZ_COMMON) $(patsubst %,$(FUZZ_BUILD)/tests/fuzz_%.o,$(FUZZ_TARGETS))
.SECONDARY: $(FUZZ_OBJS)

.PHONY: fuzz fuzz-bin fuzz-lib
fuzz-bin: $(FUZZ_BINS)

# Always re-made (recursively): runtime.mk decides what is out of date.  CFLAGS goes
# through the environment so that the top Makefile still appends its own flags.
fuzz-lib: | test-tools
	@CFLAGS="$(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link" $(MAKE) --no-print-directory \
	  BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) $(FUZZ_LIB)
ifneq ($(BUILD),$(FUZZ_BUILD))
$(FUZZ_LIB): fuzz-lib ;
endif

$(FUZZ_BUILD)/tests/%.o: tests/c/%.c | test-tools
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_INCLUDES) -MMD -MP -c -o $@ $<

$(FUZZ_BUILD)/tests/%.o: tests/fuzz/%.c | test-tools
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c11 -Wall -Wextra $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_INCLUDES) \
	  -MMD -MP -c -o $@ $<

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/tests/fuzz_%.o $(FUZZ_COMMON) $(FUZZ_LIB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_COMMON) $(FUZZ_LIB) -lcrypto

-include $(wildcard $(FUZZ_BUILD)/tests/*.d)

FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= 1
fuzz: $(FUZZ_BINS)
	$(PYTHON) tests/fuzz/run.py --build $(FUZZ_BUILD) --seconds $(FUZZ_SECONDS) \
	  --jobs $(FUZZ_JOBS) $(if $(FUZZ_TARGET),--target $(FUZZ_TARGET))
