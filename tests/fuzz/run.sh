#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/fuzz/run.sh BUILD/fuzz SECONDS — what `make fuzz` runs
# (docs/reliability.md).  For each libFuzzer target BUILD/fuzz/fuzz_*:
#   1. replays tests/fuzz/regress/<target>/*, inputs that once failed (a
#      crash, or more than -timeout=10 s), once each: a fixed bug must stay
#      fixed whatever the fuzzing finds;
#   2. fuzzes for SECONDS from a temporary copy of tests/fuzz/corpus/<target>/
#      (what it finds is thrown away: the checked-in corpus never grows in
#      CI), with tests/fuzz/<target>.dict when there is one.
# JOBS targets at a time (default: the cores).  Each log is kept in
# BUILD/fuzz/logs/, a failing input in BUILD/fuzz/artifacts/.  One line per
# target; exit 1 when any failed.
set -u
dir=${1:?usage: tests/fuzz/run.sh BUILD/fuzz SECONDS}
secs=${2:-20}
src=$(cd "$(dirname "$0")" && pwd)
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
# tmpfs when there is one: the targets write files (fuzz.h says why).
base=${TMPDIR:-/tmp}
[ -w /dev/shm ] && base=/dev/shm
work=$(mktemp -d "$base/cclab-fuzz-run.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir -p "$dir/logs" "$dir/artifacts"

# One target: replay, fuzz, one line.  Exit status 0 or 1.
run_one() {
	local bin=$1 name log tmp regress rc=0
	name=$(basename "$bin")
	log=$dir/logs/$name.log
	tmp=$work/$name
	regress=("$src/regress/$name"/*)
	mkdir -p "$tmp/corpus" "$tmp/tmp"
	: >"$log"
	# Not a glob that matched nothing: a directory with no inputs yet.
	if [ -e "${regress[0]}" ]; then
		TMPDIR=$tmp/tmp "$bin" -timeout=10 "${regress[@]}" >>"$log" 2>&1 || rc=$?
		if [ $rc != 0 ]; then
			echo "fuzz: $name: FAIL: a regression input fails again (see $log)"
			tail -n 30 "$log"
			return 1
		fi
	fi
	cp -r "$src/corpus/$name/." "$tmp/corpus/"
	local dict=()
	[ -f "$src/$name.dict" ] && dict=("-dict=$src/$name.dict")
	TMPDIR=$tmp/tmp "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$dir/artifacts/$name-" "${dict[@]}" \
		"$tmp/corpus" >>"$log" 2>&1 || rc=$?
	local runs eps corp seeds
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	corp=$(ls "$tmp/corpus" | wc -l)
	seeds=$(ls "$src/corpus/$name" | wc -l)
	if [ $rc != 0 ]; then
		echo "fuzz: $name: FAIL (exit $rc; the input is in $dir/artifacts/, the log in $log)"
		grep -E -m 5 'ERROR|invariant broken|SUMMARY' "$log"
		return 1
	fi
	echo "fuzz: $name: ${runs:-?} runs in $secs s (${eps:-?}/s), corpus $seeds -> $corp inputs, OK"
}

bins=()
for b in "$dir"/fuzz_*; do
	[ -x "$b" ] && [ -f "$b" ] && bins+=("$b")
done
[ ${#bins[@]} -gt 0 ] || { echo "fuzz: no targets in $dir" >&2; exit 1; }

# JOBS at a time; each one's line is printed when it ends.
fail=0 running=0
for b in "${bins[@]}"; do
	if [ $running -ge "$jobs" ]; then
		wait -n || fail=1
		running=$((running - 1))
	fi
	run_one "$b" &
	running=$((running + 1))
done
while [ $running -gt 0 ]; do
	wait -n || fail=1
	running=$((running - 1))
done
[ $fail = 0 ] && echo "fuzz: ${#bins[@]} targets, $secs s each: OK" || echo "fuzz: FAILED"
exit $fail
