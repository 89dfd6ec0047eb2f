#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/softroce/smoke.sh — the soft-RoCE VM's smoke test, a plan for run.sh:
#
#   make -j2 && scripts/softroce/run.sh --plan scripts/softroce/smoke.sh
#
# Inside the VM: shows the verbs device (ibv_devices, ibv_devinfo -v, the GID
# table), then moves real traffic between two processes on the one rxe device
# (RC loopback: that is how multi-rank runs work in the VM): ibv_rc_pingpong,
# ib_write_bw, ib_write_lat; then `build/cclab devices` when it is built.
# Logs of every tool land in $OUT, numbers in $OUT/smoke-summary.txt.
# Exit status: 0 all passed, 1 something failed, 2 not inside the VM.
#
# Under emulation the absolute numbers mean little (the "wire" is qemu's
# CPU emulation); compare ratios measured in the same boot.
set -euo pipefail

if [ "${CCLAB_SOFTROCE:-}" != 1 ] || [ -z "${OUT:-}" ]; then
	echo "smoke.sh runs inside the soft-RoCE VM: scripts/softroce/run.sh --plan scripts/softroce/smoke.sh" >&2
	exit 2
fi
DEV=$CCLAB_SOFTROCE_DEV
GIDX=$CCLAB_SOFTROCE_GID_INDEX
IP=$CCLAB_SOFTROCE_IP
SUMMARY=$OUT/smoke-summary.txt
: >"$SUMMARY"

fails=0
t0=${EPOCHREALTIME//[.,]/}
# Each step's header says when it started, in seconds since the plan began.
step() {
	local t=${EPOCHREALTIME//[.,]/}
	printf '\n=== %s (at %s s) ===\n' "$*" "$(((t - t0) / 1000000))"
}
pass() { echo "smoke: ok   $*"; }
fail() {
	echo "smoke: FAIL $*"
	fails=$((fails + 1))
}
note() { echo "$*" | tee -a "$SUMMARY"; }

# pair NAME PORT SECONDS SERVER_CMD... -- CLIENT_CMD...
# shellcheck source=scripts/softroce/pair.sh
. scripts/softroce/pair.sh

step "device"
uname -r
timeout 30 ibv_devices
rdma link show
timeout 30 ibv_devinfo -v -d "$DEV"
port=/sys/class/infiniband/$DEV/ports/1
echo "GID table of $DEV port 1 (non-zero entries):"
# 1024 entries: builtin read, not cat, since every process started under
# emulation costs ~0.15 s (1024 cats took five minutes).
for g in "$port"/gids/*; do
	i=${g##*/}
	v="" type="" ndev=""
	read -r v 2>/dev/null <"$g" || true
	case $v in "" | 0000:0000:0000:0000:0000:0000:0000:0000) continue ;; esac
	read -r type 2>/dev/null <"$port/gid_attrs/types/$i" || true
	read -r ndev 2>/dev/null <"$port/gid_attrs/ndevs/$i" || true
	printf '  [%s] %s  %s  %s\n' "$i" "$v" "$type" "$ndev"
done
state=$(cat "$port/state")
mtu=$(timeout 30 ibv_devinfo -d "$DEV" | awk '/active_mtu/ { print $2, $3; exit }')
note "device: $DEV port 1 $state, active_mtu $mtu, gid[$GIDX] $(cat "$port/gids/$GIDX") ($(cat "$port/gid_attrs/types/$GIDX"))"
if [[ $state == *ACTIVE* ]]; then pass "port state ACTIVE"; else fail "port state '$state'"; fi

step "ibv_rc_pingpong (RC send/recv, 2 processes on $DEV)"
if pair pingpong 18515 60 \
	ibv_rc_pingpong -d "$DEV" -g "$GIDX" -p 18515 -- \
	ibv_rc_pingpong -d "$DEV" -g "$GIDX" -p 18515 "$IP"; then
	pass "ibv_rc_pingpong"
	# "8192000 bytes in 0.54 seconds = 121.73 Mbit/sec" / "1000 iters in ... = 538.45 usec/iter"
	note "ibv_rc_pingpong: $(grep -h 'Mbit/sec' "$OUT/pingpong-client.log" | sed 's/.*= //'), $(grep -h 'usec/iter' "$OUT/pingpong-client.log" | sed 's/.*= //')"
else
	fail "ibv_rc_pingpong"
fi

# -F: do not let perftest's CPU-frequency sanity check (cpu MHz differing
# between CPUs, cpufreq governors) fail the run.  It passes without -F under
# emulation here, but a VM's reported MHz depends on the host, and the
# numbers are not absolute anyway.
step "ib_write_bw (RDMA WRITE, 64 KiB x 200)"
if pair write_bw 18516 120 \
	ib_write_bw -d "$DEV" -x "$GIDX" -s 65536 -n 200 -F -p 18516 -- \
	ib_write_bw -d "$DEV" -x "$GIDX" -s 65536 -n 200 -F -p 18516 "$IP"; then
	# Row: #bytes #iterations BW_peak BW_average MsgRate
	row=$(awk '$1 == 65536 && NF >= 5 { print; exit }' "$OUT/write_bw-client.log")
	if [ -n "$row" ]; then
		pass "ib_write_bw"
		note "ib_write_bw 65536 B x 200: $(awk '{ printf "peak %s MB/s, average %s MB/s, %s Mpps", $3, $4, $5 }' <<<"$row")"
	else
		fail "ib_write_bw printed no result row"
	fi
else
	fail "ib_write_bw"
fi

step "ib_write_lat (RDMA WRITE ping-pong, 2 B)"
if pair write_lat 18517 120 \
	ib_write_lat -d "$DEV" -x "$GIDX" -F -p 18517 -- \
	ib_write_lat -d "$DEV" -x "$GIDX" -F -p 18517 "$IP"; then
	# Row: #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
	row=$(awk '$1 == 2 && NF >= 9 { print; exit }' "$OUT/write_lat-client.log")
	if [ -n "$row" ]; then
		pass "ib_write_lat"
		note "ib_write_lat 2 B x $(awk '{ print $2 }' <<<"$row"): $(awk '{ printf "min %s us, typical %s us, avg %s us, 99%% %s us", $3, $5, $6, $8 }' <<<"$row")"
	else
		fail "ib_write_lat printed no result row"
	fi
else
	fail "ib_write_lat"
fi

step "cclab devices"
if [ -x build/cclab ]; then
	if timeout 30 build/cclab devices | tee "$OUT/cclab-devices.log" && grep -q "$DEV" "$OUT/cclab-devices.log"; then
		pass "cclab devices lists $DEV"
	else
		fail "cclab devices"
	fi
else
	echo "smoke: build/cclab not built (run make -j2 on the host first); skipped"
fi

step "summary"
cat "$SUMMARY"
if ((fails)); then
	echo "smoke: $fails check(s) FAILED"
	exit 1
fi
echo "smoke: all checks passed"
