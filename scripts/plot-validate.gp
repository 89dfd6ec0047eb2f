# SPDX-License-Identifier: BSD-3-Clause
# scripts/plot-validate.gp — predicted against measured for every case and
# size of `cclab validate --csv` (case,kind,size_bytes,measured_time_us,
# predicted_time_us,measured_bw,predicted_bw,bw_unit,status; an unknown
# number is an empty field).  Normally run by scripts/plot.sh, which sets
# the terminal and output and passes, with -e:
#
#   file1      the validate CSV (a plain copy: quoted fields made plain)
#   plottitle  title (default "Predicted vs measured")
#
# Two log-log panels: times (us: nccl-tests' time, perftest's t_typical)
# and bandwidths (GB/s: nccl-tests' busbw, perftest's MB/sec x 2^20 / 1e9
# or Gb/sec / 8),
# predicted (y) against measured (x), one colour per kind of test; the
# diagonal is a perfect prediction and the dashed lines +-10 % around it.

if (!exists("file1")) {
	print "plot-validate.gp: set file1='validate.csv' (see the header of this script)"
	exit status 2
}
if (!exists("plottitle")) { plottitle = "Predicted vs measured" }

set datafile separator comma
set datafile columnheaders
set termoption noenhanced
set encoding utf8

num_ok(s) = (s eq "" || s eq "N/A" || s eq "NaN" || s eq "nan" || s eq "-") ? 0 : 1
gbps(v) = strcol("bw_unit") eq "MB/sec" ? v * 1048576 / 1e9 : strcol("bw_unit") eq "Gb/sec" ? v / 8 : v
# one series per kind: k is "nccl-tests", "perftest bw" or "perftest lat"
tpt(k, c) = (strcol("kind") eq k && num_ok(strcol("measured_time_us")) && \
	num_ok(strcol("predicted_time_us"))) ? column(c) : NaN
bpt(k, c) = (strcol("kind") eq k && num_ok(strcol("measured_bw")) && \
	num_ok(strcol("predicted_bw"))) ? gbps(column(c)) : NaN

nt = 0; nb = 0
stats file1 using (nt = nt + (num_ok(strcol("measured_time_us")) && num_ok(strcol("predicted_time_us"))), \
	nb = nb + (num_ok(strcol("measured_bw")) && num_ok(strcol("predicted_bw"))), 1) nooutput
if (nt + nb == 0) {
	print sprintf("plot-validate.gp: %s has no size with both a measured and a predicted figure", file1)
	exit status 3
}

# Each panel's range: both axes alike, around its points.
if (nt > 0) {
	stats file1 using (num_ok(strcol("measured_time_us")) && num_ok(strcol("predicted_time_us")) ? \
		column("measured_time_us") : NaN):(num_ok(strcol("predicted_time_us")) && \
		num_ok(strcol("measured_time_us")) ? column("predicted_time_us") : NaN) nooutput
	tlo = (STATS_min_x < STATS_min_y ? STATS_min_x : STATS_min_y) / 2
	thi = (STATS_max_x > STATS_max_y ? STATS_max_x : STATS_max_y) * 2
}
if (nb > 0) {
	stats file1 using (num_ok(strcol("measured_bw")) && num_ok(strcol("predicted_bw")) ? \
		gbps(column("measured_bw")) : NaN):(num_ok(strcol("predicted_bw")) && \
		num_ok(strcol("measured_bw")) ? gbps(column("predicted_bw")) : NaN) nooutput
	blo = (STATS_min_x < STATS_min_y ? STATS_min_x : STATS_min_y) / 2
	bhi = (STATS_max_x > STATS_max_y ? STATS_max_x : STATS_max_y) * 2
}

set multiplot layout 1,2 title plottitle font ",13"
set border 3 lc rgb "#404040"
set tics nomirror
set logscale xy 10
set grid xtics ytics lc rgb "#e0e0e0" lw 1
set key top left box opaque
set style line 1 lc rgb "#1f77b4" pt 7 ps 0.7
set style line 2 lc rgb "#d62728" pt 5 ps 0.7
set style line 3 lc rgb "#2ca02c" pt 9 ps 0.9
set style line 9 lc rgb "#404040" lw 1
set style line 10 lc rgb "#808080" dt 2 lw 1
set samples 2
set xlabel "measured"
set ylabel "predicted"

if (nt > 0) {
	set xrange [tlo:thi]
	set yrange [tlo:thi]
	set title "time (us)"
	plot x ls 9 notitle, 1.1 * x ls 10 title "+-10 %", 0.9 * x ls 10 notitle, \
		file1 using (tpt("nccl-tests", "measured_time_us")):(tpt("nccl-tests", "predicted_time_us")) ls 1 title "nccl-tests time", \
		file1 using (tpt("perftest lat", "measured_time_us")):(tpt("perftest lat", "predicted_time_us")) ls 3 title "perftest t_typical"
} else {
	set title "time (us): no size"
	plot [1:10][1:10] NaN notitle
}
if (nb > 0) {
	set xrange [blo:bhi]
	set yrange [blo:bhi]
	set title "bandwidth (GB/s)"
	plot x ls 9 notitle, 1.1 * x ls 10 title "+-10 %", 0.9 * x ls 10 notitle, \
		file1 using (bpt("nccl-tests", "measured_bw")):(bpt("nccl-tests", "predicted_bw")) ls 1 title "nccl-tests busbw", \
		file1 using (bpt("perftest bw", "measured_bw")):(bpt("perftest bw", "predicted_bw")) ls 2 title "perftest BW average"
} else {
	set title "bandwidth (GB/s): no size"
	plot [1:10][1:10] NaN notitle
}
unset multiplot
