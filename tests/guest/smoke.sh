#!/usr/bin/env bash
# Self-test of the guest pipeline (kernels.sh, mkinitramfs.sh, run-guest.sh).
# For each guest kernel: builds a hello-world module against its headers, boots
# a guest that loads and unloads it, checks the NUMA layout (node 1 CPU-less
# but with memory), runs dynamically linked Debian programs, drops privileges
# to nobody, and checks that the fault-path functions INDIGO hooks can carry
# kprobes and kretprobes. Prints each boot's time at the end.
#
# Usage: smoke.sh [--negative] [6.1|6.12]
#   --negative  also prove the harness can fail, on the first kernel: a FAIL
#               line, a kernel WARNING (module doing WARN_ON(1)) and a hung
#               guest must each make run-guest.sh exit 1 (three more boots)
#
# Logs stay in $SMOKE_DIR (default: a new /tmp directory, printed).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
negative=0
which=
for a in "$@"; do
	case "$a" in
	--negative) negative=1 ;;
	6.1 | 6.12) which=$a ;;
	*) sed -n '9,12s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done

work=${SMOKE_DIR:-$(mktemp -d /tmp/indigo-smoke.XXXXXX)}
mkdir -p "$work"
echo "smoke: work directory $work"

mapfile -t kernels < <("$here/kernels.sh" ${which:+"$which"})

# Hook points named in shared/reference/kernel-facts.md, per kernel series.
syms_6_1="numa_migrate_prep mpol_misplaced task_numa_fault change_prot_numa migrate_misplaced_page handle_mm_fault"
syms_6_12="numa_migrate_check mpol_misplaced task_numa_fault change_prot_numa migrate_misplaced_folio handle_mm_fault"

# Writes a module source tree: hello (loads quietly) or warn (WARN_ON(1) on load).
make_module() {
	local dir=$1 name=$2 body
	mkdir -p "$dir"
	case "$name" in
	hello) body='pr_info("hello: loaded\n");' ;;
	warn) body='WARN_ON(1);' ;;
	esac
	cat >"$dir/$name.c" <<EOF
#include <linux/init.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/bug.h>

static int __init ${name}_init(void)
{
	$body
	return 0;
}

static void __exit ${name}_exit(void)
{
	pr_info("$name: unloaded\n");
}

module_init(${name}_init);
module_exit(${name}_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("INDIGO guest harness self-test");
EOF
	echo "obj-m := $name.o" >"$dir/Kbuild"
}

build_module() {
	local kdir=$1 dir=$2
	make -s -C "$kdir" M="$dir" modules >"$dir/build.log" 2>&1 ||
		{ cat "$dir/build.log" >&2; echo "smoke: module build failed in $dir" >&2; exit 1; }
}

# The guest side of the positive test.
write_test() {
	cat >"$1" <<EOF
#!/bin/sh
syms="\$(case "\$(uname -r)" in 6.1.*) echo "$syms_6_1" ;; *) echo "$syms_6_12" ;; esac)"
EOF
	cat >>"$1" <<'EOF'
ok() { echo "PASS $1"; }
bad() { echo "FAIL $1: $2"; }

echo "guest: $(uname -r), up $(cut -d' ' -f1 /proc/uptime)s at test start"

if insmod /lib/modules/hello.ko; then ok insmod; else bad insmod "insmod failed"; fi
if dmesg | grep -q 'hello: loaded'; then ok hello-printk; else bad hello-printk "no message"; fi
if rmmod hello; then ok rmmod; else bad rmmod "rmmod failed"; fi

n=/sys/devices/system/node
[ "$(cat $n/online)" = 0-1 ] && ok two-nodes || bad two-nodes "online nodes: $(cat $n/online)"
cpus=$(cat $n/node1/cpulist)
[ -z "$cpus" ] && ok node1-cpuless || bad node1-cpuless "node1 cpulist is '$cpus'"
mem=$(awk '/MemTotal/ { print $4 }' $n/node1/meminfo)
[ "${mem:-0}" -gt 0 ] && ok node1-memory || bad node1-memory "node1 MemTotal '$mem'"
echo "guest: node0 MemTotal $(awk '/MemTotal/ { print $4 }' $n/node0/meminfo) kB, node1 $mem kB"
bal=$(cat /proc/sys/kernel/numa_balancing 2>/dev/null || echo missing)
echo "guest: kernel.numa_balancing=$bal"
[ "$bal" != missing ] && ok numa-balancing-sysctl || bad numa-balancing-sysctl "no /proc/sys/kernel/numa_balancing"

# Dynamically linked Debian programs with their libraries.
numactl --hardware >/tmp/numactl.out 2>&1 && grep -q 'available: 2 nodes' /tmp/numactl.out &&
	ok numactl || bad numactl "$(head -n 1 /tmp/numactl.out)"
redis-server --port 6379 --save '' --daemonize yes --logfile /tmp/redis.log >/dev/null 2>&1
pong=
for _ in 1 2 3 4 5 6 7 8 9 10; do
	pong=$(redis-cli -p 6379 ping 2>/dev/null) && [ "$pong" = PONG ] && break
	sleep 1
done
[ "$pong" = PONG ] && ok redis || bad redis "no PONG ($(tail -n 1 /tmp/redis.log 2>/dev/null))"
redis-cli -p 6379 shutdown nosave >/dev/null 2>&1

uid=$(su nobody -c 'id -u' 2>&1)
[ "$uid" = 65534 ] && ok su-nobody || bad su-nobody "got '$uid'"

# Hook points: listed for ftrace, and a kprobe plus a kretprobe register on each.
t=/sys/kernel/tracing
[ -f $t/available_filter_functions ] || t=/sys/kernel/debug/tracing
for s in $syms do_numa_page; do
	if grep -q "^$s\$" $t/available_filter_functions; then
		echo "guest: symbol $s: in available_filter_functions"
	else
		echo "guest: symbol $s: NOT in available_filter_functions"
	fi
done
for s in $syms; do
	if echo "p:indigo_p $s" >>$t/kprobe_events && echo "r:indigo_r $s" >>$t/kprobe_events; then
		ok "kprobe-$s"
	else
		bad "kprobe-$s" "cannot place a kprobe and a kretprobe"
	fi
	echo '-:indigo_p' >>$t/kprobe_events 2>/dev/null
	echo '-:indigo_r' >>$t/kprobe_events 2>/dev/null
done
exit 0
EOF
}

