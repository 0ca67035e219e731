# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
# tests/ct/ct.mk -- `make ct-check`: the constant-time check under valgrind memcheck.
# Included by the top Makefile after runtime/runtime.mk and tests/tests.mk.
#
#   make ct-check        build and run it (tests/ct/run.py); also part of `make test`
#   make ct-bin          just build $(CT_BUILD)/ct_check and $(CT_BUILD)/ct_check_planted
#
# The library is built again into $(CT_BUILD) with the production compiler and
# optimization, plus -DAESGEN_CT_VALIDATION (runtime/src/ct.h: the public results of
# aesgen_ct_equal -- whether a GCM tag matched, whether the XTS halves are equal -- are
# declassified).  ct_check_planted links a util.o and a gcm.o built with
# -DAESGEN_CT_PLANT_EARLY_EXIT (aesgen_ct_equal and the inline aesgen_ct_equal16 GCM uses
# for 16-byte tags stopping at the first differing byte: the comparisons behind every tag
# check) ahead of that library: the check must catch it.

CT_BUILD    ?= $(BUILD)-ct
CT_CFLAGS   := -O2 -g -DAESGEN_CT_VALIDATION
CT_LIB      := $(CT_BUILD)/libaesgen.a
CT_BINS     := $(CT_BUILD)/ct_check $(CT_BUILD)/ct_check_planted

.PHONY: ct-check ct-bin ct-lib
ct-bin: $(CT_BINS)

# Recursive, as fuzz.mk does: runtime.mk decides what is out of date.
ct-lib: | test-tools
	@CFLAGS="$(CT_CFLAGS)" $(MAKE) --no-print-directory BUILD=$(CT_BUILD) $(CT_LIB)
ifneq ($(BUILD),$(CT_BUILD))
$(CT_LIB): ct-lib ;
endif

$(CT_BUILD)/ct_check.o: tests/ct/ct_check.c runtime/include/aesgen.h gen/aesgen_gen.h | test-tools
	@mkdir -p $(@D)
	$(CC) $(CT_CFLAGS) -std=c11 -Wall -Wextra -Iruntime/include -Iruntime/src -Igen -c -o $@ $<

$(CT_BUILD)/%_planted.o: runtime/src/%.c $(CT_LIB)
	$(CC) $(CT_CFLAGS) -std=c11 -Wall -Wextra -fPIC -Iruntime/include -Iruntime/src -Igen \
	  $(RT_CFLAGS) -DAESGEN_CT_PLANT_EARLY_EXIT -c -o $@ $<

$(CT_BUILD)/ct_check: $(CT_BUILD)/ct_check.o $(CT_LIB)
	$(CC) $(LDFLAGS) -o $@ $^

$(CT_BUILD)/ct_check_planted: $(CT_BUILD)/ct_check.o $(CT_BUILD)/util_planted.o \
                              $(CT_BUILD)/gcm_planted.o $(CT_LIB)
	$(CC) $(LDFLAGS) -o $@ $^

ct-check: $(CT_BINS)
	$(PYTHON) tests/ct/run.py --build $(BUILD)
