# faultpath.sh's table: one kernel's rows from its guest's log (the BENCH
# lines of faultpath-guest.sh), the median ratios, and the verdict and
# memory lines appended to the file named by -v sum=... .
#
#	awk -v rel=RELEASE -v sum=FILE -f faultpath-table.awk LOG
#
# A round lacking any configuration's passes (farmem failed, the guest
# stopped early) fails the table, exit 1 with the reason on stderr: a
# ratio over a missing figure is no measurement (inf, or 0).
function f(s, k,   a, i, n) { n = split(s, a, " "); for (i = 1; i <= n; i++) if (index(a[i], k "=") == 1) return substr(a[i], length(k) + 2); return "" }
# few values: insertion sort, in place
function median(v, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j] < v[j - 1]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function bad(why) {
	printf "faultpath: %s: %s\n", rel, why >"/dev/stderr"
	failed = 1
	exit 1
}
/^BENCH / {
	c = f($0, "config"); r = f($0, "round") + 0	# a number: "10" < "9" as text
	p[c, r] = f($0, "passes"); q[c, r] = f($0, "faults"); if (r > rounds) rounds = r
}
/^bytes_per_page / { bpp = $2 }
/^table_bytes / { tb = $2 }
END {
	if (failed)
		exit 1
	if (!rounds)
		bad("no BENCH lines in the guest's log")
	for (r = 1; r <= rounds; r++)
		for (i = split("without with marks0", cs, " "); i > 0; i--)
			if (p[cs[i], r] !~ /^[0-9]+$/ || p[cs[i], r] == 0)
				bad(sprintf("round %d: no passes for %s", r, cs[i]))
	for (r = 1; r <= rounds; r++) {
		ratio[r] = p["with", r] / p["without", r]
		ratio0[r] = p["marks0", r] / p["without", r]
		printf "| %s | %d | %d | %d | %d | %d | %d | %d | %.3f | %.3f |\n", rel, r, p["without", r], p["with", r], p["marks0", r], q["without", r], q["with", r], q["marks0", r], ratio[r], ratio0[r]
	}
	med = median(ratio, rounds)
	med0 = median(ratio0, rounds)
	printf "| %s | median | | | | | | | **%.3f** | **%.3f** |\n", rel, med, med0
	# a fixed instruction budget: what the module adds to each pass is
	# without / with - 1 (a ratio of 0.90 is 11.1 % added), not 1 - ratio
	added = 1 / med - 1
	printf "%s: %.1f %% added (%.1f %% with marks=0); goal (under 10 %% added: progress ratio > 1/1.1 = 0.909) %s.\n", rel, added * 100, (1 / med0 - 1) * 100, (added < 0.10 ? "met" : "missed") >>sum
	printf "\nMemory on %s: %s bytes per tracked page; the table is %s bytes at the default max_pages (65536), fixed at load.\n\n", rel, bpp, tb >>sum
}
