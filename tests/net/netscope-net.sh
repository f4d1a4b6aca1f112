#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Netscope on the host, with real TCP flows between two network namespaces
# across a tbf bottleneck (tests/net/netscope-lib.sh). Checks:
#   1. maps pinned under /sys/fs/bpf/indigo with BTF (bpftool names fields)
#   2. the link's queue as the controller measures it (indigoctl, ns_link);
#      a flow's cgroup shows RTT aggregates and flow counts (each flow and
#      RTT sample once, under nested attachments too); a request/response flow counts
#      turns, and its progress is counted in them; flows that stay on the
#      host (loopback, or to a configured host peer) are neither counted
#      nor paced (IPv4 and IPv6), while an IPv6 flow across the link is
#      counted
#   3. a pacing rate set in the policy holds a bulk flow within +-15 %,
#      and three together; its window clamped near its share's
#      bandwidth-delay product; a
#      policy set after a clear reaches running flows; a policy without a
#      rate leaves an application's own pacing limit, one with a rate
#      does not raise it, and a clear puts it back
#   4. ss -ti shows the congestion control the policy chose, and a running
#      flow takes one that was not registered when the policy named it once
#      it is; a paced flow established without an RTT sample gets its
#      clamp from its first one
#   5. the "netscope" CC registers, carries a transfer within the window
#      clamp, and unregisters; a sensitivity is bounded (indigoctl, and
#      the CC for one written into the map by anyone)
#   6. a restarted agent keeps the pinned state and counts live flows
#      again (flows that closed while none was attached do not stay
#      live); a map another build pinned in another layout of the same
#      size is replaced; after kill -9 the next one registers the CC again
#   7. under induced congestion the controller, having estimated each
#      cgroup's sensitivity online, cuts the insensitive one's rate before
#      the sensitive one's
#   8. indigod runs all this from its [netscope] config section, host
#      peers included
#   9. no policy outlives the controller that set it: a restarted agent
#      (even --observe) neutralizes a killed one's, which running flows
#      then lift, and a stopped controller leaves neutral ones; another
#      agent starting and stopping leaves a running controller's; fixed
#      policies stay
#  10. an application's cgroup made again at its path (a restarted
#      service) is followed to its new id
#  11. a policy set by hand for a cgroup that has had no flow goes once
#      the cgroup is removed
#  12. flows in cgroups below an application's are counted and paced as
#      its own (the nearest application's), also after its cgroup is made
#      again
#  13. flows established before the agent started are taken in (kernels
#      since 6.12): counted, and their cgroup's policy applied
#  14. a flow open across a restart is counted and policed where the new
#      agent's applications put it
# Needs root, iperf3, redis-server, redis-benchmark, jq, bpftool.
# Everything it made goes on exit.
set -euo pipefail

B=${B:-build}
NETSCOPE=$B/indigo-netscope
INDIGOCTL=$B/indigoctl
INDIGOD=$B/indigod
NS_TAG=ns$$
. "$(dirname "$0")/netscope-lib.sh"

AGENT_PID=
LOG=$(mktemp)
stop_agent() {
	if [ -n "$AGENT_PID" ]; then
		kill "$AGENT_PID" 2>/dev/null || true
		wait "$AGENT_PID" 2>/dev/null || true
		AGENT_PID=
	fi
}
cleanup() {
	stop_agent
	ns_cleanup
	rm -f "$LOG" "$LOG".*
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# start_agent ARGS...: indigo-netscope on the test cgroup, waits until ready
start_agent() {
	# emptied here: the child's own truncation may come after the first
	# look, which would then find the last agent's words
	: >"$LOG"
	"$NETSCOPE" --cgroup "$NS_CG" "$@" >"$LOG" 2>&1 &
	AGENT_PID=$!
	for _ in $(seq 50); do
		grep -q attached "$LOG" && return 0
		kill -0 "$AGENT_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$LOG" >&2
	die "indigo-netscope did not start"
}

# iperf3 from CGROUP to B for SECS seconds; prints the sender's bit/s
bulk() {
	ns_in "$1" "$NS_A" iperf3 -c "$NS_IP_B" -t "$2" -J "${@:3}" |
		jq '.end.sum_sent.bits_per_second'
}

# the congestion control of A's established flows to B's port $1 (5201),
# one per line
flow_ccs() {
	ip netns exec "$NS_A" ss -tin state established "dport = :${1:-5201}" |
		grep -oE '^\s+(ts |sack |ecn |ecnseen |fastopen )*[a-z_0-9]+ wscale' |
		awk '{print $(NF-1)}' | sort -u
}

# flow_stat KEY [NETNS FILTER]: ss's KEY (cwnd; rtt, in ms) of the one of
# NETNS's (A's) established flows matching FILTER (to B's port 5201) that
# has sent the most (iperf3's data flow, not its control one). No such
# flow, or none showing KEY, fails the test: an empty figure would read as
# 0 in (( )), within every upper bound.
flow_stat() {
	ip netns exec "${2:-$NS_A}" ss -tin state established "${3:-dport = :5201}" |
		awk -v key="$1:" '/cwnd:/ { c = ""; s = 0
			for (i = 1; i <= NF; i++) {
				if (index($i, key) == 1) c = substr($i, length(key) + 1) + 0
				if ($i ~ /^bytes_sent:/) s = substr($i, 12)
			}
			if (c != "" && s + 0 >= best) { best = s + 0; v = c } }
			END { if (v == "") exit 1; print v }' ||
		die "no established flow ${3:-dport = :5201} in ${2:-$NS_A} shows $1"
}
flow_cwnd() { flow_stat cwnd "$@"; }

# the congestion control of the one of A's established flows to B's port
# $1 that has sent the most (iperf3's data flow)
flow_cc_top() {
	ip netns exec "$NS_A" ss -tin state established "dport = :$1" |
		awk -f "$(dirname "$0")/flow-cc-top.awk" ||
		die "no established flow to port $1 to read its congestion control"
}

# the SO_MAX_PACING_RATE (bit/s, 0: none) of the one of A's established
# flows to B's port $1 (5201) that has sent the most; no such flow fails
# the test (its 0 would read as a flow without a limit)
flow_max_pacing() {
	ip netns exec "$NS_A" ss -tin state established "dport = :${1:-5201}" |
		awk '/cwnd:/ { m = s = 0; n++
			for (i = 1; i <= NF; i++) {
				if ($i == "pacing_rate" && split($(i + 1), r, "/") == 2)
					m = r[2] + 0
				if ($i ~ /^bytes_sent:/) s = substr($i, 12)
			}
			if (s + 0 >= best) { best = s + 0; max = m } }
			END { if (!n) exit 1; print max + 0 }' ||
		die "no established flow to port ${1:-5201} to read its pacing limit"
}

# a bulk flow of $1 for $2 s, read 2 s in: sets ccs, cwnd and bps
bulk_sampled() {
	bulk "$1" "$2" >"$LOG.bps" &
	sleep 2
	ccs=$(flow_ccs)
	cwnd=$(flow_cwnd)
	wait $!
	bps=$(cat "$LOG.bps")
	rm -f "$LOG.bps"
}

# le BYTES VALUE: VALUE as BYTES little-endian hex bytes, for bpftool
le() {
	printf "%0$(($1 * 2))x" "$2" | sed 's/../& /g' |
		awk '{ for (i = NF; i > 0; i--) printf "%s ", $i }'
}

