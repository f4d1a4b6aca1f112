#!/usr/bin/env bash
# tools/demo.sh's own logic with the guest tools stubbed (no QEMU): a
# failed guest run gets demo.sh's message and its exit status, whatever the
# console holds or whether there is one, and an earlier run's console is
# never shown for this one's.
#
# Usage: demo-script.sh (from the top of the tree)
set -euo pipefail

. "$(dirname "$0")/lib.sh"

mkdir -p "$dir/tools" "$dir/tests/guest"
cp tools/demo.sh "$dir/tools/"
stub() { printf '#!/bin/sh\n%s\n' "$2" >"$dir/tests/guest/$1"; chmod +x "$dir/tests/guest/$1"; }
stub kernels.sh 'echo 6.12-test /vmlinuz /kdir'
stub build-ko.sh 'echo /indigo.ko'
stub mkinitramfs.sh ':'
log=$dir/build/demo/console.log

# $1: name; $2: run-guest.sh's body; $3: status wanted; $4: output wanted
# (extended regexp); $5: output not wanted (regexp, or "")
case_() {
	local out rc=0
	stub run-guest.sh "$2"
	out=$("$dir/tools/demo.sh" 2>&1) || rc=$?
	if [ "$rc" != "$3" ]; then
		fail "$1" "exit status $rc, not $3: $(echo $out)"
	elif ! grep -qE "$4" <<<"$out"; then
		fail "$1" "no '$4' in: $(echo $out)"
	elif [ -n "$5" ] && grep -qE "$5" <<<"$out"; then
		fail "$1" "'$5' in: $(echo $out)"
	else
		pass "$1"
	fi
}

# run-guest.sh is called with --log FILE as its 8th and 9th arguments
case_ demo-ok 'printf "[ 1.0] boot\n=== guest: kernel x\nhello\nPASS demo\n" >"$9"' \
	0 '^hello$' 'PASS demo|failed'
case_ demo-guest-failed-before-demo 'printf "[ 1.0] boot\n[ 2.0] panic\n" >"$9"; exit 1' \
	1 'the guest run failed; console in' ''
case_ demo-no-console 'exit 2' 2 'the guest run failed \(status 2\)' ''
mkdir -p "$(dirname "$log")"
printf '=== guest: stale\nold line\nPASS demo\n' >"$log"
case_ demo-stale-console 'exit 2' 2 'the guest run failed' 'old line'
exit $failed
