# The engine's receive side, NIC -> SSD over UDP, between two guests:
# guest 1 (HDC engine, its SSD, a snic port) runs 'd2d recv
# 10.0.0.1:PORT FILE --bytes N --crc32c'; guest 2 sends a random file
# with 'udpsend --d2d' (d2d's application header), then serves it back
# over TCP, which guest 1 compares byte for byte with what the engine
# wrote; the CRC32C the engine computed on the way is the software
# 'crc32c' of the file.  The host is off the data path: guest 1's UDP
# InDatagrams do not move.
# Faults: hostile datagrams (bad magic, bad length, past the end, cut
# short, a duplicate) are dropped and counted while the transfer
# completes; a lost datagram (--skip, 1% --loss) ends it with EREMOTEIO
# naming the missing bytes, the file keeping its old size; a timeout
# with nothing sent is ETIMEDOUT; a truncate during the receive waits for
# it; 'rmmod hdc' during a receive is refused (in use) and the receive
# completes; unbinding the snic during a receive (snic itself cannot be
# unloaded while hdc uses it) ends it with ENETDOWN (the remove callback
# disables the NIC side).  Without CAP_NET_RAW: EPERM;
# a socket on no address: EDESTADDRREQ.
# vm-args: --guests 2 --hdc @DISK@
# timeout: 600
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/hdc.inc

PORT=9100
# name size udpsend-options
CASES="4k:4096: 64k:65549: 1m:1048577: hostile:65549:--hostile skip:1048577:--skip_100 loss:1048577:--loss_1 trunc:65549: rmmod_hdc:65549:"

# udp_in: the host stack's UDP datagrams received so far.
udp_in() {
	awk '$1 == "Udp:" && $2 ~ /^[0-9]+$/ { print $2 }' /proc/net/snmp
}

# wait_rx_port P: until a receive steers port P to the engine.
wait_rx_port() {
	local i
	for i in $(seq 1 100); do
		[ "$(cat $SYS/nic_rx_port)" = "$1" ] && return 0
		sleep 0.1
	done
	echo "nic_rx_port is $(cat $SYS/nic_rx_port), not $1"
	return 1
}

# recv_start NAME ARGS...: d2d recv in the background, output in
# $OUT/NAME.{out,err}, status in $OUT/NAME.rc; sets rpid.
recv_start() {
	local n=$1
	shift
	(d2d recv 10.0.0.1:$PORT "$@" > "$OUT/$n.out" 2> "$OUT/$n.err"
	 echo $? > "$OUT/$n.rc") &
	rpid=$!
}

# recv_rc NAME: the status d2d recv exited with (after wait).
recv_rc() { cat "$OUT/$1.rc" 2>/dev/null || echo none; }

snic_eth_setup