# policy_raw CGROUP CC RATE_BPS SENS_MILLI FLAGS [OWNER]: an ns_policy
# entry as any writer of the map may leave it (a killed controller,
# bpftool), at the next generation
policy_raw() {
	local gen cc
	gen=$(ns_json_get "$1" '.policy.gen // 0')
	cc=$(printf '%s' "$2" | od -An -tx1 -v)
	cc="$cc$(printf ' 00%.0s' $(seq $((16 - ${#2}))))"
	# shellcheck disable=SC2046,SC2086
	bpftool map update pinned "$NS_PINS/ns_policy" \
		key hex $(le 8 "$(stat -c %i "$1")") \
		value hex $cc $(le 8 "$3") $(le 4 0) $(le 4 "$4") $(le 4 "$5") \
		$(le 4 $((gen + 1))) $(le 4 "${6:-0}") $(le 4 0)
}

pass() { say "ok: $*"; }

# server PORT [NETNS CGROUP]: a one-shot iperf3 server in B (in NETNS, in
# CGROUP), returning once it listens
server() {
	local netns=${2:-$NS_B}

	if [ -n "${3:-}" ]; then
		ns_bg ns_in "$3" "$netns" iperf3 -s -p "$1" -1 >/dev/null 2>&1
	else
		ns_bg ip netns exec "$netns" iperf3 -s -p "$1" -1 >/dev/null 2>&1
	fi
	for _ in $(seq 50); do
		ip netns exec "$netns" ss -ltnH "sport = :$1" | grep -q . && return 0
		sleep 0.05
	done
	die "iperf3 server on port $1 did not start"
}

ns_up 100mbit 2000000
server 5201
BULK=$(ns_cgroup bulk)
RR=$(ns_cgroup rr)

# --- 1, 2: measuring only, attached to the bulk cgroup too: its flows
# pass the program twice (as under indigod and indigo-netscope both).
# B's end of an unshaped second link is a peer on the host.
PEER_IP_A=198.18.2.1
PEER_IP_B=198.18.2.2
ns_link "pa-$NS_TAG" "pb-$NS_TAG" "$PEER_IP_A" "$PEER_IP_B"
# IPv6 on both links too (2001:2::/48, for benchmarking)
ip -n "$NS_A" addr add 2001:2::1/64 dev "va-$NS_TAG" nodad
ip -n "$NS_B" addr add 2001:2::2/64 dev "vb-$NS_TAG" nodad
ip -n "$NS_A" addr add 2001:2:0:2::1/64 dev "pa-$NS_TAG" nodad
ip -n "$NS_B" addr add 2001:2:0:2::2/64 dev "pb-$NS_TAG" nodad
# A policy map an older build pinned with other flags (not preallocated,
# its layout otherwise today's) is replaced, not refused, where this run
# owns the pins.
if [ "$NS_PINS_FOUND" = 0 ]; then
	# (bpffs as the agent would mount it, on a machine that booted without)
	mountpoint -q /sys/fs/bpf || mount -t bpf -o mode=0700 bpf /sys/fs/bpf
	mkdir -p "$NS_PINS"
	bpftool map create "$NS_PINS/ns_policy" type hash key 8 value 48 \
		entries 1024 name ns_policy flags 1
fi
start_agent --observe --cgroup "$BULK" --host-peer 198.18.2.0/30 \
	--host-peer 2001:2:0:2::/64
bpftool map dump pinned /sys/fs/bpf/indigo/ns_cg_stats >/dev/null
# (not grep -q on the pipe: bpftool, its reader gone, fails under pipefail)
bpftool btf dump map pinned /sys/fs/bpf/indigo/ns_cg_stats value 2>/dev/null |
	grep -c live_flows >/dev/null || die "ns_cg_stats has no BTF with named fields"
flags=$(bpftool map show pinned "$NS_PINS/ns_policy" -j | jq .flags)
[ "$flags" = 0 ] || die "ns_policy's flags: $flags (the stale map kept)"
pass "maps pinned in /sys/fs/bpf/indigo with BTF; a stale ns_policy replaced"

# the link as the controller sees it, read while CUBIC builds a queue
# (milliseconds, where the controller's line is 300 us); beside the bulk
# flow, one like it under the test cgroup's attachment alone
ONE=$(ns_cgroup one)
server 5203
bulk "$ONE" 2 -p 5203 >/dev/null &
p_one=$!
bulk "$BULK" 2 >"$LOG.bps" &
sleep 1.5
link=$("$INDIGOCTL" netscope | sed -n 's/^link: queue \([0-9]*\) us.*/\1/p')
view=$(bpftool map dump pinned /sys/fs/bpf/indigo/ns_link)
wait $!
wait $p_one
bps=$(cat "$LOG.bps")
rm -f "$LOG.bps"
[ -n "$link" ] && ((link > 1000)) || die "link queue '$link' us under CUBIC"
jq -e '.[0].value | .rtt_samples > 0 and .base_us > 0 and .delay_us > .base_us' <<<"$view" >/dev/null ||
	die "ns_link: $view"
pass "the link's queue as the controller measured it: $link us"
# iperf3's control connection and its data flow, each counted once
[ "$(ns_json_get "$BULK" .flows)" -eq 2 ] ||
	die "bulk cgroup: $(ns_json_get "$BULK" .flows) flows counted for iperf3's 2"
[ "$(ns_json_get "$BULK" .rtt_samples)" -gt 0 ] || die "no RTT samples"
[ "$(ns_json_get "$BULK" .srtt_us)" -gt 0 ] || die "no RTT EWMA"
[ "$(ns_json_get "$BULK" .min_rtt_us)" -gt 0 ] || die "no min RTT"
# the windowed least RTT, which the link's base is taken from
[ "$(ns_json_get "$BULK" .base_rtt_us)" -gt 0 ] || die "no windowed base RTT"
# the kernel takes an RTT sample about once a round trip: the two flows,
# on one queue for as long, take about as many, each sample counted once
# under two attachments as under one
samples=$(ns_json_get "$BULK" .rtt_samples)
one=$(ns_json_get "$ONE" .rtt_samples)
jq -e -n "$samples < 1.5 * $one" >/dev/null ||
	die "RTT samples: $samples under two attachments, $one under one"
