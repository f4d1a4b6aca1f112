#!/usr/bin/env bash
# indigoctl netscope set/show against maps of its own: a private bpffs
# mounted over /sys/fs/bpf in a mount namespace of its own, so the maps of
# a Netscope that runs on this host are never touched. Bad values are
# refused before any map is, a directory off cgroup v2 is no cgroup, a
# rate past 34 Gbit/s is kept whole, --json parses, set waits for the
# writers' lock (bounded), and entries deleted under the walk show no row
# twice. Maps of another version are refused: by their sizes, and by
# their BTF where they have it (a same-size one of another layout), while
# this build's, pinned with BTF as its agent pins them, are read. Needs
# root.
#
# Usage: indigoctl-netscope.sh PATH/TO/indigoctl
set -euo pipefail

ctl=$(realpath "${1:?usage: indigoctl-netscope.sh INDIGOCTL}")
bdir=$(dirname "$ctl")	# pin-other-layout and bpf/netscope_sockops.bpf.o
if [ -z "${NS_CTL_INNER:-}" ]; then
	exec env NS_CTL_INNER=1 unshare -m --propagation private "$0" "$ctl"
fi
mount -t bpf bpf /sys/fs/bpf
mkdir /sys/fs/bpf/indigo
# and a /run of its own, for the writers' lock (/run/indigo/ns_policy.lock)
mount -t tmpfs tmpfs /run
mkdir /run/indigo
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
dir=$(mktemp -d)
cg="$cgroot/indigoctl-ns-test.$$"
mkdir "$cg"
trap 'rmdir "$cg.2" "$cg.3" 2>/dev/null || true; rmdir "$cg"; rm -rf "$dir"' EXIT
failed=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; failed=1; }

# the maps as the sock_ops program pins them (sizes from the uapi header)
cat >"$dir/sz.c" <<'C'
#include <stdio.h>
#include <linux/indigo_netscope.h>
int main(void)
{
	printf("%zu %zu %zu %zu\n", sizeof(struct ns_cg_stats),
	       sizeof(struct ns_policy), sizeof(struct ns_ctrl),
	       sizeof(struct ns_link_view));
	return 0;
}
C
here=$(cd "$(dirname "$0")/../.." && pwd)
cc -I"$here/include/uapi" "$dir/sz.c" -o "$dir/sz"
read -r st pol ctl_sz link < <("$dir/sz")
pin=/sys/fs/bpf/indigo
bpftool map create $pin/ns_cg_stats type hash key 8 value "$st" entries 1024 name ns_cg_stats
bpftool map create $pin/ns_policy type hash key 8 value "$pol" entries 1024 name ns_policy
bpftool map create $pin/ns_ctrl type hash key 8 value "$ctl_sz" entries 1024 name ns_ctrl
bpftool map create $pin/ns_link type array key 4 value "$link" entries 1 name ns_link
bpftool map create $pin/ns_epoch type array key 4 value 4 entries 1 name ns_epoch
id=$(stat -c %i "$cg")
key=$(python3 -c "import struct,sys; print(' '.join(str(b) for b in struct.pack('<Q', $id)))")
# shellcheck disable=SC2086
bpftool map update pinned $pin/ns_cg_stats key $key value $(python3 -c "print(' '.join(['0'] * $st))")
policy() { bpftool -j map lookup pinned $pin/ns_policy key $key 2>/dev/null | grep value || true; }

refused() {	# NAME SETTING...: exit 2, no policy written
	local name=$1 rc=0
	shift
	"$ctl" netscope set "$cg" "$@" 2>/dev/null || rc=$?
	if [ $rc = 2 ] && [ -z "$(policy)" ]; then pass "$name"
	else fail "$name" "exit $rc, policy $(policy)"; fi
}
refused clamp-past-int clamp=3000000000
refused clamp-fraction clamp=1.5
refused rate-rounds-to-zero rate_mbit=0.000001
refused rate-past-400g rate_mbit=500000
refused sens-past-max sens=5000

rc=0
"$ctl" netscope set "$dir" rate_mbit=10 2>"$dir/err" || rc=$?
if [ $rc != 0 ] && grep -q "not a cgroup v2" "$dir/err"; then pass off-cgroup2-refused
else fail off-cgroup2-refused "exit $rc: $(cat "$dir/err")"; fi

rc=0
"$ctl" netscope set "$cg" cc=nosuchcc 2>"$dir/err" || rc=$?
if [ $rc = 0 ] && grep -q "not registered" "$dir/err"; then pass unknown-cc-warned
else fail unknown-cc-warned "exit $rc: $(cat "$dir/err")"; fi

