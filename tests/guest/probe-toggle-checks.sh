#!/bin/sh
# A control for the 6.1 Oops of README's "Known problems": the
# two probes indigo.ko places, a kprobe on change_prot_numa and a
# kretprobe on numa_migrate_prep, made through tracefs kprobe_events
# instead of any module, switched on and off under the farmem load of
# kmod-checks.sh's cycles section. No indigo code runs in this guest, so an
# Oops here is the kernel's (or QEMU's), not ours.
#
# Run (about 0.26 s a toggle under TCG):
#   tests/guest/mkinitramfs.sh /tmp/t.cpio.gz \
#       --script tests/guest/probe-toggle-checks.sh --bin build/farmem
#   tests/guest/run-guest.sh --kernel /boot/vmlinuz-6.1.0-...-amd64 \
#       --initrd /tmp/t.cpio.gz --timeout 2400 --append "TOGGLES=4000 PROBES=mark"
# PROBES=mark or fault places only that one (default: both).
T=/sys/kernel/tracing
N=$(sed -n 's/.*TOGGLES=\([0-9]*\).*/\1/p' /proc/cmdline)
N=${N:-1500}
probes=$(sed -n 's/.*PROBES=\([a-z]*\).*/\1/p' /proc/cmdline)
probes=${probes:-both}
rc=0

numa-fast
case "$probes" in mark | both) echo 'p:indigo_mark change_prot_numa' ;; esac >>$T/kprobe_events &&
	case "$probes" in fault | both) echo 'r:indigo_fault numa_migrate_prep' ;; esac >>$T/kprobe_events &&
	grep -q . $T/kprobe_events ||
	{ echo "FAIL kprobe-events: PROBES=$probes: $(cat $T/error_log 2>/dev/null)"; exit 1; }
echo "probes: $(cat $T/kprobe_events | tr '\n' ' ')"
farmem --pages 512 --hot 512 --seconds 3600 >/tmp/farmem.log &
fpid=$!
sleep 2
i=0
while [ $i -lt "$N" ]; do
	echo 1 >$T/events/kprobes/enable || break
	sleep 0.2
	echo 0 >$T/events/kprobes/enable || break
	i=$((i + 1))
	[ $((i % 500)) = 0 ] && echo "toggles: $i"
done
[ $i = "$N" ] && echo "PASS toggles-$N" || { echo "FAIL toggles-$N: stopped at $i"; rc=1; }
kill -0 $fpid 2>/dev/null && echo "PASS farmem-alive" || { echo "FAIL farmem-alive: died"; rc=1; }
kill $fpid
exit $rc
