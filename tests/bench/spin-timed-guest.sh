# Guest half of TIMING=1 tests/bench/spin.sh: one guest in timing mode
# (tools/vm --timing: one clock for both endpoints, docs/timing.md).
# snic's first port (10.0.0.1) runs the sPIN contexts and the host UDP
# echo; the second port, in network namespace p (10.0.0.2), sends.  Per
# example (64, 512, 1024-byte frames): the engine's statistics (its cycle
# account: HPU cycles, the interconnect, L2 banks); then ping-pong answered
# by the pingpong handler against the host's spin-udp echo, round trips
# on the guest's clock (the virtual clock under icount).  Lines: "BENCH ...".
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/spin.inc

N=${SPIN_BENCH_PKTS:-200}
EXAMPLES="pingpong empty"
SIZES="64 512 1024"		# Ethernet frame bytes (without FCS)
PING_N=${SPIN_BENCH_PINGS:-300}

snic_pair_netns > /tmp/up.log 2>&1 ||
	{ echo "BENCH-ERROR setup: $(tail -1 /tmp/up.log)"; exit 1; }
[ -c "$SPIN_DEV" ] || { echo "BENCH-ERROR no $SPIN_DEV"; exit 1; }
h() { spin_field "$1" handler "$2" "kind=$3"; }
p=9500
for ex in $EXAMPLES; do
	extra=""
	[ $ex = pingpong ] && extra="--send"
	for s in $SIZES; do
		spin_start "$ex-$s" -p $p -q $extra "$H/$ex.elf" ||
			{ echo "BENCH-ERROR $ex-$s: $(cat "/tmp/$ex-$s.err")"; continue; }
		ip netns exec p spin-udp send 10.0.0.1 $p -n "$N" -s $((s - 42)) > /dev/null
		sleep 1
		spin_stop "$ex-$s"
		echo "BENCH ex=$ex size=$s packets=$(spin_field "$ex-$s" stats packets)" \
			"busy=$(spin_field "$ex-$s" stats busy_cycles busy_cycles=)" \
			"sat_mbps=$(spin_field "$ex-$s" stats sat_mbps sat_mbps=)" \
			"hn=$(h "$ex-$s" invocations header) pn=$(h "$ex-$s" invocations payload)" \
			"cn=$(h "$ex-$s" invocations completion)"
		p=$((p + 1))
	done
done
spin_start rtt -p 9599 -q --send "$H/pingpong.elf" || echo "BENCH-ERROR rtt context"
spin-udp echo 9600 -n "$PING_N" -t 300 > /tmp/echo.out 2>&1 &
echo "BENCH-RTT nic $(ip netns exec p spin-udp ping 10.0.0.1 9599 -n "$PING_N" -s 22 -r 1000)"
echo "BENCH-RTT host $(ip netns exec p spin-udp ping 10.0.0.1 9600 -n "$PING_N" -s 22 -r 1000)"
spin_stop rtt
echo "BENCH-DONE"
