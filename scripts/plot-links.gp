# SPDX-License-Identifier: BSD-3-Clause
# scripts/plot-links.gp — link utilisation, one bar per link of a links CSV
# (link,from,to,kind,rate_bps,tx_bytes,busy_us,utilisation,peak_queue_bytes;
# utilisation is a fraction 0..1).  Normally run by scripts/plot.sh, which
# sorts the rows by link name first (natural order: gpu2 before gpu10), sets
# the terminal and output, and passes, with -e:
#
#   file1      the links CSV (bars appear in the file's row order)
#   name1      its name in messages (default file1; plot.sh passes the
#              original's, file1 being its sorted copy)
#   plottitle  title (default "Link utilisation")
#
# By hand:
#   gnuplot -e "set term pngcairo size 1000,600; set output 'links.png'; \
#               file1='links.csv'" scripts/plot-links.gp
#
# Y is percent (0..100, more if a link reports over 1.0, with a dashed line
# at 100 %); bars are coloured by link kind (net, nvlink, pcie, other); the
# link names are the x tic labels, rotated; up to 24 links each bar also
# carries its value.  A link whose utilisation is empty or N/A keeps its slot
# and name but has no bar.

if (!exists("file1")) {
	print "plot-links.gp: set file1='links.csv' (see the header of this script)"
	exit status 2
}
if (!exists("plottitle")) { plottitle = "Link utilisation" }
if (!exists("name1")) { name1 = file1 }

set datafile separator comma
set datafile columnheaders
set datafile missing "N/A"
set termoption noenhanced

# ---- kinds ---------------------------------------------------------------
nkinds = 4
array kname[nkinds] = ["net", "nvlink", "pcie", "other"]
array kcol[nkinds] = [0x1f77b4, 0x2ca02c, 0xff7f0e, 0x7f7f7f]
kidx(s) = s eq "net" ? 0 : s eq "nvlink" ? 1 : s eq "pcie" ? 2 : 3

# ---- pass 1: how many links, the largest value, which kinds ---------------
num_ok(s) = (s eq "" || s eq "N/A" || s eq "NaN" || s eq "nan" || s eq "-") ? 0 : 1
nlinks = 0; nok = 0
kbits = 0
maxlen = 1
stats file1 using (nlinks = nlinks + 1, \
	maxlen = strlen(strcol("link")) > maxlen ? strlen(strcol("link")) : maxlen, \
	num_ok(strcol("utilisation")) ? (nok = nok + 1, kbits = kbits | (1 << kidx(strcol("kind")))) : 0, 1) \
	nooutput
if (nok == 0) {
	print sprintf("plot-links.gp: %s has no link with a utilisation value", name1)
	exit status 3
}
stats file1 using (100.0 * column("utilisation")) nooutput
umax = STATS_max

# ---- axes ----------------------------------------------------------------
set xrange [-0.6 : nlinks - 0.4]
ytop = umax > 100 ? umax * 1.15 : 115    # room for the key above 100 %
set yrange [0 : ytop]
set ylabel "utilisation (%)"
set ytics nomirror out
if (umax <= 100) { set ytics 0, 20, 100 }
set mytics 2
set grid ytics lt 1 lc rgb "#e0e0e0" lw 1
set border 3 lc rgb "#404040"
set title plottitle
set arrow from graph 0, first 100 to graph 1, first 100 nohead front dt 2 lc rgb "#606060" lw 1

# Tic labels: rotated 45 degrees up to 24 links, 90 beyond; past 100 links
# only every 2nd, 3rd, ... name is written.  gnuplot's own bottom margin for
# rotated labels is far too generous, so it is sized from the longest name
# (in character heights of the default font).
if (nlinks <= 24) {
	set xtics nomirror out rotate by 45 right font ",9" scale 0
	set bmargin 2 + 0.26 * maxlen
	if (0.4 * maxlen > 10) { set lmargin 0.4 * maxlen }    # the first name reaches left
} else {
	if (nlinks <= 64) {
		set xtics nomirror out rotate by 90 right font ",8" scale 0
		set bmargin 2 + 0.33 * maxlen
	} else {
		set xtics nomirror out rotate by 90 right font ",7" scale 0
		set bmargin 2 + 0.29 * maxlen
	}
}
every = nlinks <= 100 ? 1 : ceil(nlinks / 100.0)
ticname(i) = (int(i) % every == 0) ? strcol("link") : ""

set style fill solid 0.85 border lc rgb "#303030"
set boxwidth 0.75
set key top right Left reverse samplen 1.2 font ",9" box lc rgb "#c0c0c0" opaque
haskind(k) = (kbits & (1 << k)) != 0

plot file1 using 0:(100.0 * column("utilisation")):(0.75):(kcol[kidx(strcol("kind")) + 1]):xtic(ticname($0)) \
	with boxes lc rgb variable notitle, \
	file1 using 0:(nlinks <= 24 ? 100.0 * column("utilisation") : NaN): \
	(sprintf("%.1f", 100.0 * column("utilisation"))) \
	with labels offset 0, 0.6 font ",8" notitle, \
	for [k = 0:nkinds - 1] NaN with boxes lc rgb kcol[k + 1] title (haskind(k) ? kname[k + 1] : "")
