# perf/perf.mk -- llvm-mca estimates and the knob sweep.  Included by the top Makefile
# (PYTHON, BUILD).  README.md "Performance tooling" explains the outputs.
#
#   make mca                 llvm-mca estimates of every marked loop in gen/, on each legal
#                            model: a table, and $(BUILD)/mca/estimates.json
#   make mca-check           gen/ against mca/baseline.json (also run by make test)
#   make mca-baseline        rewrite mca/baseline.json from gen/ (commit the diff)

MCA_OUT := $(BUILD)/mca

.PHONY: mca mca-check mca-baseline
mca: test-tools
	$(PYTHON) -m perf mca --json $(MCA_OUT)/estimates.json

mca-check: test-tools
	$(PYTHON) -m perf mca-check

mca-baseline: test-tools
	$(PYTHON) -m perf mca-baseline
