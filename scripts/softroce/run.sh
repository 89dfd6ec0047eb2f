#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/softroce/run.sh — run a command or a plan inside a small qemu VM that
# has a real verbs stack: Debian's kernel with rdma_rxe (soft-RoCE) on a
# virtio NIC, and the host's own rdma-core / perftest / build of cclab seen
# through a read-only 9p share of the host's root filesystem.  docs/softroce.md
# explains the design, the timings and the pitfalls.
#
# Usage: scripts/softroce/run.sh [options] -- COMMAND [ARG...]
#        scripts/softroce/run.sh [options] --plan SCRIPT [-- ARG...]
#
# Exit status: the command's / plan's; 124 when a phase ran out of time (the
# message names it: prepare, boot, rxe setup, plan, shutdown); 77 (SKIP) when
# the VM cannot be had on this host; 1 when the VM failed before the plan ran;
# 2 for bad usage.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CACHE=${CCLAB_SOFTROCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cclab-softroce}

# Per-phase limits, in seconds.  Measured under software emulation on 2
# cores: boot 7-12 s, rxe setup 2-6 s; the margins are for slow CI runners.
BOOT_TIMEOUT=${CCLAB_SOFTROCE_BOOT_TIMEOUT:-180}
RXE_TIMEOUT=${CCLAB_SOFTROCE_RXE_TIMEOUT:-90}
SHUTDOWN_TIMEOUT=60
PLAN_TIMEOUT=600
OUT_DIR=$ROOT/build/softroce
MEM=2048
CPUS=$(nproc)
if ((CPUS > 4)); then CPUS=4; fi
GUEST_IP=10.0.2.15 # what qemu's user-mode network hands out; nothing leaves the VM
RXE_DEV=rxe0
# The modules the guest loads, in this order (their dependencies are added
# before each).  virtio_pci before the virtio drivers, crc32_generic before
# rdma_rxe creates a device: see docs/softroce.md, pitfalls.  rdma_ucm:
# /dev/infiniband/rdma_cm, for programs that connect through librdmacm.
MODULES=(virtio_pci virtio_net 9pnet_virtio 9p overlay crc32_generic rdma_rxe rdma_ucm)

usage() {
	cat <<EOF
Usage: scripts/softroce/run.sh [options] -- COMMAND [ARG...]
       scripts/softroce/run.sh [options] --plan SCRIPT [-- ARG...]

Boots a qemu VM with soft-RoCE (rdma_rxe device $RXE_DEV on eth0, $GUEST_IP,
RoCEv2 IPv4 GID at index 1) and runs COMMAND, or SCRIPT with bash, in the
project directory ($ROOT, read-only host files under a RAM overlay: writes
are lost).  Inside: CCLAB_SOFTROCE=1, CCLAB_SOFTROCE_DEV=$RXE_DEV,
CCLAB_SOFTROCE_GID_INDEX=1, CCLAB_SOFTROCE_IP=$GUEST_IP, and OUT = the guest
path of the results folder, which is the one thing kept.

Options:
  --timeout SECONDS  time limit of the command/plan (default $PLAN_TIMEOUT)
  --out DIR          results folder (default build/softroce); gets console.log,
                     plan.log, dmesg.log, exit-status and whatever the plan writes
  --mem MB           guest memory (default $MEM)
  --cpus N           guest CPUs (default: host cores, at most 4)
  --plan SCRIPT      run SCRIPT with bash instead of a command
  -h, --help         this text

Environment: CCLAB_SOFTROCE_CACHE (cache folder, default
\$XDG_CACHE_HOME/cclab-softroce or ~/.cache/cclab-softroce),
CCLAB_SOFTROCE_ACCEL=kvm|tcg (default: kvm only when the CPU shows vmx/svm
and /dev/kvm opens), CCLAB_SOFTROCE_KERNEL_DEB (a linux-image .deb to use),
CCLAB_SOFTROCE_BOOT_TIMEOUT (default 180), CCLAB_SOFTROCE_RXE_TIMEOUT (90).

Exit status: the command's; 124 when a phase timed out; 77 when the VM
cannot be had here (SKIP: reason); 1 when the VM failed before the command.
EOF
}

