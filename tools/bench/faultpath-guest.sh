#!/bin/sh
# Runs inside the guest (see faultpath.sh): the same hinting-fault-heavy
# workload without indigo.ko, with it, and with it loaded marks=0 (no probe
# on the NUMA scanner: what README's "Known problems" advises on 6.1),
# alternating, in one boot.
KO=/lib/modules/indigo.ko
ROUNDS=${ROUNDS:-7}
SECS=${SECS:-5}
PAGES=${PAGES:-4096}

numa-fast 100 100 256

hint_faults() { awk '$1 == "numa_hint_faults" { print $2 }' /proc/vmstat; }

run() {
	f0=$(hint_faults)
	# a failed run is no figure: faultpath.sh would divide by what is missing
	if ! out=$(farmem --bind-far --pages "$PAGES" --hot "$PAGES" --seconds "$SECS"); then
		echo "FAIL farmem ($1, round $2): $out"
		exit 1
	fi
	out=$(echo "$out" | tail -n 1)
	f1=$(hint_faults)
	echo "BENCH config=$1 round=$2 $out faults=$((f1 - f0))"
}

r=1
while [ $r -le "$ROUNDS" ]; do
	run without $r
	for marks in 1 0; do
		insmod $KO marks=$marks || { echo "FAIL insmod marks=$marks"; exit 1; }
		indigoctl policy set mode=gate rate_min_mhz=1000 >/dev/null
		run "$([ $marks = 1 ] && echo with || echo marks0)" $r
		grep -E '^(tracked_pages|table_bytes|bytes_per_page|probe_missed)' /sys/kernel/debug/indigo/stats
		rmmod indigo
	done
	r=$((r + 1))
done
echo "PASS bench-ran"
