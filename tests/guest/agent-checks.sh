#!/bin/sh
# indigod in the QEMU guest (busybox sh, as /test.sh): module + agent +
# workload. Node 1 is the CPU-less far node. One line per check: PASS name,
# or FAIL name: reason; run-guest.sh judges the console.

KO=/lib/modules/indigo.ko
D=/sys/kernel/debug/indigo
failed=0

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; failed=1; }
mode() { awk '$1 == "mode" { print $2 }' $D/policy; }
gen() { awk '$1 == "generation" || $1 == "gen" { print $2 }' $D/policy; }
# Runs "$@" every quarter second until it succeeds, for at most $1 tries:
# under TCG an agent's start or reconnection takes seconds, not a fixed
# time.
wait_for() {
	n=$1
	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		n=$((n - 1))
		sleep 0.25
	done
	return 1
}
connections() { grep -c 'connected to the module' "$1"; }
# iperf3's server listening (port 5201: 0x1451)
iperf_listening() { grep -q ':1451 [0-9A-F]*:0000 0A' /proc/net/tcp /proc/net/tcp6 2>/dev/null; }

numa-fast

insmod $KO epoch_ms=500 && pass insmod || { fail insmod "insmod failed"; exit 1; }
mkdir -p /tmp/st
cat >/tmp/indigod.conf <<CONF
[agent]
learner = linucb
state_dir = /tmp/st
log_path = /tmp/decisions.jsonl
metrics_path = /tmp/metrics.prom
CONF

indigod -c /tmp/indigod.conf --set bandit.warmup=3 --save-every 5 2>/tmp/agent.log &
AG=$!
sleep 2		# the agent's policy is in force before the workload starts
farmem --pages 1024 --hot 256 --seconds 8 | tail -n 1
sleep 1
n=$(wc -l </tmp/decisions.jsonl 2>/dev/null || echo 0)
[ "$n" -ge 3 ] && pass decisions-logged || fail decisions-logged "$n lines"
head -n 2 /tmp/decisions.jsonl
m=$(mode)
case "$m" in gate | deny) pass policy-set ;; *) fail policy-set "mode $m" ;; esac
indigoctl policy | grep -q "mode" && pass indigoctl-policy || fail indigoctl-policy "$(indigoctl policy 2>&1)"
grep -q '^indigod_epochs_total [1-9]' /tmp/metrics.prom &&
	grep -q '^indigod_decision_log_errors_total 0$' /tmp/metrics.prom && pass metrics ||
	fail metrics "$(cat /tmp/metrics.prom 2>&1 | head -n 3)"
nz=$(grep -cE '"reward":(-|[1-9]|0\.)' /tmp/decisions.jsonl)
grep -oE '"action":[0-9]+,"propensity":[^,]*,"reward":[^,]*' /tmp/decisions.jsonl | head -n 12
echo "records with a non-zero reward: $nz of $(wc -l </tmp/decisions.jsonl)"
[ "$nz" -ge 1 ] && pass rewards-computed || fail rewards-computed "every reward 0"
grep -q '"learner":"linucb"' /tmp/decisions.jsonl && pass learner-decides ||
	fail learner-decides "no linucb decisions after warmup"

# the module goes away and comes back: the agent reconnects, re-applies
rmmod indigo && pass rmmod-under-agent || fail rmmod-under-agent "rmmod failed"
# an unload is silent: the agent notices after 3 s without an epoch
wait_for 60 grep -q 'lost the module' /tmp/agent.log && pass noticed-unload ||
	fail noticed-unload "no log line"
insmod $KO epoch_ms=500
wait_for 60 eval '[ "$(connections /tmp/agent.log)" -ge 2 ]' && pass reconnected ||
	fail reconnected "$(connections /tmp/agent.log) connections"
# and the module, back in observe, is given the agent's policy
wait_for 40 eval 'case "$(mode)" in gate | deny) true ;; *) false ;; esac' &&
	pass policy-reapplied || fail policy-reapplied "mode $(mode)"