# Runs one guest; records its wall time. Returns run-guest.sh's status.
times=()
run() {
	local tag=$1 vmlinuz=$2 initrd=$3 t0 rc=0
	shift 3
	t0=$(date +%s.%N)
	"$here/run-guest.sh" --kernel "$vmlinuz" --initrd "$initrd" --log "$work/$tag.log" "$@" || rc=$?
	times+=("$tag $(awk -v s="$t0" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')s")
	return "$rc"
}

failures=0
for line in "${kernels[@]}"; do
	read -r rel vmlinuz kdir <<<"$line"
	echo "smoke: === $rel"
	mod=$work/$rel/hello
	make_module "$mod" hello
	build_module "$kdir" "$mod"
	write_test "$work/$rel/test.sh"
	t0=$(date +%s.%N)
	"$here/mkinitramfs.sh" "$work/$rel/initrd.cpio.gz" --script "$work/$rel/test.sh" \
		--ko "$mod/hello.ko" --bin numactl --bin redis-server --bin redis-cli
	echo "smoke: initramfs built in $(awk -v s="$t0" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')s"
	run "$rel" "$vmlinuz" "$work/$rel/initrd.cpio.gz" --timeout 300 || failures=$((failures + 1))
	grep '^guest: symbol' "$work/$rel.log" | sed "s/^guest:/smoke: $rel/"
done

# Expects run-guest.sh to fail, and its summary line to contain $2.
expect_fail() {
	local tag=$1 want=$2
	shift 2
	if run "$tag" "$@" >"$work/$tag.out" 2>&1; then
		echo "smoke: NEGATIVE $tag: run-guest.sh passed but should have failed"
		failures=$((failures + 1))
	elif ! grep -q -- "$want" "$work/$tag.out"; then
		echo "smoke: NEGATIVE $tag: failed, but without '$want':"
		tail -n 5 "$work/$tag.out"
		failures=$((failures + 1))
	else
		echo "smoke: NEGATIVE $tag: run-guest.sh failed as it should: $(grep 'run-guest: FAIL' "$work/$tag.out" | head -n 1)"
		echo "smoke: NEGATIVE $tag: $(tail -n 1 "$work/$tag.out")"
	fi
}

if [ "$negative" = 1 ]; then
	read -r rel vmlinuz kdir <<<"${kernels[0]}"
	echo "smoke: === negative checks on $rel"
	neg=$work/negative
	mkdir -p "$neg"
	printf 'echo PASS a\necho "FAIL x: y"\nexit 1\n' >"$neg/fail.sh"
	"$here/mkinitramfs.sh" "$neg/fail.cpio.gz" --script "$neg/fail.sh"
	expect_fail neg-fail-line "FAIL x: y" "$vmlinuz" "$neg/fail.cpio.gz" --timeout 120
	grep -q '^1 passed, 1 failed$' "$work/neg-fail-line.out" ||
		{ echo "smoke: NEGATIVE neg-fail-line: wrong count line"; failures=$((failures + 1)); }

	make_module "$neg/warn" warn
	build_module "$kdir" "$neg/warn"
	printf 'insmod /lib/modules/warn.ko && echo PASS insmod-warn\nrmmod warn\n' >"$neg/warn.sh"
	"$here/mkinitramfs.sh" "$neg/warn.cpio.gz" --script "$neg/warn.sh" --ko "$neg/warn/warn.ko"
	expect_fail neg-warn "kernel problem" "$vmlinuz" "$neg/warn.cpio.gz" --timeout 120
	grep -q 'kernel problem on the console: .*WARNING:' "$work/neg-warn.out" ||
		{ echo "smoke: NEGATIVE neg-warn: WARNING not named"; failures=$((failures + 1)); }

	printf 'echo PASS before-hang\nsleep 100000\n' >"$neg/hang.sh"
	"$here/mkinitramfs.sh" "$neg/hang.cpio.gz" --script "$neg/hang.sh"
	expect_fail neg-timeout "timed out" "$vmlinuz" "$neg/hang.cpio.gz" --timeout 25 --quiet
	grep -q '^1 passed, 1 failed$' "$work/neg-timeout.out" ||
		{ echo "smoke: NEGATIVE neg-timeout: wrong count line"; failures=$((failures + 1)); }
fi

echo "smoke: boot times (QEMU start to exit, TCG):"
for t in "${times[@]}"; do
	echo "smoke:   $t"
done
if [ "$failures" -gt 0 ]; then
	echo "smoke: FAILED ($failures)"
	exit 1
fi
echo "smoke: OK"
