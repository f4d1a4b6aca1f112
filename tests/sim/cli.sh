#!/usr/bin/env bash
# indigo-sim end to end on tiny inputs: gen, run (every policy and the
# oracle), train then a warm start, table; and its refusals.
set -euo pipefail
sim=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "cli: $*" >&2; exit 1; }

"$sim" gen phase "$dir/p.trace" -p 512 -n 40000 -s 3
# every policy the usage lists runs (the list is the plug-ins' own names:
# bandit-progress was missing from a hand-written one)
pols=$("$sim" 2>&1 | sed -n 's/.*; policies: //p' || true)
for want in tpp bandit bandit-progress oracle; do
	case " $pols " in *" $want "*) ;; *) fail "usage lists no $want: $pols" ;; esac
done
for p in $pols; do
	out=$("$sim" run "$dir/p.trace" -P "$p" -a 5 -f 0.25 -c 0.5 -S 0.2 -E 1)
	case "$out" in "$p: stall "*", accesses 40000 "*) ;; *) fail "run $p: $out" ;; esac
done
"$sim" train "$dir/p.trace" "$dir/m.model" -S 0.2 -E 1 >/dev/null
test -s "$dir/m.model" || fail "train wrote no model"
"$sim" run "$dir/p.trace" -P bandit -m "$dir/m.model" -S 0.2 -E 1 >/dev/null
# a real trace whose file name holds CSV's and Markdown's separators
cp "$dir/p.trace" "$dir/a,b|c.trace"
"$sim" table "$dir" -p 512 -n 20000 -R 1 "$dir/a,b|c.trace" 2>/dev/null
for f in sim.md sim.csv sim-stall.dat sim-phase.dat; do
	test -s "$dir/$f" || fail "table wrote no $f"
done
grep -q '^## Goals' "$dir/sim.md" || fail "sim.md has no goals"
# header + 5 workloads x 2 fractions x 2 contentions x 9 rows, and the
# online bound's row for gups, zipf and phase; 11 fields each
test "$(wc -l <"$dir/sim.csv")" -eq 193 || fail "sim.csv: $(wc -l <"$dir/sim.csv") lines"
awk -F, 'NF != 11 { exit 1 }' "$dir/sim.csv" || fail "sim.csv: a row without 11 fields"
test "$(grep -c ',online-bound,' "$dir/sim.csv")" -eq 12 || fail "sim.csv: online bound rows"
if grep -q '^stream,.*,online-bound,' "$dir/sim.csv"; then fail "sim.csv: a bound for stream"; fi
grep -q '^| 25 % | \*\*out of reach for every policy\*\* |' "$dir/sim.md" ||
	fail "sim.md: no verdict of the online bound"
if grep -q '^|.*b|c' "$dir/sim.md"; then fail "sim.md: a workload name splits its cell"; fi
# a real trace whose pages are touched 1.3 s apart, past TPP's hot threshold:
# TPP promotes nothing, and the bandit's promotions over TPP's have no value
# (n/a), where they read 0.00, as if the bandit had promoted nothing
{
	printf 'INDIGOTR\1\0\0\0\4\0\0\0\310\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'
	for i in $(seq 0 199); do printf "\\$((i % 4))\0\0\0\377\377\377\377"; done
} >"$dir/slow.trace"
mkdir "$dir/slow"
"$sim" table "$dir/slow" -p 512 -n 20000 -R 1 "$dir/slow.trace" 2>/dev/null
grep -q '^slow,0.25,0.50,tpp,.*,0,0,' "$dir/slow/sim.csv" ||
	fail "slow trace: TPP promoted: $(grep '^slow,0.25,0.50,tpp' "$dir/slow/sim.csv")"
row=$(grep -m1 '^| 25 % | slow (real) |' "$dir/slow/sim.md")
case "$row" in *"| n/a |"*) ;; *) fail "slow trace's goals row: $row" ;; esac
# refusals
if "$sim" run "$dir/p.trace" -P nosuch 2>/dev/null; then fail "unknown policy accepted"; fi
if "$sim" run "$dir/p.trace" -f 0 2>/dev/null; then fail "local fraction 0 accepted"; fi
# INDIGO's rate cap share (indigod's policy.rate_cap_share): (0, 1]
if err=$("$sim" run "$dir/p.trace" -P bandit -C 1.5 -S 0.2 -E 1 2>&1); then fail "cap share 1.5 accepted"; fi
case "$err" in *"rate cap share 1.5"*) ;; *) fail "cap share 1.5: $err" ;; esac
out=$("$sim" run "$dir/p.trace" -P heuristic -C 0.5 -S 0.2 -E 1)
case "$out" in "heuristic: stall "*) ;; *) fail "run -C 0.5: $out" ;; esac
if "$sim" run "$dir/none.trace" 2>/dev/null; then fail "missing trace accepted"; fi
if "$sim" gen nosuch "$dir/x.trace" 2>/dev/null; then fail "unknown generator accepted"; fi
# a synthetic trace too small for a hot tenth, or without records, is
# refused naming the option, not as the output file's error or no cause
mkdir "$dir/small"
for args in "gen gups $dir/small/x.trace -p 9 -n 100|-p 9" \
	"gen gups $dir/small/x.trace -p 10 -n 0|-n 0" \
	"table $dir/small -p 9 -n 100 -R 1|-p 9" "table $dir/small -p 10 -n 0 -R 1|-n 0"; do
	# shellcheck disable=SC2086 # the words are the arguments
	if err=$(timeout 60 "$sim" ${args%|*} 2>&1 >/dev/null); then fail "${args%|*} accepted"; fi
	case "$err" in "indigo-sim: ${args#*|}: "*) ;; *) fail "${args%|*}: $err" ;; esac