"$ctl" netscope set "$cg" rate_mbit=40000 clamp=6 sens=0.5 cc=cubic
"$ctl" --json netscope >"$dir/out.json"
if python3 - "$dir/out.json" "$cg" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
r = [r for r in rows if r["cgroup"] == sys.argv[2]][0]["policy"]
assert r["rate_bps"] == 40000 * 10**6, r
assert r["cwnd_clamp"] == 6 and r["cc"] == "cubic" and r["fixed"], r
assert abs(r["sensitivity"] - 0.5) < 1e-9, r
PY
then pass rate-40-gbit-json
else fail rate-40-gbit-json "$(cat "$dir/out.json")"; fi
# the lookup by which the refusals (above, and the other layout's below)
# find no policy written does find one that was
if [ -n "$(policy)" ]; then pass policy-lookup-finds-one
else fail policy-lookup-finds-one "no entry for $cg ($key) in $pin/ns_policy"; fi

# The writers' lock: ns_policy has no compare-and-swap, and a controller's
# read-modify-write around indigoctl's would overwrite its fixed policy.
# Held by another writer, set waits, and writes once it is let go; held
# past the wait (a stuck writer), it gives up and writes nothing.
rate_of() {
	"$ctl" --json netscope | python3 -c '
import json, sys
print([r for r in json.load(sys.stdin) if r["cgroup"] == sys.argv[1]][0]["policy"]["rate_bps"])' "$cg"
}
exec 9>/run/indigo/ns_policy.lock
flock 9
"$ctl" netscope set "$cg" rate_mbit=30 9>&- &
setter=$!
sleep 0.5
held_off=no
if kill -0 $setter 2>/dev/null && [ "$(rate_of)" = 40000000000 ]; then held_off=yes; fi
flock -u 9
rc=0
wait $setter || rc=$?
if [ $held_off = yes ] && [ $rc = 0 ] && [ "$(rate_of)" = 30000000 ]; then pass set-waits-for-lock
else fail set-waits-for-lock "held off: $held_off, exit $rc, rate $(rate_of)"; fi
flock 9
rc=0 t0=$(date +%s%N)
"$ctl" netscope set "$cg" rate_mbit=20 9>&- 2>"$dir/err" || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
exec 9>&-
if [ $rc = 1 ] && [ $ms -ge 2000 ] && [ $ms -lt 10000 ] &&
   grep -q "ns_policy.lock held by another writer" "$dir/err" &&
   [ "$(rate_of)" = 30000000 ]; then pass set-gives-up-on-stuck-lock
else fail set-gives-up-on-stuck-lock "exit $rc after $ms ms, rate $(rate_of): $(cat "$dir/err")"; fi

# output that cannot be written (a full disk): exit 1 and a sentence, as
# the other commands, not exit 0 with the rows lost
for j in "" --json; do
	rc=0
	# shellcheck disable=SC2086
	"$ctl" $j netscope >/dev/full 2>"$dir/err" || rc=$?
	if [ $rc = 1 ] && grep -q 'writing the output: No space left' "$dir/err"; then
		pass "unwritable-output$j"
	else fail "unwritable-output$j" "exit $rc: $(cat "$dir/err")"; fi
done

# Two cgroups' first policies: the program checks its copy of an entry by
# gen, and an update hands the element it replaced to the CPU's next
# update, any cgroup's; were both at gen 1, a flow could take the other
# cgroup's policy for its own and hold it as applied.
gen_of() {	# CGROUP: its policy's gen
	local k
	k=$(python3 -c "import struct; print(' '.join(str(b) for b in struct.pack('<Q', $(stat -c %i "$1"))))")
	# shellcheck disable=SC2086
	bpftool -j map lookup pinned $pin/ns_policy key $k |
		python3 -c "import json, sys; v = bytes(int(b, 16) for b in json.load(sys.stdin)['value']); print(int.from_bytes(v[36:40], 'little'))"
}
mkdir "$cg.2" "$cg.3"
"$ctl" netscope set "$cg.2" rate_mbit=20
"$ctl" netscope set "$cg.3" rate_mbit=20
g2=$(gen_of "$cg.2") g3=$(gen_of "$cg.3")
rmdir "$cg.2" "$cg.3"
[ "$g2" != "$g3" ] && pass gens-apart || fail gens-apart "both first at gen $g2"

