#!/usr/bin/env bash
# indigod.service under systemd in a QEMU guest (6.12 unless given): the
# guest boots this machine's systemd as PID 1 into a system staged by `make
# install-agent` (the agent, its unit enabled, the example configuration),
# with the module as DKMS builds it (make install-dkms) where DKMS installs
# it, loaded at boot by systemd-modules-load, and runs systemd-checks.sh as a service. The
# drop-ins of `make install-netscope` and `make install-gpu` wait in
# /usr/share/indigo for the checks to install them.
#
# Usage: run-systemd-tests.sh [6.1|6.12]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/guest-lib.sh"
guest_prepare "${1:-6.12}" "systemd guest"

stage=$(mktemp -d "${TMPDIR:-/tmp}/indigo-stage.XXXXXX")
dropin=$(mktemp -d "${TMPDIR:-/tmp}/indigo-dropin.XXXXXX")
dk=$(mktemp -d "${TMPDIR:-/tmp}/indigo-dkms.XXXXXX")
trap 'rm -rf "$stage" "$dropin" "$dk"' EXIT

# The module as DKMS builds it from what `make install-dkms` registers
# (private source and DKMS trees: nothing of the host's changes), with the
# Makefile's version, which dkms.conf must carry too. Unsigned: DKMS would
# otherwise make a signing key in /var/lib/dkms for kernels that ship
# sign-file.
ver=$(sed -n 's/^VERSION := //p' "$top/Makefile")
make -s -C "$top" dkms-source DKMS_SRC="$dk/src/indigo-$ver"
mkdir "$dk/tree"
if ! sign_file=/nonexistent dkms build -m indigo -v "$ver" -k "$release" --sourcetree "$dk/src" \
	--dkmstree "$dk/tree" --kernelsourcedir "$kdir" >"$logs/dkms-$release.log" 2>&1; then
	cat "$logs/dkms-$release.log" "$dk/tree/indigo/$ver/build/make.log" 2>/dev/null
	echo "run-systemd-tests: dkms build of indigo $ver for $release failed"
	exit 1
fi
ko=$dk/tree/indigo/$ver/$release/$(uname -m)/module/indigo.ko
make -s -C "$top" install-agent DESTDIR="$stage"
make -s -C "$top" install-netscope install-gpu DESTDIR="$dropin"
systemctl --root="$stage" --quiet enable indigod.service 2>/dev/null
install -D -m 0644 "$ko" "$stage/lib/modules/$release/updates/dkms/indigo.ko"
depmod -b "$stage" "$release" 2>/dev/null
# how a host loads it at boot, with a parameter from modprobe.d
install -D -m 0644 /dev/stdin "$stage/etc/modules-load.d/indigo.conf" <<<"indigo"
install -D -m 0644 /dev/stdin "$stage/etc/modprobe.d/indigo.conf" <<<"options indigo epoch_ms=500"

initrd=$logs/systemd-$release.cpio.gz
# --bin for the programs' libraries; the tree puts them where install does
"$here/mkinitramfs.sh" "$initrd" --systemd --script "$here/systemd-checks.sh" \
	--bin "$top/build/indigod" --bin "$top/build/indigoctl" \
	--bin "$top/build/farmem" --bin iperf3 --bin jq --tree "$stage" \
	--file "$dropin/etc/systemd/system/indigod.service.d/:/usr/share/indigo/"
"$here/run-guest.sh" --kernel "$vmlinuz" --initrd "$initrd" --timeout 600 \
	--log "$logs/systemd-$release.log" --append "systemd.unit=multi-user.target"
