# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
# aesgen -- top-level build.  `make help` lists the targets.
#
# The pieces live next to the code they build:
#   runtime/runtime.mk     libaesgen.a / libaesgen.so / install
#   tests/tests.mk         make test (C tests + Python tests, one summary line),
#                          make test-sanitize, make test-huge
#   tests/fuzz/fuzz.mk     make fuzz (libFuzzer targets)
#   tests/ct/ct.mk         make ct-check (constant-time check under valgrind)
#   tests/bench/bench.mk   make bench

PYTHON  ?= python3
CC      ?= cc
BUILD   ?= build
PREFIX  ?= /usr/local

ISAS    := aesni_avx vaes_avx2 avx10_256 avx10_512
MODES   := ctr xctr xts gcm

# Every generated file the library is built from (GNU as syntax).
GEN_S   := $(foreach i,$(ISAS),$(foreach m,$(MODES),gen/$(i)/$(m).S))

CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -Wall -Wextra -fPIC -fcf-protection=full -Iruntime/include -Iruntime/src
ASFLAGS += -Wa,--noexecstack

.PHONY: all gen help
all: lib

# make gen [ISA=name] [MODE=name] [UNROLL=n] [KEYS=reg|mem]
GEN_ARGS := $(if $(ISA),--isa $(ISA)) $(if $(MODE),--mode $(MODE)) \
            $(if $(UNROLL),UNROLL=$(UNROLL)) $(if $(KEYS),KEYS=$(KEYS))
gen:
	$(PYTHON) -m generator gen $(GEN_ARGS)

help:
	@echo "make                 build $(BUILD)/libaesgen.a and $(BUILD)/libaesgen.so"
	@echo "make gen [ISA=..] [MODE=..] [UNROLL=..] [KEYS=reg|mem]   regenerate gen/"
	@echo "make test            all tests; last line 'N passed, N failed'"
	@echo "make test-sanitize   the C tests under ASan + UBSan (build-sanitize/)"
	@echo "make test-huge       single calls past 4 GiB on every ISA (minutes)"
	@echo "make ct-check        the constant-time check under valgrind (also in make test)"
	@echo "make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGET=ctr|xctr|xts|gcm] [FUZZ_JOBS=1]   libFuzzer"
	@echo "make bench           throughput vs OpenSSL and the AES-round ceiling"
	@echo "make install PREFIX=dir"
	@echo "make mca | mca-check | mca-baseline   llvm-mca estimates of the main loops (perf/perf.mk)"
	@echo "make explore MODE=ctr ISA=avx10_512 [APPLY=1]   sweep the knobs: correctness, llvm-mca, GB/s"

include runtime/runtime.mk
include tests/tests.mk
include tests/fuzz/fuzz.mk
include tests/ct/ct.mk
include tests/bench/bench.mk
include perf/perf.mk
