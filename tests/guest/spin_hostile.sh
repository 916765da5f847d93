# Hostile handlers: guest 2 makes guest 1's "hostile" context (port 9300)
# loop forever, store through a wild pointer, run an illegal instruction,
# jump out of its code, DMA past and outside its host region, issue an
# over-long DMA, return a bad code and overflow its stack, interleaved with
# traffic for a well-behaved aggregate context (port 9301).  Each
# misbehaviour must be aborted and reported (event ring and counters) and
# the good context must lose nothing; the NIC keeps working.  Events
# arrive by interrupt: spinctl sleeps in poll() with no timeout, so the
# event lines it prints before it is stopped came through the sPIN EQ's
# interrupt waking poll(), with one EVENTS ioctl per wakeup (no polling).
# vm-args: --guests 2
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/spin.inc

MODES="L W I F H O C R S"
k=0
for m in $MODES; do
	gen_ints $((100 + k)) 128 > "/tmp/good$k.ints"
	k=$((k + 1))
done
cat /tmp/good*.ints > /tmp/good.all

spin_setup
if [ "$me" = 1 ]; then
	check start_hostile spin_start bad -p 9300 -r 4096 -w 20000 \
		--peek hostile_good:1 "$H/hostile.elf"
	check start_good spin_start good -p 9301 -r 4096 -o 0:/tmp/good.bin "$H/aggregate.elf"
	check barrier_1 barrier 1
	check barrier_2 barrier 2
	# guest 2 has sent everything: the 9 events show up within 10 s
	# while spinctl sits in poll(-1)
	check ev_via_poll sh -c 'for i in $(seq 1 100); do
		[ "$(grep -c "^event " /tmp/bad.out)" -ge 9 ] && exit 0
		sleep 0.1; done; exit 1'
	spin_stop bad
	spin_stop good
	ev() { grep -c "^event .*type=$1 " /tmp/bad.out; }
	expect ev_watchdog "$(ev watchdog)" 1
	expect ev_mem_fault "$(ev mem_fault)" 2
	expect ev_illegal "$(ev illegal)" 1
	expect ev_fetch_fault "$(ev fetch_fault)" 1
	expect ev_dma_fault "$(ev dma_fault)" 2
	expect ev_cmd_fault "$(ev cmd_fault)" 1
	expect ev_bad_return "$(ev bad_return)" 1
	expect ev_all_header "$(grep '^event ' /tmp/bad.out | grep -vc 'handler=header')" 0
	check watchdog_cycles sh -c "grep '^event .*type=watchdog' /tmp/bad.out |
		sed 's/.*cycles=//' | awk '{ exit !(\$1 >= 20000) }'"
	expect counters_by_event "$(grep '^events ' /tmp/bad.out | cut -d' ' -f3-)" \
		"watchdog=1 mem_fault=2 fetch_fault=1 illegal=1 dma_fault=2 cmd_fault=1 bad_return=1 msg_timeout=0"
	expect aborts "$(spin_field bad stats aborts)" 8
	# one event EQE per event; each wakeup costs one EVENTS ioctl, plus
	# the final drain (a 50 ms polling loop would have made hundreds)
	expect ev_notifies "$(spin_field bad evpoll notifies)" 9
	wk=$(spin_field bad evpoll wakeups)
	io=$(spin_field bad evpoll event_ioctls)
	wk=${wk:-0} io=${io:-999}
	check ev_wakeups_no_loop sh -c "[ $wk -ge 1 ] && [ $wk -le 9 ] &&
		[ $io -le $((wk + 1)) ] && exit 0
		echo 'wakeups=$wk event_ioctls=$io'; exit 1"
	check ev_irqs_counted sh -c "spinctl info | grep -q 'ev_irqs=[1-9]'"
	expect hostile_good "$(grep '^peek hostile_good' /tmp/bad.out | cut -d= -f2)" " 5"
	expect hostile_packets "$(spin_field bad stats packets)" 14
	# the good context: every packet, exact totals, no event
	ref=$(awk '{ s += $1 } END { printf "%.0f %.0f %d %d", s - int(s / 4294967296) * 4294967296, int(s / 4294967296), NR / 64, NR * 4 }' /tmp/good.all)
	got=$(spin-udp u32 /tmp/good.bin | head -4 | tr '\n' ' ' | sed 's/ $//')
	expect good_totals "$got" "$ref"
	expect good_aborts "$(spin_field good stats aborts)/$(spin_field good stats events)" 0/0
else
	check barrier_1 barrier 1
	k=0
	for m in $MODES; do
		echo "$m" > /tmp/mode
		spin-udp send 10.0.0.1 9300 -l /tmp/mode >/dev/null
		spin-udp send 10.0.0.1 9301 -i "/tmp/good$k.ints" -s 256 -g 1000 >/dev/null
		k=$((k + 1))
	done
	printf 'G\nG\nG\nG\nG\n' > /tmp/mode
	check sent_all spin-udp send 10.0.0.1 9300 -l /tmp/mode -g 1000
	# guest 1's NIC still receives and answers after all that
	check nic_still_works wait_ping 10.0.0.1 10
	check barrier_2 barrier 2
fi
check dmesg_clean dmesg_clean
finish
