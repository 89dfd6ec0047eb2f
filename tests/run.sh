#!/usr/bin/env bash
# Runs every cmocka test program in the folder given, in turn, and adds up
# cmocka's own counts ("[  PASSED  ] N test(s).", "[  FAILED  ] N test(s)",
# "[  SKIPPED ] N test(s)") into one closing line: "tests: P passed, F failed, S skipped".
# A program that dies without a summary counts as one failure.
set -u
dir=${1:?usage: tests/run.sh BUILD/tests}
pass=0 fail=0 skip=0
for t in "$dir"/test_*; do
	[ -x "$t" ] || continue
	out=$(mktemp)
	"$t" >"$out" 2>&1
	rc=$?
	cat "$out"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | awk '{s+=$1} END {print s+0}')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | awk '{s+=$1} END {print s+0}')
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out" | awk '{s+=$1} END {print s+0}')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "run.sh: $t exited with status $rc without a cmocka failure count" >&2
		f=1
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	rm -f "$out"
done
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
