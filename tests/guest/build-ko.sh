#!/usr/bin/env bash
# Builds indigo.ko for one kernel in its own out-of-tree copy, so builds for
# several kernels never share object files.
#
# Usage: build-ko.sh KDIR OUTDIR    (prints the path of the built module)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=$1
out=$(mkdir -p "$2" && cd "$2" && pwd)
rm -rf "$out/src"
mkdir -p "$out/src"
cp -r "$top/Kbuild" "$top/kmod" "$top/include" "$out/src/"
# W=1: the module must build without warnings, with the extra checks on too.
# A kernel whose compiler this machine lacks lies in a build root of its own
# release (tools/guest-kernels.sh newest): build in there, with /proc for
# objtool and the copy bind-mounted, in a mount namespace that takes both
# mounts away when it ends.
root=${kdir%%/usr/src/*}
if [ "$root" != "$kdir" ] && [ -f "$root/.indigo-buildroot" ]; then
	build() {
		unshare --mount --fork sh -c 'mount -t proc proc "$1/proc" &&
			mount --bind "$2" "$1/build" &&
			exec chroot "$1" make -s -C "$3" M=/build W=1 modules' \
			- "$root" "$out/src" "${kdir#"$root"}"
	}
else
	build() { make -s -C "$kdir" M="$out/src" W=1 modules; }
fi
build >"$out/build.log" 2>&1 || {
	cat "$out/build.log" >&2
	exit 1
}
if grep -q "warning:" "$out/build.log"; then
	cat "$out/build.log" >&2
	echo "build-ko.sh: warnings building against $kdir" >&2
	exit 1
fi
echo "$out/src/indigo.ko"
