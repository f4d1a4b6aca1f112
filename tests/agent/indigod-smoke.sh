#!/usr/bin/env bash
# indigod's lifecycle without the module (it keeps retrying the connection):
# config errors, SIGHUP reloads, SIGTERM saves and exits 0, warm start,
# corrupt model moved aside. Usage: tests/agent/indigod-smoke.sh [build/indigod]
set -u
bin=${1:-build/indigod}
t=$(mktemp -d /tmp/indigod-smoke.XXXXXX)
trap 'rm -rf "$t"' EXIT
fails=0
ok() { echo "PASS $1"; }
no() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
conf() { printf '[agent]\nlearner = %s\nstate_dir = %s/st\nlog_path = %s/d.jsonl\nmetrics_path =\nstatus_path = %s/status.json\n' "$1" "$t" "$t" "$t" >"$t/c.conf"; }
mkdir -p "$t/st"

"$bin" -c "$t/none.conf" --set agent.epoch_ms=0 2>"$t/e0"
rc=$?
[ $rc = 6 ] && grep -q '^<3>indigod: --set agent.epoch_ms: 0 is out of range' "$t/e0" &&
	ok bad-override || no bad-override "rc $rc: $(cat "$t/e0")"
printf '[agent]\nbogus = 1\n' >"$t/bad.conf"
"$bin" -c "$t/bad.conf" 2>"$t/e1"
rc=$?
[ $rc = 6 ] && grep -q "bad.conf:2: " "$t/e1" && ok bad-file || no bad-file "rc $rc: $(cat "$t/e1")"

conf linucb
"$bin" -c "$t/c.conf" 2>"$t/e2" &
p=$!
sleep 0.5
conf thompson
kill -HUP $p
sleep 0.5
kill -TERM $p
wait $p
rc=$?
[ $rc = 0 ] && ok sigterm-exit-0 || no sigterm-exit-0 "rc $rc"
grep -q 'cannot reach the module' "$t/e2" && ok no-module-logged || no no-module-logged "$(cat "$t/e2")"
# no module, no epochs: the state file says so all the same (indigoctl
# status judges the agent gone by the file's age)
python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
assert s["module_connected"] is False and s["epochs"] == 0, s' "$t/status.json" 2>"$t/py" &&
	ok status-without-module || no status-without-module "$(cat "$t/py")"
grep -q 'learner thompson' "$t/e2" && ok sighup-switches-learner || no sighup-switches-learner "$(cat "$t/e2")"
[ -f "$t/st/default-linucb.model" ] && [ -f "$t/st/default-thompson.model" ] &&
	ok models-saved || no models-saved "$(ls "$t/st")"

# SIGTERM left blocked by a parent (not systemd, which clears the mask):
# unblocked, it still saves and exits 0, where it stayed pending for good
python3 -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
os.execv(sys.argv[1], sys.argv[1:])' "$bin" -c "$t/c.conf" 2>"$t/e-blocked" &
p=$!
sleep 0.5
kill -TERM $p
for _ in $(seq 30); do kill -0 $p 2>/dev/null || break; sleep 0.1; done
if kill -0 $p 2>/dev/null; then
	no sigterm-blocked-by-parent "still running 3 s after SIGTERM"
	kill -KILL $p
	wait $p 2>/dev/null
else
	wait $p
	rc=$?
	[ $rc = 0 ] && ok sigterm-blocked-by-parent || no sigterm-blocked-by-parent "rc $rc"
fi

"$bin" -c "$t/c.conf" 2>"$t/e3" &
p=$!
sleep 0.5
kill -INT $p
wait $p
grep -q 'warm start: loaded .*default-thompson.model' "$t/e3" && ok warm-start || no warm-start "$(cat "$t/e3")"

