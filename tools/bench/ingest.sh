#!/usr/bin/env bash
# Benchmark: telemetry events per second through indigod's netlink path.
#
# Natively here, the userspace half alone (ingest native); then, in a QEMU
# TCG guest with indigo.ko, end to end: the module sends synthetic
# candidates through its real multicast path (debugfs "emit") and the
# agent's receiver (modlink_poll) counts them, paced by chunks (the sender
# waits for the receiver after each chunk) and all at once (an overrun
# must be counted as ENOBUFS). The guest is emulated instruction by
# instruction, so its figure is a lower bound on real hardware; the native
# figure is the receiver's parsing cost alone.
#
# Usage: tools/bench/ingest.sh [6.1|6.12]  (default 6.12)
# Writes tools/bench/results/ingest.md.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
g=$top/tests/guest
out=$top/tools/bench/results/ingest.md
work=$top/build/bench
mkdir -p "$work" "$(dirname "$out")"
k=${1:-6.12}

native=$("$top/build/ingest" native 20000000)
read -r release vmlinuz kdir < <("$g/kernels.sh" "$k")
ko=$("$g/build-ko.sh" "$kdir" "$top/build/ko/$release")
initrd=$work/ingest-$release.cpio.gz
"$g/mkinitramfs.sh" "$initrd" --script "$top/tools/bench/ingest-guest.sh" \
	--ko "$ko" --bin "$top/build/ingest"
"$g/run-guest.sh" --kernel "$vmlinuz" --initrd "$initrd" --timeout 900 \
	--quiet --log "$work/ingest-$release.log" >/dev/null
rows=$(tr -d '\r' <"$work/ingest-$release.log" | grep '^BENCH ' | awk '
	function f(k,   i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
	{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f("chunk"), f("round"), f("events"), f("received"), f("lost"), f("enobufs"), f("events_per_s"), f("events_per_cpu_s"), f("loss_counted") }')
# The guest emulates every instruction: the parser's rate there against
# here gives the slowdown, and the paced rounds' median rate per receiver
# CPU-second, scaled by it, estimates the rate on this machine's hardware.
est=$(tr -d '\r' <"$work/ingest-$release.log" |
	awk -v host="$native" -f "$top/tools/bench/ingest-estimate.awk") || est="(no estimate: the guest printed no parser figure)"
failed=$(tr -d '\r' <"$work/ingest-$release.log" | awk '$1 == "emit_failed_batches" { print $2 }')
{
	echo "# Telemetry ingestion: events per second into indigod"
	echo
	echo "Measured $(date -u +%Y-%m-%d) with \`make bench\` (tools/bench/ingest.sh, $(basename "$top/build/ingest") from"
	echo "tools/bench/ingest.c). Goal: at least 1 M events/s on one core with batching;"
	echo "no loss below that rate that is not counted."
	echo
	echo "## The receiver alone, natively (development machine, one core)"
	echo
	echo "The module's batch (one CANDIDATES message of 64 candidates) parsed by"
	echo "\`modlink_dispatch()\`, the function indigod's receive loop calls per message:"
	echo
	echo "    $native"
	echo
	echo "## End to end in a QEMU TCG guest ($release, 2 vCPUs, no KVM)"
	echo
	echo "The module sends synthetic candidates through its real multicast path,"
	echo "64 per message; the receiver is \`modlink_poll()\` with the agent's 4 MiB buffer."
	echo "\"chunk\": the sender waits for the receiver after each chunk (chunk ="
	echo "events: all at once, into a 64 KiB buffer, which overruns). \"loss_counted\": every lost"
	echo "event is accounted for by ENOBUFS on the receiver. \"per receiver CPU-s\":"
	echo "events over the CPU time of the receiving thread alone (one core), which"
	echo "leaves out the sender running on the other vCPU. Every instruction is"
	echo "emulated, so the guest's rates are far below what the same code does on"
	echo "hardware."
	echo
	echo "Estimate for hardware: $est."
	echo
	echo "| chunk | round | events | received | lost | ENOBUFS | events/s | per receiver CPU-s | loss counted |"
	echo "|---|---|---|---|---|---|---|---|---|"
	echo "$rows"
	echo
	echo "The module's own count of batches it could not deliver, over the whole"
	echo "run: ${failed:-?} (x 64 events each: the lost events of the overload round)."
} >"$out"
cat "$out"
