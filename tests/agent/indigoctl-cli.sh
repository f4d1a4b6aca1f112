#!/usr/bin/env bash
# indigoctl without the module (this machine cannot load it): eval on a
# synthetic decision log whose truth is known (actions drawn uniformly from
# the 18 arms, propensity 1/18, reward 1 + noise for arm 3 and noise
# otherwise: the estimates must find it); a missing or garbage log, a
# missing module and a user who is not root are refused clearly.
#
# Usage: indigoctl-cli.sh PATH/TO/indigoctl
set -euo pipefail

ctl=${1:?usage: indigoctl-cli.sh INDIGOCTL}
. "$(dirname "$0")/lib.sh"

awk 'BEGIN {
	srand(7)
	for (i = 0; i < 5000; i++) {
		a = int(rand() * 18)
		r = (a == 3 ? 1 : 0) + (rand() - 0.5) * 0.2
		printf "{\"epoch\":%d,\"ts\":%d,\"context\":[1,%.3f],\"action\":%d,\"propensity\":%.10f,\"reward\":%.6f,\"learner\":\"thompson\"}\n",
			i, 1700000000 + i, rand(), a, 1 / 18, r
	}
	print "not json"
	# sound JSON, but an arm no learner has
	print "{\"epoch\":5000,\"ts\":1700005000,\"context\":[1,0.5],\"action\":4294967295,\"propensity\":0.5,\"reward\":1,\"learner\":\"thompson\"}"
}' >"$dir/log.jsonl"

"$ctl" --json eval "$dir/log.jsonl" >"$dir/out.json"
# json-c prints one member per line: pick each arm's dr
dr() {
	awk -v want="$1" -F: '/"arm"/ { gsub(/[ ,]/, "", $2); arm = $2 }
		/"dr"/ { gsub(/[ ,]/, "", $2); if (arm == want) print $2 }' "$dir/out.json"
}
near() { awk -v v="$1" -v t="$2" 'BEGIN { exit !(v > t - 0.1 && v < t + 0.1) }'; }
d3=$(dr 3)
d0=$(dr 0)
near "$d3" 1 && pass eval-finds-best-arm || fail eval-finds-best-arm "arm 3 dr $d3"
near "$d0" 0 && pass eval-other-arm || fail eval-other-arm "arm 0 dr $d0"
grep -Eq '"thresholds": *"fill"' "$dir/out.json" && pass eval-names-fill ||
	fail eval-names-fill "no arm named fill"
grep -q '"malformed_lines":2' "$dir/out.json" && pass eval-counts-malformed ||
	fail eval-counts-malformed "$(grep malformed "$dir/out.json")"
"$ctl" eval "$dir/log.jsonl" | grep -q '^records 5000$' && pass eval-human ||
	fail eval-human "no 'records 5000' line"
# a log that never took arm 0: its row is there all the same, without a
# self-normalised estimate, and the table stays a table
awk 'BEGIN { srand(8); for (i = 0; i < 500; i++)
	printf "{\"epoch\":%d,\"ts\":%d,\"context\":[1,0.5],\"action\":%d,\"propensity\":%.10f,\"reward\":0.5,\"learner\":\"thompson\"}\n",
		i, 1700000000 + i, 1 + int(rand() * 17), 1 / 17 }' >"$dir/log17.jsonl"
"$ctl" --json eval "$dir/log17.jsonl" >"$dir/out17.json"
"$ctl" eval "$dir/log17.jsonl" >"$dir/out17.txt"
python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["estimates"]
assert e[0]["arm"] == 0 and e[0]["snips"] is None, e[0]
assert all(x is not None for x in e) and abs(e[1]["snips"] - 0.5) < 1e-9, e[1]' "$dir/out17.json" &&
	grep -Eq '^  0 +.* - ' "$dir/out17.txt" && pass eval-arm-never-taken ||
	fail eval-arm-never-taken "$(head -c 600 "$dir/out17.txt")"
# an arm beyond indigod's grid (its 18 arms) is a damaged line, not 1000
# rows of arms no one has, each a pass over the log per arm up to it (a
# log of 20000 decisions took minutes)
awk 'BEGIN { for (i = 0; i < 500; i++)
	printf "{\"epoch\":%d,\"ts\":%d,\"context\":[1,0.5],\"action\":%d,\"propensity\":%.10f,\"reward\":0.5,\"learner\":\"thompson\"}\n",
		i, 1700000000 + i, (i == 7 ? 1000 : i % 18), 1 / 18 }' >"$dir/arm1000.jsonl"
