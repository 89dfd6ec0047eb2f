# SPDX-License-Identifier: BSD-3-Clause
# scripts/plot-busbw.gp — bus bandwidth against message size, one line per
# results CSV, several files overlaid (predicted vs measured, transports,
# fabrics).  Normally run by scripts/plot.sh, which sets the terminal and
# output and passes the variables below with -e:
#
#   nfiles     number of files (1..)
#   file1..N   results CSV paths (header: ...,size_bytes,...,busbw_gbps,...)
#   label1..N  legend text of each file (default: its path)
#   plottitle  title (default "Bus bandwidth")
#   nrates     number of line-rate lines (default 0)
#   rate1..N   line rates in GB/s, a dashed horizontal line each
#   ratelabel1..N  their legend text ("line rate 100 Gb/s = 12.5 GB/s")
#
# By hand:
#   gnuplot -e "set term pngcairo size 1000,600; set output 'bw.png'; \
#               nfiles=2; file1='a.csv'; file2='b.csv'" scripts/plot-busbw.gp
#
# Columns are found by header name.  Rows whose busbw_gbps (or size_bytes)
# is empty or N/A — failed runs — are skipped, and the line joins the
# remaining points.  X is log2 with 1K/1M/1G labels, Y is GB/s from 0 (up
# to the highest line rate at least, which is busbw's ceiling).

if (!exists("nfiles") || nfiles < 1) {
	print "plot-busbw.gp: set nfiles=N and file1..fileN (see the header of this script)"
	exit status 2
}
if (!exists("plottitle")) { plottitle = "Bus bandwidth" }
if (!exists("nrates")) { nrates = 0 }

set datafile separator comma
set datafile columnheaders
set datafile missing "N/A"
set termoption noenhanced

fname(i) = value(sprintf("file%d", i))
flabel(i) = exists(sprintf("label%d", i)) ? value(sprintf("label%d", i)) : fname(i)

# A field gnuplot cannot turn into a number counts as missing.
num_ok(s) = (s eq "" || s eq "N/A" || s eq "NaN" || s eq "nan" || s eq "-") ? 0 : 1

# One pass per file: how many usable rows, and the size range over all files.
array use[nfiles]
nuse = 0
total = 0
smin = 0; smax = 0
do for [i = 1:nfiles] {
	nv = 0
	stats fname(i) using (nv = nv + num_ok(strcol("busbw_gbps")) * num_ok(strcol("size_bytes")), 1) nooutput
	if (nv == 0) {
		print sprintf("plot-busbw.gp: warning: %s has no rows with a busbw_gbps value; left out", fname(i))
	} else {
		total = total + nv
		nuse = nuse + 1
		use[nuse] = i
		stats fname(i) using (column("size_bytes")) nooutput
		if (smin == 0 || STATS_min < smin) { smin = STATS_min }
		if (STATS_max > smax) { smax = STATS_max }
	}
}
if (total == 0) {
	print "plot-busbw.gp: no row in any input has a busbw_gbps value (all runs failed?)"
	exit status 3
}
if (smin <= 0) { smin = 1 }

# X: log2, a small tic at each power of two and a label on at most 11 of
# them, at the powers that are multiples of 1, 2, 4 or 10 (1K 4K 16K ...
# 1G for nccl-tests' 1K to 1G): 21 labels ran together ("128M256M512M").
lg2(x) = log(x) / log(2)
kmin = floor(lg2(smin) + 1e-9)
kmax = ceil(lg2(smax) - 1e-9)
if (kmax <= kmin) { kmin = kmin - 1; kmax = kmax + 1 }
kstep = (kmax - kmin + 1) <= 11 ? 1 : (kmax - kmin + 1) <= 22 ? 2 : (kmax - kmin + 1) <= 44 ? 4 : 10
sizelabel(k) = k >= 60 ? sprintf("%dE", int(2**(k - 60))) : \
               k >= 50 ? sprintf("%dP", int(2**(k - 50))) : \
               k >= 40 ? sprintf("%dT", int(2**(k - 40))) : \
               k >= 30 ? sprintf("%dG", int(2**(k - 30))) : \
               k >= 20 ? sprintf("%dM", int(2**(k - 20))) : \
               k >= 10 ? sprintf("%dK", int(2**(k - 10))) : sprintf("%d", int(2**k))

set logscale x 2
set xrange [2.0**(kmin - 0.3) : 2.0**(kmax + 0.3)]
set xtics () nomirror out
do for [k = kmin:kmax] {
	if (k % kstep == 0) { set xtics add (sizelabel(k) 2.0**k) } else { set xtics add ("" 2.0**k 1) }
}
unset mxtics

# The line rates stretch the y range: a plot whose busbw stays far below
# the ceiling shows how far.
ymax = 0
do for [i = 1:nrates] { ymax = value(sprintf("rate%d", i)) > ymax ? value(sprintf("rate%d", i)) : ymax }
set yrange [0:*]
if (nrates > 0) {
	stats fname(use[1]) using (column("busbw_gbps")) nooutput
	ytop = STATS_max
	do for [j = 2:nuse] {
		stats fname(use[j]) using (column("busbw_gbps")) nooutput
		ytop = STATS_max > ytop ? STATS_max : ytop
	}
	set yrange [0:(ymax > ytop ? ymax : ytop) * 1.08]
}
set ytics nomirror out
set mytics 2
set grid xtics ytics mytics lt 1 lc rgb "#dcdcdc" lw 1, lt 1 lc rgb "#f0f0f0" lw 1
set border 3 lc rgb "#404040"
set xlabel "message size (bytes)"
set ylabel "bus bandwidth (GB/s)"
set title plottitle
set key top left Left reverse box lc rgb "#c0c0c0" opaque samplen 2.5 spacing 1.2 width 1

# Colours: the tab10 palette; a different point shape per line as well.
set linetype 1 lc rgb "#1f77b4" lw 2 pt 7  ps 0.9
set linetype 2 lc rgb "#d62728" lw 2 pt 5  ps 0.9
set linetype 3 lc rgb "#2ca02c" lw 2 pt 9  ps 1.1
set linetype 4 lc rgb "#ff7f0e" lw 2 pt 13 ps 1.1
set linetype 5 lc rgb "#9467bd" lw 2 pt 11 ps 1.1
set linetype 6 lc rgb "#8c564b" lw 2 pt 15 ps 1.0
set linetype 7 lc rgb "#e377c2" lw 2 pt 6  ps 0.9
set linetype 8 lc rgb "#7f7f7f" lw 2 pt 4  ps 0.9
set linetype 9 lc rgb "#bcbd22" lw 2 pt 8  ps 1.0
set linetype 10 lc rgb "#17becf" lw 2 pt 12 ps 1.0
set linetype cycle 10

# Line rates: dashed, dark grey, each in the key and also written on the
# line at the right end.
rate(i) = value(sprintf("rate%d", i))
ratelabel(i) = value(sprintf("ratelabel%d", i))
do for [i = 1:nrates] {
	set label i + 100 ratelabel(i) at graph 0.99, first rate(i) right offset 0, 0.6 \
		textcolor rgb "#404040" font ",9" front
}

# Colour i stays with file i even when an earlier file was left out.
plot for [j = 1:nuse] fname(use[j]) \
	using (column("size_bytes") > 0 ? column("size_bytes") : NaN):(column("busbw_gbps")) \
	with linespoints lt use[j] title flabel(use[j]), \
	for [i = 1:nrates] rate(i) with lines dt 2 lw 1.5 lc rgb "#404040" title ratelabel(i)
