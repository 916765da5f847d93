# perftest between the two snic ports of one guest, through the libsnic
# provider: send/write/read/atomic bandwidth and latency, small iteration
# counts (TCG).  A run passes when both sides finish without error.
# vm-args: --guests 1
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_one_guest
p=18700
for t in send_bw write_bw read_bw atomic_bw send_lat write_lat read_lat atomic_lat; do
	case $t in
	*_bw) args="-n 200 -F" ;;
	*) args="-n 100 -F" ;;
	esac
	case $t in
	send_bw|write_bw|read_bw) args="$args -s 4096" ;;
	esac
	pair "ib_$t" $p "ib_$t -d $dev0 -x $gid0 -p $p $args" \
		"ib_$t -d $dev1 -x $gid1 -p $p $args 127.0.0.1"
	p=$((p + 1))
done
check dmesg_clean dmesg_clean
finish
