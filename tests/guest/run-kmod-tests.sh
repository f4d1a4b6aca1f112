#!/usr/bin/env bash
# The module's integration tests: for each guest kernel (Debian 6.1, 6.12,
# 6.1's PREEMPT_RT flavour and the newest, trixie-backports'), build
# indigo.ko against its headers, pack
# it with the test programs into an initramfs, boot it in QEMU with a
# CPU-less node 1, and run kmod-checks.sh there, or nobalancing-checks.sh
# on a kernel without NUMA balancing (the RT one): the load must be refused.
# Then, on later kernels, a second, short guest of 512 fake NUMA nodes runs the
# manynodes section alone: more nodes than one per-CPU allocation holds
# counters for.
#
# Usage: run-kmod-tests.sh [6.1|6.12|6.1-rt|newest]...
# Env:   INDIGO_ONLY=section,section  run only those sections of the checks
#        INDIGO_CYCLES=N              load/unload cycles under load (default 50;
#                                     README's 6.1 Oops took ~1,000)
#        INDIGO_GUEST_LOGS=DIR        keep consoles there (default build/guest)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
logs=${INDIGO_GUEST_LOGS:-$top/build/guest}
mkdir -p "$logs"

kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(6.1 6.12 6.1-rt newest)

bins=("$top/build/indigoctl" "$top/build/farmem" "$top/build/nlfuzz"
	redis-server redis-cli redis-benchmark migratepages numactl)

total_pass=0
total_fail=0

# One guest (run-guest.sh's arguments after NAME): its verdict into the totals.
boot() {
	local out=$logs/$1.out line p f

	shift
	set +e
	"$here/run-guest.sh" "$@" | tee "$out"
	set -e
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
	p=${line%% passed*}
	f=${line#*passed, }
	f=${f%% failed*}
	total_pass=$((total_pass + ${p:-0}))
	total_fail=$((total_fail + ${f:-1}))
}

for k in "${kernels[@]}"; do
	read -r release vmlinuz kdir < <("$here/kernels.sh" "$k")
	echo "== guest $release"
	ko=$("$here/build-ko.sh" "$kdir" "$top/build/ko/$release")
	initrd=$logs/kmod-$release.cpio.gz
	checks=$here/kmod-checks.sh
	grep -q '^CONFIG_NUMA_BALANCING=y' "$kdir/.config" || checks=$here/nobalancing-checks.sh
	args=()
	for b in "${bins[@]}"; do args+=(--bin "$b"); done
	"$here/mkinitramfs.sh" "$initrd" --script "$checks" \
		--ko "$ko" "${args[@]}"
	[ "${INDIGO_ONLY:-}" = manynodes ] ||
		boot "kmod-$release" --kernel "$vmlinuz" --initrd "$initrd" \
			--timeout 1200 --log "$logs/kmod-$release.log" --hotplug-mb 256 \
			--append "${INDIGO_ONLY:+INDIGO_ONLY=$INDIGO_ONLY} ${INDIGO_CYCLES:+INDIGO_CYCLES=$INDIGO_CYCLES}"
	# memory is taken as the guest touches it: some 3 GiB of the 17. 6.1
	# itself stops at boot with 512 fake nodes (kernel BUG in
	# ptp_classifier_init), so only later kernels run it.
	if [ "$checks" = "$here/kmod-checks.sh" ] && [[ $release != 6.1.* ]] &&
		[[ -z "${INDIGO_ONLY:-}" || ",$INDIGO_ONLY," == *,manynodes,* ]]; then
		echo "== guest $release, 512 fake NUMA nodes"
		boot "kmod-many-$release" --kernel "$vmlinuz" --initrd "$initrd" \
			--timeout 300 --mem-mb 17000 --log "$logs/kmod-many-$release.log" \
			--append "numa=fake=512 INDIGO_ONLY=manynodes"
	fi
done
echo "guest: $total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