hist=$(ns_json_get "$BULK" '.rtt_hist_log2_us | add')
[ "$hist" -eq "$(ns_json_get "$BULK" .rtt_samples)" ] || die "histogram total $hist != samples"
sent=$(ns_json_get "$BULK" .delivered_bytes)
want=$(jq -n "$bps * 2 / 8 * 0.8")
jq -e -n "$sent > $want" >/dev/null || die "delivered $sent < $want bytes"
# segments are counted one per MSS, as on the wire (TSO or not)
segs=$(ns_json_get "$BULK" .segs_out)
jq -e -n "$segs >= $sent / 1500" >/dev/null || die "$segs segments for $sent bytes"
# what the controller counts on the wire: payload and a frame's headers
# (66 bytes: agent/netscope/ns_link.c) for each segment
# (one snapshot: the flows may still be closing)
wire=$(ns_json_get "$BULK" '"\(.wire_bytes) \(.delivered_bytes + 66 * .segs_out)"')
[ "${wire% *}" = "${wire#* }" ] || die "wire_bytes, delivered + 66 x segments: $wire"
sleep 0.3
[ "$(ns_json_get "$BULK" .flows_live)" -eq 0 ] || die "flows still live after iperf3 ended"
[ "$(ns_json_get "$BULK" .flows_bulk)" -eq 0 ] || die "bulk flows still counted after iperf3 ended"
[ "$(ns_json_get "$RR" .flows)" = null ] || die "idle cgroup has aggregates"
pass "aggregates: $(ns_json_get "$BULK" .flows) flows, $samples RTT samples ($one beside them under one attachment), srtt $(ns_json_get "$BULK" .srtt_us) us, min $(ns_json_get "$BULK" .min_rtt_us) us, base $(ns_json_get "$BULK" .base_rtt_us) us, $sent bytes at $(jq -n "$bps/1e6|floor") Mbit/s"
# a bulk flow rarely drains; a request/response one after every request,
# and the controller then counts its progress in turns
turns_bulk=$(ns_json_get "$BULK" .turns)
jq -e -n "$turns_bulk * 20 < $segs" >/dev/null || die "bulk: $turns_bulk turns in $segs segments"
# flows that stay on the host (to 127.0.0.1, to A's own address, to a
# --host-peer: B's end of a second link, without the bottleneck, as a
# container behind a bridge) cross no link: neither counted nor paced at a
# policy's 10 Mbit/s, at either end
LOCAL=$(ns_cgroup local)
"$INDIGOCTL" netscope set "$LOCAL" rate_mbit=10
for to in "127.0.0.1 $NS_A" "::1 $NS_A" "$NS_IP_A $NS_A" "$PEER_IP_B $NS_B" \
	"2001:2:0:2::2 $NS_B"; do
	read -r dst netns <<<"$to"
	server 5202 "$netns" "$LOCAL"
	bps=$(ns_in "$LOCAL" "$NS_A" iperf3 -c "$dst" -p 5202 -t 1 -J |
		jq '.end.sum_received.bits_per_second')
	jq -e -n "$bps > 100e6" >/dev/null ||
		die "a flow to $dst paced by the policy: $bps bit/s"
done
[ "$(ns_json_get "$LOCAL" .flows)" = null ] ||
	die "flows on the host counted: $(ns_json_get "$LOCAL" .flows)"
"$INDIGOCTL" netscope clear "$LOCAL"
pass "flows to 127.0.0.1 and ::1, to the host's own address and to a host peer (IPv4 and IPv6) neither counted nor paced"
# while an IPv6 flow across the link is
V6=$(ns_cgroup v6)
server 5216
ns_in "$V6" "$NS_A" iperf3 -c 2001:2::2 -p 5216 -t 1 >/dev/null
[ "$(ns_json_get "$V6" .flows)" = 2 ] && [ "$(ns_json_get "$V6" .rtt_samples)" -gt 0 ] ||
	die "an IPv6 flow across the link: $(ns_json_get "$V6" .flows) flows, $(ns_json_get "$V6" .rtt_samples) RTT samples"
pass "an IPv6 flow across the link counted: $(ns_json_get "$V6" .rtt_samples) RTT samples"
stop_agent
start_agent --app "$RR" --interval-ms 100 --no-cc
ns_bg ip netns exec "$NS_B" redis-server --bind "$NS_IP_B" --port 6379 --save "" \
	--appendonly no --protected-mode no --loglevel warning >/dev/null
for _ in $(seq 50); do
	ip netns exec "$NS_B" ss -ltnH "sport = :6379" | grep -q . && break
	sleep 0.05
done
ns_in "$RR" "$NS_A" redis-benchmark -h "$NS_IP_B" -p 6379 -c 1 -n 20000 -t get -q >/dev/null
turns=$(ns_json_get "$RR" .turns)
((turns >= 18000)) || die "request/response: $turns turns for 20000 requests"
progress=$(ns_json_get "$RR" .sensitivity.progress)
[ "$progress" = turns ] || die "request/response progress counted in $progress"
pass "turns: bulk $turns_bulk in $segs segments, request/response $turns for 20000 requests, its progress in turns"
stop_agent
"$INDIGOCTL" netscope clear "$RR"

# --- 4: a policy naming a CC not registered yet (BPF loads no module):
# a running flow keeps its own, and takes the policy's once it registers.
# A module CC not loaded yet where the kernel has one to load, else
# "netscope" itself, which an agent started without it then registers.
LATE=$(ns_cgroup late)
late_cc='' late_mod=
for m in vegas westwood htcp veno illinois; do
	grep -qw "$m" /proc/sys/net/ipv4/tcp_available_congestion_control && continue
	modprobe -nq "tcp_$m" 2>/dev/null && late_cc=$m late_mod=tcp_$m && break
done
[ -n "$late_cc" ] ||
	grep -qw netscope /proc/sys/net/ipv4/tcp_available_congestion_control ||
	late_cc=netscope
if [ -z "$late_cc" ]; then
	say "SKIP: a CC registered late: no CC module to load, and netscope registered by another agent"
else
	start_agent --observe --no-cc
	server 5213
	bulk "$LATE" 10 -p 5213 >/dev/null &
	p_late=$!
	sleep 1.5
	"$INDIGOCTL" netscope set "$LATE" cc="$late_cc" 2>"$LOG.warn"
	grep -q "is not registered (yet)" "$LOG.warn" || die "no warning of an unregistered CC: $(cat "$LOG.warn")"
	rm -f "$LOG.warn"
	sleep 1
	ccs0=$(flow_ccs 5213)
	if [ -z "$ccs0" ] || grep -qx "$late_cc" <<<"$ccs0"; then
		die "running flows' CCs '$ccs0' before $late_cc registered"
	fi
	if [ -n "$late_mod" ]; then
		modprobe "$late_mod"
	else
		stop_agent
		start_agent --observe
	fi
	# (retried every NS_CC_RETRY_MS, 500 ms)
	for _ in $(seq 30); do
		ccs=$(flow_ccs 5213)
		grep -qx "$late_cc" <<<"$ccs" && break
		sleep 0.1
	done
	wait $p_late
	grep -qx "$late_cc" <<<"$ccs" ||
		die "running flows' CCs '$ccs' 3 s after $late_cc registered"
	"$INDIGOCTL" netscope clear "$LATE"
	[ -z "$late_mod" ] || modprobe -r "$late_mod" || true
	pass "a running flow kept '$ccs0' while the policy's $late_cc was not registered, then took it"
	stop_agent
fi
start_agent --observe

# --- 3, 4: pacing and CC by policy. iperf3's control connection stays
# small, so its data flow is the cgroup's one bulk flow: all of the rate.
server 5201
"$INDIGOCTL" netscope set "$BULK" rate_mbit=40 cc=reno
turns0=$(ns_json_get "$BULK" .turns)
segs0=$(ns_json_get "$BULK" .segs_out)
bulk_sampled "$BULK" 5
[ "$ccs" = reno ] || die "ss shows '$ccs', policy chose reno"
pass "ss -ti shows the policy's CC: $ccs"
# no sens= given: the netscope CC would take 1, and the policy says unset
sens=$(ns_json_get "$BULK" .policy.sensitivity)
[ "$sens" = null ] || die "policy without sens= shows sensitivity $sens"
jq -e -n "$bps > 40e6 * 0.85 and $bps < 40e6 * 1.15" >/dev/null ||
	die "paced flow at $bps bit/s, policy 40 Mbit/s"