say() { echo "softroce: $*" >&2; }
# SKIP goes to the original stdout (fd 3) even from inside $(...).
exec 3>&1
skip() {
	echo "SKIP: $*" >&3
	exit 77
}
usage_error() {
	echo "softroce: $*" >&2
	echo "Try 'scripts/softroce/run.sh --help'." >&2
	exit 2
}
# Milliseconds since the epoch; EPOCHREALTIME's separator follows the locale.
now_ms() {
	local t=${EPOCHREALTIME//[.,]/}
	echo $((t / 1000))
}
secs() { awk -v ms="$1" 'BEGIN { printf "%.1f", ms / 1000 }'; }
is_uint() { [[ $1 =~ ^[0-9]+$ ]] && (($1 > 0)); }

# ---------------------------------------------------------------- arguments
PLAN=""
CMD=()
while (($#)); do
	case $1 in
	--timeout | --out | --mem | --cpus | --plan)
		(($# >= 2)) || usage_error "$1 needs a value"
		case $1 in
		--timeout) PLAN_TIMEOUT=$2 ;;
		--out) OUT_DIR=$2 ;;
		--mem) MEM=$2 ;;
		--cpus) CPUS=$2 ;;
		--plan) PLAN=$2 ;;
		esac
		shift 2
		;;
	-h | --help)
		usage
		exit 0
		;;
	--)
		shift
		CMD=("$@")
		break
		;;
	*) usage_error "unknown option '$1' (the command goes after --)" ;;
	esac
done
is_uint "$PLAN_TIMEOUT" || usage_error "--timeout wants a number of seconds > 0, not '$PLAN_TIMEOUT'"
{ is_uint "$MEM" && ((MEM >= 256)); } || usage_error "--mem wants megabytes >= 256, not '$MEM'"
is_uint "$CPUS" || usage_error "--cpus wants a count > 0, not '$CPUS'"
is_uint "$BOOT_TIMEOUT" || usage_error "CCLAB_SOFTROCE_BOOT_TIMEOUT wants seconds > 0"
is_uint "$RXE_TIMEOUT" || usage_error "CCLAB_SOFTROCE_RXE_TIMEOUT wants seconds > 0"
if [ -n "$PLAN" ]; then
	if [ ! -f "$PLAN" ] || [ ! -r "$PLAN" ]; then usage_error "no readable plan '$PLAN'"; fi
