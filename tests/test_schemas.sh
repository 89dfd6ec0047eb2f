#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tests/test_schemas.sh — every JSON result file cclab writes against its
# schema in docs/schemas/ (JSON Schema 2020-12, checked by Debian's
# python3-jsonschema): check, sim (ring, auto, a rooted collective), run
# (a scenario), p2p (bw and lat), tune, validate, calibrate, sweep (and the
# reports inside it), all_reduce_perf -J, ib_write_bw --out_json.  Then the schemas' own rules:
# each cclab document carries schema_version, and a document missing a
# required key or with a wrong type fails.  SKIP without python3-jsonschema.
set -uo pipefail
cd "$(dirname "$0")/.."
. tests/checks.sh
CCLAB=$(realpath "${CCLAB:-build/cclab}")
if ! $PY -c 'import jsonschema' 2>/dev/null; then
	echo "test_schemas: SKIP: python3-jsonschema missing (scripts/install-deps.sh installs it)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
valid() { # SCHEMA FILE...
	$PY tests/validate_json.py docs/schemas "$@" >"$tmp/v.out" 2>&1 || { cat "$tmp/v.out"; return 1; }
}
run() { "$@" >"$tmp/run.out" 2>&1 || { echo "exit $? from: $*"; tail -n 5 "$tmp/run.out"; return 1; }; }

check "cclab sim --json, ring and auto and broadcast and auto sendrecv and -g 8 (collective)" bash -c "
	$(declare -f run valid); tmp='$tmp' PY='$PY'
	run '$CCLAB' sim -n 4 -b 1K -e 4K --json '$tmp/sim.json' &&
	run '$CCLAB' sim -n 8 -A auto -b 1K -e 1M -f 32 --json '$tmp/auto.json' &&
	run '$CCLAB' sim -n 4 -c broadcast -r 1 -b 1K -e 4K --json '$tmp/bc.json' &&
	run '$CCLAB' sim -n 4 -c sendrecv -A auto -b 1K -e 1M -f 32 --json '$tmp/sr.json' &&
	run '$CCLAB' sim -n 8 -A auto --topology node -b 8 -e 1M -f 32 --gpus-per-thread 8 \
		--json '$tmp/launch.json' &&
	grep -q '\"launch_bound\": true' '$tmp/launch.json' &&
	valid collective '$tmp/sim.json' '$tmp/auto.json' '$tmp/bc.json' '$tmp/sr.json' \
		'$tmp/launch.json'"
check "cclab check --json (collective, data executor)" bash -c "
	$(declare -f run valid); tmp='$tmp' PY='$PY'
	run '$CCLAB' check -n 4 -b 1K -e 4K --json '$tmp/check.json' && valid collective '$tmp/check.json'"
check "cclab run SCENARIO --json (collective, with its scenario)" bash -c "
	$(declare -f run valid); tmp='$tmp' PY='$PY'
	run '$CCLAB' run scenarios/demo.yaml --set sizes.max=4K --json '$tmp/run.json' &&
	valid collective '$tmp/run.json'"
check "cclab p2p --json, bw and lat (p2p)" bash -c "
	$(declare -f run valid); tmp='$tmp' PY='$PY'
	run '$CCLAB' p2p --op write -s 64K -n 100 --json '$tmp/bw.json' &&
	run '$CCLAB' p2p --op read --mode lat -s 8 -n 20 --json '$tmp/lat.json' &&
	run '$CCLAB' p2p --op write --mode lat -s 1K -n 20 --json '$tmp/wlat.json' &&
	run '$CCLAB' p2p --op send -s 64K -n 100 --bidirectional --json '$tmp/bidir.json' &&
	valid p2p '$tmp/bw.json' '$tmp/lat.json' '$tmp/wlat.json' '$tmp/bidir.json'"
check "cclab tune --json (tune)" bash -c "
	$(declare -f run valid); tmp='$tmp' PY='$PY'
	run '$CCLAB' tune scenarios/demo.yaml --set sizes.max=4K -j 1 --json '$tmp/tune.json' &&
	valid tune '$tmp/tune.json'"
