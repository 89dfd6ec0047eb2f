#!/usr/bin/env bash
# tests/test_plots.sh — scripts/plot.sh and the three gnuplot scripts.
# Writes small CSVs of each format (results, trace, links) into a temporary
# folder, draws every kind in PNG and SVG and checks each picture exists, is
# not empty and starts like one (\x89PNG; <?xml or <svg); then checks that bad
# usage fails with status 2 and writes nothing, that a failed gnuplot run
# leaves an existing picture alone with no temporary file behind, and the
# message when gnuplot is not installed.
# Prints "test_plots: N passed" (or "..., M failed" and exits 1); prints
# "SKIP: gnuplot not installed" and exits 0 where there is no gnuplot.
set -u

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
plot=$root/scripts/plot.sh

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
done

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

# ---- the scripts themselves ------------------------------------------------------
if bash -n "$plot" 2>"$tmp/log"; then ok; else bad "bash -n scripts/plot.sh"; fi
if command -v shellcheck >/dev/null 2>&1; then
	if shellcheck "$plot" "$root/tests/test_plots.sh" >"$tmp/log" 2>&1; then ok; else bad "shellcheck"; fi
fi

if [ $fail -ne 0 ]; then
	echo "test_plots: $pass passed, $fail failed"
	exit 1
fi
echo "test_plots: $pass passed"
