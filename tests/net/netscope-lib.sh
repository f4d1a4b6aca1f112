# SPDX-License-Identifier: GPL-2.0
# Shared by Netscope's namespace tests and benchmark (sourced): two network
# namespaces joined by a veth pair, a tbf bottleneck on the sender's side,
# addresses from 198.18.0.0/15, test cgroups, and cleanup of all of it.
# Callers set NS_TAG (short, unique) and call ns_cleanup from their trap.

NS_A=nsa-$NS_TAG			# sender: the applications under test
NS_B=nsb-$NS_TAG			# receiver: servers
NS_IP_A=198.18.0.1
NS_IP_B=198.18.0.2
NS_CG=/sys/fs/cgroup/unified/indigo-$NS_TAG
NS_PIDS=()
# Netscope's maps are pinned here and outlive the agent by design; a run
# that created them takes them away again, one that found them leaves them.
NS_PINS=/sys/fs/bpf/indigo
NS_PINS_FOUND=0
[ -e "$NS_PINS" ] && NS_PINS_FOUND=1
# and the lock file its ns_policy writers take (ns_maps.h), the same way
NS_LOCK_DIR=/run/indigo
NS_LOCK_FOUND=0
[ -e "$NS_LOCK_DIR" ] && NS_LOCK_FOUND=1

say() { printf '%s\n' "$*"; }
die() {
	say "FAIL: $*" >&2
	[ -z "${INDIGOCTL:-}" ] || "$INDIGOCTL" netscope >&2 || true
	exit 1
}

# ns_link DEV_A DEV_B IP_A IP_B [RATE BUFFER]: a veth pair from A to B (/30
# addresses), its bottleneck A's egress, RATE (e.g. 100mbit) with a
# BUFFER-byte queue; without RATE, none
ns_link() {
	ip link add "$1" netns "$NS_A" type veth peer name "$2" netns "$NS_B"
	ip -n "$NS_A" addr add "$3/30" dev "$1"
	ip -n "$NS_B" addr add "$4/30" dev "$2"
	ip -n "$NS_A" link set "$1" up
	ip -n "$NS_B" link set "$2" up
	[ -z "${5:-}" ] ||
		tc -n "$NS_A" qdisc add dev "$1" root tbf rate "$5" burst 16kb limit "$6"
}

# ns_up RATE BUFFER: the namespaces and their link (ns_link), and the
# test cgroups' parent
ns_up() {
	ip netns add "$NS_A"
	ip netns add "$NS_B"
	ip -n "$NS_A" link set lo up
	ip -n "$NS_B" link set lo up
	ns_link "va-$NS_TAG" "vb-$NS_TAG" "$NS_IP_A" "$NS_IP_B" "$1" "$2"
	mkdir -p "$NS_CG"
}

# ns_cgroup NAME: makes $NS_CG/NAME, prints its path
ns_cgroup() {
	mkdir -p "$NS_CG/$1"
	printf '%s\n' "$NS_CG/$1"
}

# ns_in CGROUP NETNS CMD...: runs CMD in the cgroup and namespace
ns_in() {
	local cg=$1 netns=$2
	shift 2
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg" ip netns exec "$netns" "$@"
}

# ns_bg CMD...: starts CMD in the background, remembered for cleanup
ns_bg() {
	"$@" &
	NS_PIDS+=($!)
}

ns_cleanup() {
	local p d
	for p in "${NS_PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${NS_PIDS[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	NS_PIDS=()
	ip netns del "$NS_A" 2>/dev/null || true
	ip netns del "$NS_B" 2>/dev/null || true
	if [ -d "$NS_CG" ]; then
		# what still runs in the test cgroups is the tests' own (loads
		# they started): it goes before the dirs go
		for d in $(find "$NS_CG" -depth -type d); do
			echo 1 >"$d/cgroup.kill" 2>/dev/null || true
			for _ in $(seq 20); do
				[ -n "$(cat "$d/cgroup.procs")" ] || break
				sleep 0.05
			done
			rmdir "$d" 2>/dev/null || true
		done
	fi
	[ "$NS_PINS_FOUND" = 1 ] || rm -rf "$NS_PINS"
	[ "$NS_LOCK_FOUND" = 1 ] || rm -rf "$NS_LOCK_DIR"
}

# ns_json_get CGROUP FIELD: one field (jq path, e.g. .policy.cc) of
# indigoctl netscope --json for CGROUP; "null" when absent
ns_json_get() {
	"$INDIGOCTL" netscope --json |
		jq -r --arg cg "$1" "[.[] | select(.cgroup == \$cg)][0] | $2"
}