check "cclab validate --json (validate)" bash -c "
	$(declare -f run valid); tmp='$tmp' PY='$PY'
	run '$CCLAB' validate validation --max-bytes 16K --json '$tmp/validate.json' &&
	valid validate '$tmp/validate.json'"
check "cclab calibrate --json (calibrate)" bash -c "
	$(declare -f run valid); tmp='$tmp' PY='$PY'
	run '$CCLAB' p2p --op write --mode lat -s 8 -n 20 --json '$tmp/c1.json' &&
	run '$CCLAB' p2p --op write -s 64K -n 50 --json '$tmp/c2.json' &&
	run '$CCLAB' calibrate '$tmp/c1.json' '$tmp/c2.json' -o '$tmp/fit.yaml' --json '$tmp/cal.json' &&
	valid calibrate '$tmp/cal.json'"
check "cclab sweep --json, and each point's report (sweep)" bash -c "
	$(declare -f run valid); tmp='$tmp' PY='$PY'
	run '$CCLAB' sweep scenarios/demo.yaml --set sizes.max=4K --grid algorithm=ring,tree -j 1 \
		--out '$tmp/sw' --json '$tmp/sweep.json' && valid sweep '$tmp/sweep.json'"
check "all_reduce_perf -J (nccl-tests' layout)" bash -c "
	$(declare -f run valid); tmp='$tmp' PY='$PY'
	ln -s '$CCLAB' '$tmp/all_reduce_perf' &&
	run '$tmp/all_reduce_perf' -b 1K -e 4K -f 4 -g 2 -J '$tmp/nt.json' && valid nccl-tests '$tmp/nt.json'"

check "ib_write_bw and ib_read_lat --out_json (perftest's layout)" bash -c "
	$(declare -f run valid); tmp='$tmp' PY='$PY'
	ln -s '$CCLAB' '$tmp/ib_write_bw' && ln -s '$CCLAB' '$tmp/ib_read_lat' &&
	run '$tmp/ib_write_bw' -s 65536 -n 100 --out_json --out_json_file '$tmp/pbw.json' &&
	run '$tmp/ib_read_lat' -s 8 -n 50 --out_json --out_json_file '$tmp/plat.json' &&
	valid perftest '$tmp/pbw.json' '$tmp/plat.json'"

# The schemas hold: every cclab schema requires schema_version as a const,
# and a document that breaks one fails.
check "every cclab schema requires a constant schema_version" $PY - <<'PY'
import glob, json
for f in glob.glob("docs/schemas/*.schema.json"):
    s = json.load(open(f))
    if "nccl-tests" in f or "perftest" in f:
        continue
    assert "schema_version" in s["required"], f
    assert "const" in s["properties"]["schema_version"], f
PY
# Broken copies of a good document: each must fail with exit 1 and a FAIL
# line naming what broke (not any error: a missing file or a missing
# jsonschema must not pass for a refusal).
check "broken copies of sim.json written" $PY - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
good = json.load(open(t + "/sim.json"))
def broken(name, change):
    d = json.loads(json.dumps(good))
    change(d)
    json.dump(d, open(f"{t}/{name}.json", "w"))
broken("no_version", lambda d: d.pop("schema_version"))
broken("bad_type", lambda d: d["sizes"][0].__setitem__("wrong", "none"))
broken("sim_no_fabric", lambda d: d.pop("fabric"))
PY
refused() { # FILE WHAT
	$PY tests/validate_json.py docs/schemas collective "$1" >"$tmp/r.out" 2>&1
	local rc=$?
	[ $rc = 1 ] && grep -q "^FAIL .*$2" "$tmp/r.out" || { echo "exit $rc:"; cat "$tmp/r.out"; return 1; }
}
check "a document without schema_version fails" refused "$tmp/no_version.json" "'schema_version' is a required"
check "a mistyped value fails" refused "$tmp/bad_type.json" "sizes/0/wrong"
check "a sim document without its fabric fails" refused "$tmp/sim_no_fabric.json" "'fabric' is a required"

checks_done test_schemas
