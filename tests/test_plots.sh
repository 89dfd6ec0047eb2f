#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/test_plots.sh — scripts/plot.sh, its five gnuplot scripts and
# scripts/softroce/report.sh.
# Writes small CSVs of each format (results, trace, links, compare,
# calibration) into a temporary folder, draws every kind in PNG and SVG and
# checks each picture exists, is not empty and starts like one (\x89PNG;
# <?xml or <svg); then checks that bad usage fails with status 2 and writes
# nothing, that a failed gnuplot run leaves an existing picture alone with no
# temporary file behind, and the message when gnuplot is not installed.
# Issue 29: busbw's line-rate line (from the fabric column, --line-rate) and
# its x labels, the timeline's 16 busiest of 20 ranks and its palette, and
# scripts/demo.sh's output through a pipe with no ESC byte.
# Last, report.sh on a folder of fixtures: the rows of its tables, its
# pictures, and its notes for missing inputs and a missing gnuplot.
# Prints "test_plots: N passed" (or "..., M failed" and exits 1); prints
# "SKIP: gnuplot not installed" and exits 0 where there is no gnuplot.
set -u

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
plot=$root/scripts/plot.sh
report=$root/scripts/softroce/report.sh

if ! command -v gnuplot >/dev/null 2>&1; then
	echo "SKIP: gnuplot not installed"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_plots.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT

pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
	if [ -s "$tmp/log" ]; then sed 's/^/    /' "$tmp/log"; fi
}

# ---- inputs ----------------------------------------------------------------
hdr=scenario,executor,fabric,topology,collective,transport,nranks,dtype,redop,size_bytes,count,time_us,algbw_gbps,busbw_gbps,bound_us,wrong,status
{
	echo "$hdr"
	echo "demo,sim,roce-100g,star-8,allreduce,write_imm,8,float,sum,1024,256,18.46,0.06,0.1,17.2,0,ok"
	echo "demo,sim,roce-100g,star-8,allreduce,write_imm,8,float,sum,65536,16384,30.1,2.18,3.81,28.0,0,ok"
	echo "demo,sim,roce-100g,star-8,allreduce,write_imm,8,float,sum,1048576,262144,188.46,5.56,9.74,171.2,0,ok"
	echo "demo,sim,roce-100g,star-8,allreduce,write_imm,8,float,sum,16777216,4194304,2650.0,6.33,11.08,2500.0,0,ok"
} >"$tmp/pred.csv"
# Measured, with a failed run (empty time/bw, N/A wrong) and an N/A busbw;
# its name has a space, quotes and a $ in it.
meas="$tmp/meas 'run' \"1\" \$x.csv"
{
	echo "$hdr"
	echo "demo,verbs,roce-100g,star-8,allreduce,write_imm,8,float,sum,1024,256,20.3,0.05,0.09,17.2,0,ok"
	echo "demo,verbs,roce-100g,star-8,allreduce,write_imm,8,float,sum,65536,16384,,,,28.0,N/A,fail"
	echo "demo,verbs,roce-100g,star-8,allreduce,write_imm,8,float,sum,262144,65536,80.0,N/A,N/A,70.0,N/A,fail"
	echo "demo,verbs,roce-100g,star-8,allreduce,write_imm,8,float,sum,1048576,262144,210.0,4.99,8.74,171.2,0,ok"
	echo "demo,verbs,roce-100g,star-8,allreduce,write_imm,8,float,sum,16777216,4194304,2900.0,5.79,10.12,2500.0,0,ok"
} >"$meas"
# Every run failed: nothing to draw.
{
	echo "$hdr"
	echo "demo,verbs,roce-100g,star-8,allreduce,write_imm,8,float,sum,1024,256,,,,17.2,N/A,fail"
} >"$tmp/allfail.csv"

