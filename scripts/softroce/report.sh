#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/softroce/report.sh — one readable report of a soft-RoCE results
# folder (docs/softroce.md, docs/plots.md):
#
#     scripts/softroce/report.sh DIR
#
# writes DIR/report.md from whatever of these DIR holds, a section each
# (a missing file leaves a one-line note in its place):
#
#   perftest.csv     cclab p2p --device beside perftest (perftest-report.sh)
#   calibration.csv  measured vs fitted point-to-point figures, with
#                    fabric.yaml (the fitted fabric) when it is there
#   compare.csv      cclab compare --csv: measured vs predicted collective
#   compare.log      cclab compare's own output, verbatim
#
# and draws DIR/calibration.png and DIR/compare.png with scripts/plot.sh
# (skipped, and said so in the report, where gnuplot is missing or the plot
# fails: the markdown is the point, the pictures are a help).
#
# report.md is written to a temporary file in DIR and renamed: a reader
# never sees half a report.  Exit status: 0 report.md written; 1 it could
# not be written; 2 bad usage (no DIR, or DIR is not a folder).
set -euo pipefail

prog=report.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
plot=$here/../plot.sh

usage() { echo "usage: scripts/softroce/report.sh DIR"; }
case ${1:-} in
-h | --help)
	usage
	exit 0
	;;
esac
if [ $# -ne 1 ] || [ -z "$1" ]; then
	echo "$prog: expected one argument, the results folder" >&2
	usage >&2
	exit 2
fi
dir=$1
if [ ! -d "$dir" ]; then
	echo "$prog: '$dir' is not a directory" >&2
	exit 2
fi

have_gnuplot=0
if command -v gnuplot >/dev/null 2>&1; then have_gnuplot=1; fi

# table FILE COLUMN[:FORMAT]...: one markdown row per data row of a CSV,
# the named columns in order (found by header name, so a column added later
# does not shift them), each printed with its printf FORMAT if it has one;
# an empty field reads N/A, and so does a formatted one that is no number
# (C's printf writes "nan").  The files are cclab's and
# perftest-report.sh's: no quoted fields.
table() {
	awk -F, -v want="${*:2}" '
	function num(v) { return v ~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/ }
	{ sub(/\r$/, "") }
	NR == 1 {
		for (i = 1; i <= NF; i++) col[$i] = i
		nw = split(want, w, " ")
		for (i = 1; i <= nw; i++) if (split(w[i], cf, ":") == 2) { w[i] = cf[1]; fmt[i] = cf[2] }
		next
	}
	NF == 0 { next }
	{
		s = "|"
		for (i = 1; i <= nw; i++) {
			v = (w[i] in col) ? $col[w[i]] : ""
			if (v == "" || (i in fmt && !num(v))) v = "N/A"
			else if (i in fmt) v = sprintf(fmt[i], v)
			s = s " " v " |"
		}
		print s
	}' "$1"
}

# draw KIND NAME: DIR/NAME.png from DIR/NAME.csv, and the markdown that
# shows it, or a line saying why there is none.
draw() {
	local kind=$1 name=$2 rc=0
	if [ $have_gnuplot = 0 ]; then
		echo "_Plot skipped: gnuplot is not installed._"
		return
	fi
	"$plot" "$kind" "$dir/$name.png" "$dir/$name.csv" >"$tmp.log" 2>&1 || rc=$?
	if [ $rc -eq 0 ]; then
		echo "![$kind]($name.png)"
	else
		# plot.sh's or its gnuplot script's own reason, not gnuplot's noise.
		echo "_Plot skipped: scripts/plot.sh $kind exited $rc ($(awk '/^plot/ { print; exit }' "$tmp.log"))._"
	fi
	rm -f -- "$tmp.log"
}

# A fence longer than any run of backticks in FILE, so that the file cannot
# close its own block.
fence() {
	awk '{ while (match($0, /`+/)) { if (RLENGTH > n) n = RLENGTH; $0 = substr($0, RSTART + RLENGTH) } }
	END { n = n < 3 ? 3 : n + 1; s = ""; for (i = 0; i < n; i++) s = s "`"; print s }' "$1"
}

# verbatim FILE [LANG]: FILE in a fenced block.
verbatim() {
	local f
	f=$(fence "$1")
	echo "$f${2:-}"
	cat -- "$1"
	# A last line without its newline would swallow the closing fence.
	if [ -s "$1" ] && [ -n "$(tail -c 1 -- "$1")" ]; then echo; fi
	echo "$f"
}

missing() { echo "_No $1 in this folder: section skipped._"; }

perftest_section() {
	local f=$dir/perftest.csv
	echo "## cclab p2p --device beside perftest"
	echo
	if [ ! -f "$f" ]; then
		missing perftest.csv
		return
	fi
	echo "bw: MB/s (2^20 bytes), higher is better; lat: us, lower is better. Each figure is the"
	echo "median of the runs, interleaved with the other tool's; the spread is their min-max."
	echo
	echo "| test | mode | bytes | runs | perftest | spread | cclab | spread | unit | cclab/perftest |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	# The ring line compares other things (allreduce busbw against the mean
	# of concurrent RDMA WRITE pairs): it gets a sentence, not a row.
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i } NR == 1 || $col["test"] != "ring"' "$f" >"$tmp.rows"
	table "$tmp.rows" test mode size repeats perftest perftest_spread cclab cclab_spread unit ratio
	awk -F, '
	function na(v) { return v == "" ? "N/A" : v }
	{ sub(/\r$/, "") }
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["test"] == "ring" {
		u = na($col["unit"])
		printf "\nRing allreduce, %s B, against its fair link limit: `cclab run` busbw %s %s (%s) against %s %s (%s)", \
			na($col["size"]), na($col["cclab"]), u, na($col["cclab_spread"]), na($col["perftest"]), u, \
			na($col["perftest_spread"])
		printf " per concurrent RDMA WRITE pair (cclab p2p --device) arranged as the ring, **%s** of the per-pair figure (medians of %s runs).\n", \
			na($col["ratio"]), na($col["repeats"])
	}' "$f"
	rm -f -- "$tmp.rows"
}

