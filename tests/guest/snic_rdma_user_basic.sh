# User-level RDMA on one guest with two snic ports on a hub, through the
# libsnic provider: ibv_devinfo shows RoCE v2 ports, and the ibverbs-utils
# ping-pongs run port to port (RC at 64 B, 4 KiB and 64 KiB, UD at 64 B
# and 1 KiB, SRQ).  ibv_devinfo, ibstat and ethtool agree on the firmware
# version; ibstat shows the CA type and hardware version; setting the port
# down and up by hand gives PORT_ERR and PORT_ACTIVE events.
# vm-args: --guests 1
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_one_guest
check ibv_devices sh -c "ibv_devices | grep -q -w $dev0 && ibv_devices | grep -q -w $dev1"
ibv_devinfo -v -d "$dev0" > /tmp/devinfo 2>&1
check devinfo_roce_v2 sh -c "grep -q 'state:.*PORT_ACTIVE' /tmp/devinfo &&
	grep -q 'link_layer:.*Ethernet' /tmp/devinfo &&
	grep -q 'GID\[ *$gid0\]:.*10\.0\.0\.1, RoCE v2' /tmp/devinfo ||
	{ tail -3 /tmp/devinfo; false; }"
check devinfo_vendor sh -c "grep -q 'vendor_id:.*0x1234' /tmp/devinfo &&
	grep -q 'vendor_part_id:.*53761' /tmp/devinfo ||
	{ grep vendor /tmp/devinfo; false; }"
# One firmware version everywhere; ibstat's CA type and hardware version.
fw_eth=$(ethtool -i "$if0" | sed -n 's/^firmware-version: //p')
check fw_ver_matches_ethtool sh -c "grep -q 'fw_ver:[[:space:]]*$fw_eth\$' /tmp/devinfo ||
	{ grep fw_ver /tmp/devinfo; echo \"ethtool: $fw_eth\"; false; }"
modprobe ib_umad
ibstat "$dev0" > /tmp/ibstat 2>&1
check ibstat_ca_type sh -c "grep -q 'CA type: SNICD201' /tmp/ibstat || { cat /tmp/ibstat; false; }"
check ibstat_hw_version sh -c "grep -q 'Hardware version: 0x[0-9a-f]' /tmp/ibstat || { cat /tmp/ibstat; false; }"
check ibstat_fw_version sh -c "grep -q 'Firmware version: $fw_eth' /tmp/ibstat || { cat /tmp/ibstat; false; }"

p=18515
for s in 64 4096 65536; do
	pair "rc_pingpong_$s" $p \
		"ibv_rc_pingpong -d $dev0 -g $gid0 -p $p -s $s -n 50" \
		"ibv_rc_pingpong -d $dev1 -g $gid1 -p $p -s $s -n 50 127.0.0.1"
	p=$((p + 1))
done
# UD messages are at most one path MTU (1024 on a 1500-byte port).
for s in 64 1024; do
	pair "ud_pingpong_$s" $p \
		"ibv_ud_pingpong -d $dev0 -g $gid0 -p $p -s $s -n 50" \
		"ibv_ud_pingpong -d $dev1 -g $gid1 -p $p -s $s -n 50 127.0.0.1"
	p=$((p + 1))
done
pair srq_pingpong $p \
	"ibv_srq_pingpong -d $dev0 -g $gid0 -p $p -s 4096 -q 4 -n 50" \
	"ibv_srq_pingpong -d $dev1 -g $gid1 -p $p -s 4096 -q 4 -n 50 127.0.0.1"
# The port's state follows the netdev: ip link set down/up by hand gives
# PORT_ERR then PORT_ACTIVE (ibv_asyncwatch), and the port state with it.
ibv_asyncwatch -d "$dev0" > /tmp/asyncwatch 2>&1 &
apid=$!
# until it holds its context's async event file (up to 30 s: a debug
# kernel sharing the host took over a second, and missed PORT_ERR)
for i in $(seq 1 60); do
	ls -l "/proc/$apid/fd" 2>/dev/null | grep -q 'infinibandevent' && break
	sleep 0.5
done
ip link set "$if0" down
sleep 1
check port_down_state sh -c "ibv_devinfo -d $dev0 | grep -q 'state:.*PORT_DOWN'"
ip link set "$if0" up
wait_carrier "$if0" 10 > /dev/null
sleep 1
kill $apid 2>/dev/null
wait $apid 2>/dev/null
check port_err_event grep -q 'IBV_EVENT_PORT_ERR' /tmp/asyncwatch
check port_active_event grep -q 'IBV_EVENT_PORT_ACTIVE' /tmp/asyncwatch
check port_active_again sh -c "ibv_devinfo -d $dev0 | grep -q 'state:.*PORT_ACTIVE'"
check dmesg_clean dmesg_clean
finish
