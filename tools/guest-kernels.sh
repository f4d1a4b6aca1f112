#!/usr/bin/env bash
# Fetches Debian's 6.12 kernel image and headers from bookworm-backports into a
# project-private cache, without adding backports to the host's apt sources.
# The 6.1 guest kernel comes from bookworm itself (tools/setup.sh installs it).
#
# Result: $cache/6.12/boot/vmlinuz-* and $cache/6.12/headers (a KDIR for Kbuild).
set -euo pipefail

cache=$(realpath -m -- "${1:-/var/cache/indigo}")
dest=$cache/6.12
log() { printf 'guest-kernels: %s\n' "$*"; }

# Debian's 6.12 headers package ships the module's vmlinux, so Kbuild generates
# BTF for external modules and needs pahole (package dwarves; both guest
# kernels were built with pahole 1.24, bookworm's version).
if ! command -v pahole >/dev/null 2>&1; then
	log "installing dwarves (pahole) for module BTF"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends dwarves >/dev/null
fi

# The arch headers' Makefile includes the common headers' Makefile by absolute
# path (/usr/src/...), which only exists when the package is installed; point
# it into the unpacked tree. Runs on every call so older caches get fixed too.
fix_kdir() {
	local mk
	mk=$(readlink -f "$dest/headers")/Makefile
	sed -i "s#^include /usr/src/#include $dest/root/usr/src/#" "$mk"
}

if [ -f "$dest/.complete" ]; then
	fix_kdir
	exit 0
fi

uri=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$uri" ] || uri=$(awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' /etc/apt/sources.list)
[ -n "$uri" ] || { log "cannot find the Debian mirror in the apt sources"; exit 1; }

apt_dir=$cache/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$dest/debs"
echo "deb $uri bookworm-backports main" >"$apt_dir/sources.list"
aptopts=(-o Dir::Etc::SourceList="$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
	 -o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache::Archives="$apt_dir/archives"
	 -o APT::Get::List-Cleanup=0)

log "reading bookworm-backports package lists"
apt-get "${aptopts[@]}" update -q >/dev/null

# Newest 6.12 ABI in backports: linux-image-6.12.X+bpoY-amd64-unsigned.
img=$(apt-cache "${aptopts[@]}" pkgnames linux-image-6.12 | grep -E '^linux-image-6\.12\.[^-]+-amd64-unsigned$' | sort -V | tail -n 1)
[ -n "$img" ] || { log "no linux-image-6.12 in bookworm-backports"; exit 1; }
abi=${img#linux-image-}; abi=${abi%-unsigned}          # e.g. 6.12.48+deb12-amd64
common=linux-headers-${abi%-amd64}-common
log "kernel $abi"

cd "$dest/debs"
apt-get "${aptopts[@]}" download -q "$img" "linux-headers-$abi" "$common" \
	"linux-kbuild-${abi%%-*}" 2>/dev/null || \
	apt-get "${aptopts[@]}" download -q "$img" "linux-headers-$abi" "$common" \
		"$(apt-cache "${aptopts[@]}" pkgnames linux-kbuild-6.12 | sort -V | tail -n 1)"

root=$dest/root
rm -rf "$root"
mkdir -p "$root"
for d in ./*.deb; do dpkg-deb -x "$d" "$root"; done

# The headers packages link to each other with absolute paths (/usr/src/...,
# /usr/lib/linux-kbuild-*); point those links into the unpacked tree.
find "$root" -type l | while read -r l; do
	t=$(readlink "$l")
	case "$t" in /*) [ -e "$root$t" ] && ln -sfn "$root$t" "$l" ;; esac
done

mkdir -p "$dest/boot"
cp "$root"/boot/vmlinuz-* "$dest/boot/"
ln -sfn "$root/usr/src/linux-headers-$abi" "$dest/headers"
fix_kdir
echo "$abi" >"$dest/release"
touch "$dest/.complete"
log "6.12 kernel in $dest (release $abi)"
