#!/usr/bin/env bash
# make install-agent, install-netscope, install-gpu and uninstall into a
# staging tree (DESTDIR): uninstall takes away what they put there (the
# configuration stays), the unit's enablement links and the module of
# make install, and touches
# nothing outside DESTDIR: no dkms, no depmod, no path of the host; the
# GPU drop-in's device groups; make install-dkms's plan (make -n); make
# install's module found by modprobe (where there are kernel headers);
# tools/setup.sh's packages cover the commands the tests run.
# Needs the programs built (make programs).
#
# Usage: install-staged.sh (from the top of the tree)
set -euo pipefail

. "$(dirname "$0")/lib.sh"
stage=$dir/stage
# dkms and depmod of the host are not to run: these stand-ins log it
mkdir -p "$dir/bin"
for t in dkms depmod; do
	printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$t" "$dir/host.log" >"$dir/bin/$t"
	chmod +x "$dir/bin/$t"
done
: >"$dir/host.log"

make -s install-agent install-netscope install-gpu DESTDIR="$stage" >/dev/null
# enabled as a user would (systemctl works on a root tree offline)
systemctl --root="$stage" --quiet enable indigod.service
wants=$stage/etc/systemd/system/multi-user.target.wants/indigod.service
[ -L "$wants" ] || { fail enable-in-stage "no $wants"; exit 1; }

# The GPU drop-in's DeviceAllow=char-GROUP lines, as systemd resolves them:
# GROUP a glob over the names of /proc/devices, allowing every minor of a
# matching major. The NVIDIA driver names major 195 "nvidia-frontend" up
# to 535, "nvidia" (and "nvidiactl") from 545 on (nv.c's
# nv_register_chrdev): each generation must get /dev/nvidia0 and
# /dev/nvidiactl (195) and /dev/nvidia-uvm read-write.
gpu_allows() {	# $1: a /proc/devices (character part); $2: major; $3: access
	local pat acc num name
	while read -r pat acc; do
		[[ $acc == *"$3"* ]] || continue
		while read -r num name; do
			# shellcheck disable=SC2053 # a glob, as systemd's fnmatch
			[[ $num == "$2" && $name == $pat ]] && return 0
		done <<<"$1"
	done < <(sed -n 's/^DeviceAllow=char-\([^ ]*\) *\([rwm]*\).*/\1 \2/p' \
		"$stage/etc/systemd/system/indigod.service.d/gpu.conf")
	return 1
}
for drv in "535:195 nvidia-frontend" "550:195 nvidia
195 nvidiactl"; do
	devs="${drv#*:}
236 nvidia-uvm
237 nvidia-caps"
	if gpu_allows "$devs" 195 rw && gpu_allows "$devs" 236 rw; then
		pass "gpu-dropin-device-groups-driver-${drv%%:*}"
	else
		fail "gpu-dropin-device-groups-driver-${drv%%:*}" \
			"DeviceAllow= leaves out /dev/nvidia0, /dev/nvidiactl or /dev/nvidia-uvm"
	fi
done
# what make install's modules_install leaves (extra up to 6.2, then
# updates; compressed as the kernel's own are, xz on Debian's 6.12)
install -D -m 0644 /dev/null "$stage/lib/modules/6.1.0-9-amd64/extra/indigo.ko"
install -D -m 0644 /dev/null "$stage/lib/modules/6.12.9-amd64/updates/indigo.ko"
install -D -m 0644 /dev/null "$stage/lib/modules/6.12.10-amd64/updates/indigo.ko.xz"
# DKMS's own copy is DKMS's to remove
install -D -m 0644 /dev/null "$stage/lib/modules/6.1.0-9-amd64/updates/dkms/indigo.ko"

# make install-dkms run again after an update (VERSION unchanged): dkms 3
# skips a module/version already built or installed for the kernel ("skip.
# You may override by specifying --force") and exits 0, which would leave
# the old module in place. Only the plan: make -n runs nothing (the
# dkms-source sub-make inherits -n), so no dkms and no /usr/src.
plan=$(make -s -n install-dkms DKMS_KERNEL=6.1.0-9-amd64)
steps=$(grep -E '^dkms (build|install) ' <<<"$plan" || true)
if [ "$(grep -c . <<<"$steps")" = 2 ] && ! grep -qv -e '--force' <<<"$steps"; then
	pass install-dkms-rebuilds
else
	fail install-dkms-rebuilds "a second make install-dkms keeps the old module: $(echo $steps)"
fi

