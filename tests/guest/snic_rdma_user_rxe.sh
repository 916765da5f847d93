# Interoperability: snic-verbs-test between guest 1's snic (through the
# libsnic provider) and Soft-RoCE (rdma_rxe) on guest 2's virtio-net port
# on the same wire, both ways: first rxe is the requester (client, guest 2
# prints its lines), then snic (client on guest 1).  Then the stock tools
# in both directions: ibv_rc_pingpong, ib_write_bw and ib_read_bw, and
# UC: ibv_uc_pingpong and ib_write_bw -c UC.
# vm-args: --guests 2 --rxe-peer
# timeout: 420
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

if [ "$D2D_GUEST" = 1 ]; then
	rdma_user_two_guests
	check ping wait_ping "$peer" 60
	# Serve only once the rxe side is up (it does not come to this
	# barrier when its setup failed).
	if ! barrier 0 >/dev/null; then
		fail barrier_0 "the rxe guest did not come up"
		finish
	fi
	timeout 240 snic-verbs-test -d "$dev" -p 18600 > /tmp/vt.s 2>&1 ||
		fail verbs_server "$(tail -1 /tmp/vt.s)"
	check barrier_1 barrier 1
	timeout 240 snic-verbs-test -d "$dev" -p 18601 -P "guest/$T/verbs_snic_requester" \
		10.0.0.2 > /tmp/vt.c 2>&1
	tool_lines verbs_snic_requester /tmp/vt.c
else
	modprobe virtio_net; modprobe virtio_pci
	# rxe computes its ICRC with the crypto API's crc32 (rxe_icrc_init).
	modprobe crc32_generic
	modprobe rdma_rxe; modprobe ib_uverbs; modprobe rdma_ucm
	sleep 1
	if=$(netdev_by_driver virtio-pci) || if=$(netdev_by_driver virtio_net) || if=""
	err=""
	if [ -z "$if" ]; then
		err="no virtio-net port"
	else
		ip addr add 10.0.0.2/24 dev "$if" && ip link set "$if" up &&
			rdma link add rxe0 type rxe netdev "$if" ||
			err="rdma link add failed (rdma_rxe needs crc32_generic in the image)"
	fi
	[ -z "$err" ] && { roce_v2_gid rxe0 >/dev/null || err="rxe0 has no RoCE v2 GID"; }
	if [ -n "$err" ]; then
		fail setup "$err"
		finish
	fi
	pass setup
	check ping wait_ping 10.0.0.1 60
	check barrier_0 barrier 0
	# rxe reports a bad lkey as LOC_QP_OP_ERR (-L).
	timeout 240 snic-verbs-test -d rxe0 -p 18600 -L -P "guest/$T/verbs" \
		10.0.0.1 > /tmp/vt.c 2>&1
	tool_lines verbs /tmp/vt.c
	check barrier_1 barrier 1
	timeout 240 snic-verbs-test -d rxe0 -p 18601 -L > /tmp/vt.s 2>&1 ||
		fail verbs_server "$(tail -1 /tmp/vt.s)"
	dev=rxe0 gid=$(roce_v2_gid rxe0)
fi

# Stock tools both ways: guest 1's snic, guest 2's rxe; "a_to_b": a is the
# client (requester), b the server.
peer_ip=10.0.0.$((3 - D2D_GUEST))
for dir in snic_to_rxe rxe_to_snic; do
	[ $dir = snic_to_rxe ] && sg=2 || sg=1
	p=$((18610 + sg * 10))
	xpair "rc_pingpong_$dir" $p $sg \
		"ibv_rc_pingpong -d $dev -g $gid -p $p -s 4096 -n 20" \
		"ibv_rc_pingpong -d $dev -g $gid -p $p -s 4096 -n 20 $peer_ip"
	xpair "write_bw_$dir" $((p + 1)) $sg \
		"ib_write_bw -d $dev -x $gid -p $((p + 1)) -s 65536 -n 20 -F" \
		"ib_write_bw -d $dev -x $gid -p $((p + 1)) -s 65536 -n 20 -F $peer_ip"
	# perftest sets each side's max_rd_atomic to the peer's limit (rxe
	# 128, snic 16): -o 16 keeps both within the device's.
	xpair "read_bw_$dir" $((p + 2)) $sg \
		"ib_read_bw -d $dev -x $gid -p $((p + 2)) -s 65536 -n 20 -o 16 -F" \
		"ib_read_bw -d $dev -x $gid -p $((p + 2)) -s 65536 -n 20 -o 16 -F $peer_ip"
	# UC: the UC opcodes on the wire as rxe sends and takes them
	xpair "uc_pingpong_$dir" $((p + 3)) $sg \
		"ibv_uc_pingpong -d $dev -g $gid -p $((p + 3)) -s 4096 -n 20 -c" \
		"ibv_uc_pingpong -d $dev -g $gid -p $((p + 3)) -s 4096 -n 20 -c $peer_ip"
	xpair "uc_write_bw_$dir" $((p + 4)) $sg \
		"ib_write_bw -c UC -d $dev -x $gid -p $((p + 4)) -s 65536 -n 20 -F" \
		"ib_write_bw -c UC -d $dev -x $gid -p $((p + 4)) -s 65536 -n 20 -F $peer_ip"
done
check dmesg_clean dmesg_clean
finish