# Rows while entries come and go under the walk, as the agent adds and
# drops cgroups: a deleted key sends the kernel's walk back to the first
# key, and no cgroup may show twice.
python3 - "$st" "$pin/ns_cg_stats" "$dir" <<'PY'
import struct, sys
st, m, d = int(sys.argv[1]), sys.argv[2], sys.argv[3]
val = " ".join(["0"] * st)
key = lambda i: " ".join(str(b) for b in struct.pack("<Q", 1 << 40 | i))
with open(d + "/fill", "w") as f:
    for i in range(400):
        print(f"map update pinned {m} key {key(i)} value {val}", file=f)
with open(d + "/churn", "w") as f:
    for _ in range(1500):
        for i in range(0, 400, 7):
            print(f"map delete pinned {m} key {key(i)}", file=f)
        for i in range(0, 400, 7):
            print(f"map update pinned {m} key {key(i)} value {val}", file=f)
PY
bpftool batch file "$dir/fill" >/dev/null
bpftool batch file "$dir/churn" >/dev/null &
churn=$!
walks=0 dups=0
while kill -0 $churn 2>/dev/null || [ $walks -lt 5 ]; do
	n=$("$ctl" --json netscope | grep -o '"cgroup_id":[0-9]*' | sort | uniq -d | wc -l)
	[ "$n" = 0 ] || dups=$((dups + 1))
	walks=$((walks + 1))
done
wait $churn
[ $dups = 0 ] && pass rows-once-under-churn ||
	fail rows-once-under-churn "duplicate rows in $dups of $walks walks"

# Maps pinned by another version (an agent not yet restarted after an
# upgrade): ns_policy as before its rate took 64 bits, 8 bytes shorter. A
# policy in this version's layout would be read by that agent's program
# with its gen in the place of flags; and one longer than this version's
# would overrun the buffer a lookup copies into. Refused, none touched.
rm $pin/ns_policy
bpftool map create $pin/ns_policy type hash key 8 value $((pol - 8)) entries 1024 name ns_policy
for args in "netscope set $cg rate_mbit=10" "netscope"; do
	rc=0
	# shellcheck disable=SC2086
	"$ctl" $args >/dev/null 2>"$dir/err" || rc=$?
	if [ $rc != 0 ] && grep -q "another version" "$dir/err" && [ -z "$(policy)" ]; then
		pass "other-layout-refused ($args)"
	else fail "other-layout-refused ($args)" "exit $rc, policy $(policy): $(cat "$dir/err")"; fi
done

# Maps with BTF, as this build's agent pins them (its sock_ops object
# loaded, not attached; libbpf pins them at the bpffs root, moved into the
# pin directory from there): read and written.
rm $pin/ns_*
mkdir /sys/fs/bpf/progs
bpftool prog loadall "$bdir/bpf/netscope_sockops.bpf.o" /sys/fs/bpf/progs
mv /sys/fs/bpf/ns_* $pin/
# shellcheck disable=SC2046,SC2086
bpftool map update pinned $pin/ns_cg_stats key $key value $(python3 -c "print(' '.join(['0'] * $st))")
rc=0
"$ctl" netscope set "$cg" rate_mbit=10 2>"$dir/err" || rc=$?
if [ $rc = 0 ] && [ "$(rate_of)" = 10000000 ]; then pass this-build-layout-read
else fail this-build-layout-read "exit $rc, rate $(rate_of): $(cat "$dir/err")"; fi
# Then one replaced by a map alike in type and sizes whose BTF is another
# layout (fields renamed and moved, as a build that reshaped a struct
# within its size leaves it): the sizes agree, and its values would read
# as nonsense or, written, be taken by that build's program for its own.
# Refused, naming it; nothing written.
other_layout() {	# NAME MAP ARGS...: exit 1, the map named, the policy as it was
	local name=$1 map=$2 rc=0 before
	shift 2
	before=$(policy)
	"$ctl" "$@" >/dev/null 2>"$dir/err" || rc=$?
	if [ $rc = 1 ] && grep -q "$pin/$map: layout not this build's" "$dir/err" &&
	   [ "$(policy)" = "$before" ]; then pass "$name"
	else fail "$name" "exit $rc, policy $(policy): $(cat "$dir/err")"; fi
}
"$bdir/pin-other-layout" $pin/ns_ctrl
other_layout same-size-ctrl-refused ns_ctrl netscope
"$bdir/pin-other-layout" $pin/ns_policy
other_layout same-size-policy-refused ns_policy netscope set "$cg" rate_mbit=20

exit $failed