pass "pacing: $(jq -n "$bps/1e6*10|floor/10") Mbit/s for a 40 Mbit/s policy"
# 5 MB/s over a least RTT of microseconds plus 250 us: the floor of 4; a
# clamp stops growth but leaves the initial window (10) as it is
((cwnd <= 10)) || die "paced flow's window $cwnd, clamp 4 (initial window 10)"
pass "paced flow's window held to $cwnd segments"
# paced and clamped, it drains after every few segments, with data still
# waiting in its socket: that is no turn
turns_paced=$(($(ns_json_get "$BULK" .turns) - turns0))
segs_paced=$(($(ns_json_get "$BULK" .segs_out) - segs0))
((turns_paced * 20 < segs_paced)) || die "paced bulk: $turns_paced turns in $segs_paced segments"
pass "paced bulk: $turns_paced turns in $segs_paced segments"
# three bulk flows hold the rate together: each cuts its share anew as the
# others become bulk (not 40 + 20 + 13 Mbit/s, as they became bulk in turn)
server 5201
bps=$(ns_in "$BULK" "$NS_A" iperf3 -c "$NS_IP_B" -t 5 -O 1 -P 3 -J |
	jq '.end.sum_received.bits_per_second')
jq -e -n "$bps > 40e6 * 0.85 and $bps < 40e6 * 1.15" >/dev/null ||
	die "three paced flows at $bps bit/s together, policy 40 Mbit/s"
pass "pacing: $(jq -n "$bps/1e6*10|floor/10") Mbit/s for three flows under a 40 Mbit/s policy"

# a policy set after a clear reaches a running flow: its generation is
# one the flow has not applied (a clear leaves a neutral policy behind)
"$INDIGOCTL" netscope clear "$BULK"
"$INDIGOCTL" netscope set "$BULK" rate_mbit=20
server 5201
bulk "$BULK" 4 >/dev/null &
sleep 1.5
pace0=$(flow_max_pacing)
"$INDIGOCTL" netscope clear "$BULK"
"$INDIGOCTL" netscope set "$BULK" rate_mbit=60
sleep 1
pace1=$(flow_max_pacing)
wait $!
[ "$pace0 $pace1" = "20000000 60000000" ] ||
	die "flow's pacing $pace0 then $pace1 bit/s, policies 20 then 60 Mbit/s across a clear"
pass "a policy set after a clear reaches the running flow: $pace0 then $pace1 bit/s"
# no rate in the policy: the application's own limit (SO_MAX_PACING_RATE)
# is not Netscope's to lift
"$INDIGOCTL" netscope set "$BULK" rate_mbit=0 cc=cubic
server 5201
bulk "$BULK" 3 --fq-rate 30M >"$LOG.bps" &
sleep 1.5
pace=$(flow_max_pacing)
wait $!
bps=$(cat "$LOG.bps")
rm -f "$LOG.bps"
[ "$pace" = 30000000 ] || die "iperf3 --fq-rate 30M flow's pacing limit $pace under a policy without a rate"
jq -e -n "$bps < 30e6 * 1.1" >/dev/null || die "iperf3 --fq-rate 30M carried $bps bit/s"
pass "a policy without a rate keeps the application's pacing: $(jq -n "$bps/1e6|floor") Mbit/s at --fq-rate 30M"
# a policy's rate above the application's own limit does not raise it,
# one below it holds, and a clear puts the application's own back
"$INDIGOCTL" netscope set "$BULK" rate_mbit=60 cc=cubic
server 5201
bulk "$BULK" 5 --fq-rate 30M >/dev/null &
sleep 1.5
pace0=$(flow_max_pacing)
"$INDIGOCTL" netscope set "$BULK" rate_mbit=20
sleep 1
pace1=$(flow_max_pacing)
"$INDIGOCTL" netscope clear "$BULK"
sleep 1
pace2=$(flow_max_pacing)
wait $!
[ "$pace0 $pace1 $pace2" = "30000000 20000000 30000000" ] ||
	die "iperf3 --fq-rate 30M flow's pacing $pace0, $pace1, $pace2 bit/s under policies of 60 and 20 Mbit/s and a clear"
pass "the application's own pacing limit stays its ceiling and comes back: $pace0, $pace1, $pace2 bit/s"
"$INDIGOCTL" netscope set "$BULK" rate_mbit=0 cc=cubic

# a passive flow established without an RTT sample (a SYN cookie, no
# timestamps) gets its clamp from its first sample, not ~4 segments from an
# unknown (~0) least RTT. Its ACKs wait behind a standing queue of ~24 ms
# (30 KB at 10 Mbit/s, kept full by UDP): at 40 Mbit/s its clamp is some
# 80 segments.
SRV=$(ns_cgroup srv)
"$INDIGOCTL" netscope set "$SRV" rate_mbit=40 cc=reno
ip netns exec "$NS_A" sysctl -qw net.ipv4.tcp_syncookies=2 net.ipv4.tcp_timestamps=0
tc -n "$NS_B" qdisc add dev "vb-$NS_TAG" root tbf rate 10mbit burst 16kb limit 30000
server 5209 "$NS_A"
server 5207 "$NS_A" "$SRV"
ip netns exec "$NS_B" iperf3 -c "$NS_IP_A" -p 5209 -u -b 12M -t 3 >/dev/null &
p_udp=$!
sleep 0.5
ip netns exec "$NS_B" iperf3 -c "$NS_IP_A" -p 5207 -R -t 2 >/dev/null &
sleep 1
cwnd=$(flow_cwnd "$NS_A" "sport = :5207")
wait $! $p_udp
tc -n "$NS_B" qdisc del dev "vb-$NS_TAG" root
ip netns exec "$NS_A" sysctl -qw net.ipv4.tcp_syncookies=1 net.ipv4.tcp_timestamps=1
((cwnd > 20)) || die "flow established without an RTT sample: window $cwnd at 24 ms, clamp ~80"
pass "a flow established without an RTT sample took its clamp from the first: window $cwnd"

# --- 5: the netscope CC carries a transfer
grep -q "cc netscope" "$LOG" || die "netscope CC not registered: $(cat "$LOG")"
grep -qw netscope /proc/sys/net/ipv4/tcp_available_congestion_control ||
	die "netscope not in tcp_available_congestion_control"
# sens=0 is a sensitivity (the CC's least queue), not unset
"$INDIGOCTL" netscope set "$BULK" sens=0
sens=$(ns_json_get "$BULK" .policy.sensitivity)
[ "$sens" = 0 ] || die "policy with sens=0 shows sensitivity $sens"
# sensitivity is bounded: by indigoctl, and by the CC for a c written
# into the map otherwise (2000 + c would wrap, and a cut take the window
# below zero)
! "$INDIGOCTL" netscope set "$BULK" sens=5000 2>/dev/null || die "indigoctl took sens=5000"
policy_raw "$BULK" netscope 0 $((0xfffff894)) 3
server 5201
bulk "$BULK" 3 >/dev/null &
# either flow: a wrapped window stays on the control connection, which
# sends too little for the kernel to bring it back
cwnd_max=0
for _ in $(seq 10); do
	sleep 0.2
	cwnd=$(ip netns exec "$NS_A" ss -tin state established "dport = :5201" |
		grep -o 'cwnd:[0-9]*' | cut -d: -f2 | sort -n | tail -1)
	((${cwnd:-0} > cwnd_max)) && cwnd_max=$cwnd
