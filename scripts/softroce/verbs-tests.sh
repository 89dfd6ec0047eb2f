#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/softroce/verbs-tests.sh — the verbs executor on a real verbs stack:
# a plan for scripts/softroce/run.sh, run inside the VM on rxe0 (soft-RoCE),
# all ranks on the one device in loopback.  `make test-softroce` runs it:
#
#     scripts/softroce/run.sh --plan scripts/softroce/verbs-tests.sh -- build/cclab
#
# What it asserts (each line "ok" or "FAIL"; exit 1 if any failed):
#   1. #wrong 0 for k = 2, 3, 4 x allreduce, reduce-scatter, all-gather x
#      write_imm, send_recv, write_flag, 4 B to 4 MiB; k = 8, 4 B to 4 MiB;
#      halving-doubling allreduce for k = 3, 4, 5; the LL and LL128
#      protocols on every transport; tree, hierarchical, rail-ordered
#      channels and all-to-all; and other dtypes and operators;
#   2. cclab p2p --device for perftest's bw and lat tests, bw both ways (-b);
#      cclab as ib_write_bw (also -b) and ib_read_lat, a server and its
#      client in two processes, beside perftest's own ib_write_bw;
#      --json / --trace of a run, the per-rank
#      data bytes 2N(k-1)/k, and cclab compare of it against cclab sim's
#      prediction;
#   3. the error paths: a corrupted rkey -> IBV_WC_REM_ACCESS_ERR naming the
#      rank and op, a corrupted lkey -> a local error, a receive not posted
#      with rnr_retry 1 -> IBV_WC_RNR_RETRY_EXC_ERR on the sender, a rank killed
#      mid-run -> the others exit non-zero naming it within the timeout, a
#      device or GID that is not there -> a message that says so.
# Absolute times mean nothing under emulation (docs/softroce.md).
set -u

CCLAB=${1:-build/cclab}
DEV=${CCLAB_SOFTROCE_DEV:-rxe0}
OUT=${OUT:-/tmp}
pass=0
fail=0

ok() {
	pass=$((pass + 1))
	echo "ok   $*"
}
bad() {
	fail=$((fail + 1))
	echo "FAIL $*"
}
# check NAME COND...: ok when the command succeeds.
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else bad "$name"; fi
}
has() { grep -q -- "$1" "$2"; }

run() { "$CCLAB" run --device "$DEV" "$@"; }

# 1. correctness
for k in 2 3 4; do
	for c in allreduce reducescatter allgather; do
		for t in write_imm send_recv write_flag; do
			log=$OUT/k$k-$c-$t.log
			run -n "$k" -c "$c" -t "$t" -b 4 -e 4M -f 32 -w 1 --iters 2 --timeout 30 >"$log" 2>&1
			rc=$?
			check "k=$k $c $t: exit $rc, #wrong 0" \
				test $rc = 0 -a "$(grep -c 'Out of bounds values : 0 OK' "$log")" = 1
		done
	done
done
# k = 8, and up to 4 MiB (4 B, 128 B, 4 KiB, 128 KiB, 4 MiB), NCCL's transport:
# eight processes on the guest's two vCPUs, so a generous timeout.
for c in allreduce reducescatter allgather; do
	log=$OUT/k8-$c-write_imm.log
	run -n 8 -c "$c" -b 4 -e 4M -f 32 -w 1 --iters 2 --timeout 60 >"$log" 2>&1
	rc=$?
	check "k=8 $c write_imm 4 B..4 MiB: exit $rc, #wrong 0" \
		test $rc = 0 -a "$(grep -c 'Out of bounds values : 0 OK' "$log")" = 1
done
# Halving-doubling: QPs to log2 k partners per rank, and the fix-up pairs
# of k = 3 and 5; every transport.
for k in 3 4 5; do
	for t in write_imm send_recv write_flag; do
		log=$OUT/k$k-hd-$t.log
		run -n "$k" -A halving-doubling -t "$t" -b 4 -e 1M -f 64 -w 1 --iters 2 --timeout 30 \
			>"$log" 2>&1
		rc=$?
		check "k=$k allreduce halving-doubling $t: exit $rc, #wrong 0" \
			test $rc = 0 -a "$(grep -c 'Out of bounds values : 0 OK' "$log")" = 1
	done
done
# The LL protocols: the reducing thread reads flagged lines the RNIC wrote
# (every line's flag checked, retried until all are there), every
# transport; and the other algorithms and orders on real QPs.
for pr in ll ll128; do
	for t in write_imm send_recv write_flag; do
		log=$OUT/k3-$pr-$t.log
		run -n 3 -P "$pr" -t "$t" -b 4 -e 1M -f 64 -w 1 --iters 2 --timeout 30 >"$log" 2>&1
		rc=$?
		check "k=3 allreduce $pr $t: exit $rc, #wrong 0" \
			test $rc = 0 -a "$(grep -c 'Out of bounds values : 0 OK' "$log")" = 1
	done
