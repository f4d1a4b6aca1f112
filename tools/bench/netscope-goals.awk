# netscope.sh's verdicts on the issue's goals, from the medians of one run
# (p99s in ms, throughputs in bit/s):
#
#	awk -v a99=ALONE -v n99=NETSCOPE -v c99=CUBIC -v b99=BBR \
#	    -v abps=BULK_ALONE -v nbps=BULK_NETSCOPE -v bbps=BULK_BBR \
#	    -v rshare=REDIS_SHARE_ALONE -f netscope-goals.awk
#
# A ratio beside a verdict has the table's 2 decimals, or more where 2
# would read as the other verdict: 1.204 is "not met (1.204x)", not
# "not met (1.20x)".
function verdict(ok) { return ok ? "met" : "not met" }
# shown(X, OK, LIMIT, AT_MOST): X printed so that it reads as OK does
# against LIMIT (X <= LIMIT where AT_MOST, else X >= LIMIT)
function shown(x, ok, limit, at_most,   d, s) {
	for (d = 2; d < 6; d++) {
		s = sprintf("%." d "f", x)
		if (((at_most ? s + 0 <= limit : s + 0 >= limit) ? 1 : 0) == ok)
			break
	}
	return sprintf("%." d "f", x)
}
BEGIN {
	if (a99 <= 0 || abps <= 0 || bbps <= 0 || rshare >= 1) {
		print "netscope-goals: no alone p99, bulk alone or BBR bulk figure, or redis alone filled the link" >"/dev/stderr"
		exit 1
	}
	left = abps * (1 - rshare)	# what redis alone leaves of the bulk's
	ok = n99 <= 1.2 * a99
	printf "- p99 under congestion <= 1.2x alone: %s (%sx)\n", verdict(ok), shown(n99 / a99, ok, 1.2, 1)
	# floored: never more than it is, as the goal is a least
	ok = nbps >= 0.85 * left
	printf "- bulk >= 85 %% of the capacity redis leaves: %s (%d %%; redis alone takes %d %% of the bottleneck, so it leaves %d Mbit/s of the bulk's %d alone)\n", verdict(ok), int(nbps / left * 100), int(rshare * 100), int(left / 1e6), int(abps / 1e6)
	printf "- p99 better than CUBIC's and BBR's: %s\n", verdict(n99 < c99 && n99 < b99)
	ok = nbps >= 0.9 * bbps
	printf "- bulk within 10 %% of BBR's: %s (%sx)\n", verdict(ok), shown(nbps / bbps, ok, 0.9, 0)
}
