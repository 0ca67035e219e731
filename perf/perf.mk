# SPDX-License-Identifier: Apache-2.0 OR BSD-2-Clause
# perf/perf.mk -- llvm-mca estimates and the knob sweep.  Included by the top Makefile
# after tests/tests.mk and tests/bench/bench.mk (PYTHON, BUILD, BENCH_BIN).
# docs/perf-tools.md explains the outputs (README.md "Performance tooling" lists them).
#
#   make mca                 llvm-mca estimates of every marked loop in gen/, on each legal
#                            model: a table, and $(BUILD)/mca/estimates.json
#   make mca-check           gen/ against mca/baseline.json (also run by make test)
#   make mca-baseline        rewrite mca/baseline.json from gen/ (commit the diff)
#   make explore MODE=ctr ISA=avx10_512 [APPLY=1] [ROUNDS=n] [ONLY=KNOB=V,..]   sweep the knobs
#                            (MODE, ISA: a name, a comma list or all; default all)
#   make bitslice-order [MEASURE=n]   rank the bitsliced rounds' cluster orders (model;
#                            MEASURE: time the best n and the recorded one here)
#   make bitslice-probe      time a bitsliced round as generated, with the rounds
#                            independent and without dependencies; the latencies
#   make aes-chain-probe     time vaesenc on 1..15 independent chains at each width: how
#                            many vectors keep the AES pipes busy here

MCA_OUT := $(BUILD)/mca

.PHONY: mca mca-check mca-baseline explore perf-tools bitslice-order bitslice-probe \
        aes-chain-probe
mca: test-tools
	$(PYTHON) -m perf mca --json $(MCA_OUT)/estimates.json

mca-check: test-tools
	$(PYTHON) -m perf mca-check

mca-baseline: test-tools
	$(PYTHON) -m perf mca-baseline

# gnuplot (charts) is needed by make explore and make bench, never by make test.
perf-tools:
	@sh perf/tools.sh

# Reuses $(BUILD)'s runtime and bench objects; each variant gets its own library and
# bench binary under $(BUILD)/explore/<mode>-<isa>/ (the default build is untouched).
EXPLORE_ARGS := --mode '$(or $(MODE),all)' --isa '$(or $(ISA),all)' --build $(BUILD) \
                $(if $(filter 1 yes true,$(APPLY)),--apply) $(if $(ROUNDS),--rounds '$(ROUNDS)') \
                $(if $(LENGTHS),--lengths '$(LENGTHS)') $(if $(ONLY),--only '$(ONLY)')
explore: test-tools perf-tools lib $(BENCH_BIN)
	$(PYTHON) -m perf explore $(EXPLORE_ARGS)

bitslice-order:
	$(PYTHON) -m perf bitslice-order $(if $(MEASURE),--measure $(MEASURE))

bitslice-probe:
	$(PYTHON) -m perf bitslice-probe

aes-chain-probe:
	$(PYTHON) -m perf aes-chain-probe
