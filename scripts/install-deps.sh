#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian/Ubuntu packages cclab needs, and only those that are missing.
# Idempotent: a second run installs nothing and prints nothing but the check.
# Used by `make test`, `make demo` and .ci/run; safe to run by hand (as root or via sudo).
set -euo pipefail

# package            why
#  build-essential   gcc, make
#  clang             second compiler (warning check), ASan/UBSan runtime, libFuzzer
#  pkg-config        finds libyaml / jansson / libibverbs flags
#  libyaml-dev       scenario and topology files
#  libjansson-dev    --json results read back (compare, calibrate): JSON, which YAML 1.1 is not
#  libcmocka-dev     unit tests (cmocka: a Debian C test library)
#  libibverbs-dev    the real verbs backend (rdma-core)
#  gnuplot-nox       plots
#  qemu-system-x86   the soft-RoCE VM (scripts/softroce/), software emulation where KVM is not real
#  busybox-static    the VM's initramfs: static, runs before the host's root is mounted
#  ibverbs-utils     ibv_devices / ibv_devinfo / ibv_rc_pingpong, run in the VM from the host's root
#  ibverbs-providers the rxe (soft-RoCE) provider that libibverbs loads in the VM
#  perftest          ib_write_bw / ib_write_lat for the VM's smoke test
#  iproute2          ip and rdma: set up eth0 and `rdma link add rxe0` (busybox's ip cannot)
#  kmod              depmod/modprobe: the module list of the VM's kernel (downloaded, never installed)
#  cpio              packs the VM's initramfs
#  xz-utils          unpacks the VM kernel's vmlinux: booting it directly saves ~6 s under emulation
#  valgrind          memcheck over small scenarios (scripts/valgrind.sh, make test-valgrind)
#  openmpi-bin       mpirun: a real `mpirun -np 2 cclab sweep` in the tests (tests/test_sweep.c)
#  munge slurmctld slurmd slurm-client
#                    a real one-node Slurm for the sweep's sbatch --array and srun tests
#                    (scripts/slurm-local.sh starts and stops it; nothing in /etc is used)
#  help2man          the man pages, generated from the help text (scripts/man.sh)
#  man-db            man, to check the pages render (tests/test_install.sh)
#  python3           Debian's, for the cclab Python module and its test
#  python3-jsonschema  every --json result file against its schema (tests/test_schemas.sh)
#  debhelper dpkg-dev
#                    the Debian package (debian/, tests/test_deb.sh: dpkg-buildpackage)
PKGS=(build-essential clang pkg-config libyaml-dev libjansson-dev libcmocka-dev libibverbs-dev gnuplot-nox
	qemu-system-x86 busybox-static ibverbs-utils ibverbs-providers perftest iproute2 kmod cpio xz-utils
	valgrind openmpi-bin munge slurmctld slurmd slurm-client help2man man-db python3 python3-jsonschema debhelper dpkg-dev)

missing=()
for p in "${PKGS[@]}"; do
	# dpkg-query prints "install ok installed" for a package that is fully there.
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#PKGS[@]} packages present"
	exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
