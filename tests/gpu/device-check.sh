#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The GPU tier on a real GPU: builds build/indigo-gpu, discovers the GPUs,
# probes each host<->GPU link and checks that the measured pinned batch
# bandwidth, each way, lies within a plausible range of the link's nominal
# figure, and that the probe keeps to its share of the link (timed from
# outside). Writes what it measured to $OUT (or build/gpu-device-check/) for
# tools/bench/results/gpu.md.
#
#	tests/gpu/device-check.sh			# on the GPU host, repo root
#	tests/gpu/device-check.sh --build-portable	# here: a binary to carry
#
# Environment:
#	GPU_NAME	a GPU whose name contains this must be found (H200)
#	NOMINAL_GBS	the link's nominal bandwidth per direction, GB/s
#			(64: PCIe Gen5 x16; use 450 for NVLink-C2C on GH200)
#	LO_FRAC HI_FRAC	the plausible range, as shares of nominal (0.5 1.0;
#			pinned copies on Gen5 x16 reach 40-57 GB/s)
#	PROBE_SHARE	the probe's share of the link (0.5: the host is ours)
#	LAT_US		the plausible range of one page copy, us ("1 1000")
#	PACE_S		seconds of pauses the pacing check plans (5; fewer
#			where that would need a share under the least, 0.01)
#	TOOL_ARGS	more indigo-gpu options, e.g. --set driver=PATH
#
# Where the GPU host cannot build (no json-c or libnuma headers), run
# --build-portable here first: it links json-c and libnuma statically into
# build/indigo-gpu-portable, which this script then uses, and into
# build/indigo-gpu-portable-asan, an ASan/UBSan build to run by hand
# (tools/bench/results/gpu.md says how).
#
# Exit: 0 in range, 1 out of range or no such GPU, 2 no GPU tier at all,
# 3 cannot build or run the check.
set -u
cd "$(dirname "$0")/../.." || exit 3

