#!/usr/bin/env bash
# Boots an INDIGO test guest in QEMU (TCG: the hosts have no KVM) and judges it.
#
# Usage: run-guest.sh --kernel VMLINUZ --initrd CPIO.gz [--timeout SECONDS]
#                     [--log FILE] [--mem-mb N] [--append "ARGS"] [--quiet]
#                     [--hotplug-mb N [--hotplug-late]]
#
#   --timeout SECONDS  kill the guest after this long (default 600)
#   --log FILE         where the console goes (default: a new /tmp file)
#   --mem-mb N         guest memory, split evenly over the two NUMA nodes
#                      (default 2048)
#   --append "ARGS"    extra kernel command line arguments
#   --hotplug-mb N     a third node, without CPUs, whose only memory is a
#                      DIMM of N MiB left offline at boot (as CXL memory
#                      before daxctl onlines it): the test onlines its
#                      blocks through /sys/devices/system/memory
#   --hotplug-late     plug that DIMM only when the guest's console prints
#                      INDIGO-HOTPLUG-NOW (QMP device_add): node 2 has no
#                      memory and is not online until then, as a CXL
#                      region made after boot
#   --quiet            do not copy the console to stdout (the log still has it)
#   --icount SHIFT     deterministic time: the guest clock advances 2^SHIFT ns
#                      per instruction (QEMU -icount, single-threaded TCG), so
#                      timings measure instructions, not the host's noise;
#                      one vCPU (secondary CPUs do not come up under icount)
#
# The guest has 2 vCPUs and two NUMA nodes, node 1 CPU-less (how CXL or
# disaggregated memory shows up in Linux). Build the initrd with
# mkinitramfs.sh; its /test.sh prints "PASS <name>" or "FAIL <name>: <reason>"
# per check and /init prints "INDIGO-GUEST-EXIT rc=<status>".
#
# The run fails if the guest timed out, never printed INDIGO-GUEST-EXIT,
# exited non-zero, or the console shows a kernel problem (oops, BUG, WARNING,
# panic, ...); each of those counts as one failed check, as does a run with
# no checks at all, except that a non-zero exit is not counted again when the
# test already printed FAIL lines. The last line is "<N> passed, <M> failed";
# the exit status is 0 only when M is 0 and N is above 0.
set -euo pipefail

die() { printf 'run-guest.sh: %s\n' "$*" >&2; exit 2; }
usage() { sed -n '4,21s/^# \{0,1\}//p' "$0" >&2; exit 2; }

kernel=
initrd=
timeout_s=600
log=
mem_mb=2048
append=
icount=
hotplug_mb=
hotplug_late=0
quiet=0
while [ $# -gt 0 ]; do
	case "$1" in
	--quiet) quiet=1; shift; continue ;;
	--hotplug-late) hotplug_late=1; shift; continue ;;
	--kernel | --initrd | --timeout | --log | --mem-mb | --append | --icount | --hotplug-mb) [ $# -ge 2 ] || usage ;;
	*) usage ;;
	esac
	case "$1" in
	--kernel) kernel=$2 ;;
	--initrd) initrd=$2 ;;
	--timeout) timeout_s=$2 ;;
	--log) log=$2 ;;
	--mem-mb) mem_mb=$2 ;;
	--append) append=$2 ;;
	--icount) icount=$2 ;;
	--hotplug-mb) hotplug_mb=$2 ;;
	esac
	shift 2
done
if [ -z "$kernel" ] || [ -z "$initrd" ]; then usage; fi
[ -f "$kernel" ] || die "no such kernel: $kernel"
[ -f "$initrd" ] || die "no such initrd: $initrd"
[[ "$timeout_s" =~ ^[1-9][0-9]*$ ]] || die "--timeout wants whole seconds: $timeout_s"
if [ -n "$icount" ] && ! [[ "$icount" =~ ^[0-9]$ ]]; then
	die "--icount wants a shift of 0-9: $icount"
fi
if ! [[ "$mem_mb" =~ ^[1-9][0-9]*$ ]] || [ "$mem_mb" -lt 256 ]; then
	die "--mem-mb wants at least 256: $mem_mb"
fi
if [ -n "$hotplug_mb" ] && { ! [[ "$hotplug_mb" =~ ^[1-9][0-9]*$ ]] || [ $((hotplug_mb % 128)) != 0 ]; }; then
	die "--hotplug-mb wants a multiple of 128 (a memory block): $hotplug_mb"
fi
[ "$hotplug_late" = 0 ] || [ -n "$hotplug_mb" ] || die "--hotplug-late needs --hotplug-mb"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found (install qemu-system-x86)"
if [ -z "$log" ]; then
	log=$(mktemp /tmp/indigo-guest.XXXXXX.log)
else
	mkdir -p "$(dirname "$log")"
fi

node0=$((mem_mb / 2))
node1=$((mem_mb - node0))
# loglevel=5 puts warnings and worse on the console without the boot chatter
# (quiet would hide WARNING: lines); panic=-1 with -no-reboot makes a panic
# end QEMU at once instead of waiting out the timeout, and oops=panic makes
# an Oops one: a guest that oopsed mid-test (seen once in the module's
# load/unload cycles on 6.1: a call to address 0 from task_numa_work on
# both CPUs, then a hang) ends with its log instead of hanging to the
# timeout, 20 minutes later.
cmdline="console=ttyS0 loglevel=5 panic=-1 oops=panic $append"
mem="${mem_mb}M"
if [ -n "$hotplug_mb" ]; then
	mem="$mem,slots=1,maxmem=$((mem_mb + hotplug_mb))M"
	cmdline="$cmdline memhp_default_state=offline"
