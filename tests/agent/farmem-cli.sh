#!/usr/bin/env bash
# farmem's arguments: numbers are whole decimal numbers, or the run is
# refused (exit 2, the usage line); atol took "node1" for node 0 (the near
# node) and "1.5" seconds for 1, a run that measured something else.
#
# Usage: farmem-cli.sh PATH/TO/farmem
set -euo pipefail

fm=${1:?usage: farmem-cli.sh FARMEM}
. "$(dirname "$0")/lib.sh"
err=$dir/err

for bad in "--far node1" "--far 64" "--seconds 1.5" "--pages 4k" "--hot=" \
	"--cold-ms -5" "--pages 0" "--hot 3" "stray"; do
	# shellcheck disable=SC2086 # each case is several words
	timeout 10 "$fm" --pages 2 --hot 1 --seconds 0 $bad >/dev/null 2>"$err" &&
		rc=0 || rc=$?
	[ "$rc" = 2 ] && grep -q '^usage: farmem' "$err" && pass "refuses '$bad'" ||
		fail "refuses '$bad'" "exit $rc: $(cat "$err")"
done
# the good ones still run (node 0 is there wherever NUMA is)
if out=$(timeout 10 "$fm" --pages 2 --hot 1 --seconds 0 --far 0 2>"$err"); then
	echo "$out" | grep -q '^farmem hot=1 .* cold=1 ' && pass runs ||
		fail runs "$out"
elif grep -q 'no NUMA node' "$err"; then
	echo "SKIP runs (no NUMA here)"
else
	fail runs "$(cat "$err")"
fi
# a --progress file it cannot write is refused at the start, where the
# run went on without a word and the reward that reads it had nothing
if timeout 10 "$fm" --pages 2 --hot 1 --seconds 0 --far 0 \
	--progress "$dir/none/progress" >/dev/null 2>"$err"; then
	fail progress-unwritable "exit 0"
elif grep -q 'no NUMA node' "$err"; then
	echo "SKIP progress-unwritable (no NUMA here)"
else
	grep -q "^farmem: --progress $dir/none/progress: No such file" "$err" &&
		pass progress-unwritable || fail progress-unwritable "$(cat "$err")"
fi

echo "farmem: $failed failed"
exit $failed
