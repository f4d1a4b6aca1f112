# SPDX-License-Identifier: GPL-2.0
#
# INDIGO: make builds everything; make check runs every test; make demo shows
# the module at work in a guest. See README.md.

VERSION := 0.1

# The kernel to build indigo.ko for: the running one, or else the newest
# installed Debian headers (development machines run a kernel without them),
# not an RT kernel's, which has no NUMA balancing for the module to watch.
KDIR ?= $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then \
	echo /lib/modules/$$(uname -r)/build; else \
	ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | grep -v -- '-rt-amd64$$' | \
	sort -V | tail -n 1; fi)

CC ?= gcc
B := build
WARN := -Wall -Wextra -Werror
CPPFLAGS_U := -Iinclude/uapi -Ikmod -Iagent
CFLAGS_U := -O2 -g $(WARN) -D_GNU_SOURCE
NL_CFLAGS := $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null)
NL_LIBS := $(shell pkg-config --libs libnl-genl-3.0 2>/dev/null)
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)

CORE_SRC := kmod/core.c kmod/table.c kmod/marks.c
PROGS := $(B)/indigoctl $(B)/farmem $(B)/nlfuzz $(B)/indigod
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT := $(patsubst tests/unit/%.c,$(B)/unit/%,$(UNIT_SRC))
UNIT_SAN := $(patsubst tests/unit/%.c,$(B)/unit-san/%,$(UNIT_SRC))

