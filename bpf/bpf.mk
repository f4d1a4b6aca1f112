# SPDX-License-Identifier: GPL-2.0
# Netscope on the host: eBPF programs (bpf/), their loader and controller
# (agent/netscope/), indigoctl netscope, and their tests. Included by the
# top Makefile.

NS_B := $(B)/bpf
NS_BPF := sockops cc
NS_SKEL := $(patsubst %,$(NS_B)/netscope_%.skel.h,$(NS_BPF))
NS_BTF := /sys/kernel/btf/vmlinux
BPF_CLANG ?= clang
BPFTOOL ?= bpftool

# The agent's Netscope parts: the controller's plain C (NS_T_LIB, unit
# tested) and the libbpf glue around it.
NS_T_LIB := agent/netscope/ns_blr.c agent/netscope/ns_rate.c agent/netscope/ns_app.c \
	agent/netscope/ns_progress.c agent/netscope/ns_link.c
NS_LIB := $(NS_T_LIB) agent/netscope/ns_loader.c agent/netscope/ns_maps.c \
	agent/netscope/ns_agent.c agent/netscope/ns_layout.c \
	agent/netscope/ns_netns.c
NS_HDR := $(wildcard agent/netscope/*.h) include/uapi/linux/indigo_netscope.h
NS_CFLAGS := -Iagent/netscope -I$(NS_B) $(shell pkg-config --cflags libbpf 2>/dev/null)
NS_LIBS := $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz) -lm

PROGS += $(B)/indigo-netscope
INDIGOCTL_SRC += tools/indigoctl_netscope.c agent/netscope/ns_maps.c agent/netscope/ns_link.c \
	agent/netscope/ns_layout.c
INDIGOCTL_CFLAGS += -Iagent/netscope -Itools -I$(NS_B) $(shell pkg-config --cflags libbpf 2>/dev/null)
INDIGOCTL_LIBS += $(NS_LIBS)
# the map layouts it reads (the rule compiles only the .c of its
# prerequisites), the pinned ones' BTF checked against its sock_ops object's
$(B)/indigoctl: $(NS_HDR) $(NS_B)/netscope_sockops.skel.h
CHECK_MORE += check-netscope
BENCH_MORE += bench-netscope

# vmlinux.h from the running kernel's BTF; the committed copy where there is
# no BTF or no bpftool (CO-RE relocates either way at load time).
$(NS_B)/vmlinux.h: bpf/vmlinux/vmlinux.h
	@mkdir -p $(NS_B)
	@if [ -r $(NS_BTF) ] && $(BPFTOOL) btf dump file $(NS_BTF) format c >$@.tmp 2>/dev/null; \
	then mv $@.tmp $@; else rm -f $@.tmp; cp bpf/vmlinux/vmlinux.h $@; \
	echo "vmlinux.h: no kernel BTF here, using bpf/vmlinux/vmlinux.h"; fi

$(NS_B)/netscope_%.bpf.o: bpf/netscope_%.bpf.c bpf/netscope_defs.h bpf/netscope_cc_math.h \
		bpf/netscope_sockops_math.h \
		include/uapi/linux/indigo_netscope.h $(NS_B)/vmlinux.h
	$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
		-I$(NS_B) -Iinclude/uapi -idirafter /usr/include/$(shell $(CC) -dumpmachine) \
		-c $< -o $@

$(NS_B)/netscope_%.skel.h: $(NS_B)/netscope_%.bpf.o
	$(BPFTOOL) gen skeleton $< name ns_$* >$@.tmp && mv $@.tmp $@

$(B)/indigo-netscope: agent/netscope/main.c agent/netscope/ns_peers.c agent/policy/num.c \
		$(NS_LIB) $(NS_HDR) $(NS_SKEL) | $(B)
	$(CC) $(CPPFLAGS_U) $(CFLAGS_U) $(NS_CFLAGS) -Iagent/policy $(filter %.c,$^) $(NS_LIBS) -o $@

# Check unit tests of the pure parts, plain, under ASan/UBSan and valgrind.
NS_T_SRC := $(wildcard tests/netscope/test_*.c)
NS_T := $(patsubst tests/netscope/%.c,$(B)/ns-tests/%,$(NS_T_SRC))
NS_T_SAN := $(patsubst tests/netscope/%.c,$(B)/ns-tests-san/%,$(NS_T_SRC))

$(B)/ns-tests/%: tests/netscope/%.c tests/unit/check_main.h $(NS_T_LIB) $(NS_HDR)
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) -D_GNU_SOURCE -Itests/unit -Itests/agent -Iinclude/uapi -Iagent/netscope \
		-Iagent/policy -Ibpf $(CHECK_CFLAGS) $< $(NS_T_LIB) $(NS_T_MORE) $(CHECK_LIBS) -lm -o $@

$(B)/ns-tests-san/%: tests/netscope/%.c tests/unit/check_main.h $(NS_T_LIB) $(NS_HDR)
	@mkdir -p $(@D)
	$(CC) -O1 -g $(WARN) -D_GNU_SOURCE -fsanitize=address,undefined -fno-sanitize-recover=all \
		-Itests/unit -Itests/agent -Iinclude/uapi -Iagent/netscope -Iagent/policy -Ibpf $(CHECK_CFLAGS) \
		$< $(NS_T_LIB) $(NS_T_MORE) $(CHECK_LIBS) -lm -o $@

# test_cc_math compiles the CC's window arithmetic as the BPF program does
$(B)/ns-tests/test_cc_math $(B)/ns-tests-san/test_cc_math: bpf/netscope_cc_math.h
# test_sockops_math, the sock_ops program's
$(B)/ns-tests/test_sockops_math $(B)/ns-tests-san/test_sockops_math: bpf/netscope_sockops_math.h
# test_link, whose samples go into the base slots as the program puts them
$(B)/ns-tests/test_link $(B)/ns-tests-san/test_link: bpf/netscope_sockops_math.h

# test_agent includes the controller loop for its static functions
$(B)/ns-tests/test_agent $(B)/ns-tests-san/test_agent: agent/netscope/ns_agent.c
$(B)/pin-other-layout: tests/net/pin-other-layout.c | $(B)
	$(CC) $(CPPFLAGS_U) $(CFLAGS_U) $(NS_CFLAGS) $< $(NS_LIBS) -o $@

# test_layout builds BTF with libbpf
$(B)/ns-tests/test_layout $(B)/ns-tests-san/test_layout: agent/netscope/ns_layout.c
$(B)/ns-tests/test_layout $(B)/ns-tests-san/test_layout: NS_T_MORE = agent/netscope/ns_layout.c $(NS_LIBS)
# test_maps includes ns_maps.c, its bpf syscalls faked
$(B)/ns-tests/test_maps $(B)/ns-tests-san/test_maps: agent/netscope/ns_maps.c
# test_cli includes indigo-netscope's main.c for its static parse_args()
$(B)/ns-tests/test_cli $(B)/ns-tests-san/test_cli: agent/netscope/main.c agent/policy/num.c
$(B)/ns-tests/test_cli $(B)/ns-tests-san/test_cli: NS_T_MORE = agent/policy/num.c

.PHONY: check-netscope check-netscope-unit check-netscope-net check-netscope-guest \
	check-netscope-fallback check-netscope-ctl bench-netscope

check-netscope-unit: $(NS_T) $(NS_T_SAN)
	@set -e; for t in $(NS_T); do echo "== $$t"; $$t; done
	@set -e; for t in $(NS_T_SAN); do echo "== $$t (ASan/UBSan)"; CK_FORK=no $$t; done
	@set -e; for t in $(NS_T); do echo "== $$t (valgrind)"; \
		CK_FORK=no valgrind -q --leak-check=full --errors-for-leak-kinds=all \
		--error-exitcode=1 $$t; done

# indigoctl netscope on maps of its own (a private bpffs; root)
check-netscope-ctl: $(B)/indigoctl $(B)/pin-other-layout
	tests/netscope/indigoctl-netscope.sh $(B)/indigoctl

check-netscope-net: $(B)/indigo-netscope $(B)/indigoctl $(B)/indigod $(B)/pin-other-layout
	tests/net/netscope-net.sh

check-netscope-guest: $(B)/indigo-netscope $(B)/indigoctl
	tests/net/netscope-guest.sh 6.1
	tests/net/netscope-guest.sh 6.12
	tests/net/netscope-guest.sh newest

# The committed minimal vmlinux.h must keep building both programs.
check-netscope-fallback:
	@mkdir -p $(NS_B)/fallback
	@for p in $(NS_BPF); do $(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
		-Ibpf/vmlinux -Iinclude/uapi -idirafter /usr/include/$$($(CC) -dumpmachine) \
		-c bpf/netscope_$$p.bpf.c -o $(NS_B)/fallback/netscope_$$p.bpf.o || exit 1; done
	@echo "bpf/vmlinux/vmlinux.h: both programs build"

check-netscope: check-netscope-unit check-netscope-fallback check-netscope-ctl check-netscope-net \
	check-netscope-guest

# at 100 Mbit/s a full-size packet is 120 us, a third of redis's p99; at
# 1 Gbit/s 12 us, and the machine's CPUs weigh more
bench-netscope: $(B)/indigo-netscope $(B)/indigoctl
	tools/bench/netscope.sh
	RATE_MBIT=1000 ROUNDS=5 OUT=tools/bench/results/netscope-1g.md tools/bench/netscope.sh

.PRECIOUS: $(NS_B)/netscope_%.bpf.o

# Netscope inside indigod ([netscope] in indigod.conf)
INDIGOD_SRC += $(NS_LIB) agent/netscope/ns_indigod.c
INDIGOD_CFLAGS += $(NS_CFLAGS)
INDIGOD_LIBS += $(NS_LIBS)
INDIGOD_DEPS += $(NS_SKEL) $(NS_HDR)