elif ((${#CMD[@]} == 0)); then
	usage_error "give a command after -- or a --plan SCRIPT"
fi

# ------------------------------------------------------------ prerequisites
# Everything here that is missing means "this host cannot run the VM": SKIP,
# so a test harness can tell that apart from a failure.
[ "$(uname -m)" = x86_64 ] || skip "the guest runs the host's own binaries: x86_64 hosts only (this is $(uname -m))"
QEMU=$(command -v qemu-system-x86_64 || true)
[ -n "$QEMU" ] || skip "qemu-system-x86_64 not found (apt-get install qemu-system-x86, or scripts/install-deps.sh)"
# The root filesystem is the host's, over virtio-9p: qemu must have it.
timeout 30 "$QEMU" -device help 2>/dev/null | grep -q '"virtio-9p-pci"' ||
	skip "$QEMU has no virtio-9p-pci (9p/virtfs support)"
BUSYBOX=${CCLAB_SOFTROCE_BUSYBOX:-/bin/busybox}
# Static: it runs before any library exists in the guest.
# (ldd exits 1 on a static binary, hence no pipe under pipefail.)
{ [ -x "$BUSYBOX" ] && [[ $(LC_ALL=C ldd "$BUSYBOX" 2>&1) == *"not a dynamic executable"* ]]; } ||
	skip "no static busybox at $BUSYBOX (apt-get install busybox-static)"
for t in ip:iproute2 rdma:iproute2 ibv_devinfo:ibverbs-utils depmod:kmod modprobe:kmod cpio:cpio dpkg-deb:dpkg flock:util-linux; do
	command -v "${t%%:*}" >/dev/null || PATH=$PATH:/usr/sbin:/sbin command -v "${t%%:*}" >/dev/null ||
		skip "${t%%:*} not found (apt-get install ${t#*:})"
done
export PATH=$PATH:/usr/sbin:/sbin # depmod, modprobe for a non-root user
compgen -G "/usr/lib/*/libibverbs/librxe-rdmav*.so" >/dev/null ||
	skip "no rxe provider for libibverbs (apt-get install ibverbs-providers)"

# ------------------------------------------------------------------- kernel
# The cache lives outside the work tree and is shared by concurrent runs:
# everything that writes it holds $CACHE/lock.
mkdir -p "$CACHE/debs" "$CACHE/kernel"
exec 9>"$CACHE/lock"
timeout 900 flock 9 || { say "TIMEOUT in phase prepare: the cache lock $CACHE/lock was held 900 s"; exit 124; }
t_prepare=$(now_ms)

# Which linux-image .deb: the one named by CCLAB_SOFTROCE_KERNEL_DEB, else the
# newest already in the cache (a warm run never needs apt), else the one the
# linux-image-amd64 metapackage points at now, fetched with apt-get download
# (no root needed, nothing installed).
find_kernel_deb() {
	if [ -n "${CCLAB_SOFTROCE_KERNEL_DEB:-}" ]; then
		[ -f "$CCLAB_SOFTROCE_KERNEL_DEB" ] || skip "CCLAB_SOFTROCE_KERNEL_DEB=$CCLAB_SOFTROCE_KERNEL_DEB does not exist"
		echo "$CCLAB_SOFTROCE_KERNEL_DEB"
		return
	fi
	local deb pkg
	deb=$(find "$CACHE/debs" -maxdepth 1 -name 'linux-image-*.deb' | sort -V | tail -n 1)
	if [ -n "$deb" ]; then
		echo "$deb"
		return
	fi
	command -v apt-get >/dev/null || skip "no kernel in $CACHE and no apt-get to fetch one"
	pkg=$(timeout 60 apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9].*-amd64(-unsigned)?$/ { print $2; exit }')
	if [ -z "$pkg" ]; then
		# No metapackage in the lists: the newest stock amd64 image they have.
		pkg=$(timeout 60 apt-cache pkgnames linux-image- 2>/dev/null |
			grep -E '^linux-image-[0-9][0-9.]*-[0-9]+-amd64$' | sort -V | tail -n 1)
	fi
	[ -n "$pkg" ] || skip "apt knows no linux-image-*-amd64 package (Debian's kernel is needed; apt-get update?)"
	say "fetching $pkg with apt-get download into $CACHE/debs"
	local tmp
	tmp=$(mktemp -d "$CACHE/debs/.dl.XXXXXX")
	# apt warns that it cannot drop to _apt in a folder _apt may not write;
	# harmless, the download runs as the calling user instead.
	if ! (cd "$tmp" && timeout 900 apt-get download -q "$pkg" 2>&1 | { grep -v 'Download is performed unsandboxed' || true; } >&2); then
		rm -rf "$tmp"
		skip "apt-get download $pkg failed (no network and nothing cached in $CACHE?)"
	fi
	deb=$(find "$tmp" -maxdepth 1 -name 'linux-image-*.deb' | head -n 1)
	[ -n "$deb" ] || { rm -rf "$tmp"; skip "apt-get download $pkg gave no .deb"; }
	mv "$deb" "$CACHE/debs/"
	rm -rf "$tmp"
	echo "$CACHE/debs/${deb##*/}"
}
DEB=$(find_kernel_deb) || exit $?
# Named after the .deb, the layout of what extract_kernel keeps (v2) and the
# module list: change either and a new folder is made from the cached .deb.
KDIR=$CACHE/kernel/$(basename "$DEB" .deb)-$(echo "v2 ${MODULES[*]}" | sha256sum | cut -c1-8)

# From the .deb, keep only the kernel image and the modules the guest loads,
# in load order: the 400 MB unpacked tree is only a temporary.
extract_kernel() {
	local tmp x kver mods m f
	tmp=$(mktemp -d "$CACHE/kernel/.x.XXXXXX")
	x=$tmp/x
	say "unpacking $(basename "$DEB") (once per kernel)"
	timeout 600 dpkg-deb -x "$DEB" "$x" || { rm -rf "$tmp"; say "dpkg-deb -x $DEB failed"; return 1; }
	# Newer Debian kernels ship /usr/lib/modules; depmod -b wants lib/modules.
	if [ ! -d "$x/lib/modules" ] && [ -d "$x/usr/lib/modules" ]; then
		mkdir -p "$x/lib" && mv "$x/usr/lib/modules" "$x/lib/modules"
	fi
	kver=$(ls "$x/lib/modules")
	{ [ -n "$kver" ] && [ "$(wc -w <<<"$kver")" = 1 ]; } || { rm -rf "$tmp"; say "expected one kernel in $DEB, found '$kver'"; return 1; }
	[ -f "$x/boot/vmlinuz-$kver" ] || { rm -rf "$tmp"; say "no boot/vmlinuz-$kver in $DEB"; return 1; }
	# The .deb has no modules.dep (the postinst makes it); -b: this tree only.
	timeout 300 depmod -b "$x" "$kver"
	mkdir -p "$tmp/k/modules"
	mods=$(for m in "${MODULES[@]}"; do
		timeout 60 modprobe -d "$x" -S "$kver" --show-depends "$m" || echo "MISSING $m"
	done)
	if grep -q '^MISSING' <<<"$mods"; then
		rm -rf "$tmp"
		say "kernel $kver lacks: $(grep '^MISSING' <<<"$mods" | cut -d' ' -f2 | xargs)"
		return 1
	fi
	# "builtin X" lines need nothing; each insmod once, first occurrence wins.
	while read -r f; do
		m=${f##*/}
		case $m in
		*.ko) cp "$f" "$tmp/k/modules/$m" ;;
		*.ko.xz) m=${m%.xz} && xz -dc "$f" >"$tmp/k/modules/$m" ;;
		*.ko.zst) m=${m%.zst} && zstd -qdc "$f" >"$tmp/k/modules/$m" ;;
		*) rm -rf "$tmp" && say "cannot load module file $f" && return 1 ;;
		esac
		echo "$m" >>"$tmp/k/modules/load.list"
	done < <(awk '$1 == "insmod" && !seen[$2]++ { print $2 }' <<<"$mods")
	cp "$x/boot/vmlinuz-$kver" "$tmp/k/vmlinuz"
	# Under emulation the bzImage spends ~6 s decompressing itself before
	# the kernel's clock even starts.  A kernel built with CONFIG_PVH can be
	# booted as its uncompressed ELF instead (qemu's PVH entry): unpack it
	# once here.  Debian compresses with xz; anything else keeps the bzImage.
	if grep -q '^CONFIG_PVH=y' "$x/boot/config-$kver" 2>/dev/null && command -v xz >/dev/null; then
		local off
		off=$(LC_ALL=C grep -obUaP '\xFD7zXZ\x00' "$tmp/k/vmlinuz" | head -n 1 | cut -d: -f1 || true)
		# Through a file: xz stops at the stream's end, and a pipe would fail
		# tail with SIGPIPE (pipefail).
		if [ -n "$off" ] &&
			tail -c +$((off + 1)) "$tmp/k/vmlinuz" >"$tmp/payload.xz" &&
			timeout 120 xz -dc --single-stream "$tmp/payload.xz" >"$tmp/k/vmlinux" 2>/dev/null &&
			[ "$(head -c 4 "$tmp/k/vmlinux" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; then
			: # an ELF: boot this one
		else
			rm -f "$tmp/k/vmlinux"
		fi
	fi
	echo "$kver" >"$tmp/k/version"
	rm -rf "$KDIR"
	mv "$tmp/k" "$KDIR"
	rm -rf "$tmp"
}
if [ ! -f "$KDIR/version" ]; then
	extract_kernel || skip "cannot use the kernel package $DEB (see above)"
	# Other extractions are dead weight now (a day's grace, as below).
	find "$CACHE/kernel" -mindepth 1 -maxdepth 1 -type d ! -path "$KDIR" -mmin +1440 -exec rm -rf {} +
fi
KVER=$(cat "$KDIR/version")
KERNEL=$KDIR/vmlinuz
[ -f "$KDIR/vmlinux" ] && KERNEL=$KDIR/vmlinux

# --------------------------------------------------------------- initramfs
# busybox + modules + the two guest stages.  Rebuilt only when one of its
# inputs changes: the name says which inputs it was made from.
key=$(
	{
		echo "$KDIR"
		sha256sum "$BUSYBOX" "$HERE/init" "$HERE/guest.sh" "$KDIR/modules/load.list" | cut -d' ' -f1
	} | sha256sum | cut -c1-16
)
INITRD=$CACHE/initramfs-$key.cpio
if [ ! -f "$INITRD" ]; then
	say "building the initramfs ($KVER)"
	st=$(mktemp -d "$CACHE/.initrd.XXXXXX")
	mkdir -p "$st/bin" "$st/lib/modules"
	cp "$BUSYBOX" "$st/bin/busybox"
	cp "$HERE/init" "$st/init"
	cp "$HERE/guest.sh" "$st/guest.sh"
	chmod 755 "$st/init" "$st/guest.sh"
	cp "$KDIR"/modules/* "$st/lib/modules/"
	# Not compressed: nothing to gain for a few MB read from the page cache,
	# and decompressing under emulation costs boot time.  -R 0:0: root-owned
	# even when built by a normal user.
	(cd "$st" && find . -mindepth 1 | LC_ALL=C sort | timeout 120 cpio --quiet -o -H newc -R 0:0) >"$INITRD.tmp"
	mv "$INITRD.tmp" "$INITRD"
	rm -rf "$st"
	# Older initramfs images are dead weight now; a day's grace so that a
	# concurrent run that picked one a moment ago can still open it.
	find "$CACHE" -maxdepth 1 -name 'initramfs-*.cpio' ! -name "${INITRD##*/}" -mmin +1440 -delete
