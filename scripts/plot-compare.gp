# SPDX-License-Identifier: BSD-3-Clause
# scripts/plot-compare.gp — measured vs predicted collective time per
# message size, from the CSV of `cclab compare --csv` (size_bytes,count,
# measured_us,predicted_us,error_pct,measured_busbw_gbps,
# predicted_busbw_gbps,wrong; an unknown number is an empty field).
# Normally run by scripts/plot.sh, which sets the terminal and output and
# passes, with -e:
#
#   file1      the compare CSV
#   plottitle  title (default "Measured vs predicted")
#
# By hand:
#   gnuplot -e "set term pngcairo size 1000,600; set output 'cmp.png'; \
#               file1='compare.csv'" scripts/plot-compare.gp
#
# Two panels over the same size axis (log2, 1K/1M/1G as in plot-busbw.gp):
# on top the two times in us, log-log, one line each; below the error %
# ((predicted - measured) / measured, + = the model is slower) as impulses,
# red beyond the dashed +-15 % lines.  Empty or N/A fields are skipped.

if (!exists("file1")) {
	print "plot-compare.gp: set file1='compare.csv' (see the header of this script)"
	exit status 2
}
if (!exists("plottitle")) { plottitle = "Measured vs predicted" }

set datafile separator comma
set datafile columnheaders
set datafile missing "N/A"
set termoption noenhanced
set encoding utf8

num_ok(s) = (s eq "" || s eq "N/A" || s eq "NaN" || s eq "nan" || s eq "-") ? 0 : 1

# ---- pass 1: usable rows, the size range, the largest |error| ------------
ntime = 0; nerr = 0
stats file1 using (ntime = ntime + num_ok(strcol("size_bytes")) * \
	(num_ok(strcol("measured_us")) || num_ok(strcol("predicted_us"))), \
	nerr = nerr + num_ok(strcol("size_bytes")) * num_ok(strcol("error_pct")), 1) nooutput
if (ntime == 0) {
	print sprintf("plot-compare.gp: %s has no row with a measured or predicted time", file1)
	exit status 3
}
stats file1 using (column("size_bytes")) nooutput
smin = STATS_min > 0 ? STATS_min : 1
smax = STATS_max > smin ? STATS_max : smin
emax = 0
if (nerr > 0) {
	stats file1 using (abs(column("error_pct"))) nooutput
	emax = STATS_max
}
limit = 15

# ---- the size axis, as in plot-busbw.gp --------------------------------
lg2(x) = log(x) / log(2)
kmin = floor(lg2(smin) + 1e-9)
kmax = ceil(lg2(smax) - 1e-9)
if (kmax <= kmin) { kmin = kmin - 1; kmax = kmax + 1 }
kstep = ceil((kmax - kmin + 1) / 24.0)
sizelabel(k) = k >= 60 ? sprintf("%dE", int(2**(k - 60))) : \
               k >= 50 ? sprintf("%dP", int(2**(k - 50))) : \
               k >= 40 ? sprintf("%dT", int(2**(k - 40))) : \
               k >= 30 ? sprintf("%dG", int(2**(k - 30))) : \
               k >= 20 ? sprintf("%dM", int(2**(k - 20))) : \
               k >= 10 ? sprintf("%dK", int(2**(k - 10))) : sprintf("%d", int(2**k))
size(c) = column(c) > 0 ? column(c) : NaN

set logscale x 2
set xrange [2.0**(kmin - 0.3) : 2.0**(kmax + 0.3)]
unset mxtics
set border 3 lc rgb "#404040"
set grid xtics ytics lt 1 lc rgb "#dcdcdc" lw 1
# Fixed margins, so that the two panels' x axes line up.
set lmargin at screen 0.11
set rmargin at screen 0.97

set linetype 1 lc rgb "#1f77b4" lw 2 pt 7 ps 0.9
set linetype 2 lc rgb "#d62728" lw 2 pt 5 ps 0.9

set multiplot title plottitle

# ---- top: the two times, log-log ---------------------------------------
set tmargin at screen 0.90
set bmargin at screen 0.45
set xtics () nomirror out
do for [k = kmin:kmax:kstep] { set xtics add ("" 2.0**k) }   # labels below only
set logscale y 10
set ytics nomirror out
set ylabel "time (us)"
set key top left Left reverse box lc rgb "#c0c0c0" opaque samplen 2.5 spacing 1.2 width 1
plot file1 using (size("size_bytes")):(column("measured_us")) with linespoints lt 1 title "measured", \
	file1 using (size("size_bytes")):(column("predicted_us")) with linespoints lt 2 title "predicted"

# ---- bottom: the error, with the +-limit band ---------------------------
set tmargin at screen 0.39
set bmargin at screen 0.13
set xtics () nomirror out
do for [k = kmin:kmax:kstep] { set xtics add (sizelabel(k) 2.0**k) }
set xlabel "message size (bytes)"
unset logscale y
etop = emax > limit ? emax * 1.15 : limit * 1.4
set yrange [-etop : etop]
# About five tics: a step of 1, 2 or 5 times a power of ten.
q = etop / 2.5
m = 10**floor(log10(q))
ystep = q <= m ? m : q <= 2 * m ? 2 * m : q <= 5 * m ? 5 * m : 10 * m
set ytics ystep nomirror out
set ylabel "error (%)"
unset key
set arrow 1 from graph 0, first limit to graph 1, first limit nohead back dt 2 lc rgb "#606060" lw 1
set arrow 2 from graph 0, first -limit to graph 1, first -limit nohead back dt 2 lc rgb "#606060" lw 1
set arrow 3 from graph 0, first 0 to graph 1, first 0 nohead back lc rgb "#404040" lw 1
set label 1 sprintf("±%g %%", limit) at graph 1, first limit right offset -0.5, 0.6 font ",9" tc rgb "#606060"
if (nerr == 0) {
	set label 2 "no size has an error (N/A)" at graph 0.5, graph 0.75 center tc rgb "#808080"
}
# A size with no error (N/A) has no bar; NaN keeps gnuplot from warning
# about an empty plot when every one is N/A.
errcol(e) = abs(e) > limit ? 0xd62728 : 0x1f77b4
plot file1 using (size("size_bytes")):(column("error_pct")):(errcol(column("error_pct"))) \
	with impulses lw 6 lc rgb variable notitle, \
	NaN notitle

unset multiplot
