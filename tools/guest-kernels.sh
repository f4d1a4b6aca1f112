#!/usr/bin/env bash
# Fetches the guest kernels that Debian ships outside bookworm into a
# project-private cache, without adding their suites to the host's apt
# sources:
#   6.12    bookworm-backports' 6.12: $cache/6.12/boot/vmlinuz-* and
#           $cache/6.12/headers (a KDIR for Kbuild)
#   newest  trixie-backports' newest kernel, with a trixie build root
#           ($cache/newest/root) holding its headers and the compiler it was
#           built with, which bookworm lacks: $cache/newest/boot/vmlinuz-*,
#           KDIR $cache/newest/root/usr/src/linux-headers-* (build-ko.sh
#           builds inside the root)
# The 6.1 guest kernel comes from bookworm itself (tools/setup.sh installs it).
#
# Usage: guest-kernels.sh [CACHE [6.12|newest]...]   (default: 6.12 alone)
set -euo pipefail

cache=$(realpath -m -- "${1:-/var/cache/indigo}")
shift || true
[ $# -gt 0 ] || set -- 6.12
log() { printf 'guest-kernels: %s\n' "$*"; }

uri=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$uri" ] || uri=$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list)
[ -n "$uri" ] || { log "cannot find the Debian mirror in the apt sources"; exit 1; }

# apt with a private source list, lists and archive: aptopts for $1 (a suite)
apt_for() {
	local d=$cache/apt-$1
	mkdir -p "$d/lists/partial" "$d/archives/partial"
	echo "deb $uri $1 main" >"$d/sources.list"
	aptopts=(-o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts=/dev/null
		 -o Dir::State::Lists="$d/lists" -o Dir::Cache::Archives="$d/archives"
		 -o APT::Get::List-Cleanup=0)
	log "reading $1 package lists"
	apt-get "${aptopts[@]}" update -q >/dev/null
}

# Downloads into $1 the packages that hold release $2's image, modules and
# headers: linux-image-R-unsigned holds the first two (6.12), later
# releases have linux-binary-R and linux-modules-R.
download_kernel() {
	local debs=$1 abi=$2 img common kbuild
	img=linux-image-$abi-unsigned
	apt-cache "${aptopts[@]}" show "$img" >/dev/null 2>&1 || img="linux-binary-$abi linux-modules-$abi"
	common=linux-headers-${abi%-amd64}-common
	# the release's own kbuild, else the newest of its series
	kbuild=linux-kbuild-${abi%-amd64}
	apt-cache "${aptopts[@]}" show "$kbuild" >/dev/null 2>&1 ||
		kbuild=$(apt-cache "${aptopts[@]}" pkgnames "linux-kbuild-$(cut -d. -f1,2 <<<"$abi")" |
			 sort -V | tail -n 1)
	rm -rf "$debs"
	mkdir -p "$debs"
	# shellcheck disable=SC2086 # $img: one or two package names
	(cd "$debs" && apt-get "${aptopts[@]}" download -qq $img "linux-headers-$abi" "$common" "$kbuild" \
		2>&1 | grep -v '^W: Download is performed unsandboxed' || true)
	[ "$(ls "$debs"/*.deb | wc -l)" = $((3 + $(wc -w <<<"$img"))) ] ||
		{ log "could not download $abi's packages"; exit 1; }
}

# The vmlinuz unpacked from $1 (a root) into $2/boot as vmlinuz-$3.
keep_vmlinuz() {
	mkdir -p "$2/boot"
	cp "$(find "$1/boot" "$1/usr/lib/modules" -name 'vmlinuz*' 2>/dev/null | head -n 1)" \
		"$2/boot/vmlinuz-$3"
}

kernel_612() {
	local dest=$cache/6.12 abi root mk

	# Debian's 6.12 headers package ships the module's vmlinux, so Kbuild
	# generates BTF for external modules and needs pahole (package dwarves;
	# both guest kernels were built with pahole 1.24, bookworm's version).
	if ! command -v pahole >/dev/null 2>&1; then
		log "installing dwarves (pahole) for module BTF"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends dwarves >/dev/null
	fi
	if [ ! -f "$dest/.complete" ]; then
		apt_for bookworm-backports
		# Newest 6.12 ABI: linux-image-6.12.X+bpoY-amd64-unsigned.
		abi=$(apt-cache "${aptopts[@]}" pkgnames linux-image-6.12 |
		      grep -E '^linux-image-6\.12\.[^-]+-amd64-unsigned$' | sort -V | tail -n 1)
		[ -n "$abi" ] || { log "no linux-image-6.12 in bookworm-backports"; exit 1; }
		abi=${abi#linux-image-}; abi=${abi%-unsigned}          # e.g. 6.12.48+deb12-amd64
		log "kernel $abi"
		download_kernel "$dest/debs" "$abi"
		root=$dest/root
		rm -rf "$root"
		mkdir -p "$root"
		for d in "$dest"/debs/*.deb; do dpkg-deb -x "$d" "$root"; done
		# The headers packages link to each other with absolute paths
		# (/usr/src/..., /usr/lib/linux-kbuild-*); point those into the tree.
		find "$root" -type l | while read -r l; do
			t=$(readlink "$l")
			case "$t" in /*) [ -e "$root$t" ] && ln -sfn "$root$t" "$l" ;; esac
		done
		keep_vmlinuz "$root" "$dest" "$abi"
		ln -sfn "$root/usr/src/linux-headers-$abi" "$dest/headers"
		echo "$abi" >"$dest/release"
		touch "$dest/.complete"
	fi
	# The arch headers' Makefile includes the common headers' Makefile by
	# absolute path (/usr/src/...), which only exists when the package is
	# installed; point it into the unpacked tree. On every call, so that
	# older caches get fixed too.
	mk=$(readlink -f "$dest/headers")/Makefile
	sed -i "s#^include /usr/src/#include $dest/root/usr/src/#" "$mk"
	log "6.12 kernel in $dest (release $(cat "$dest/release"))"
}

kernel_newest() {
	local dest=$cache/newest abi root cc

	if [ -f "$dest/.complete" ]; then
		log "newest kernel in $dest (release $(cat "$dest/release"))"
		return
	fi
	apt_for trixie-backports
	abi=$(apt-cache "${aptopts[@]}" pkgnames linux-headers- |
	      grep -E '^linux-headers-[0-9.]+\+[^-]+-amd64$' | sort -V | tail -n 1)
	[ -n "$abi" ] || { log "no kernel headers in trixie-backports"; exit 1; }
	abi=${abi#linux-headers-}                               # e.g. 7.3.4+deb13-amd64
	log "kernel $abi"
	download_kernel "$dest/debs" "$abi"
	root=$dest/root
	rm -rf "$root" "$dest/boot"
	mkdir -p "$dest"
	# The kernel's own compiler (its config names it): trixie's, in a
	# root of its own, with pahole for the module's BTF and the
	# libraries the kbuild tools link.
	dpkg-deb --fsys-tarfile "$dest"/debs/linux-headers-"$abi"_*.deb |
		tar -xO ./usr/src/linux-headers-"$abi"/.config >"$dest/config"
	cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="[^ ]*-\(gcc-[0-9]*\) .*/\1/p' "$dest/config")
	[ -n "$cc" ] || { log "cannot tell $abi's compiler from its config"; exit 1; }
	command -v debootstrap >/dev/null || { log "debootstrap missing: run tools/setup.sh"; exit 1; }
	log "making a trixie build root with $cc (about a minute)"
	debootstrap --variant=minbase --include="$cc,make,libelf-dev,libssl-dev,dwarves" \
		trixie "$root" "$uri" >"$dest/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$dest/debootstrap.log"; log "debootstrap failed"; exit 1; }
	for d in "$dest"/debs/*.deb; do dpkg-deb -x "$d" "$root"; done
	mkdir -p "$root/build"
	touch "$root/.indigo-buildroot"
	keep_vmlinuz "$root" "$dest" "$abi"
	echo "$abi" >"$dest/release"
	touch "$dest/.complete"
	log "newest kernel in $dest (release $abi)"
}

for k in "$@"; do
	case "$k" in
	6.12) kernel_612 ;;
	newest) kernel_newest ;;
	*) log "unknown kernel $k (6.12, newest)"; exit 2 ;;
	esac
done
