#!/usr/bin/env bash
# Builds the small initramfs that INDIGO's QEMU guest tests boot into.
#
# Usage: mkinitramfs.sh OUT.cpio.gz --script TEST.sh [--ko FILE.ko]...
#                       [--bin PROGRAM]... [--file SRC:DEST]... [--tree DIR]...
#                       [--systemd]
#
#   --script TEST.sh  the test, installed as /test.sh and run with sh
#   --ko FILE.ko      a kernel module, installed as /lib/modules/<name>.ko
#   --bin PROGRAM[:DEST]
#                     a program (path, or a name looked up in PATH), installed
#                     as DEST (default /bin/<name>) with every shared library
#                     ldd lists for it and the dynamic loader
#   --file SRC:DEST   any file or directory, installed at the absolute DEST
#   --tree DIR        a staged tree (make install DESTDIR=DIR), copied into /
#                     as it is, links kept (no libraries: add those with --bin)
#   --systemd         boot this machine's systemd as PID 1 instead (below)
#
# The image holds busybox (from busybox-static) with all its applet links,
# /etc/passwd and /etc/group with root and nobody (uid/gid 65534) so tests can
# drop privileges (busybox su/setpriv), /etc/hosts, and an /init that mounts
# proc, sysfs, devtmpfs, debugfs, tracefs, cgroup2 and a tmpfs /tmp, brings up
# lo, runs /test.sh and prints "INDIGO-GUEST-EXIT rc=<status>" before powering
# off. tests/guest/run-guest.sh boots it and judges the console.
#
# With --systemd, /init hands over to systemd (with journald, systemctl,
# journalctl and systemd-modules-load, from this machine's packages), which
# boots to multi-user.target, and /test.sh runs as the service
# indigo-test.service, enabled there, with the same console lines: what a
# host running the project's units does. Only the units the boot needs are
# installed (every target and slice, journald's sockets and service,
# systemd-modules-load.service); units enabled in a --tree start too.
set -euo pipefail

die() { printf 'mkinitramfs.sh: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '4,17s/^# \{0,1\}//p' "$0" >&2; exit 2; }

[ $# -ge 1 ] || usage
out=$1
shift
script=
kos=()
bins=()
files=()
trees=()
systemd=0
while [ $# -gt 0 ]; do
	if [ "$1" = --systemd ]; then systemd=1; shift; continue; fi
	[ $# -ge 2 ] || usage
	case "$1" in
	--script) script=$2 ;;
	--ko) kos+=("$2") ;;
	--bin) bins+=("$2") ;;
	--file) files+=("$2") ;;
	--tree) trees+=("$2") ;;
	*) usage ;;
	esac
	shift 2
done
[ -n "$script" ] || die "--script is required"
[ -f "$script" ] || die "no such test script: $script"

# busybox-static's binary; a dynamically linked busybox would need its libc too.
busybox=${BUSYBOX:-/bin/busybox}
[ -x "$busybox" ] || die "no $busybox (install busybox-static)"
if ldd "$busybox" >/dev/null 2>&1; then
	die "$busybox is dynamically linked; install busybox-static"
fi

root=$(mktemp -d "${TMPDIR:-/tmp}/indigo-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
# mktemp made it 0700: it becomes the guest's /, which nobody must traverse.
chmod 0755 "$root"

# Real directories rather than the host's merged-/usr links: simpler, and the
# loader finds libraries in /lib/x86_64-linux-gnu either way.
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib/modules,lib64,etc,dev,proc,sys,tmp,run,root,mnt}
chmod 1777 "$root/tmp"
cp "$busybox" "$root/bin/busybox"
# Applet links at the paths busybox itself reports (bin/sh, sbin/insmod, ...).
# One perl process instead of ~270 ln calls keeps the build fast.
"$busybox" --list-full | (cd "$root" && perl -nle 'symlink("/bin/busybox", $_) or die "$_: $!" unless -e $_ or -l $_')

