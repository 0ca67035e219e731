# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
# tests/win/win.mk -- the Windows x64 test program, built on Linux with mingw-w64 and run
# under wine by tests/win/run.py (part of make test).  Included by the top Makefile
# (PYTHON, BUILD, GEN_S; runtime/runtime.mk's RT_SRCS) after tests/tests.mk.
#
#   make win-bin    $(BUILD)/win/aesgen_win_tests.exe: the runtime's C files, the Win64
#                   flavour of every file gen/manifest.json lists (tests/win/gen_win.py,
#                   into $(BUILD)/win/gen, assembled with nasm -f win64) and the shared C
#                   tests (tests/c, built without OpenSSL: AESGEN_TEST_NO_OPENSSL), plus
#                   $(BUILD)/win/vectors, tests/vectors with the .gz files decompressed

WIN_DIR     := $(BUILD)/win
WIN_CC      ?= x86_64-w64-mingw32-gcc
WIN_CFLAGS  := -std=c11 -O2 -Wall -Wextra -DAESGEN_TEST_NO_OPENSSL -D__USE_MINGW_ANSI_STDIO=1 \
               -Iruntime/include -Iruntime/src -Igen -Itests/c -Itests/win
WIN_TEST_C  := $(addprefix tests/c/,check.c jsonl.c vectors.c isa.c harness.c xts_harness.c \
                 gcm_harness.c reference.c test_kat.c test_xts_kat.c test_gcm_kat.c \
                 test_abi.c test_gcm_abi.c) \
               tests/win/win_main.c tests/win/test_unwind.c
WIN_ASM     := $(patsubst gen/%.S,$(WIN_DIR)/gen/%.asm,$(GEN_S))
WIN_OBJS    := $(patsubst runtime/src/%.c,$(WIN_DIR)/obj/runtime/%.o,$(RT_SRCS)) \
               $(patsubst %.c,$(WIN_DIR)/obj/%.o,$(WIN_TEST_C)) \
               $(WIN_DIR)/obj/tests/win/abi_thunk_win64.o \
               $(WIN_ASM:.asm=.obj)
WIN_BIN     := $(WIN_DIR)/aesgen_win_tests.exe
WIN_GEN_DEPS := $(GEN_MANIFEST) tests/win/gen_win.py $(wildcard generator/*.py generator/printers/*.py \
                  templates/*.j2 templates/lib/*.j2)

.PHONY: win-bin
win-bin: $(WIN_BIN) $(WIN_DIR)/vectors/.stamp
test: win-bin

# One generator run writes every file (rewriting only those whose text changed).
$(WIN_DIR)/gen/.stamp: $(WIN_GEN_DEPS) | test-tools
	@mkdir -p $(@D)
	$(PYTHON) tests/win/gen_win.py --out $(WIN_DIR)/gen
	@touch $@
$(WIN_ASM): $(WIN_DIR)/gen/.stamp ;

$(WIN_DIR)/gen/%.obj: $(WIN_DIR)/gen/%.asm
	nasm -f win64 -o $@ $<

$(WIN_DIR)/obj/runtime/%.o: runtime/src/%.c | test-tools
	@mkdir -p $(@D)
	$(WIN_CC) $(WIN_CFLAGS) -MMD -MP -c -o $@ $<

$(WIN_DIR)/obj/tests/%.o: tests/%.c | test-tools
	@mkdir -p $(@D)
	$(WIN_CC) $(WIN_CFLAGS) -MMD -MP -c -o $@ $<

$(WIN_DIR)/obj/tests/%.o: tests/%.S | test-tools
	@mkdir -p $(@D)
	$(WIN_CC) -c -o $@ $<

$(WIN_BIN): $(WIN_OBJS)
	$(WIN_CC) -o $@ $(WIN_OBJS)

# The vector files the tests read (normalized/, derived/) as the Windows program reads
# them: it has no gzip to run.
WIN_VECTOR_DIRS := tests/vectors/normalized tests/vectors/derived
$(WIN_DIR)/vectors/.stamp: $(wildcard $(addsuffix /*,$(WIN_VECTOR_DIRS)))
	@rm -rf $(WIN_DIR)/vectors && mkdir -p $(WIN_DIR)/vectors
	@cp -r $(WIN_VECTOR_DIRS) $(WIN_DIR)/vectors/
	@find $(WIN_DIR)/vectors -name '*.gz' -exec sh -c 'gzip -dc "$$1" > "$${1%.gz}"' _ {} \;
	@touch $@

-include $(patsubst %.o,%.d,$(filter %.o,$(WIN_OBJS)))
