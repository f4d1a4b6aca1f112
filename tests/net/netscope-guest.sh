#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Netscope's eBPF programs in a QEMU guest running Debian's 6.1 or 6.12
# kernel (default 6.12): the verifier there must accept them all, and they
# must attach, measure, choose a CC and detach (netscope-guest-checks.sh).
#
# Usage: netscope-guest.sh [6.1|6.12]
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
"$guest/mkinitramfs.sh" "$initrd" --script "$here/netscope-guest-checks.sh" \
	--bin "$top/build/indigo-netscope" --bin "$top/build/indigoctl" \
	--bin iperf3 --bin jq
"$guest/run-guest.sh" --kernel "$vmlinuz" --initrd "$initrd" --timeout 300 \
	--log "$logs/netscope-$release.log" --quiet
