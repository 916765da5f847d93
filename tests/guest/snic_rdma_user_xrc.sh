# XRC on one guest with two snic ports on a hub, through the libsnic
# provider: ibv_devinfo -v lists the XRC capability, and the stock
# ibv_xsrq_pingpong (XRC domain, XRC SRQ, XRC_SEND and XRC_RECV QPs, one
# pair per client) runs port to port with 1 and 3 client processes at
# once (the clients share one XRC domain), as root and as nobody (an
# unprivileged RDMA user: no capability, its own XRC domain file); perftest
# ib_send_bw, ib_write_bw, ib_read_bw and ib_send_lat with -c XRC.  Every request is checked against its XRC SRQ's domain: nothing
# is NAKed (xrc_bad_srqn 0).
# vm-args: --guests 1
# timeout: 360
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

NOBODY="setpriv --reuid nobody --regid nogroup --clear-groups"
rdma_user_one_guest
check devinfo_xrc sh -c "ibv_devinfo -v -d $dev0 | grep -q -w XRC ||
	{ ibv_devinfo -v -d $dev0 | grep -A 12 device_cap_flags; false; }"

# xsrq NAME PORT CLIENTS [PREFIX]: the server on dev0 serving CLIENTS
# client processes on dev1 at once (each its own XRC_SEND/XRC_RECV pair
# with the server, all in one XRC domain per device), run by PREFIX.
xsrq() {
	local name=$1 p=$2 n=$3 pre=$4 out=/tmp/xsrq.$1 spid rc=0 i pids=""
	$pre timeout 150 ibv_xsrq_pingpong -d "$dev0" -g "$gid0" -p "$p" \
		-s 4096 -c "$n" -n 50 > "$out.s" 2>&1 &
	spid=$!
	wait_listen "$p"
	for i in $(seq 1 "$n"); do
		$pre timeout 150 ibv_xsrq_pingpong -d "$dev1" -g "$gid1" -p "$p" \
			-s 4096 -n 50 127.0.0.1 > "$out.c$i" 2>&1 &
		pids="$pids $!"
	done
	for i in $pids; do
		wait "$i" || rc=$?
	done
	wait "$spid" || rc=$?
	if [ "$rc" = 0 ]; then
		pass "$name"
	else
		fail "$name" "rc $rc: $(pair_why "$out.s")"
		for i in "$out".*; do sed "s|^|  ${i##*.}: |" "$i"; done
	fi
}

xsrq xsrq_pingpong_1_client 18530 1
xsrq xsrq_pingpong_3_clients 18531 3
# The XRC domain is the inode of /tmp/xrc_domain: nobody makes its own.
rm -f /tmp/xrc_domain
xsrq xsrq_pingpong_nobody 18532 2 "$NOBODY"
# perftest over XRC QPs (-c XRC: its own XRC domain, SRQ and QP pairs)
p=18540
for t in send_bw write_bw read_bw send_lat; do
	pair "perftest_xrc_$t" $p \
		"ib_$t -c XRC -d $dev0 -x $gid0 -p $p -s 4096 -n 100 -F" \
		"ib_$t -c XRC -d $dev1 -x $gid1 -p $p -s 4096 -n 100 -F 127.0.0.1"
	p=$((p + 1))
done
# hwc IBDEV NAME: counter NAME of IBDEV's port
hwc() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }
check xsrq_nothing_naked test "$(hwc "$dev0" xrc_bad_srqn)$(hwc "$dev1" xrc_bad_srqn)" = 00
check xsrq_no_errors test "$(hwc "$dev0" req_errors)$(hwc "$dev1" resp_errors)" = 00
check dmesg_clean dmesg_clean
finish
