#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs small scenarios and commands of the simulator, the data executor and
# the loaders under valgrind memcheck (issue 9): no invalid read or write, no
# use of uninitialised memory, no definite or indirect leak, on success and
# on the error paths.  A memcheck error exits 99 (--error-exitcode); any other
# status is the command's own, which each line below expects.
# Usage: scripts/valgrind.sh BUILD/cclab
set -uo pipefail
cclab=${1:?usage: scripts/valgrind.sh BUILD/cclab}
command -v valgrind >/dev/null || { echo "valgrind: SKIP (not installed: scripts/install-deps.sh)"; exit 0; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
vg=(valgrind --quiet --error-exitcode=99 --leak-check=full
	--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect)
fail=0 n=0

# expect STATUS ARGS...: runs cclab ARGS under memcheck, wants exit STATUS.
expect() {
	local want=$1 st
	shift
	n=$((n + 1))
	"${vg[@]}" "$cclab" "$@" >"$out/stdout" 2>"$out/stderr"
	st=$?
	if [ "$st" -ne "$want" ]; then
		echo "valgrind: FAIL (exit $st, wanted $want): cclab $*"
		sed 's/^/    /' "$out/stderr" | head -40
		fail=$((fail + 1))
	else
		echo "valgrind: ok: cclab $*"
	fi
}

expect 0 run tests/scenarios/ring-hdr-allreduce.yaml --set sizes.max=256KiB --set 'expect=[]' \
	--json "$out/r.json" --trace "$out/r.trace"
expect 0 run tests/scenarios/two-nodes-file.yaml --set sizes.max=64KiB --set 'expect=[]'
expect 0 sim -n 4 -A tree -P ll --topology star -b 4 -e 64K -f 16 --check 1
expect 0 sim -n 6 -A hierarchical --ranks-per-node 3 --topology star -P ll128 -b 1K -e 64K -f 64 --check 1
expect 0 check -n 5 -c reducescatter -t write_flag -b 1000 -e 100000 -f 10
expect 0 check -n 4 -c alltoall -d half -b 64 -e 4K -f 64
expect 0 check -n 3 -c sendrecv --channels 2 -b 64 -e 4K -f 64
expect 0 schedule -n 3 -A halving-doubling -b 1000 --primitives
expect 2 run tests/scenarios/broken/01-unknown-key.yaml
expect 2 run tests/scenarios/broken/22-disconnected.yaml
expect 2 sim -n 4 --protocol LL
echo "valgrind: $((n - fail)) of $n runs clean"
[ "$fail" -eq 0 ]
