#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The threads in cclab are `cclab tune`'s (cli/cmd_tune.c: a size's
# candidates run at once), `cclab validate`'s (cli/cmd_validate.c: cases
# run at once) and `cclab sim -j`'s (cli/loop_jobs.c: sizes run at once).
# Runs tune under ThreadSanitizer (every report fatal) on the demo scenario
# twice: a sweep that completes, and one whose every run fails (lossy
# links), so the notes path runs too; then validate on four cases' small
# sizes; then sim with its outputs, and with a fault that fails one size
# and notes another, and a scenario; each with more threads than cores.
# Usage: scripts/tsan.sh BUILD-TSAN/cclab
set -u
cclab=${1:?usage: scripts/tsan.sh CCLAB (built with -fsanitize=thread)}
export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
fail=0

run() { # WANT COMMAND ARGS...
	local want=$1; shift
	"$cclab" "$@" >/dev/null 2>"${TMPDIR:-/tmp}/cclab-tsan.err"
	local rc=$?
	# Kernels with more mmap randomness than TSan's shadow layout allows
	# (vm.mmap_rnd_bits > 28): run again without address randomization.
	if grep -q "unexpected memory mapping" "${TMPDIR:-/tmp}/cclab-tsan.err"; then
		setarch "$(uname -m)" -R "$cclab" "$@" >/dev/null 2>"${TMPDIR:-/tmp}/cclab-tsan.err"
		rc=$?
	fi
	if [ "$rc" -ne "$want" ] || grep -q "ThreadSanitizer" "${TMPDIR:-/tmp}/cclab-tsan.err"; then
		echo "tsan: FAIL: $* exited $rc (want $want)" >&2
		sed -n '1,40p' "${TMPDIR:-/tmp}/cclab-tsan.err" >&2
		fail=1
	else
		echo "tsan: ok: $*"
	fi
}

run 0 tune scenarios/demo.yaml --set sizes.max=256KiB --jobs 4
run 1 tune scenarios/demo.yaml --set sizes.min=4 --set sizes.max=64 \
	--set fabric.link.loss_ppb=1000000000 --jobs 3
run 0 validate validation/a100-2x1-hdr-allreduce-nccltests150-partial \
	validation/h100-cx7-roce400-ib-read-lat-host-moc validation/h100-4x8-ib400-allreduce-nccl2243-voltagepark \
	validation/h100-1x8-nvswitch-allreduce-nvls-nccl2243-voltagepark --max-bytes 4K --max-iters 20 --quiet --jobs 4
t=$(mktemp -d)
run 0 sim -n 8 -b 4K -e 4M -f 4 --topology star -j 4 --csv "$t/c" --json "$t/j" --trace "$t/t" --links "$t/l"
run 1 sim -n 2 -b 1M -e 4M -f 2 --fault rkey:1:9 -j 3
run 2 sim -n 16 -b 1K -e 16M -f 4 --topology star --fault rkey:1:999999 -j 2
run 0 run scenarios/demo.yaml --set sizes.max=1M -j 4
rm -rf "$t"
rm -f "${TMPDIR:-/tmp}/cclab-tsan.err"
exit $fail
