# SPDX-License-Identifier: BSD-3-Clause
# scripts/plot-timeline.gp — per-rank timeline of a trace CSV (core/trace.c
# writes it: t_ps,dur_ps,kind,rank,track,qp,wr_id,bytes,op,prim,...).
# Normally run by scripts/plot.sh, which sets the terminal and output and
# passes, with -e:
#
#   file1      the trace CSV
#   plottitle  title (default "Timeline")
#   ranks1     optional: the rank each band shows, "3 7 12 ..." (plot.sh
#              keeps the 16 busiest of a larger run, renumbered 0..15)
#
# By hand:
#   gnuplot -e "set term pngcairo size 1000,600; set output 'tl.png'; \
#               file1='trace.csv'" scripts/plot-timeline.gp
#
# Y: one band per rank (rank 0 on top), split into one row per track that
# occurs in the file (cpu, gpu, nic, port0, port1, ... in that order).
# X: time in microseconds.  An event with dur_ps > 0 is a box from t to
# t+dur, an instant (dur_ps = 0) a small dot, both coloured by kind's group
# (8 groups in Okabe and Ito's colour-blind-safe palette, as 16 kinds in as
# many colours could not be told apart); the key lists the groups present.  No per-event text, so 10^5+ events stay
# readable (and three passes over the file: a stats pass, boxes, dots).

if (!exists("file1")) {
	print "plot-timeline.gp: set file1='trace.csv' (see the header of this script)"
	exit status 2
}
if (!exists("plottitle")) { plottitle = "Timeline" }

set datafile separator comma
set datafile columnheaders
set termoption noenhanced

# ---- kinds: their group, its name and colour -----------------------------
# Okabe & Ito (2008), "Color Universal Design": 8 colours that stay apart
# under every common colour-vision deficiency.  Kinds that happen at one
# place share a group: 16 near-identical colours were unreadable.
ngroups = 9
array gname[ngroups] = ["post / doorbell / poll", "wqe_fetch", "dma_read", \
	"wire / tx_first / tx_last", "rx_last / dma_write", "ack / cqe", "reduce", "copy", "other"]
array kcol[ngroups] = [0x000000, 0x56b4e9, 0x0072b2, 0xe69f00, 0x009e73, 0xcc79a7, \
	0xd55e00, 0xf0e442, 0x999999]
# 0-based group of a kind; unknown names are "other" (8).
kidx(s) = (s eq "post" || s eq "doorbell" || s eq "poll") ? 0 : s eq "wqe_fetch" ? 1 : \
	s eq "dma_read" ? 2 : (s eq "wire" || s eq "tx_first" || s eq "tx_last") ? 3 : \
	(s eq "rx_last" || s eq "dma_write") ? 4 : (s eq "ack" || s eq "cqe") ? 5 : \
	(s eq "reduce_begin" || s eq "reduce_end") ? 6 : \
	(s eq "copy_begin" || s eq "copy_end") ? 7 : 8

# ---- tracks: cpu 0, gpu 1, nic 2, portN 3+N (N < 60); anything else -1 --
isdigits(s) = strlen(s) > 0 && strlen(s) <= 2 && \
	(strlen(s) == 1 ? strstrt("0123456789", s) > 0 : \
	 strstrt("0123456789", s[1:1]) > 0 && strstrt("0123456789", s[2:2]) > 0)
tidx(s) = s eq "cpu" ? 0 : s eq "gpu" ? 1 : s eq "nic" ? 2 : \
	(strlen(s) > 4 && s[1:4] eq "port" && isdigits(s[5:]) && int(s[5:]) < 60) ? 3 + int(s[5:]) : -1
tname(t) = t == 0 ? "cpu" : t == 1 ? "gpu" : t == 2 ? "nic" : sprintf("port%d", t - 3)

# ---- pass 1: ranks, time span, which kinds and tracks occur -------------
maxrank = -1
t0 = -1; t1 = 0
kdur = 0     # bit k: kind k has an event with a duration
kinst = 0    # bit k: kind k has an instant
tbits = 0    # bit t: track t occurs
nbad = 0
scan(r, t, d, k, tr) = (tr < 0 ? (nbad = nbad + 1) : \
	(maxrank = r > maxrank ? r : maxrank, \
	 t0 = (t0 < 0 || t < t0) ? t : t0, \
	 t1 = t + d > t1 ? t + d : t1, \
	 tbits = tbits | (1 << tr), \
	 d > 0 ? (kdur = kdur | (1 << k)) : (kinst = kinst | (1 << k))), 1)
stats file1 using (scan(int(column("rank")), column("t_ps"), column("dur_ps"), \
	kidx(strcol("kind")), tidx(strcol("track")))) nooutput