# The agent's pure parts (learners, cost model, config, logs, model files)
# (and the [gpu] section's keys, which agent/gpu/ owns, and [netscope]'s
# host peers, which agent/netscope/ parses)
AGENT_LIB := $(wildcard agent/learn/*.c agent/policy/*.c) agent/gpu/gpuconfig.c \
	agent/netscope/ns_peers.c
AGENT_HDR := $(wildcard agent/learn/*.h agent/policy/*.h) agent/gpu/gpu.h \
	agent/netscope/ns_peers.h
AGENT_CFLAGS := -Iagent/learn -Iagent/policy -Iagent/gpu -Iagent/netscope -Iinclude/uapi \
	$(shell pkg-config --cflags inih json-c 2>/dev/null)
AGENT_LIBS := $(shell pkg-config --libs inih json-c 2>/dev/null) -lm
AGENT_T_SRC := $(wildcard tests/agent/test_*.c)
AGENT_T := $(patsubst tests/agent/%.c,$(B)/agent-tests/%,$(AGENT_T_SRC))
AGENT_T_SAN := $(patsubst tests/agent/%.c,$(B)/agent-tests-san/%,$(AGENT_T_SRC))

# Components with rules of their own (eBPF, simulator, GPU tier) live in
# their directories' .mk files. Each may add programs to PROGS, sources,
# flags and libraries to indigod (INDIGOD_*) and indigoctl (INDIGOCTL_*), test targets to CHECK_MORE and
# benchmark targets to BENCH_MORE.
INDIGOD_SRC :=
INDIGOD_CFLAGS :=
INDIGOD_LIBS :=
INDIGOD_DEPS :=
INDIGOCTL_SRC :=
INDIGOCTL_CFLAGS :=
INDIGOCTL_LIBS :=
CHECK_MORE :=
BENCH_MORE :=
-include bpf/bpf.mk tools/sim/sim.mk agent/gpu/gpu.mk tests/fuzz/fuzz.mk
.DEFAULT_GOAL := all

.PHONY: all module programs check check-unit check-style check-guest check-agent check-systemd demo \
	bench install install-agent install-dkms dkms-source install-netscope install-gpu uninstall setup clean

all: module programs

setup:
	tools/setup.sh

module:
	@test -n "$(KDIR)" && test -d "$(KDIR)" || \
		{ echo "no kernel headers found: set KDIR=/path/to/kernel/build"; exit 1; }
	@echo "building indigo.ko against $(KDIR)"
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

programs: $(PROGS)

CTL_SRC := tools/indigoctl.c tools/ctl_module.c tools/ctl_status.c tools/ctl_eval.c \
	tools/ctl_out.c agent/policy/actions.c agent/policy/dlog.c agent/policy/ope.c \
	agent/policy/num.c
$(B)/indigoctl: $(CTL_SRC) tools/ctl.h tools/ctl_out.h agent/modlink.c $(CORE_SRC) $(INDIGOCTL_SRC) | $(B)
	$(CC) $(CPPFLAGS_U) $(CFLAGS_U) $(AGENT_CFLAGS) $(NL_CFLAGS) $(INDIGOCTL_CFLAGS) \
		$(filter %.c,$^) $(NL_LIBS) $(AGENT_LIBS) $(INDIGOCTL_LIBS) -o $@

INDIGOD_OWN := agent/indigod.c agent/learner.c agent/telemetry.c agent/components.c \
	agent/modlink.c agent/executor.c agent/status.c
$(B)/indigod: $(INDIGOD_OWN) agent/daemon.h $(CORE_SRC) $(AGENT_LIB) $(INDIGOD_SRC) $(INDIGOD_DEPS) | $(B)
	$(CC) $(CPPFLAGS_U) $(CFLAGS_U) $(AGENT_CFLAGS) $(NL_CFLAGS) $(INDIGOD_CFLAGS) \
		$(shell pkg-config --cflags libsystemd 2>/dev/null) $(filter %.c,$^) $(NL_LIBS) \
		$(AGENT_LIBS) $(INDIGOD_LIBS) -lnuma $(shell pkg-config --libs libsystemd 2>/dev/null) -o $@

$(B)/farmem: tools/farmem.c agent/policy/num.c agent/policy/num.h | $(B)
	$(CC) $(CFLAGS_U) -Iagent/policy $(filter %.c,$^) -lnuma -o $@

$(B)/nlfuzz: tests/guest/nlfuzz.c | $(B)
	$(CC) $(CPPFLAGS_U) $(CFLAGS_U) $^ -o $@

$(B) $(B)/unit $(B)/unit-san $(B)/agent-tests $(B)/agent-tests-san:
	mkdir -p $@

# Unit tests: the kernel's pure core compiled unchanged, under Check; once
# plain and once with ASan/UBSan. Valgrind runs over the plain build.
$(B)/unit/%: tests/unit/%.c tests/unit/unit.h tests/unit/check_main.h $(CORE_SRC) kmod/core.h | $(B)/unit
	$(CC) $(CPPFLAGS_U) -O1 -g $(WARN) $(CHECK_CFLAGS) $< $(CORE_SRC) $(CHECK_LIBS) -o $@

$(B)/unit-san/%: tests/unit/%.c tests/unit/unit.h tests/unit/check_main.h $(CORE_SRC) kmod/core.h | $(B)/unit-san
	$(CC) $(CPPFLAGS_U) -O1 -g $(WARN) -fsanitize=address,undefined \
		-fno-sanitize-recover=all $(CHECK_CFLAGS) $< $(CORE_SRC) $(CHECK_LIBS) -o $@

$(B)/agent-tests/%: tests/agent/%.c tests/unit/check_main.h tests/agent/trng.h $(AGENT_LIB) $(AGENT_HDR) | $(B)/agent-tests
	$(CC) -O2 -g $(WARN) -D_GNU_SOURCE -Itests/unit $(AGENT_CFLAGS) $(CHECK_CFLAGS) $< $(AGENT_LIB) \
		$(CHECK_LIBS) $(AGENT_LIBS) -o $@

$(B)/agent-tests-san/%: tests/agent/%.c tests/unit/check_main.h tests/agent/trng.h $(AGENT_LIB) $(AGENT_HDR) | $(B)/agent-tests-san
	$(CC) -O1 -g $(WARN) -D_GNU_SOURCE -fsanitize=address,undefined -fno-sanitize-recover=all \
		-Itests/unit $(AGENT_CFLAGS) $(CHECK_CFLAGS) $< $(AGENT_LIB) $(CHECK_LIBS) $(AGENT_LIBS) -o $@

# test_executor compiles agent/executor.c in, with libnuma faked
$(B)/agent-tests/test_executor $(B)/agent-tests-san/test_executor: agent/executor.c agent/executor.h

# test_modlink compiles agent/modlink.c in, with libnl and the module core
TEST_MODLINK := $(B)/agent-tests/test_modlink $(B)/agent-tests-san/test_modlink
$(TEST_MODLINK): agent/modlink.c agent/modlink.h $(CORE_SRC)
$(TEST_MODLINK): AGENT_CFLAGS += -Ikmod -Iagent $(NL_CFLAGS)
$(TEST_MODLINK): AGENT_LIBS += $(CORE_SRC) $(NL_LIBS)

# test_daemon compiles indigod's epochs in (telemetry.c and the files it
# calls), the rest of indigod stood in for
TEST_DAEMON := $(B)/agent-tests/test_daemon $(B)/agent-tests-san/test_daemon
$(TEST_DAEMON): agent/telemetry.c agent/components.c agent/learner.c agent/status.c \
	agent/status.h agent/daemon.h agent/executor.h agent/modlink.h
$(TEST_DAEMON): AGENT_CFLAGS += -Ikmod

check-unit: $(UNIT) $(UNIT_SAN) $(AGENT_T) $(AGENT_T_SAN)
	@set -e; for t in $(UNIT) $(AGENT_T); do echo "== $$t"; $$t; done
	@set -e; for t in $(UNIT_SAN) $(AGENT_T_SAN); do echo "== $$t (ASan/UBSan)"; CK_FORK=no $$t; done
	@set -e; for t in $(UNIT) $(AGENT_T); do echo "== $$t (valgrind)"; \
		CK_FORK=no valgrind -q --leak-check=full --errors-for-leak-kinds=all \
		--error-exitcode=1 $$t; done

# Kernel style: checkpatch --strict over the module and its uAPI header;
# warnings fail our module builds and not DKMS's; the man pages through
# groff with every warning on.
check-style:
	@test -f /opt/checkpatch/checkpatch.pl || { echo "checkpatch missing: run tools/setup.sh"; exit 1; }
	perl /opt/checkpatch/checkpatch.pl --no-tree --strict --terse -f \
		kmod/*.c kmod/*.h include/uapi/linux/indigo.h | \
		awk '{print} /total: [1-9]|, [1-9][0-9]* (warnings|checks)/ {bad=1} END {exit bad}'
	tests/kmod/werror.sh
	@for m in agent/indigod.8 agent/indigod.conf.5 tools/indigoctl.8; do \
		out=$$(groff -man -ww -z $$m 2>&1); \
		[ -z "$$out" ] || { echo "$$m: $$out"; exit 1; }; done; echo "man pages: clean"

# The module in QEMU guests running Debian's 6.1, 6.12 and newest (7.3) kernels.
check-guest: programs
	tests/guest/run-kmod-tests.sh

# indigod: lifecycle without the module, then with it in both guests.
check-agent: programs $(B)/ingest $(GPU_FAKE)
	INDIGO_FAKECUDA=$(if $(GPU_FAKE),$(abspath $(GPU_FAKE))) tests/agent/indigod-smoke.sh $(B)/indigod
	tests/agent/install-staged.sh
	tests/agent/demo-script.sh
	tests/agent/indigoctl-cli.sh $(B)/indigoctl
	tests/agent/farmem-cli.sh $(B)/farmem
	tests/agent/bench-tables.sh
	tests/guest/run-agent-tests.sh 6.1
	tests/guest/run-agent-tests.sh 6.12

# indigod.service as installed, with its Netscope drop-in, under systemd
# (PID 1) in both guests.
check-systemd: programs
	tests/guest/run-systemd-tests.sh 6.1
	tests/guest/run-systemd-tests.sh 6.12

check: setup
	$(MAKE) check-unit
	$(MAKE) check-style
	$(MAKE) check-guest
	$(MAKE) check-agent
	$(MAKE) check-systemd
	$(if $(CHECK_MORE),$(MAKE) $(CHECK_MORE))

demo: setup programs
	tools/demo.sh

BENCH_CF := -O2 -g $(WARN)
$(B)/bandit_bench: tools/bench/bandit_bench.c agent/learn/bandit.c agent/learn/linalg.c \
		agent/policy/num.c | $(B)
	$(CC) $(BENCH_CF) -Iagent/learn -Iagent/policy -DBENCH_CFLAGS='"$(BENCH_CF)"' $^ -lm -o $@

$(B)/ingest: tools/bench/ingest.c agent/modlink.c agent/policy/num.c $(CORE_SRC) | $(B)
	$(CC) $(CPPFLAGS_U) -Iagent/policy $(BENCH_CF) -D_GNU_SOURCE $(NL_CFLAGS) $^ $(NL_LIBS) \
		-lpthread -o $@

bench: setup programs $(B)/bandit_bench $(B)/ingest $(BENCH_MORE)
	tools/bench/faultpath.sh
	tools/bench/ingest.sh
	{ echo "# Learner speed: choose + update at d = 16, K = 32"; echo; \
	  echo "Measured $$(date -u +%Y-%m-%d) with \`make bench\` ($(B)/bandit_bench), on the"; \
	  echo "development machine (2 cores, shared). Goal: under 2 us per decision."; \
	  echo "A learner that forgets (bandit.forget below 1; indigod's default for the"; \
	  echo "cost-model reward is 0.5) refactors the updated arm's A at every update,"; \
	  echo "O(d^3), so its row is over the goal; indigod decides once per epoch (1 s)."; echo; \
	  $(B)/bandit_bench; } >tools/bench/results/bandit.md
	cat tools/bench/results/bandit.md

# modules_install puts the module in /lib/modules/RELEASE/extra (updates
# from 6.3 on), compressed where the kernel compresses its own (indigo.ko.xz
# on Debian's 6.12), where uninstall looks for it. Its depmod runs only
# where KDIR has a System.map, which distributions' header packages
# (Debian's) do not ship ("Skipping depmod"), and modprobe would not find
# indigo: depmod here, for the release the module was built for (its
# vermagic), in DESTDIR's tree where one is given, as Kbuild's would.
install: module install-agent
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) modules_install
	export PATH="$$PATH:/sbin:/usr/sbin"; \
		rel=$$(modinfo -F vermagic indigo.ko | cut -d' ' -f1) && [ -n "$$rel" ] && \
		depmod -a $(if $(DESTDIR),-b $(DESTDIR)) "$$rel"

# Everything but the module (check-systemd installs it into its guest).
install-agent: $(B)/indigoctl $(B)/indigod $(B)/indigo-netscope $(B)/indigo-gpu
	install -D -m 0755 $(B)/indigoctl $(DESTDIR)/usr/local/sbin/indigoctl
	install -D -m 0755 $(B)/indigod $(DESTDIR)/usr/local/sbin/indigod
	install -D -m 0755 $(B)/indigo-netscope $(DESTDIR)/usr/local/sbin/indigo-netscope
	install -D -m 0755 $(B)/indigo-gpu $(DESTDIR)/usr/local/sbin/indigo-gpu
	install -D -m 0644 agent/indigod.service $(DESTDIR)/etc/systemd/system/indigod.service
	test -e $(DESTDIR)/etc/indigo/indigod.conf || \
		install -D -m 0644 agent/indigod.conf.example $(DESTDIR)/etc/indigo/indigod.conf
	install -D -m 0644 agent/indigod.8 $(DESTDIR)/usr/local/share/man/man8/indigod.8
	install -D -m 0644 tools/indigoctl.8 $(DESTDIR)/usr/local/share/man/man8/indigoctl.8
	install -D -m 0644 agent/indigod.conf.5 $(DESTDIR)/usr/local/share/man/man5/indigod.conf.5

# Netscope's extra privileges for the unit, only where it is switched on.
install-netscope:
	install -D -m 0644 agent/indigod-netscope.conf \
		$(DESTDIR)/etc/systemd/system/indigod.service.d/netscope.conf

# On GPU hosts: the NVIDIA device nodes for the unit.
install-gpu:
	install -D -m 0644 agent/indigod-gpu.conf \
		$(DESTDIR)/etc/systemd/system/indigod.service.d/gpu.conf

# DKMS: the module rebuilds itself when the kernel is updated.
# DKMS_KERNEL picks the kernel to build for now (default: the running one).
# --force: run again after an update (same VERSION), dkms would otherwise
# skip the module as already built and installed and keep the old one.
DKMS_KERNEL ?= $(shell uname -r)
install-dkms:
	$(MAKE) dkms-source DKMS_SRC=/usr/src/indigo-$(VERSION)
	dkms add -m indigo -v $(VERSION) || true
	dkms build --force -m indigo -v $(VERSION) -k $(DKMS_KERNEL)
	dkms install --force -m indigo -v $(VERSION) -k $(DKMS_KERNEL)

# The module's sources as DKMS takes them, in DKMS_SRC (no build outputs).
dkms-source:
	@test -n "$(DKMS_SRC)" || { echo "dkms-source: set DKMS_SRC"; exit 1; }
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)/kmod
	cp -r Kbuild dkms.conf include $(DKMS_SRC)/
	cp kmod/*.c kmod/*.h $(DKMS_SRC)/kmod/

# modules_install compresses the module as the kernel's config says
KO_SUFFIXES := .ko .ko.gz .ko.xz .ko.zst

# DKMS's registry, /usr/src and the running unit are the host's: left
# alone under DESTDIR.
# The module of make install goes too (DKMS's, in updates/dkms, is DKMS's).
uninstall:
ifeq ($(DESTDIR),)
	-[ ! -d /run/systemd/system ] || systemctl stop indigod.service
	-dkms remove -m indigo -v $(VERSION) --all
	rm -rf /usr/src/indigo-$(VERSION)
endif
	@for ko in $(foreach d,extra updates,$(foreach z,$(KO_SUFFIXES),\
		   $(DESTDIR)/lib/modules/*/$(d)/indigo$(z))); do \
		[ -e "$$ko" ] || continue; \
		echo "rm -f $$ko"; rm -f "$$ko" || exit 1; \
		rel=$${ko#$(DESTDIR)/lib/modules/}; \
		[ -n "$(DESTDIR)" ] || depmod -a "$${rel%%/*}"; \
	done
	rm -f $(DESTDIR)/usr/local/sbin/indigoctl \
		$(DESTDIR)/usr/local/sbin/indigod $(DESTDIR)/etc/systemd/system/indigod.service \
		$(DESTDIR)/usr/local/sbin/indigo-netscope $(DESTDIR)/usr/local/sbin/indigo-gpu \
		$(DESTDIR)/etc/systemd/system/indigod.service.d/netscope.conf \
		$(DESTDIR)/etc/systemd/system/indigod.service.d/gpu.conf \
		$(DESTDIR)/usr/local/share/man/man8/indigod.8 \
		$(DESTDIR)/usr/local/share/man/man8/indigoctl.8 \
		$(DESTDIR)/usr/local/share/man/man5/indigod.conf.5
	@# what systemctl enable linked, so that no link points at nothing
	rm -f $(DESTDIR)/etc/systemd/system/*.wants/indigod.service
	[ ! -d $(DESTDIR)/etc/systemd/system/indigod.service.d ] || \
		rmdir --ignore-fail-on-non-empty $(DESTDIR)/etc/systemd/system/indigod.service.d
ifeq ($(DESTDIR),)
	@# systemd forgets the unit only when told; Netscope's pinned maps
	@# (the agent stopped, they hold state only) go with the product
	-[ ! -d /run/systemd/system ] || systemctl daemon-reload
	rm -rf /sys/fs/bpf/indigo
endif

clean:
	rm -rf $(B)
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean >/dev/null 2>&1
