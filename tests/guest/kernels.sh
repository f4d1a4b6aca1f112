#!/usr/bin/env bash
# Lists the guest kernels the module can be tested on, one per line:
#   <release> <vmlinuz path> <kdir path>
# 6.1 is Debian bookworm's own kernel and 6.1-rt its PREEMPT_RT flavour
# (installed in /boot and /usr/src by tools/setup.sh); 6.12 is the backports
# kernel that tools/guest-kernels.sh unpacks into a private cache
# (INDIGO_CACHE, default /var/cache/indigo); newest is the newest kernel
# Debian has (trixie-backports'), fetched with the build root its compiler
# needs by `tools/guest-kernels.sh CACHE newest`.
#
# Usage: kernels.sh [6.1|6.1-rt|6.12|newest]
#   With no argument prints 6.1 and 6.12 where present (exit 1 if neither):
#   the RT one, without NUMA balancing, only serves the check that the
#   module refuses it.
#   With an argument prints just that one, or exits 1 saying it is missing.
set -euo pipefail

cache=${INDIGO_CACHE:-/var/cache/indigo}

die() { printf 'kernels.sh: %s\n' "$*" >&2; exit 1; }

# Newest bookworm 6.1 kernel of flavour $1 (amd64, rt-amd64) that has both
# an image and its headers.
k61() {
	local v rel
	while read -r v; do
		[ -f "$v" ] || continue    # the unmatched glob itself
		rel=${v#/boot/vmlinuz-}
		case "$rel" in *-"$1") ;; *) continue ;; esac
		case "$1:$rel" in amd64:*-rt-amd64 | amd64:*-cloud-amd64) continue ;; esac
		if [ -f "/usr/src/linux-headers-$rel/Makefile" ]; then
			printf '%s %s %s\n' "$rel" "$v" "/usr/src/linux-headers-$rel"
			return 0
		fi
	done < <(printf '%s\n' /boot/vmlinuz-6.1.* | sort -rV)
	return 1
}

# The 6.12 kernel in the cache; .complete says guest-kernels.sh finished.
k612() {
	local d=$cache/6.12 rel
	[ -f "$d/.complete" ] && [ -f "$d/release" ] || return 1
	rel=$(cat "$d/release")
	[ -f "$d/boot/vmlinuz-$rel" ] && [ -f "$d/headers/Makefile" ] || return 1
	printf '%s %s %s\n' "$rel" "$d/boot/vmlinuz-$rel" "$(readlink -f "$d/headers")"
}

# The newest kernel in the cache; its KDIR lies inside its build root.
knewest() {
	local d=$cache/newest rel
	[ -f "$d/.complete" ] && [ -f "$d/release" ] || return 1
	rel=$(cat "$d/release")
	[ -f "$d/boot/vmlinuz-$rel" ] && [ -f "$d/root/usr/src/linux-headers-$rel/Makefile" ] || return 1
	printf '%s %s %s\n' "$rel" "$d/boot/vmlinuz-$rel" "$d/root/usr/src/linux-headers-$rel"
}

case "${1:-all}" in
6.1) k61 amd64 || die "no 6.1 guest kernel (need /boot/vmlinuz-6.1.* and /usr/src/linux-headers-<same>; run tools/setup.sh)" ;;
6.1-rt) k61 rt-amd64 || die "no 6.1 PREEMPT_RT guest kernel (need /boot/vmlinuz-6.1.*-rt-amd64 and its headers; run tools/setup.sh)" ;;
6.12) k612 || die "no 6.12 guest kernel in $cache/6.12 (run tools/guest-kernels.sh)" ;;
newest) knewest || die "no newest guest kernel in $cache/newest (run tools/guest-kernels.sh $cache newest)" ;;
all)
	found=0
	k61 amd64 && found=1
	k612 && found=1
	[ "$found" = 1 ] || die "no guest kernels found (run tools/setup.sh)"
	;;
*) die "usage: kernels.sh [6.1|6.1-rt|6.12|newest]" ;;
esac