{
	echo "t_ps,dur_ps,kind,rank,track,qp,wr_id,bytes,op,prim,channel,chunk,step,slice"
	echo "0,50000,post,0,cpu,1,0,0,0,send,0,0,0,0"
	echo "60000,0,doorbell,0,cpu,1,0,0,0,send,0,0,0,0"
	echo "100000,200000,wqe_fetch,0,nic,1,0,0,0,send,0,0,0,0"
	echo "300000,1500000,dma_read,0,nic,1,0,4096,0,send,0,0,0,0"
	echo "400000,0,tx_first,0,port0,1,0,4096,0,send,0,0,0,0"
	echo "1800000,0,tx_last,0,port0,1,0,4096,0,send,0,0,0,0"
	echo "2300000,0,rx_last,1,port0,1,0,4096,-1,recv,0,0,0,0"
	echo "2300000,900000,dma_write,1,nic,1,0,4096,-1,recv,0,0,0,0"
	echo "2500000,0,ack,0,nic,1,0,0,0,send,0,0,0,0"
	echo "3200000,0,cqe,1,nic,1,0,4096,-1,recv,0,0,0,0"
	echo "3300000,0,poll,1,cpu,1,0,4096,-1,recv,0,0,0,0"
	echo "3400000,2000000,reduce_begin,1,gpu,-1,0,4096,-1,recv,0,0,0,0"
	echo "5400000,0,reduce_end,1,gpu,-1,0,4096,-1,recv,0,0,0,0"
	echo "5400000,700000,copy_begin,1,gpu,-1,0,4096,-1,recv,0,0,0,0"
	echo "6100000,0,copy_end,1,gpu,-1,0,4096,-1,recv,0,0,0,0"
} >"$tmp/trace.csv"

{
	echo "link,from,to,kind,rate_bps,tx_bytes,busy_us,utilisation,peak_queue_bytes"
	echo "sw0->h0.gpu0,sw0,h0.gpu0,net,100000000000,113456789,9076.5,0.8658,4096"
	echo "h0.gpu10->sw0,h0.gpu10,sw0,net,100000000000,103456789,8276.5,0.7895,0"
	echo "h0.gpu0->sw0,h0.gpu0,sw0,net,100000000000,123456789,9876.5,0.9421,0"
	echo "h0.gpu2->sw0,h0.gpu2,sw0,net,100000000000,93456789,7476.5,0.7132,0"
	echo "h0.gpu0->h0.gpu1,h0.gpu0,h0.gpu1,nvlink,2400000000000,123456789,411.5,0.0314,0"
	echo "h0.gpu1->h0.gpu0,h0.gpu1,h0.gpu0,nvlink,2400000000000,0,0,N/A,0"
} >"$tmp/links.csv"

# cclab compare --csv: a small size far off (below the 64 KiB the report's
# target looks at), one just beyond 15 %, one size with no measurement.
cmphdr=size_bytes,count,measured_us,predicted_us,error_pct,measured_busbw_gbps,predicted_busbw_gbps,wrong
{
	echo "$cmphdr"
	echo "1024,256,12.500000,7.500000,-40.0000,0.120000,0.200000,0"
	echo "65536,16384,26.275360,30.388480,15.6539,3.741300,3.234910,0"
	echo "262144,65536,,80.100000,,,4.900000,N/A"
	echo "1048576,262144,188.500000,180.200000,-4.4032,8.340000,8.730000,0"
	echo "16777216,4194304,2650.000000,2702.300000,1.9736,9.500000,9.310000,0"
} >"$tmp/compare.csv"
echo "$cmphdr" >"$tmp/compare-hdr.csv"

# Calibration: bw and lat rows; two with no fitted figure (left out), one
# empty, one "nan" as C's printf writes it.
calhdr=op,mode,size_bytes,iterations,measured,predicted,unit,error_pct
{
	echo "$calhdr"
	echo "write,bw,65536,200,2345.6,2410.2,MB/s,2.75"
	echo "write,bw,1048576,200,2790.1,2500.0,MB/s,-10.40"
	echo "send,bw,65536,200,2201.0,,MB/s,"
	echo "fetch_add,bw,8,200,3.10,3.4,MB/s,9.68"
	echo "write,lat,2,200,9.80,8.90,us,-9.18"
	echo "send,lat,2,200,10.20,11.9,us,16.67"
	echo "read,lat,8,200,18.4,nan,us,nan"
} >"$tmp/calibration.csv"
echo "$calhdr" >"$tmp/calibration-hdr.csv"
{
	echo "$calhdr"
	echo "send,bw,65536,200,2201.0,,MB/s,"
	echo "read,lat,8,200,18.4,-nan,us,-nan"
} >"$tmp/calibration-nofit.csv"

