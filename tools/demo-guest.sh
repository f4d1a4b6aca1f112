#!/bin/sh
# The demo, inside the guest: indigo.ko deciding on a workload whose memory
# sits on the CPU-less node 1. Everything it prints goes to the console.
D=/sys/kernel/debug/indigo
say() { echo; echo "=== $*"; }

numa-fast

say "guest: kernel $(uname -r); node 1 has $(awk '/MemTotal/ {print $4, $5}' /sys/devices/system/node/node1/meminfo) and CPUs '$(cat /sys/devices/system/node/node1/cpulist)'"
say "insmod indigo.ko (loads in observe mode)"
insmod /lib/modules/indigo.ko || exit 1
dmesg | grep 'indigo:' | tail -n 2
cat $D/policy

say "policy: gate: promote pages faulting >= 20/s whose burst lasted >= 200 ms"
indigoctl policy set mode=gate rate_min_mhz=20000 burst_min_ms=200 burst_tol_pct=1000 burst_gap_ms=5000

say "workload: 256 pages moved to node 1; 64 hot (rewritten continuously), 192 cold (every 3 s), 12 s"
farmem --pages 256 --hot 64 --seconds 12 --cold-ms 3000

say "what the module saw (debugfs stats)"
cat $D/stats

say "what it decided (debugfs decisions: count by verdict and reason)"
awk 'NR > 1 { n[$8 " " $9]++ } END { for (k in n) print n[k], k }' $D/decisions | sort -rn

say "the last decisions"
head -n 1 $D/decisions
tail -n 8 $D/decisions

rmmod indigo
echo "PASS demo"
