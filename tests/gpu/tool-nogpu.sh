#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build/indigo-gpu without a GPU: one clear line and exit 1 when there is
# no GPU tier, exit 2 on bad usage, and (where the build made the stand-in
# libcuda, $INDIGO_FAKECUDA, which a tool with the backend built in must
# be given) a table and parseable JSON through the real driver backend.
#
#	tests/gpu/tool-nogpu.sh build/indigo-gpu
set -u
tool=${1:?usage: $0 path/to/indigo-gpu}
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"; exit 1; }

# expect STATUS ARGS...: runs the tool, checks its exit status
expect() {
	want=$1; shift
	"$tool" "$@" >"$out" 2>"$err"
	got=$?
	[ "$got" = "$want" ] || fail "indigo-gpu $*: exit $got, wanted $want"
}

expect 1 --set driver=/nonexistent/libcuda.so.1
[ "$(wc -l <"$err")" = 1 ] || fail "no driver: not one line"
grep -Eq '^indigo-gpu: no GPU tier: (no NVIDIA driver: /nonexistent/libcuda.so.1: |GPU backend left out at build time)' "$err" ||
	fail "no driver: unclear message"
[ -s "$out" ] && fail "no driver: wrote to stdout"
grep -q 'no NVIDIA driver' "$err" && backend=1 || backend=0

expect 1 --set enable=no
grep -q 'switched off' "$err" || fail "enable=no: message"

expect 2 --set nodes=slow
grep -q '^indigo-gpu: --set nodes: "slow" is not one of far, fast, ignore$' "$err" ||
	fail "bad value: message"
expect 2 --set nodes
expect 2 --bogus
expect 2 extra-argument
expect 0 --help
grep -q '^usage: indigo-gpu' "$out" || fail "--help"

if [ -n "${INDIGO_FAKECUDA:-}" ] && [ -f "$INDIGO_FAKECUDA" ]; then
	set -- --set driver="$INDIGO_FAKECUDA" --set probe_share=1 \
		--set probe_batch_kib=64 --set probe_reps=2
	expect 0 "$@"
	grep -q '^GPU 0  Fake H200 #0  0000:3b:00.0  141.0 GiB  cc 9.0' "$out" ||
		fail "table: GPU line"
	[ "$(grep -c '^  [hd]2[hd] ' "$out")" = 4 ] || fail "table: 4 copy rows"
	expect 0 "$@" --json
	python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))["gpu"]
assert g["driver_version"] == 12080, g
assert g["gpus"][0]["name"] == "Fake H200 #0", g
assert g["gpus"][0]["link"]["d2h"]["pinned"]["batch_bw"] > 0, g
assert "far" in g["nodes"], g' "$out" || fail "--json"
	# tests/gpu/device-check.sh, which a GPU host runs, over the stand-in:
	# its range checks can fail, and its pacing check times real pauses.
	dc() {
		env OUT="$dcout" GPU_NAME="Fake H200" NOMINAL_GBS=1 LO_FRAC=0.001 \
			LAT_US="0 1000" PACE_S=1 TOOL_ARGS="--set driver=$INDIGO_FAKECUDA \
			--set probe_batch_kib=1024" "$@" tests/gpu/device-check.sh \
			>"$out" 2>"$err"
		echo $?
	}
	dcout=$(mktemp -d)
	trap 'rm -rf "$out" "$err" "$dcout"' EXIT
	[ "$(dc HI_FRAC=1000)" = 0 ] || fail "device-check over the stand-in"
	grep -q '^ok: pacing: ' "$out" || fail "device-check: pacing"
	grep -q '^| 0 Fake H200 #0 | d2h | pageable |' "$dcout/check.md" ||
		fail "device-check: table"
	[ "$(dc HI_FRAC=0.002)" = 1 ] || fail "device-check: out of range passed"
	grep -q '^FAIL: GPU 0 h2d pinned ' "$out" || fail "device-check: range message"
	[ "$(dc GPU_NAME=A100)" = 1 ] || fail "device-check: wrong GPU passed"
	grep -q '^FAIL: no GPU named \*A100\*' "$out" || fail "device-check: name message"
	FAKECUDA_INIT=100 expect 1 "$@"
	grep -q '^indigo-gpu: no GPU tier: cuInit: CUDA_ERROR_NO_DEVICE: ' "$err" ||
		fail "no device: message"
	echo "indigo-gpu over the stand-in libcuda: ok"
elif [ "$backend" = 1 ]; then
	# the build makes the stand-in wherever it builds the backend: a
	# caller that does not pass it leaves the backend's half untested
	echo "FAIL: the driver backend is built in, but INDIGO_FAKECUDA names no stand-in libcuda to run it over"
	exit 1
fi
echo "indigo-gpu without a GPU: ok"
