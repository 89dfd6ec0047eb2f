#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A real single-node Slurm on this machine, for the tests of `cclab sweep`
# under sbatch --array and srun (tests/test_sweep.c): munged, slurmctld and
# slurmd from Debian's packages, all in one private folder (their keys,
# sockets, state, logs and slurm.conf), on ports of their own, started and
# stopped by this script; nothing in /etc is touched.
#
#   scripts/slurm-local.sh start DIR   start them; prints the variables to
#                                      export (SLURM_CONF, ...) and waits
#                                      until the node is idle
#   scripts/slurm-local.sh stop DIR    stop them (and their jobs)
#
# Exit status: 0; 1 when they cannot be started (missing packages, not
# root: slurmd must be, to run jobs as the submitting user), the reason on
# stderr, so a caller can print SKIP with it.
set -u
cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

stop() {
	# Its jobs first (their steps would outlive slurmd), then the daemons.
	if [ -f "$dir/slurmctld.pid" ] && [ -f "$dir/slurm.conf" ]; then
		SLURM_CONF=$dir/slurm.conf scancel --full -u "$(id -un)" 2>/dev/null
		for _ in $(seq 1 20); do
			[ -z "$(SLURM_CONF=$dir/slurm.conf squeue -h 2>/dev/null)" ] && break
			sleep 0.5
		done
	fi
	for p in slurmd slurmctld munged; do
		[ -f "$dir/$p.pid" ] && kill "$(cat "$dir/$p.pid")" 2>/dev/null
	done
	sleep 1
	for p in slurmd slurmctld munged; do
		[ -f "$dir/$p.pid" ] && kill -9 "$(cat "$dir/$p.pid")" 2>/dev/null
		rm -f "$dir/$p.pid"
	done
	return 0
}

if [ "$cmd" = stop ]; then
	stop
	exit 0
fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

for b in munged slurmctld slurmd sbatch srun sinfo; do
	command -v "$b" >/dev/null || PATH=$PATH:/usr/sbin
	command -v "$b" >/dev/null || { echo "slurm-local: no $b (packages munge, slurmctld, slurmd, slurm-client)" >&2; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "slurm-local: slurmd must run as root to start jobs" >&2; exit 1; }

mkdir -p "$dir/state" "$dir/spool" || exit 1
dir=$(cd "$dir" && pwd)
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
# Ports of their own, so a Slurm already on the machine is not disturbed.
ctl_port=$((20000 + RANDOM % 20000))
d_port=$((ctl_port + 1))

# munge: a fresh key, and its socket in the folder.
dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge.key"
munged --key-file="$dir/munge.key" --socket="$dir/munge.sock" --pid-file="$dir/munged.pid" \
	--log-file="$dir/munged.log" --seed-file="$dir/munge.seed" --force 2>"$dir/munged.err" || {
	echo "slurm-local: munged did not start: $(cat "$dir/munged.err")" >&2
	exit 1
}

cat >"$dir/slurm.conf" <<EOF
ClusterName=cclab-test
SlurmctldHost=$host
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MaxArraySize=1001
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF" 2>"$dir/slurmctld.err" || {
	echo "slurm-local: slurmctld did not start: $(tail -3 "$dir/slurmctld.err" "$dir/slurmctld.log" 2>/dev/null)" >&2
	stop
	exit 1
}
slurmd -f "$SLURM_CONF" 2>"$dir/slurmd.err" || {
	echo "slurm-local: slurmd did not start: $(tail -3 "$dir/slurmd.err" "$dir/slurmd.log" 2>/dev/null)" >&2
	stop
	exit 1
}
# Until the node takes jobs (a few seconds).
for _ in $(seq 1 60); do
	state=$(sinfo -h -N -o %t 2>/dev/null | head -n1)
	case "$state" in idle | mix | alloc) echo "SLURM_CONF=$SLURM_CONF"; exit 0 ;; esac
	sleep 0.5
done
echo "slurm-local: the node did not come up (state '${state:-none}'): $(tail -3 "$dir/slurmctld.log" "$dir/slurmd.log" 2>/dev/null)" >&2
stop
exit 1
