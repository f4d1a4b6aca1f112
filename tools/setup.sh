#!/usr/bin/env bash
# Installs everything INDIGO needs to build, test and demo on Debian bookworm.
# Idempotent: re-running it only checks what is already there.
#
#   - build and test dependencies from bookworm (apt, needs root;
#     tools/setup.sh --list prints them)
#   - guest kernels: 6.1 and its PREEMPT_RT flavour (bookworm) installed
#     normally; 6.12 (bookworm-backports) and the newest Debian kernel
#     (trixie-backports, with a trixie build root for its compiler)
#     unpacked into a project-private cache so the host's apt sources stay
#     as they are
#   - checkpatch.pl from linux-source-6.1 into /opt/checkpatch
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${INDIGO_CACHE:-/var/cache/indigo}
log() { printf 'setup: %s\n' "$*"; }

pkgs=(
	build-essential pkg-config bc flex bison libelf-dev dwarves
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	linux-image-rt-amd64 linux-headers-rt-amd64
	qemu-system-x86 busybox-static cpio gzip kmod systemd
	check libnl-3-dev libnl-genl-3-dev libnuma-dev numactl
	libinih-dev libjson-c-dev libsystemd-dev groff-base
	redis-server redis-tools stress-ng dkms debootstrap
	python3
)
# Each component lists what it needs more, one package per line.
for list in "$top"/tools/packages.d/*.list; do
	[ -e "$list" ] || continue
	while read -r p _; do
		case "$p" in ''|'#'*) ;; *) pkgs+=("$p") ;; esac
	done <"$list"
done

# --list: the packages, one a line, and nothing installed or checked
if [ "${1:-}" = --list ]; then
	printf '%s\n' "${pkgs[@]}"
	exit 0
fi

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# INITRD=No: no initramfs for the kernels installed here, which only
	# the test guests boot, with images of the project's own
	INITRD=No apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# checkpatch.pl and its data files ship inside the 6.1 source tarball.
if [ ! -f /opt/checkpatch/checkpatch.pl ]; then
	tarball=$(ls /usr/src/linux-source-6.1*.tar.* | head -n 1)
	log "extracting checkpatch from $tarball"
	mkdir -p /opt/checkpatch
	tar -xaf "$tarball" -C /opt/checkpatch --strip-components=2 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
fi

"$top/tools/guest-kernels.sh" "$cache" 6.12 newest
log "done"
