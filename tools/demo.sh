#!/usr/bin/env bash
# make demo: boots a QEMU guest (Debian's newest installed guest kernel) with
# a CPU-less far-memory node 1, loads indigo.ko, runs a workload on far
# memory under the gate, and prints what the module saw and decided; then
# runs indigod, the agent, on the same workload and prints its decisions.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
g=$top/tests/guest
work=$top/build/demo
mkdir -p "$work"

read -r release vmlinuz kdir < <("$g/kernels.sh" "${1:-6.12}")
echo "demo: building indigo.ko for $release"
ko=$("$g/build-ko.sh" "$kdir" "$top/build/ko/$release")
"$g/mkinitramfs.sh" "$work/demo.cpio.gz" --script "$top/tools/demo-guest.sh" \
	--ko "$ko" --bin "$top/build/farmem" --bin "$top/build/indigoctl" \
	--bin "$top/build/indigod"
echo "demo: booting the guest (QEMU, software emulation: about a minute)"
# a console from an earlier run must not pass for this one's
rm -f "$work/console.log"
rc=0
"$g/run-guest.sh" --kernel "$vmlinuz" --initrd "$work/demo.cpio.gz" \
	--timeout 600 --quiet --log "$work/console.log" >/dev/null || rc=$?
# the demo's own lines, without the kernel's boot messages; a guest that
# failed before printing any (or a run with no console at all) must still
# get to the message below, which set -e and pipefail would skip
if [ -f "$work/console.log" ]; then
	tr -d '\r' <"$work/console.log" |
		sed -n '/^=== guest:/,/^PASS demo/p' | grep -v '^\[ *[0-9]*\.[0-9]*\]' |
		grep -v '^PASS demo' || true
fi
if [ "$rc" != 0 ]; then
	if [ -f "$work/console.log" ]; then
		echo "demo: the guest run failed; console in $work/console.log"
	else
		echo "demo: the guest run failed (status $rc) before it had a console"
	fi
fi
exit "$rc"
