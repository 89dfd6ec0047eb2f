#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/test_install.sh — `make install` into a temporary prefix, then use
# the installed copy only: the program on an installed scenario, the man
# pages and completion, examples/sim_sizes.c built with the installed
# header and pkg-config file and run on the installed libcclab.so, the
# Python module, and `make uninstall` leaving no file behind.  Rows from
# the library must equal `cclab run`'s, the same scenario and sizes.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
. tests/checks.sh

for tool in help2man pkg-config $PY cc; do
	if ! command -v $tool >/dev/null; then
		echo "test_install: SKIP: $tool missing (scripts/install-deps.sh installs it)"
		exit 0
	fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
if ! make -s install BUILD="$BUILD" PREFIX="$prefix" >"$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	bad "make install"
	checks_done test_install
	exit 1
fi
ok "make install PREFIX=$prefix"

# --- what lands where
lib=$prefix/lib
pydir=$(find "$lib" -name cclab.py -printf '%h\n' | head -n 1)
check "program, library and its links, header, pkg-config" test -x "$prefix/bin/cclab" \
	-a -f "$lib/libcclab.so.0.1.0" -a -L "$lib/libcclab.so.0" -a -L "$lib/libcclab.so" \
	-a -f "$prefix/include/cclab.h" -a -f "$lib/pkgconfig/cclab.pc"
check "data: scenarios, topologies, validation, plot scripts" test -f \
	"$prefix/share/cclab/scenarios/demo.yaml" -a -f "$prefix/share/cclab/topologies/star-8.yaml" \
	-a -d "$prefix/share/cclab/validation" -a -x "$prefix/bin/cclab-plot" \
	-a -f "$prefix/share/cclab/scripts/plot-busbw.gp"
check "docs and LICENSE" test -f "$prefix/share/doc/cclab/LICENSE" -a -f \
	"$prefix/share/doc/cclab/README.md"
