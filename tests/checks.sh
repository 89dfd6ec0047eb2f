# SPDX-License-Identifier: BSD-3-Clause
# tests/checks.sh — sourced by the shell tests that report check by check
# (test_install.sh, test_deb.sh): `check NAME COMMAND...` runs the command
# and prints ok or FAIL with the name; `checks_done NAME` prints the count
# and fails when one check did.
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
bad() { echo "FAIL $1"; fail=$((fail + 1)); }
check() { local name=$1; shift; if "$@"; then ok "$name"; else bad "$name"; fi; }
checks_done() { echo "$1: $pass passed, $fail failed"; [ $fail = 0 ]; }
# Debian's python3, which `make install` and the package target: a pyenv or
# venv python3 earlier on PATH has its own sys.path.
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
