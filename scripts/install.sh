#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/install.sh install|uninstall — what `make install` puts where, and
# `make uninstall` takes away: one list for both, so they cannot drift.
# The Makefile passes the folders (PREFIX, BINDIR, LIBDIR, ...), DESTDIR
# (a staging root, as debian/rules uses) and BUILD.
#
#   BINDIR      cclab, cclab-plot, the nccl-tests names (all_reduce_perf, ...)
#   TOOLDIR     PREFIX/lib/cclab/bin: nccl-tests' and perftest's names (ib_write_bw, ...)
#   LIBDIR      libcclab.so.X.Y.Z, its soname and dev links, pkgconfig/cclab.pc
#   INCLUDEDIR  cclab.h
#   DATADIR     scenarios/, topologies/, validation/, scripts/ (plot.sh, *.gp)
#   MANDIR      man1/cclab.1, man1/cclab-COMMAND.1
#   COMPDIR     bash completion for cclab
#   PYTHONDIR   cclab.py (ctypes over libcclab)
#   DOCDIR      README.md, LICENSE, docs/*.md
set -euo pipefail
cd "$(dirname "$0")/.."

action=${1:?usage: scripts/install.sh install|uninstall}
: "${BUILD:?}" "${PREFIX:?}" "${BINDIR:?}" "${LIBDIR:?}" "${INCLUDEDIR:?}" "${DATADIR:?}"
: "${DOCDIR:?}" "${MANDIR:?}" "${COMPDIR:?}" "${PYTHONDIR?}" "${SO_VERSION:?}" "${SO_NAME:?}"
D=${DESTDIR:-}
TOOLDIR=${TOOLDIR:-$PREFIX/lib/cclab/bin}
# nccl-tests' program names: argv[0] selects cclab's nccl-tests mode.
PERF_NAMES=(all_reduce_perf all_gather_perf reduce_scatter_perf broadcast_perf reduce_perf
	alltoall_perf sendrecv_perf)
# perftest's: cclab's perftest mode.  Never in BINDIR: perftest itself
# installs these in /usr/bin, and a cclab server talks only to a cclab
# client; they go to TOOLDIR, which a user puts first on PATH on purpose.
IB_NAMES=(ib_write_bw ib_write_lat ib_read_bw ib_read_lat ib_send_bw ib_send_lat ib_atomic_bw
	ib_atomic_lat)
DATA=(scenarios topologies validation scripts)

# DATADIR and DOCDIR are folders of our own (uninstall removes what it put
# there, then the folder if empty): each must end in /cclab and be none of
# the shared ones.
for v in DATADIR DOCDIR; do
	d=${!v%/}
	case $d in */cclab) ;; *)
		echo "scripts/install.sh: $v must end in /cclab: ${!v}" >&2
		exit 2 ;;
	esac
	for other in "$PREFIX" "$BINDIR" "$LIBDIR" "$INCLUDEDIR" "$MANDIR" / ""; do
		if [ "$d" = "${other%/}" ]; then
			echo "scripts/install.sh: $v is $other, a folder not cclab's alone" >&2
			exit 2
		fi
	done
done

# Whether PATH is a link to cclab (one this script made, to "cclab" in the
# same folder or to BINDIR's).
our_link() { [ -L "$1" ] && [ "$(basename -- "$(readlink -- "$1")")" = cclab ]; }
# Whether something not ours is at PATH (a program, or a link, dangling or not).
foreign() { { [ -e "$1" ] || [ -L "$1" ]; } && ! our_link "$1"; }

