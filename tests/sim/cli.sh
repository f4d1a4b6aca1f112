#!/usr/bin/env bash
# indigo-sim end to end on tiny inputs: gen, run (every policy and the
# oracle), train then a warm start, table; and its refusals.
set -euo pipefail
sim=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "cli: $*" >&2; exit 1; }

"$sim" gen phase "$dir/p.trace" -p 512 -n 40000 -s 3
for p in none tpp memtis colloid heuristic fixed bandit bandit-progress oracle; do
	out=$("$sim" run "$dir/p.trace" -P "$p" -a 5 -f 0.25 -c 0.5 -S 0.2 -E 1)
	case "$out" in "$p: stall "*", accesses 40000 "*) ;; *) fail "run $p: $out" ;; esac
done
"$sim" train "$dir/p.trace" "$dir/m.model" -S 0.2 -E 1 >/dev/null
test -s "$dir/m.model" || fail "train wrote no model"
"$sim" run "$dir/p.trace" -P bandit -m "$dir/m.model" -S 0.2 -E 1 >/dev/null
"$sim" table "$dir" -p 512 -n 20000 2>/dev/null
for f in sim.md sim.csv sim-stall.dat sim-phase.dat; do
	test -s "$dir/$f" || fail "table wrote no $f"
done
grep -q '^## Goals' "$dir/sim.md" || fail "sim.md has no goals"
# header + 4 workloads x 2 fractions x 2 contentions x 9 rows
test "$(wc -l <"$dir/sim.csv")" -eq 145 || fail "sim.csv: $(wc -l <"$dir/sim.csv") lines"
# refusals
if "$sim" run "$dir/p.trace" -P nosuch 2>/dev/null; then fail "unknown policy accepted"; fi
if "$sim" run "$dir/p.trace" -f 0 2>/dev/null; then fail "local fraction 0 accepted"; fi
if "$sim" run "$dir/none.trace" 2>/dev/null; then fail "missing trace accepted"; fi
if "$sim" gen nosuch "$dir/x.trace" 2>/dev/null; then fail "unknown generator accepted"; fi
echo "cli: ok"