# make install (module and all) into a stage of its own: modprobe must find
# the module, i.e. the release's modules.dep lists it. Kbuild's
# modules_install runs depmod only where KDIR has a System.map, which
# Debian's header packages do not ship. Needs kernel headers (KDIR).
kdir=$(make -s --no-print-directory --eval='print-kdir: ; @echo $(KDIR)' print-kdir)
if [ -n "$kdir" ] && [ -d "$kdir" ]; then
	mstage=$dir/mstage
	if make -s install DESTDIR="$mstage" >"$dir/install.log" 2>&1; then
		ko=$(cd "$mstage/lib/modules" && ls -d ./*/*/indigo.ko* 2>/dev/null | head -n 1)
		rel=$(cut -d/ -f2 <<<"$ko")
		if [ -n "$ko" ] && grep -q "^${ko#./"$rel"/}:" "$mstage/lib/modules/$rel/modules.dep" 2>/dev/null; then
			pass install-module-depmod
		else
			fail install-module-depmod "modprobe would not find ${ko:-the module}: $(grep -i depmod "$dir/install.log" | tr '\n' ' ')"
		fi
	else
		fail install-module-depmod "make install failed: $(tail -n 3 "$dir/install.log")"
	fi
else
	echo "SKIP install-module-depmod (no kernel headers: KDIR)"
fi

# tools/setup.sh (make setup, .ci/run) installs what the tests run: each
# command below, which no package of Debian's required set provides, is
# run by make check's scripts and must have its package in setup's list
# (python3: indigod-smoke.sh, indigoctl-cli.sh, the netscope and GPU
# checks).
listed=$(tools/setup.sh --list)
missing=
while read -r cmd pkg; do
	grep -qx -- "$pkg" <<<"$listed" || missing+=" $cmd ($pkg)"
done <<'EOF'
python3 python3
jq jq
iperf3 iperf3
bpftool bpftool
clang clang
valgrind valgrind
redis-server redis-server
numactl numactl
stress-ng stress-ng
cpio cpio
xz xz-utils
sqlite3 sqlite3
gnuplot gnuplot-nox
ping iputils-ping
ip iproute2
pahole dwarves
qemu-system-x86_64 qemu-system-x86
busybox busybox-static
groff groff-base
dkms dkms
bc bc
EOF
[ -z "$missing" ] && pass setup-lists-test-tools ||
	fail setup-lists-test-tools "tools/setup.sh does not install:$missing"

# first without running it: every absolute path it names is in the stage
out=$(make -s -n uninstall DESTDIR="$stage")
host=$(tr -s ' \t;|&' '\n' <<<"$out" | grep '^/' | grep -v "^$stage" | sort -u || true)
if [ -z "$host" ] && ! grep -qw dkms <<<"$out"; then
	pass uninstall-plan-in-destdir
else
	fail uninstall-plan-in-destdir "would touch the host: $(echo $host) $(grep -ow dkms <<<"$out" | head -1)"
	exit 1
fi

# on the host (no DESTDIR) only its plan, nothing run: systemd is told to
# forget the unit after its file went (else it stays loaded until the next
# reload), and Netscope's pinned maps go
plan=$(make -s -n uninstall)
unit_rm=$(grep -n '/etc/systemd/system/indigod\.service \\$' <<<"$plan" | head -n 1 | cut -d: -f1)
reload=$(grep -n 'systemctl daemon-reload$' <<<"$plan" | tail -n 1 | cut -d: -f1)
if [ -n "$unit_rm" ] && [ -n "$reload" ] && [ "$reload" -gt "$unit_rm" ] &&
	grep -q '^rm -rf /sys/fs/bpf/indigo$' <<<"$plan"; then
	pass uninstall-host-forgets-unit-and-pins
else
	fail uninstall-host-forgets-unit-and-pins "unit removed at line ${unit_rm:-none}, daemon-reload at ${reload:-none}, pins: $(grep -c 'fs/bpf/indigo' <<<"$plan")"
fi

PATH="$dir/bin:$PATH" make -s uninstall DESTDIR="$stage" >/dev/null
[ ! -s "$dir/host.log" ] && pass uninstall-no-host-tools ||
	fail uninstall-no-host-tools "$(tr '\n' ';' <"$dir/host.log")"
left=$(cd "$stage" && find . \( -type f -o -type l \) | sort |
	grep -v -x -e ./etc/indigo/indigod.conf -e ./lib/modules/6.1.0-9-amd64/updates/dkms/indigo.ko || true)
[ -z "$left" ] && pass uninstall-removes-all || fail uninstall-removes-all "left: $(echo $left)"
[ -f "$stage/lib/modules/6.1.0-9-amd64/updates/dkms/indigo.ko" ] &&
	pass uninstall-leaves-dkms-module || fail uninstall-leaves-dkms-module "removed"
[ ! -e "$stage/etc/systemd/system/indigod.service.d" ] && pass uninstall-removes-dropin-dir ||
	fail uninstall-removes-dropin-dir "still there"
[ -f "$stage/etc/indigo/indigod.conf" ] && pass uninstall-keeps-config ||
	fail uninstall-keeps-config "removed"
exit $failed