# cclab validate --csv: two collective cases and a perftest bw and lat case,
# a size with no prediction, a status with a comma (RFC 4180 quoted).
valhdr=case,kind,size_bytes,measured_time_us,predicted_time_us,measured_bw,predicted_bw,bw_unit,status
{
	echo "$valhdr"
	echo "a-ring,nccl-tests,1048576,156.9,92.4,12.53,21.27,GB/s,ok"
	echo "a-ring,nccl-tests,16777216,199.3,1276.2,157.83,24.65,GB/s,ok"
	echo "a-ring,nccl-tests,268435456,1355.9,,371.22,,GB/s,\"above --max-bytes, not simulated\""
	echo "b-tree,nccl-tests,8,19.9,11.18,,,GB/s,ok"
	echo "b-tree,nccl-tests,64,19.36,11.18,,,GB/s,ok"
	echo "c-bw,perftest bw,65536,,,150.2,220.1,Gb/sec,ok"
	echo "c-bw,perftest bw,8388608,,,224.83,391.1,Gb/sec,ok"
	echo "d-lat,perftest lat,2,5.45,2.4,,,,ok"
} >"$tmp/validate.csv"
echo "$valhdr" >"$tmp/validate-hdr.csv"

# ---- helpers ---------------------------------------------------------------
# is_picture FILE png|svg: exists, not empty, right first bytes.
is_picture() {
	local f=$1 fmt=$2 head
	[ -f "$f" ] || { echo "no file $f"; return 1; }
	[ -s "$f" ] || { echo "$f is empty"; return 1; }
	case $fmt in
	png)
		head=$(head -c 4 -- "$f" | od -An -tx1 | tr -d ' \n')
		[ "$head" = 89504e47 ] || { printf '%s does not start with \\x89PNG (%s)\n' "$f" "$head"; return 1; }
		;;
	svg)
		head=$(tr -d '\n\r' <"$f" | sed 's/^[[:space:]]*//' | head -c 5)
		case $head in
		"<?xml" | "<svg"*) ;;
		*) echo "$f does not start with <?xml or <svg ($head)"; return 1 ;;
		esac
		;;
	esac
}

# left_over OUT: plot.sh's temporary file (.OUT.XXXXXX) is still beside OUT.
left_over() {
	local f
	for f in "$(dirname -- "$1")/.$(basename -- "$1")".*; do
		if [ -e "$f" ]; then return 0; fi
	done
	return 1
}

# draws NAME OUT ARGS...: plot.sh exits 0 and OUT is a picture, with no
# temporary file left beside it.
draws() {
	local name=$1 out=$2 msg rc=0
	shift 2
	"$plot" "$@" >"$tmp/log" 2>&1 || rc=$?
	if [ $rc -ne 0 ]; then
		bad "$name: plot.sh exited $rc"
		return
	fi
	if ! msg=$(is_picture "$out" "${out##*.}"); then
		bad "$name: $msg"
		return
	fi
	if left_over "$out"; then
		bad "$name: a temporary file was left next to $out"
		return
	fi
	ok
}

# refuses NAME WANT_STATUS PATTERN ARGS...: plot.sh exits WANT_STATUS, says
# PATTERN on stderr and writes no picture.
refuses() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	rm -f -- "$tmp/bad.png"
	"$plot" "$@" >"$tmp/log" 2>&1
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		bad "$name: exit $rc, want $want"
	elif ! grep -q -- "$pat" "$tmp/log"; then
		bad "$name: no '$pat' in the message"
	elif [ -e "$tmp/bad.png" ]; then
		bad "$name: wrote $tmp/bad.png"
	else
		ok
	fi
}

# ---- every kind, both formats ----------------------------------------------
mkdir -p "$tmp/out dir"
for fmt in png svg; do
	o="$tmp/out dir"
	draws "busbw $fmt, one file" "$o/busbw1.$fmt" busbw "$o/busbw1.$fmt" "$tmp/pred.csv"
	draws "busbw $fmt, overlaid, odd name" "$o/busbw2.$fmt" \
		busbw "$o/busbw2.$fmt" "$tmp/pred.csv" "$meas" --title "predicted vs \"measured\" 'x'"
	draws "busbw $fmt, labels" "$o/busbw3.$fmt" \
		busbw "$o/busbw3.$fmt" "$tmp/pred.csv" "$meas" "$tmp/allfail.csv" --label model --label=NIC
	draws "timeline $fmt" "$o/timeline.$fmt" timeline "$o/timeline.$fmt" "$tmp/trace.csv"
	draws "links $fmt" "$o/links.$fmt" links "$o/links.$fmt" "$tmp/links.csv" --title "links"
	draws "compare $fmt" "$o/compare.$fmt" compare "$o/compare.$fmt" "$tmp/compare.csv"
	draws "compare $fmt, title" "$o/compare2.$fmt" compare "$o/compare2.$fmt" "$tmp/compare.csv" --title "x 'y' \"z\""
	draws "calibration $fmt" "$o/calibration.$fmt" calibration "$o/calibration.$fmt" "$tmp/calibration.csv"
	draws "calibration $fmt, title" "$o/calibration2.$fmt" \
		calibration "$o/calibration2.$fmt" "$tmp/calibration.csv" --title="fit \$1"
	draws "validate $fmt" "$o/validate.$fmt" validate "$o/validate.$fmt" "$tmp/validate.csv"
	draws "validate-cases $fmt" "$o/validate-cases.$fmt" \
		validate-cases "$o/validate-cases.$fmt" "$tmp/validate.csv"
