#!/bin/sh
# In the guest (tools/bench/ingest.sh): the module's synthetic candidates
# into the agent's netlink path, paced by chunks, then all at once into a
# small buffer.
insmod /lib/modules/indigo.ko || exit 1
failed=0
# bench ROUND EVENTS CHUNK [RCVBUF]: one run's BENCH line; a run that
# failed, or lost events it did not count (ingest exits 1), fails the
# benchmark: its figures are no measurement, or miss the goal
bench() {
	r=$1
	shift
	out=$(ingest module "$@") || {
		echo "FAIL ingest module $* (round $r): ${out:-no figures}"
		failed=1
	}
	echo "BENCH round=$r $out"
}
# the parser alone, emulated: how much slower the guest runs this code
echo "NATIVE $(ingest native 4000000)"
for chunk in 16384 131072; do
	for round in 1 2 3; do
		bench $round 1000000 $chunk
	done
done
# overload: all at once into a 64 KiB buffer; what is lost must be counted
bench 1 200000 200000 65536
grep emit_failed /sys/kernel/debug/indigo/stats
rmmod indigo && [ $failed = 0 ] && echo "PASS ingest"
exit $failed