fi
flock -u 9

# ------------------------------------------------------------ results + ctl
mkdir -p "$OUT_DIR"
OUT_DIR=$(cd "$OUT_DIR" && pwd)
# Only our own files: the folder may hold other results.
rm -f "$OUT_DIR/console.log" "$OUT_DIR/plan.log" "$OUT_DIR/dmesg.log" "$OUT_DIR/exit-status" "$OUT_DIR/.phase" "$OUT_DIR/qemu.log"
# The control share: the plan and its settings, read-only in the guest.  A
# private folder, not the plan's own path: that may be hidden in the guest.
CTL=$(mktemp -d "${TMPDIR:-/tmp}/cclab-softroce-ctl.XXXXXX")
QEMU_PID=""
TAIL_PID=""
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
	if [ -n "$QEMU_PID" ] && kill -0 "$QEMU_PID" 2>/dev/null; then
		kill "$QEMU_PID" 2>/dev/null || true
		sleep 1
		kill -KILL "$QEMU_PID" 2>/dev/null || true
	fi
	[ -z "$TAIL_PID" ] || kill "$TAIL_PID" 2>/dev/null || true
	rm -rf "$CTL"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "terminated"; exit 143' TERM

if [ -n "$PLAN" ]; then
	cp "$PLAN" "$CTL/plan.sh"
	what="plan $PLAN${CMD[*]:+ ${CMD[*]}}"
	PLAN_ARGS=("${CMD[@]}")
