#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/plot.sh — draw one of cclab's plots with gnuplot (docs/plots.md).
#
#   scripts/plot.sh busbw    OUT.png|OUT.svg RESULTS.csv [RESULTS2.csv ...] [--label TEXT ...]
#   scripts/plot.sh timeline OUT.png|OUT.svg TRACE.csv
#   scripts/plot.sh links    OUT.png|OUT.svg LINKS.csv
#   scripts/plot.sh compare  OUT.png|OUT.svg COMPARE.csv
#   scripts/plot.sh calibration OUT.png|OUT.svg CALIBRATION.csv
#   scripts/plot.sh validate OUT.png|OUT.svg VALIDATE.csv
#   scripts/plot.sh validate-cases OUT.png|OUT.svg VALIDATE.csv
#   options: --title TEXT (any kind), --label TEXT (busbw: legend text of the
#            1st, 2nd, ... input, in order; the others keep their default),
#            --line-rate RATE (busbw: the line at the link's rate, as 100Gb/s
#            or 12.5GB/s; default from the inputs' fabric column, none for
#            --line-rate none)
#
# The terminal follows OUT's extension: pngcairo 1000x600 or svg 1000x600.
# gnuplot runs scripts/plot-KIND.gp with the file names, labels and title
# passed as gnuplot single-quoted strings through -e, so any byte but a
# newline is safe in them (spaces, quotes, $, `, ;, \); a relative path gets
# "./" in front so that gnuplot never reads "<cmd" or "|cmd" as a pipe.
# The picture is written to a temporary file next to OUT and renamed onto
# OUT only when gnuplot succeeded: OUT is never left half-written.
#
# Exit status: 0 written; 1 gnuplot failed (its message is above); 2 bad
# usage, a missing or empty input (compare, calibration: or a header with no
# row under it), or no gnuplot.
set -euo pipefail

prog=plot.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage() {
	cat <<'EOF'
usage: scripts/plot.sh KIND OUT.png|OUT.svg INPUT.csv [INPUT2.csv ...] [--title TEXT] [--label TEXT ...]
  busbw     bus bandwidth vs message size, one line per results CSV (several overlaid)
  timeline  per-rank, per-track timeline of one trace CSV
  links     utilisation per link of one links CSV, sorted by link name
  compare   measured vs predicted time per size, and the error %, of one
            `cclab compare --csv` file
  calibration  predicted / measured per point of one calibration CSV
  validate  predicted against measured, log-log with a +-10 % band, every
            case and size of one `cclab validate --csv` file
  validate-cases  one panel per case of a `cclab validate --csv` file: its
            measured and predicted curves over message size
  --title TEXT   plot title (default: from the inputs)
  --label TEXT   busbw only, may repeat: legend text of the 1st, 2nd, ... input
                 (default: its scenario / executor / transport, else its file name)
  --line-rate RATE  busbw only: a dashed line at the NIC link's line rate (busbw's
                 ceiling over the network), given as 100Gb/s or 12.5GB/s (default: the rate of
                 each input's fabric preset, ib-hdr, roce-100g, ...; none when
                 no input names a preset; 'none': no line)
EOF
}

die_usage() {
	echo "$prog: $*" >&2
	echo "run 'scripts/plot.sh --help' for the usage" >&2
	exit 2
}

# ---- arguments -------------------------------------------------------------
title=""
have_title=0
line_rate=""
labels=()
pos=()
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help)
		usage
		exit 0
		;;
	--title)
		[ $# -ge 2 ] || die_usage "--title needs a value"
		title=$2
		have_title=1
		shift 2
		;;
	--title=*)
		title=${1#--title=}
		have_title=1
		shift
		;;
	--label)
		[ $# -ge 2 ] || die_usage "--label needs a value"
		labels+=("$2")
		shift 2
		;;
	--label=*)
		labels+=("${1#--label=}")
		shift
		;;
	--line-rate)
		[ $# -ge 2 ] || die_usage "--line-rate needs a value"
		line_rate=$2
		shift 2
		;;
	--line-rate=*)
		line_rate=${1#--line-rate=}
		shift
		;;
	--)
		shift
		pos+=("$@")
		break
		;;
	-?*)
		die_usage "unknown option '$1'"
		;;
	*)
		pos+=("$1")
		shift
		;;
	esac