# epochs still queued when the module goes: the first policy the agent
# sends for them fails inside its telemetry callback, with more of the
# batch to read; it must carry on, not free the link under the reader
rmmod indigo
insmod $KO epoch_ms=10
for _ in $(seq 30); do
	[ "$(grep -c 'connected to the module' /tmp/agent.log)" -ge 3 ] && break
	sleep 0.5
done
indigoctl watch >/dev/null 2>/tmp/watch.err &
W=$!
kill -STOP $AG
sleep 2		# some 200 epochs queue on its socket
rmmod indigo
kill -CONT $AG
sleep 3
# and a watcher notices that the module went, and says so
if kill -0 $W 2>/dev/null; then
	fail watch-notices-unload "still watching"
	kill $W
else
	wait $W
	rc=$?
	[ $rc = 1 ] && [ -s /tmp/watch.err ] && pass watch-notices-unload ||
		fail watch-notices-unload "rc $rc: $(cat /tmp/watch.err)"
fi
kill -0 $AG 2>/dev/null && pass unload-mid-batch ||
	{ fail unload-mid-batch "the agent died"; tail -n 5 /tmp/agent.log; }
insmod $KO epoch_ms=500
sleep 3
[ "$(grep -c 'connected to the module' /tmp/agent.log)" -ge 4 ] && pass reconnected-after-batch ||
	fail reconnected-after-batch "$(grep -c 'connected to the module' /tmp/agent.log) connections"

# SIGTERM: saves and exits 0
kill -TERM $AG
wait $AG
rc=$?
[ "$rc" = 0 ] && pass sigterm-exit-0 || fail sigterm-exit-0 "rc $rc"
ls /tmp/st/*.model >/dev/null 2>&1 && pass model-saved || fail model-saved "$(ls /tmp/st)"

# restart: warm start from the saved model; link figures from a counter
indigod -c /tmp/indigod.conf --set bandit.warmup=3 --set link.source=counter \
	--set link.counter_path=/sys/class/net/lo/statistics/tx_bytes 2>/tmp/agent2.log &
AG=$!
sleep 3
grep -q 'warm start' /tmp/agent2.log && pass warm-start || fail warm-start "$(head -n 8 /tmp/agent2.log)"
grep -q 'link 100 Gb/s' /tmp/agent2.log && ! grep -q 'using the configured' /tmp/agent2.log &&
	pass counter-source || fail counter-source "$(grep -m 3 'link\|tx_bytes' /tmp/agent2.log)"
# kill -9: the module keeps the last policy. The agent is stopped first:
# running, it may choose another policy (deny is one of its arms) between
# the read and the kill.
kill -STOP $AG
sleep 1
m=$(mode) g=$(gen)
kill -9 $AG
wait $AG 2>/dev/null
sleep 2
# (mode and generation: two empty reads are equal too)
[ -n "$m" ] && [ -n "$g" ] && [ "$(mode) $(gen)" = "$m $g" ] &&
	pass policy-kept-after-kill9 ||
	fail policy-kept-after-kill9 "${m:-(none)} ${g:-(none)} -> $(mode) $(gen)"
farmem --pages 128 --hot 32 --seconds 3 | tail -n 1 && pass workload-after-kill9 ||
	fail workload-after-kill9 "farmem failed"

# indigod's policy defaults from here on (rate cap 0.3 of the link,
# free_min_kib 0): the guest has far less free memory than an epoch of
# promotions at that cap, the floor indigod used to demand, so these
# checks also show that the gate leaves low memory to the kernel.
near_of() { echo "$1" | sed -n 's/.*hot_near=\([0-9]*\).*/\1/p'; }

# executor kernel, the heuristic: the kernel promotes the hot pages
indigod -c /tmp/indigod.conf --set agent.learner=heuristic \
	--set agent.status_path=/tmp/status.json 2>/tmp/agent3.log &
AG=$!
sleep 2
res=$(farmem --pages 512 --hot 128 --seconds 8 | tail -n 1)
echo "kernel executor: $res"
[ "$(near_of "$res")" -ge 64 ] && pass kernel-executor-promotes ||
	fail kernel-executor-promotes "$res"
