#!/usr/bin/env bash
# indigod with the module in a QEMU guest (6.12 unless given): builds the
# initramfs with indigod, indigoctl, farmem, ingest, nlfuzz, iperf3 and the
# module, runs agent-checks.sh in it, with a DIMM for CPU-less node 2 that the
# host plugs when the checks ask (run-guest.sh --hotplug-late).
#
# Usage: run-agent-tests.sh [6.1|6.12|newest]
# Env:   INDIGOD_BIN=PATH  another indigod build (e.g. with ASan), named indigod
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/guest-lib.sh"
guest_prepare "${1:-6.12}" "guest"
guest_ko
initrd=$logs/agent-$release.cpio.gz
"$here/mkinitramfs.sh" "$initrd" --script "$here/agent-checks.sh" --ko "$ko" \
	--bin "${INDIGOD_BIN:-$top/build/indigod}" --bin "$top/build/indigoctl" --bin "$top/build/farmem" \
	--bin "$top/build/ingest" --bin "$top/build/nlfuzz" --bin iperf3
"$here/run-guest.sh" --kernel "$vmlinuz" --initrd "$initrd" --timeout 900 \
	--hotplug-mb 256 --hotplug-late --log "$logs/agent-$release.log"
