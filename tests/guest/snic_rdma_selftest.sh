# In-kernel verbs self-test (snic_ib_test.ko) over the two snic ports of
# one guest: the second port lives in a network namespace so that ib_core
# resolves the peer's MAC by ARP across the hub.  The module connects RC
# QPs, checks the error returns for bad QP attributes and capabilities,
# SEND / SEND_IMM / RDMA WRITE / READ / fetch-add through a fast-registered
# MR, remote invalidation, the QP error event and flushing, and destroys
# QPs with work in flight; afterwards no QP, MR or CQ of it is left.
# vm-args: --guests 1
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma.inc

check modprobe modprobe snic
set -- $(snic_netdevs)
if0=${1:-} if1=${2:-}
if [ -z "$if0" ] || [ -z "$if1" ]; then
	fail netdevs "want two snic interfaces, have '$*'"
	finish
fi
if ! snic_has_rdma; then
	skip rdma "snic without SNIC_CAP_RDMA (no RoCE in this model)"
	finish
fi

# ibdev_of IF: the ib_device bound to netdev IF.
ibdev_of() {
	local d
	for d in /sys/class/infiniband/*; do
		grep -qx "$1" "$d/ports/1/gid_attrs/ndevs/0" 2>/dev/null &&
			{ basename "$d"; return 0; }
	done
	return 1
}

ip netns add p
ip link set "$if1" netns p
ip addr add 10.0.0.1/24 dev "$if0"
ip link set "$if0" up
ip netns exec p ip addr add 10.0.0.2/24 dev "$if1"
ip netns exec p ip link set "$if1" up
check carrier wait_carrier "$if0" 10
check ping_peer wait_ping 10.0.0.2 20
ib0=$(ibdev_of "$if0")
ib1=$(ibdev_of "$if1")
check two_ibdevs sh -c "[ -n '$ib0' ] && [ -n '$ib1' ] && [ '$ib0' != '$ib1' ]"
check gid0 wait_gid "$ib0" "$(v4_gid 10.0.0.1)" 10
check gid1 wait_gid "$ib1" "$(v4_gid 10.0.0.2)" 10

check load_test modprobe snic_ib_test ib0="$ib0" ib1="$ib1"
dmesg | sed -n 's/.*snic_ib_test: \(PASS .*\)/\1/p; s/.*snic_ib_test: \(FAIL .*\)/\1/p' > /tmp/ibt.res
while read -r st rest; do
	case "$st" in
	PASS) pass "verbs/$rest" ;;
	FAIL) fail "verbs/${rest%%:*}" "${rest#*: }" ;;
	esac
done < /tmp/ibt.res
check all_passed sh -c "dmesg | grep -q 'snic_ib_test: DONE [1-9][0-9]* passed, 0 failed'"
# The traffic went through the device's RoCE transport.
hc=/sys/class/infiniband/$ib0/ports/1/hw_counters
check hw_counters_tx sh -c "[ \$(cat $hc/tx_pkts) -gt 0 ] && [ \$(cat $hc/rx_acks) -gt 0 ]"
check hw_counters_nak sh -c "[ \$(cat $hc/rem_access_naks_rcvd) -ge 1 ]"
for d in $ib0 $ib1; do for f in /sys/class/infiniband/$d/ports/1/hw_counters/*; do echo "$d ${f##*/} $(cat "$f")"; done; done | grep -v " 0$"
check rmmod_test rmmod snic_ib_test
# Everything the test created is gone: only ib_core's own GSI objects.
check no_rc_qp_left sh -c "! rdma resource show qp | grep -q 'type RC'"
check no_mr_left sh -c "! rdma resource show | grep -Eq 'mr [1-9]'"
ip netns del p
check rmmod_snic snic_rmmod
check dmesg_clean dmesg_clean
finish