timeout 60 "$ctl" --json eval "$dir/arm1000.jsonl" >"$dir/arm1000.json" || true
python3 -c 'import json, sys
o = json.load(open(sys.argv[1]))
assert (o["records"], o["malformed_lines"]) == (499, 1), (o["records"], o["malformed_lines"])
assert [e["arm"] for e in o["estimates"]] == list(range(18)), len(o["estimates"])' \
	"$dir/arm1000.json" 2>"$dir/err" && pass eval-arm-beyond-grid ||
	fail eval-arm-beyond-grid "$(tail -n 1 "$dir/err")"
# a propensity so small that its weight overflows (valid, in (0, 1]): that
# arm's estimates are null, not NaN (which is not JSON), the others hold
printf '%s\n' \
	'{"epoch":1,"ts":1,"context":[1,0.5],"action":0,"propensity":1e-310,"reward":1,"learner":"x"}' \
	'{"epoch":2,"ts":2,"context":[1,0.5],"action":1,"propensity":0.5,"reward":2,"learner":"x"}' \
	>"$dir/tiny.jsonl"
"$ctl" --json eval "$dir/tiny.jsonl" >"$dir/tiny.json"
"$ctl" eval "$dir/tiny.jsonl" >"$dir/tiny.txt"
python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["estimates"]
assert e[0]["arm"] == 0 and e[0]["ips"] is None and e[0]["dr"] is None, e[0]
assert abs(e[1]["ips"] - 2) < 1e-9, e[1]' "$dir/tiny.json" &&
	grep -Eq '^  0 +rate.* - +- +- +- +-$' "$dir/tiny.txt" && pass eval-overflowing-weights ||
	fail eval-overflowing-weights "$(head -c 600 "$dir/tiny.json")"
# rewards whose sum overflows (each finite, as the log admits): the logged
# mean is theirs, not Infinity (which is not JSON)
printf '%s\n' \
	'{"epoch":1,"ts":1,"context":[1,0.5],"action":0,"propensity":0.5,"reward":1e308,"learner":"x"}' \
	'{"epoch":2,"ts":2,"context":[1,0.5],"action":1,"propensity":0.5,"reward":1e308,"learner":"x"}' \
	>"$dir/huge.jsonl"
"$ctl" --json eval "$dir/huge.jsonl" >"$dir/huge.json"
python3 -c 'import json, sys
def bad(c): raise ValueError("not JSON: " + c)
o = json.load(open(sys.argv[1]), parse_constant=bad)
assert o["logged_mean_reward"] == 1e308, o["logged_mean_reward"]' "$dir/huge.json" 2>"$dir/err" &&
	pass eval-huge-rewards-json ||
	fail eval-huge-rewards-json "$(cat "$dir/err"; head -c 300 "$dir/huge.json")"

if "$ctl" eval "$dir/missing" 2>"$dir/err"; then
	fail eval-missing "exit 0"
else
	grep -q 'missing: No such file' "$dir/err" && pass eval-missing ||
		fail eval-missing "$(cat "$dir/err")"
fi
echo garbage >"$dir/bad"
if "$ctl" eval "$dir/bad" 2>"$dir/err"; then
	fail eval-garbage "exit 0"
else
	grep -q 'no complete decisions (1 malformed' "$dir/err" && pass eval-garbage ||
		fail eval-garbage "$(cat "$dir/err")"
fi
# refusals: exit 1 and a sentence saying why
refused() {
	local name=$1 want=$2
	shift 2
	if "$@" >/dev/null 2>"$dir/err"; then
		fail "$name" "exit 0"
	else
		grep -q "$want" "$dir/err" && pass "$name" || fail "$name" "$(cat "$dir/err")"
	fi
}
# output that cannot be written (a full disk): exit 1 and a sentence,
# not a bare exit status
for j in "" --json; do
	refused "unwritable-output$j" 'indigoctl: writing the output: No space left' \
		sh -c '"$@" >/dev/full' - "$ctl" $j eval "$dir/tiny.jsonl"
done
chmod 755 "$dir"
if [ -d /sys/module/indigo ]; then
	echo "SKIP not-loaded (the module is loaded here)"
else
	refused not-loaded-stats 'the indigo module is not loaded' "$ctl" stats
	refused not-loaded-decisions 'the indigo module is not loaded' "$ctl" decisions
fi
refused not-root 'status: needs root' setpriv --reuid=65534 --regid=65534 --clear-groups "$ctl" status
refused bad-usage 'usage' "$ctl" frobnicate
refused bad-count 'EPOCHS is a count, not "3x"' "$ctl" watch 3x
refused watch-extra-args 'usage: watch \[EPOCHS\]' "$ctl" watch 3 4
refused bad-decisions-count 'usage: decisions \[N\]' "$ctl" decisions 5x
# policy settings are checked before the module is asked (bad usage is 2,
# loaded or not); a blank and a minus are no number: strtoull would read
# " -1" as 2^64-1 KiB, a watermark that vetoes every promotion
for bad in "free_min_kib= -1" "rate_min_mhz=+5" "burst_gap_ms=4294967296" "mode=fast"; do
	"$ctl" policy set mode=gate "$bad" >/dev/null 2>"$dir/err" && rc=0 || rc=$?
	[ "$rc" = 2 ] && grep -qF "bad policy setting '$bad'" "$dir/err" &&
		pass "policy-set-refuses '$bad'" ||
		fail "policy-set-refuses '$bad'" "exit $rc: $(cat "$dir/err")"
