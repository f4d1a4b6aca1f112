# ingest.sh's estimate for hardware, from the guest's log: the parser's
# rate there (NATIVE) against here (-v host="ingest native's line") gives
# the slowdown, and the paced rounds' median rate per receiver CPU-second,
# scaled by it, estimates the rate on this machine's hardware.
#
#	awk -v host="mode=native ..." -f ingest-estimate.awk LOG
#
# Exit 1, printing nothing, where the log has no parser figure or no paced
# round. The figures are numbers (+ 0): substr() gives text, which awk
# would compare as text ("99000" > "150000").
function f(s, k,   a, i, n) { n = split(s, a, " "); for (i = 1; i <= n; i++) if (index(a[i], k "=") == 1) return substr(a[i], length(k) + 2); return "" }
/^NATIVE / { guest = f($0, "events_per_s") + 0 }
/^BENCH / && f($0, "chunk") != f($0, "events") { r[++n] = f($0, "events_per_cpu_s") + 0 }
END {
	if (!guest || !n) exit 1
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
	med = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
	slow = f(host, "events_per_s") / guest
	printf "guest parser %.0f events/s, here %.0f: slowdown %.1fx; paced median %.0f events per receiver CPU-s in the guest, x %.1f = about %.1f M events/s\n", guest, f(host, "events_per_s"), slow, med, slow, med * slow / 1e6
}