fi
ncpu=2
[ -z "$icount" ] || ncpu=1
qemu=(qemu-system-x86_64
	-machine q35 -accel tcg -cpu max -smp "$ncpu" -m "$mem"
	-object "memory-backend-ram,id=m0,size=${node0}M"
	-object "memory-backend-ram,id=m1,size=${node1}M"
	-numa "node,nodeid=0,cpus=0-$((ncpu - 1)),memdev=m0"
	-numa "node,nodeid=1,memdev=m1"
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	# No default devices (VGA, NIC, ...): less to emulate, faster boot.
	-nodefaults -nographic -serial stdio -no-reboot)
[ -z "$icount" ] || qemu+=(-icount "shift=$icount,sleep=off")
[ -z "$hotplug_mb" ] ||
	qemu+=(-object "memory-backend-ram,id=hp,size=${hotplug_mb}M" -numa node,nodeid=2)
qmp=
if [ "$hotplug_late" = 1 ]; then
	qmp=$(mktemp -u /tmp/indigo-qmp.XXXXXX)
	qemu+=(-qmp "unix:$qmp,server=on,wait=off")
elif [ -n "$hotplug_mb" ]; then
	qemu+=(-device pc-dimm,id=hp0,memdev=hp,node=2)
fi

# Plugs the DIMM once the console asks (killed with the guest otherwise):
# QMP's greeting, capabilities, then device_add; QEMU's answers go to the
# console log's .qmp beside it.
plug_when_asked() {
	until grep -q '^INDIGO-HOTPLUG-NOW' "$log"; do sleep 0.5; done
	python3 - "$qmp" >"$log.qmp" 2>&1 <<'PY'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rw")
f.readline()
for cmd in ({"execute": "qmp_capabilities"},
            {"execute": "device_add", "arguments": {
                "driver": "pc-dimm", "id": "hp0", "memdev": "hp", "node": 2}}):
    f.write(json.dumps(cmd) + "\n")
    f.flush()
    while True:
        r = json.loads(f.readline())
        if "return" in r or "error" in r:
            print(json.dumps(r))
            break
PY
}

echo "run-guest: $(basename "$kernel"), console log in $log"
start=$(date +%s.%N)
# The console goes to the log as it comes (minus the serial line's CRs and the
# firmware's terminal escapes) and, unless --quiet, to stdout prefixed; sed -u
# keeps it streaming.
# A kernel that dies while booting, before the test starts, is not the
# project's doing (seen: an int3 Oops in the guest's own boot-time code
# patching under multi-threaded TCG, now and then); such a boot is tried
# again, up to three boots in all.
for attempt in 1 2 3; do
	: >"$log"
	plugger=
	if [ -n "$qmp" ]; then
		plug_when_asked &
		plugger=$!
	fi
	set +e
	timeout --kill-after=10 "$timeout_s" "${qemu[@]}" </dev/null 2>&1 |
		sed -u -e 's/\r$//' -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1b[A-Za-z]//g' | tee "$log" |
		if [ "$quiet" = 1 ]; then cat >/dev/null; else sed -u 's/^/[guest] /'; fi
	qemu_rc=${PIPESTATUS[0]}
	set -e
	if [ -n "$plugger" ]; then
		kill "$plugger" 2>/dev/null || true
		wait "$plugger" 2>/dev/null || true
		rm -f "$qmp"
	fi
	if [ "$attempt" -lt 3 ] && ! grep -q '^INDIGO-GUEST-START' "$log" &&
	   grep -qE 'Oops|Kernel panic' "$log"; then
		cp "$log" "$log.boot-crash$attempt"
		echo "run-guest: the guest kernel crashed while booting, before the test started (log kept in $log.boot-crash$attempt); booting again"
		continue
	fi
	break
done
secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')

# Anchored: a PASS/FAIL line is what the test printed at the start of a line.
passed=$(grep -c '^PASS ' "$log" || true)
failed=$(grep -c '^FAIL ' "$log" || true)
reasons=()

if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
	reasons+=("guest timed out after ${timeout_s}s")
elif ! grep -q '^INDIGO-GUEST-EXIT rc=' "$log"; then
	reasons+=("guest never printed INDIGO-GUEST-EXIT (qemu exit status $qemu_rc)")
else
	guest_rc=$(sed -n 's/^INDIGO-GUEST-EXIT rc=\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	if [ "$guest_rc" != 0 ] && [ "$failed" = 0 ]; then
		reasons+=("test script exited with status $guest_rc")
	fi
fi

# Only kernel lines count: they carry a printk timestamp "[ 12.345678]" (also
# in /init's INDIGO-DMESG copies), so a daemon's own "WARNING:" on the console
# (redis prints some) is not mistaken for a kernel warning.
problem=$(grep -E '\[ *[0-9]+\.[0-9]{6}\]' "$log" |
	grep -m 1 -E 'Oops|BUG:|WARNING:|Kernel panic|general protection fault|Call Trace|kernel BUG|UBSAN|KASAN|list_add corruption|refcount_t:' || true)
if [ -n "$problem" ]; then
	reasons+=("kernel problem on the console: $problem")
fi

if [ "$passed" = 0 ] && [ "$failed" = 0 ] && [ ${#reasons[@]} = 0 ]; then
	reasons+=("the test printed no PASS or FAIL lines")
fi

failed=$((failed + ${#reasons[@]}))
echo "run-guest: guest ran ${secs}s (log $log)"
grep '^FAIL ' "$log" | sed 's/^/run-guest: /' || true
for r in "${reasons[@]}"; do
	echo "run-guest: FAIL $r"
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
