# The two-guest wire loses nothing unless loss is injected: between two
# guests (one snic port each, loopback UDP wire of tools/vm), an RC
# ib_write_bw of 64 KiB messages never finds a packet missing (no sequence
# NAK: the responder saw every PSN in order; the requester's tail-loss
# probes and retry timeouts, which fire when an emulated guest is
# descheduled long enough on a loaded host, are printed, not judged), and
# every RoCE packet of a UD ib_send_bw flood that guest 2's transport sent
# reaches guest 1's (its hw_counters tx_pkts and rx_pkts; the comparison is
# wire_clean.host's, from the "# wire" lines both guests print).
# vm-args: --guests 2
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_two_guests
check ping wait_ping "$peer" 60
hwc() { cat "/sys/class/infiniband/$dev/ports/1/hw_counters/$1" 2>/dev/null || echo 0; }

# run_pair PORT SERVER-ARGS: guest 1 serves, guest 2 is the client.
run_pair() {
	local p=$1 name=$2
	shift 2
	if [ "$me" = 1 ]; then
		timeout 150 "$@" -p "$p" > "/tmp/$name.out" 2>&1 &
		local spid=$!
		check "${name}_listen" wait_listen "$p"
		check "${name}_go" barrier "$p"
		wait $spid && pass "${name}_server" ||
			fail "${name}_server" "$(pair_why "/tmp/$name.out")"
	else
		check "${name}_go" barrier "$p"
		sleep 1
		check "$name" timeout 150 "$@" -p "$p" 10.0.0.1
	fi
}

r0=$(hwc retransmits) o0=$(hwc timeouts) n0=$(hwc seq_naks_rcvd)
run_pair 18601 rc_write_bw ib_write_bw -d "$dev" -x "$gid" -s 65536 -n 500 -F
r1=$(hwc retransmits) o1=$(hwc timeouts) n1=$(hwc seq_naks_rcvd)
echo "# rc: retransmits +$((r1 - r0)) timeouts +$((o1 - o0)) seq_naks +$((n1 - n0))"
if [ "$me" = 2 ]; then
	check rc_no_seq_naks test $((n1 - n0)) -eq 0
fi

check barrier_ud0 barrier 1
t0=$(hwc tx_pkts) x0=$(hwc rx_pkts)
run_pair 18602 ud_send_bw ib_send_bw -d "$dev" -x "$gid" -c UD -s 1024 -n 3000 -F
# both transports idle before the counters are read
check barrier_ud1 barrier 2
sleep 1
t1=$(hwc tx_pkts) x1=$(hwc rx_pkts)
echo "# wire g$me tx $((t1 - t0)) rx $((x1 - x0))"
check dmesg_clean dmesg_clean
finish
