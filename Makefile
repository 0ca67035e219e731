# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
# aesgen -- top-level build.  `make help` lists the targets.
#
# The pieces live next to the code they build:
#   runtime/runtime.mk     libaesgen.a / libaesgen.so.N / install / uninstall
#   tests/tests.mk         make test (C tests + Python tests, one summary line),
#                          make test-sanitize, make test-huge
#   tests/fuzz/fuzz.mk     make fuzz (libFuzzer targets)
#   tests/ct/ct.mk         make ct-check (constant-time check under valgrind)
#   tests/bench/bench.mk   make bench, make marks

# Every rule is written out in these files: make's built-in implicit rules only add chains
# (e.g. an included .d file "made" from a .d.o through the link rule), which reached the
# gen/%.S rule and printed false "missing" messages in a fresh build.
MAKEFLAGS += --no-builtin-rules
.SUFFIXES:

PYTHON  ?= python3
CC      ?= cc
BUILD   ?= build
PREFIX  ?= /usr/local

# Every generated file the library is built from (GNU as syntax), as gen/manifest.json
# lists them (`make gen` writes it, and gen/aesgen_gen.h, with the assembly).
GEN_MANIFEST := gen/manifest.json
GEN_S   := $(shell $(PYTHON) -c 'import json, sys; \
             print(" ".join("gen/" + e["files"]["S"]["path"] for e in \
                   json.load(open(sys.argv[1]))["generated"]))' $(GEN_MANIFEST) 2>/dev/null)
ifeq ($(GEN_S),)
ifneq ($(filter-out gen help clean,$(or $(MAKECMDGOALS),all)),)
$(error $(GEN_MANIFEST): missing or unreadable (run make gen))
endif
endif

CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -Wall -Wextra -fPIC -fcf-protection=full -Iruntime/include -Iruntime/src \
           -Igen
ASFLAGS += -Wa,--noexecstack

.PHONY: all gen help
all: lib

# make gen [ISA=name] [MODE=name] [KNOB=value ...] [GEN_OUT=dir]: the generator takes
# every knob (generator/knobs.py) from make's command line, so none is dropped
# (tests/python/test_gen_files.py checks it against the command each generated header
# prints); GEN_OUT writes there instead of gen/ (its manifest lists the files it holds).
# (Values quoted: one with a space is one bad value the generator names, not two words.)
GEN_ARGS := $(if $(ISA),--isa '$(ISA)') $(if $(MODE),--mode '$(MODE)') \
            $(if $(GEN_OUT),--out '$(GEN_OUT)') --make-overrides '$(MAKEOVERRIDES)'
gen:
	$(PYTHON) -m generator gen $(GEN_ARGS)

# make vendor OUT=dir [PREFIX=p] [ISA=a,b] [MODE=m,n] [OS=linux,apple]: a bundle to copy
# into another project (generator/vendor.py).  PREFIX counts only from the command line
# (it is also make install's directory).  make dist: the full unprefixed bundle as
# $(BUILD)/aesgen-VERSION-vendor.tar.gz (reproducible: sorted, mtime 0, owner 0).
VENDOR_PREFIX := $(if $(filter command line,$(origin PREFIX)),$(PREFIX))
VENDOR_ARGS   := $(if $(VENDOR_PREFIX),--prefix '$(VENDOR_PREFIX)') $(if $(ISA),--isa '$(ISA)') \
                 $(if $(MODE),--mode '$(MODE)') $(if $(OS),--os '$(OS)')
DIST_NAME      = aesgen-$(AESGEN_VERSION)-vendor
.PHONY: vendor dist
vendor:
	@test -n "$(OUT)" || { echo "make vendor: give OUT=dir" >&2; exit 2; }
	$(PYTHON) -m generator vendor --out '$(OUT)' $(VENDOR_ARGS)

dist:
	rm -rf $(BUILD)/dist && mkdir -p $(BUILD)/dist
	$(PYTHON) -m generator vendor --out $(BUILD)/dist/$(DIST_NAME)
	tar -C $(BUILD)/dist --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
	  -cf - $(DIST_NAME) | gzip -n -9 > $(BUILD)/$(DIST_NAME).tar.gz
	@echo "$(BUILD)/$(DIST_NAME).tar.gz"

# make clean: every build directory (the library, tests, bench, vendored-bundle builds with
# their Bazel output base, the sanitizer, fuzz and constant-time builds); gen/ stays.
.PHONY: clean
clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD) $(FUZZ_BUILD) $(CT_BUILD)

help:
	@echo "make                 build $(BUILD)/libaesgen.a and $(BUILD)/libaesgen.so"
	@echo "make clean           remove $(BUILD)/ and the other build directories (gen/ stays)"
	@echo "make gen [ISA=..] [MODE=..] [UNROLL=..] [KEYS=..] [TAIL=..] [GHASH=..]   regenerate gen/"
	@echo "make test            all tests; last line 'N passed, N failed, N skipped'"
	@echo "make test-sanitize   the C tests under ASan + UBSan (build-sanitize/)"
	@echo "make test-huge       single calls past 4 GiB on every ISA (minutes)"
	@echo "make ct-check        the constant-time check under valgrind (also in make test)"
	@echo "make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGET=ctr|xctr|xts|gcm] [FUZZ_JOBS=1]   libFuzzer"
	@echo "make bench           throughput vs OpenSSL and the AES-round ceiling"
	@echo "make marks [MARKS_RUNS=7]   issue 12's marks (perf/anchors.json): medians of auto over runs"
	@echo "make vendor OUT=dir [PREFIX=p] [ISA=..] [MODE=..] [OS=..]   a bundle to copy into other projects"
	@echo "make dist            $(BUILD)/aesgen-VERSION-vendor.tar.gz: the full unprefixed bundle"
	@echo "make install PREFIX=dir [DESTDIR=dir]   header, libraries, pkg-config and CMake files"
	@echo "make uninstall PREFIX=dir [DESTDIR=dir] remove what install wrote"
	@echo "make mca | mca-check | mca-baseline   llvm-mca estimates of the main loops (perf/perf.mk)"
	@echo "make explore MODE=ctr ISA=avx10_512 [APPLY=1] [ONLY=KNOB=V,..]   sweep the knobs: correctness, llvm-mca, GB/s"
	@echo "make bitslice-order | bitslice-probe | aes-chain-probe   timing probes (perf/perf.mk, docs/perf-tools.md)"

include runtime/runtime.mk
include tests/tests.mk
include tests/win/win.mk
include tests/fuzz/fuzz.mk
include tests/ct/ct.mk
include tests/bench/bench.mk
include perf/perf.mk
