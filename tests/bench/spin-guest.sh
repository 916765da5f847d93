# Guest half of tests/bench/spin.sh.  Guest 1 runs every example on three
# contexts (one per packet size), guest 2 sends each of them the same
# number of packets; guest 1 prints each context's counters as BENCH lines.
# Then NIC ping-pong against a host UDP echo (spin-udp echo) on guest 1:
# guest 2 measures the round trips, guest 1 marks its instruction count.
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/spin.inc

N=${SPIN_BENCH_PKTS:-200}
EXAMPLES="pingpong reduce aggregate histogram filtering kvstore strided empty"
SIZES="64 512 1024"		# Ethernet frame bytes (without FCS)
PING_N=${SPIN_BENCH_PINGS:-300}
# microseconds between datagrams: faster, and the loopback socket that is
# the wire drops what guest 1's QEMU cannot take in time (TCG, shared CPUs)
GAP=${SPIN_BENCH_GAP:-1000}

snic_eth_up || { echo "BENCH-ERROR snic port did not come up"; exit 1; }
[ -c "$SPIN_DEV" ] || { echo "BENCH-ERROR no $SPIN_DEV"; exit 1; }

port() { echo $((9500 + 3 * $1 + $2)); }

if [ "$me" = 1 ]; then
	i=0
	for ex in $EXAMPLES; do
		j=0
		for s in $SIZES; do
			extra=""
			case $ex in
			# handlers that answer: raw sends (spinctl --send)
			pingpong|kvstore) extra="--send" ;;
			reduce|aggregate|histogram) extra="-r 4096" ;;
			strided) extra="-r 1048576" ;;
			filtering) extra="--poke filter_rules=10.0.0.2,1,0 --poke filter_nrules=1" ;;
			esac
			# shellcheck disable=SC2086
			spin_start "$ex-$s" -p "$(port $i $j)" -q $extra "$H/$ex.elf" ||
				echo "BENCH-ERROR $ex-$s: $(cat "/tmp/$ex-$s.err")"
			j=$((j + 1))
		done
		i=$((i + 1))
	done
	# ping-pong round trips: the NIC on 9599, the host echo on 9600
	spin_start rtt -p 9599 -q --send "$H/pingpong.elf" || echo "BENCH-ERROR rtt context"
	spin-udp echo 9600 -n "$PING_N" -t 300 > /tmp/echo.out 2>&1 &
	barrier 1 || exit 1
	barrier 2 || exit 1
	for ex in $EXAMPLES; do
		for s in $SIZES; do
			spin_stop "$ex-$s"
			f="/tmp/$ex-$s.out"
			h() { spin_field "$ex-$s" handler "$1" "kind=$2"; }
			echo "BENCH ex=$ex size=$s packets=$(spin_field "$ex-$s" stats packets)" \
				"busy=$(spin_field "$ex-$s" stats busy_cycles busy_cycles=)" \
				"sat_mbps=$(spin_field "$ex-$s" stats sat_mbps sat_mbps=)" \
				"aborts=$(spin_field "$ex-$s" stats aborts)" \
				"no_res=$(spin_field "$ex-$s" stats no_resources)" \
				"hi=$(h insns header) hc=$(h cycles header) hn=$(h invocations header)" \
				"pi=$(h insns payload) pc=$(h cycles payload) pn=$(h invocations payload)" \
				"ci=$(h insns completion) cc=$(h cycles completion) cn=$(h invocations completion)" \
				"himax=$(h insns_max header)"
			[ -s "$f" ] || echo "BENCH-ERROR $ex-$s: no output"
		done
	done
	# ping-pong: NIC vs the host echo; guest 1's instructions between marks
	barrier 3 || exit 1
	insn-mark 10
	barrier 4 || exit 1
	insn-mark 11
	barrier 5 || exit 1
	insn-mark 20
	barrier 6 || exit 1
	insn-mark 21
	spin_stop rtt
	echo "BENCH-NIC $(spin_field rtt stats sends sends=) sends"
	wait
	echo "BENCH-ECHO $(tail -1 /tmp/echo.out)"
	echo "BENCH-DONE"
else
	printf 'SET k1 v1\n' > /tmp/kvset
	barrier 1 || exit 1
	i=0
	for ex in $EXAMPLES; do
		j=0
		for s in $SIZES; do
			p=$(port $i $j)
			pl=$((s - 42))
			case $ex in
			pingpong)
				spin-udp ping 10.0.0.1 "$p" -n "$N" -s $pl -r 1000 > /dev/null ;;
			kvstore)
				spin-udp send 10.0.0.1 "$p" -l /tmp/kvset -r 200 > /dev/null
				awk -v n="$N" -v w=$pl 'BEGIN { f = "%-" w "s\n"; for (i = 0; i < n; i++) printf f, "GET k1" }' > /tmp/kvget
				spin-udp send 10.0.0.1 "$p" -l /tmp/kvget -r 1000 > /dev/null ;;
			strided)
				head -c $((N * (pl - 4))) /dev/zero | tr '\0' 'x' > /tmp/sdata
				spin-udp send 10.0.0.1 "$p" -f /tmp/sdata -O -s $pl -g "$GAP" > /dev/null ;;
			*)
				spin-udp send 10.0.0.1 "$p" -n "$N" -s $pl -g "$GAP" > /dev/null ;;
			esac
			j=$((j + 1))
		done
		i=$((i + 1))
	done
	sleep 1
	barrier 2 || exit 1
	barrier 3 || exit 1
	echo "BENCH-RTT nic $(spin-udp ping 10.0.0.1 9599 -n "$PING_N" -s 22 -r 1000)"
	barrier 4 || exit 1
	barrier 5 || exit 1
	echo "BENCH-RTT host $(spin-udp ping 10.0.0.1 9600 -n "$PING_N" -s 22 -r 1000)"
	barrier 6 || exit 1
fi
exit 0
