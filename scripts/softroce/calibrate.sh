#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/softroce/calibrate.sh — predicted vs measured on soft-RoCE, end to
# end, with a report (docs/calibrate.md):
#
#     scripts/softroce/calibrate.sh [--out DIR] [CCLAB]     (make softroce-report)
#
# 1. In the VM (run.sh --plan measure.sh): p2p results, this CPU's reduce
#    rate (host.yaml), and the ring allreduce measured on K ranks.
# 2. Here: `cclab calibrate` of the p2p results from host.yaml (fabric.yaml),
#    `cclab sim` of the same collective on it, `cclab compare` of the two
#    with their traces, and scripts/softroce/report.sh: DIR/report.md with
#    the perftest table (PERFTEST=1), the fit, the comparison and PNGs.
# 3. DIR/softroce: the measured allreduce as a case of `cclab validate`, which
#    `make validate` reports after the published corpus.
# Environment: K (ranks, 4), MIN / MAX (sizes, 64K / 4M), PERFTEST (1: also
# cclab beside perftest, a few minutes more).
# Exit status: 0 when every step ran (how close the prediction is, is the
# report's content: a goal, not a test); 77 when the VM cannot be had; the
# failing step's otherwise.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUTDIR=$ROOT/build/calibrate
if [ "${1:-}" = --out ]; then
	OUTDIR=$2
	shift 2
fi
CCLAB=${1:-$ROOT/build/cclab}
export K=${K:-4} MIN=${MIN:-64K} MAX=${MAX:-4M}

bash "$HERE/run.sh" --out "$OUTDIR" --plan "$HERE/measure.sh" -- "$CCLAB" "$K" "$MIN" "$MAX" \
	"${PERFTEST:-0}"
rc=$?
if [ "$rc" = 77 ]; then
	exit 77
elif [ "$rc" != 0 ]; then
	echo "calibrate.sh: the measurement in the VM failed ($rc): $OUTDIR has the logs" >&2
	exit "$rc"
fi
"$CCLAB" calibrate "$OUTDIR"/p2p/*.json --base "$OUTDIR/host.yaml" --name "rxe0-x$K" \
	-o "$OUTDIR/fabric.yaml" --json "$OUTDIR/calibration.json" \
	--csv "$OUTDIR/calibration.csv" >"$OUTDIR/calibrate.log" || {
	echo "calibrate.sh: cclab calibrate failed: $OUTDIR/calibrate.log" >&2
	exit 1
}
cat "$OUTDIR/calibrate.log"
"$CCLAB" sim -n "$K" --topology star --memory host --fabric "$OUTDIR/fabric.yaml" \
	-b "$MIN" -e "$MAX" -f 4 --json "$OUTDIR/predicted.json" \
	--trace "$OUTDIR/predicted.csv" >"$OUTDIR/predicted.log" || {
	echo "calibrate.sh: cclab sim failed: $OUTDIR/predicted.log" >&2
	exit 1
}
# compare's exit status 1 (beyond --max-error) is a finding, not a failure.
"$CCLAB" compare "$OUTDIR/measured.json" "$OUTDIR/predicted.json" --csv "$OUTDIR/compare.csv" \
	--trace-measured "$OUTDIR/measured.csv" --trace-predicted "$OUTDIR/predicted.csv" \
	--max-error 15 >"$OUTDIR/compare.log"
[ $? != 2 ] || { echo "calibrate.sh: cclab compare refused the files" >&2; exit 1; }
cat "$OUTDIR/compare.log"
# The one real fabric CI has, as a case of `cclab validate` (docs/validation.md):
# the allreduce measured in the VM, predicted on the fabric fitted to the same
# boot's p2p results.  `make validate` reports it after the published corpus.
case_dir=$OUTDIR/softroce
mkdir -p "$case_dir"
awk 'BEGIN { print "size_bytes,count,type,redop,root,time_us,algbw_gbps,busbw_gbps,wrong," \
		   "time_ip_us,algbw_ip_gbps,busbw_ip_gbps,wrong_ip" }
	!/^#/ && NF == 9 { printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,,,,\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }' \
	"$OUTDIR/measured.log" >"$case_dir/measured.csv"
grep -v '^#' "$OUTDIR/measured.log" | awk 'NF == 9' >"$case_dir/raw.txt"
[ -s "$case_dir/raw.txt" ] || { echo "calibrate.sh: no table in $OUTDIR/measured.log" >&2; exit 1; }
cat >"$case_dir/scenario.yaml" <<END
# soft-RoCE (rdma_rxe) in the qemu VM of make test-calibrate: $K ranks on one
# emulated NIC, the ring allreduce measured by cclab run -n $K (measured.log),
# predicted on the fabric cclab calibrate fitted to the same boot's p2p results.
name: softroce-rxe0-x$K
topology: {generator: star, ranks: $K}
fabric: ../fabric.yaml
memory: host
collective: allreduce
sizes: {min: $MIN, max: $MAX, factor: 4}
check: false
END
fence='```'
cat >"$case_dir/source.md" <<END
# soft-RoCE in the CI VM: ring allreduce, $K ranks

${fence}yaml
url: "make test-calibrate (scripts/softroce/calibrate.sh)"
title: "rdma_rxe in qemu, $K local ranks, measured this run"
${fence}

Measured by cclab run -n $K --device rxe0 in the VM (1 warm-up, 3 timed iterations per size);
the fabric is ../fabric.yaml, fitted by cclab calibrate to this boot's p2p results. Under
emulation one run is noise: docs/softroce.md.
END
bash "$HERE/report.sh" "$OUTDIR" && echo "calibrate.sh: wrote $OUTDIR/report.md"
