#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/gpu-check.sh — the one command for a machine with an NVIDIA GPU
# and an RDMA device (an RNIC, or soft-RoCE: docs/softroce.md): GPU buffers
# on the real backend, end to end (docs/gpu.md).
#
#     scripts/gpu-check.sh [BUILD]      # BUILD defaults to build; builds it if needed
#
#   1. make test-cuda: the kernels on the GPU against core/dtype.c;
#   2. cclab run --memory gpu: allreduce on 2 and on 4 local ranks, every
#      dtype below x every redop, #wrong = 0 each (cclab run exits 1 on a
#      wrong element); the path each rank took (dma-buf, peermem, host
#      staging) is the run's header;
#   3. a timed allreduce on 2 and 4 ranks beside `cclab sim` of the same
#      setting (--memory gpu, the same staging), through `cclab compare`.
#
# Prints one summary line, "gpu-check: PASS ...", "gpu-check: FAIL ..." or
# "gpu-check: SKIP <why>" (no GPU, no RDMA device, no CUDA build), and
# exits 0 for PASS or SKIP, 1 for FAIL.  Logs in $BUILD/gpu-check/.
# GPU_CHECK_FABRIC picks the simulator's fabric (default roce-100g; a
# `cclab calibrate` file for the measured machine is the better guess),
# GPU_CHECK_DEVICE passes --device.  Takes a few minutes at most.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${1:-${BUILD:-build}}
CCLAB=$BUILD/cclab
OUT=$BUILD/gpu-check
FABRIC=${GPU_CHECK_FABRIC:-roce-100g}
DEV=${GPU_CHECK_DEVICE:+--device $GPU_CHECK_DEVICE}
DTYPES="float half bfloat16 double int32 uint8"
REDOPS="sum prod min max avg"

skip() { echo "gpu-check: SKIP $*"; exit 0; }
fail() { echo "gpu-check: FAIL $*"; exit 1; }

if ! nvidia-smi -L >/dev/null 2>&1; then
	skip "no NVIDIA GPU (nvidia-smi -L finds none)"
fi
make --no-print-directory BUILD="$BUILD" "$CCLAB" >/dev/null || fail "could not build $CCLAB"
mkdir -p "$OUT"
if ! "$CCLAB" devices >"$OUT/devices.txt" 2>&1; then
	skip "no RDMA device ($(tail -n 1 "$OUT/devices.txt"))"
fi

# 1. the kernels
make --no-print-directory BUILD="$BUILD" test-cuda >"$OUT/test-cuda.txt" 2>&1 ||
	fail "make test-cuda (see $OUT/test-cuda.txt)"
if grep -q "GPU test skipped" "$OUT/test-cuda.txt"; then
	skip "$(grep -m1 'GPU test skipped' "$OUT/test-cuda.txt")"
fi

# 2. #wrong = 0 across dtypes and redops
runs=0
for k in 2 4; do
	for d in $DTYPES; do
		for o in $REDOPS; do
			log=$OUT/run-n$k-$d-$o.txt
			# shellcheck disable=SC2086
			if ! "$CCLAB" run -n "$k" --memory gpu $DEV -c allreduce -d "$d" -o "$o" \
				-b 4 -e 1M -f 32 -w 1 --iters 2 >"$log" 2>&1; then
				fail "allreduce -n $k -d $d -o $o: see $log"
			fi
			runs=$((runs + 1))
		done
	done
done
staging=$(sed -n 's/^# staging: //p' "$OUT/run-n2-float-sum.txt" | cut -d: -f1 | head -n 1)
path=$(sed -n 's/^#  Rank  0 .*; \(dma-buf\|peermem\|host-staging\): .*/\1/p' \
	"$OUT/run-n2-float-sum.txt" | head -n 1)

# 3. measured beside predicted
cmp=""
for k in 2 4; do
	dma=gpudirect-rdma
	grep -q "^# staging: host memory" "$OUT/run-n$k-float-sum.txt" && dma=host-staging
	# shellcheck disable=SC2086
	"$CCLAB" run -n "$k" --memory gpu $DEV -b 64K -e 64M -f 4 -w 2 --iters 10 \
		--json "$OUT/measured-n$k.json" >"$OUT/measured-n$k.txt" 2>&1 ||
		fail "timed allreduce -n $k: see $OUT/measured-n$k.txt"
	"$CCLAB" sim -n "$k" --memory gpu --gpu-dma "$dma" --fabric "$FABRIC" -b 64K -e 64M -f 4 \
		--json "$OUT/predicted-n$k.json" >"$OUT/predicted-n$k.txt" 2>&1 ||
		fail "cclab sim -n $k: see $OUT/predicted-n$k.txt"
	"$CCLAB" compare "$OUT/measured-n$k.json" "$OUT/predicted-n$k.json" \
		>"$OUT/compare-n$k.txt" 2>&1 || fail "cclab compare -n $k: see $OUT/compare-n$k.txt"
	err=$(sed -n 's/^# mean |error|: //p' "$OUT/compare-n$k.txt")
	cmp="$cmp; $k ranks vs sim ($FABRIC): mean |error| $err"
done
echo "gpu-check: PASS test-cuda; $runs GPU-buffer allreduces (2 and 4 ranks, $DTYPES x $REDOPS) #wrong 0; path ${path:-?} (${staging:-?})$cmp"
