#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/softroce/guest.sh — stage 2 of the soft-RoCE VM, PID 1 inside the
# host's root filesystem (see init).  Brings up eth0 and rxe0, waits until
# the verbs port is usable, runs the plan under a time limit, writes its exit
# status to the results share and powers the VM off.
#
# Talks to run.sh through files on the results share ($OUT):
#   .phase       rxe | plan | done | rxe-failed: REASON | plan-timeout
#   exit-status  the plan's exit status (only once the plan has ended)
#   plan.log     the plan's stdout+stderr (also on the console)
#   dmesg.log    the kernel log at the end
#
# No `set -e`: every path, failures included, ends in power_off (should
# this script end anyway, stage 1 powers the VM off).
set -uo pipefail

S=/run/softroce
OUT=$S/out
CTL=$S/ctl
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# Written by run.sh: WORKDIR PLAN_TIMEOUT RXE_TIMEOUT GUEST_IP RXE_DEV and
# the PLAN_ARGS array.
# shellcheck source=/dev/null
. "$CTL/env"

# Builtins rather than small tools where it is easy: under emulation every
# process start costs 0.1-0.5 s (dynamic linking of the host's binaries).
uptime_s() {
	local up _
	read -r up _ </proc/uptime
	echo "$up"
}
say() { echo "softroce: $*"; }

power_off() {
	sync
	# 'o' powers off through ACPI; should that not work, 'b' reboots, and
	# qemu's -no-reboot turns the reboot into an exit.  busybox from /run
	# (RAM) for the waits: while the kernel shuts the virtio devices down,
	# nothing can be run from the 9p root any more.
	echo o >/proc/sysrq-trigger
	"$S/busybox" sleep 10
	echo b >/proc/sysrq-trigger
	"$S/busybox" sleep 5
	"$S/busybox" poweroff -f
}

phase() {
	# The host reads .phase to know which time limit applies.
	echo "$1" >"$OUT/.phase"
	say "phase $1 at $(uptime_s) s"
}

rxe_fail() {
	say "rxe setup FAILED: $*"
	echo "rxe-failed: $*" >"$OUT/.phase"
	ip addr show >&2 || true
	rdma link show >&2 || true
	dmesg >"$OUT/dmesg.log" 2>&1
	power_off
}

# RoCEv2 GID of an IPv4 address, as sysfs prints it: ::ffff:a.b.c.d.
ipv4_gid() {
	local a b c d
	IFS=. read -r a b c d <<<"$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d"
}

phase rxe
read -r rootkind <"$S/rootkind"
read -r kver </proc/sys/kernel/osrelease
read -r cpus </sys/devices/system/cpu/online
say "root filesystem: $rootkind, kernel $kver, cpus $cpus"

# iproute2's ip, not busybox's: rxe needs the netdev up with an address
# before its GID table has the IPv4 entry.  No udev: eth0 keeps its name.
# One ip process for the three steps (-batch); on failure it names the line.
printf '%s\n' "link set lo up" "link set eth0 up" "addr add $GUEST_IP/24 dev eth0" | ip -batch - ||
	rxe_fail "ip: bringing up lo, eth0 ($GUEST_IP/24) failed (no virtio-net NIC?)"
rdma link add "$RXE_DEV" type rxe netdev eth0 || rxe_fail "rdma link add $RXE_DEV type rxe netdev eth0"

want_gid=$(ipv4_gid "$GUEST_IP")
port=/sys/class/infiniband/$RXE_DEV/ports/1
deadline=$((SECONDS + RXE_TIMEOUT))
# The IPv4 GID appears at index 1 (index 0 is the IPv6 link-local one) a
# moment after the address; ACTIVE follows the netdev's carrier.
while :; do
	state="" gid1="" type1=""
	read -r state 2>/dev/null <"$port/state"
	read -r gid1 2>/dev/null <"$port/gids/1"
	read -r type1 2>/dev/null <"$port/gid_attrs/types/1"
	[[ $state == *ACTIVE* && $gid1 == "$want_gid" && $type1 == "RoCE v2" ]] && break
	if ((SECONDS >= deadline)); then
		rxe_fail "port 1 not ready after ${RXE_TIMEOUT}s: state '$state', gid[1] '$gid1' ($type1), want $want_gid (RoCE v2)"
	fi
	sleep 0.2