else
	# The command becomes a one-line plan; %q keeps every argument intact.
	{
		echo '# generated by scripts/softroce/run.sh'
		printf 'exec'
		printf ' %q' "${CMD[@]}"
		echo
	} >"$CTL/plan.sh"
	what="command: ${CMD[*]}"
	PLAN_ARGS=()
fi
{
	printf 'WORKDIR=%q\n' "$ROOT"
	printf 'PLAN_TIMEOUT=%q\n' "$PLAN_TIMEOUT"
	printf 'RXE_TIMEOUT=%q\n' "$RXE_TIMEOUT"
	printf 'GUEST_IP=%q\n' "$GUEST_IP"
	printf 'RXE_DEV=%q\n' "$RXE_DEV"
	printf 'PLAN_ARGS=('
	[ ${#PLAN_ARGS[@]} -eq 0 ] || printf ' %q' "${PLAN_ARGS[@]}"
	printf ' )\n'
} >"$CTL/env"
chmod -R a+rX "$CTL"

# --------------------------------------------------------------------- qemu
# KVM only where it really is hardware virtualisation: a /dev/kvm without
# vmx/svm in the CPU flags (a PVM-style paravirtual KVM) hangs Debian's
# kernel.  Otherwise full software emulation, one host thread per vCPU.
ACCEL_KIND=${CCLAB_SOFTROCE_ACCEL:-}
if [ -z "$ACCEL_KIND" ]; then
	ACCEL_KIND=tcg
	if grep -qwE 'vmx|svm' /proc/cpuinfo && [ -r /dev/kvm ] && [ -w /dev/kvm ]; then
		ACCEL_KIND=kvm
	fi
fi
case $ACCEL_KIND in
kvm) ACCEL=(-accel kvm -cpu host) ;;
tcg) ACCEL=(-accel "tcg,thread=multi" -cpu max) ;;
*) usage_error "CCLAB_SOFTROCE_ACCEL wants kvm or tcg, not '$ACCEL_KIND'" ;;
esac