done
wait $!
# (none seen at all is no bound shown)
((cwnd_max > 0 && cwnd_max < 100000)) ||
	die "netscope CC's window $cwnd_max at c = 2^32 - 1900 thousandths"
pass "sens=5000 refused; the CC bounds c from the map (window up to $cwnd_max)"
# unpaced, with a clamp by hand: a CC that sets the window itself must keep
# it under the clamp, as the kernel's own do. At c = 100 the CC allows 5 ms
# of queue, some 40 segments at 100 Mbit/s, so the clamp is what holds it.
"$INDIGOCTL" netscope set "$BULK" rate_mbit=0 cc=netscope clamp=6 sens=100
server 5201
bulk_sampled "$BULK" 4
[ "$ccs" = netscope ] || die "ss shows '$ccs', policy chose netscope"
jq -e -n "$bps > 50e6" >/dev/null || die "netscope carried only $bps bit/s over 100 Mbit/s"
pass "netscope CC registered, carried $(jq -n "$bps/1e6|floor") Mbit/s"
((cwnd <= 6)) || die "netscope CC's window $cwnd, clamp 6"
pass "netscope CC's window held to the clamp: $cwnd segments"
# application-limited (iperf3 at 2 Mbit/s in 1 KB writes, no queue), at
# c = 1000 (50 ms of queue allowed: no cut): the window grows only while
# it is what limits the flow; else slow start, its threshold infinite,
# adds every ACK to it
"$INDIGOCTL" netscope set "$BULK" clamp=0 sens=1000
server 5201
bulk "$BULK" 4 -b 2M -l 1K >"$LOG.bps" &
sleep 3
cwnd=$(flow_cwnd)
wait $!
rm -f "$LOG.bps"
((cwnd < 40)) || die "netscope CC grew an application-limited window to $cwnd"
pass "netscope CC keeps an application-limited window: $cwnd segments"
# a flow whose CC becomes netscope mid-transfer (its policy changed) takes
# the connection's least RTT for the path's, not its first sample, taken
# across the queue CUBIC built (milliseconds): that queue drains
"$INDIGOCTL" netscope set "$BULK" cc=cubic sens=0
server 5201
bulk "$BULK" 6 >/dev/null &
sleep 2.5
rtt_cubic=$(flow_stat rtt)
"$INDIGOCTL" netscope set "$BULK" cc=netscope
sleep 2
rtt_ns=$(flow_stat rtt)
ccs=$(flow_ccs)
wait $!
# (iperf3's control connection, which takes few RTT samples, may keep cubic)
grep -qx netscope <<<"$ccs" || die "the running flows' CCs: '$ccs', policy netscope"
jq -e -n "$rtt_cubic > 4 and $rtt_ns < $rtt_cubic / 4" >/dev/null ||
	die "RTT under CUBIC $rtt_cubic ms, then under netscope $rtt_ns ms"
pass "a flow switched to netscope mid-transfer drains CUBIC's queue: RTT $rtt_cubic ms, then $rtt_ns ms"

# --- 6: restart keeps the pinned state; stop unregisters the CC
flows=$(ns_json_get "$BULK" .flows)
# across the restart: flows of GONE end while no agent is attached, which
# sees no close; those of KEPT run on
GONE=$(ns_cgroup gone)
KEPT=$(ns_cgroup kept)
server 5211
server 5212
bulk "$GONE" 4 -p 5211 >/dev/null &
p_gone=$!
bulk "$KEPT" 10 -p 5212 >/dev/null &
p_kept=$!
live_bulk() { ns_json_get "$1" '"\(.flows_live) \(.flows_bulk)"'; }
# (a loaded machine takes a while to start iperf3 and send its first MiB)
for _ in $(seq 30); do
	[ "$(live_bulk "$GONE")" = "2 1" ] && [ "$(live_bulk "$KEPT")" = "2 1" ] && break
	sleep 0.1
done
[ "$(live_bulk "$GONE")" = "2 1" ] || die "gone, before the restart: live, bulk $(live_bulk "$GONE")"
stop_agent
sleep 0.5
! grep -qw netscope /proc/sys/net/ipv4/tcp_available_congestion_control ||
	die "netscope still registered after the agent stopped"
pass "netscope CC unregistered on shutdown"
wait $p_gone
sleep 0.3
kill -0 $p_kept 2>/dev/null || die "the kept flows ended before the restart"
# meanwhile another build left ns_ctrl in a layout of the same size (where
# this run owns the pins): the restart replaces it, keeping the rest
if [ "$NS_PINS_FOUND" = 0 ]; then
	"$B/pin-other-layout" "$NS_PINS/ns_ctrl" || die "pin-other-layout failed"
	bpftool btf dump map pinned "$NS_PINS/ns_ctrl" value | grep -q "'w0'" ||
		die "ns_ctrl not replaced by pin-other-layout"
fi
start_agent --observe
if [ "$NS_PINS_FOUND" = 0 ]; then
	bpftool btf dump map pinned "$NS_PINS/ns_ctrl" value | grep -q "'sens_milli'" ||
		die "ns_ctrl of another layout kept on restart: $(bpftool btf dump map pinned "$NS_PINS/ns_ctrl" value | head -n 3)"
	pass "a pinned ns_ctrl of another layout, same size, replaced on restart"
fi
[ "$(ns_json_get "$BULK" .flows)" = "$flows" ] || die "pinned state lost on restart"
[ "$(ns_json_get "$BULK" .policy.cc)" = netscope ] || die "pinned policy lost on restart"
[ "$(live_bulk "$GONE")" = "0 0" ] ||
	die "flows closed while detached still counted: live, bulk $(live_bulk "$GONE")"
# iperf3's data connection, bulk, counted in again at its next ACK; its
# control connection, idle until the end, when it next sends
sleep 0.2
kept=$(live_bulk "$KEPT")
[ "$kept" = "1 1" ] || [ "$kept" = "2 1" ] ||
	die "flows open across the restart: live, bulk $kept, want 1-2 1"
wait $p_kept
sleep 0.3
[ "$(live_bulk "$KEPT")" = "0 0" ] ||
	die "flows open across the restart, then closed: live, bulk $(live_bulk "$KEPT")"
pass "restart keeps $flows flows and the policy, and counts live flows again (those closed while detached gone)"
# killed: where the kernel keeps the CC registered (no struct_ops links),
# the next agent takes its place rather than running without one
kill -9 "$AGENT_PID"
wait "$AGENT_PID" 2>/dev/null || true
AGENT_PID=
sleep 0.5
orphan=0
grep -qw netscope /proc/sys/net/ipv4/tcp_available_congestion_control && orphan=1
start_agent
grep -q "cc netscope" "$LOG" || die "netscope CC not registered after kill -9: $(cat "$LOG")"
[ "$orphan" = 0 ] || grep -q "replaced" "$LOG" || die "no word of the replaced CC: $(cat "$LOG")"
stop_agent
sleep 0.5
! grep -qw netscope /proc/sys/net/ipv4/tcp_available_congestion_control ||
	die "netscope still registered after the restarted agent stopped"
pass "after kill -9 the CC comes back (left registered by the kernel: $orphan) and goes on stop"

