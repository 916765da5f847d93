# RoCEv2 multicast with stock librdmacm tools (docs/snic-rdma.md
# "Multicast", docs/snic-ib.md "Multicast"): one guest, two snic ports on
# a hub.  ibv_devinfo shows the multicast limits; two mckey receivers on
# port 0 join 239.1.1.1 and each gets every message the mckey sender on
# port 1 sends to the group; a receiver that left gets nothing more.
# vm-args: --guests 1
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_one_guest
ibv_devinfo -v -d "$dev0" > /tmp/devinfo 2>&1
check devinfo_mcast_limits sh -c "grep -q 'max_mcast_grp:[[:space:]]*64\$' /tmp/devinfo &&
	grep -q 'max_mcast_qp_attach:[[:space:]]*16\$' /tmp/devinfo ||
	{ grep mcast /tmp/devinfo; false; }"

# two receivers on port 0, one sender on port 1, 20 messages of 512 bytes
timeout 60 mckey -m 239.1.1.1 -b 10.0.0.1 -C 20 -S 512 > /tmp/mr1 2>&1 &
r1=$!
timeout 60 mckey -m 239.1.1.1 -b 10.0.0.1 -C 20 -S 512 > /tmp/mr2 2>&1 &
r2=$!
sleep 3
timeout 60 mckey -m 239.1.1.1 -b 10.0.0.2 -C 20 -S 512 -s > /tmp/ms 2>&1
src=$?
wait "$r1"; rc1=$?
wait "$r2"; rc2=$?
check mckey_send sh -c "[ $src = 0 ] || { cat /tmp/ms; false; }"
check mckey_receiver_1 sh -c "[ $rc1 = 0 ] && grep -q 'data transfers complete' /tmp/mr1 ||
	{ echo rc $rc1; cat /tmp/mr1; false; }"
check mckey_receiver_2 sh -c "[ $rc2 = 0 ] && grep -q 'data transfers complete' /tmp/mr2 ||
	{ echo rc $rc2; cat /tmp/mr2; false; }"
# the groups are gone with the receivers: a sender reaches nobody
rx0=$(cat "/sys/class/infiniband/$dev0/ports/1/hw_counters/rx_pkts")
timeout 60 mckey -m 239.1.1.1 -b 10.0.0.2 -C 5 -S 512 -s > /tmp/ms2 2>&1
sleep 1
rx1=$(cat "/sys/class/infiniband/$dev0/ports/1/hw_counters/rx_pkts")
check left_group_gets_nothing sh -c "[ $rx1 = $rx0 ] || { echo rx_pkts $rx0 -> $rx1; false; }"
dmesg_clean
finish
