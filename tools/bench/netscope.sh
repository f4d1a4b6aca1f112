#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark: Netscope against CUBIC and BBR on a congested host link.
#
# Two network namespaces across a tbf bottleneck (100 Mbit/s, 1 MB buffer:
# 80 ms of queue when full; tests/net/netscope-lib.sh). The delay-sensitive
# application is Debian's redis-server, driven by redis-benchmark (GET,
# 10 connections) from its own cgroup; the congestor is iperf3 bulk traffic
# from another cgroup. Each configuration runs the sensitive application
# alone, the bulk alone, then both together, in this one run:
#   cubic     every flow on CUBIC
#   bbr       every flow on BBR
#   netscope  indigo-netscope controlling both cgroups (delay sensitivity
#             estimated online, rates paced, the "netscope" CC)
# Reported: redis p50/p99 under congestion as a ratio to its alone value
# (CUBIC), and the bulk throughput as a ratio to its alone
# throughput. ROUNDS rounds (default 3) alternate the configurations; the
# medians are reported.
#
# Usage: tools/bench/netscope.sh   (root; writes tools/bench/results/netscope.md)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
B=$top/build
INDIGOCTL=$B/indigoctl
out=$top/tools/bench/results/netscope.md
rounds=${ROUNDS:-3}
requests=${REQUESTS:-4000}
bulk_s=${BULK_S:-12}
NS_TAG=bn$$
. "$top/tests/net/netscope-lib.sh"

AGENT=
work=$(mktemp -d)
cleanup() {
	[ -z "$AGENT" ] || { kill "$AGENT" 2>/dev/null; wait "$AGENT" 2>/dev/null || true; }
	ns_cleanup
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ns_up 100mbit 1000000
RC=$(ns_cgroup redis)
BC=$(ns_cgroup bulk)
ns_bg ip netns exec "$NS_B" redis-server --bind "$NS_IP_B" --port 6379 --save "" \
	--appendonly no --protected-mode no --loglevel warning >/dev/null
ns_bg ip netns exec "$NS_B" iperf3 -s -p 5201 >/dev/null
sleep 1

# A child namespace may not pick a restricted default CC, so each
# configuration's CC comes from Netscope's policy map (fixed, no controller).
set_cc() {
	"$INDIGOCTL" netscope set "$RC" cc="$1" rate_mbit=0
	"$INDIGOCTL" netscope set "$BC" cc="$1" rate_mbit=0
}

# prints "p50_ms p99_ms" of GETs
redis() {
	ns_in "$RC" "$NS_A" redis-benchmark -h "$NS_IP_B" -p 6379 -n "$requests" \
		-c 10 -t get -d 100 --precision 3 --csv |
		awk -F, '/^"GET"/ { gsub(/"/, ""); print $5, $7 }'
}

# bulk SECS: prints the sender's bit/s
bulk() {
	ns_in "$BC" "$NS_A" iperf3 -c "$NS_IP_B" -p 5201 -t "$1" -J |
		jq '.end.sum_sent.bits_per_second'
}

# together: bulk for bulk_s seconds with redis starting 2 s in;
# prints "p50 p99 bulk_bps"
together() {
	bulk "$bulk_s" >"$work/bps" &
	local p=$!
	sleep 2
	local lat
	lat=$(redis)
	wait $p
	echo "$lat $(cat "$work/bps")"
}

# start_netscope [ARGS]: the controller with ARGS, or measuring only
start_netscope() {
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

# the reference: each application alone on CUBIC
start_netscope --observe
set_cc cubic
read -r a50 a99 < <(redis)
abps=$(bulk 6)
echo "alone: redis p50 $a50 ms p99 $a99 ms; bulk $(jq -n "$abps/1e6|floor") Mbit/s"

for r in $(seq "$rounds"); do
	for conf in cubic bbr netscope; do
		stop_netscope
		if [ "$conf" = netscope ]; then
			"$INDIGOCTL" netscope clear "$RC"
			"$INDIGOCTL" netscope clear "$BC"
			start_netscope --app "$RC" --app "$BC" --capacity-mbit 100 \
				--floor-mbit 20 --interval-ms 100
		else
			start_netscope --observe
			set_cc "$conf"
		fi
		read -r p50 p99 bps < <(together)
		echo "round $r $conf: redis p50 $p50 ms p99 $p99 ms; bulk $(jq -n "$bps/1e6|floor") Mbit/s"
		echo "$conf $p50 $p99 $bps" >>"$work/rows"
	done
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
row() {
	local c=$1 p50 p99 bps
	p50=$(awk -v c="$c" '$1 == c { print $2 }' "$work/rows" | median)
	p99=$(awk -v c="$c" '$1 == c { print $3 }' "$work/rows" | median)
	bps=$(awk -v c="$c" '$1 == c { print $4 }' "$work/rows" | median)
	printf '| %s | %.3f | %.3f | %.2f | %.2f | %.1f | %.2f |\n' "$c" "$p50" "$p99" \
		"$(jq -n "$p50 / $a50")" "$(jq -n "$p99 / $a99")" "$(jq -n "$bps / 1e6")" \
		"$(jq -n "$bps / $abps")"
}

{
	echo "# Netscope on a congested host link"
	echo
	echo "Measured $(date -u +%Y-%m-%d) with \`make bench-netscope\` (tools/bench/netscope.sh),"
	echo "on the development machine (2 shared cores, kernel $(uname -r))."
	echo "Two network namespaces across a tbf bottleneck of 100 Mbit/s with a 1 MB"
	echo "buffer. Sensitive: redis-server driven by redis-benchmark (GET, 10"
	echo "connections, $requests requests); congestor: iperf3 bulk for ${bulk_s} s in another"
	echo "cgroup, redis starting 2 s into it. CUBIC and BBR are set per flow by"
	echo "Netscope's sock_ops program (measuring only); the netscope row runs its"
	echo "controller. Alone (CUBIC): redis p50"
	echo "$a50 ms, p99 $a99 ms; bulk $(jq -n "$abps/1e6*10|floor/10") Mbit/s. Medians of $rounds rounds;"
	echo "ratios are against the alone figures of this same run."
	echo
	echo "| config | p50 ms | p99 ms | p50 / alone | p99 / alone | bulk Mbit/s | bulk / alone |"
	echo "|---|---|---|---|---|---|---|"
	row cubic
	row bbr
	row netscope
	echo
	echo "Goal: p99 / alone <= 1.2 with bulk >= 0.85 of what redis leaves;"
	echo "better p99 than CUBIC and BBR with bulk within 10 % of BBR's."
} >"$out"
cat "$out"