# Firmware: qboot (when qemu ships it) only jumps into the -kernel, where
# SeaBIOS under emulation spends seconds on its own start.  romfile= on the
# NIC below: no iPXE option ROM either, nothing boots from the network.
FIRMWARE=()
for f in /usr/share/qemu/qboot.rom /usr/share/seabios/qboot.rom; do
	if [ -f "$f" ]; then
		FIRMWARE=(-bios "$f")
		break
	fi
done

# qemu's option parser takes ',' as a separator; a literal one is doubled.
qpath() { printf '%s' "${1//,/,,}"; }
SHARE_ARGS=()
share() { # TAG PATH ro|rw
	local ro=""
	[ "$3" = ro ] && ro=",readonly=on"
	# security_model=none: the guest sees the host's owners and modes and
	# files are created as the user running qemu.  multidevs=remap: the host
	# root spans several filesystems; keep inode numbers unique.
	SHARE_ARGS+=(-fsdev "local,id=$1,path=$(qpath "$2"),security_model=none,multidevs=remap$ro"
		-device "virtio-9p-pci,fsdev=$1,mount_tag=$1")
}
share hostroot / ro
share out "$OUT_DIR" rw
share ctl "$CTL" ro
QEMU_ARGS=(
	-nodefaults -no-user-config -nographic -no-reboot
	"${FIRMWARE[@]}"
	"${ACCEL[@]}" -smp "$CPUS" -m "$MEM"
	-kernel "$KERNEL" -initrd "$INITRD"
	# panic=1 + -no-reboot: if stage 1 or 2 dies, qemu exits within a second.
	-append "console=ttyS0 panic=1 loglevel=4 mitigations=off edd=off 8250.nr_uarts=1"
	-serial "file:$(qpath "$OUT_DIR/console.log")" -monitor none
	# The rxe netdev.  restrict=on: user-mode networking with no way out.
	-netdev "user,id=n0,restrict=on" -device "virtio-net-pci,netdev=n0,romfile="
	"${SHARE_ARGS[@]}"
)

say "$what"
say "kernel $KVER (${KERNEL##*/}), accel $ACCEL_KIND, $CPUS cpus, $MEM MiB; results in $OUT_DIR (prepare $(secs $(($(now_ms) - t_prepare))) s)"
: >"$OUT_DIR/console.log"
t_boot=$(now_ms)
"$QEMU" "${QEMU_ARGS[@]}" </dev/null >"$OUT_DIR/qemu.log" 2>&1 &
QEMU_PID=$!
# Stream the serial console to our stdout, marked, as it arrives.  \r: the
# tty turns \n into \r\n.
tail -n +1 -s 0.2 -f --pid="$QEMU_PID" "$OUT_DIR/console.log" 2>/dev/null | sed -u 's/\r$//; s/^/[vm] /' &
TAIL_PID=$!