indigoctl --status-file /tmp/status.json status >/tmp/status.txt
grep -q '^  running true$' /tmp/status.txt && grep -q '^  loaded true$' /tmp/status.txt &&
	grep -q '^  executor kernel$' /tmp/status.txt && pass indigoctl-status ||
	fail indigoctl-status "$(cat /tmp/status.txt)"
indigoctl --json decisions 5 | grep -q '"verdict":"allow"' && pass indigoctl-decisions ||
	fail indigoctl-decisions "$(indigoctl decisions 5 2>&1)"

# a telemetry overrun: a tiny receive buffer and a stopped agent lose
# events; the agent counts them, resynchronises and carries on. The buffer
# comes by a reload: the default (4 MiB) would take them all.
kill -TERM $AG
wait $AG
cp /tmp/indigod.conf /tmp/indigod5.conf
indigod -c /tmp/indigod5.conf --set agent.learner=heuristic 2>/tmp/agent5.log &
AG=$!
sleep 2
sed -i '/^\[agent\]/a netlink_rcvbuf = 4096' /tmp/indigod5.conf
kill -HUP $AG
sleep 1
# while it is stopped, 5000 synthetic candidates (79 batches of a few KiB
# each, the buffer holding two or so) arrive for it: an overrun for certain
kill -STOP $AG
echo 5000 >$D/emit
sleep 1
kill -CONT $AG
e0=$(awk '$1 == "indigod_epochs_total" { print $2 }' /tmp/metrics.prom)
sleep 3
e1=$(awk '$1 == "indigod_epochs_total" { print $2 }' /tmp/metrics.prom)
grep -q 'telemetry overrun (ENOBUFS)' /tmp/agent5.log &&
	grep -q '^indigod_enobufs_total [1-9]' /tmp/metrics.prom && pass enobufs-counted ||
	fail enobufs-counted "$(grep enobufs /tmp/metrics.prom)"
[ "${e1:-0}" -gt "${e0:-0}" ] && kill -0 $AG && pass enobufs-carries-on ||
	fail enobufs-carries-on "epochs $e0 -> $e1"

# malformed telemetry (a module of another version, another root process
# on the group): each message skipped and counted; the link and the
# epochs go on
lost0=$(grep -c 'lost the module' /tmp/agent5.log)
nlfuzz spoof
e0=$(awk '$1 == "indigod_epochs_total" { print $2 }' /tmp/metrics.prom)
sleep 2
e1=$(awk '$1 == "indigod_epochs_total" { print $2 }' /tmp/metrics.prom)
grep -q 'malformed message skipped' /tmp/agent5.log &&
	grep -q '^indigod_telemetry_malformed_total 3$' /tmp/metrics.prom &&
	[ "$(grep -c 'lost the module' /tmp/agent5.log)" = "$lost0" ] &&
	[ "${e1:-0}" -gt "${e0:-0}" ] && pass malformed-telemetry-skipped ||
	fail malformed-telemetry-skipped "epochs $e0 -> $e1, $(grep malformed /tmp/metrics.prom | tail -n 1), link lost $(grep -c 'lost the module' /tmp/agent5.log) times (was $lost0)"
kill -TERM $AG
wait $AG

# NUMA balancing switched off: the kernel takes no hinting faults, and the
# agent says so when it connects (and not while it is on)
echo 0 >/proc/sys/kernel/numa_balancing
indigod -c /tmp/indigod.conf --set agent.learner=heuristic 2>/tmp/agent8.log &
AG=$!
sleep 2
kill -TERM $AG
wait $AG
echo 1 >/proc/sys/kernel/numa_balancing
grep -q 'kernel.numa_balancing is 0' /tmp/agent8.log &&
	! grep -q 'numa_balancing is 0' /tmp/agent.log /tmp/agent5.log &&
	pass numa-balancing-off-said || fail numa-balancing-off-said "$(head -n 4 /tmp/agent8.log)"

