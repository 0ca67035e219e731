# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
# A plain-make Windows x64 project that builds a vendored bundle from its sources.mk with
# MinGW-w64 and NASM, as a user's Makefile would (tests/python/test_vendor_win.py runs it):
#   make -f tests/vendor/consumer_win.mk BUNDLE=dir OUT=dir [VAR=AESGEN] [ENTRY=kat_run]
# VAR: the bundle's variable stem (AA_AESGEN for --prefix aa_).  The C files with
# $(WIN_CC), the $(VAR)_ASM_WIN files with nasm $($(VAR)_NASMFLAGS_WIN), both from the
# bundle's sources.mk.  Writes OUT/libbundle.a (the bundle and kat.c, whose entry is
# ENTRY), and when ENTRY is kat_run: OUT/kat.exe (kat.c with main_one.c),
# OUT/export/bundle.dll (the bundle and kat.c with kat_run __declspec(dllexport)) with
# OUT/export/kat_dll.exe that calls it, and OUT/auto/bundle.dll (the same without any
# dllexport: GNU ld exports automatically), and OUT/api/bundle.dll (the same with src/util.c
# compiled with AESGEN_API defined as __declspec(dllexport): the API that file defines is
# exported, the directive notwithstanding).
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:
VAR    ?= AESGEN
ENTRY  ?= kat_run
HERE   := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
include $(BUNDLE)/sources.mk

WIN_CC  ?= x86_64-w64-mingw32-gcc
WIN_AR  ?= x86_64-w64-mingw32-ar
NASM    ?= nasm
CFLAGS  := -O2 -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -I$($(VAR)_INCLUDE_DIR)
C_OBJS  := $(patsubst $($(VAR)_DIR)/%.c,$(OUT)/obj/%.o,$($(VAR)_C_SOURCES))
ASM_OBJS := $(patsubst $($(VAR)_DIR)/%.asm,$(OUT)/obj/%.obj,$($(VAR)_ASM_WIN))
OBJS    := $(C_OBJS) $(ASM_OBJS)
DLLS    := $(OUT)/export/bundle.dll $(OUT)/export/kat_dll.exe $(OUT)/auto/bundle.dll \
           $(OUT)/api/bundle.dll
UTIL_C  := $(filter %/src/util.c,$($(VAR)_C_SOURCES))

all: $(OUT)/libbundle.a $(if $(filter kat_run,$(ENTRY)),$(OUT)/kat.exe $(DLLS))

$(OUT)/obj/%.o: $($(VAR)_DIR)/%.c $(BUNDLE)/SHA256SUMS
	@mkdir -p $(@D)
	$(WIN_CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(OUT)/obj/%.obj: $($(VAR)_DIR)/%.asm $(BUNDLE)/SHA256SUMS
	@mkdir -p $(@D)
	$(NASM) $($(VAR)_NASMFLAGS_WIN) -o $@ $<

$(OUT)/kat.o: $(HERE)/kat.c $(BUNDLE)/SHA256SUMS
	@mkdir -p $(@D)
	$(WIN_CC) $(CFLAGS) -DKAT_ENTRY=$(ENTRY) -MMD -MP -c -o $@ $<

$(OUT)/kat_dllexport.o: $(HERE)/kat.c $(BUNDLE)/SHA256SUMS
	@mkdir -p $(@D)
	$(WIN_CC) $(CFLAGS) -DKAT_DLLEXPORT -MMD -MP -c -o $@ $<

$(OUT)/util_api.o: $(UTIL_C) $(BUNDLE)/SHA256SUMS
	@mkdir -p $(@D)
	$(WIN_CC) $(CFLAGS) '-DAESGEN_API=__declspec(dllexport)' -MMD -MP -c -o $@ $<

$(OUT)/main_one.o: $(HERE)/main_one.c
	@mkdir -p $(@D)
	$(WIN_CC) $(CFLAGS) -c -o $@ $<

$(OUT)/libbundle.a: $(OBJS) $(OUT)/kat.o
	rm -f $@
	$(WIN_AR) rcs $@ $^

$(OUT)/kat.exe: $(OUT)/main_one.o $(OUT)/libbundle.a
	$(WIN_CC) -o $@ $^

$(OUT)/export/bundle.dll: $(OBJS) $(OUT)/kat_dllexport.o
	@mkdir -p $(@D)
	$(WIN_CC) -shared -o $@ $^

$(OUT)/export/kat_dll.exe: $(OUT)/main_one.o $(OUT)/export/bundle.dll
	$(WIN_CC) -o $@ $^

$(OUT)/auto/bundle.dll: $(OBJS) $(OUT)/kat.o
	@mkdir -p $(@D)
	$(WIN_CC) -shared -o $@ $^

$(OUT)/api/bundle.dll: $(filter-out %/src/util.o,$(OBJS)) $(OUT)/util_api.o $(OUT)/kat.o
	@mkdir -p $(@D)
	$(WIN_CC) -shared -o $@ $^

-include $(C_OBJS:.o=.d) $(OUT)/kat.d $(OUT)/kat_dllexport.d $(OUT)/util_api.d
