# Guest test helpers, sourced by tests/guest/*.sh inside a guest
# (/opt/d2d/tests/lib.sh).  Each check prints one PASS/FAIL/SKIP line.
# T is the test group name; the script's exit status is 1 if anything failed.
# With two guests each line names its guest (g1/, g2/).
T=${D2D_TEST:-$(basename "$0" .sh)}
[ "${D2D_GUESTS:-1}" = 2 ] && T="$T/g$D2D_GUEST"
D2D_FAILED=0

pass() { echo "PASS guest/$T/$1"; }
fail() { echo "FAIL guest/$T/$1: $2"; D2D_FAILED=1; }
skip() { echo "SKIP guest/$T/$1: $2"; }

# check NAME CMD...: PASS if CMD succeeds, else FAIL with its last line.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		pass "$name"
	else
		fail "$name" "$(echo "$out" | tail -1)"
	fi
}

# The kernel log has no warning, oops, BUG or leak report.
dmesg_clean() {
	! dmesg | grep -E 'WARNING:|BUG:|Oops|Call Trace|kmemleak|leak|general protection'
}

finish() { exit $D2D_FAILED; }

# running PID: PID exists and is not a zombie (a background job of the
# script stays one until the script waits for it; check's subshell cannot).
running() {
	[ -e "/proc/$1" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# exits_within SECS PID: PID is gone (or a zombie) within SECS seconds;
# else "still running after SECS s" and status 1.  A bound for operations
# that must not wait on something else (a stalled user, traffic in
# flight), so that a driver that does fails a check instead of hanging the
# script.
exits_within() {
	local i=0
	while running "$2" && [ $i -lt $(($1 * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	! running "$2" || { echo "still running after $1 s"; return 1; }
}

# Start COMMAND... in the background (its output in FILE, $! its pid) and
# wait up to 20 s until it prints STALLED: the userfaultfd stall helpers
# (spin-ioctl-test --uffd-stall, hdc-hostile uffd-stall).  Sets stall_pid.
start_stalled() {
	local out=$1 i=0
	shift
	"$@" > "$out" 2>&1 &
	stall_pid=$!
	while ! grep -q STALLED "$out" && [ $i -lt 200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

snic_devices() { ls -d /sys/bus/pci/drivers/snic/0000:* 2>/dev/null; }

# Interface whose PCI driver is $1 (e.g. virtio_net: virtio's parent).
netdev_by_driver() {
	local d
	for d in /sys/class/net/*; do
		case "$(readlink -f "$d/device/driver")" in
		*/"$1") basename "$d"; return 0 ;;
		esac
	done
	return 1
}

# Unload snic.ko and the modules that use it, users first: fld, hdc, the test
# modules, then snic_ib (the ib_device, which modprobe snic loads too).
snic_rmmod() {
	local m
	for m in fld hdc snic_peer_test snic_ib_test snic_ib; do
		[ -d "/sys/module/$m" ] || continue
		rmmod "$m" || return 1
	done
	rmmod snic
}
