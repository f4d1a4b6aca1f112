#!/bin/sh
# In the guest (tools/bench/ingest.sh): the module's synthetic candidates
# into the agent's netlink path, paced by chunks, then all at once into a
# small buffer.
insmod /lib/modules/indigo.ko || exit 1
# the parser alone, emulated: how much slower the guest runs this code
echo "NATIVE $(ingest native 4000000)"
for chunk in 16384 131072; do
	for round in 1 2 3; do
		echo "BENCH round=$round $(ingest module 1000000 $chunk)"
	done
done
# overload: all at once into a 64 KiB buffer; what is lost must be counted
echo "BENCH round=1 $(ingest module 200000 200000 65536)"
grep emit_failed /sys/kernel/debug/indigo/stats
rmmod indigo && echo "PASS ingest"