# executor agent: the module denies the kernel's promotions and the agent
# moves the hot pages itself; reward from farmem's progress; the model is
# farmem's own (agent.model_key = comm). LinUCB learns while the heuristic
# decides (warmup), so the run is repeatable and a model is saved. The key
# is in the file, for a reload to change.
echo 0 >/tmp/progress
sed '/^\[agent\]/a model_key = comm' /tmp/indigod.conf >/tmp/indigod4.conf
indigod -c /tmp/indigod4.conf --set bandit.warmup=1000 \
	--set agent.executor=agent \
	--set agent.status_path=/tmp/status.json \
	--set agent.log_path=/tmp/decisions4.jsonl \
	--set reward.source=progress --set reward.progress_path=/tmp/progress 2>/tmp/agent4.log &
AG=$!
# deny from its first decision on
wait_for 40 eval '[ "$(mode)" = deny ]' && pass agent-executor-denies-kernel ||
	fail agent-executor-denies-kernel "mode $(mode)"
res=$(farmem --pages 512 --hot 128 --seconds 8 --progress /tmp/progress | tail -n 1)
echo "agent executor: $res"
[ "$(near_of "$res")" -ge 64 ] && pass agent-executor-promotes ||
	fail agent-executor-promotes "$res"
grep -qE '"agent_promoted":[1-9]' /tmp/status.json && pass agent-executor-counted ||
	fail agent-executor-counted "$(grep agent_ /tmp/status.json)"
grep -oE '"reward":[^,]*' /tmp/decisions4.jsonl | tail -n 3
# progress_scale 0 (the default): the gain over the running mean, so
# small, centred and not all zero as farmem's pace varies
awk -F'"reward":' 'NF > 1 { split($2, v, ","); r = v[1] + 0; n++
	if (r != 0) nz++; if (r > 1 || r < -1) big++ }
	END { exit !(n >= 3 && nz >= 1 && !big) }' /tmp/decisions4.jsonl &&
	grep -q '"reward":"progress"' /tmp/status.json && pass progress-reward ||
	fail progress-reward "$(tail -n 2 /tmp/decisions4.jsonl)"
grep -q 'application now farmem' /tmp/agent4.log && pass model-per-app ||
	fail model-per-app "$(grep -m 3 application /tmp/agent4.log)"
# reloaded with model_key fixed: back to --app's model (default), not on
# with the last application's
grep -q '"app":"farmem"' /tmp/status.json &&
	sed -i 's/^model_key = comm$/model_key = fixed/' /tmp/indigod4.conf &&
	kill -HUP $AG && sleep 2.5 && grep -q '"app":"default"' /tmp/status.json &&
	pass reload-model-key-fixed ||
	fail reload-model-key-fixed "$(grep -o '"app":"[^"]*"' /tmp/status.json)"
kill -TERM $AG
wait $AG
ls /tmp/st/farmem-*.model >/dev/null 2>&1 && pass app-model-saved || fail app-model-saved "$(ls /tmp/st)"
# stopped, it hands the kernel its last policy: no longer deny
m=$(mode)
case "$m" in gate | observe) pass agent-executor-hands-back ;;
*) fail agent-executor-hands-back "mode $m" ;; esac

# the module away while the application progresses: the first epoch back
# has no progress reward (its counter starts again), not one measured over
# the outage and credited to the last decision before it (progress_scale
# 1: the reward is the units per second, 1e6 over some 5 s)
echo 0 >/tmp/progress-outage
indigod -c /tmp/indigod.conf --set agent.log_path=/tmp/decisions-outage.jsonl \
	--set reward.source=progress --set reward.progress_path=/tmp/progress-outage \
	--set reward.progress_scale=1 2>/tmp/agent-outage.log &
AG=$!
sleep 3
rmmod indigo
echo 1000000 >/tmp/progress-outage
sleep 2
n0=$(grep -c . /tmp/decisions-outage.jsonl)
insmod $KO epoch_ms=500
# two records after the outage: the first epoch back's, and one more (the
# agent reconnects seconds after, under TCG, and then needs two epochs)
wait_for 80 eval '[ "$(grep -c . /tmp/decisions-outage.jsonl)" -ge $((n0 + 2)) ]'
kill -TERM $AG
wait $AG
grep -oE '"reward":[^,]*' /tmp/decisions-outage.jsonl | tail -n 4
awk -F'"reward":' -v n0="$n0" 'NF > 1 { split($2, v, ","); n++; if (v[1] + 0 > 1000) big++ }
	END { exit !(n >= n0 + 2 && !big) }' /tmp/decisions-outage.jsonl &&
	pass no-reward-across-outage ||
	fail no-reward-across-outage "$(grep -c . /tmp/decisions-outage.jsonl) records, $(grep -oE '"reward":[0-9.e+]{5,}' /tmp/decisions-outage.jsonl)"

