#!/bin/sh
# Installed in every test guest as /bin/numa-fast: switches NUMA balancing on
# and makes it scan fast enough that a test takes seconds, not minutes.
# Usage: numa-fast [PERIOD_MIN_MS [PERIOD_MAX_MS [SCAN_SIZE_MB]]]
# The knobs live in debugfs since 5.x; older kernels had them as sysctls.
echo 1 >/proc/sys/kernel/numa_balancing
for d in /sys/kernel/debug/sched/numa_balancing /proc/sys/kernel; do
	for k in scan_delay_ms:50 scan_period_min_ms:"${1:-100}" \
		scan_period_max_ms:"${2:-400}" scan_size_mb:"${3:-64}"; do
		f=$d/${k%%:*}
		[ -e "$f" ] || f=$d/numa_balancing_${k%%:*}
		if [ -e "$f" ]; then echo "${k#*:}" >"$f"; fi
	done
done