printf 'garbage' | dd of="$t/st/default-thompson.model" bs=1 seek=100 conv=notrunc 2>/dev/null
"$bin" -c "$t/c.conf" 2>"$t/e4" &
p=$!
sleep 0.5
kill -TERM $p
wait $p
rc=$?
[ $rc = 0 ] && grep -q '^<4>indigod: .*moved to .*corrupt-.*; starting fresh' "$t/e4" &&
	ls "$t"/st/default-thompson.model.corrupt-* >/dev/null 2>&1 &&
	ok corrupt-moved-aside || no corrupt-moved-aside "rc $rc: $(cat "$t/e4")"
# a model it cannot read (here a directory; on a host, an I/O error) may
# be sound: the agent starts fresh and does not save over it
rm -f "$t/st/default-linucb.model"
mkdir "$t/st/default-linucb.model"
conf linucb
"$bin" -c "$t/c.conf" 2>"$t/e5" &
p=$!
sleep 0.5
kill -TERM $p
wait $p
rc=$?
[ $rc = 0 ] && grep -q 'default-linucb.model: cannot read .*not saving over it' "$t/e5" &&
	! grep -q 'saving the model' "$t/e5" && [ -d "$t/st/default-linucb.model" ] &&
	ok unreadable-not-overwritten || no unreadable-not-overwritten "rc $rc: $(cat "$t/e5")"
# bandit.forget = auto follows reward.source: a reload that changes only
# the source retunes the learner (0.5 for the cost model, 1 for progress)
rm -rf "$t/st/default-linucb.model"
echo 5 >"$t/prog"
"$bin" -c "$t/c.conf" 2>"$t/e6" &
p=$!
sleep 0.5
printf '[reward]\nsource = progress\nprogress_path = %s/prog\n' "$t" >>"$t/c.conf"
kill -HUP $p
sleep 0.5
kill -TERM $p
wait $p
rc=$?
[ $rc = 0 ] && grep -q 'forget 0.5$' "$t/e6" &&
	sed -n '/SIGHUP/,$p' "$t/e6" | grep -q 'learner linucb, .* forget 1$' &&
	ok sighup-reward-source-forget || no sighup-reward-source-forget "rc $rc: $(cat "$t/e6")"
# the metrics, for node_exporter's textfile collector (a user of its own):
# readable by all whatever the umask (the unit's is 0027); a path the agent
# cannot write (under the unit: outside its directories) is said in the
# log, once, not skipped in silence
mconf() { printf '[agent]\nstate_dir = %s/st\nlog_path = %s/d.jsonl\nstatus_path =\nmetrics_path = %s\n' "$t" "$t" "$1" >"$t/m.conf"; }
mconf "$t/metrics.prom"
(umask 027; exec "$bin" -c "$t/m.conf") 2>"$t/e8" &
p=$!
sleep 0.5
kill -TERM $p
wait $p
mode=$(stat -c %a "$t/metrics.prom" 2>/dev/null)
[ "$mode" = 644 ] && grep -q '^indigod_epochs_total 0$' "$t/metrics.prom" &&
	ok metrics-readable-by-collector || no metrics-readable-by-collector "mode ${mode:-none}: $(cat "$t/e8")"
mconf "$t/nodir/metrics.prom"
"$bin" -c "$t/m.conf" 2>"$t/e9" &
p=$!
sleep 2.5
kill -TERM $p
wait $p
[ "$(grep -c "metrics $t/nodir/metrics.prom: No such file or directory; not written" "$t/e9")" = 1 ] &&
	ok metrics-unwritable-logged-once || no metrics-unwritable-logged-once "$(cat "$t/e9")"
# another instance writing the same files (a test run beside the service)
# has temporary files of its own: neither renames the other's half-written
# one into place, nor writes into the one the other published
printf '[agent]\nstate_dir = %s/st\nlog_path = %s/d.jsonl\nstatus_path = %s/s2.json\nmetrics_path = %s/m2.prom\n' \
	"$t" "$t" "$t" "$t" >"$t/two.conf"
