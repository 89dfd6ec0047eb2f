#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The main job, as `make demo` runs it (under a minute): what a ring
# allreduce is at the verbs level, then scenarios/demo.yaml — NCCL's ring
# allreduce on 8 ranks over RoCEv2 100G, 1 KiB to 1 GiB — simulated with
# its data checked, nccl-tests' table, and a busbw plot.
set -euo pipefail
CCLAB=${1:-build/cclab}
OUT=results

# Bold headings only on a terminal: `make demo > log` or a CI log must not
# fill with escape codes, and NO_COLOR (no-color.org) turns them off anywhere.
if [[ -t 1 && -z ${NO_COLOR:-} ]]; then
	say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
	say() { printf '\n== %s\n' "$*"; }
fi
mkdir -p "$OUT"

say "NCCL's ring allreduce on 4 ranks: 2k-1 = 7 primitive steps per rank"
"$CCLAB" schedule -n 4 -c allreduce -t write_imm -b 4K --rank 1 --primitives

say "scenarios/demo.yaml: ring allreduce, 8 ranks on one switch, RoCEv2 100G"
"$CCLAB" run scenarios/demo.yaml --csv "$OUT/demo.csv" --json "$OUT/demo.json" \
	--links "$OUT/demo-links.csv"

say "The same scenario on RoCEv2 400G (--set fabric.preset=roce-400g), for the plot"
"$CCLAB" run scenarios/demo.yaml --set fabric.preset=roce-400g --set check=false \
	--csv "$OUT/demo-400g.csv" | grep -v '^#'

say "One 1 MiB allreduce, traced: every post, doorbell, DMA, packet, CQE, poll and reduce"
for t in json csv; do
	"$CCLAB" run scenarios/demo.yaml --set sizes=1MiB --trace "$OUT/demo-trace.$t" >/dev/null
done
echo "$(($(wc -l <"$OUT/demo-trace.csv") - 1)) events in $OUT/demo-trace.csv and $OUT/demo-trace.json"

echo
echo "ring allreduce sends 2N(k-1)/k = 2 * 1048576 * 7 / 8 = $((2 * 1048576 * 7 / 8)) bytes per rank at 1 MiB:"
grep -m1 -A1 '"bytes": 1048576' "$OUT/demo.json" >/dev/null && \
	sed -n '/"bytes": 1048576/,/"data_bytes_sent"/p' "$OUT/demo.json" | grep data_bytes_sent

if command -v gnuplot >/dev/null; then
	bash scripts/plot.sh busbw "$OUT/demo-busbw.png" "$OUT/demo.csv" "$OUT/demo-400g.csv" \
		--label "RoCEv2 100G" --label "RoCEv2 400G" \
		--title "ring allreduce, 8 ranks, one switch: simulated busbw"
	bash scripts/plot.sh links "$OUT/demo-links.png" "$OUT/demo-links.csv" \
		--title "link utilisation, 1 GiB allreduce, RoCEv2 100G"
	bash scripts/plot.sh timeline "$OUT/demo-timeline.png" "$OUT/demo-trace.csv" \
		--title "1 MiB ring allreduce, 8 ranks: every rank's CPU, GPU and NIC"
	echo "plots: $OUT/demo-busbw.png $OUT/demo-links.png $OUT/demo-timeline.png"
else
	echo "gnuplot not found: no plots (scripts/install-deps.sh installs gnuplot-nox)"
fi
echo "timeline for Perfetto (ui.perfetto.dev): $OUT/demo-trace.json"