# --- 7: the controller under congestion, each cgroup's sensitivity
# estimated online (no --sens): a redis load, whose turns slow with the
# queue, and a bulk transfer, whose bytes the link holds, not the delay.
# Both run CUBIC, which fills the deep buffer: congestion for certain.
# Once both estimates are trusted the bulk stops until both rates are back
# at capacity; started again, the insensitive cgroup must be cut first and
# lower, and the sensitive one not below its floor.
"$INDIGOCTL" netscope clear "$BULK"
"$INDIGOCTL" netscope clear "$RR" 2>/dev/null || true
start_agent --app "$BULK" --app "$RR" --capacity-mbit 100 --floor-mbit 30 \
	--interval-ms 100 --cc cubic
# both cgroups from one indigoctl call: "rate_bulk rate_rr trusted_bulk trusted_rr c_bulk c_rr
# c_bulk_hi c_rr_lo paced_bulk sensitive_bulk sensitive_rr", c with its 95 %
# interval, paced_bulk the pacing rate in the bulk's policy (0: the rate
# does not bind), sensitive_* whether the controller counts it sensitive
snap() {
	"$INDIGOCTL" netscope --json | jq -r --arg b "$BULK" --arg r "$RR" '
		(.[] | select(.cgroup == $b)) as $x | (.[] | select(.cgroup == $r)) as $y |
		[$x.rate_bps, $y.rate_bps, $x.sensitivity.trusted, $y.sensitivity.trusted,
		 $x.sensitivity.mean, $y.sensitivity.mean, $x.sensitivity.hi,
		 $y.sensitivity.lo, $x.policy.rate_bps, $x.sensitivity.sensitive,
		 $y.sensitivity.sensitive] | @tsv'
}
ns_in "$RR" "$NS_A" redis-benchmark -h "$NS_IP_B" -p 6379 -c 4 -l -t get -q >/dev/null 2>&1 &
server 5202
bulk "$BULK" 20 -p 5202 >/dev/null &
p_bulk=$!
est=
for _ in $(seq 150); do
	sleep 0.1
	read -r _ _ tb tr cb cr cb_hi cr_lo _ sb sr < <(snap) || continue
	[ "$tb" = true ] && [ "$tr" = true ] && est="$cb $cr $cb_hi $cr_lo $sb $sr" && break
done
echo 1 >"$BULK/cgroup.kill"
wait $p_bulk || true
[ -n "$est" ] || die "estimates not trusted within 15 s: bulk ${cb:-?} ($tb), redis ${cr:-?} ($tr)"
read -r cb cr cb_hi cr_lo sb sr <<<"$est"
# apart, and on either side of the controller's line (0.25, ns_agent.c):
# the bulk's whole interval under it, as the floor comes off only then
jq -e -n "$cb_hi < $cr_lo and $cb_hi < 0.25 and $cr >= 0.25" >/dev/null ||
	die "estimated sensitivities: bulk $cb (up to $cb_hi), redis $cr (from $cr_lo)"
# and the controller says which it counts sensitive, as it acts
[ "$sb $sr" = "false true" ] ||
	die "sensitive: bulk $sb (up to $cb_hi), redis $sr (from $cr_lo)"
pass "estimated online: bulk insensitive ($cb, up to $cb_hi), redis sensitive ($cr, from $cr_lo)"
back=0
for _ in $(seq 100); do
	sleep 0.1
	read -r rb rr _ < <(snap) || continue
	# both at capacity, where the loop caps them: from equal rates, any
	# congestion must leave the insensitive one the lower
	[ -n "$rr" ] && ((rb >= 100000000 && rr >= 100000000)) && back=1 && break
done
[ "$back" = 1 ] || die "rates not back at capacity with the bulk stopped: $rb, $rr"
server 5203
bulk "$BULK" 6 -p 5203 >"$LOG.bulk" &
p_bulk=$!
t_bulk= t_rr= tie_ok=0 min_bulk=$((1 << 60)) min_rr=$((1 << 60)) paced=0 above=0
i=0
while kill -0 $p_bulk 2>/dev/null; do
	sleep 0.05
	i=$((i + 1))
	read -r rb rr tb tr cb cr _ _ pb _ < <(snap) || continue
	((pb > 0)) && paced=1
	[ -z "$t_bulk" ] && ((rb < 95000000)) && t_bulk=$i && tie_ok=$((rb < rr))
	[ -z "$t_rr" ] && ((rr < 95000000)) && t_rr=$i
	((rb < min_bulk)) && min_bulk=$rb
	((rr < min_rr)) && min_rr=$rr
	# indigoctl reads one cgroup, then the other: when the controller
	# steps in between, one poll pairs an old rate with a new one
	if ((rb > rr)); then
		((++above < 2)) || die "insensitive rate $rb above sensitive $rr, two polls running (c $cb, trusted $tb; c $cr, trusted $tr)"
	else
		above=0
	fi
done
wait $p_bulk
bps_bulk=$(cat "$LOG.bulk")
rm -f "$LOG.bulk"
echo 1 >"$RR/cgroup.kill"
[ -n "$t_bulk" ] || die "no cut under congestion (delay $(ns_json_get "$BULK" .srtt_us) us)"
# both crossing within one poll: the insensitive must be the lower then
[ -z "$t_rr" ] || [ "$t_rr" -gt "$t_bulk" ] || { [ "$t_rr" = "$t_bulk" ] && [ "$tie_ok" = 1 ]; } ||
	die "sensitive cut at poll $t_rr, insensitive at $t_bulk"
((min_rr >= 30000000)) || die "sensitive cut below its floor: $min_rr"
((min_bulk < min_rr)) || die "insensitive not cut below sensitive"
[ "$paced" = 1 ] || die "the bulk, cut to $min_bulk bit/s, was never paced"
pass "controller: insensitive cut first (poll $t_bulk vs ${t_rr:-never}), least rate $(jq -n "$min_bulk/1e6|floor") vs $(jq -n "$min_rr/1e6|floor") Mbit/s (floor 30); bulk got $(jq -n "$bps_bulk/1e6|floor") Mbit/s"
[ "$(ns_json_get "$BULK" .policy.cc)" = cubic ] || die "controller did not set the CC"
pass "controller set cc $(ns_json_get "$BULK" .policy.cc) and the rate in the policy"
stop_agent

# --- 8: the same inside indigod ([netscope] in its config), without the
# module: it attaches, registers the CC, gives its program the host peers,
# runs the controller on an app, and detaches and unregisters on SIGTERM.
"$INDIGOCTL" netscope clear "$BULK" 2>/dev/null || true
st=$(mktemp -d)
printf '[agent]\nstate_dir = %s\nlog_path = %s/d.jsonl\nmetrics_path =\nstatus_path =\n[netscope]\nenable = on\ncgroup = %s\napps = %s\ncapacity_mbit = 100\ninterval_ms = 100\nhost_peers = 198.18.2.0/30 fd00:1::/64\n' \
	"$st" "$st" "$NS_CG" "$BULK" >"$st/c.conf"
"$INDIGOD" -c "$st/c.conf" 2>"$st/log" &
AGENT_PID=$!
server 5204
for _ in $(seq 50); do
	grep -q 'netscope: programs attached' "$st/log" && break
	sleep 0.1
done
grep -q 'netscope: programs attached, congestion control "netscope" registered' "$st/log" ||
	die "indigod: $(cat "$st/log")"
