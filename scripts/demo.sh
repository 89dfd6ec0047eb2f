#!/usr/bin/env bash
# The main job, as `make demo` runs it: show what a ring allreduce is at the
# verbs level, then prove the schedules move the right bytes.
set -euo pipefail
CCLAB=${1:-build/cclab}

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "NCCL's ring allreduce on 4 ranks: 2k-1 = 7 primitive steps per rank"
"$CCLAB" schedule -n 4 -c allreduce -t write_imm -b 4K --rank 1 --primitives

say "The verbs-level work of rank 1 for one small allreduce (write_imm transport)"
"$CCLAB" schedule -n 4 -c allreduce -t write_imm -b 64 --rank 1

say "Data executor: ring allreduce, 8 ranks, 8 B .. 64 MiB, RDMA WRITE WITH IMM"
"$CCLAB" check -n 8 -c allreduce -t write_imm -b 8 -e 64M -f 8 -d float -o sum

say "Reduce-scatter over SEND/RECV, all-gather over WRITE + flag, 5 ranks, bfloat16 / int32"
"$CCLAB" check -n 5 -c reducescatter -t send_recv -b 1K -e 16M -f 16 -d bfloat16 -o max
"$CCLAB" check -n 5 -c allgather -t write_flag -b 1K -e 16M -f 16 -d int32 -o sum

mkdir -p results
"$CCLAB" check -n 8 -c allreduce -t write_imm -b 1M -e 16M -f 4 -d half -o avg \
	--json results/demo-check.json >/dev/null
say "Per-rank data bytes of the 1 MiB run, from results/demo-check.json"
echo "ring allreduce sends 2N(k-1)/k = 2 * 1048576 * 7 / 8 = $((2 * 1048576 * 7 / 8)) bytes per rank:"
grep -m1 '"data_bytes_sent"' results/demo-check.json

say "Simulator: the same ring allreduce timed on HDR InfiniBand, 8 ranks on a ring of links"
"$CCLAB" sim -n 8 -c allreduce -t write_imm -b 1K -e 256M -f 8 --fabric ib-hdr --topology ring

say "RoCEv2 400G, 8 ranks on one switch: SEND/RECV vs RDMA WRITE WITH IMM at 64 MiB"
"$CCLAB" sim -n 8 -b 64M --fabric roce-400g --topology star -t send_recv | grep -v '^#'
"$CCLAB" sim -n 8 -b 64M --fabric roce-400g --topology star -t write_imm | grep -v '^#'

"$CCLAB" sim -n 8 -b 64M --fabric ib-hdr --json results/demo-sim.json \
	--trace results/demo-sim-trace.json >/dev/null
say "Where the time went, from results/demo-sim.json (busy microseconds of rank 0)"
grep -E '"(time_us|bound_us)"' results/demo-sim.json
sed -n '/"phases"/,/}/p' results/demo-sim.json | sed 's/, .*\]/ ...]/'
echo "timeline for Perfetto (ui.perfetto.dev): results/demo-sim-trace.json"