done

# No udev: devtmpfs names the nodes but nobody sets their modes, and a
# kernel without devtmpfs would not create them at all.
mkdir -p /dev/infiniband
for d in /sys/class/infiniband_verbs/uverbs* /sys/class/infiniband_mad/umad* /sys/class/misc/rdma_cm; do
	[ -e "$d/dev" ] || continue
	node=/dev/infiniband/${d##*/}
	if [ ! -e "$node" ]; then
		IFS=: read -r maj min <"$d/dev"
		mknod "$node" c "$maj" "$min" || rxe_fail "mknod $node"
	fi
done
chmod 666 /dev/infiniband/* || rxe_fail "no /dev/infiniband nodes"

# The user-space half: libibverbs must find the rxe provider and see the
# port the kernel reports.
if ! devinfo=$(timeout 30 ibv_devinfo -d "$RXE_DEV" 2>&1) || [[ $devinfo != *PORT_ACTIVE* ]]; then
	printf '%s\n' "$devinfo"
	rxe_fail "ibv_devinfo -d $RXE_DEV does not show PORT_ACTIVE (is ibverbs-providers installed on the host?)"
fi
say "$RXE_DEV ready on eth0 $GUEST_IP, gid[1] $want_gid RoCE v2"

# Registered memory is locked memory; ranks and perftest need plenty.
ulimit -l unlimited
export CCLAB_SOFTROCE=1 CCLAB_SOFTROCE_DEV="$RXE_DEV" CCLAB_SOFTROCE_GID_INDEX=1
export CCLAB_SOFTROCE_IP="$GUEST_IP" OUT HOME=/tmp LANG=C.UTF-8 TERM=dumb
unset LC_ALL

# Kernel messages below warning level would interleave with the plan's
# output; dmesg.log keeps them all.
dmesg -n 4 2>/dev/null || true

phase plan
say "==================== plan start (cwd $WORKDIR, limit ${PLAN_TIMEOUT}s) ===================="
start=$SECONDS
# The plan's output goes through a fifo to tee (console + plan.log) rather
# than a pipeline: a pipeline would wait for any background process the
# plan forgot, while here we wait for the plan alone and then kill what is
# left of its process group (timeout makes itself the group's leader).
fifo=$S/plan.fifo
mkfifo "$fifo"
tee "$OUT/plan.log" <"$fifo" &
tee_pid=$!
if cd "$WORKDIR"; then
	# -k: SIGKILL if SIGTERM is not enough.
	timeout -k 10 "$PLAN_TIMEOUT" bash "$CTL/plan.sh" "${PLAN_ARGS[@]}" </dev/null >"$fifo" 2>&1 &
	plan_pid=$!
	wait "$plan_pid"
	rc=$?
	kill -KILL -- "-$plan_pid" 2>/dev/null
else
	echo "softroce: cannot cd to $WORKDIR" >"$fifo"
	rc=1
fi
# tee ends at EOF; give it a moment, then do not let an escaped daemon that
# still holds the fifo keep the VM up.
for _ in $(seq 50); do kill -0 "$tee_pid" 2>/dev/null || break; sleep 0.1; done
kill "$tee_pid" 2>/dev/null
took=$((SECONDS - start))
say "==================== plan end: exit status $rc after ${took}s ===================="

echo "$rc" >"$OUT/exit-status"
if ((rc == 124 && took >= PLAN_TIMEOUT)); then
	phase plan-timeout
else
	phase "done"
fi
dmesg >"$OUT/dmesg.log" 2>&1
power_off
