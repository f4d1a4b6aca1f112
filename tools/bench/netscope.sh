#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark: Netscope against CUBIC and BBR on a congested host link.
#
# Two network namespaces across a tbf bottleneck (RATE_MBIT, default 100
# Mbit/s, and BUFFER bytes, default 1 MB: 80 ms of queue when full at 100
# Mbit/s; tests/net/netscope-lib.sh). The delay-sensitive
# application is Debian's redis-server, driven by redis-benchmark (GET)
# from its own cgroup: CLIENTS - 1 connections loop for as long as a row
# lasts, so that redis is a steady load the controller sees, and one more
# connection measures REQUESTS requests' latency once the row has run 3 s
# (the controller's 100 ms intervals would not even see a burst of a few
# thousand requests, which redis serves in a tenth of a second). The
# congestor is iperf3 bulk traffic from another cgroup; its throughput is
# its cgroup's delivered bytes (Netscope's counters) over the measurement.
# Each round runs each application alone (CUBIC), then both together under
# each configuration, all in this one run:
#   cubic     every flow on CUBIC
#   bbr       every flow on BBR
#   netscope  indigo-netscope controlling both cgroups (delay sensitivity
#             estimated online, rates paced, the "netscope" CC)
#   apart     a control, CUBIC: the same bulk through a second bottleneck
#             of its own between the same namespaces, on the same CPUs,
#             so no queue is shared; what it adds to redis's latency is
#             what no scheduling of the shared link can remove
# Reported: redis p50/p99 under congestion as a ratio to its alone value,
# the bulk throughput as a ratio to its alone throughput, what redis put on
# the wire (the share of the link it was left: a queued redis asks less),
# and the p99 of ICMP echoes through the same bottleneck (the queue alone,
# without redis's own processing); medians over ROUNDS rounds (default 5),
# with a verdict on each of the issue's goals.
#
# On a machine with two or more CPUs, redis (server and benchmark) runs on
# CPU 0 and iperf3 (both ends) on CPU 1 in every row, alone included, so
# that what the rows compare is the network, not the two competing for a
# core: on the 2-core development machine, unpinned, the bulk transfer
# over a separate, uncongested link already raised redis's p99 several
# times in some runs.
#
# Usage: tools/bench/netscope.sh   (root; writes tools/bench/results/netscope.md)
# Env:   ROUNDS (5), REQUESTS (the measuring connection's, 40000, so that
#        its p99 is the 400th slowest: less sampling noise, though the
#        machine's own state still spreads the rounds; 2000 on CUBIC and
#        BBR, REQUESTS_SLOW, whose requests wait 10 ms), CLIENTS (10),
#        RATE_MBIT (100), BUFFER (1000000), UTIL_MAX (0.93, the netscope
#        row's --util-max), NS_ARGS (more indigo-netscope
#        options for the netscope row), OUT (the results file), CONFS (set:
#        only these rows besides alone, e.g. "netscope", and only the
#        per-round lines, no results file: a quick comparison), SOAK_S
#        (120: after the rounds, the netscope row once more, measured
#        after this many seconds instead of 3, with the controller's
#        sensitivity estimates then; 0: none), GSO_MAX_SEGS (set: the
#        largest TSO/GSO burst, in segments, of both bottleneck devices,
#        for every row: the host's NIC setting; netscope-tuning.md)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
B=$top/build
INDIGOCTL=$B/indigoctl
out=${OUT:-$top/tools/bench/results/netscope.md}
rounds=${ROUNDS:-5}
requests=${REQUESTS:-40000}
requests_slow=${REQUESTS_SLOW:-2000}	# CUBIC and BBR: 10 ms a request
clients=${CLIENTS:-10}
rate_mbit=${RATE_MBIT:-100}
soak_s=${SOAK_S:-120}
settle=3	# seconds a row runs before it is measured
buffer=${BUFFER:-1000000}
floor_mbit=$((rate_mbit / 5))	# redis's floor in the netscope row
PIN_R=()
PIN_B=()
if [ "$(nproc)" -ge 2 ]; then
	PIN_R=(taskset -c 0)
	PIN_B=(taskset -c 1)
