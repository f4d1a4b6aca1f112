# shellcheck shell=bash
# Sourced by the guest runners that boot one kernel, after setting here
# (their directory).
#
# guest_prepare KERNEL LABEL, KERNEL 6.1 or 6.12: sets top, logs
# (INDIGO_GUEST_LOGS, default build/guest, made), and release, vmlinuz and
# kdir of that kernel.
guest_prepare() {
	top=$(cd "$here/../.." && pwd)
	logs=${INDIGO_GUEST_LOGS:-$top/build/guest}
	mkdir -p "$logs"
	read -r release vmlinuz kdir < <("$here/kernels.sh" "$1")
	echo "== $2 $release"
}

# guest_ko: sets ko, the module built for that kernel (W=1, build-ko.sh).
guest_ko() {
	ko=$("$here/build-ko.sh" "$kdir" "$top/build/ko/$release")
}
