# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
# A plain-make project that builds a vendored bundle from its sources.mk, as a user's
# Makefile would (tests/python/test_vendor.py runs it):
#   make -f tests/vendor/consumer.mk BUNDLE=dir OUT=dir [VAR=AESGEN] [ENTRY=kat_run]
# VAR: the bundle's variable stem (AA_AESGEN for --prefix aa_).  Writes OUT/libbundle.a
# (the bundle and kat.c, whose entry is ENTRY), OUT/libbundle.so (the same, shared: it
# must export ENTRY only) and OUT/kat (kat.c with main_one.c, when ENTRY is kat_run).
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:
VAR    ?= AESGEN
ENTRY  ?= kat_run
HERE   := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
include $(BUNDLE)/sources.mk

CC      ?= cc
CFLAGS  := -O2 -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -fPIC -I$($(VAR)_INCLUDE_DIR)
SRCS    := $($(VAR)_C_SOURCES) $($(VAR)_ASM_LINUX)
OBJS    := $(patsubst $($(VAR)_DIR)/%,$(OUT)/obj/%.o,$(SRCS))

all: $(OUT)/libbundle.a $(OUT)/libbundle.so $(if $(filter kat_run,$(ENTRY)),$(OUT)/kat)

$(OUT)/obj/%.o: $($(VAR)_DIR)/% $(BUNDLE)/SHA256SUMS
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(OUT)/kat.o: $(HERE)/kat.c $(BUNDLE)/SHA256SUMS
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DKAT_ENTRY=$(ENTRY) -MMD -MP -c -o $@ $<

$(OUT)/main_one.o: $(HERE)/main_one.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(OUT)/libbundle.a: $(OBJS) $(OUT)/kat.o
	rm -f $@
	$(AR) rcs $@ $^

$(OUT)/libbundle.so: $(OBJS) $(OUT)/kat.o
	$(CC) -shared -o $@ $^

$(OUT)/kat: $(OUT)/main_one.o $(OUT)/libbundle.a
	$(CC) -o $@ $^

-include $(OBJS:.o=.d) $(OUT)/kat.d