done
# A panel per case: the four names are in the SVG, in the file's order.
if grep -q "a-ring" "$tmp/out dir/validate-cases.svg" && grep -q "d-lat" "$tmp/out dir/validate-cases.svg"; then
	ok
else
	bad "validate-cases: a case's panel is missing"
fi

# RFC 4180 fields, as cclab's CSV writers quote them: a scenario name with a
# comma, a doubled quote and a line break is one field.  The legend shows it
# on one line, its comma as ';' (gnuplot would cut the string at it); read
# as lines, the row would be split and the label lost.
{
	echo "$hdr"
	printf '"a,b ""q""\nz",sim,roce-100g,star-8,allreduce,write_imm,8,float,sum,1024,256,18.46,0.06,0.1,17.2,0,ok\n'
	printf '"a,b ""q""\nz",sim,roce-100g,star-8,allreduce,write_imm,8,float,sum,65536,16384,30.1,2.18,3.81,28.0,0,ok\n'
} >"$tmp/quoted.csv"
draws "busbw svg, RFC 4180 quoted fields" "$tmp/quoted.svg" busbw "$tmp/quoted.svg" "$tmp/quoted.csv"
if grep -q "a;b &apos;q&apos; z / sim / write_imm\|a;b 'q' z / sim / write_imm" "$tmp/quoted.svg"; then
	ok
else
	bad "quoted fields: the legend is not 'a;b 'q' z / sim / write_imm'"
fi

# A relative output and input from inside the folder ("./" is added for gnuplot).
if (cd "$tmp" && "$plot" busbw rel.png pred.csv >"$tmp/log" 2>&1) &&
	is_picture "$tmp/rel.png" png >/dev/null; then
	ok
else
	bad "relative paths"
fi

# A second draw over an existing picture replaces it.
cp -- "$tmp/out dir/links.png" "$tmp/links.before" 2>/dev/null || : >"$tmp/links.before"
draws "links png again" "$tmp/out dir/links.png" links "$tmp/out dir/links.png" "$tmp/links.csv" --title again
if cmp -s -- "$tmp/links.before" "$tmp/out dir/links.png"; then bad "redraw did not replace the picture"; else ok; fi

# ---- gnuplot fails: the old picture stays, no temporary file ----------------
cp -- "$tmp/out dir/busbw1.png" "$tmp/keep.png" 2>/dev/null || echo keep >"$tmp/keep.png"
cp -- "$tmp/keep.png" "$tmp/keep.before"
"$plot" busbw "$tmp/keep.png" "$tmp/allfail.csv" >"$tmp/log" 2>&1
rc=$?
if [ $rc -ne 1 ]; then
	bad "all runs failed: exit $rc, want 1"
elif ! cmp -s -- "$tmp/keep.png" "$tmp/keep.before"; then
	bad "all runs failed: the existing picture was changed"
elif left_over "$tmp/keep.png"; then
	bad "all runs failed: a temporary file was left behind"
else
	ok
fi
# A calibration with no fitted figure at all: nothing to draw, no picture.
rm -f -- "$tmp/nofit.png"
"$plot" calibration "$tmp/nofit.png" "$tmp/calibration-nofit.csv" >"$tmp/log" 2>&1
rc=$?
if [ $rc -ne 1 ]; then
	bad "calibration without a fit: exit $rc, want 1"
elif ! grep -q "no row with both a measured and a predicted value" "$tmp/log"; then
	bad "calibration without a fit: no reason given"
elif [ -e "$tmp/nofit.png" ] || left_over "$tmp/nofit.png"; then
	bad "calibration without a fit: wrote a picture or left a temporary file"
else
	ok
fi

# ---- issue 29: the busbw plot's line rate and x labels, the timeline past 16 ranks

