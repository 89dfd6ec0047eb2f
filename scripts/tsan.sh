#!/usr/bin/env bash
# The only threads in cclab are `cclab tune`'s (cli/cmd_tune.c: a size's
# candidates run at once).  Runs tune under ThreadSanitizer (every report
# fatal) on the demo scenario twice: a sweep that completes, and one whose
# every run fails (lossy links), so the notes path runs too; each with more
# threads than cores.  Usage: scripts/tsan.sh BUILD-TSAN/cclab
set -u
cclab=${1:?usage: scripts/tsan.sh CCLAB (built with -fsanitize=thread)}
export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
fail=0

run() {
	local want=$1; shift
	"$cclab" tune scenarios/demo.yaml "$@" >/dev/null 2>"${TMPDIR:-/tmp}/cclab-tsan.err"
	local rc=$?
	# Kernels with more mmap randomness than TSan's shadow layout allows
	# (vm.mmap_rnd_bits > 28): run again without address randomization.
	if grep -q "unexpected memory mapping" "${TMPDIR:-/tmp}/cclab-tsan.err"; then
		setarch "$(uname -m)" -R "$cclab" tune scenarios/demo.yaml "$@" >/dev/null \
			2>"${TMPDIR:-/tmp}/cclab-tsan.err"
		rc=$?
	fi
	if [ "$rc" -ne "$want" ] || grep -q "ThreadSanitizer" "${TMPDIR:-/tmp}/cclab-tsan.err"; then
		echo "tsan: FAIL: tune $* exited $rc (want $want)" >&2
		sed -n '1,40p' "${TMPDIR:-/tmp}/cclab-tsan.err" >&2
		fail=1
	else
		echo "tsan: ok: tune $*"
	fi
}

run 0 --set sizes.max=256KiB --jobs 4
run 1 --set sizes.min=4 --set sizes.max=64 --set fabric.link.loss_ppb=1000000000 --jobs 3
rm -f "${TMPDIR:-/tmp}/cclab-tsan.err"
exit $fail
