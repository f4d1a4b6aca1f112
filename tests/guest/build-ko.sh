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
make -s -C "$kdir" M="$out/src" W=1 modules >"$out/build.log" 2>&1 || {
	cat "$out/build.log" >&2
	exit 1
}
if grep -q "warning:" "$out/build.log"; then
	cat "$out/build.log" >&2
	echo "build-ko.sh: warnings building against $kdir" >&2
	exit 1
fi
echo "$out/src/indigo.ko"
