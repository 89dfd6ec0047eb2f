#!/usr/bin/env bash
# scripts/softroce/perftest-report.sh — cclab beside perftest on one verbs
# stack, in one boot: a plan for scripts/softroce/run.sh.
#
#     scripts/softroce/run.sh --out build/perftest --plan scripts/softroce/perftest-report.sh -- build/cclab
#
# For each test (write, send, read, atomic; bw and lat) it runs perftest's
# tool (ib_write_bw, ... server in the background, client to 127.0.0.1)
# and `cclab p2p --device` with the same size and iteration count, one after
# the other, and writes $OUT/perftest.csv and $OUT/report.md: both figures
# and their ratio.  Then the fair link limit of a ring allreduce on k ranks
# sharing this one emulated NIC: k concurrent ib_write_bw pairs arranged as
# the ring (0->1, 1->2, ..., k-1->0), their mean bandwidth per pair, against
# the busbw of `cclab run -n k` at the same size.
#
# Under emulation absolute figures mean nothing; the ratios measured here,
# side by side, do (docs/softroce.md).
set -u

CCLAB=${1:-build/cclab}
DEV=${CCLAB_SOFTROCE_DEV:-rxe0}
GIDX=${CCLAB_SOFTROCE_GID_INDEX:-1}
OUT=${OUT:-/tmp}
ITERS=${ITERS:-200}
K=${K:-4}
RING_BYTES=${RING_BYTES:-1048576}
port=18515

# The data row of a perftest-style table (ours prints the same columns):
# the first line whose first field is the size; fields 3..6 are the figures.
row() { awk -v s="$1" '$1 == s && NF >= 5 { print; exit }'; }

perftest() { # TOOL SIZE [extra args]: the client's data row
	local tool=$1 size=$2
	shift 2
	port=$((port + 1))
	"$tool" -d "$DEV" -x "$GIDX" -p "$port" -s "$size" -n "$ITERS" "$@" >/dev/null 2>&1 &
	local srv=$!
	sleep 1
	"$tool" -d "$DEV" -x "$GIDX" -p "$port" -s "$size" -n "$ITERS" "$@" 127.0.0.1 2>/dev/null | row "$size"
	wait "$srv" 2>/dev/null
}

echo "test,mode,size,iters,perftest,cclab,unit,ratio" >"$OUT/perftest.csv"
{
	echo "# cclab p2p --device beside perftest, one boot ($DEV, $ITERS iterations)"
	echo
	echo "bw: BW average (MB/s, 2^20 bytes), higher is better; lat: t_typical (us), lower is better."
	echo
	echo "| test | perftest | bytes | perftest | cclab | cclab / perftest |"
	echo "|---|---|---|---|---|---|"
} >"$OUT/report.md"

compare() { # OP MODE SIZE TOOL [perftest args]
	local op=$1 mode=$2 size=$3 tool=$4
	shift 4
	local p c col unit
	p=$(perftest "$tool" "$size" "$@")
	c=$("$CCLAB" p2p --device "$DEV" --op "$op" --mode "$mode" -s "$size" -n "$ITERS" 2>/dev/null | row "$size")
	# bw: BW average [MB/s] (field 4); lat: t_typical [us] (field 5).
	if [ "$mode" = bw ]; then col=4 unit=MB/s; else col=5 unit=us; fi
	p=$(echo "$p" | awk -v c=$col '{ print $c }')
	c=$(echo "$c" | awk -v c=$col '{ print $c }')
	local ratio
	ratio=$(awk -v p="$p" -v c="$c" 'BEGIN { if (p > 0 && c > 0) printf "%.3f", c / p; else print "N/A" }')
	echo "$op,$mode,$size,$ITERS,$p,$c,$unit,$ratio" >>"$OUT/perftest.csv"
	echo "| $op $mode | $tool | $size | $p $unit | $c $unit | $ratio |" >>"$OUT/report.md"
	echo "$op $mode $size B: perftest $p $unit, cclab $c $unit, ratio $ratio"
}

compare write bw 65536 ib_write_bw
compare write bw 1048576 ib_write_bw
compare send bw 65536 ib_send_bw
compare read bw 65536 ib_read_bw
compare fetch_add bw 8 ib_atomic_bw -A FETCH_AND_ADD
compare write lat 2 ib_write_lat
compare send lat 2 ib_send_lat
compare read lat 8 ib_read_lat
compare fetch_add lat 8 ib_atomic_lat -A FETCH_AND_ADD

# The ring's fair link limit: K concurrent pairs r -> r+1 on the one NIC.
pids=()
for ((r = 0; r < K; r++)); do
	port=$((port + 1))
	ib_write_bw -d "$DEV" -x "$GIDX" -p "$port" -s "$RING_BYTES" -n "$ITERS" >/dev/null 2>&1 &
	pids+=($!)
done
sleep 2
base=$((port - K))
for ((r = 0; r < K; r++)); do
	ib_write_bw -d "$DEV" -x "$GIDX" -p "$((base + r + 1))" -s "$RING_BYTES" -n "$ITERS" 127.0.0.1 \
		2>/dev/null | row "$RING_BYTES" >"$OUT/ring-pair-$r.txt" &
	pids+=($!)
done
wait "${pids[@]}" 2>/dev/null
pair=$(cat "$OUT"/ring-pair-*.txt | awk '{ s += $4; n++ } END { if (n) printf "%.2f", s / n }')
# busbw from the time column (the table rounds GB/s to two decimals):
# size * 2(k-1)/k / time, in perftest's MB (2^20 bytes) per second.
time_us=$("$CCLAB" run -n "$K" -b "$RING_BYTES" --device "$DEV" -w 2 --iters 5 2>/dev/null |
	awk -v s="$RING_BYTES" '$1 == s { print $6 }')
busmb=$(awk -v s="$RING_BYTES" -v k="$K" -v t="$time_us" \
	'BEGIN { if (t > 0) printf "%.2f", s * 2 * (k - 1) / k / (t * 1e-6) / 1048576 }')
ratio=$(awk -v p="$pair" -v b="$busmb" 'BEGIN { if (p > 0 && b > 0) printf "%.3f", b / p; else print "N/A" }')
{
	echo
	echo "## Ring allreduce against its fair link limit"
	echo
	echo "$K concurrent ib_write_bw pairs arranged as the ring, $RING_BYTES B: mean $pair MB/s per"
	echo "pair. \`cclab run -n $K -b $RING_BYTES\`: $time_us us, busbw $busmb MB/s,"
	echo "**$ratio** of the per-pair figure."
} >>"$OUT/report.md"
echo "ring,allreduce,$RING_BYTES,5,$pair,$busmb,MB/s,$ratio" >>"$OUT/perftest.csv"
echo "ring k=$K $RING_BYTES B: pair $pair MB/s, allreduce busbw $busmb MB/s, ratio $ratio"
cat "$OUT/report.md"