calibration_section() {
	local f=$dir/calibration.csv
	echo "## Calibration: measured vs fitted"
	echo
	if [ ! -f "$f" ]; then
		missing calibration.csv
	else
		echo "| op | mode | bytes | iterations | measured | fitted | unit | error % |"
		echo "|---|---|---|---|---|---|---|---|"
		table "$f" op mode size_bytes iterations measured:%.2f predicted:%.2f unit error_pct:%+.2f
		echo
		draw calibration calibration
	fi
	if [ -f "$dir/fabric.yaml" ]; then
		echo
		echo "The fitted fabric, fabric.yaml:"
		echo
		verbatim "$dir/fabric.yaml" yaml
	fi
}

compare_section() {
	local f=$dir/compare.csv
	echo "## Measured vs predicted (cclab compare)"
	echo
	if [ ! -f "$f" ]; then
		missing compare.csv
	else
		echo "| size (B) | measured (us) | predicted (us) | error % | measured busbw (GB/s) | predicted busbw (GB/s) |"
		echo "|---|---|---|---|---|---|"
		table "$f" size_bytes measured_us:%.2f predicted_us:%.2f error_pct:%+.2f \
			measured_busbw_gbps:%.2f predicted_busbw_gbps:%.2f
		echo
		# Small sizes are latency-bound and noisy under emulation; the
		# target is for the sizes where bandwidth matters.
		awk -F, '
		function num(v) { return v ~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/ }
		{ sub(/\r$/, "") }
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["size_bytes"] >= 65536 && num($col["error_pct"]) {
			e = $col["error_pct"] + 0; if (e < 0) e = -e
			if (!n++ || e > worst) worst = e
		}
		END {
			if (n) printf "largest |error| for sizes >= 64 KiB: %.2f %% (target 15 %%)\n", worst
			else print "largest |error| for sizes >= 64 KiB: N/A, no such size has an error (target 15 %)"
		}' "$f"
		echo
		draw compare compare
	fi
	if [ -f "$dir/compare.log" ]; then
		echo
		echo "### cclab compare output"
		echo
		verbatim "$dir/compare.log"
	fi
}

tmp=$(mktemp "$dir/.report.md.XXXXXX") || exit 1
trap 'rm -f -- "$tmp" "$tmp.rows" "$tmp.log"' EXIT

{
	echo "# Soft-RoCE report: $(basename -- "$(cd "$dir" && pwd)")"
	echo
	if [ $have_gnuplot = 0 ]; then
		echo "_gnuplot is not installed: the plots were skipped (scripts/install-deps.sh)._"
		echo
	fi
	perftest_section
	echo
	calibration_section
	echo
	compare_section
} >"$tmp"

# mktemp made the file 0600; give it what a plain `>` would have.
chmod "$(printf '%o' $((0666 & ~$(umask))))" "$tmp"
mv -f -- "$tmp" "$dir/report.md"
echo "$prog: wrote $dir/report.md"