# The line rate from the fabric column: pred.csv is roce-100g, 100 Gb/s =
# 12.5 GB/s, drawn as a line with its legend and a label on it (twice).
svg="$tmp/out dir/busbw1.svg"
if [ "$(grep -c 'line rate 100 Gb/s = 12.5 GB/s' "$svg")" -ge 2 ]; then ok; else bad "busbw: no line-rate line at 12.5 GB/s in $svg"; fi
# --line-rate overrides it, in either unit; none draws none.
draws "busbw --line-rate GB/s" "$tmp/lr1.svg" busbw "$tmp/lr1.svg" "$tmp/pred.csv" --line-rate 25GB/s
if grep -q 'line rate 200 Gb/s = 25 GB/s' "$tmp/lr1.svg" && ! grep -q 'line rate 100' "$tmp/lr1.svg"; then
	ok
else
	bad "busbw --line-rate 25GB/s: no line at 25 GB/s, or the fabric's too"
fi
draws "busbw --line-rate Gb/s" "$tmp/lr2.svg" busbw "$tmp/lr2.svg" "$tmp/pred.csv" --line-rate=400Gb/s
if grep -q 'line rate 400 Gb/s = 50 GB/s' "$tmp/lr2.svg"; then ok; else bad "busbw --line-rate 400Gb/s: no line at 50 GB/s"; fi
draws "busbw --line-rate none" "$tmp/lr3.svg" busbw "$tmp/lr3.svg" "$tmp/pred.csv" --line-rate none
if grep -q 'line rate' "$tmp/lr3.svg"; then bad "busbw --line-rate none: a line was drawn"; else ok; fi
refuses "--line-rate without a unit" 2 "give the unit" busbw "$tmp/bad.png" "$tmp/pred.csv" --line-rate 100
refuses "--line-rate zero" 2 "a positive number" busbw "$tmp/bad.png" "$tmp/pred.csv" --line-rate 0Gb/s
refuses "--line-rate on links" 2 "busbw only" links "$tmp/bad.png" "$tmp/links.csv" --line-rate 100Gb/s
# Two fabrics (ib-hdr beside roce-100g): a line each.
sed 's/roce-100g/ib-hdr/' "$tmp/pred.csv" >"$tmp/hdr.csv"
draws "busbw, two fabrics" "$tmp/lr4.svg" busbw "$tmp/lr4.svg" "$tmp/pred.csv" "$tmp/hdr.csv"
if grep -q 'line rate 100 Gb/s = 12.5 GB/s' "$tmp/lr4.svg" && grep -q 'line rate 200 Gb/s = 25 GB/s' "$tmp/lr4.svg"; then
	ok
else
	bad "busbw, two fabrics: not a line per fabric's rate"
fi
# 1K to 1G, 21 powers of two: labels on every 2nd (1K 4K ... 256M 1G), 11 in
# all, where 21 ran together; no 2K, 128M or 512M label.
{
	echo "$hdr"
	k=1024
	while [ $k -le 1073741824 ]; do
		echo "demo,sim,roce-100g,star-8,allreduce,write_imm,8,float,sum,$k,$((k / 4)),10.0,1.0,1.5,9.0,0,ok"
		k=$((k * 2))
	done
} >"$tmp/wide.csv"
draws "busbw, 1K to 1G" "$tmp/wide.svg" busbw "$tmp/wide.svg" "$tmp/wide.csv"
labels=$(grep -oE '>(1|2|4|8|16|32|64|128|256|512)[KMG]<' "$tmp/wide.svg" | tr -d '<>' | tr '\n' ' ')
if [ "$labels" = "1K 4K 16K 64K 256K 1M 4M 16M 64M 256M 1G " ]; then
	ok
else
	bad "busbw, 1K to 1G: x labels '$labels', want every 2nd power from 1K to 1G"
fi

# A trace of 20 ranks: the 16 busiest drawn, the title says so; rank 19's
# slices are the shortest, and ranks 4, 9, 13 and 17 have none.
{
	echo "t_ps,dur_ps,kind,rank,track,qp,wr_id,bytes,op,prim,channel,chunk,step,slice"
	for r in $(seq 0 19); do
		case $r in 4 | 9 | 13 | 17) d=0 ;; 19) d=1000 ;; *) d=$((100000 + r * 1000)) ;; esac
		echo "$((r * 1000)),$d,dma_read,$r,nic,1,0,4096,0,send,0,0,0,0"
		echo "$((r * 1000)),0,cqe,$r,nic,1,0,4096,0,send,0,0,0,0"
	done
} >"$tmp/trace20.csv"
draws "timeline, 20 ranks" "$tmp/tl20.svg" timeline "$tmp/tl20.svg" "$tmp/trace20.csv"
ranks=$(grep -oE '>r[0-9]+ nic<' "$tmp/tl20.svg" | tr -d '<>' | tr '\n' ' ')
if ! grep -q 'the 16 busiest of 20 ranks' "$tmp/tl20.svg"; then
	bad "timeline, 20 ranks: the title does not say which ranks are drawn"