done
# numbers the module's SET_POLICY refuses (ERANGE): bad usage, named with
# the range, not the kernel's "integer out of range" (which key?) and exit 1
for bad in "burst_tol_pct=0" "burst_tol_pct=1001" "burst_gap_ms=0" \
	"burst_gap_ms=86400001" "rate_cap_pps=100000001"; do
	"$ctl" policy set mode=gate "$bad" >/dev/null 2>"$dir/err" && rc=0 || rc=$?
	[ "$rc" = 2 ] && grep -qF "policy setting '$bad' out of range" "$dir/err" &&
		pass "policy-set-range '$bad'" ||
		fail "policy-set-range '$bad'" "exit $rc: $(cat "$dir/err")"
done
if [ ! -d /sys/module/indigo ]; then
	# the largest watermark is a setting, not bad usage
	refused policy-set-max-free 'the indigo module is not loaded' \
		"$ctl" policy set free_min_kib=18446744073709551615
	# and so are the ends of the module's ranges
	refused policy-set-range-ends 'the indigo module is not loaded' \
		"$ctl" policy set burst_tol_pct=1 burst_tol_pct=1000 burst_gap_ms=1 \
		burst_gap_ms=86400000 rate_cap_pps=0 rate_cap_pps=100000000
fi

# decisions from a debugfs of our own (a private mount namespace: the
# host's /sys/kernel/debug is left alone): numbers in JSON are numbers,
# as in stats and policy, so that a filter such as rate_mhz >= 1000 works
if unshare -m true 2>/dev/null; then
	printf '%s\n' 'time_ns pid addr node target rate_mhz burst_ms verdict reason' \
		'100 41 0x7f0000001000 1 0 20000 300 allow pass' \
		'200 42 0x7f0000002000 1 -1 999 0 veto rate' >"$dir/decisions"
	unshare -m sh -c 'mount -t tmpfs none /sys/kernel/debug &&
		mkdir /sys/kernel/debug/indigo &&
		cp "$1/decisions" /sys/kernel/debug/indigo/ &&
		"$2" --json decisions 1 >"$1/dec.json" && "$2" decisions >"$1/dec.txt"' \
		- "$dir" "$ctl" 2>"$dir/err" || true
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["shown"] == 1, d
r = d["decisions"][0]
assert r == {"time_ns": 200, "pid": 42, "addr": "0x7f0000002000", "node": 1,
	"target": -1, "rate_mhz": 999, "burst_ms": 0, "verdict": "veto",
	"reason": "rate"}, r' "$dir/dec.json" 2>>"$dir/err" &&
		grep -Eq '^  200 +42 +0x7f0000002000 +1 +-1 +999 +0 +veto +rate$' "$dir/dec.txt" &&
		pass decisions-json-numbers ||
		fail decisions-json-numbers "$(cat "$dir/err" "$dir/dec.json" 2>/dev/null | head -c 800)"
	# a read that fails (the module's copy of its ring out of memory;
	# here a directory) is an error, not "shown 0" and exit 0
	unshare -m sh -c 'mount -t tmpfs none /sys/kernel/debug &&
		mkdir -p /sys/kernel/debug/indigo/decisions &&
		"$1" decisions' - "$ctl" >/dev/null 2>"$dir/err" && rc=0 || rc=$?
	[ "$rc" = 1 ] && grep -q 'decisions: .*/decisions: Is a directory' "$dir/err" &&
		pass decisions-read-error ||
		fail decisions-read-error "exit $rc: $(cat "$dir/err")"
else
	echo "SKIP decisions-json-numbers (no mount namespace here)"
fi

# an agent status file that is missing or not JSON: the agent is shown
# not running, with the file and why, either way
echo garbage >"$dir/status.json"
for f in "$dir/status.json" "$dir/none.json"; do
	"$ctl" --json --status-file "$f" status >"$dir/st.json" 2>/dev/null || true
	python3 -c 'import json, sys
a = json.load(open(sys.argv[1]))["agent"]
assert a["running"] is False and a["status_file"] == sys.argv[2] and a["error"], a' \
		"$dir/st.json" "$f" 2>"$dir/err" && pass "status-agent-absent ${f##*/}" ||
		fail "status-agent-absent ${f##*/}" "$(cat "$dir/st.json" "$dir/err")"
done

echo "indigoctl: $failed failed"
exit $failed