done
for args in "-A tree -n 5" "-A tree -n 4 -c broadcast -r 2 -P ll128" \
	"-A hierarchical -n 4 --ranks-per-node 2 -P ll" "-n 6 --ranks-per-node 3 --ring-order rail --channels 2" \
	"-A direct -n 3 -c alltoall -P ll" "-n 3 -c sendrecv --channels 2"; do
	# shellcheck disable=SC2086 # the options split on purpose
	name=$(echo $args | tr ' ' '_')
	log=$OUT/$name.log
	# shellcheck disable=SC2086
	run $args -b 4 -e 1M -f 64 -w 1 --iters 2 --timeout 30 >"$log" 2>&1
	rc=$?
	check "$args: exit $rc, #wrong 0" \
		test $rc = 0 -a "$(grep -c 'Out of bounds values : 0 OK' "$log")" = 1
done
for dto in "half max" "bfloat16 sum" "int8 prod" "uint64 min" "double avg" "int32 avg"; do
	# shellcheck disable=SC2086 # split into dtype and op on purpose
	set -- $dto
	log=$OUT/k3-$1-$2.log
	run -n 3 -d "$1" -o "$2" -b 4 -e 64K -f 16 -w 1 --iters 2 >"$log" 2>&1
	check "k=3 allreduce $1 $2: #wrong 0" has 'Out of bounds values : 0 OK' "$log"
done

# 2. files, byte counts, and the comparison with the simulator
run -n 4 -b 64K -e 256K -f 4 -w 1 --iters 3 --json "$OUT/measured.json" \
	--trace "$OUT/measured.csv" >"$OUT/measured.log" 2>&1
check "run --json --trace: exit 0" test $? = 0
check "json: executor verbs, ok" has '"executor": "verbs"' "$OUT/measured.json"
# 2N(k-1)/k per rank: 64 KiB, k = 4 -> 98304 bytes.
check "json: 98304 data bytes per rank at 64 KiB" \
	has '"data_bytes_sent": \[98304, 98304, 98304, 98304\]' "$OUT/measured.json"
check "trace: events of 4 ranks" test "$(cut -d, -f4 "$OUT/measured.csv" | sort -u | grep -c '^[0-9]')" = 4
"$CCLAB" sim -n 4 -b 64K -e 256K -f 4 --memory host --fabric roce-100g --topology star \
	--json "$OUT/predicted.json" --trace "$OUT/predicted.csv" >/dev/null 2>&1
"$CCLAB" compare "$OUT/measured.json" "$OUT/predicted.json" --trace-measured "$OUT/measured.csv" \
	--trace-predicted "$OUT/predicted.csv" >"$OUT/compare.log" 2>&1
check "compare: exit 0" test $? = 0
check "compare: 7 primitive steps (k = 4)" \
	test "$(grep -cE '^ +[0-6] +(send|recvReduceSend|recvReduceCopySend|recvCopySend|recv) ' "$OUT/compare.log")" = 7
check "compare: post->cqe measured" has 'post->cqe' "$OUT/compare.log"

# a scenario with executors [verbs, sim]: both tables, then the comparison
"$CCLAB" run scenarios/verbs-local-4.yaml --device "$DEV" -w 1 --iters 2 >"$OUT/scenario.log" 2>&1
check "scenario verbs+sim: exit 0" test $? = 0
check "scenario verbs+sim: measured, predicted, compared" \
	test "$(grep -c 'Out of bounds values : 0 OK' "$OUT/scenario.log")" = 2 -a \
	"$(grep -c '^# cclab compare: measured verbs (rxe0) vs predicted sim (roce-100g)' "$OUT/scenario.log")" = 1

# perftest's tests on the verbs executor (cclab p2p --device), each with a row
for t in "write bw 65536" "send bw 65536" "read bw 65536" "fetch_add bw 8" "cmp_swap lat 8" \
	"write lat 2" "send lat 64" "read lat 8"; do
	# shellcheck disable=SC2086 # split into op, mode and size on purpose
	set -- $t
	log=$OUT/p2p-$1-$2.log
	"$CCLAB" p2p --device "$DEV" --op "$1" --mode "$2" -s "$3" -n 100 >"$log" 2>&1
	check "p2p $1 $2 $3 B: exit 0, a row" test $? = 0 -a "$(grep -cE "^ +$3 +100 " "$log")" = 1
done

