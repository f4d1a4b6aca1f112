#!/bin/sh
# In the guest (tools/bench/ingest.sh): the module's synthetic candidates
# into the agent's netlink path, paced by chunks, then all at once.
insmod /lib/modules/indigo.ko || exit 1
for chunk in 16384 131072; do
	for round in 1 2 3; do
		echo "BENCH round=$round $(ingest module 1000000 $chunk)"
	done
done
echo "BENCH round=1 $(ingest module 1000000 1000000)"
grep emit_failed /sys/kernel/debug/indigo/stats
rmmod indigo
