#!/bin/sh
# Runs inside the guest (see faultpath.sh): the same hinting-fault-heavy
# workload with and without indigo.ko, alternating, in one boot.
KO=/lib/modules/indigo.ko
ROUNDS=${ROUNDS:-7}
SECS=${SECS:-5}
PAGES=${PAGES:-4096}

numa-fast 100 100 256

hint_faults() { awk '$1 == "numa_hint_faults" { print $2 }' /proc/vmstat; }

run() {
	f0=$(hint_faults)
	out=$(farmem --bind-far --pages "$PAGES" --hot "$PAGES" --seconds "$SECS" | tail -n 1)
	f1=$(hint_faults)
	echo "BENCH config=$1 round=$2 $out faults=$((f1 - f0))"
}

r=1
while [ $r -le "$ROUNDS" ]; do
	run without $r
	insmod $KO || { echo "FAIL insmod"; exit 1; }
	indigoctl policy set mode=gate rate_min_mhz=1000 >/dev/null
	run with $r
	grep -E '^(tracked_pages|table_bytes|bytes_per_page|probe_missed)' /sys/kernel/debug/indigo/stats
	rmmod indigo
	r=$((r + 1))
done
echo "PASS bench-ran"