if [ "${1:-}" = --build-portable ]; then
	cuda=${CUDA_HOME:-/usr/local/cuda}
	portable() {
		# gpu.mk's GPU_LINK: the agent's pieces the tier uses
		cc -g -Wall -Wextra -Werror -D_GNU_SOURCE -DINDIGO_GPU=1 \
			-idirafter "$cuda/include" -Iagent/gpu -Iagent/policy \
			-Iinclude/uapi $(pkg-config --cflags json-c) agent/gpu/*.c \
			agent/policy/costmodel.c agent/policy/num.c \
			-Wl,-Bstatic -ljson-c -lnuma \
			-Wl,-Bdynamic -ldl -lm "$@"
	}
	mkdir -p build &&
	portable -O2 -o build/indigo-gpu-portable &&
	portable -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
		-fno-sanitize-recover=all -static-libasan -static-libubsan \
		-o build/indigo-gpu-portable-asan || exit 3
	echo "built build/indigo-gpu-portable{,-asan}: carry them to the GPU host"
	exit 0
fi

GPU_NAME=${GPU_NAME:-H200}
NOMINAL_GBS=${NOMINAL_GBS:-64}
LO_FRAC=${LO_FRAC:-0.5}
HI_FRAC=${HI_FRAC:-1.0}
PROBE_SHARE=${PROBE_SHARE:-0.5}
LAT_US=${LAT_US:-1 1000}
PACE_S=${PACE_S:-5}
TOOL_ARGS=${TOOL_ARGS:-}
out=${OUT:-build/gpu-device-check}
mkdir -p "$out" || exit 3
command -v python3 >/dev/null || { echo "device-check: python3 missing"; exit 3; }

if make -s build/indigo-gpu >"$out/build.log" 2>&1; then
	tool=build/indigo-gpu
elif [ -x build/indigo-gpu-portable ]; then
	tool=build/indigo-gpu-portable
	echo "device-check: cannot build here (see $out/build.log): using $tool"
else
	cat "$out/build.log"
	echo "device-check: cannot build build/indigo-gpu and no build/indigo-gpu-portable"
	exit 3
fi

cmd="$tool $TOOL_ARGS --set probe_share=$PROBE_SHARE"
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	uname -r
	command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,pci.bus_id,driver_version,pcie.link.gen.max,pcie.link.width.max --format=csv
} >"$out/host.txt" 2>&1
$cmd >"$out/table.txt" 2>"$out/stderr.txt"
rc=$?
cat "$out/host.txt" "$out/table.txt" "$out/stderr.txt"
[ $rc = 0 ] || { echo "device-check: no GPU tier (exit $rc)"; exit 2; }

# The JSON runs, the range checks and the pacing check. Pacing is timed
# from outside: a run at share 1 (no pauses) gives the link-busy time B,
# then a run at the share that plans PACE_S seconds of pauses must take
# that much longer, give or take the driver's start-up.
python3 - "$out" "$GPU_NAME" "$NOMINAL_GBS" "$LO_FRAC" "$HI_FRAC" "$PROBE_SHARE" \
	"$PACE_S" "$tool $TOOL_ARGS" "$LAT_US" >"$out/check.md" <<'PY'
import json, shlex, subprocess, sys, time
out, name = sys.argv[1:3]
nominal, lo, hi, share, PACE_S = map(float, sys.argv[3:8])
tool = shlex.split(sys.argv[8])
lat_lo, lat_hi = map(float, sys.argv[9].split())

def probe(share, path):
    t = time.monotonic()
    p = subprocess.run(tool + ["--json", "--set", f"probe_share={share:.6g}"],
                       capture_output=True, text=True)
    el = time.monotonic() - t
    if p.returncode:
        print(f"FAIL: {shlex.join(tool)} --json at share {share:g}: exit {p.returncode}: {p.stderr.strip()}")
        sys.exit(2)
    open(path, "w").write(p.stdout)
    return json.loads(p.stdout)["gpu"], el

g, _ = probe(share, f"{out}/probe.json")
ok, rows = True, []
gpus = [x for x in g["gpus"] if name in x["name"]]
if not gpus:
    print(f"FAIL: no GPU named *{name}*: {[x['name'] for x in g['gpus']]}")
    sys.exit(1)
for x in gpus:
    for d in ("h2d", "d2h"):
        for m in ("pinned", "pageable"):
            f = x["link"][d][m]
            rows.append(f"| {x['ordinal']} {x['name']} | {d} | {m} | {f['lat_ns']/1e3:.1f} | "
                        f"{f['page_bw']/1e9:.2f} | {f['batch_bw']/1e9:.2f} |")
        bw = x["link"][d]["pinned"]["batch_bw"] / 1e9
        good = lo * nominal <= bw <= hi * nominal
        ok &= good
        print(f"{'ok' if good else 'FAIL'}: GPU {x['ordinal']} {d} pinned {bw:.1f} GB/s, "
              f"plausible {lo*nominal:.0f}-{hi*nominal:.0f} GB/s (nominal {nominal:g})")
        lat = x["link"][d]["pinned"]["lat_ns"] / 1e3
        if not lat_lo <= lat <= lat_hi:
            ok = False
            print(f"FAIL: GPU {x['ordinal']} {d} page copy {lat:.1f} us, "
                  f"plausible {lat_lo:g}-{lat_hi:g} us")

full, t_full = probe(1.0, f"{out}/probe-full.json")
busy = sum(x["link"]["busy_s"] for x in full["gpus"])
pace = max(busy / (busy + PACE_S), 0.01)    # GPU_PROBE_SHARE_MIN
paced, t_paced = probe(pace, f"{out}/probe-paced.json")
pbusy = sum(x["link"]["busy_s"] for x in paced["gpus"])
want = pbusy / pace - busy
extra = t_paced - t_full
good = 0.8 * want <= extra <= 1.3 * want + 1
ok &= good
print(f"{'ok' if good else 'FAIL'}: pacing: unpaced run {t_full:.2f} s (link busy {busy:.3f} s); "
      f"at share {pace:.4f} {t_paced:.2f} s (busy {pbusy:.3f} s): {extra:.2f} s longer, "
      f"planned {want:.2f} s")
print()
print(f"Command: `{shlex.join(tool)} --set probe_share={share:g}` (driver {g['driver_version']}, nodes {g['nodes']})")
print()
print("| GPU | dir | host memory | page copy us | page GB/s | batch GB/s |")
print("|---|---|---|---|---|---|")
print("\n".join(rows))
sys.exit(0 if ok else 1)
PY
rc=$?
cat "$out/check.md"
exit $rc
