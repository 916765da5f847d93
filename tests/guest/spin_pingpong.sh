# sPIN ping-pong: guest 2's UDP datagrams to port 9000 of guest 1 are
# answered by guest 1's NIC (the pingpong header handler turns them around
# and sends them back); guest 1's host never sees them.  Checks: every echo
# comes back byte-identical at 64, 512 and 1024 B; the context's counters
# (60 header invocations, 60 sends, 60 drops, no passes, no aborts); no
# datagram reached a host socket on port 9000.
# vm-args: --guests 2
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/spin.inc

spin_setup
if [ "$me" = 1 ]; then
	check spinctl_info sh -c "spinctl info | grep -q 'clusters=4 hpus_per_cluster=8 hpus=32 clock_mhz=1000'"
	check start spin_start pp -p 9000 -c 1536 --send "$H/pingpong.elf"
	spin-udp recv 9000 -t 60 -n 1 -o /tmp/host9000 > /tmp/recv9000.out 2>&1 &
	check barrier_1 barrier 1
	check barrier_2 barrier 2
	spin_stop pp
	expect header_invocations "$(spin_field pp handler invocations kind=header)" 60
	expect sends "$(spin_field pp stats sends sends=)" 60
	expect drops "$(spin_field pp stats drop)" 60
	expect passes "$(spin_field pp stats pass)" 0
	expect aborts "$(spin_field pp stats aborts)" 0
	expect host_saw_nothing "$(cat /tmp/host9000 2>/dev/null | wc -c)" 0
	check insns_per_packet sh -c "[ 0$(spin_field pp handler insns_max kind=header) -gt 10 ] &&
		[ 0$(spin_field pp handler insns_max kind=header) -lt 200 ]"
else
	check barrier_1 barrier 1
	for s in 64 512 1024; do
		out=$(spin-udp ping 10.0.0.1 9000 -n 20 -s $s -r 2000)
		expect "echo_$s" "$(echo "$out" | sed -n 's/.*matched=\([0-9]*\).*/\1/p')" 20
	done
	check barrier_2 barrier 2
fi
check dmesg_clean dmesg_clean
finish