# perftest's -b on the device: both ranks send, each times its own, the row their sum
for op in write send; do
	"$CCLAB" p2p --device "$DEV" --op $op --bidirectional -s 64K -n 100 >"$OUT/p2p-$op-b.log" 2>&1
	check "p2p $op bw --bidirectional: exit 0, a row" test $? = 0 -a \
		"$(grep -cE '^ +65536 +100 ' "$OUT/p2p-$op-b.log")" = 1
	echo "# p2p $op 64 KiB x 100, BW average: one way $(awk '$1 == 65536 { print $4 }' \
		"$OUT/p2p-$op-bw.log") MB/s, both ways $(awk '$1 == 65536 { print $4 }' \
		"$OUT/p2p-$op-b.log") MB/s"
done

"$CCLAB" p2p --device "$DEV" --op write -s 64K -n 100 --json "$OUT/p2p.json" --csv "$OUT/p2p.csv" \
	>/dev/null 2>&1
check "p2p --json/--csv: executor verbs, the figures" \
	test "$(grep -c '"bw_average_mb_s"' "$OUT/p2p.json")" = 1 -a \
	"$(grep -c "^,verbs,$DEV,,write,bw,65536,100," "$OUT/p2p.csv")" = 1

# perftest's two-sided way (cli/perftest.h): cclab linked as ib_write_bw and
# ib_read_lat, a server (-d DEV, waiting on -p) and its client (-d DEV HOST),
# each its own process as on two hosts; beside it perftest's own ib_write_bw
# with the same flags (the two do not talk to each other: each meets its own
# kind over TCP).
# shellcheck source=scripts/softroce/pair.sh
. scripts/softroce/pair.sh
PTBIN=$(mktemp -d)
for p in ib_write_bw ib_read_lat; do ln -s "$(readlink -f "$CCLAB")" "$PTBIN/$p"; done
PTIP=${CCLAB_SOFTROCE_IP:-127.0.0.1}
PTGID=()
[ -n "${CCLAB_SOFTROCE_GID_INDEX:-}" ] && PTGID=(-x "$CCLAB_SOFTROCE_GID_INDEX")
pair pt-write-bw 18610 120 "$PTBIN/ib_write_bw" -d "$DEV" "${PTGID[@]}" -s 65536 -n 100 -F -p 18610 -- \
	"$PTBIN/ib_write_bw" -d "$DEV" "${PTGID[@]}" -s 65536 -n 100 -F -p 18610 "$PTIP"
check "ib_write_bw as cclab, server and client: exit 0" test $? = 0
check "ib_write_bw as cclab: the client's row on both sides" \
	test "$(cat "$OUT/pt-write-bw-server.log" "$OUT/pt-write-bw-client.log" |
		grep -cE '^ +65536 +100 ')" = 2 -a \
	"$(grep -c 'this host is the server' "$OUT/pt-write-bw-server.log")" = 1
pair pt-write-bw-b 18613 120 "$PTBIN/ib_write_bw" -b -d "$DEV" "${PTGID[@]}" -s 65536 -n 100 -F \
	-p 18613 -- "$PTBIN/ib_write_bw" -b -d "$DEV" "${PTGID[@]}" -s 65536 -n 100 -F -p 18613 "$PTIP"
check "ib_write_bw -b as cclab, server and client: exit 0" test $? = 0
check "ib_write_bw -b as cclab: the same summed row on both sides" \
	test "$(cat "$OUT/pt-write-bw-b-server.log" "$OUT/pt-write-bw-b-client.log" |
		grep -cE '^ +65536 +100 ')" = 2 -a \
	"$(cat "$OUT/pt-write-bw-b-server.log" "$OUT/pt-write-bw-b-client.log" |
		grep -E '^ +65536 +100 ' | sort -u | wc -l)" = 1 -a \
	"$(grep -c 'as ib_write_bw -b: RDMA_WRITE, both ranks sending' \
		"$OUT/pt-write-bw-b-client.log")" = 1
pair pt-read-lat 18611 120 "$PTBIN/ib_read_lat" -d "$DEV" "${PTGID[@]}" -n 100 -p 18611 -- \
	"$PTBIN/ib_read_lat" -d "$DEV" "${PTGID[@]}" -n 100 -p 18611 "$PTIP"
check "ib_read_lat as cclab, server and client: exit 0" test $? = 0
check "ib_read_lat as cclab: nine columns" \
	test "$(awk '$1 == 2 && $2 == 100 && NF == 9' "$OUT/pt-read-lat-client.log" | wc -l)" = 1