done
test -z "$(ls -A "$dir/small")" || fail "a refused command wrote $(ls -A "$dir/small")"
# each command refuses an option it would not use, or an operand more:
# accepted, it was ignored (table -x made the paper link's table)
mkdir "$dir/opt"
small="-p 512 -n 20000"
for args in "table $dir/opt $small -R 1 -x" "table $dir/opt $small -R 1 -f 0.5" \
	"run $dir/p.trace -P none -p 5" "run $dir/p.trace -P none -R 3" \
	"run $dir/p.trace -P none $dir/p.trace" "gen gups $dir/opt/x.trace $small -f 0.5" \
	"gen gups $dir/opt/x.trace $small extra" \
	"train $dir/p.trace $dir/opt/m.model -S 0.2 -E 1 -P tpp" \
	"train $dir/p.trace $dir/opt/m.model -S 0.2 -E 1 extra"; do
	# shellcheck disable=SC2086 # the words are the arguments
	if timeout 60 "$sim" $args >/dev/null 2>&1; then fail "$args accepted"; fi
done
test -z "$(ls -A "$dir/opt")" || fail "a refused command wrote $(ls -A "$dir/opt")"
# more pages than records could name: a trace the loader would refuse
if "$sim" gen gups "$dir/x.trace" -p 1000 -n 999 2>/dev/null; then fail "gen -p 1000 -n 999 accepted"; fi
# a value that is not a number, or a negative count (four billion walks)
if "$sim" run "$dir/p.trace" -P fixed -a five 2>/dev/null; then fail "arm 'five' accepted"; fi
# numbers are decimal: "08" is arm 8, not a malformed octal number
"$sim" run "$dir/p.trace" -P fixed -a 08 -S 0.2 -E 1 >/dev/null || fail "arm 08 refused"
rc=0; timeout 10 "$sim" run "$dir/p.trace" -P none -r -1 2>/dev/null || rc=$?
test "$rc" -ne 0 && test "$rc" -ne 124 || fail "repeat -1: exit $rc"
if "$sim" run "$dir/p.trace" -f 0.25x 2>/dev/null; then fail "local fraction 0.25x accepted"; fi
# one policy call per elapsed epoch: a vanishing epoch, or a migration that
# stalls for ages, would never end
# (nor one that overflows to infinity in ns: a scan that never marks)
for o in "-E 1e-300" "-g 1e19" "-k 1e300" "-S 1e305" "-E 1e305"; do
	rc=0; timeout 10 "$sim" run "$dir/p.trace" -P tpp $o 2>/dev/null || rc=$?
	test "$rc" -ne 0 && test "$rc" -ne 124 || fail "$o: exit $rc"
done
# the scan marks 256 MiB a period, as Linux's numa_balancing_scan_size_mb:
# 128 pages of 2 MiB, not 65536 of them. 1,024 pages swept for about 36 ms:
# with 4 KiB pages each faults on the scans at 0, 10, 20 and 30 ms; with
# 2 MiB pages those scans mark one eighth of them each
"$sim" gen stream "$dir/s.trace" -p 1024 -n 40000 -s 3
faults() { "$sim" run "$dir/s.trace" -P none -g "$1" | sed -n 's/.*, faults \([0-9]*\) .*/\1/p'; }
f4=$(faults 4096)
f2=$(faults 2097152)
test "$f4" -gt 3000 && test $((f2 * 6)) -lt "$f4" ||
	fail "scan of 2 MiB pages: $f2 faults, $f4 with 4 KiB pages"
# a trace without records: nothing to compare
printf 'INDIGOTR\1\0\0\0\12\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0' >"$dir/e.trace"
if "$sim" run "$dir/e.trace" -P none 2>/dev/null; then fail "empty trace accepted"; fi
# a header that claims four billion pages for 40,000 records: refused, with
# why, before anything is allocated per page (the limit keeps a simulator
# that would try from taking the host with it)
cp "$dir/p.trace" "$dir/huge.trace"
printf '\377\377\377\377' | dd of="$dir/huge.trace" bs=1 seek=12 conv=notrunc 2>/dev/null
rc=0; (ulimit -v 4000000; "$sim" run "$dir/huge.trace" -P none) >/dev/null 2>"$dir/err" || rc=$?
test "$rc" -eq 1 || fail "four billion pages: exit $rc"
grep -q "huge.trace: .*4294967295 pages.*40000 records" "$dir/err" ||
	fail "four billion pages: $(cat "$dir/err")"