if (!exists("STATS_records") || maxrank < 0) {
	print sprintf("plot-timeline.gp: %s has no events", file1)
	exit status 3
}
if (nbad > 0) {
	print sprintf("plot-timeline.gp: warning: %d events on an unknown track left out", nbad)
}

# Tracks that occur, packed: slot[t+1] is track t's row inside a rank band.
array slot[63]
array slotname[63]
ntr = 0
do for [t = 0:62] {
	slot[t + 1] = -1
	if (tbits & (1 << t)) { slot[t + 1] = ntr; ntr = ntr + 1; slotname[ntr] = tname(t) }
}
nrows = (maxrank + 1) * ntr
row(r, tr) = tr < 0 ? NaN : r * ntr + slot[tr + 1]

# Band r's rank: itself, or the r+1-th of ranks1.
rname(r) = exists("ranks1") ? word(ranks1, r + 1) : sprintf("%d", r)

# ---- axes ----------------------------------------------------------------
us(ps) = ps / 1.0e6
span = us(t1 - t0)
if (span <= 0) { span = 1 }
set xrange [us(t0) - 0.01 * span : us(t1) + 0.01 * span]
# A box is at least about one pixel wide (of a ~800 px wide plot), so that
# short events (a 50 ns post in a 5 ms trace) still show.
minhw = 0.5 * 1.02 * span / 800.0
halfw(d) = us(d) / 2.0 > minhw ? us(d) / 2.0 : minhw
set yrange [nrows - 0.5 : -0.5]     # rank 0, cpu on top
set xlabel "time (us)"
set ylabel (ntr > 1 ? "rank / track" : "rank")
set xtics nomirror out
set mxtics 5
set border 3 lc rgb "#404040"
set grid xtics lt 1 lc rgb "#e4e4e4" lw 1
set title plottitle

# Y tics: every row ("r3 nic") when there are few; otherwise one per rank
# band (every 2nd, 4th, ... rank beyond 40 ranks).
set ytics () nomirror out scale 0
if (nrows <= 48) {
	do for [r = 0:maxrank] {
		do for [s = 1:ntr] {
			set ytics add (sprintf("r%s %s", rname(r), slotname[s]) r * ntr + s - 1)
		}
	}
	set ytics font ",9"
} else {
	rstep = ceil((maxrank + 1) / 40.0)
	do for [r = 0:maxrank:rstep] { set ytics add (sprintf("r%s", rname(r)) r * ntr + (ntr - 1) / 2.0) }
}
# Thin lines between rank bands.
if (ntr > 1 && maxrank < 512) {
	do for [r = 1:maxrank] {
		set arrow from graph 0, first r * ntr - 0.5 to graph 1, first r * ntr - 0.5 \
			nohead back lt 1 lc rgb "#b0b0b0" lw 0.5
	}
}

# ---- key: the kinds present, as boxes (durations) or dots (instants) ---
set key outside right top Left reverse samplen 1.2 spacing 1.0 font ",9" noautotitle
set style fill solid 1.0 noborder
# Each row has two lanes: instants as dots in its upper part, durations as
# boxes below them, so the dots never hide the boxes.
boxy = 0.12; boxh = 0.26; doty = -0.3
dotsize = nrows <= 24 ? 0.5 : nrows <= 96 ? 0.3 : 0.15
haskind(bits, k) = (bits & (1 << k)) != 0

# ---- the plot ------------------------------------------------------------
# Boxes: centre (t + dur/2, row + boxy), half-widths (dur/2, boxh); instants:
# dots at row + doty.
# Rows of the other shape evaluate to NaN and are skipped.
plot file1 using \
	(d = column("dur_ps"), d > 0 ? us(column("t_ps") + d / 2.0) : NaN) : \
	(row(int(column("rank")), tidx(strcol("track"))) + boxy) : \
	(halfw(column("dur_ps"))) : (boxh) : \
	(kcol[kidx(strcol("kind")) + 1]) \
	with boxxyerror lc rgb variable notitle, \
	file1 using \
	(column("dur_ps") > 0 ? NaN : us(column("t_ps"))) : \
	(row(int(column("rank")), tidx(strcol("track"))) + doty) : \
	(kcol[kidx(strcol("kind")) + 1]) \
	with points pt 7 ps dotsize lc rgb variable notitle, \
	for [k = 0:ngroups - 1] NaN \
	with boxes lc rgb kcol[k + 1] title (haskind(kdur, k) ? gname[k + 1] : ""), \
	for [k = 0:ngroups - 1] NaN \
	with points pt 7 ps 0.8 lc rgb kcol[k + 1] title (haskind(kinst, k) && !haskind(kdur, k) ? gname[k + 1] : "")