if command -v ib_write_bw >/dev/null; then
	pair perftest-write-bw 18612 120 ib_write_bw -d "$DEV" "${PTGID[@]}" -s 65536 -n 100 -F \
		-p 18612 -- ib_write_bw -d "$DEV" "${PTGID[@]}" -s 65536 -n 100 -F -p 18612 "$PTIP"
	check "perftest's ib_write_bw beside it: exit 0" test $? = 0
	echo "# ib_write_bw 64 KiB x 100: perftest: $(awk '$1 == 65536 { print $4; exit }' \
		"$OUT/perftest-write-bw-client.log") MB/s, cclab: $(awk '$1 == 65536 { print $4; exit }' \
		"$OUT/pt-write-bw-client.log") MB/s"
	pair perftest-write-bw-b 18614 120 ib_write_bw -b -d "$DEV" "${PTGID[@]}" -s 65536 -n 100 \
		-F -p 18614 -- ib_write_bw -b -d "$DEV" "${PTGID[@]}" -s 65536 -n 100 -F -p 18614 \
		"$PTIP"
	check "perftest's ib_write_bw -b beside it: exit 0, the same row on both sides" \
		test $? = 0 -a "$(cat "$OUT/perftest-write-bw-b-server.log" \
		"$OUT/perftest-write-bw-b-client.log" | awk '$1 == 65536 { print $4 }' |
		sort -u | wc -l)" = 1
	echo "# ib_write_bw -b 64 KiB x 100: perftest: $(awk '$1 == 65536 { print $4; exit }' \
		"$OUT/perftest-write-bw-b-client.log") MB/s, cclab: $(awk '$1 == 65536 { print $4 }' \
		"$OUT/pt-write-bw-b-client.log") MB/s"
fi
rm -rf "$PTBIN"

# 3. error paths
op=$("$CCLAB" schedule -n 2 -b 64K --rank 1 --memory host | awk '/RDMA_WRITE_WITH_IMM/ { print $3; exit }')
run -n 2 -b 64K -w 0 --iters 1 --fault "rkey:1:$op" >"$OUT/rkey.out" 2>"$OUT/rkey.err"
check "wrong rkey: exit 1" test $? = 1
check "wrong rkey: IBV_WC_REM_ACCESS_ERR on rank 1 op $op" \
	grep -q "rank 1 QP [0-9]* (to rank 0): op $op (post_send RDMA_WRITE_WITH_IMM.*IBV_WC_REM_ACCESS_ERR" "$OUT/rkey.err"
run -n 2 -b 64K -w 0 --iters 1 --fault "lkey:1:$op" >"$OUT/lkey.out" 2>"$OUT/lkey.err"
# mlx5 reports a bad lkey as IBV_WC_LOC_PROT_ERR; rxe's requester, which
# fails the copy out of the MR, as IBV_WC_LOC_QP_OP_ERR.
check "wrong lkey: a local error on rank 1 op $op" \
	grep -q "rank 1 .*op $op .*IBV_WC_LOC_\(PROT\|QP_OP\)_ERR" "$OUT/lkey.err"

# A receiver that fell behind: rank 1's first receive not posted, so rank
# 0's WRITE WITH IMM meets an empty receive queue; with rnr_retry 1 the
# RNIC gives up (IBA 9.7.5.2.8), with NCCL's 7 it would retry forever.
rop=$("$CCLAB" schedule -n 2 -b 64K --rank 1 --memory host | awk '/post_recv/ { print $3; exit }')
run -n 2 -b 64K -w 0 --iters 1 --fault "norecv:1:$rop" --rnr-retry 1 >"$OUT/rnr.out" 2>"$OUT/rnr.err"
check "missing receive, rnr_retry 1: exit 1" test $? = 1
check "missing receive: IBV_WC_RNR_RETRY_EXC_ERR on rank 0's WRITE_WITH_IMM" \
	grep -q "rank 0 QP [0-9]* (to rank 1): op [0-9]* (post_send RDMA_WRITE_WITH_IMM.*IBV_WC_RNR_RETRY_EXC_ERR" "$OUT/rnr.err"

run -n 4 -b 4M -w 2 --iters 1000 --timeout 5 >"$OUT/kill.out" 2>"$OUT/kill.err" &
job=$!
sleep 5
pkill -KILL -n -f "cclab run --device $DEV -n 4 -b 4M"
t0=$(date +%s)
wait $job
rc=$?
took=$(($(date +%s) - t0))
check "rank killed: exit $rc != 0, after $took s (timeout 5 s)" test $rc != 0 -a $took -le 20
check "rank killed: named" grep -q "rank 3 .*\(killed\|closed the connection\)" "$OUT/kill.err"

"$CCLAB" run -n 2 --device nosuch -b 4 >/dev/null 2>"$OUT/nodev.err"
check "unknown device: exit 1, named" grep -q "no RDMA device 'nosuch'" "$OUT/nodev.err"
run -n 2 --gid-index 9 -b 4 >/dev/null 2>"$OUT/gid.err"
check "missing GID: named" grep -q "has no GID at index 9" "$OUT/gid.err"

echo "verbs-tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
