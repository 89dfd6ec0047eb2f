#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/test-cuda.sh — runs the CUDA module's tests.  `make test-cuda`
# calls it with the program it built,
#
#     NVCC=<the nvcc make used, empty if none> bash scripts/test-cuda.sh build/tests/cuda/test_cuda [--no-bw]
#
# and by hand, without a path, it builds the programs first with
# `make $BUILD/tests/cuda/test_cuda ...` (BUILD defaults to build; needs
# the top Makefile to include backend/cuda/cuda.mk).
#
#   test_reduce_host  (built only with nvcc, next to test_cuda) the kernels'
#                     per-thread code run on the CPU against core/dtype.c;
#                     needs no GPU, so it runs whenever nvcc was found;
#   test_cuda         the module on a GPU; "SKIP: <why>" and exit 0 without
#                     a usable one.
#
# Without nvcc at build time the module is gpu_none.c: the script says SKIP
# with that reason and still runs test_cuda, which must link, pass its
# GPU-less checks and print SKIP itself.  Exit status: 0 for pass or skip,
# else the failing program's.
set -u
cd "$(dirname "$0")/.." || exit 1

if [ $# -ge 1 ] && [ "${1#--}" = "$1" ]; then
	prog=$1
	shift
else
	prog=${BUILD:-build}/tests/cuda/test_cuda
	want=$prog
	if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || [ -n "${NVCC:-}" ]; then
		want="$want ${prog%/*}/test_reduce_host"
	fi
	# shellcheck disable=SC2086
	make --no-print-directory $want || { echo "test-cuda: FAIL: could not build $want" >&2; exit 1; }
fi

# make passes the nvcc it used (possibly empty); by hand, look as cuda.mk does.
if [ -z "${NVCC+set}" ]; then
	NVCC=$(command -v nvcc 2>/dev/null || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })
fi
if [ -z "$NVCC" ] || [ "${CCLAB_CUDA:-1}" = 0 ]; then
	NVCC=
	echo "SKIP: cclab was built without CUDA (nvcc not found at build time, or CCLAB_CUDA=0); install the CUDA toolkit or pass NVCC=/path/to/nvcc"
fi

host=${prog%/*}/test_reduce_host
if [ -n "$NVCC" ]; then
	[ -x "$host" ] || { echo "test-cuda: FAIL: $host is not an executable" >&2; exit 1; }
	"$host"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "test-cuda: FAIL ($host exit status $rc)"
		exit "$rc"
	fi
fi

[ -x "$prog" ] || { echo "test-cuda: FAIL: $prog is not an executable" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$prog" "$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}

if [ "$rc" -ne 0 ]; then
	echo "test-cuda: FAIL ($prog exit status $rc)"
	exit "$rc"
fi
if grep -q '^SKIP: ' "$out"; then
	echo "test-cuda: GPU test skipped ($(sed -n 's/^SKIP: //p' "$out" | head -n 1))${NVCC:+; the kernel code passed on the CPU}"
	exit 0
fi
if ! grep -q '^PASS: ' "$out"; then
	echo "test-cuda: FAIL ($prog ended without PASS or SKIP)"
	exit 1
fi
echo "test-cuda: passed"
