#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs every cmocka test program in the folder given, as many at once as
# there are cores (JOBS=N to change), prints each one's output in name order,
# and adds up cmocka's own counts ("[  PASSED  ] N test(s).",
# "[  FAILED  ] N test(s)", "[  SKIPPED ] N test(s)") into one closing line:
# "tests: P passed, F failed, S skipped".  A program that exits non-zero
# without a cmocka failure count (a crash, a sanitizer report) counts as one
# failure.
set -u
dir=${1:?usage: tests/run.sh BUILD/tests}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
# The programs run in parallel here: each cclab they start takes one
# processor (-j's default, cli_default_jobs()), not all of them, so the
# timing tests do not run on an oversubscribed machine.
export CCLAB_JOBS=${CCLAB_JOBS:-1}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

progs=()
for t in "$dir"/test_*; do
	[ -x "$t" ] && [ -f "$t" ] && progs+=("$t")
done
[ ${#progs[@]} -gt 0 ] || { echo "run.sh: no test programs in $dir" >&2; exit 1; }

# Longest first, so the parallel runs end together: the programs that
# took a minute or more in the CI's unit or sanitizer pass (its log's
# "run.sh: NAME: ... in N s" lines), then the other matrix programs, then
# the rest by name.  A stale list costs only time.
slow="test_matrix_allreduce test_channels test_tune test_direct test_gen_sim
test_build_rank test_matrix_reducescatter test_scenarios test_calibrate
test_matrix_allreduce_tree_ll test_matrix_allgather test_determinism"
{
	for n in $slow; do
		[ -x "$dir/$n" ] && echo "$dir/$n"
	done
	printf '%s\n' "${progs[@]}" | grep /test_matrix_
	printf '%s\n' "${progs[@]}"
} | awk '!seen[$0]++' | xargs -P "$jobs" -I{} \
	sh -c 'n=$(basename "$1"); start=$(date +%s); "$1" >"$2/$n.out" 2>&1; echo $? >"$2/$n.rc"; echo $(( $(date +%s) - start )) >"$2/$n.sec"' _ {} "$out"

pass=0 fail=0 skip=0
for t in "${progs[@]}"; do
	n=$(basename "$t")
	cat "$out/$n.out"
	rc=$(cat "$out/$n.rc")
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out/$n.out" | awk '{s+=$1} END {print s+0}')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out/$n.out" | awk '{s+=$1} END {print s+0}')
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out/$n.out" | awk '{s+=$1} END {print s+0}')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "run.sh: $n exited with status $rc without a cmocka failure count" >&2
		f=1
	fi
	echo "run.sh: $n: $p passed, $f failed, $s skipped in $(cat "$out/$n.sec") s"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
done
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