done

kinds="busbw, timeline, links, compare, calibration, validate or validate-cases"
[ ${#pos[@]} -ge 1 ] || die_usage "missing the plot kind ($kinds)"
kind=${pos[0]}
case $kind in
busbw | timeline | links | compare | calibration | validate | validate-cases) ;;
*) die_usage "unknown plot kind '$kind' ($kinds)" ;;
esac
[ ${#pos[@]} -ge 2 ] || die_usage "missing the output file (OUT.png or OUT.svg)"
out=${pos[1]}
inputs=("${pos[@]:2}")
[ ${#inputs[@]} -ge 1 ] || die_usage "missing the input CSV file"
if [ "$kind" != busbw ] && [ ${#inputs[@]} -ne 1 ]; then
	die_usage "$kind takes exactly one input CSV (got ${#inputs[@]})"
fi
if [ -n "$line_rate" ]; then
	[ "$kind" = busbw ] || die_usage "--line-rate is for busbw only"
	case $line_rate in
	none) ;;
	*Gb/s | *GB/s)
		if ! [[ ${line_rate%??/s} =~ ^[0-9]+([.][0-9]+)?$ && ${line_rate%??/s} =~ [1-9] ]]; then
			die_usage "--line-rate '$line_rate': a positive number then Gb/s or GB/s (100Gb/s, 12.5GB/s)"
		fi
		;;
	*) die_usage "--line-rate '$line_rate': give the unit, Gb/s or GB/s (100Gb/s, 12.5GB/s), or none" ;;
	esac
fi
if [ ${#labels[@]} -gt 0 ]; then
	[ "$kind" = busbw ] || die_usage "--label is for busbw only"
	[ ${#labels[@]} -le ${#inputs[@]} ] ||
		die_usage "${#labels[@]} --label values for ${#inputs[@]} input files"
fi

nl=$'\n'
no_newline() { # WHAT VALUE
	case $2 in
	*"$nl"* | *$'\r'*) die_usage "$1 contains a newline; not supported" ;;
	esac
}

case $out in
*.png | *.PNG) term="pngcairo size 1000,600 noenhanced background rgb 'white'" ;;
*.svg | *.SVG) term="svg size 1000,600 dynamic noenhanced background rgb 'white'" ;;
*) die_usage "output '$out' must end in .png or .svg" ;;
esac
no_newline "output path" "$out"
[ -d "$out" ] && die_usage "output '$out' is a directory"
outdir=$(dirname -- "$out")
[ -d "$outdir" ] || die_usage "output directory '$outdir' does not exist"
[ -w "$outdir" ] || die_usage "output directory '$outdir' is not writable"

for f in "${inputs[@]}"; do
	no_newline "input path" "$f"
	[ -e "$f" ] || die_usage "input '$f' does not exist"
	[ -f "$f" ] || die_usage "input '$f' is not a regular file"
	[ -r "$f" ] || die_usage "input '$f' is not readable"
	[ -s "$f" ] || die_usage "input '$f' is empty"
done
no_newline "--title" "$title"
for l in "${labels[@]+"${labels[@]}"}"; do no_newline "--label" "$l"; done

tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/plot.XXXXXX")
tmpout=""
cleanup() {
	rm -rf -- "$tmpdir"
	if [ -n "$tmpout" ]; then rm -f -- "$tmpout"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# cclab writes CSV as RFC 4180 says: a field with a comma, a double quote or
# a line break is double-quoted, its quotes doubled.  gnuplot reads lines,
# not records, and cuts a quoted string at its comma: each input is read
# here as RFC 4180 records and written plain for gnuplot, a quoted field's
# commas turned into ';', its line breaks into spaces, its quotes into
# single quotes.  Lines without a quote (nearly all) pass unchanged.
plain_csv() { # IN OUT
	awk '
	function plain(r,    out, i, c, q) {
		out = ""; q = 0
		for (i = 1; i <= length(r); i++) {
			c = substr(r, i, 1)
			if (q) {
				if (c == "\"") {
					if (substr(r, i + 1, 1) == "\"") { out = out "\047"; i++ } else q = 0
				} else if (c == ",") out = out ";"
				else if (c == "\n" || c == "\r") out = out " "
				else out = out c
			} else if (c == "\"") q = 1
			else out = out c
		}
		return out
	}
	{ sub(/\r$/, "") }
	!open && index($0, "\"") == 0 { print; next }
	{
		rec = open ? rec "\n" $0 : $0
		tmp = rec
		open = gsub(/"/, "", tmp) % 2 # an odd count of quotes: the record goes on
		if (!open) print plain(rec)
	}
	END { if (open) print plain(rec) }' "$1" >"$2"
}
names=("${inputs[@]}") # as the user gave them, for messages and titles
for i in "${!inputs[@]}"; do
	plain_csv "${names[$i]}" "$tmpdir/in$i.csv"
	inputs[i]=$tmpdir/in$i.csv
done

# The columns the gnuplot script looks up by name must be in the header.
case $kind in
busbw) need="size_bytes busbw_gbps" ;;
timeline) need="t_ps dur_ps kind rank track" ;;
links) need="link kind utilisation" ;;
compare) need="size_bytes measured_us predicted_us error_pct" ;;
calibration) need="op mode size_bytes measured predicted" ;;
validate | validate-cases) need="case kind size_bytes measured_time_us predicted_time_us measured_bw predicted_bw bw_unit" ;;
esac
for i in "${!inputs[@]}"; do
	header=$(head -n 1 -- "${inputs[$i]}")
	for c in $need; do
		case ",$header," in
		*",$c,"*) ;;
		*) die_usage "input '${names[$i]}' has no '$c' column; is it a $kind CSV? (docs/plots.md)" ;;
		esac
	done