# IPv4 as ::ffff:a.b.c.d, its length counted over 128 bits
peers=$(bpftool map dump name ns_host_peers -j |
	jq -r '[.[].formatted.key | "\(.prefixlen) \(.addr | map(tostring) | join("."))"] | sort | join(", ")')
[ "$peers" = "126 0.0.0.0.0.0.0.0.0.0.255.255.198.18.2.0, 64 253.0.0.1.0.0.0.0.0.0.0.0.0.0.0.0" ] ||
	die "indigod's host peers: $peers"
bulk "$BULK" 2 -p 5204 >/dev/null
[ "$(ns_json_get "$BULK" .policy.cc)" = netscope ] || die "indigod's controller set no policy"
[ "$(ns_json_get "$BULK" .rate_bps)" != null ] || die "indigod's controller published nothing"
stop_agent
! grep -qw netscope /proc/sys/net/ipv4/tcp_available_congestion_control ||
	die "indigod left netscope registered"
rm -rf "$st"
pass "indigod runs Netscope from [netscope] and stops it cleanly"

# --- 9: no policy outlives its controller. A killed one's (written here
# as it would have left it: 20 Mbit/s, not fixed, its own) paces a
# running flow until the next agent, measuring only, neutralizes it as it
# starts; a fixed policy stays.
"$INDIGOCTL" netscope set "$RR" rate_mbit=20
# (the controller's own: for ONE, whose flows ended in 2)
start_agent --app "$ONE" --interval-ms 100
for _ in $(seq 30); do
	owner=$(ns_json_get "$ONE" .policy.owner)
	[ "$owner" = null ] || break
	sleep 0.1
done
[ "$owner" != null ] && ((owner > 0)) ||
	die "the controller's policy names no owner: $owner"
policy_raw "$BULK" "" 2500000 0 0 "$owner"
server 5208
# (10 s: the kill, a restart of up to 5 s and the lifting all within it)
bulk "$BULK" 10 -p 5208 >/dev/null &
p_bulk=$!
sleep 1.5
pace0=$(flow_max_pacing 5208)
kill -9 "$AGENT_PID"
wait "$AGENT_PID" 2>/dev/null || true
AGENT_PID=
start_agent --observe
for _ in $(seq 30); do
	pace1=$(flow_max_pacing 5208)
	[ "$pace1" = 0 ] && break
	sleep 0.1
done
wait $p_bulk
[ "$pace0 $pace1" = "20000000 0" ] ||
	die "a killed controller's 20 Mbit/s: flow paced at $pace0, then after a restart at $pace1 bit/s"
for cg in "$BULK" "$ONE"; do
	pol=$(ns_json_get "$cg" '.policy | "\(.cc) \(.rate_bps) \(.sensitivity) \(.fixed) \(.owner)"')
	[ "$pol" = " 0 null false 0" ] ||
		die "a killed controller's policy for $cg after a restart: $pol"
done
pass "a restarted agent (--observe) neutralized a killed controller's policies; the flow lifted its pacing"
stop_agent
# another agent that starts and stops beside a running controller leaves
# its policies (the controller, at a 1 s interval, would put them back
# only later); a controller that stops leaves its policies neutral
start_agent --app "$BULK" --cc cubic --interval-ms 1000
for _ in $(seq 30); do
	[ "$(ns_json_get "$BULK" .policy.cc)" = cubic ] && break
	sleep 0.1
done
[ "$(ns_json_get "$BULK" .policy.cc)" = cubic ] || die "controller set no policy"
# its "netscope" CC is refused as the running one's name, and said so
ns_bg "$NETSCOPE" --cgroup "$NS_CG" --observe >"$LOG.2" 2>&1
other=${NS_PIDS[-1]}
for _ in $(seq 50); do
	grep -q attached "$LOG.2" && break
	sleep 0.1
done
pol_started=$(ns_json_get "$BULK" .policy.cc)
kill "$other"
wait "$other" || die "the second agent: $(cat "$LOG.2")"
pol_stopped=$(ns_json_get "$BULK" .policy.cc)
grep -q 'congestion control "netscope" not registered: File exists' "$LOG.2" ||
	die "the second agent's CC: $(cat "$LOG.2")"
grep -qw netscope /proc/sys/net/ipv4/tcp_available_congestion_control ||
	die "the running agent's CC went with the second agent"
rm -f "$LOG.2"
[ "$pol_started $pol_stopped" = "cubic cubic" ] ||
	die "a running controller's policy, as another agent started and stopped: '$pol_started', '$pol_stopped'"
pass "another agent starting and stopping leaves a running controller's policy and CC (its own refused: File exists)"
stop_agent
pol=$(ns_json_get "$BULK" '.policy | "\(.cc) \(.rate_bps) \(.sensitivity) \(.fixed)"')
[ "$pol" = " 0 null false" ] || die "the controller's policy after it stopped: $pol"
pol=$(ns_json_get "$RR" '.policy | "\(.rate_bps) \(.fixed)"')
[ "$pol" = "20000000 true" ] || die "fixed policy after the agents: $pol"
pass "a stopped controller leaves a neutral policy; a fixed one stays"

# --- 10: an application's cgroup removed and made again at its path (a
# restarted service) is a new cgroup, with a new id: the controller
# follows the path. (indigoctl lists a cgroup once it has had a flow.)
REC=$(ns_cgroup rec)
# policy_cc CGROUP: its policy's CC once the controller set cubic, 3 s at most
policy_cc() {
	for _ in $(seq 30); do
		[ "$(ns_json_get "$1" .policy.cc)" = cubic ] && break
		sleep 0.1
	done
	ns_json_get "$1" .policy.cc
}
# QUIET: an application that has had no flow (no ns_cg_stats entry)
QUIET=$(ns_cgroup quiet)
start_agent --app "$REC" --app "$QUIET" --cc cubic --interval-ms 100
server 5209
bulk "$REC" 1 -p 5209 >/dev/null
[ "$(policy_cc "$REC")" = cubic ] || die "the controller set no policy for $REC"
old=$(stat -c %i "$REC")
oldq=$(stat -c %i "$QUIET")
# (both there to begin with: their absence below is then the controller's
# doing, not a lookup that never finds)
for m in ns_policy ns_ctrl; do
	# shellcheck disable=SC2046
	bpftool map lookup pinned "$NS_PINS/$m" key hex $(le 8 "$oldq") >/dev/null ||
		die "the controller wrote no $m entry for $QUIET"
done
rmdir "$REC" "$QUIET"
mkdir "$REC" "$QUIET"
[ "$(stat -c %i "$REC")" != "$old" ] || die "$REC made again kept its id $old"
server 5210
bulk "$REC" 1 -p 5210 >/dev/null
[ "$(policy_cc "$REC")" = cubic ] || die "$REC made again: no policy for its new id"
# the gone one's entries go, not only where ns_cg_stats had one for it
for m in ns_policy ns_ctrl; do
	# shellcheck disable=SC2046
	! bpftool map lookup pinned "$NS_PINS/$m" key hex $(le 8 "$oldq") >/dev/null 2>&1 ||
		die "$m keeps an entry of $QUIET's gone cgroup $oldq"
done
stop_agent
pass "a cgroup removed and made again at the app's path is controlled under its new id; the gone one's entries went"