check "python module in the prefix's python3 folder" test -n "$pydir"
ncmd=$("$BUILD/cclab" --help | awk '/^Commands:/ {on=1; next} on && /^$/ {exit}
	on && /^  [a-z0-9]/ && $1 != "help" {print $1}' | sort -u | wc -l)
nman=$(ls "$prefix/share/man/man1" | grep -c '^cclab.*\.1$')
check "a man page for cclab and each of its $ncmd commands ($nman)" test "$nman" = $((ncmd + 1))
check "man cclab-sim renders its options" bash -c "MANWIDTH=100 man -l '$prefix/share/man/man1/cclab-sim.1' 2>/dev/null | grep -q -- '--fabric'"
check "man cclab names the command" grep -q '^cclab \\- ' "$prefix/share/man/man1/cclab.1"
# sourced inside a function, as bash-completion's loader does
check "bash completion completes commands and options" bash -c "
	load() { source '$prefix/share/bash-completion/completions/cclab'; }; load
	PATH='$prefix/bin':\$PATH
	COMP_WORDS=(cclab swe); COMP_CWORD=1; _cclab; [ \"\${COMPREPLY[*]}\" = sweep ] || exit 1
	COMP_WORDS=(cclab sim --topo); COMP_CWORD=2; _cclab 2>&1; [ \"\${COMPREPLY[*]}\" = --topology ]"
check "nccl-tests' names run cclab's mode (all_reduce_perf -g 2)" bash -c "
	'$prefix/bin/all_reduce_perf' -b 1K -e 1K -g 2 | grep -q '^# Collective test concluded: all_reduce_perf'"
check "completion of all_reduce_perf's flags" bash -c "
	load() { source '$prefix/share/bash-completion/completions/all_reduce_perf'; }; load
	PATH='$prefix/bin':\$PATH
	COMP_WORDS=(all_reduce_perf --warmup_i); COMP_CWORD=1; _cclab; [ \"\${COMPREPLY[*]}\" = --warmup_iters ]"
check "perftest's names in lib/cclab/bin only (ib_write_bw simulates)" bash -c "
	[ ! -e '$prefix/bin/ib_write_bw' ] &&
	'$prefix/lib/cclab/bin/ib_write_bw' -s 8 -n 10 | grep -q 'as perftest.s ib_write_bw'"
# Things of others in the same folders: a program named reduce_perf, a
# dangling link named all_gather_perf, a file in the data folder.
mkdir -p "$tmp/other/bin" "$tmp/other/share/cclab"
printf '#!/bin/sh\necho real\n' >"$tmp/other/bin/reduce_perf"
chmod +x "$tmp/other/bin/reduce_perf"
ln -s /nonexistent/nccl-tests/all_gather_perf "$tmp/other/bin/all_gather_perf"
echo mine >"$tmp/other/share/cclab/notes.txt"
make -s install BUILD="$BUILD" PREFIX="$tmp/other" >"$tmp/other.log" 2>&1
check "install leaves another program named reduce_perf alone, and says so" bash -c "
	[ \"\$('$tmp/other/bin/reduce_perf')\" = real ] && grep -q 'reduce_perf exists and is not cclab' '$tmp/other.log'"
check "install leaves a dangling link of a perf name alone" bash -c "
	[ \"\$(readlink '$tmp/other/bin/all_gather_perf')\" = /nonexistent/nccl-tests/all_gather_perf ]"
make -s uninstall BUILD="$BUILD" PREFIX="$tmp/other" >/dev/null 2>&1
check "uninstall leaves them, and a user's file in share/cclab" test -x "$tmp/other/bin/reduce_perf" \
	-a -L "$tmp/other/bin/all_gather_perf" -a -f "$tmp/other/share/cclab/notes.txt" \
	-a ! -e "$tmp/other/share/cclab/scenarios" -a ! -e "$tmp/other/bin/cclab"
make -s uninstall BUILD="$BUILD" PREFIX="$tmp/other" DATADIR="$tmp/other" >"$tmp/guard.log" 2>&1
rc=$?
check "uninstall refuses DATADIR = PREFIX (exit 2), removing nothing" \
	test $rc != 0 -a -x "$tmp/other/bin/reduce_perf" -a -n "$(grep 'DATADIR must end in /cclab' "$tmp/guard.log")"
exports=$(nm -D --defined-only "$lib/libcclab.so.0" | awk '$3 !~ /^CCLAB_0$/ {print $3}' |
	grep -v '^cclab_' | head -n 3)
check "the library exports cclab_* only${exports:+ (also: $exports)}" test -z "$exports"
check "soname libcclab.so.0" bash -c "objdump -p '$lib/libcclab.so.0' | grep -q 'SONAME *libcclab.so.0'"

# --- the installed program, on an installed scenario (its topology found
# relative to the file, as in the source tree)
scen=$prefix/share/cclab/scenarios/demo.yaml
"$prefix/bin/cclab" run "$scen" --set sizes.max=64K --csv "$tmp/cli.csv" >"$tmp/cli.out" 2>&1
check "installed cclab runs an installed scenario" test -s "$tmp/cli.csv"

# --- C, against the installed header, pkg-config file and library only
export PKG_CONFIG_PATH=$lib/pkgconfig
flags=$(echo $(pkg-config --cflags --libs cclab))
check "pkg-config cclab gives the installed paths ($flags)" \
	test "$flags" = "-I$prefix/include -L$lib -lcclab"
check "the example builds against the installed library only" \
	cc -std=c11 -Wall -Wextra -Werror -o "$tmp/sim_sizes" examples/sim_sizes.c $flags
check "cclab.h is C++-clean" bash -c "echo '#include <cclab.h>' | c++ -x c++ -fsyntax-only -Wall -Werror -I'$prefix/include' -"
# The interface's edges: NULL handles and too small a struct are -EINVAL,
# not a crash; a larger struct (a newer program) keeps its tail.
cat >"$tmp/edges.c" <<'C'
#include <cclab.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
	char err[256];
	cclab_scenario *sc;
	cclab_schedule *s;
	struct cclab_row row = { .size = sizeof(row) };
	struct { struct cclab_row r; unsigned tail; } big = { { .size = sizeof(big) }, 0xC0FFEE };
	const char *sets[] = { "sizes.max=4K", NULL };
	int bad = 0;

	(void)argc;
	bad |= cclab_run(NULL, NULL, CCLAB_EXEC_SIM, 0, &row, err, sizeof(err)) != -EINVAL;
	bad |= cclab_run_with(NULL, NULL, CCLAB_EXEC_SIM, NULL, &row, err, sizeof(err)) != -EINVAL;
	bad |= cclab_run_size(NULL, 1024, CCLAB_EXEC_SIM, &row, err, sizeof(err)) != -EINVAL;
	bad |= cclab_schedule_build(NULL, 1024, &s, err, sizeof(err)) != -EINVAL;
	bad |= cclab_scenario_sizes(NULL, NULL, 0) != 0 || cclab_scenario_name(NULL) != NULL;
	bad |= cclab_schedule_info(NULL, NULL) != -EINVAL;
	bad |= cclab_scenario_load(argv[1], sets, 2, &sc, err, sizeof(err)) != -EINVAL;
	if (cclab_scenario_load(argv[1], sets, 1, &sc, err, sizeof(err)))
		return printf("load: %s\n", err), 1;
	row.size = sizeof(row) - 1;
	bad |= cclab_run_size(sc, 1024, CCLAB_EXEC_SIM, &row, err, sizeof(err)) != -EINVAL;
	bad |= cclab_run_size(sc, 1024, CCLAB_EXEC_SIM, &big.r, err, sizeof(err)) != 0;
	bad |= big.tail != 0xC0FFEE || big.r.size != sizeof(big) || !big.r.ok;
	/* run options: a cancel already set stops the simulation at its first
	 * check; a bad check value or too small a struct is -EINVAL */
	bool stop = true;
	struct cclab_run_opts opts = { .size = sizeof(opts), .check = -1, .cancel = &stop };
	if (cclab_schedule_build(sc, 4096, &s, err, sizeof(err)))
		return printf("build: %s\n", err), 1;
	row.size = sizeof(row);
	bad |= cclab_run_with(sc, s, CCLAB_EXEC_SIM, &opts, &row, err, sizeof(err)) != 0;
	bad |= row.ok || !strstr(row.error, "time limit reached");
	stop = false;
	bad |= cclab_run_with(sc, s, CCLAB_EXEC_SIM, &opts, &row, err, sizeof(err)) != 0 || !row.ok;
	bad |= row.checked != 1; /* 4 KiB is under the scenario's check: 64MiB */
	opts.check = 2;
	bad |= cclab_run_with(sc, s, CCLAB_EXEC_SIM, &opts, &row, err, sizeof(err)) != -EINVAL;
	opts.check = 0;
	opts.size = 4;
	bad |= cclab_run_with(sc, s, CCLAB_EXEC_SIM, &opts, &row, err, sizeof(err)) != -EINVAL;
	bad |= cclab_run_with(sc, s, CCLAB_EXEC_SIM, NULL, &row, err, sizeof(err)) != 0 || !row.ok;
	cclab_schedule_free(s);
	cclab_scenario_free(sc);
	cclab_scenario_free(NULL);
	return bad;
}
C
check "the interface's edges: NULL handles, struct sizes, run options" bash -c "
	cc -std=c11 -Wall -Werror -o '$tmp/edges' '$tmp/edges.c' \$(PKG_CONFIG_PATH='$lib/pkgconfig' pkg-config --cflags --libs cclab) &&
	LD_LIBRARY_PATH='$lib' '$tmp/edges' '$scen'"
# A schedule past the process's memory is -E2BIG with the figures, before
# any allocation (1024 ranks take about 5 GiB; ulimit -v 2 GiB here).
cat >"$tmp/big.c" <<'C'
#include <cclab.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
	char err[512];
	cclab_scenario *sc;
	cclab_schedule *s;
	const char *sets[] = { "topology={generator: star, ranks: 1024}" };

	(void)argc;
	if (cclab_scenario_load(argv[1], sets, 1, &sc, err, sizeof(err)))
		return printf("load: %s\n", err), 1;
	int rc = cclab_schedule_build(sc, 1 << 20, &s, err, sizeof(err));

	cclab_scenario_free(sc);
	return !(rc == -E2BIG && strstr(err, "the address-space limit (ulimit -v)"));
}
C
check "a schedule past the memory limit is -E2BIG, before it is built" bash -c "
	cc -std=c11 -Wall -Werror -o '$tmp/big' '$tmp/big.c' \$(PKG_CONFIG_PATH='$lib/pkgconfig' pkg-config --cflags --libs cclab) &&
	(ulimit -v 2097152; LD_LIBRARY_PATH='$lib' '$tmp/big' '$scen')"
LD_LIBRARY_PATH=$lib "$tmp/sim_sizes" "$scen" sizes.max=64K >"$tmp/lib.csv" 2>"$tmp/lib.err"
rc=$?
check "the example runs ($(head -c 200 "$tmp/lib.err"))" test $rc = 0 -a -s "$tmp/lib.csv"
# size, time, algbw and busbw of each row: the library's equal the program's
same_rows() { # CLI.csv LIB.csv
	python3 - "$1" "$2" <<'PY'
import csv, sys
cli = list(csv.DictReader(open(sys.argv[1])))
lib = list(csv.DictReader(open(sys.argv[2])))
assert len(cli) == len(lib) and cli, (len(cli), len(lib))
for c, l in zip(cli, lib):
    assert c["size_bytes"] == l["size_bytes"], (c["size_bytes"], l["size_bytes"])
    for a, b in (("time_us", "time_us"), ("algbw_gbps", "algbw_gbps"), ("busbw_gbps", "busbw_gbps")):
        x, y = float(c[a]), float(l[b])
        assert abs(x - y) <= 5e-6 * abs(x), (c["size_bytes"], a, x, y)
PY
}
check "library rows equal cclab run's (demo, 1K..64K)" same_rows "$tmp/cli.csv" "$tmp/lib.csv"
# a scenario launched as nccl-tests -g 8: the launch floor, 33.28 us, in both
vp=validation/h100-1x8-nvswitch-allreduce-nvls-nccl2243-voltagepark/scenario.yaml
"$prefix/bin/cclab" run "$vp" --set sizes.max=32 --csv "$tmp/cli-g8.csv" >/dev/null 2>&1
LD_LIBRARY_PATH=$lib "$tmp/sim_sizes" "$vp" sizes.max=32 >"$tmp/lib-g8.csv" 2>/dev/null
check "library rows equal cclab run's (launch: -g 8, 8..32 B)" same_rows "$tmp/cli-g8.csv" \
	"$tmp/lib-g8.csv"
check "... each the launch floor, 33.28 us" test "$(grep -c ',33.28,' "$tmp/cli-g8.csv")" = 3
check "every rank's data 2N(k-1)/k: 64 KiB on 8 ranks is 114688 B" \
	grep -q '^65536,.*,114688$' "$tmp/lib.csv"
printf 'name: x\ncollective: allreduec\n' >"$tmp/bad.yaml"
LD_LIBRARY_PATH=$lib "$tmp/sim_sizes" "$tmp/bad.yaml" >/dev/null 2>"$tmp/bad.err"
rc=$?
check "a bad scenario: exit 2, file:line:col ($(head -c 120 "$tmp/bad.err"))" \
	test $rc = 2 -a -n "$(grep "bad.yaml:2:" "$tmp/bad.err")"

# --- Python, from the installed module and library, no CCLAB_LIB: the
# prefix's module folder is the user site of PYTHONUSERBASE=PREFIX, as
# ~/.local's is for `make install PREFIX=$HOME/.local`
check "python finds the module as a user site, no PYTHONPATH" bash -c "
	PYTHONUSERBASE='$prefix' $PY -c 'import cclab, sys; sys.exit(cclab.version() != \"0.1.0\")'"
export PYTHONPATH=$pydir
py() { $PY - "$@"; }
check "python: rows equal cclab run's, data executor #wrong 0, errors raise" py \
	"$tmp/cli.csv" "$scen" "$tmp/bad.yaml" <<'PY'
import csv, math, sys
import cclab
cli = list(csv.DictReader(open(sys.argv[1])))
rows = cclab.run(sys.argv[2], {"sizes.max": "64K"})
assert [r["size_bytes"] for r in rows] == [int(c["size_bytes"]) for c in cli]
for r, c in zip(rows, cli):
    for k in ("time_us", "algbw_gbps", "busbw_gbps"):
        assert math.isclose(r[k], float(c[k]), rel_tol=5e-6), (k, r[k], c[k])
    assert r["ok"] and r["wrong"] == 0, r
data = cclab.run(sys.argv[2], {"sizes.max": "4K"}, executor="data")
assert all(d["time_us"] is None and d["wrong"] == 0 for d in data), data
with cclab.Scenario(sys.argv[2]) as sc:
    s = sc.schedule(65536)
    assert (s["nranks"], s["algorithm"], s["protocol"]) == (8, "ring", "simple"), s
    assert sc.sizes()[0] == 1024 and sc.collective == "allreduce"
try:
    cclab.Scenario(sys.argv[3])
    raise SystemExit("a bad scenario loaded")
except cclab.Error as e:
    assert "bad.yaml:2:" in str(e), str(e)
assert cclab.version() == "0.1.0"
with cclab.Scenario(sys.argv[2]) as sc:  # a simulation stopped by its wall-clock limit
    r = sc.run_size(1 << 30, wall_limit_s=0.01)
    assert not r["ok"] and "wall-clock limit" in r["error"], r
sc = cclab.Scenario(sys.argv[2])
sc.close()
try:
    sc.sizes()
    raise SystemExit("a closed scenario answered")
except cclab.Error as e:
    assert "closed" in str(e)
PY
check "python example runs" bash -c "$PY python/example.py '$scen' sizes.max=4K | grep -q '^ *4096'"
check "NCCL's choice (auto) per size: library equals cclab run" bash -c "
	v=\$(ls -d '$prefix/share/cclab/validation'/h100-2x8-ib400-allreduce-nccltests309)
	'$prefix/bin/cclab' run \"\$v/scenario.yaml\" --set sizes.min=1M --set sizes.max=4M --set check=false \
		--csv '$tmp/auto.csv' >/dev/null 2>&1
	LD_LIBRARY_PATH='$lib' '$tmp/sim_sizes' \"\$v/scenario.yaml\" sizes.min=1M sizes.max=4M check=false \
		>'$tmp/auto-lib.csv' && python3 -c '
import csv, sys
c = list(csv.DictReader(open(sys.argv[1]))); l = list(csv.DictReader(open(sys.argv[2])))
assert len(c) == len(l) == 3, (len(c), len(l))
for a, b in zip(c, l):
    assert abs(float(a[\"time_us\"]) - float(b[\"time_us\"])) <= 5e-6 * float(a[\"time_us\"]), (a, b)
' '$tmp/auto.csv' '$tmp/auto-lib.csv'"

# --- uninstall leaves no file
make -s uninstall BUILD="$BUILD" PREFIX="$prefix" >"$tmp/uninstall.log" 2>&1
left=$(find "$prefix" \( -type f -o -type l \) | head -n 5)
check "make uninstall removes every file${left:+ (left: $left)}" test -z "$left"

checks_done test_install
