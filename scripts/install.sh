#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/install.sh install|uninstall — what `make install` puts where, and
# `make uninstall` takes away: one list for both, so they cannot drift.
# The Makefile passes the folders (PREFIX, BINDIR, LIBDIR, ...), DESTDIR
# (a staging root, as debian/rules uses) and BUILD.
#
#   BINDIR      cclab, cclab-plot, the nccl-tests names (all_reduce_perf, ...)
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
: "${DOCDIR:?}" "${MANDIR:?}" "${COMPDIR:?}" "${PYTHONDIR:?}" "${SO_VERSION:?}" "${SO_NAME:?}"
D=${DESTDIR:-}
# nccl-tests' program names: argv[0] selects cclab's nccl-tests mode
# (sendrecv_perf is not one: cclab models no send/receive ring test).
PERF_NAMES=(all_reduce_perf all_gather_perf reduce_scatter_perf broadcast_perf reduce_perf
	alltoall_perf)
DATA=(scenarios topologies validation)

# Our own folders only: uninstall removes them whole.
case $DATADIR/$DOCDIR in */cclab/*/cclab) ;; *)
	echo "scripts/install.sh: DATADIR and DOCDIR must end in /cclab (they are removed whole" \
		"by uninstall): $DATADIR, $DOCDIR" >&2
	exit 2 ;;
esac

# Whether PATH is a link to cclab (one this script made).
our_link() { [ -L "$1" ] && [ "$(readlink "$1")" = cclab ]; }

do_install() {
	install -d "$D$BINDIR" "$D$LIBDIR/pkgconfig" "$D$INCLUDEDIR" "$D$DATADIR/scripts" \
		"$D$MANDIR/man1" "$D$COMPDIR" "$D$PYTHONDIR" "$D$DOCDIR"
	install -m 0755 "$BUILD/cclab" "$D$BINDIR/cclab"
	# A link per name, never over a program of that name (a real
	# nccl-tests build): that one stays, and is said.
	for n in "${PERF_NAMES[@]}"; do
		if [ -e "$D$BINDIR/$n" ] && ! our_link "$D$BINDIR/$n"; then
			echo "install: $D$BINDIR/$n exists and is not cclab's: left alone"
		else
			ln -sfn cclab "$D$BINDIR/$n"
		fi
	done
	install -m 0755 "$BUILD/libcclab.so.$SO_VERSION" "$D$LIBDIR/"
	ln -sf "libcclab.so.$SO_VERSION" "$D$LIBDIR/$SO_NAME"
	ln -sf "$SO_NAME" "$D$LIBDIR/libcclab.so"
	install -m 0644 include/cclab.h "$D$INCLUDEDIR/cclab.h"
	sed -e "s|@PREFIX@|$PREFIX|" -e "s|@LIBDIR@|$LIBDIR|" -e "s|@INCLUDEDIR@|$INCLUDEDIR|" \
		-e "s|@VERSION@|$SO_VERSION|" -e "s|@REQUIRES@|${PC_REQUIRES:-}|" lib/cclab.pc.in \
		>"$D$LIBDIR/pkgconfig/cclab.pc"
	chmod 0644 "$D$LIBDIR/pkgconfig/cclab.pc"
	for d in "${DATA[@]}"; do
		rm -rf "$D$DATADIR/$d"
		cp -R --no-preserve=ownership "$d" "$D$DATADIR/$d"
	done
	install -m 0755 scripts/plot.sh "$D$DATADIR/scripts/plot.sh"
	install -m 0644 scripts/plot-*.gp "$D$DATADIR/scripts/"
	printf '#!/bin/sh\n# cclab-plot: scripts/plot.sh as installed (docs/plots.md)\nexec bash %s "$@"\n' \
		"$DATADIR/scripts/plot.sh" >"$D$BINDIR/cclab-plot"
	chmod 0755 "$D$BINDIR/cclab-plot"
	install -m 0644 "$BUILD"/man/*.1 "$D$MANDIR/man1/"
	install -m 0644 scripts/cclab.bash-completion "$D$COMPDIR/cclab"
	for n in "${PERF_NAMES[@]}"; do
		our_link "$D$BINDIR/$n" && ln -sfn cclab "$D$COMPDIR/$n"
	done
	sed "s|@LIBDIR@|$LIBDIR|" python/cclab.py >"$D$PYTHONDIR/cclab.py"
	chmod 0644 "$D$PYTHONDIR/cclab.py"
	install -m 0644 README.md LICENSE "$D$DOCDIR/"
	install -m 0644 docs/*.md "$D$DOCDIR/"
	# The new soname where the loader looks, when this is the real root.
	if [ -z "$D" ] && [ "$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then
		ldconfig "$LIBDIR" 2>/dev/null || true
	fi
	echo "installed cclab $SO_VERSION under ${D}$PREFIX"
}

do_uninstall() {
	rm -f "$D$BINDIR/cclab" "$D$BINDIR/cclab-plot" "$D$LIBDIR/libcclab.so.$SO_VERSION" \
		"$D$LIBDIR/$SO_NAME" "$D$LIBDIR/libcclab.so" "$D$LIBDIR/pkgconfig/cclab.pc" \
		"$D$INCLUDEDIR/cclab.h" "$D$MANDIR"/man1/cclab.1 "$D$MANDIR"/man1/cclab-*.1 \
		"$D$COMPDIR/cclab" "$D$PYTHONDIR/cclab.py"
	for n in "${PERF_NAMES[@]}"; do
		# only our own links: a real nccl-tests binary of that name stays
		our_link "$D$BINDIR/$n" && rm -f "$D$BINDIR/$n"
		our_link "$D$COMPDIR/$n" && rm -f "$D$COMPDIR/$n"
	done
	rm -rf "$D$DATADIR" "$D$DOCDIR"
	rm -rf "$D$PYTHONDIR/__pycache__/cclab".*.pyc 2>/dev/null || true
	echo "uninstalled cclab from ${D}$PREFIX"
}

case $action in
install) do_install ;;
uninstall) do_uninstall ;;
*) echo "scripts/install.sh: install or uninstall, not '$action'" >&2; exit 2 ;;
esac