if [ "$D2D_GUEST" = 1 ]; then
	check hdc_setup hdc_setup
	check ping_peer wait_ping "$peer" 30
	check caps_nic_rx sh -c "[ \$((\$(cat $SYS/caps) & 0x20000)) != 0 ]"
	check stat_nic_rx sh -c 'd2d stat | grep -q " nic-rx"'
	check usage_host_port sh -c "d2d recv 10.0.0.1 $OUT/x --bytes 1; [ \$? = 2 ]"
	check usage_bytes sh -c "d2d recv 10.0.0.1:$PORT $OUT/x --bytes x; [ \$? = 2 ]"
	check nobody_needs_cap_net_raw expect_errno EPERM as_nobody d2d recv 10.0.0.1:$PORT /tmp/nobody.out --bytes 4096
	check unbound_address expect_errno EDESTADDRREQ d2d recv 0.0.0.0:$PORT $OUT/x --bytes 4096
	check timeout_nothing_sent expect_errno ETIMEDOUT d2d recv 10.0.0.1:$PORT $OUT/x --bytes 4096 --timeout 2
	check timeout_no_rule_left sh -c "[ \$(cat $SYS/nic_rx_port) = 0 ]"
	n=0
	for c in $CASES; do
		name=${c%%:*} rest=${c#*:} size=${rest%%:*}
		n=$((n + 2))
		f=$OUT/r_$name
		rm -f "$f"
		udp0=$(udp_in)
		drop0=$(cat $SYS/stats/nic_rx_drop)
		recv_start "$name" "$f" --bytes "$size" --crc32c --timeout 120
		check "rule_$name" wait_rx_port $PORT
		case $name in
		trunc)
			truncate -s 0 "$f" &
			tpid=$!
			;;
		rmmod_hdc)
			check rmmod_hdc_refused sh -c '! rmmod hdc 2>/dev/null'
			;;
		esac
		check "barrier_${name}_a" barrier $((n - 1))
		wait $rpid
		rc=$(recv_rc "$name")
		udp1=$(udp_in)
		[ "$rc" = 0 ] &&
			check "host_udp_untouched_$name" test $((udp1 - udp0)) -eq 0
		case $name in
		skip)
			check recv_skip_eremoteio sh -c "[ $rc = 1 ] && grep -q EREMOTEIO $OUT/$name.err"
			# datagram 100 of 1456 payload bytes: bytes 145600..147056
			check recv_skip_names_gap grep -q 'bytes 145600..147056 never arrived' "$OUT/$name.err"
			check recv_skip_nothing_written test "$(stat -c %s "$f")" = 0
			;;
		loss)
			check recv_loss_eremoteio sh -c "[ $rc = 1 ] && grep -q EREMOTEIO $OUT/$name.err && grep -q 'never arrived' $OUT/$name.err"
			check recv_loss_nothing_written test "$(stat -c %s "$f")" = 0
			;;
		*)
			check "recv_$name" sh -c "[ $rc = 0 ] || { cat $OUT/$name.err; false; }"
			;;
		esac
		case $name in
		hostile)
			# 4 malformed or outside the range, 1 duplicate
			check hostile_counted_device test $(($(cat $SYS/stats/nic_rx_drop) - drop0)) -ge 5
			check hostile_counted_reported test "$(sed -n 's/.*, \([0-9]*\) dropped$/\1/p' "$OUT/$name.err")" -ge 5
			;;
		trunc)
			check trunc_waited exits_within 30 $tpid
			check trunc_applied_after test "$(stat -c %s "$f")" = 0
			;;
		esac
		check "barrier_${name}_b" barrier $n
		case $name in
		skip|loss|trunc) continue ;;
		esac
		check "received_$name" sh -c "for i in \$(seq 1 60); do nc $peer 7300 > $OUT/$name.back 2>/dev/null && [ -s $OUT/$name.back ] && break; sleep 0.5; done; cmp $OUT/$name.back $f"
		check "crc32c_$name" sh -c "[ \"\$(cut -d' ' -f1 $OUT/$name.out)\" = \"\$(crc32c $f | cut -d' ' -f1)\" ] && [ -n \"\$(cat $OUT/$name.out)\" ]"
	done
	# The snic goes (unbound) with a receive in flight: the remove
	# callback takes the engine's queues down, ENETDOWN, no hang, no WARN.
	recv_start gone "$OUT/r_gone" --bytes 65536 --timeout 120
	check rule_gone wait_rx_port $PORT
	snic_bdf=$(basename "$(readlink -f /sys/class/net/$if/device)")
	check unbind_snic sh -c "echo $snic_bdf > /sys/bus/pci/drivers/snic/unbind"
	check recv_gone_ends exits_within 30 $rpid
	wait $rpid
	check recv_gone_enetdown sh -c "[ \"\$(cat $OUT/gone.rc)\" = 1 ] && grep -q ENETDOWN $OUT/gone.err"
	check gone_no_rule_left sh -c "[ \$(cat $SYS/nic_rx_port) = 0 ]"
	check nothing_in_flight sh -c "[ \$(cat $SYS/stats/inflight) = 0 ]"
	check bind_snic sh -c "echo $snic_bdf > /sys/bus/pci/drivers/snic/bind"
	check hdc_unloads sh -c 'rmmod hdc && modprobe hdc'
else
	check ping_peer wait_ping "$peer" 30
	n=0
	for c in $CASES; do
		name=${c%%:*} rest=${c#*:} size=${rest%%:*} opt=$(echo "${rest#*:}" | tr _ ' ')
		n=$((n + 2))
		head -c "$size" /dev/urandom > /tmp/src
		check "barrier_${name}_a" barrier $((n - 1))
		case $name in
		skip|loss)
			# the receiver stops at the gap: the rest may be refused
			udpsend --d2d $opt /tmp/src 10.0.0.1 $PORT 2>/dev/null ;;
		*)
			check "send_$name" udpsend --d2d $opt /tmp/src 10.0.0.1 $PORT ;;
		esac
		check "barrier_${name}_b" barrier $n
		case $name in
		skip|loss|trunc) continue ;;
		esac
		serve /tmp/src
	done
fi
check dmesg_clean dmesg_clean
finish
