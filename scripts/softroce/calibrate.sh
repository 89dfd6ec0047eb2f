#!/usr/bin/env bash
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
bash "$HERE/report.sh" "$OUTDIR" && echo "calibrate.sh: wrote $OUTDIR/report.md"
