#!/bin/sh
# The demo, inside the guest: indigo.ko deciding on a workload whose memory
# sits on the CPU-less node 1, first under a fixed policy, then with indigod
# choosing it. Everything it prints goes to the console.
D=/sys/kernel/debug/indigo
say() { echo; echo "=== $*"; }
# a step that failed ends the demo: its PASS would tell make demo otherwise
fail() { echo "FAIL demo: $*"; exit 1; }

numa-fast

say "guest: kernel $(uname -r); node 1 has $(awk '/MemTotal/ {print $4, $5}' /sys/devices/system/node/node1/meminfo) and CPUs '$(cat /sys/devices/system/node/node1/cpulist)'"
say "insmod indigo.ko (loads in observe mode)"
insmod /lib/modules/indigo.ko || fail "insmod"
dmesg | grep 'indigo:' | tail -n 2
cat $D/policy

say "policy: gate: promote pages faulting >= 20/s whose burst lasted >= 200 ms"
indigoctl policy set mode=gate rate_min_mhz=20000 burst_min_ms=200 burst_tol_pct=1000 burst_gap_ms=5000 ||
	fail "indigoctl policy set"

say "workload: 256 pages moved to node 1; 64 hot (rewritten continuously), 192 cold (every 3 s), 12 s"
farmem --pages 256 --hot 64 --seconds 12 --cold-ms 3000 || fail "farmem"

say "what the module saw (debugfs stats)"
cat $D/stats

say "what it decided (debugfs decisions: count by verdict and reason)"
awk 'NR > 1 { n[$8 " " $9]++ } END { for (k in n) print n[k], k }' $D/decisions | sort -rn

say "the last decisions"
head -n 1 $D/decisions
tail -n 8 $D/decisions

say "now the agent: indigod learns the thresholds (LinUCB after 5 epochs of the heuristic)"
mkdir -p /tmp/st /run/indigo
cat >/tmp/indigod.conf <<CONF
[agent]
epoch_ms = 1000
learner = linucb
state_dir = /tmp/st
log_path = /tmp/decisions.jsonl
[bandit]
warmup = 5
CONF
indigod -c /tmp/indigod.conf 2>/tmp/agent.log &
AG=$!
sleep 2
farmem --pages 512 --hot 128 --seconds 12 --cold-ms 3000 || fail "farmem with indigod"

say "the agent's decisions (decision log: epoch, arm, who chose, propensity, reward in s)"
awk -F'[:,]' '{ for (i = 1; i < NF; i++) { if ($i ~ /"epoch"/) e = $(i + 1); if ($i ~ /"action"/) a = $(i + 1)
	if ($i ~ /"propensity"/) p = $(i + 1); if ($i ~ /"reward"/) r = $(i + 1); if ($i ~ /"learner"/) l = $(i + 1) }
	gsub(/["}]/, "", l); printf "epoch %s arm %s by %s p %.3g reward %.3g\n", e, a, l, p, r }' /tmp/decisions.jsonl | tail -n 12

say "indigoctl status"
indigoctl status

kill -TERM $AG
wait $AG || fail "indigod exited with status $?"
say "the agent's log"
grep -v 'epoch [0-9]*: arm' /tmp/agent.log | head -n 12

rmmod indigo || fail "rmmod"
echo "PASS demo"