# --- 11: a policy set by hand ("indigoctl netscope set") for a cgroup that
# has had no flow, so no ns_cg_stats entry: once it is removed, a running
# controller drops it, where only cgroups with aggregates were swept
HAND=$(ns_cgroup hand)
start_agent --interval-ms 100
"$INDIGOCTL" netscope set "$HAND" rate_mbit=10
hid=$(stat -c %i "$HAND")
# shellcheck disable=SC2046
bpftool map lookup pinned "$NS_PINS/ns_policy" key hex $(le 8 "$hid") >/dev/null ||
	die "indigoctl netscope set wrote no policy for $HAND"
rmdir "$HAND"
# (the controller sweeps once a second)
for _ in $(seq 50); do
	# shellcheck disable=SC2046
	bpftool map lookup pinned "$NS_PINS/ns_policy" key hex $(le 8 "$hid") \
		>/dev/null 2>&1 || break
	sleep 0.1
done
# shellcheck disable=SC2046
! bpftool map lookup pinned "$NS_PINS/ns_policy" key hex $(le 8 "$hid") >/dev/null 2>&1 ||
	die "ns_policy keeps the hand-set entry of $HAND's gone cgroup $hid"
stop_agent
pass "a hand-set policy of a cgroup without flows goes with its cgroup"

# --- 12: an application's processes in cgroups below its own (a service's
# sub-cgroups, containers under a slice): their flows are counted and
# policed under the application's id, the nearest application's where two
# nest, and have no row of their own; followed when the application's
# cgroup is made again
APP=$(ns_cgroup app)
KID=$(ns_cgroup app/svc/kid)
INNER=$(ns_cgroup app/inner)
INKID=$(ns_cgroup app/inner/kid)
"$INDIGOCTL" netscope set "$APP" rate_mbit=40 cc=reno
start_agent --app "$APP" --app "$INNER" --interval-ms 100
server 5201
bulk_sampled "$KID" 5
[ "$ccs" = reno ] || die "a flow two cgroups below the application: ss shows '$ccs', its policy chose reno"
jq -e -n "$bps > 40e6 * 0.85 and $bps < 40e6 * 1.15" >/dev/null ||
	die "a flow two cgroups below the application at $bps bit/s, its policy 40 Mbit/s"
[ "$(ns_json_get "$APP" .flows)" = 2 ] ||
	die "the application counts $(ns_json_get "$APP" .flows) flows of iperf3's 2 in its child cgroup"
sent=$(ns_json_get "$APP" .delivered_bytes)
jq -e -n "$sent > $bps * 5 / 8 * 0.8" >/dev/null ||
	die "the application's delivered bytes $sent for $bps bit/s over 5 s"
[ "$(ns_json_get "$KID" .flows)" = null ] ||
	die "the child cgroup has a row of its own: $(ns_json_get "$KID" .flows) flows"
server 5211
bulk "$INKID" 1 -p 5211 >/dev/null
[ "$(ns_json_get "$INNER" .flows)" = 2 ] ||
	die "the inner application counts $(ns_json_get "$INNER" .flows) flows of its child's 2"
[ "$(ns_json_get "$APP" .flows) $(ns_json_get "$INKID" .flows)" = "2 null" ] ||
	die "a flow below two applications counted by the outer one, or its own cgroup"
pass "flows in child cgroups counted and paced as their application's: $(ns_json_get "$APP" .flows) flows, $(jq -n "$bps/1e6*10|floor/10") Mbit/s for its 40 Mbit/s policy; the nearest application's where two nest"
rmdir "$KID" "$APP/svc" "$INKID" "$INNER" "$APP"
mkdir -p "$KID" "$INKID"
# (followed within an interval)
sleep 0.5
server 5212
bulk "$KID" 1 -p 5212 >/dev/null
[ "$(ns_json_get "$APP" .flows)" = 2 ] ||
	die "the application's cgroup made again: $(ns_json_get "$APP" .flows) flows of its child's 2"
stop_agent
pass "the application's cgroup made again: its child's flows counted under its new id"

# --- 13: flows established before the agent started (none attached then)
# are taken in: counted, and their cgroup's policy applied. iperf3's idle
# control connection is taken at its next ACK, its data flow at once.
EARLY=$(ns_cgroup early)
"$INDIGOCTL" netscope set "$EARLY" rate_mbit=30 cc=reno
server 5214
bulk "$EARLY" 6 -p 5214 >/dev/null &
p_early=$!
sleep 1
[ "$(flow_cc_top 5214)" != reno ] || die "the early flow had reno before any agent"
start_agent --observe
sleep 1.5
early_cc=$(flow_cc_top 5214)
early_max=$(flow_max_pacing 5214)
early_live=$(ns_json_get "$EARLY" .flows_live)
wait $p_early
sleep 0.3
early_end=$(ns_json_get "$EARLY" '"\(.flows) \(.flows_live)"')
grep -q 'took in 2 flow(s) established before it started' "$LOG" ||
	die "the agent did not say it took in iperf3's 2 flows: $(cat "$LOG")"
[ "$early_cc" = reno ] || die "a flow established before the agent: ss shows '$early_cc', its policy chose reno"
((early_max == 30000000)) ||
	die "a flow established before the agent: pacing limit $early_max bit/s, its policy 30 Mbit/s"
((early_live >= 1)) || die "flows established before the agent: $early_live live"
[ "$early_end" = "2 0" ] ||
	die "flows established before the agent, once closed: '$early_end' (flows, live), iperf3 made 2"
stop_agent
"$INDIGOCTL" netscope clear "$EARLY"
pass "flows established before the agent started taken in: $early_cc at $((early_max / 1000000)) Mbit/s, $early_end (flows, live) once closed"
# --- 14: a flow open across a restart whose new configuration makes an
# application of its cgroup's parent: counted and policed under the
# application's id from its first ACK after the restart
LATER=$(ns_cgroup later)
LATER_KID=$(ns_cgroup later/kid)
"$INDIGOCTL" netscope set "$LATER" rate_mbit=30 cc=reno
start_agent --observe
server 5215
bulk "$LATER_KID" 6 -p 5215 >/dev/null &
p_later=$!
sleep 1
[ "$(ns_json_get "$LATER_KID" .flows_live)" = 2 ] ||
	die "before the restart: its own cgroup has $(ns_json_get "$LATER_KID" .flows_live) live flows of iperf3's 2"
[ "$(flow_cc_top 5215)" != reno ] || die "the flow had reno before its application was"
stop_agent
start_agent --observe --app "$LATER"
sleep 1.5
later_cc=$(flow_cc_top 5215)
later_max=$(flow_max_pacing 5215)
later_live=$(ns_json_get "$LATER" .flows_live)
kid_live=$(ns_json_get "$LATER_KID" .flows_live)
wait $p_later
[ "$later_cc" = reno ] || die "a flow open across the restart: ss shows '$later_cc', its application's policy chose reno"
((later_max == 30000000)) ||
	die "a flow open across the restart: pacing limit $later_max bit/s, its application's policy 30 Mbit/s"
((later_live >= 1)) && [ "$kid_live" = 0 ] ||
	die "a flow open across the restart: $later_live live under its application, $kid_live under its own cgroup"
stop_agent
"$INDIGOCTL" netscope clear "$LATER"
pass "a flow open across a restart that made its parent an application: counted under it ($later_live live), $later_cc at $((later_max / 1000000)) Mbit/s"
say "netscope-net: all passed"
