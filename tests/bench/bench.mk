# make bench -- throughput against OpenSSL and the machine's AES-round ceiling.
# Included from the top-level Makefile (paths are relative to the repository root).
#
#   make bench                          all modes, key sizes, lengths, ISAs (a few s)
#   make bench BENCH_QUICK=1            smoke run: few, short samples
#   make bench BENCH_FILTER=mode=ctr    also bits=128|256, len=N, impl=NAME (repeatable)
#   make bench BENCH_CPU=1              CPU to pin to
#   make bench BENCH_ARGS=--with-generic    any bench option (bench --help)
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

.PHONY: bench
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

# make bench-boringssl BORINGSSL_GCM_S=<BoringSSL's gen/bcm/aes-gcm-avx10-x86_64-linux.S>
# The optional peer benchmark against BoringSSL's VAES AVX-512 GCM (tests/bench/peer/;
# BoringSSL's file is not in this repository).  PEER_ARGS: runs samples batch_us.
PEER_OUT  := $(BUILD)/bench-peer
PEER_ARGS ?=

.PHONY: bench-boringssl
bench-boringssl: lib
	@test -n "$(BORINGSSL_GCM_S)" || { echo "bench-boringssl: set BORINGSSL_GCM_S to BoringSSL's gen/bcm/aes-gcm-avx10-x86_64-linux.S" >&2; exit 2; }
	@mkdir -p $(PEER_OUT)
	$(CC) -c -Itests/bench/peer/include -o $(PEER_OUT)/boringssl_gcm_asm.o $(BORINGSSL_GCM_S)
	$(CC) -O2 -Wall -Wextra -Wno-deprecated-declarations -maes -msse4.1 -Iruntime/include \
	    -o $(PEER_OUT)/boringssl_gcm tests/bench/peer/boringssl_gcm.c \
	    $(PEER_OUT)/boringssl_gcm_asm.o $(BUILD)/libaesgen.a -lcrypto
	$(PEER_OUT)/boringssl_gcm $(PEER_ARGS)