# Copies FILE to the same path inside the image (once), following links.
copy_same_path() {
	[ -e "$root$1" ] && return 0
	mkdir -p "$root$(dirname "$1")"
	cp -L "$1" "$root$1"
}

# Installs a program as DEST (default /bin/<name>) together with the
# libraries it loads. ldd fails for static binaries and scripts: those need
# nothing more.
add_bin() {
	local src=$1 dest=${2:-} lib libs
	case "$src" in
	*/*) ;;
	*) src=$(command -v "$src") || die "program not found in PATH: $1" ;;
	esac
	[ -f "$src" ] || die "no such program: $src"
	[ -n "$dest" ] || dest=/bin/$(basename "$src")
	mkdir -p "$root$(dirname "$dest")"
	# rm first: DEST may be a busybox link, and cp would write through it.
	rm -f "$root$dest"
	cp -L "$src" "$root$dest"
	chmod 0755 "$root$dest"
	libs=$(ldd "$src" 2>/dev/null) || return 0
	if grep -q 'not found' <<<"$libs"; then
		die "$src needs libraries that are missing here: $(grep 'not found' <<<"$libs" | tr -s '\t\n' ' ')"
	fi
	# "libx.so => /path (addr)" and the loader's bare "/lib64/ld-... (addr)".
	while read -r lib; do
		copy_same_path "$lib"
	done < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$libs")
}

# every guest gets the shared helpers of tests/guest (scripts: no libraries)
install -m 0755 "$(dirname "$0")/numa-fast.sh" "$root/bin/numa-fast"
for b in "${bins[@]}"; do
	case "$b" in
	*:*) add_bin "${b%%:*}" "${b#*:}" ;;
	*) add_bin "$b" ;;
	esac
done

for ko in "${kos[@]}"; do
	[ -f "$ko" ] || die "no such module: $ko"
	cp "$ko" "$root/lib/modules/"
done

for spec in "${files[@]}"; do
	src=${spec%%:*}
	dest=${spec#*:}
	if [ "$src" = "$spec" ] || [ -z "$src" ]; then
		die "--file wants SRC:DEST, got: $spec"
	fi
	case "$dest" in /*) ;; *) die "--file DEST must be absolute: $spec" ;; esac
	[ -e "$src" ] || die "no such file: $src"
	case "$dest" in
	*/) mkdir -p "$root$dest" ;;
	*) mkdir -p "$root$(dirname "$dest")"; rm -f "$root$dest" ;;    # not through a link
	esac
	cp -a -L "$src" "$root$dest"
done

for tree in "${trees[@]}"; do
	[ -d "$tree" ] || die "no such directory: $tree"
	cp -a "$tree/." "$root/"
done
# a tree's top (a mktemp directory, say) must not make / private
chmod 0755 "$root"

cp "$script" "$root/test.sh"
chmod 0755 "$root/test.sh"

# nobody gets a real shell so "su nobody -c CMD" works without -s.
cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/sh
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
cat >"$root/etc/hosts" <<'EOF'
127.0.0.1	localhost
::1	localhost
EOF
printf 'passwd: files\ngroup: files\nhosts: files\n' >"$root/etc/nsswitch.conf"

