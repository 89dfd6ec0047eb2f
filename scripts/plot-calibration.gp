# SPDX-License-Identifier: BSD-3-Clause
# scripts/plot-calibration.gp — measured vs fitted point-to-point figures,
# from a calibration CSV (op,mode,size_bytes,iterations,measured,predicted,
# unit,error_pct; unit is MB/s for mode bw, us for mode lat).  Normally run
# by scripts/plot.sh, which drops the rows without a measured or predicted
# value first, sets the terminal and output, and passes, with -e:
#
#   file1      the calibration CSV (bars appear in the file's row order)
#   name1      its name in messages (default file1; plot.sh passes the
#              original's, file1 being its filtered copy)
#   plottitle  title (default "Calibration: fitted / measured")
#
# By hand:
#   gnuplot -e "set term pngcairo size 1000,600; set output 'cal.png'; \
#               file1='calibration.csv'" scripts/plot-calibration.gp
#
# One bar per row, labelled "op mode size", from 1.0 to predicted/measured:
# bandwidths and latencies have different units, their ratio does not, so
# they share one axis.  Coloured by mode; a dashed line at 1.0 (a perfect
# fit).  By hand, a row with no value keeps its slot and label, with no bar.

if (!exists("file1")) {
	print "plot-calibration.gp: set file1='calibration.csv' (see the header of this script)"
	exit status 2
}
if (!exists("plottitle")) { plottitle = "Calibration: fitted / measured" }
if (!exists("name1")) { name1 = file1 }

set datafile separator comma
set datafile columnheaders
set datafile missing "N/A"
set termoption noenhanced

num_ok(s) = (s eq "" || s eq "N/A" || s eq "NaN" || s eq "nan" || s eq "-") ? 0 : 1
ratio(m, p) = (m > 0 && p > 0) ? p / m : NaN

# ---- pass 1: rows, rows with a ratio, the ratio range, the longest label --
hsize(s) = (s >= 2**30 && s % 2**30 == 0) ? sprintf("%dG", s / 2**30) : \
           (s >= 2**20 && s % 2**20 == 0) ? sprintf("%dM", s / 2**20) : \
           (s >= 2**10 && s % 2**10 == 0) ? sprintf("%dK", s / 2**10) : sprintf("%d", s)
rowname(dummy) = sprintf("%s %s %s", strcol("op"), strcol("mode"), hsize(int(column("size_bytes"))))
nrows = 0; nok = 0; maxlen = 1
stats file1 using (nrows = nrows + 1, \
	maxlen = strlen(rowname(0)) > maxlen ? strlen(rowname(0)) : maxlen, \
	nok = nok + (num_ok(strcol("measured")) && num_ok(strcol("predicted")) && \
		column("measured") > 0 && column("predicted") > 0), 1) nooutput
if (nok == 0) {
	print sprintf("plot-calibration.gp: %s has no row with both a measured and a predicted value", name1)
	exit status 3
}
stats file1 using (ratio(column("measured"), column("predicted"))) nooutput
rmin = STATS_min < 1 ? STATS_min : 1
rmax = STATS_max > 1 ? STATS_max : 1
pad = (rmax - rmin) * 0.15 > 0.05 ? (rmax - rmin) * 0.15 : 0.05

# ---- axes ----------------------------------------------------------------
set xrange [-0.6 : nrows - 0.4]
set yrange [rmin - pad : rmax + pad]
set ylabel "predicted / measured"
set ytics nomirror out
set mytics 2
set grid ytics lt 1 lc rgb "#e0e0e0" lw 1
set border 3 lc rgb "#404040"
set title plottitle
set arrow from graph 0, first 1 to graph 1, first 1 nohead front dt 2 lc rgb "#606060" lw 1
# Rotated labels; the bottom margin sized from the longest one, as in
# plot-links.gp (gnuplot's own is far too generous).
set xtics nomirror out rotate by 45 right font ",9" scale 0
set bmargin 2 + 0.26 * maxlen
if (0.4 * maxlen > 10) { set lmargin 0.4 * maxlen }

# ---- modes ---------------------------------------------------------------
array mname[3] = ["bw (MB/s)", "lat (us)", "other"]
array mcol[3] = [0x1f77b4, 0xff7f0e, 0x7f7f7f]
midx(s) = s eq "bw" ? 1 : s eq "lat" ? 2 : 3
mbits = 0
stats file1 using (mbits = mbits | (1 << midx(strcol("mode"))), 1) nooutput
hasmode(k) = (mbits & (1 << k)) != 0

set style fill solid 0.85 border lc rgb "#303030"
set key top right Left reverse samplen 1.2 font ",9" box lc rgb "#c0c0c0" opaque
# Bars from 1.0 to the ratio (boxxyerror: x, y, xlow, xhigh, ylow, yhigh),
# the ratio written beyond the bar's end up to 40 rows.
r(dummy) = ratio(column("measured"), column("predicted"))
lift = (rmax - rmin + 2 * pad) * 0.035
plot file1 using 0:(r(0)):($0 - 0.375):($0 + 0.375):(1 < r(0) ? 1 : r(0)):(1 < r(0) ? r(0) : 1): \
	(mcol[midx(strcol("mode"))]):xtic(rowname(0)) \
	with boxxyerror lc rgb variable notitle, \
	file1 using 0:(nrows <= 40 ? r(0) + (r(0) < 1 ? -lift : lift) : NaN):(sprintf("%.2f", r(0))) \
	with labels font ",8" notitle, \
	for [k = 1:3] NaN with boxes lc rgb mcol[k] title (hasmode(k) ? mname[k] : "")