fi
NS_ARGS=${NS_ARGS:-}
util_max=${UTIL_MAX:-0.93}	# the controller's phantom queue (--util-max)
NS_TAG=bn$$
. "$top/tests/net/netscope-lib.sh"

AGENT=
LOAD=()
work=$(mktemp -d)
cleanup() {
	# an agent already gone (it may be why the run stops) must not end the
	# trap under set -e before the loads and namespaces go
	[ -z "$AGENT" ] || { kill "$AGENT" 2>/dev/null || true; wait "$AGENT" 2>/dev/null || true; }
	stop_load
	ns_cleanup
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ns_up "${rate_mbit}mbit" "$buffer"
# the control's second link: same rate and buffer, nothing else on it
ns_link "vc-$NS_TAG" "vd-$NS_TAG" 198.18.0.5 198.18.0.6 "${rate_mbit}mbit" "$buffer"
if [ -n "${GSO_MAX_SEGS:-}" ]; then
	ip -n "$NS_A" link set dev "va-$NS_TAG" gso_max_segs "$GSO_MAX_SEGS"
	ip -n "$NS_A" link set dev "vc-$NS_TAG" gso_max_segs "$GSO_MAX_SEGS"
fi
RC=$(ns_cgroup redis)
BC=$(ns_cgroup bulk)
ns_bg "${PIN_R[@]}" ip netns exec "$NS_B" redis-server --bind "$NS_IP_B" --port 6379 --save "" \
	--appendonly no --protected-mode no --loglevel warning >/dev/null
ns_bg "${PIN_B[@]}" ip netns exec "$NS_B" iperf3 -s -p 5201 >/dev/null 2>&1
sleep 1

# A child namespace may not pick a restricted default CC, so each
# configuration's CC comes from Netscope's policy map (fixed, no controller).
set_cc() {
	"$INDIGOCTL" netscope set "$RC" cc="$1" rate_mbit=0
	"$INDIGOCTL" netscope set "$BC" cc="$1" rate_mbit=0
}

# start_load [BULK_SERVER]: redis's looping connections, and the bulk
# transfer to BULK_SERVER (none: no bulk); stop_load ends both
start_load() {
	ns_in "$RC" "$NS_A" "${PIN_R[@]}" redis-benchmark -h "$NS_IP_B" -p 6379 \
		-c $((clients - 1)) -l -t get -d 100 -q >/dev/null 2>&1 &
	LOAD+=($!)
	if [ -n "${1:-}" ]; then
		ns_in "$BC" "$NS_A" "${PIN_B[@]}" iperf3 -c "$1" -p 5201 -t 600 >/dev/null 2>&1 &
		LOAD+=($!)
	fi
}
# by cgroup: $! is the subshell around ns_in, not the program; cgroup.kill
# (Linux 5.14) also takes what forks meanwhile
stop_load() {
	local p cg
	[ -n "${RC:-}" ] || return 0
	for cg in "$RC" "$BC"; do
		if [ -e "$cg/cgroup.kill" ]; then
			echo 1 >"$cg/cgroup.kill"
		else
			for p in $(cat "$cg/cgroup.procs"); do
				kill "$p" 2>/dev/null || true
			done
		fi
	done
	for p in "${LOAD[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	LOAD=()
}

# redis N: prints "p50_ms p99_ms" of the measuring connection's N GETs
redis() {
	ns_in "$RC" "$NS_A" "${PIN_R[@]}" redis-benchmark -h "$NS_IP_B" -p 6379 -n "$1" \
		-c 1 -t get -d 100 --precision 3 --csv |
		awk -F, '/^"GET"/ { gsub(/"/, ""); print $5, $7 }'
}

# bytes the bottleneck has sent so far
tbf_sent() {
	tc -n "$NS_A" -s qdisc show dev "va-$NS_TAG" | awk '$1 == "Sent" { print $2; exit }'
}

# bytes the bulk cgroup's flows have delivered so far
bulk_bytes() {
	ns_json_get "$BC" '.delivered_bytes // 0'
}

# wire CGROUP: bytes its flows have put on the wire so far, delivered
# bytes and a frame's headers for each segment sent, as the controller
# counts them (indigoctl's wire_bytes)
wire() {
	ns_json_get "$1" '.wire_bytes // 0'
}

now() { date +%s.%N; }

# record CONF P50 P99 BULK_BPS ECHO_P99 REDIS_BPS LINK_BPS ROUND: a line of
# $work/rows. A figure missing or no number (a reading that failed inside
# a command substitution, where set -e does not reach) stops the run: the
# line would be a column short, and every median taken from it wrong.
record() {
	local v
	[ $# = 8 ] || set -- "$@" ""	# another count: an empty figure, refused
	for v in "${@:2}"; do
		[[ $v =~ ^[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$ ]] ||
			{ echo "netscope.sh: no figure in row: $*" >&2; exit 1; }
	done
	echo "$*" >>"$work/rows"
}

# prints the p99 in ms of 400 echoes, 5 ms apart, through the bottleneck
echo_p99() {
	ip netns exec "$NS_A" ping -n -i 0.005 -c 400 "$NS_IP_B" |
		sed -n 's/.*time=\([0-9.]*\).*/\1/p' | sort -g |
		awk '{ v[NR] = $1 } END { print v[int(NR * 0.99)] }'
}

# measure N [BULK_SERVER]: one row, N requests measured; prints "p50 p99
# bulk_bps echo_p99 redis_bps link_bps": redis_bps what redis's requests
# and ACKs put on the wire, link_bps what the bottleneck carried (alone,
# exactly redis's share of the link)
measure() {
	local n=$1 p50 p99 b0 b1 r0 r1 s0 s1 t0 t1 e99
	shift
	start_load "$@"
	sleep "$settle"
	b0=$(bulk_bytes)
	r0=$(wire "$RC")
	s0=$(tbf_sent)
	t0=$(now)
	read -r p50 p99 < <(redis "$n")
	e99=$(echo_p99)
	b1=$(bulk_bytes)
	r1=$(wire "$RC")
	s1=$(tbf_sent)
	t1=$(now)
	stop_load
	echo "$p50 $p99 $(jq -n "($b1 - $b0) * 8 / ($t1 - $t0)") $e99" \
		"$(jq -n "($r1 - $r0) * 8 / ($t1 - $t0)") $(jq -n "($s1 - $s0) * 8 / ($t1 - $t0)")"
}

# the bulk alone: its delivered bytes over 4 s, after 2 s
bulk_alone() {
	local b0 t0
	ns_in "$BC" "$NS_A" "${PIN_B[@]}" iperf3 -c "$NS_IP_B" -p 5201 -t 7 >/dev/null 2>&1 &
	local p=$!
	sleep 2
	b0=$(bulk_bytes)
	t0=$(now)
	sleep 4
	jq -n "($(bulk_bytes) - $b0) * 8 / ($(now) - $t0)"
	wait $p || true
}

# start_netscope [ARGS]: the controller with ARGS, or measuring only
start_netscope() {
	: >"$work/agent"	# before the first look: see start_agent in netscope-net.sh
	"$B/indigo-netscope" --cgroup "$NS_CG" "$@" >"$work/agent" 2>&1 &
	AGENT=$!
	for _ in $(seq 50); do
		grep -q attached "$work/agent" && return 0
		sleep 0.1
	done
	cat "$work/agent" >&2
	exit 1
}

stop_netscope() {
	kill "$AGENT"
	wait "$AGENT" || true
	AGENT=
}

# the netscope row's controller, on a policy cleared of the last row's
start_controller() {
	stop_netscope
	"$INDIGOCTL" netscope clear "$RC"
	"$INDIGOCTL" netscope clear "$BC"
	start_netscope --app "$RC" --app "$BC" --capacity-mbit "$rate_mbit" \
		--floor-mbit "$floor_mbit" --interval-ms 100 \
		--util-max "$util_max" $NS_ARGS
}

# sensitivity CGROUP: the controller's estimate, "mean (lo to hi)"
sensitivity() {
	ns_json_get "$1" '.sensitivity | "\(.mean) (\(.lo) to \(.hi))"'
}

start_netscope --observe
for r in $(seq "$rounds"); do
	# the reference, each round: each application alone on CUBIC
	stop_netscope
	start_netscope --observe
	set_cc cubic
	read -r p50 p99 _ e99 rbps lbps < <(measure "$requests")
	bps=$(bulk_alone)
	echo "round $r alone: redis p50 $p50 ms p99 $p99 ms, $(jq -n "$rbps/1e6|floor") Mbit/s on the wire ($(jq -n "$lbps/1e6|floor") through the bottleneck); bulk $(jq -n "$bps/1e6|floor") Mbit/s; echo p99 $e99 ms"
	record alone "$p50" "$p99" "$bps" "$e99" "$rbps" "$lbps" "$r"
	for conf in ${CONFS:-cubic bbr netscope apart}; do
		if [ "$conf" = netscope ]; then
			start_controller
		else
			stop_netscope
			start_netscope --observe
			set_cc "${conf/apart/cubic}"
		fi
		srv=$NS_IP_B
		[ "$conf" != apart ] || srv=198.18.0.6
		n=$requests
		case $conf in cubic | bbr) n=$requests_slow ;; esac
		read -r p50 p99 bps e99 rbps lbps < <(measure "$n" "$srv")
		echo "round $r $conf: redis p50 $p50 ms p99 $p99 ms, $(jq -n "$rbps/1e6|floor") Mbit/s on the wire; bulk $(jq -n "$bps/1e6|floor") Mbit/s; echo p99 $e99 ms"
		record "$conf" "$p50" "$p99" "$bps" "$e99" "$rbps" "$lbps" "$r"
	done
done

[ -z "${CONFS:-}" ] || exit 0

if [ "$soak_s" -gt 0 ]; then
	start_controller
	settle=$soak_s
	read -r s50 s99 sbps se99 _ _ < <(measure "$requests" "$NS_IP_B")
	settle=3
	echo "soak: redis p50 $s50 ms p99 $s99 ms; bulk $(jq -n "$sbps/1e6|floor") Mbit/s; echo p99 $se99 ms"
	sens_b=$(sensitivity "$BC")
	sens_r=$(sensitivity "$RC")
fi

# med_range CONF COLUMN: "least-most" of one configuration's column
med_range() { awk -v c="$1" -v k="$2" '$1 == c { print $k }' "$work/rows" | sort -g | sed -n '1p;$p' | paste -sd-; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# med CONF COLUMN: the median of one configuration's column
med() { awk -v c="$1" -v k="$2" '$1 == c { print $k }' "$work/rows" | median; }
a50=$(med alone 2)
a99=$(med alone 3)
abps=$(med alone 4)
ae99=$(med alone 5)
# the share of the bottleneck redis takes alone (its requests and ACKs,
# headers included: small packets are mostly header)
rshare=$(jq -n "$(med alone 7) / ($rate_mbit * 1e6)")
left=$(jq -n "$abps * (1 - $rshare)")
row() {
	local c=$1 p50 p99 bps e99 rbps
	p50=$(med "$c" 2)
	p99=$(med "$c" 3)
	bps=$(med "$c" 4)
	e99=$(med "$c" 5)
	rbps=$(med "$c" 6)
	printf '| %s | %.3f | %.3f | %.2f | %.2f | %.1f | %.1f | %.2f | %.3f | %.2f |\n' "$c" "$p50" "$p99" \
		"$(jq -n "$p50 / $a50")" "$(jq -n "$p99 / $a99")" "$(jq -n "$rbps / 1e6")" \
		"$(jq -n "$bps / 1e6")" "$(jq -n "$bps / $abps")" "$e99" "$(jq -n "$e99 / $ae99")"
}
# per_round CONF: CONF's p99 over the same round's alone p99, each round
per_round() {
	awk -v c="$1" '$1 == "alone" { a[$8] = $3 } $1 == c { r[$8] = $3 }
		END { for (k = 1; k in r; k++) printf "%s%.2f", (k > 1 ? ", " : ""), r[k] / a[k]; print "" }' "$work/rows"
}
n99=$(med netscope 3)
nbps=$(med netscope 4)

{
	echo "# Netscope on a congested host link"
	echo
	echo "Measured $(date -u +%Y-%m-%d) on the development machine (2 shared cores,"
	echo "kernel $(uname -r)). Two network namespaces across a tbf bottleneck of"
	echo "$rate_mbit Mbit/s with a $((buffer / 1000)) kB buffer. Sensitive: redis-server driven by"
	echo "redis-benchmark (GET, $((clients - 1)) connections looping throughout, one more"
	echo "measuring $requests requests ($requests_slow on CUBIC and BBR, where each waits about"
	echo "10 ms) 3 s into each row); congestor: iperf3 bulk from"
	echo "another cgroup, its throughput from its cgroup's delivered bytes over the"
	echo "measurement. CUBIC and"
	echo "BBR are set per flow through Netscope's policy map (sock_ops, no"
	echo "controller); the netscope row runs the controller: indigo-netscope"
	echo "--capacity-mbit $rate_mbit --floor-mbit $floor_mbit --interval-ms 100 --util-max $util_max${NS_ARGS:+ $NS_ARGS}, both"
	echo "cgroups as applications, sensitivity estimated online. Each round first"
	echo "measures each application alone (CUBIC); figures are medians over $rounds"
	echo "rounds, ratios against the median alone figures of this same run."
	if [ ${#PIN_R[@]} -gt 0 ]; then
		echo "redis (server and benchmark) runs on CPU 0, iperf3 (both ends) on CPU 1,"
		echo "in every row."
	fi
	echo "Echo p99: 400 ICMP echoes 5 ms apart through the same bottleneck after"
	echo "the measuring connection finishes, everything else still running: the"
	echo "bottleneck's queue without redis's own processing. Redis Mbit/s: what"
	echo "its requests and ACKs put on the wire (its cgroup's delivered bytes and"
	echo "66 bytes of headers a segment, as the controller counts them), the share"
	echo "of the link it was left."
	echo
	echo "| config | p50 ms | p99 ms | p50 / alone | p99 / alone | redis Mbit/s | bulk Mbit/s | bulk / alone | echo p99 ms | echo p99 / alone |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	row alone
	row cubic
	row bbr
	row netscope
	row apart
	echo
	echo "Goals (netscope row):"
	echo
	awk -v a99="$a99" -v n99="$n99" -v c99="$(med cubic 3)" -v b99="$(med bbr 3)" \
		-v abps="$abps" -v nbps="$nbps" -v bbps="$(med bbr 4)" -v rshare="$rshare" \
		-f "$top/tools/bench/netscope-goals.awk"
	echo
	echo "Noise: redis's p99 alone ranged from $(med_range alone 3) ms over the rounds; the"
	echo "p99 ratio of each round to that round's alone: netscope $(per_round netscope);"
	echo "apart $(per_round apart). One p99 from $requests requests is the $((requests / 100))th slowest,"
	echo "and a few slow requests move it: read the verdict on p99 with this spread."
	echo
	if [ "$soak_s" -gt 0 ]; then
		echo "Left running (the netscope row once more after the rounds, measured"
		echo "after $soak_s s instead of 3): redis p99 $s99 ms, $(jq -n "$s99 / $a99 * 100 | floor / 100")x alone;"
		echo "bulk $(jq -n "$sbps / 1e6 | floor") Mbit/s, $(jq -n "$sbps / $(med bbr 4) * 100 | floor / 100")x BBR's; echo p99 $(jq -n "$se99 / $ae99 * 100 | floor / 100")x alone."
		echo "The controller's sensitivity estimates then: bulk $sens_b,"
		echo "redis $sens_r (an application keeps its floor unless its whole"
		echo "interval lies under 0.25)."
		echo
	fi
	echo "The apart row is a control, not a configuration: CUBIC with the bulk on a"
	echo "second bottleneck of its own (same rate, same buffer, same CPUs), so that"
	echo "redis shares no queue with it. Its p99 ratio is the part of the slowdown"
	echo "that no scheduling of the shared link can remove on this machine."
	echo
	echo "What limits the netscope row, with this run's figures:"
	echo
	echo "- The controller holds the link's use (bytes on the wire, every cgroup)"
	echo "  under $(jq -n "$util_max * 100") % of its capacity, so that a queue does not form. Redis alone"
	echo "  takes $(jq -n "$rshare * 100 | floor") % of the bottleneck (its small requests are mostly header),"
	echo "  so the bulk's own bytes on the wire stay under $(jq -n "($util_max - $rshare) * 100 | floor") % of it; the rate loop's"
	echo "  oscillation costs a little more."
	if ! jq -e -n "$nbps >= 0.85 * $left" >/dev/null; then
		echo "  That ceiling leaves the bulk at most $(jq -n "($util_max - $rshare) * $rate_mbit * 1e6 / $left * 100 | floor") % of the capacity redis"
		echo "  leaves (the goal: 85 %); with redis this heavy the goal needs a ceiling"
		echo "  of $(jq -n "($rshare + 0.85 * $left / ($rate_mbit * 1e6)) * 100 | floor") % of the link, where a queue would form again."
	fi
	if ! jq -e -n "$nbps >= 0.9 * $(med bbr 4)" >/dev/null; then
		echo "  BBR's bulk keeps its throughput by queueing redis ($(jq -n "$(med bbr 3) / $a99 * 10 | floor / 10")x its p99):"
		echo "  each connection waits for its answer before it asks again, so a"
		echo "  queued redis asks less, and under BBR it took $(jq -n "$(med bbr 6) / 1e6 * 10 | floor / 10") Mbit/s of the"
		echo "  link against $(jq -n "$(med alone 6) / 1e6 * 10 | floor / 10") alone and $(jq -n "$(med netscope 6) / 1e6 * 10 | floor / 10") under Netscope."
		echo "  With redis this heavy, being within 10 % of BBR's bulk and leaving redis"
		echo "  its share cannot both hold."
	fi
	echo "- p99: the bottleneck's queue at its tail under Netscope: echo p99"
	echo "  $(med netscope 5) ms against $ae99 ms alone. At $rate_mbit Mbit/s one full-size packet"
	# the fewest full-size packets ahead of a request that cost it 1.2x
	behind=$(jq -n "0.2 * $a99 * 1000 / (12000 / $rate_mbit) | floor + 1")
	echo "  takes $((12000 / rate_mbit)) us to send, $(jq -n "12 / $rate_mbit / $a99 * 100 | floor") % of redis's p99 alone: a request behind"
	echo "  $behind of them misses 1.2x, whatever the verdict above. With the bulk on a"
	echo "  link of its own (apart), redis's p99 is $(jq -n "$(med apart 3) / $a99 * 100 | floor / 100")x alone: what the rest of"
	echo "  the machine (CPUs, timers) adds."
	echo
	echo "Controller variants tried against the 1 Gbit/s bulk gap, and not kept:"
	echo "[netscope-tuning.md](netscope-tuning.md)."
	echo
	echo "Reproduce (root, Debian bookworm with tools/packages.d/netscope.list):"
	# OUT named, relative to the tree, so that the line writes this file
	echo "\`make bench-netscope\` (both link rates), or \`RATE_MBIT=$rate_mbit ROUNDS=$rounds OUT=${out#"$top"/} tools/bench/netscope.sh\`."
} >"$out"
cat "$out"
