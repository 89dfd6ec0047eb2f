#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/test_deb.sh — the Debian package: built by dpkg-buildpackage from a
# copy of the tracked tree (debian/), installed with dpkg on this machine,
# used as a user would (the program, man, the library through pkg-config,
# Python), then purged, leaving the machine as it was.  SKIP, saying why,
# without root or dpkg-buildpackage, or when a cclab package is installed
# already (this test will not replace someone's package).
set -uo pipefail
cd "$(dirname "$0")/.."
. tests/checks.sh
skip() { echo "test_deb: SKIP: $1"; exit 0; }

[ "$(id -u)" = 0 ] || skip "dpkg -i needs root"
command -v dpkg-buildpackage >/dev/null || skip "dpkg-buildpackage missing (dpkg-dev)"
dpkg-checkbuilddeps debian/control >/dev/null 2>&1 ||
	skip "build dependencies missing: $(dpkg-checkbuilddeps debian/control 2>&1 | head -c 200)"
if dpkg-query -W -f='${Status}' cclab 2>/dev/null | grep -q 'ok installed'; then
	skip "a cclab package is installed already"
fi
tmp=$(mktemp -d)
purge() { dpkg --purge cclab >/dev/null 2>&1; rm -rf "$tmp"; }
trap purge EXIT

# The files git holds or would (tracked, and new ones not ignored), as now.
mkdir "$tmp/cclab-0.1.0"
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$tmp/cclab-0.1.0"
if ! (cd "$tmp/cclab-0.1.0" && dpkg-buildpackage -us -uc -b -j2) >"$tmp/build.log" 2>&1; then
	tail -n 30 "$tmp/build.log"
	bad "dpkg-buildpackage -us -uc -b"
	checks_done test_deb
	exit 1
fi
deb=$(ls "$tmp"/cclab_0.1.0_*.deb)
ok "dpkg-buildpackage built $(basename "$deb")"
# dpkg -i replaces a file no package owns without a word: not on this
# machine's own (a `make install PREFIX=/usr`, a hand-built tool).
taken=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print substr($6, 2)}' |
	while read -r f; do [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done | head -n 3)
[ -z "$taken" ] || skip "the package would replace files already here: $taken"
check "no warning in the package build" bash -c "! grep -E 'warning:|dpkg-shlibdeps: warning' '$tmp/build.log'"
check "the package holds program, library, header, .pc, man, completion, Python, data" bash -c "
	dpkg-deb -c '$deb' | awk '{print \$6}' >'$tmp/files'
	for f in ./usr/bin/cclab ./usr/include/cclab.h ./usr/share/man/man1/cclab-sim.1.gz \
		./usr/lib/cclab/bin/all_reduce_perf ./usr/lib/cclab/bin/ib_write_bw \
		./usr/share/bash-completion/completions/cclab ./usr/lib/python3/dist-packages/cclab.py \
		./usr/share/cclab/scenarios/demo.yaml ./usr/share/doc/cclab/copyright; do
		grep -qx \"\$f\" '$tmp/files' || { echo \"missing \$f\"; exit 1; }
	done
	grep -q '^./usr/lib/.*/libcclab.so.0.1.0\$' '$tmp/files' && grep -q '/pkgconfig/cclab.pc\$' '$tmp/files' &&
	! grep -q '^./usr/bin/.*_perf\$' '$tmp/files'"
check "dpkg -i" bash -c "dpkg -i '$deb' >'$tmp/dpkg.log' 2>&1 || { cat '$tmp/dpkg.log'; exit 1; }"
check "/usr/bin/cclab runs an installed scenario" bash -c "
	/usr/bin/cclab run /usr/share/cclab/scenarios/demo.yaml --set sizes.max=4K --csv '$tmp/cli.csv' >/dev/null &&
	grep -q '^demo,sim,.*,4096,' '$tmp/cli.csv'"
check "man finds cclab-sim" bash -c "man -w cclab-sim >/dev/null 2>&1"
check "the example builds and runs against the package's library" bash -c "
	cc -std=c11 -Wall -Werror -o '$tmp/sim_sizes' examples/sim_sizes.c \$(pkg-config --cflags --libs cclab) &&
	'$tmp/sim_sizes' /usr/share/cclab/scenarios/demo.yaml sizes.max=4K | grep -q '^4096,'"
check "Debian's python3 imports cclab and runs a scenario" bash -c "cd '$tmp' && $PY -c '
import cclab
rows = cclab.run(\"/usr/share/cclab/scenarios/demo.yaml\", {\"sizes.max\": \"4K\"})
assert [r[\"size_bytes\"] for r in rows] == [1024, 4096] and all(r[\"ok\"] for r in rows), rows'"
dpkg --purge cclab >/dev/null 2>&1
check "dpkg --purge leaves no cclab file" bash -c "[ ! -e /usr/bin/cclab ] && [ ! -e /usr/share/cclab ] &&
	! ls /usr/lib/*/libcclab.so* >/dev/null 2>&1"

checks_done test_deb