elif [ "$ranks" != "r0 nic r1 nic r2 nic r3 nic r5 nic r6 nic r7 nic r8 nic r10 nic r11 nic r12 nic r14 nic r15 nic r16 nic r18 nic r19 nic " ]; then
	bad "timeline, 20 ranks: bands '$ranks'"
else
	ok
fi
# The key: kinds in groups, each group one colour of Okabe and Ito's.
# dma_read is #0072b2 (blue), ack / cqe #cc79a7 (reddish purple).
if grep -q 'ack / cqe' "$tmp/tl20.svg" && grep -q '>dma_read<' "$tmp/tl20.svg" &&
	grep -q 'rgb(  0, 114, 178)' "$tmp/tl20.svg" && grep -q 'rgb(204, 121, 167)' "$tmp/tl20.svg"; then
	ok
else
	bad "timeline: the key's groups or their colours are missing"
fi

# ---- scripts/demo.sh: no escape codes when its output is not a terminal ------
# With a stand-in cclab (the real demo simulates up to 1 GiB): every line
# it prints goes through a pipe here, so none may hold an ESC byte; and
# NO_COLOR is honoured (a terminal is not available to test the other way).
mkdir -p "$tmp/demo/scripts" "$tmp/demo/scenarios"
cp -- "$root/scripts/demo.sh" "$root/scripts/plot.sh" "$root/scripts/plot-"*.gp "$tmp/demo/scripts/"
cat >"$tmp/demo/cclab" <<'EOS'
#!/usr/bin/env bash
# a stand-in: writes each file it is asked for, with a header line
while [ $# -gt 0 ]; do
	case $1 in
	--csv | --json | --links | --trace) printf 'x\n' >"$2"; shift ;;
	esac
	shift
done
echo "# a stand-in cclab"
EOS
chmod +x "$tmp/demo/cclab"
(cd "$tmp/demo" && bash scripts/demo.sh ./cclab 2>&1 | cat >"$tmp/demo.log")
if LC_ALL=C grep -q $'\033' "$tmp/demo.log"; then
	bad "demo: an ESC byte in its piped output"
elif ! grep -q '^== ' "$tmp/demo.log"; then
	bad "demo: no headings in its output"; sed 's/^/    /' "$tmp/demo.log"
else
	ok
fi
if grep -q 'NO_COLOR' "$root/scripts/demo.sh"; then ok; else bad "demo: NO_COLOR not looked at"; fi

# ---- bad usage ---------------------------------------------------------------
: >"$tmp/empty.csv"
refuses "no arguments" 2 "missing the plot kind"
refuses "unknown kind" 2 "unknown plot kind" scatter "$tmp/bad.png" "$tmp/pred.csv"
refuses "no output" 2 "missing the output" busbw
refuses "no input" 2 "missing the input" busbw "$tmp/bad.png"
refuses "bad extension" 2 "must end in .png or .svg" busbw "$tmp/bad.jpg" "$tmp/pred.csv"
refuses "missing input" 2 "does not exist" busbw "$tmp/bad.png" "$tmp/nope.csv"
refuses "empty input" 2 "is empty" busbw "$tmp/bad.png" "$tmp/empty.csv"
refuses "input is a folder" 2 "not a regular file" busbw "$tmp/bad.png" "$tmp/out dir"
refuses "output folder missing" 2 "does not exist" busbw "$tmp/nodir/bad.png" "$tmp/pred.csv"
refuses "timeline, two inputs" 2 "exactly one input" timeline "$tmp/bad.png" "$tmp/trace.csv" "$tmp/trace.csv"
refuses "links, two inputs" 2 "exactly one input" links "$tmp/bad.png" "$tmp/links.csv" "$tmp/links.csv"
refuses "unknown option" 2 "unknown option" busbw "$tmp/bad.png" "$tmp/pred.csv" --colour red
refuses "--title without value" 2 "needs a value" busbw "$tmp/bad.png" "$tmp/pred.csv" --title
refuses "--label on links" 2 "busbw only" links "$tmp/bad.png" "$tmp/links.csv" --label x
refuses "too many --label" 2 "--label values" busbw "$tmp/bad.png" "$tmp/pred.csv" --label a --label b
refuses "results CSV as a trace" 2 "no 't_ps' column" timeline "$tmp/bad.png" "$tmp/pred.csv"
refuses "trace CSV as links" 2 "no 'link' column" links "$tmp/bad.png" "$tmp/trace.csv"
refuses "compare, missing input" 2 "does not exist" compare "$tmp/bad.png" "$tmp/nope.csv"
refuses "compare, header only" 2 "has a header but no rows" compare "$tmp/bad.png" "$tmp/compare-hdr.csv"
refuses "compare, empty file" 2 "is empty" compare "$tmp/bad.png" "$tmp/empty.csv"
refuses "compare, two inputs" 2 "exactly one input" compare "$tmp/bad.png" "$tmp/compare.csv" "$tmp/compare.csv"
refuses "calibration CSV as compare" 2 "no 'measured_us' column" compare "$tmp/bad.png" "$tmp/calibration.csv"
refuses "calibration, missing input" 2 "does not exist" calibration "$tmp/bad.png" "$tmp/nope.csv"
refuses "calibration, header only" 2 "has a header but no rows" calibration "$tmp/bad.png" "$tmp/calibration-hdr.csv"
refuses "compare CSV as calibration" 2 "no 'op' column" calibration "$tmp/bad.png" "$tmp/compare.csv"
refuses "compare CSV as validate" 2 "no 'case' column" validate "$tmp/bad.png" "$tmp/compare.csv"
refuses "validate, header only" 2 "has a header but no rows" validate-cases "$tmp/bad.png" "$tmp/validate-hdr.csv"
refuses "--label on compare" 2 "busbw only" compare "$tmp/bad.png" "$tmp/compare.csv" --label x
refuses "newline in a path" 2 "newline" busbw "$tmp/bad.png" "$tmp/pred.csv"$'\n'

