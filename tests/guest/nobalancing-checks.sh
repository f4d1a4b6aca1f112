#!/bin/sh
# In a guest whose kernel has no NUMA balancing (Debian's PREEMPT_RT 6.1:
# NUMA_BALANCING depends on !PREEMPT_RT), run as /test.sh: such a kernel
# takes no hinting faults, so the module must refuse to load, saying why,
# rather than load and watch nothing. One line per check, as kmod-checks.sh.

KO=/lib/modules/indigo.ko
failed=0

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; failed=1; }

echo "guest kernel $(uname -r)"
# the kernel really lacks it, or this proves nothing
[ ! -e /proc/sys/kernel/numa_balancing ] && pass kernel-without-numa-balancing ||
	fail kernel-without-numa-balancing "/proc/sys/kernel/numa_balancing exists"
if insmod $KO 2>/dev/null; then
	fail refuse-without-numa-balancing "loaded"
	rmmod indigo
elif dmesg | tail -n 5 | grep -q "indigo: kernel $(uname -r) has no NUMA balancing"; then
	pass refuse-without-numa-balancing
else
	fail refuse-without-numa-balancing "no message in dmesg: $(dmesg | tail -n 2)"
fi
[ ! -e /sys/kernel/debug/indigo ] && ! grep -q '^indigo ' /proc/modules &&
	pass nothing-left || fail nothing-left "module or debugfs left behind"
exit $failed