done
# A header alone is an empty comparison or calibration: say so here rather
# than let gnuplot fail on it.  (busbw leaves such a file out of the overlay.)
case $kind in
compare | calibration | validate | validate-cases)
	awk 'NR > 1 && NF { rows = 1; exit } END { exit !rows }' "${inputs[0]}" ||
		die_usage "input '${names[0]}' has a header but no rows"
	;;
esac

if ! command -v gnuplot >/dev/null 2>&1; then
	echo "$prog: gnuplot not found; install gnuplot-nox (scripts/install-deps.sh)" >&2
	exit 2
fi

script=$here/plot-$kind.gp
[ -f "$script" ] || { echo "$prog: $script is missing" >&2; exit 2; }

# ---- helpers ---------------------------------------------------------------
# A gnuplot single-quoted string: no escapes inside but '' for one quote.
gq() {
	local s=${1//\'/\'\'}
	printf "'%s'" "$s"
}
# A path gnuplot opens as a file, never as "<command" or "|command".
gpath() {
	case $1 in
	/*) printf '%s' "$1" ;;
	*) printf './%s' "$1" ;;
	esac
}

# The first data row's value of the named columns of a plain_csv copy,
# separated by \x1f (a separator read does not merge; empty where the
# column is absent).
first_row() { # FILE COLUMN...
	awk -F, -v want="${*:2}" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	NF == 0 { next }
	{
		nw = split(want, w, " ")
		s = ""
		for (i = 1; i <= nw; i++) s = s (i > 1 ? "\037" : "") ((w[i] in col) ? $col[w[i]] : "")
		print s
		exit
	}' "$1"
}

# ---- per-kind variables ----------------------------------------------------
vars="nfiles=${#inputs[@]}"
case $kind in
busbw)
	deflabels=()
	colls=()
	fabrics=()
	for i in "${!inputs[@]}"; do
		row=$(first_row "${inputs[$i]}" scenario executor transport collective nranks fabric) || row=""
		IFS=$'\x1f' read -r sc ex tr coll nr fab <<<"$row" || true
		fabrics+=("${fab:-}")
		l=""
		for part in "${sc:-}" "${ex:-}" "${tr:-}"; do
			if [ -n "$part" ]; then l=${l:+$l / }$part; fi
		done
		[ -n "$l" ] || l=$(basename -- "${names[$i]}")
		deflabels+=("$l")
		colls+=("${coll:-}|${nr:-}")
	done
	# Inputs with the same default label get their file names added.
	orig=("${deflabels[@]}")
	for i in "${!orig[@]}"; do
		for j in "${!orig[@]}"; do
			if [ "$i" != "$j" ] && [ "${orig[$i]}" = "${orig[$j]}" ]; then
				deflabels[i]="${orig[$i]} ($(basename -- "${names[$i]}"))"
				break
			fi
		done
	done
	for i in "${!inputs[@]}"; do
		n=$((i + 1))
		if [ "$i" -lt ${#labels[@]} ]; then l=${labels[$i]}; else l=${deflabels[$i]}; fi
		vars+="; file$n=$(gq "$(gpath "${inputs[$i]}")"); label$n=$(gq "$l")"
	done
	# The line rate, busbw's ceiling when every rank's data crosses its
	# NIC link (nccl-tests' busbw is what each rank's link carries; NVLink
	# inside a node, NVLS or CollNet can pass it): --line-rate, else the link rate of each input's fabric
	# preset (docs/fabric.md; a fabric file or an override is not known
	# here), one line per distinct rate.  Gb/s of data; GB/s is that / 8.
	rates=()
	case $line_rate in
	none) ;;
	*Gb/s) rates+=("${line_rate%Gb/s}") ;;
	*GB/s) rates+=("$(awk -v r="${line_rate%GB/s}" 'BEGIN { printf "%.6g", r * 8 }')") ;;
	*)
		for fab in "${fabrics[@]+"${fabrics[@]}"}"; do
			case $fab in
			ib-hdr) r=200 ;;
			ib-ndr | roce-400g) r=400 ;;
			roce-100g | ideal) r=100 ;;
			*) continue ;;
			esac
			case " ${rates[*]+"${rates[*]}"} " in
			*" $r "*) ;;
			*) rates+=("$r") ;;
			esac
		done
		;;
	esac
	vars+="; nrates=${#rates[@]}"
	for i in "${!rates[@]}"; do
		n=$((i + 1))
		gbs=$(awk -v r="${rates[$i]}" 'BEGIN { printf "%.6g", r / 8 }')
		vars+="; rate$n=$gbs; ratelabel$n=$(gq "line rate ${rates[$i]} Gb/s = $gbs GB/s")"
	done
	if [ $have_title = 0 ]; then
		# "allreduce, 8 ranks: ..." when every input with rows agrees on them.
		title="Bus bandwidth"
		first="" same=1
		for c in "${colls[@]}"; do
			if [ "$c" = "|" ]; then continue; fi
			if [ -z "$first" ]; then first=$c; elif [ "$c" != "$first" ]; then same=0; fi
		done
		coll=${first%|*} nr=${first#*|}
		if [ $same = 1 ] && [ -n "$coll" ]; then
			title="$coll${nr:+, $nr ranks}: bus bandwidth"
		fi
	fi
	;;
timeline)
	# Past 16 ranks the bands become a texture: the 16 busiest ranks (most
	# time in slices; the lower rank first on a tie) are drawn, in rank
	# order, and the title says so.  The trace has no node of a rank, so
	# it cannot group by node.  ranks1 names each band's rank.
	maxranks=16
	shown=$tmpdir/timeline.csv
	ranks=$(awk -F, -v max=$maxranks '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	NF { r = $col["rank"]; if (!(r in busy)) { busy[r] = 0; n++ } busy[r] += $col["dur_ps"] }
	END {
		for (r in busy) { k++; rk[k] = r + 0 }
		# by busy time, descending, then rank: a small insertion sort
		for (i = 2; i <= k; i++) {
			v = rk[i]
			for (j = i - 1; j >= 1 && (busy[rk[j]] < busy[v] || (busy[rk[j]] == busy[v] && rk[j] > v)); j--)
				rk[j + 1] = rk[j]
			rk[j + 1] = v
		}
		m = k < max ? k : max
		for (i = 1; i <= m; i++) keep[i] = rk[i]
		# back in rank order
		for (i = 2; i <= m; i++) {
			v = keep[i]
			for (j = i - 1; j >= 1 && keep[j] > v; j--) keep[j + 1] = keep[j]
			keep[j + 1] = v
		}
		printf "%d", k
		for (i = 1; i <= m; i++) printf " %d", keep[i]
	}' "${inputs[0]}")
	read -r nall ranks <<<"$ranks"
	if [ "${nall:-0}" -gt $maxranks ]; then
		# Renumbered 0..15 so that the bands are contiguous.
		awk -F, -v OFS=, -v keep="$ranks" '
		BEGIN { n = split(keep, k, " "); for (i = 1; i <= n; i++) band[k[i]] = i - 1 }
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == "rank") c = i; print; next }
		NF && ($c in band) { $c = band[$c]; print }' "${inputs[0]}" >"$shown"
		vars+="; file1=$(gq "$shown"); ranks1=$(gq "$ranks")"
		note=" (the $maxranks busiest of $nall ranks)"
	else
		vars+="; file1=$(gq "$(gpath "${inputs[0]}")")"
		note=""
	fi
	[ $have_title = 1 ] || title="Timeline: $(basename -- "${names[0]}")"
	title+=$note
	;;
links)
	# Sorted by link name, naturally (h0.gpu2 before h0.gpu10), header first.
	sorted=$tmpdir/links.csv
	{
		head -n 1 -- "${inputs[0]}"
		tail -n +2 -- "${inputs[0]}" | LC_ALL=C sort -s -t, -k1,1V
	} >"$sorted"
	vars+="; file1=$(gq "$sorted"); name1=$(gq "${names[0]}")"
	[ $have_title = 1 ] || title="Link utilisation: $(basename -- "${names[0]}")"
	;;
compare)
	vars+="; file1=$(gq "$(gpath "${inputs[0]}")")"
	[ $have_title = 1 ] || title="Measured vs predicted: $(basename -- "${names[0]}")"
	;;
calibration)
	# Rows without a measured or a predicted figure (empty, N/A, nan) are
	# dropped, so that they take no slot on the x axis (the gnuplot script
	# would leave a gap).
	kept=$tmpdir/calibration.csv
	awk -F, '
	function num(v) { return v ~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/ }
	{ sub(/\r$/, "") }
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; print; next }
	num($col["measured"]) && num($col["predicted"])' "${inputs[0]}" >"$kept"
	vars+="; file1=$(gq "$kept"); name1=$(gq "${names[0]}")"
	[ $have_title = 1 ] || title="Calibration, predicted / measured: $(basename -- "${names[0]}")"
	;;
validate)
	vars+="; file1=$(gq "${inputs[0]}")"
	[ $have_title = 1 ] || title="Predicted vs measured: $(basename -- "${names[0]}")"
	;;
validate-cases)
	# The case names in the file's order; a panel each, ncols per row,
	# and a picture tall enough for the rows.
	cases=$(awk -F, 'NR > 1 && NF && !seen[$1]++ { printf "%s%s", n++ ? " " : "", $1 }' "${inputs[0]}")
	ncases=$(wc -w <<<"$cases")
	ncols=4
	[ "$ncases" -lt 4 ] && ncols=$ncases
	rows=$(((ncases + ncols - 1) / ncols))
	term=${term/size 1000,600/size 1400,$((120 + 260 * rows))}
	vars+="; file1=$(gq "${inputs[0]}"); cases=$(gq "$cases"); ncols=$ncols"
	[ $have_title = 1 ] || title="Measured and predicted, per case: $(basename -- "${names[0]}")"
	;;
esac
vars+="; plottitle=$(gq "$title")"

# ---- run -------------------------------------------------------------------
base=$(basename -- "$out")
tmpout=$(mktemp "$outdir/.${base}.XXXXXX")
setup="set terminal $term; set output $(gq "$(gpath "$tmpout")"); $vars"

rc=0
gnuplot -e "$setup" "$script" || rc=$?
if [ $rc -ne 0 ]; then
	echo "$prog: gnuplot failed (exit $rc) drawing $kind; $out left as it was" >&2
	exit 1
fi
if [ ! -s "$tmpout" ]; then
	echo "$prog: gnuplot wrote nothing for $kind; $out left as it was" >&2
	exit 1
fi
# mktemp made the file 0600; give it what a plain `>` would have.
chmod "$(printf '%o' $((0666 & ~$(umask))))" "$tmpout"
mv -f -- "$tmpout" "$out"
tmpout=""
echo "$prog: wrote $out"
