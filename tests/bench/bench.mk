# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
# make bench -- throughput against OpenSSL and the machine's AES-round ceiling.
# Included from the top-level Makefile (paths are relative to the repository root).
#
#   make bench                          all modes, key sizes, lengths, ISAs (a few s)
#   make bench BENCH_QUICK=1            smoke run: few, short samples
#   make bench BENCH_FILTER=mode=ctr    also bits=128|256, len=N, impl=NAME (repeatable)
#   make bench BENCH_CPU=1              CPU to pin to
#   make bench BENCH_ARGS=--with-generic    any bench option (bench --help)
#   make marks MARKS_RUNS=7             issue 12's marks: 7 runs of impl auto, medians
#   make marks MARKS_IMPL=best          ... of the best ISA per run (every ISA timed)
#
# The program reads BENCH_QUICK, BENCH_FILTER, BENCH_CPU, BENCH_SAMPLES, BENCH_SAMPLE_US
# and BENCH_GENERIC from the environment; make passes command-line variables on.
# Results: a table per mode and key size on stdout, and $(BENCH_OUT)/results.json
# (format: tests/bench/README.md).  Not part of make test; it never fails on a time.
# Then perf/report.py: llvm-mca's estimate next to the measured cycles/byte
# ($(BENCH_OUT)/calibration.json) and $(BENCH_OUT)/<mode>.png charts.

BENCH_OUT  := $(BUILD)/bench
BENCH_BIN  := $(BENCH_OUT)/bench
BENCH_SRCS := $(wildcard tests/bench/*.c)
BENCH_OBJS := $(patsubst tests/bench/%.c,$(BENCH_OUT)/%.o,$(BENCH_SRCS))
BENCH_ARGS ?=

# make bench-fallback: the implementations for CPUs without AES-NI (vperm_ssse3, generic)
# against OpenSSL with AES-NI and PCLMULQDQ masked (OPENSSL_ia32cap bits 57 and 33: its
# vector-permute AES and 4-bit-table GHASH), in one run: best/openssl is then the fastest
# of those two over OpenSSL's fallback.
BENCH_FALLBACK_CAP := ~0x200000200000000
bench_comma := ,
.PHONY: bench bench-fallback
bench-fallback: lib $(BENCH_BIN)
	OPENSSL_ia32cap="$(BENCH_FALLBACK_CAP)" $(BENCH_BIN) --with-generic \
	  --filter "impl=vperm_ssse3,impl=generic,impl=openssl$(if $(BENCH_FILTER),$(bench_comma)$(BENCH_FILTER))" \
	  --json $(BENCH_OUT)/fallback.json $(BENCH_ARGS)

# make marks: issue 12's marks (perf/anchors.json, perf/marks.py): MARKS_RUNS runs of the
# anchored workloads with the library's own choice (MARKS_IMPL=auto; an ISA's name; best:
# every ISA, the most of them per run), then each cell's median against its mark.  The
# marks apply on the anchors' uarch (Zen 5); elsewhere they compare.  MARKS_ARGS: more
# options of `python3 -m perf marks` (--check: exit 1 when a median misses its mark).
MARKS_RUNS ?= 7
MARKS_IMPL ?= auto
MARKS_ARGS ?=
MARKS_OUT  := $(BENCH_OUT)/marks
MARKS_FILTER = mode=ctr,mode=xctr,mode=xts,mode=gcm-enc,mode=gcm-dec$(if \
               $(filter best,$(MARKS_IMPL)),,$(bench_comma)impl=$(MARKS_IMPL))
.PHONY: marks
marks: lib $(BENCH_BIN)
	@case '$(MARKS_RUNS)' in ''|*[!0-9]*|0*) \
	  echo "make marks: MARKS_RUNS must be a number of runs, 1 or more, not '$(MARKS_RUNS)'" >&2; \
	  exit 2;; esac
	@$(PYTHON) -m perf marks --validate --impl '$(MARKS_IMPL)' $(MARKS_ARGS)
	@rm -rf $(MARKS_OUT) && mkdir -p $(MARKS_OUT)
	@for i in $$(seq 1 $(MARKS_RUNS)); do \
	  echo "marks: run $$i of $(MARKS_RUNS)"; \
	  $(BENCH_BIN) --filter "$(MARKS_FILTER)" --json $(MARKS_OUT)/run-$$i.json $(BENCH_ARGS) \
	    > $(MARKS_OUT)/run-$$i.txt || exit 1; \
	done
	$(PYTHON) -m perf marks --impl $(MARKS_IMPL) $(MARKS_ARGS) $(MARKS_OUT)/run-*.json

bench: lib $(BENCH_BIN)
	$(BENCH_BIN) --json $(BENCH_OUT)/results.json $(BENCH_ARGS)
	@sh perf/tools.sh || echo "bench: no gnuplot, no charts (perf/tools.sh)"
	$(PYTHON) -m perf bench-report --results $(BENCH_OUT)/results.json

$(BENCH_BIN): $(BENCH_OBJS) $(BUILD)/libaesgen.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(BENCH_OBJS) $(BUILD)/libaesgen.a -lcrypto

# -MMD: rebuild when bench.h or the public aesgen.h changes.
$(BENCH_OUT)/%.o: tests/bench/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

-include $(BENCH_OBJS:.o=.d)
