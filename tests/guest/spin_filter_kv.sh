# sPIN filtering and kvstore, guest 1 runs the handlers, guest 2 sends.
# filtering (9100): a hash table on the source IP (rules written with
# spinctl --poke): 10.0.0.3 dropped on the NIC, 10.0.0.4 rewritten to port
# 9101 and passed with checksums refilled, others (10.0.0.2, 10.0.0.5)
# passed unchanged; guest 1's sockets on 9100/9101 must see exactly that.
# kvstore (9200): SETs go through the NIC cache to a host server
# (spin-udp kv), GET hits are answered by the NIC, misses by the host;
# every answer is checked, and the hit/miss split against the counters.
# A second kvstore context (9201) gets 300 keys, more than its 256 ways:
# evicted keys must still get the right answer (from the host).
# vm-args: --guests 2
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/spin.inc

# kvstore requests and the answers they must get, on both guests
: > /tmp/kv.req
: > /tmp/kv.ref
for i in 1 2 3 4 5 6 7 8; do
	echo "SET k$i val$i" >> /tmp/kv.req
	echo "STORED k$i" >> /tmp/kv.ref
done
for i in 1 2 3 4 5 6 7 8; do
	echo "GET k$i" >> /tmp/kv.req
	echo "VALUE k$i val$i" >> /tmp/kv.ref
done
printf 'GET h1\nGET h2\nGET nope1\nGET nope2\n' >> /tmp/kv.req
printf 'VALUE h1 hostonly1\nVALUE h2 hostonly2\nNOTFOUND nope1\nNOTFOUND nope2\n' >> /tmp/kv.ref
awk 'BEGIN { for (i = 1; i <= 300; i++) printf "SET x%d val%d\n", i, i * 7
	for (i = 1; i <= 300; i++) printf "GET x%d\n", i }' > /tmp/kv2.req
awk 'BEGIN { for (i = 1; i <= 300; i++) printf "STORED x%d\n", i
	for (i = 1; i <= 300; i++) printf "VALUE x%d val%d\n", i, i * 7 }' > /tmp/kv2.ref

spin_setup
if [ "$me" = 1 ]; then
	check start_filter spin_start filt -p 9100 \
		--poke filter_rules=10.0.0.3,1,0,10.0.0.4,2,9101 --poke filter_nrules=2 \
		--peek filter_stats:4 "$H/filtering.elf"
	spin-udp recv 9100 -n 10 -t 60 -o /tmp/r9100 > /tmp/recv9100.out 2>&1 &
	r1=$!
	spin-udp recv 9101 -n 5 -t 60 -o /tmp/r9101 > /tmp/recv9101.out 2>&1 &
	r2=$!
	printf 'h1 hostonly1\nh2 hostonly2\n' > /tmp/kv.preload
	spin-udp kv 9200 -f /tmp/kv.preload -t 60 > /tmp/kvhost.out 2>&1 &
	kv=$!
	check start_kvstore spin_start kv -p 9200 --send --peek kv_stats:4 "$H/kvstore.elf"
	spin-udp kv 9201 -t 60 > /tmp/kvhost2.out 2>&1 &
	kv2=$!
	check start_kvstore_2 spin_start kv2 -p 9201 --send --peek kv_stats:4 "$H/kvstore.elf"
	check barrier_1 barrier 1
	check barrier_2 barrier 2
	spin_stop filt
	spin_stop kv
	spin_stop kv2
	wait $r1 $r2
	n() { grep -c "src=$2 " "$1" 2>/dev/null; }
	expect filter_unknown_passed "$(n /tmp/r9100 10.0.0.2)/$(n /tmp/r9100 10.0.0.5)" 5/5
	expect filter_dropped "$(n /tmp/r9100 10.0.0.3)/$(n /tmp/r9101 10.0.0.3)" 0/0
	expect filter_rewritten "$(n /tmp/r9101 10.0.0.4)/$(n /tmp/r9100 10.0.0.4)" 5/0
	expect filter_counters "$(grep '^peek filter_stats' /tmp/filt.out | cut -d= -f2)" " 5 5 10 0"
	expect filter_ctx_drop_pass "$(spin_field filt stats drop)/$(spin_field filt stats pass)" 5/15
	kill $kv $kv2
	wait $kv $kv2 2>/dev/null
	# hits 8, misses 4, sets 8, bad 0
	expect kv_counters "$(grep '^peek kv_stats' /tmp/kv.out | cut -d= -f2)" " 8 4 8 0"
	expect kv_nic_sends "$(spin_field kv stats sends sends=)" 8
	# hits + misses = 300 GETs, some evicted (misses), most not
	set -- $(grep '^peek kv_stats' /tmp/kv2.out | cut -d= -f2)
	expect kv_evict_gets "$(($1 + $2))/$3/$4" 300/300/0
	check kv_evict_split sh -c "[ ${1:-0} -ge 150 ] && [ ${2:-0} -ge 1 ]"
else
	for a in 3 4 5; do ip addr add "10.0.0.$a/24" dev "$if"; done
	check barrier_1 barrier 1
	for a in 2 3 4 5; do
		check "send_from_$a" spin-udp send 10.0.0.1 9100 -b "10.0.0.$a" -n 5 -s 100 -g 1000
	done
	check kv_requests sh -c "spin-udp send 10.0.0.1 9200 -l /tmp/kv.req -r 3000 -o /tmp/kv.rep"
	check kv_answers cmp /tmp/kv.ref /tmp/kv.rep
	check kv_evict_requests sh -c "spin-udp send 10.0.0.1 9201 -l /tmp/kv2.req -r 3000 -o /tmp/kv2.rep"
	check kv_evict_answers cmp /tmp/kv2.ref /tmp/kv2.rep
	check barrier_2 barrier 2
fi
check dmesg_clean dmesg_clean
finish