# ---- no gnuplot ----------------------------------------------------------------
# A PATH with the tools plot.sh uses but not gnuplot.
mkdir -p "$tmp/bin"
for t in bash dirname basename awk mktemp head tail sort tr chmod mv rm cat; do
	p=$(command -v "$t") && ln -sf "$p" "$tmp/bin/$t"
done
rm -f -- "$tmp/bad.png"
PATH=$tmp/bin "$tmp/bin/bash" "$plot" busbw "$tmp/bad.png" "$tmp/pred.csv" >"$tmp/log" 2>&1
rc=$?
if [ $rc -ne 2 ]; then
	bad "no gnuplot: exit $rc, want 2"
elif ! grep -qF "plot.sh: gnuplot not found; install gnuplot-nox (scripts/install-deps.sh)" "$tmp/log"; then
	bad "no gnuplot: wrong message"
elif [ -e "$tmp/bad.png" ]; then
	bad "no gnuplot: wrote a picture"
else
	ok
fi

# ---- scripts/softroce/report.sh ------------------------------------------------
# has_lines NAME FILE LINE...: FILE holds each LINE as a whole line.
has_lines() {
	local name=$1 f=$2 l
	shift 2
	for l in "$@"; do
		if ! grep -qxF -- "$l" "$f"; then
			bad "$name: no line '$l' in $(basename -- "$f")"
			sed 's/^/    | /' "$f"
			return
		fi
	done
	ok
}

rep="$tmp/rep dir"
mkdir -p "$rep"
cp -- "$tmp/compare.csv" "$tmp/calibration.csv" "$rep/"
{
	echo "test,mode,size,iters,repeats,perftest,perftest_spread,cclab,cclab_spread,unit,ratio"
	echo "write,bw,65536,200,3,1234.50,1200-1250,1100.20,1090-1105,MB/s,0.891"
	echo "write,lat,2,200,3,9.80,9.7-9.9,10.40,10.3-10.6,us,1.061"
	echo "fetch_add,bw,8,200,3,,,2.10,2.1-2.2,MB/s,N/A"
	echo "ring,allreduce,1048576,5,3,412.30,400-420,371.07,360-380,MB/s,0.900"
} >"$rep/perftest.csv"
printf 'rnic:\n  req_proc_ps: 123000\n' >"$rep/fabric.yaml"
printf '# mean |error|: 13.6 %% over 4 sizes\n```\n' >"$rep/compare.log"
"$report" "$rep" >"$tmp/log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	bad "report: exit $rc, want 0"
elif [ ! -s "$rep/report.md" ]; then
	bad "report: no report.md"
