# snic RDMA user traffic in flight (a long ibv_rc_pingpong between the two
# ports) while the driver goes away: unloading snic_ib and snic (snic_rmmod)
# completes without waiting
# for the verbs users (their contexts are disassociated: they fail or can
# be killed), and so does removing the PCI function under traffic.  After
# each, the ports come back (modprobe, PCI rescan) and carry RDMA traffic
# again; no WARN, oops or leak report.
# timeout: 480
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

TOP=$T
P=18600
# traffic NAME: a ping-pong of 64 KiB messages that runs until killed,
# server on dev0, client on dev1; sets spid, cpid.
traffic() {
	ibv_rc_pingpong -d "$dev0" -g "$gid0" -p $P -s 65536 -n 1000000000 \
		> "/tmp/$1.s" 2>&1 &
	spid=$!
	wait_listen $P
	ibv_rc_pingpong -d "$dev1" -g "$gid1" -p $P -s 65536 -n 1000000000 \
		127.0.0.1 > "/tmp/$1.c" 2>&1 &
	cpid=$!
	P=$((P + 1))
	# let it get going; the check is only that both still run
	sleep 3
	check "$1_server_running" running $spid
	check "$1_client_running" running $cpid
}
# works_again NAME: the ports are set up again and a short ping-pong passes.
works_again() {
	local i
	T="$TOP/$1"
	# a port that stayed keeps its address: set both up from scratch
	for i in $(snic_netdevs); do
		ip addr flush dev "$i"
	done
	rdma_user_one_guest
	pair rc_pingpong $P \
		"ibv_rc_pingpong -d $dev0 -g $gid0 -p $P -s 4096 -n 20" \
		"ibv_rc_pingpong -d $dev1 -g $gid1 -p $P -s 4096 -n 20 127.0.0.1"
	P=$((P + 1))
	T=$TOP
}
# users_gone: the ping-pong processes end, killed if they still wait.
users_gone() {
	kill -KILL $spid $cpid 2>/dev/null
	check "$1_server_gone" exits_within 30 $spid
	check "$1_client_gone" exits_within 30 $cpid
	wait $spid $cpid 2>/dev/null
}

# two_snics: both snic functions are bound (waits 10 s).
two_snics() {
	local i=0
	until [ "$(snic_devices | wc -l)" -ge 2 ] || [ $i -ge 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(snic_devices | wc -l)" -ge 2 ]
}

rdma_user_one_guest
traffic rmmod
snic_rmmod &
rpid=$!
check rmmod_under_traffic exits_within 60 $rpid
wait $rpid
check rmmod_status test $? = 0
users_gone rmmod
check modprobe_again modprobe snic
works_again after_rmmod

traffic remove
pci=$(readlink -f "/sys/class/infiniband/$dev0/device")
echo 1 > "$pci/remove" &
rpid=$!
check pci_remove_under_traffic exits_within 60 $rpid
users_gone remove
echo 1 > /sys/bus/pci/rescan
check rescan_brings_port_back two_snics
works_again after_rescan
check rmmod snic_rmmod
check dmesg_clean dmesg_clean
finish
