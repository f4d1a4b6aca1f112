# SPDX-License-Identifier: GPL-2.0
# Of `ss -tin` output: the congestion control of the flow that has sent
# the most (iperf3's data flow, not its control one); nothing, and exit 1,
# where no flow shows one. For netscope-net.sh and the guests' checks.
/cwnd:/ {
	s = 0
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^wscale:/) c = $(i - 1)
		if ($i ~ /^bytes_sent:/) s = substr($i, 12)
	}
	if (s + 0 >= best) { best = s + 0; v = c }
}
END { if (v == "") exit 1; print v }
