#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Netscope's eBPF programs in a QEMU guest running Debian's 6.1, 6.12 or
# newest (trixie-backports') kernel (default 6.12): the verifier there must
# accept them all, and they must attach, measure, choose a CC (one a module
# loaded only while a flow runs, too) and detach
# (netscope-guest-checks.sh). The guest gets that kernel's own tcp_vegas
# module, and inet_diag and tcp_diag for ss.
#
# Usage: netscope-guest.sh [6.1|6.12|newest]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
guest=$top/tests/guest
logs=${INDIGO_GUEST_LOGS:-$top/build/guest}
mkdir -p "$logs"
k=${1:-6.12}
read -r release vmlinuz _ < <("$guest/kernels.sh" "$k")
echo "== netscope guest $release"
initrd=$logs/netscope-$release.cpio.gz
# the release's modules: the 6.1 one's installed here, the others' in the
# cache tools/guest-kernels.sh unpacked (under /lib or, merged, /usr/lib;
# xz, unpacked here: busybox insmod may not read it)
mods=/lib/modules/$release/kernel/net/ipv4
for root in "${INDIGO_CACHE:-/var/cache/indigo}/$k/root"{,/usr}; do
	[ -d "$mods" ] || mods=$root/lib/modules/$release/kernel/net/ipv4
done
kos=()
mkdir -p "$logs/ko-$release"
for m in tcp_vegas inet_diag tcp_diag; do
	if [ -f "$mods/$m.ko" ]; then
		kos+=(--ko "$mods/$m.ko")
	else
		xz -dc "$mods/$m.ko.xz" >"$logs/ko-$release/$m.ko"
		kos+=(--ko "$logs/ko-$release/$m.ko")
	fi
done
"$guest/mkinitramfs.sh" "$initrd" --script "$here/netscope-guest-checks.sh" \
	--bin "$top/build/indigo-netscope" --bin "$top/build/indigoctl" \
	--bin iperf3 --bin jq --bin ss --file "$here/flow-cc-top.awk:/lib/flow-cc-top.awk" \
	"${kos[@]}"
"$guest/run-guest.sh" --kernel "$vmlinuz" --initrd "$initrd" --timeout 300 \
	--log "$logs/netscope-$release.log" --quiet
