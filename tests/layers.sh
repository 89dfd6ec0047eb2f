#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The layers, bottom up: util < core < sim, backend < cli; lib (libcclab.so)
# over util, core and sim.  A layer's files
# include headers of their own layer and of those below it only; sim and
# backend, side by side above core, include neither of each other
# (docs/architecture.md).  A header named without a folder ("algo.h") is
# the including file's own folder's.
#
#   tests/layers.sh            check every file of util/ core/ sim/ backend/ cli/;
#                              name each include that runs up or across, exit 1
#   tests/layers.sh --uses F   the layers above core that the test F uses, on one
#                              line ("sim backend"): those whose headers it includes, itself or through the
#                              tests/*.h it includes (the Makefile links them)
set -u
cd "$(dirname "$0")/.." || exit 1

allowed() {
	case $1 in
	util) echo "util" ;;
	core) echo "util core" ;;
	sim) echo "util core sim" ;;
	backend) echo "util core backend" ;;
	cli) echo "util core sim backend cli" ;;
	lib) echo "util core sim" ;; # libcclab.so: the simulator and data executor, no verbs
	esac
}

if [ "${1:-}" = --uses ]; then
	todo=("${2:?usage: tests/layers.sh --uses tests/FILE.c}") seen=" " uses=" "
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]} todo=("${todo[@]:1}")
		case $seen in *" $f "*) continue ;; esac
		seen="$seen$f "
		for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
			case $inc in
			tests/*) todo+=("$inc") ;;
			sim/* | backend/*) uses="$uses${inc%%/*} " ;;
			esac
		done
	done
	out=""
	for l in sim backend; do
		case $uses in *" $l "*) out="$out $l" ;; esac
	done
	echo "${out# }"
	exit 0
fi

bad=0
for layer in util core sim backend cli lib; do
	ok=" $(allowed $layer) "
	while IFS=: read -r file line inc; do
		to=${inc%%/*}
		case $ok in *" $to "*) ;; *)
			echo "tests/layers.sh: $file:$line: $layer includes $inc ($layer may include: $(allowed $layer))"
			bad=1 ;;
		esac
	done < <(grep -rnoE '^#include "(util|core|sim|backend|cli|lib)/[^"]*"' "$layer" \
		--include='*.c' --include='*.h' --include='*.cu' --include='*.cuh' |
		sed 's/#include "\(.*\)"$/\1/')
done
[ $bad = 0 ] && echo "layers: util < core < sim, backend < cli; sim < lib: no include runs up or across"
exit $bad
