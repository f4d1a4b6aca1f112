# SPDX-License-Identifier: GPL-2.0
#
# libFuzzer targets over the parsers of what indigod, indigoctl and
# indigo-sim read from outside (tests/fuzz/README.md): included by the top
# Makefile, which defines B, WARN, CPPFLAGS_U, CORE_SRC, AGENT_*, NL_*.
# check-fuzz replays the committed seeds and fuzzes a fixed number of
# runs from a fixed seed, a bounded time in make check; fuzz runs
# each target for FUZZ_S seconds and keeps what it found in build/fuzz/.

FUZZ_CC ?= clang
FUZZ_T := config dlog model modlink trace
FUZZ_BIN := $(patsubst %,$(B)/fuzz/fuzz_%,$(FUZZ_T))
FUZZ_CF := -g -O1 $(WARN) -D_GNU_SOURCE \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_RUNS ?= 100000
FUZZ_S ?= 300
# a header or a count must not make a parser allocate more than this
FUZZ_OPTS := -malloc_limit_mb=256 -rss_limit_mb=2048 -timeout=10 \
	-artifact_prefix=$(B)/fuzz/

CHECK_MORE += check-fuzz
# (check-fuzz-% and fuzz-% are pattern rules, which make does not apply
# to .PHONY targets)
.PHONY: check-fuzz fuzz

# what each harness links beyond itself
$(B)/fuzz/fuzz_config $(B)/fuzz/fuzz_dlog $(B)/fuzz/fuzz_model: FUZZ_LINK = \
	$(AGENT_CFLAGS) $(AGENT_LIB) $(AGENT_LIBS)
$(B)/fuzz/fuzz_modlink: FUZZ_LINK = $(CPPFLAGS_U) -Iagent/policy $(NL_CFLAGS) agent/modlink.c \
	agent/policy/num.c $(CORE_SRC) $(NL_LIBS)
$(B)/fuzz/fuzz_trace: FUZZ_LINK = -Itools/sim -Iagent/policy tools/sim/trace.c

$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(AGENT_LIB) $(AGENT_HDR) agent/modlink.c \
		agent/modlink.h $(CORE_SRC) tools/sim/trace.c tools/sim/trace.h
	@mkdir -p $(B)/fuzz
	$(FUZZ_CC) $(FUZZ_CF) $< $(FUZZ_LINK) -o $@

# seeds that live elsewhere in the tree, copied into the corpus
FUZZ_SEEDS_config := agent/indigod.conf.example agent/indigod-netscope.conf \
	agent/indigod-gpu.conf

check-fuzz: $(addprefix check-fuzz-,$(FUZZ_T))

check-fuzz-%: $(B)/fuzz/fuzz_%
	@echo "== fuzz_$*: seeds, then $(FUZZ_RUNS) runs"
	@rm -rf $(B)/fuzz/check-$* && mkdir -p $(B)/fuzz/check-$*
	@$(if $(FUZZ_SEEDS_$*),cp $(FUZZ_SEEDS_$*) $(B)/fuzz/check-$*/)
	@$< -runs=$(FUZZ_RUNS) -seed=1 $(FUZZ_OPTS) $(B)/fuzz/check-$* \
		$(wildcard tests/fuzz/seeds/$*) 2>$(B)/fuzz/check-$*.log || \
		{ tail -n 40 $(B)/fuzz/check-$*.log; exit 1; }
	@grep -E '^#[0-9]+[[:space:]]+DONE' $(B)/fuzz/check-$*.log

fuzz: $(addprefix fuzz-,$(FUZZ_T))

fuzz-%: $(B)/fuzz/fuzz_%
	@mkdir -p $(B)/fuzz/corpus-$*
	@$(if $(FUZZ_SEEDS_$*),cp $(FUZZ_SEEDS_$*) $(B)/fuzz/corpus-$*/)
	$< -max_total_time=$(FUZZ_S) $(FUZZ_OPTS) $(B)/fuzz/corpus-$* \
		$(wildcard tests/fuzz/seeds/$*)