# executor agent under a floor above all of node 0's memory (1 TiB): it
# moves nothing, as the gate would not, and counts what it held back
indigod -c /tmp/indigod.conf --set agent.learner=heuristic \
	--set agent.executor=agent --set policy.free_min_kib=1073741824 \
	--set agent.status_path=/tmp/status.json 2>/tmp/agent6.log &
AG=$!
sleep 2
res=$(farmem --pages 512 --hot 128 --seconds 4 | tail -n 1)
echo "agent executor, floor: $res"
[ "$(near_of "$res")" -lt 16 ] && grep -qE '"agent_promote_held":[1-9]' /tmp/status.json &&
	grep -qE '"agent_promoted":0[,}]' /tmp/status.json && pass agent-executor-floor ||
	fail agent-executor-floor "$res $(grep -oE '"agent_[a-z_]*":[0-9]*' /tmp/status.json)"
kill -TERM $AG
wait $AG

# link.source = netscope: the context's link is what Netscope's eBPF
# programs measure, not [link]'s figures (100 Gb/s, 900 ns): the capacity
# given to Netscope (100 Mbit/s) less what the measured flows take, and the
# far latency plus half the queue they see. Idle, about 0.1 Gb/s; under a
# TCP flow over lo (faster than that; counted with netscope.loopback, as
# the guest has no veth), next to nothing.
bw() { sed -n 's/.*"bandwidth_gbps":\([0-9.e+-]*\).*/\1/p' /tmp/status.json; }
far() { sed -n 's/.*"far_latency_ns":\([0-9.e+-]*\).*/\1/p' /tmp/status.json; }
mkdir -p /sys/fs/cgroup/bulk
indigod -c /tmp/indigod.conf --set agent.learner=heuristic \
	--set agent.status_path=/tmp/status.json --set link.source=netscope \
	--set netscope.enable=on --set netscope.capacity_mbit=100 \
	--set netscope.interval_ms=100 --set netscope.loopback=on 2>/tmp/agent7.log &
AG=$!
# idle: Netscope's first measurement (its programs loaded and verified,
# slow under TCG) replaces the configured 100 Gb/s
wait_for 80 eval 'awk -v i="$(bw)" "BEGIN { exit !(i > 0.05 && i <= 0.1) }"'
idle=$(bw)
iperf3 -s -1 >/dev/null 2>&1 &
wait_for 40 iperf_listening
sh -c 'echo $$ >/sys/fs/cgroup/bulk/cgroup.procs; exec iperf3 -c 127.0.0.1 -t 4' >/tmp/iperf.txt 2>&1 &
IP=$!
# under the flow: the least it reads while the flow runs
busy=
while kill -0 $IP 2>/dev/null; do
	b=$(bw)
	[ -n "$b" ] && awk -v b="$b" -v m="${busy:-1e9}" 'BEGIN { exit !(b < m) }' &&
		busy=$b f=$(far)
	sleep 0.25
done
wait $IP
echo "link from netscope: idle ${idle:-?} Gb/s, under a flow ${busy:-?} Gb/s, far ${f:-?} ns; $(tail -n 3 /tmp/iperf.txt | head -n 1)"
grep -q '"source":"netscope"' /tmp/status.json &&
	awk -v i="$idle" -v b="$busy" -v f="$f" 'BEGIN { exit !(i > 0.05 && i <= 0.1 && b < i / 2 && f >= 900) }' &&
	pass netscope-link-source ||
	fail netscope-link-source "idle '$idle' busy '$busy' far '$f': $(grep -m 3 -i netscope /tmp/agent7.log)"
