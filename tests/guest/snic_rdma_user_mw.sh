# Memory windows through stock libibverbs and libsnic (docs/libsnic.md
# "Memory windows"): snic-mw-test between the guest's two snic ports binds
# type 1 windows with ibv_bind_mw and type 2 windows with IBV_WR_BIND_MW,
# WRITEs and READs through the windows' rkeys inside and outside the
# window, invalidates them (LOCAL_INV, SEND with invalidate) and rebinds
# them, and checks the refused binds (IBV_WC_MW_BIND_ERR) and ibv_dereg_mr
# of an MR with a bound window; once as root and once as nobody.
# ibv_devinfo -v shows the windows' limit and capabilities; the device
# counted the binds and their errors.
# vm-args: --guests 1
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_one_guest
devinfo_mw() {
	ibv_devinfo -v -d "$dev0" > /tmp/devinfo 2>&1 || { cat /tmp/devinfo; return 1; }
	grep -Eq 'max_mw:[[:space:]]*[1-9]' /tmp/devinfo &&
		grep -q 'MEM_WINDOW_TYPE_2B' /tmp/devinfo ||
		{ grep -E 'max_mw|MEM_WINDOW' /tmp/devinfo; return 1; }
}
check devinfo_max_mw devinfo_mw
ctr() { cat "/sys/class/infiniband/$dev0/ports/1/hw_counters/$1"; }
# mw_run WHO [CMD...]: snic-mw-test as WHO (run by CMD); the device counts
# 3 type 1 binds (bind, rebind, unbind), 2 type 2 binds and 2 refused.
mw_run() {
	local who=$1 b0 e0
	shift
	b0=$(ctr mw_binds) e0=$(ctr mw_bind_errors)
	"$@" timeout 120 snic-mw-test -d "$dev0" -e "$dev1" -P "guest/$T/$who" \
		> "/tmp/mw-$who.out" 2>&1
	tool_lines "$who" "/tmp/mw-$who.out"
	echo "  $who: mw_binds +$(($(ctr mw_binds) - b0)), mw_bind_errors +$(($(ctr mw_bind_errors) - e0))"
	check "${who}_counted_binds" [ $(($(ctr mw_binds) - b0)) -eq 5 ]
	check "${who}_counted_bind_errors" [ $(($(ctr mw_bind_errors) - e0)) -eq 2 ]
}
mw_run root
mw_run nobody setpriv --reuid 65534 --regid 65534 --clear-groups
check dmesg_clean dmesg_clean
finish
