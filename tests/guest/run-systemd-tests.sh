#!/usr/bin/env bash
# indigod.service under systemd in a QEMU guest (6.12 unless given): the
# guest boots this machine's systemd as PID 1 with the unit, the example
# configuration and the Netscope drop-in where `make install` and `make
# install-netscope` put them, and runs systemd-checks.sh as a service.
#
# Usage: run-systemd-tests.sh [6.1|6.12]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
logs=${INDIGO_GUEST_LOGS:-$top/build/guest}
mkdir -p "$logs"
k=${1:-6.12}
read -r release vmlinuz kdir < <("$here/kernels.sh" "$k")
echo "== systemd guest $release"
ko=$("$here/build-ko.sh" "$kdir" "$top/build/ko/$release")
initrd=$logs/systemd-$release.cpio.gz
"$here/mkinitramfs.sh" "$initrd" --systemd --script "$here/systemd-checks.sh" --ko "$ko" \
	--bin "$top/build/indigod:/usr/local/sbin/indigod" \
	--bin "$top/build/indigoctl:/usr/local/sbin/indigoctl" \
	--bin "$top/build/farmem" --bin iperf3 --bin jq \
	--file "$top/agent/indigod.service:/etc/systemd/system/indigod.service" \
	--file "$top/agent/indigod.conf.example:/etc/indigo/indigod.conf" \
	--file "$top/agent/indigod-netscope.conf:/usr/share/indigo/netscope.conf"
"$here/run-guest.sh" --kernel "$vmlinuz" --initrd "$initrd" --timeout 600 \
	--log "$logs/systemd-$release.log" --append "systemd.unit=indigo-test.service"
