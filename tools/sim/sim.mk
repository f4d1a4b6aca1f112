# SPDX-License-Identifier: GPL-2.0
#
# The trace-driven far-memory simulator (tools/sim/README.md): included by
# the top Makefile, which defines B, WARN, CPPFLAGS_U, CORE_SRC, AGENT_*,
# CHECK_*.

SIM_SRC := $(addprefix tools/sim/,sim.c link.c oracle.c bound.c gen.c trace.c table.c \
	pol.c pol_tpp.c pol_memtis.c pol_indigo.c)
SIM_HDR := $(wildcard tools/sim/*.h)
SIM_DEPS := $(SIM_SRC) $(SIM_HDR) $(CORE_SRC) kmod/core.h $(AGENT_LIB) $(AGENT_HDR)
SIM_CF := $(CPPFLAGS_U) $(AGENT_CFLAGS) -Itools/sim -D_GNU_SOURCE $(WARN)
SIM_LINK := $(SIM_SRC) $(CORE_SRC) $(AGENT_LIB)
SIM_T_SRC := $(wildcard tests/sim/test_*.c)
SIM_T := $(patsubst tests/sim/%.c,$(B)/sim-tests/%,$(SIM_T_SRC))
SIM_T_SAN := $(patsubst tests/sim/%.c,$(B)/sim-tests-san/%,$(SIM_T_SRC))
SIM_RESULTS := tools/bench/results
SIM_TRACES := $(B)/sim-traces

PROGS += $(B)/indigo-sim $(B)/lackey2trace
CHECK_MORE += check-sim
BENCH_MORE += bench-sim

.PHONY: check-sim bench-sim sim-traces

$(B)/indigo-sim: tools/sim/main.c $(SIM_DEPS) | $(B)
	$(CC) -O2 -g $(SIM_CF) tools/sim/main.c $(SIM_LINK) $(AGENT_LIBS) -o $@

$(B)/lackey2trace: tools/sim/lackey2trace.c tools/sim/trace.c tools/sim/trace.h \
		agent/policy/num.c agent/policy/num.h | $(B)
	$(CC) -O2 -g $(WARN) -D_GNU_SOURCE -Iagent/policy $(filter %.c,$^) -o $@

$(B)/sim-tests $(B)/sim-tests-san:
	mkdir -p $@

$(B)/sim-tests/%: tests/sim/%.c tests/unit/check_main.h $(SIM_DEPS) | $(B)/sim-tests
	$(CC) -O2 -g $(SIM_CF) -Itests/unit $(CHECK_CFLAGS) $< $(SIM_LINK) \
		$(CHECK_LIBS) $(AGENT_LIBS) -o $@

$(B)/sim-tests-san/%: tests/sim/%.c tests/unit/check_main.h $(SIM_DEPS) | $(B)/sim-tests-san
	$(CC) -O1 -g $(SIM_CF) -fsanitize=address,undefined -fno-sanitize-recover=all \
		-Itests/unit $(CHECK_CFLAGS) $< $(SIM_LINK) $(CHECK_LIBS) $(AGENT_LIBS) -o $@

# The capture filter and the command line end to end, then the unit tests
# plain, under ASan/UBSan, and under valgrind; they find their committed
# traces through SIM_TEST_TRACES.
check-sim: $(SIM_T) $(SIM_T_SAN) $(B)/indigo-sim $(B)/lackey2trace
	tests/sim/lackey2trace.sh $(B)/lackey2trace
	tests/sim/cli.sh $(B)/indigo-sim
	@set -e; export SIM_TEST_TRACES=tests/sim/traces; \
	for t in $(SIM_T); do echo "== $$t"; $$t; done; \
	for t in $(SIM_T_SAN); do echo "== $$t (ASan/UBSan)"; CK_FORK=no $$t; done; \
	for t in $(SIM_T); do echo "== $$t (valgrind)"; \
		CK_FORK=no valgrind -q --leak-check=full --errors-for-leak-kinds=all \
		--error-exitcode=1 $$t; done

# Real programs' traces for the table: captured once, the three at a time
# (about 10 minutes under lackey).
sim-traces: $(B)/lackey2trace
	@mkdir -p $(SIM_TRACES)
	@for p in sqlite redis xz; do test -s $(SIM_TRACES)/$$p.trace || \
		tools/sim/capture.sh $(B)/lackey2trace $(SIM_TRACES) $$p & done; wait
	@for p in sqlite redis xz; do test -s $(SIM_TRACES)/$$p.trace || \
		{ echo "capture of $$p failed"; exit 1; }; done

# The policy table (tools/bench/results/sim.md) and its plots.
bench-sim: $(B)/indigo-sim sim-traces
	SIM_TABLE_COMMAND="make bench-sim" $(B)/indigo-sim table $(SIM_RESULTS) -T 16 \
		$(SIM_TRACES)/sqlite.trace $(SIM_TRACES)/redis.trace $(SIM_TRACES)/xz.trace
	cat tools/sim/results-notes.md >>$(SIM_RESULTS)/sim.md
	cd $(SIM_RESULTS) && gnuplot $(CURDIR)/tools/sim/plots.gp
	rm -f $(SIM_RESULTS)/sim-stall.dat $(SIM_RESULTS)/sim-phase.dat