# ------------------------------------------------------------------ monitor
# The guest reports its phase in $OUT/.phase; each phase has its own limit.
phase=boot
phase_start=$t_boot
declare -A took=()
timed_out=""
limit_of() {
	case $1 in
	boot) echo "$BOOT_TIMEOUT" ;;
	rxe) echo "$RXE_TIMEOUT" ;;
	plan) echo $((PLAN_TIMEOUT + 30)) ;; # the guest's own timeout fires first
	*) echo "$SHUTDOWN_TIMEOUT" ;;       # done, plan-timeout, rxe-failed: power-off
	esac
}
phase_name() {
	case $1 in
	rxe) echo "rxe setup" ;;
	done | plan-timeout | rxe-failed*) echo "shutdown" ;;
	*) echo "$1" ;;
	esac
}
while kill -0 "$QEMU_PID" 2>/dev/null; do
	now=$(now_ms)
	p=$(cat "$OUT_DIR/.phase" 2>/dev/null || true)
	p=${p:-boot}
	if [ "$p" != "$phase" ]; then
		took[$phase]=$((now - phase_start))
		phase=$p
		phase_start=$now
	fi
	limit=$(limit_of "$phase")
	if ((now - phase_start > limit * 1000)); then
		timed_out=$phase
		break
	fi
	sleep 0.2
done
if [ -n "$timed_out" ]; then
	kill "$QEMU_PID" 2>/dev/null || true
	for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$QEMU_PID" 2>/dev/null || break; sleep 0.5; done
	kill -KILL "$QEMU_PID" 2>/dev/null || true
fi
qemu_rc=0
wait "$QEMU_PID" || qemu_rc=$?
QEMU_PID=""
# The console reader stops on its own once qemu is gone (--pid); bounded.
for _ in $(seq 20); do kill -0 "$TAIL_PID" 2>/dev/null || break; sleep 0.1; done
t_end=$(now_ms)
took[$phase]=$((t_end - phase_start))

summary=""
for p in boot rxe plan; do
	if [ -n "${took[$p]:-}" ]; then summary+="$(phase_name "$p") $(secs "${took[$p]}") s, "; fi
done
summary+="total $(secs $((t_end - t_prepare))) s"
if [ -s "$OUT_DIR/qemu.log" ]; then
	sed 's/^/softroce: qemu: /' "$OUT_DIR/qemu.log" >&2
fi

if [ -n "$timed_out" ]; then
	say "TIMEOUT in phase $(phase_name "$timed_out") (limit $(limit_of "$timed_out") s); qemu killed. $summary. Console: $OUT_DIR/console.log"
	exit 124
fi
final=$(cat "$OUT_DIR/.phase" 2>/dev/null || true)
if [ -f "$OUT_DIR/exit-status" ]; then
	rc=$(cat "$OUT_DIR/exit-status")
	[[ $rc =~ ^[0-9]+$ ]] || { say "unreadable exit-status '$rc'"; exit 1; }
	if [ "$final" = plan-timeout ]; then
		say "TIMEOUT in phase plan (limit $PLAN_TIMEOUT s, killed inside the VM). $summary"
		exit 124
	fi
	say "plan exit status $rc; $summary"
	exit "$rc"
fi
case $final in
rxe-failed*) say "FAILED in rxe setup: ${final#rxe-failed: }. Console: $OUT_DIR/console.log, dmesg: $OUT_DIR/dmesg.log" ;;
"") say "FAILED in boot: the VM stopped (qemu exit $qemu_rc) before stage 2 started. Console: $OUT_DIR/console.log" ;;
*) say "FAILED in phase $(phase_name "$final"): the VM stopped (qemu exit $qemu_rc) without an exit status. Console: $OUT_DIR/console.log" ;;
esac
exit 1
