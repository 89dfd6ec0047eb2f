#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/softroce/measure.sh — what scripts/softroce/calibrate.sh measures
# inside the VM, in one boot: a plan for scripts/softroce/run.sh.
#
# 1. Point-to-point on the device (p2p/*.json): perftest's four latencies,
#    one flow at a time; write bandwidth as K concurrent pairs, because the
#    collective's K ranks share this one emulated NIC and CPU: what one rank
#    of the ring gets is what one of K concurrent flows gets (the fair limit
#    perftest-report.sh measures with ib_write_bw).
# 2. `cclab calibrate --host-bench` alone: this CPU's reduce and copy rate,
#    timed here where the ranks reduce (host.yaml).
# 3. The collective, measured: `cclab run -n K` (measured.json, .csv).
# 4. With PERFTEST 1, perftest-report.sh: cclab p2p beside perftest.
# Arguments (run.sh passes no environment into the VM): CCLAB K MIN MAX
# PERFTEST, defaults build/cclab 4 64K 4M 0.
# The plan runs from the repository root (run.sh copies it away, so its
# neighbours are found from there).  The fit, the prediction and the report
# run on the host afterwards, where the simulator is not emulated.
# Exit status: 0 when every step ran.
set -u

CCLAB=${1:-build/cclab}
K=${2:-4}
MIN=${3:-64K} MAX=${4:-4M}
PERFTEST=${5:-0}
DEV=${CCLAB_SOFTROCE_DEV:-rxe0}
OUT=${OUT:-/tmp}
LAT_ITERS=200
BW_ITERS=50
SIZES="65536 1048576"
status=0

step() { # NAME COMMAND...: runs it, logs to $OUT/NAME.log, remembers a failure
	local name=$1
	shift
	echo "== $name"
	if ! "$@" >"$OUT/$name.log" 2>&1; then
		echo "measure.sh: $name failed: $OUT/$name.log" >&2
		tail -5 "$OUT/$name.log" >&2
		status=1
	fi
}

mkdir -p "$OUT/p2p"
for t in "write 2" "send 2" "read 8" "fetch_add 8"; do
	set -- $t
	step "lat-$1" "$CCLAB" p2p --device "$DEV" --op "$1" --mode lat -s "$2" -n "$LAT_ITERS" \
		--json "$OUT/p2p/lat-$1.json"
done
for size in $SIZES; do
	echo "== bw $size B: $K concurrent pairs"
	pids=()
	for ((r = 0; r < K; r++)); do
		"$CCLAB" p2p --device "$DEV" --op write -s "$size" -n "$BW_ITERS" \
			--json "$OUT/p2p/bw-$size-$r.json" >"$OUT/bw-$size-$r.log" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || { echo "measure.sh: a bw pair of $size B failed" >&2; status=1; }
	done
done
step host-bench "$CCLAB" calibrate --host-bench -o "$OUT/host.yaml"
step measured "$CCLAB" run -n "$K" --device "$DEV" -b "$MIN" -e "$MAX" -f 4 -w 1 --iters 3 \
	--json "$OUT/measured.json" --trace "$OUT/measured.csv"
cat "$OUT/measured.log"
if [ "$PERFTEST" = 1 ]; then
	OUT=$OUT K=$K bash scripts/softroce/perftest-report.sh "$CCLAB" >"$OUT/perftest.log" 2>&1 ||
		status=1
fi
exit "$status"
