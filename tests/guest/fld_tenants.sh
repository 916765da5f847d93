# FLD tenant isolation: fld (accel=iotauth) with fld.ko tenants=2 on snic
# #0 - tenant A (index 0) owns UDP port 5683, flow tag 1, tenant B (index
# 1) port 5684, flow tag 2; each has its own FLD-E RQ and SQ, the SQ its
# own snic rate limit, and FLD admits each RQ into an equal share of the
# accelerator's input FIFO.  From the other snic port (namespace p) A
# floods valid tokens far above its 400 kbit/s limit while B sends 100 at
# 20 per second: B's tokens all come back, A's answers are held at its
# rate (snic's counters of A's SQ), FLD's input drops are A's only.
# vm-args: --guests 1 --qemu-arg -device --qemu-arg fld,id=fld0,accel=iotauth
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

KEY=67756573742d74656e616e742d312d686d61632d6b65792d30313233343536373839
HDR=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9
CLAIMS=eyJzdWIiOiJzZW5zb3ItMSIsImlhdCI6MTcwMDAwMDAwMH0
GOOD=$HDR.$CLAIMS.eargWRSKTV1wTljs6NRoZOvOf1SbJApxAFcARA1UCHw
RATE=400000

snic_pair_netns

check modprobe_fld modprobe fld snic="$if0" udp_port=5683 tenant=1 tenants=2
fldctl show | sed 's/^/# /'
check tenant_a sh -c "fldctl show | grep -q 'udp_port 5683 tenant 1'"
check tenant_b sh -c "fldctl show | grep -q 'udp_port 5684 tenant 2'"
check key_a fldctl key 1 "$KEY"
check key_b fldctl key 2 "$KEY"
check rate_a fldctl rate 0 $RATE
check rate_bad_tenant sh -c "! fldctl rate 2 1000"
check rate_shown sh -c "fldctl tenants | grep -q '^tenant 0 .* rate_bps $RATE '"
check a_passes ip netns exec p fld-udp coap 10.0.0.1 5683 "$GOOD"
check b_passes ip netns exec p fld-udp coap 10.0.0.1 5684 "$GOOD"

# tval K FIELD: FIELD of tenant K's line in fldctl tenants
tval() {
	fldctl tenants | awk -v k="$1" -v f="$2" \
		'$2 == k { for (i = 3; i < NF; i += 2) if ($i == f) print $(i + 1) }'
}
a_bytes0=$(tval 0 sq_bytes)
t0=$(date +%s.%N)
ip netns exec p fld-udp coap-load 10.0.0.1 5683 "$GOOD" 40000 0 > /tmp/a.out &
apid=$!
ip netns exec p fld-udp coap-load 10.0.0.1 5684 "$GOOD" 100 50000 > /tmp/b.out
wait $apid
t1=$(date +%s.%N)
a_bytes1=$(tval 0 sq_bytes)
fldctl tenants | sed 's/^/# /'
echo "# A: $(cat /tmp/a.out)"
echo "# B: $(cat /tmp/b.out)"

set -- $(cat /tmp/b.out)
check b_all_sent test "${2:-0}" -eq 100
check b_answered_95 test "${4:-0}" -ge 95
set -- $(cat /tmp/a.out)
a_sent=${2:-0} a_got=${4:-0}
check a_flooded test "$a_sent" -gt 1000
check a_held test "$a_got" -lt "$a_sent"
# A's answers went out at no more than its rate (plus the 10 ms bucket's
# floor of two jumbo frames), and the limiter kept it busy (>= 30%).
a_bytes=$((a_bytes1 - a_bytes0))
limit=$(awk -v t0="$t0" -v t1="$t1" -v r=$RATE \
	'BEGIN { printf "%d", r / 8 * (t1 - t0) * 1.1 + 2 * 9100 + 4096 }')
floor=$(awk -v t0="$t0" -v t1="$t1" -v r=$RATE \
	'BEGIN { printf "%d", r / 8 * (t1 - t0 - 4) * 0.3 }')
echo "# A's SQ bytes $a_bytes in $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s: limit $limit floor $floor"
check a_rate_capped test "$a_bytes" -le "$limit"
check a_rate_used test "$a_bytes" -ge "$floor"
check a_drops_counted test "$(tval 0 accel_drops)" -gt 0
check b_no_drops test "$(tval 1 accel_drops)" -eq 0
check b_rq_no_drops test "$(tval 1 rq_drops)" -eq 0
check b_tx_counted test "$(tval 1 accel_tx)" -ge 96
check drops_total test "$(fldctl get accel_rx_drops)" -eq "$(tval 0 accel_drops)"
check rate_off fldctl rate 0 0
# tenant 1's port would be 65536: refused, the rules stay as they were
check port_overflow_refused sh -c "! fldctl flow udp 65535"
check ports_kept sh -c "fldctl show | grep -q 'udp_port 5684 tenant 2'"
check b_still_passes ip netns exec p fld-udp coap 10.0.0.1 5684 "$GOOD"
check rmmod_fld rmmod fld
ip netns del p
check rmmod_snic snic_rmmod
check dmesg_clean dmesg_clean
finish
