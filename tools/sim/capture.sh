#!/usr/bin/env bash
# Captures page traces of real programs from Debian's packages under
# valgrind's lackey, reduced on the fly by lackey2trace (see its header):
#
#   tools/sim/capture.sh LACKEY2TRACE OUTDIR [PROGRAM...]
#
# PROGRAM is any of sqlite, redis, xz (default: all three). Each runs for
# at most CAPTURE_SECONDS (default 540) of lackey time, or until it has
# CAPTURE_RECORDS records (default 4000000); lackey runs programs about
# a hundred times slower than native, so these are short runs.
#   sqlite  sqlite3 on a 300,000-row table (17 MB, built natively first,
#           outside the trace), read through mmap so that its page accesses
#           are the program's own loads: point lookups by key, index range
#           scans and range aggregates, in random order
#   redis   redis-server (no persistence) under redis-benchmark, looping
#           from the moment the server answers until the time is up: SET
#           and GET of 512-byte values over 200,000 random keys, 4 clients
#           (the trace includes the server's start-up)
#   xz      xz -6 (one thread) compressing 30 MB of generated text
set -euo pipefail

filter=$(realpath "$1")
out=$2
shift 2
progs=("$@")
[ ${#progs[@]} -gt 0 ] || progs=(sqlite redis xz)
secs=${CAPTURE_SECONDS:-540}
recs=${CAPTURE_RECORDS:-4000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# valgrind's log (the trace) goes to fd 3, which is the filter's stdin; the
# trace appears under its name only once complete
lackey() {
	local name=$1 part=$out/$1.trace.part
	shift
	# the run is cut short on purpose, so valgrind's status is no verdict;
	# the filter's is: a file it refused (no records, a write error) holds
	# only a header, which `make sim-traces` would take for a capture and
	# never redo
	if { timeout -s INT "$secs" valgrind --tool=lackey --trace-mem=yes --log-fd=3 "$@" \
		3>&1 >/dev/null 2>&1 || true; } | "$filter" -m "$recs" "$part"; then
		mv "$part" "$out/$name.trace"
	else
		rm -f "$part"
		echo "capture: $name: no trace" >&2
		return 1
	fi
}

cap_sqlite() {
	local db=$work/t.db
	awk 'BEGIN { srand(7); print "BEGIN;";
		print "CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT);";
		for (i = 0; i < 300000; i++)
			printf "INSERT INTO t VALUES(%d, %d, \"%s-%d\");\n", i,
				int(rand() * 1e9), "payload-payload-payload", i;
		print "CREATE INDEX tk ON t(k);"; print "COMMIT;" }' | sqlite3 "$db"
	awk 'BEGIN { srand(11); print "PRAGMA mmap_size=268435456;";
		for (i = 0; i < 40000; i++) {
			r = rand();
			if (r < 0.60)
				printf "SELECT v FROM t WHERE id=%d;\n", int(rand() * 300000);
			else if (r < 0.95)
				printf "SELECT count(*), max(v) FROM t WHERE k BETWEEN %d AND %d;\n", x = int(rand() * 1e9), x + 5000000;
			else
				printf "SELECT sum(length(v)) FROM t WHERE id BETWEEN %d AND %d;\n", x = int(rand() * 280000), x + 20000;
		} }' >"$work/q.sql"
	lackey sqlite sqlite3 "$db" ".read $work/q.sql"
}

cap_redis() {
	local port=6399 cap load
	# a server already there would answer the benchmark in its stead
	if redis-cli -p $port ping >/dev/null 2>&1; then
		echo "capture: redis: port $port is taken by another server" >&2
		return 1
	fi
	( lackey redis redis-server --port $port --save '' --appendonly no ) &
	cap=$!
	# start-up under lackey takes a while; the load then runs until the
	# capture's time is up
	until redis-cli -p $port ping >/dev/null 2>&1; do
		kill -0 "$cap" 2>/dev/null || break
		sleep 1
	done
	redis-benchmark -p $port -r 200000 -d 512 -t set,get -c 4 -q -l >/dev/null 2>&1 &
	load=$!
	wait "$cap" || true
	kill "$load" 2>/dev/null || true
	wait "$load" 2>/dev/null || true
	[ -s "$out/redis.trace" ]
}

cap_xz() {
	seq 1 1900000 | awk '{ printf "%d %s %d\n", ($1 * 7919) % 1000003, "row", $1 % 977 }' \
		>"$work/in.txt"
	lackey xz xz -6 -T1 -c "$work/in.txt"
}

for p in "${progs[@]}"; do
	echo "capture: $p (up to ${secs}s or $recs records)"
	"cap_$p"
done