kill -TERM $AG
wait $AG
rmdir /sys/fs/cgroup/bulk

# the module's synthetic candidates (debugfs emit, for the ingestion
# benchmark) reach a listener whole, and bad counts are refused
res=$(ingest module 200000 16384)
echo "$res"
case "$res" in *" received=200000 lost=0 "*) pass emit-delivers ;; *) fail emit-delivers "$res" ;; esac
! echo bogus >$D/emit 2>/dev/null && ! echo 999999999999 >$D/emit 2>/dev/null &&
	pass emit-refuses-bad || fail emit-refuses-bad "accepted"
# with no one listening, nothing failed to arrive (where the 640 were
# sent: a refused write sends none, and no count moves)
f0=$(awk '$1 == "emit_failed_batches" { print $2 }' $D/stats)
if echo 640 >$D/emit; then
	f1=$(awk '$1 == "emit_failed_batches" { print $2 }' $D/stats)
	[ -n "$f0" ] && [ "$f0" = "$f1" ] && pass emit-no-listener-not-failed ||
		fail emit-no-listener-not-failed "emit_failed_batches $f0 -> $f1"
else
	fail emit-no-listener-not-failed "writing 640 to $D/emit failed"
fi

# executor agent, far memory that came after it started: node 2 (no CPUs)
# has no memory and is not even online until the host plugs a DIMM into it
# (run-guest.sh --hotplug-late), so libnuma, read at the agent's start,
# knows nothing of it. Its memory onlined, the module watches it as far and
# the agent promotes from it to node 0.
if [ -e /sys/devices/system/node/node2 ]; then
	fail agent-executor-hot-added-node "node 2 online at boot ($(cat /sys/devices/system/node/online)): not --hotplug-late"
else
	indigod -c /tmp/indigod.conf --set agent.learner=heuristic \
		--set agent.executor=agent --set agent.status_path=/tmp/status-hp.json \
		2>/tmp/agent-hp.log &
	AG=$!
	wait_for 40 eval '[ "$(mode)" = deny ]'
	echo INDIGO-HOTPLUG-NOW
	wait_for 240 eval 'ls -d /sys/devices/system/node/node2/memory* >/dev/null 2>&1'
	for b in /sys/devices/system/node/node2/memory*/state; do
		echo online_movable >"$b"
	done
	wait_for 40 eval 'grep -q "^far_nodes 1-2$" $D/policy'
	res=$(farmem --far 2 --pages 512 --hot 128 --seconds 8 | tail -n 1)
	echo "agent executor, node 2 hot-added: $res"
	[ "$(near_of "$res")" -ge 64 ] && grep -qE '"agent_promoted":[1-9]' /tmp/status-hp.json &&
		pass agent-executor-hot-added-node ||
		fail agent-executor-hot-added-node "$res; $(grep far_nodes $D/policy); $(grep -oE '"agent_[a-z_]*":[0-9]*' /tmp/status-hp.json | tr '\n' ' ')"
	kill -TERM $AG
	wait $AG
fi

# epochs a minute apart (epoch_ms=60000, the module's most): between them
# the agent's state stays fresh, where none was written before the first
# epoch and indigoctl status then read the agent as gone
rmmod indigo
insmod $KO epoch_ms=60000
indigod -c /tmp/indigod.conf --set agent.status_path=/tmp/status-long.json \
	2>/tmp/agent-long.log &
AG=$!
sleep 8
indigoctl --json --status-file /tmp/status-long.json status >/tmp/status-long.txt 2>&1
grep -q '"running": *true' /tmp/status-long.txt && pass state-fresh-between-epochs ||
	fail state-fresh-between-epochs "$(head -c 300 /tmp/status-long.txt)"
kill -TERM $AG
wait $AG

echo "--- agent log"
cat /tmp/agent.log | head -n 40
echo "--- agent log, executor agent"
grep -v 'epoch [0-9]*: arm' /tmp/agent4.log | head -n 20
grep -q 'Oops\|BUG:\|WARNING:' /dev/null
rmmod indigo
exit $failed