# a trace through a pipe (no size to check its header against): read as
# from its file, and a header that claims two billion records for 40,000
# is refused as truncated, where 16 GiB was allocated for it up front
want=$("$sim" run "$dir/p.trace" -P none)
got=$(cat "$dir/p.trace" | "$sim" run /dev/stdin -P none 2>&1) || true
test "$got" = "$want" || fail "piped trace: $got, not $want"
cp "$dir/p.trace" "$dir/long.trace"
printf '\0\0\0\200' | dd of="$dir/long.trace" bs=1 seek=16 conv=notrunc 2>/dev/null
rc=0; (ulimit -v 4000000; cat "$dir/long.trace" | "$sim" run /dev/stdin -P none) \
	>/dev/null 2>"$dir/err" || rc=$?
test "$rc" -eq 1 || fail "two billion piped records: exit $rc"
grep -q "truncated: fewer than the header's 2147483648 records" "$dir/err" ||
	fail "two billion piped records: $(cat "$dir/err")"
# model files: the error names the file and says what is wrong with it
echo garbage >"$dir/bad.model"
if "$sim" run "$dir/p.trace" -P bandit -m "$dir/bad.model" -S 0.2 -E 1 2>"$dir/err"; then
	fail "corrupt model accepted"
fi
grep -q "bad.model" "$dir/err" || fail "corrupt model: $(cat "$dir/err")"
if "$sim" train "$dir/p.trace" "$dir/no/m.model" -S 0.2 -E 1 >/dev/null 2>"$dir/err"; then
	fail "model saved into a missing directory"
fi
grep -q "no/m.model" "$dir/err" || fail "unsaved model: $(cat "$dir/err")"
if "$sim" run "$dir/p.trace" -P tpp -m "$dir/m.model" 2>/dev/null; then
	fail "a model for tpp accepted"
fi
if "$sim" run "$dir/p.trace" -P fixed -a 18 2>"$dir/err"; then fail "arm 18 accepted"; fi
grep -q "arm 18" "$dir/err" || fail "arm 18: $(cat "$dir/err")"
# the learners read their epoch in whole ms: 0.4 ms would read as 1 s
if "$sim" run "$dir/p.trace" -P bandit -S 0.2 -E 0.4 2>/dev/null; then
	fail "a 0.4 ms epoch accepted"
fi
# two real traces that would be one workload (a base name in two
# directories, or a synthetic workload's): refused before the runs, naming both
mkdir "$dir/d1" "$dir/d2" "$dir/out"
cp "$dir/p.trace" "$dir/d1/r.trace"
cp "$dir/p.trace" "$dir/d2/r.trace"
cp "$dir/p.trace" "$dir/d2/zipf.trace"
for pair in "d1/r.trace d2/r.trace" "d2/zipf.trace"; do
	set -- $pair
	if "$sim" table "$dir/out" -p 512 -n 20000 -R 1 "${@/#/$dir/}" 2>"$dir/err"; then
		fail "table of $pair accepted"
	fi
	for f in "$@"; do
		grep -qF "$dir/$f" "$dir/err" || fail "table of $pair: $(cat "$dir/err")"
	done
	if grep -q '^table: ' "$dir/err"; then fail "table of $pair: runs started"; fi
done
test -z "$(ls -A "$dir/out")" || fail "a refused table wrote $(ls -A "$dir/out")"
# the warm start's model cannot be saved: the error says which file and why,
# and the last results stay as they were (they were once cut short)
mkdir -p "$dir/warm/.sim-warm.model"
echo last >"$dir/warm/sim.md"
if "$sim" table "$dir/warm" -p 512 -n 20000 -R 1 2>"$dir/err"; then
	fail "table with an unsavable warm-start model succeeded"
fi
grep -q "warm start.*warm/.sim-warm.model: .*Is a directory" "$dir/err" ||
	fail "warm start: $(tail -1 "$dir/err")"
test "$(cat "$dir/warm/sim.md")" = last || fail "a failed table overwrote sim.md"
# (-A: the model's temporary file is a dot file, .NAME.tmp-XXXXXX)
test -z "$(ls -A "$dir/warm" | grep -v -x -e sim.md -e .sim-warm.model)" ||
	fail "a failed table left $(ls -A "$dir/warm")"
# an output directory that cannot be written is refused before the runs
rc=0; timeout 10 "$sim" table "$dir/nosuch" 2>/dev/null || rc=$?
test "$rc" -ne 0 && test "$rc" -ne 124 || fail "table into a missing directory: exit $rc"
echo "cli: ok"
