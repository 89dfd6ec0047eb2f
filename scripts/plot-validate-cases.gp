# SPDX-License-Identifier: BSD-3-Clause
# scripts/plot-validate-cases.gp — every case of `cclab validate --csv`, one
# small panel each: its measured and predicted curves against message size
# (busbw for nccl-tests, BW average for perftest bw, t_typical for perftest
# lat), so where the model leaves the measurement shows at a glance.
# Normally run by scripts/plot.sh, which sets the terminal and passes, with -e:
#
#   file1      the validate CSV (a plain copy: quoted fields made plain)
#   cases      the case names, space-separated, in the file's order
#   ncols      panels per row
#   plottitle  title (default "Measured and predicted, per case")

if (!exists("file1") || !exists("cases")) {
	print "plot-validate-cases.gp: set file1='validate.csv' and cases='a b ...' (see the header)"
	exit status 2
}
if (!exists("plottitle")) { plottitle = "Measured and predicted, per case" }
n = words(cases)
if (n == 0) {
	print "plot-validate-cases.gp: no case"
	exit status 3
}
if (!exists("ncols")) { ncols = ceil(sqrt(n)) }
nrows = ceil(n * 1.0 / ncols)

set datafile separator comma
set datafile columnheaders
set termoption noenhanced
set encoding utf8

num_ok(s) = (s eq "" || s eq "N/A" || s eq "NaN" || s eq "nan" || s eq "-") ? 0 : 1
mine(c) = strcol("case") eq c
# the figure a case is judged on: bandwidth where it has one, else time
val(c, col) = mine(c) && num_ok(strcol(col)) && column(col) > 0 ? column(col) : NaN

set multiplot layout nrows, ncols title plottitle font ",12"
set border 3 lc rgb "#404040"
set tics nomirror font ",7"
set logscale x 2
set logscale y 10
set format x "%.0s%c"
set grid xtics ytics lc rgb "#e8e8e8" lw 1
set key top left font ",7" samplen 2 nobox
set style line 1 lc rgb "#404040" lw 1.5 pt 7 ps 0.4
set style line 2 lc rgb "#d62728" lw 1.5 pt 5 ps 0.4
do for [i = 1:n] {
	c = word(cases, i)
	set title sprintf("%s", c) font ",8" noenhanced # sprintf: a bare `set title c` printed nothing here
	nbw = 0
	stats file1 using (nbw = nbw + (mine(c) && num_ok(strcol("measured_bw")))) nooutput
	if (nbw > 0) {
		set ylabel "bandwidth" font ",7"
		plot file1 using (mine(c) ? column("size_bytes") : NaN):(val(c, "measured_bw")) with linespoints ls 1 title "measured", \
			file1 using (mine(c) ? column("size_bytes") : NaN):(val(c, "predicted_bw")) with linespoints ls 2 title "predicted"
	} else {
		set ylabel "time (us)" font ",7"
		plot file1 using (mine(c) ? column("size_bytes") : NaN):(val(c, "measured_time_us")) with linespoints ls 1 title "measured", \
			file1 using (mine(c) ? column("size_bytes") : NaN):(val(c, "predicted_time_us")) with linespoints ls 2 title "predicted"
	}
}
unset multiplot
