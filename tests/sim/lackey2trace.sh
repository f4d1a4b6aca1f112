#!/usr/bin/env bash
# lackey2trace on a hand-made piece of lackey output: instruction lines
# advance the clock, repeated lines hit the cache model, pages get dense ids
# in order of first touch, valgrind's own lines are ignored (a long one
# whole, not as pieces that may look like accesses).
# Then capture.sh with a stand-in valgrind: a failed capture leaves no trace.
set -euo pipefail
bin=$1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# 255 bytes, then what fgets' 256-byte buffer would hand over as a line
long=$(printf '==1== Command: prog %0235d L 30000000,8' 0)
printf '%s\n' '==1== Lackey, an example Valgrind tool' "$long" \
	'I  04000000,3' ' L 10000000,8' 'I  04000003,3' ' L 10000008,8' \
	' S 20000000,4' 'I  04000006,2' 'I  04000008,2' ' M 10000040,4' |
	"$bin" -c 1 "$out" 2>/dev/null
# magic (2 words), version 1, 2 pages, 3 records (u64), reserved (u64),
# then (page, instructions since the last record): (0,1) (1,1) (0,2)
want="1229213257 1381257031 1 2 3 0 0 0 0 1 1 1 0 2"
got=$(od -An -tu4 -v "$out" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')
if [ "$got" != "$want" ]; then
	echo "lackey2trace: got '$got', want '$want'" >&2
	exit 1
fi
# -s 3 skips the first three instructions, their accesses and their time:
# one record, (0,1), one instruction after the skip
printf '%s\n' 'I  04000000,3' ' L 10000000,8' 'I  04000003,3' ' L 10000008,8' \
	' S 20000000,4' 'I  04000006,2' 'I  04000008,2' ' M 10000040,4' |
	"$bin" -c 1 -s 3 "$out" 2>/dev/null
want="1229213257 1381257031 1 1 1 0 0 0 0 1"
got=$(od -An -tu4 -v "$out" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')
if [ "$got" != "$want" ]; then
	echo "lackey2trace -s: got '$got', want '$want'" >&2
	exit 1
fi
# only whole access lines are records: not a last line cut short (valgrind
# killed mid-write: " L 2000" of " L 20000000,8"), a kind of more than one
# letter (" LA" is no address 0xA), an address past 64 bits, or trailing
# junk; one record, (0,1)
printf '%s\n' 'I  04000000,3' ' L 10000000,8' ' LA 30000000,8' \
	' L 123456789abcdef01,8' ' S 40000000,4x' ' M 50000000' ' L ,8' |
	{ cat; printf ' L 2000'; } | "$bin" -c 1 "$out" 2>/dev/null
want="1229213257 1381257031 1 1 1 0 0 0 0 1"
got=$(od -An -tu4 -v "$out" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')
if [ "$got" != "$want" ]; then
	echo "lackey2trace malformed lines: got '$got', want '$want'" >&2
	exit 1
fi
# nothing to reduce is an error
if printf 'I  04000000,3\n' | "$bin" "$out" 2>/dev/null; then
	echo "lackey2trace: an empty trace was accepted" >&2
	exit 1
fi
# option values are whole numbers in range, not strtoull's best guess
for o in "-s five" "-m 1x" "-m -1" "-c 18014398509481984"; do
	if printf ' L 10000000,8\n' | "$bin" $o "$out" 2>/dev/null; then
		echo "lackey2trace: $o accepted" >&2
		exit 1
	fi
done
# capture.sh keeps a trace only where the filter made one: a filter that
# refused its input (valgrind failed to start, so no records) leaves no
# file that make sim-traces would take for a capture. A stand-in valgrind
# prints FAKE_LACKEY's lines on the log's fd, or nothing.
capture=$(dirname "$0")/../../tools/sim/capture.sh
fake=$(mktemp -d)
trap 'rm -f "$out"; rm -rf "$fake"' EXIT
printf '#!/bin/sh\nprintf "%%b" "${FAKE_LACKEY:-}" >&3\n' >"$fake/valgrind"
chmod +x "$fake/valgrind"
if PATH=$fake:$PATH CAPTURE_SECONDS=10 "$capture" "$bin" "$fake/t" xz \
	>/dev/null 2>&1; then
	echo "capture.sh: a capture without records succeeded" >&2
	exit 1
fi
if [ -n "$(ls "$fake/t")" ]; then
	echo "capture.sh: a capture without records left $(ls "$fake/t")" >&2
	exit 1
fi
FAKE_LACKEY='I  04000000,3\n L 10000000,8\n' PATH=$fake:$PATH CAPTURE_SECONDS=10 \
	"$capture" "$bin" "$fake/t" xz >/dev/null 2>&1 ||
	{ echo "capture.sh: a capture with a record failed" >&2; exit 1; }
test "$(wc -c <"$fake/t/xz.trace")" -eq 40 ||
	{ echo "capture.sh: xz.trace is not one record" >&2; exit 1; }
# a redis server already on the capture's port would serve the benchmark
# in the traced one's stead: refused, naming the port
printf '#!/bin/sh\necho PONG\n' >"$fake/redis-cli"
chmod +x "$fake/redis-cli"
if PATH=$fake:$PATH CAPTURE_SECONDS=10 "$capture" "$bin" "$fake/r" redis \
	2>"$fake/err" >/dev/null; then
	echo "capture.sh: redis captured beside a server on its port" >&2
	exit 1
fi
grep -q 'port 6399 is taken' "$fake/err" ||
	{ echo "capture.sh: redis: $(cat "$fake/err")" >&2; exit 1; }
echo "lackey2trace: ok"