do_install() {
	install -d "$D$BINDIR" "$D$TOOLDIR" "$D$LIBDIR/pkgconfig" "$D$INCLUDEDIR" \
		"$D$DATADIR" "$D$MANDIR/man1" "$D$COMPDIR" "$D$DOCDIR"
	install -m 0755 "$BUILD/cclab" "$D$BINDIR/cclab"
	# The nccl-tests names in BINDIR (PERF_IN_BINDIR=0: not there, as the
	# Debian package, which must not own such generic names), never over
	# something else of that name, which stays and is said; every name
	# in TOOLDIR.
	local linked=()
	for n in "${PERF_NAMES[@]}"; do
		if [ "${PERF_IN_BINDIR:-1}" = 0 ]; then
			continue
		elif foreign "$D$BINDIR/$n"; then
			echo "install: $D$BINDIR/$n exists and is not cclab's: left alone"
		else
			ln -sfn cclab "$D$BINDIR/$n"
			linked+=("$n")
		fi
	done
	for n in "${PERF_NAMES[@]}" "${IB_NAMES[@]}"; do
		foreign "$D$TOOLDIR/$n" || ln -sfn "$BINDIR/cclab" "$D$TOOLDIR/$n"
	done
	install -m 0755 "$BUILD/libcclab.so.$SO_VERSION" "$D$LIBDIR/"
	ln -sf "libcclab.so.$SO_VERSION" "$D$LIBDIR/$SO_NAME"
	ln -sf "$SO_NAME" "$D$LIBDIR/libcclab.so"
	install -m 0644 include/cclab.h "$D$INCLUDEDIR/cclab.h"
	esc_pc() { printf '%s' "$1" | sed 's/[\\&|]/\\&/g'; }
	sed -e "s|@PREFIX@|$(esc_pc "$PREFIX")|" -e "s|@LIBDIR@|$(esc_pc "$LIBDIR")|" \
		-e "s|@INCLUDEDIR@|$(esc_pc "$INCLUDEDIR")|" -e "s|@VERSION@|$SO_VERSION|" \
		lib/cclab.pc.in >"$D$LIBDIR/pkgconfig/cclab.pc"
	chmod 0644 "$D$LIBDIR/pkgconfig/cclab.pc"
	for d in scenarios topologies validation; do
		rm -rf "$D${DATADIR:?}/$d"
		cp -R --no-preserve=ownership "$d" "$D$DATADIR/$d"
	done
	install -d "$D$DATADIR/scripts"
	install -m 0755 scripts/plot.sh "$D$DATADIR/scripts/plot.sh"
	install -m 0644 scripts/plot-*.gp "$D$DATADIR/scripts/"
	printf '#!/bin/sh\n# cclab-plot: scripts/plot.sh as installed (docs/plots.md)\nexec bash %q "$@"\n' \
		"$DATADIR/scripts/plot.sh" >"$D$BINDIR/cclab-plot"
	chmod 0755 "$D$BINDIR/cclab-plot"
	install -m 0644 "$BUILD"/man/*.1 "$D$MANDIR/man1/"
	# Completion for cclab, and for the names linked to it here only: a
	# real nccl-tests program of that name keeps its own.
	{
		cat scripts/cclab.bash-completion
		[ ${#linked[@]} = 0 ] || echo "complete -F _cclab ${linked[*]}"
	} >"$D$COMPDIR/cclab"
	chmod 0644 "$D$COMPDIR/cclab"
	for n in "${linked[@]}"; do foreign "$D$COMPDIR/$n" || ln -sfn cclab "$D$COMPDIR/$n"; done
	if [ -n "$PYTHONDIR" ]; then
		install -d "$D$PYTHONDIR"
		sed "s|@LIBDIR@|$(esc_pc "$LIBDIR")|" python/cclab.py >"$D$PYTHONDIR/cclab.py"
		chmod 0644 "$D$PYTHONDIR/cclab.py"
	else
		echo "install: no python3 to ask where modules go: cclab.py not installed"
	fi
	install -m 0644 README.md LICENSE docs/*.md "$D$DOCDIR/"
	# The new soname where the loader looks, when this is the real root.
	if [ -z "$D" ] && [ "$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then
		ldconfig "$LIBDIR" 2>/dev/null || true
	fi
	echo "installed cclab $SO_VERSION under ${D}$PREFIX (nccl-tests' and perftest's names:" \
		"PATH=$TOOLDIR:\$PATH)"
}

# What install wrote, and nothing else: a file of another program in these
# folders stays, and so does a folder that is not empty afterwards.
do_uninstall() {
	rm -f "$D$BINDIR/cclab" "$D$BINDIR/cclab-plot" "$D$LIBDIR/libcclab.so.$SO_VERSION" \
		"$D$LIBDIR/$SO_NAME" "$D$LIBDIR/libcclab.so" "$D$LIBDIR/pkgconfig/cclab.pc" \
		"$D$INCLUDEDIR/cclab.h" "$D$MANDIR"/man1/cclab.1 "$D$MANDIR"/man1/cclab-*.1 \
		"$D$COMPDIR/cclab" ${PYTHONDIR:+"$D$PYTHONDIR/cclab.py"}
	for n in "${PERF_NAMES[@]}" "${IB_NAMES[@]}"; do
		# only our own links: a real nccl-tests or perftest program stays
		if our_link "$D$BINDIR/$n"; then rm -f "$D$BINDIR/$n"; fi
		if our_link "$D$COMPDIR/$n"; then rm -f "$D$COMPDIR/$n"; fi
		if our_link "$D$TOOLDIR/$n"; then rm -f "$D$TOOLDIR/$n"; fi
	done
	rmdir "$D$TOOLDIR" "$D$(dirname "$TOOLDIR")" 2>/dev/null || true
	for d in "${DATA[@]}"; do rm -rf "$D${DATADIR:?}/$d"; done
	for f in README.md LICENSE docs/*.md; do rm -f "$D$DOCDIR/$(basename "$f")"; done
	rmdir "$D$DATADIR" "$D$DOCDIR" 2>/dev/null || true
	[ -z "$PYTHONDIR" ] || rm -f "$D$PYTHONDIR/__pycache__/cclab".*.pyc
	echo "uninstalled cclab from ${D}$PREFIX"
}

case $action in
install) do_install ;;
uninstall) do_uninstall ;;
*) echo "scripts/install.sh: install or uninstall, not '$action'" >&2; exit 2 ;;
esac