else
	ok
	md=$rep/report.md
	has_lines "report, perftest" "$md" \
		"| test | mode | bytes | runs | perftest | spread | cclab | spread | unit | cclab/perftest |" \
		"| write | bw | 65536 | 3 | 1234.50 | 1200-1250 | 1100.20 | 1090-1105 | MB/s | 0.891 |" \
		"| write | lat | 2 | 3 | 9.80 | 9.7-9.9 | 10.40 | 10.3-10.6 | us | 1.061 |" \
		"| fetch_add | bw | 8 | 3 | N/A | N/A | 2.10 | 2.1-2.2 | MB/s | N/A |"
	# The ring line is a sentence, not a row of the p2p table.
	if grep -q '^| ring' "$md"; then
		bad "report: the ring line is a table row"
	elif ! grep -q 'busbw 371.07 MB/s (360-380) against 412.30 MB/s (400-420) per concurrent RDMA WRITE pair.*\*\*0.900\*\*.*medians of 3 runs' "$md"; then
		bad "report: no ring sentence"
	else
		ok
	fi
	has_lines "report, calibration" "$md" \
		"| write | bw | 1048576 | 200 | 2790.10 | 2500.00 | MB/s | -10.40 |" \
		"| send | bw | 65536 | 200 | 2201.00 | N/A | MB/s | N/A |" \
		"| send | lat | 2 | 200 | 10.20 | 11.90 | us | +16.67 |" \
		"| read | lat | 8 | 200 | 18.40 | N/A | us | N/A |" \
		"![calibration](calibration.png)" \
		'```yaml' "  req_proc_ps: 123000"
	# 1024 B is 40 % off but below 64 KiB: the largest counted is 65536's.
	has_lines "report, compare" "$md" \
		"| 65536 | 26.28 | 30.39 | +15.65 | 3.74 | 3.23 |" \
		"| 262144 | N/A | 80.10 | N/A | N/A | 4.90 |" \
		"largest |error| for sizes >= 64 KiB: 15.65 % (target 15 %)" \
		"![compare](compare.png)"
	# compare.log verbatim, in a fence its own ``` line cannot close.
	has_lines "report, compare.log" "$md" "### cclab compare output" \
		'````' "# mean |error|: 13.6 % over 4 sizes" '```'
	for pic in compare calibration; do
		if msg=$(is_picture "$rep/$pic.png" png); then ok; else bad "report: $msg"; fi
	done
	if left_over "$md"; then bad "report: a temporary file was left in the folder"; else ok; fi
fi

# An empty folder: a report of notes.
mkdir -p "$tmp/rep empty"
if "$report" "$tmp/rep empty" >"$tmp/log" 2>&1; then
	has_lines "report, empty folder" "$tmp/rep empty/report.md" \
		"_No perftest.csv in this folder: section skipped._" \
		"_No calibration.csv in this folder: section skipped._" \
		"_No compare.csv in this folder: section skipped._"
else
	bad "report, empty folder: exit $?"
fi

# Bad usage: status 2, no report.
for args in "" "$tmp/nope" "$tmp/pred.csv"; do
	"$report" ${args:+"$args"} >"$tmp/log" 2>&1
	rc=$?
	if [ $rc -ne 2 ]; then bad "report ${args:-(no DIR)}: exit $rc, want 2"; else ok; fi
done
if [ -e "$tmp/nope" ]; then bad "report: created the missing folder"; else ok; fi

# No gnuplot: the markdown still, the plots skipped and said so.
mkdir -p "$tmp/rep nognu"
cp -- "$tmp/compare.csv" "$tmp/calibration.csv" "$tmp/rep nognu/"
PATH=$tmp/bin "$tmp/bin/bash" "$report" "$tmp/rep nognu" >"$tmp/log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	bad "report, no gnuplot: exit $rc, want 0"
elif [ -e "$tmp/rep nognu/compare.png" ] || [ -e "$tmp/rep nognu/calibration.png" ]; then
	bad "report, no gnuplot: a picture was written"
else
	has_lines "report, no gnuplot" "$tmp/rep nognu/report.md" \
		"_gnuplot is not installed: the plots were skipped (scripts/install-deps.sh)._" \
		"| 65536 | 26.28 | 30.39 | +15.65 | 3.74 | 3.23 |"
fi

# ---- the scripts themselves ------------------------------------------------------
for s in "$plot" "$report"; do
	if bash -n "$s" 2>"$tmp/log"; then ok; else bad "bash -n $s"; fi
done
if command -v shellcheck >/dev/null 2>&1; then
	if shellcheck "$plot" "$report" "$root/tests/test_plots.sh" >"$tmp/log" 2>&1; then ok; else bad "shellcheck"; fi
fi

if [ $fail -ne 0 ]; then
	echo "test_plots: $pass passed, $fail failed"
	exit 1
fi
echo "test_plots: $pass passed"
