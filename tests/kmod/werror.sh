#!/usr/bin/env bash
# Warnings fail the project's own module builds and not DKMS's: a warning
# planted in one source file must stop `make module`'s flags and must not
# stop the build command of dkms.conf (a user's newer compiler may warn
# where ours did not, and the host would be left without its module).
# Compiles one object, against KDIR (default: the 6.1 guest kernel's).
#
# Usage: tests/kmod/werror.sh (from the top of the tree)
set -euo pipefail

top=$(pwd)
kdir=${KDIR:-$(tests/guest/kernels.sh 6.1 | cut -d' ' -f3)}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; failed=1; }

# dkms.conf's own command, for a tree laid out as DKMS lays it out
# shellcheck disable=SC1091
mk=$(kernel_source_dir=$kdir dkms_tree=$dir/tree; . "$top/dkms.conf"; echo "${MAKE[0]}")
src=$dir/tree/indigo/0.1/build
make -s dkms-source DKMS_SRC="$src"
echo 'static int indigo_planted_warning;' >>"$src/kmod/table.c"
obj=kmod/table.o

if make -s -C "$kdir" M="$src" "$obj" >"$dir/own.log" 2>&1; then
	fail own-build-warning-fails "built with a warning"
else
	grep -q 'indigo_planted_warning.*-Werror' "$dir/own.log" &&
		pass own-build-warning-fails ||
		fail own-build-warning-fails "failed for another reason: $(tail -n 3 "$dir/own.log")"
fi
rm -f "$src/$obj"
if ${mk% modules} "$obj" >"$dir/dkms.log" 2>&1 && [ -f "$src/$obj" ]; then
	grep -q 'indigo_planted_warning' "$dir/dkms.log" && pass dkms-build-warning-passes ||
		fail dkms-build-warning-passes "built, but no warning shown"
else
	fail dkms-build-warning-passes "$(tail -n 3 "$dir/dkms.log")"
fi
exit $failed