printf '{"other": ' >"$t/s2.json.tmp"
printf '# other\n' >"$t/m2.prom.tmp"
exec 8>>"$t/s2.json.tmp" 9>>"$t/m2.prom.tmp"
"$bin" -c "$t/two.conf" 2>"$t/e10" &
p=$!
sleep 0.5
kill -TERM $p
wait $p
printf '1}' >&8
printf 'other 1\n' >&9
exec 8>&- 9>&-
python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
assert s["epochs"] == 0, s
assert json.load(open(sys.argv[1] + ".tmp")) == {"other": 1}' "$t/s2.json" 2>"$t/py" &&
	grep -q '^indigod_epochs_total 0$' "$t/m2.prom" && ! grep -q other "$t/m2.prom" &&
	[ "$(cat "$t/m2.prom.tmp")" = "$(printf '# other\nother 1')" ] &&
	ok temp-files-per-process || no temp-files-per-process "$(cat "$t/py" "$t/e10"; ls "$t")"
# a Netscope that could not start (here its application's cgroup is not
# there; on a host, bpffs not mounted, say) is tried again at a reload,
# [netscope] unchanged: the operator may have put its cause right since
conf linucb
printf '[netscope]\nenable = on\napps = %s/nocg\n' "$t" >>"$t/c.conf"
"$bin" -c "$t/c.conf" 2>"$t/e11" &
p=$!
sleep 0.5
kill -HUP $p
sleep 0.5
kill -TERM $p
wait $p
rc=$?
[ $rc = 0 ] &&
	[ "$(sed -n '/SIGHUP/,$p' "$t/e11" | grep -c "netscope: $t/nocg: No such file or directory; running without Netscope")" = 1 ] &&
	ok sighup-retries-netscope || no sighup-retries-netscope "rc $rc: $(cat "$t/e11")"
# a GPU tier that could not start (no driver yet) starts at SIGUSR1 once
# the driver is there: the stand-in libcuda, where the build made it
if [ -n "${INDIGO_FAKECUDA:-}" ] && [ -f "$INDIGO_FAKECUDA" ]; then
	conf linucb
	printf '[gpu]\ndriver = %s/libcuda.so.1\nprobe_share = 1\nprobe_batch_kib = 64\nprobe_reps = 2\n' \
		"$t" >>"$t/c.conf"
	FAKECUDA_THREAD=1 "$bin" -c "$t/c.conf" 2>"$t/e7" &
	p=$!
	sleep 0.5
	ln -s "$INDIGO_FAKECUDA" "$t/libcuda.so.1"
	kill -USR1 $p
	for _ in $(seq 50); do
		grep -q 'gpu 0: Fake H200' "$t/e7" && break
		sleep 0.1
	done
	# the driver's threads (the stand-in's one) never take the signals
	# the loop handles (HUP, INT, USR1, TERM), which its own thread does
	blk=
	for s in /proc/$p/task/*; do
		[ "$(cat "$s/comm" 2>/dev/null)" = fakecuda ] &&
			blk=$(awk '/^SigBlk:/ { print $2 }' "$s/status")
	done
	main=$(awk '/^SigBlk:/ { print $2 }' "/proc/$p/status")
	[ -n "$blk" ] && [ $((0x$blk & 0x4203)) = $((0x4203)) ] &&
		[ $((0x$main & 0x4203)) = 0 ] &&
		ok gpu-driver-threads-block-signals ||
		no gpu-driver-threads-block-signals "driver thread SigBlk ${blk:-none}, main $main"
	kill -TERM $p
	wait $p
	rc=$?
	[ $rc = 0 ] && grep -q 'no NVIDIA driver.*going on without the GPU tier' "$t/e7" &&
		grep -q 'gpu 0: Fake H200' "$t/e7" &&
		ok sigusr1-starts-gpu-tier || no sigusr1-starts-gpu-tier "rc $rc: $(cat "$t/e7")"
else
	echo "SKIP sigusr1-starts-gpu-tier (no stand-in libcuda: INDIGO_FAKECUDA)"
fi
echo "indigod smoke: $fails failed"
[ $fails = 0 ]