# systemd as PID 1: its programs, and the units a boot to a service needs.
add_systemd() {
	local p u
	for p in /lib/systemd/systemd /lib/systemd/systemd-journald \
		/lib/systemd/systemd-modules-load /bin/systemctl /bin/journalctl; do
		add_bin "$p" "$p"
	done
	mkdir -p "$root/lib/systemd/system" "$root/etc/systemd/system/sockets.target.wants" \
		"$root/etc/systemd/system/sysinit.target.wants" \
		"$root/etc/systemd/system/multi-user.target.wants" \
		"$root"/var/{lib,log,tmp} "$root/home"
	chmod 1777 "$root/var/tmp"
	cp /lib/systemd/system/*.target /lib/systemd/system/*.slice "$root/lib/systemd/system/"
	for u in systemd-journald.service systemd-journald.socket \
		systemd-journald-dev-log.socket systemd-modules-load.service; do
		cp "/lib/systemd/system/$u" "$root/lib/systemd/system/"
	done
	for u in systemd-journald.socket systemd-journald-dev-log.socket; do
		ln -s "/lib/systemd/system/$u" "$root/etc/systemd/system/sockets.target.wants/$u"
	done
	ln -s /lib/systemd/system/systemd-modules-load.service \
		"$root/etc/systemd/system/sysinit.target.wants/systemd-modules-load.service"
	ln -s /etc/systemd/system/indigo-test.service \
		"$root/etc/systemd/system/multi-user.target.wants/indigo-test.service"
	[ ! -f /usr/lib/os-release ] || copy_same_path /usr/lib/os-release
	cat >"$root/etc/systemd/system/indigo-test.service" <<'EOF'
# The guest's test, in the boot to multi-user.target.
[Unit]
Description=INDIGO guest test
Requires=basic.target
After=basic.target systemd-journald.socket

[Service]
Type=oneshot
StandardOutput=tty
StandardError=tty
TTYPath=/dev/console
Environment=PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root
ExecStart=/bin/indigo-run-test

[Install]
WantedBy=multi-user.target
EOF
}
[ "$systemd" = 0 ] || add_systemd

# A loader cache for the copied libraries, so lookups never depend on where the
# host's ldd happened to find them.
if { [ ${#bins[@]} -gt 0 ] || [ "$systemd" = 1 ]; } && command -v ldconfig >/dev/null; then
	printf '/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n/lib\n/usr/lib\n' >"$root/etc/ld.so.conf"
	ldconfig -r "$root" 2>/dev/null || true
fi

# Runs /test.sh, reports its status on the console and powers off: the end of
# the busybox /init, or systemd's indigo-test.service.
cat >"$root/bin/indigo-run-test" <<'EOF'
#!/bin/sh
cd /
# from here on, what goes wrong is the test's (run-guest.sh retries a boot
# that died before this line)
echo "INDIGO-GUEST-START"
sh /test.sh
rc=$?

# The console loglevel may hide warnings; repeat any kernel problem the ring
# buffer holds so the host-side judge sees it.
dmesg | grep -E 'Oops|BUG:|WARNING:|Kernel panic|general protection fault|Call Trace|kernel BUG|UBSAN|KASAN|list_add corruption|refcount_t:' |
	sed 's/^/INDIGO-DMESG: /'
echo "INDIGO-GUEST-EXIT rc=$rc"
sync
poweroff -f
echo o >/proc/sysrq-trigger
sleep 1000000
EOF
chmod 0755 "$root/bin/indigo-run-test"

if [ "$systemd" = 1 ]; then
	cat >"$root/init" <<'EOF'
#!/bin/sh
# PID 1 of an INDIGO test guest booting systemd: systemd mounts what it needs
# and starts the unit the command line names.
exec /lib/systemd/systemd
EOF
else
	cat >"$root/init" <<'EOF'
#!/bin/sh
# PID 1 of an INDIGO test guest: set up the usual filesystems, run /test.sh,
# report its status on the console, power off. Never exits (PID 1 must not).
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# The kernel may have found no /dev/console before devtmpfs was mounted.
exec </dev/console >/dev/console 2>&1
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
mount -t tmpfs tmpfs /tmp
ip link set lo up
hostname indigo-guest
exec indigo-run-test
EOF
fi
chmod 0755 "$root/init"

# The initial console, for the kernel to open before /init runs (needs root;
# without it /init reopens /dev/console from devtmpfs).
mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true

mkdir -p "$(dirname "$out")"
(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null --create --format=newc --owner=0:0 --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
