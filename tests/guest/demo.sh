# make demo: the four systems of d2d, each doing its job, one result line
# each.  One guest: two snic ports on a hub (the second in its own network
# namespace for the Ethernet parts), an FLD, and the HDC engine with its
# NVMe SSD (tools/vm --hdc, the disk of tools/mkdisk.sh).
#   rdma   ibv_rc_pingpong and ib_write_bw between the two snic ports
#   spin   the pingpong handler answers UDP on the NIC; its cycle count
#   fld    FLD-E echo with the host CPU idle (snic #0's interrupts and
#          receive counters do not move)
#   hdc    d2d copy and d2d digest on the engine; sha256 equals sha256sum's
# Each system prints "PASS <system>: <result>" or "FAIL <system>: <why>";
# the output of every command is kept in /tmp/demo-<system>.log and shown
# after a failure.  D2D_DEMO_LOG is the host path of this console log.
# make check runs it too (guest tier), with test names guest/demo/<system>.
# vm-args: --hdc @DISK@ --qemu-arg -device --qemu-arg fld,id=fld0
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc
. /opt/d2d/tests/spin.inc
. /opt/d2d/tests/hdc.inc

failed=0
# The test helpers end the script on a failed setup; here a failed setup
# fails its system only.
finish() { return 1; }

# result SYSTEM STATUS TEXT: one line per system; on failure the system's
# command log follows and the line says where the console log is.
result() {
	local name=${D2D_TEST:+guest/$D2D_TEST/}$1
	if [ "$2" = 0 ]; then
		echo "PASS $name: $3"
	else
		echo "FAIL $name: $3 (log: ${D2D_DEMO_LOG:-this console}; /tmp/demo-$1.log follows)"
		sed 's/^/  | /' "/tmp/demo-$1.log" | tail -30
		failed=1
	fi
}

# run SYSTEM CMD...: CMD's output appended to the system's log.
run() {
	local s=$1
	shift
	echo "+ $*" >> "/tmp/demo-$s.log"
	"$@" >> "/tmp/demo-$s.log" 2>&1
}

echo "== d2d demo =="
n=$(lspci -n | grep -c '1234:d201')
echo "   $n snic port(s), $(lspci -n | grep -c '1234:d202') fld, $(lspci -n | grep -c '1234:d203') hdc"

# --- RDMA: stock ibverbs-utils and perftest between the two snic ports ---
: > /tmp/demo-rdma.log
rc=1 text="setup failed: two snic ports with RoCE v2 GIDs"
rdma_user_one_guest >> /tmp/demo-rdma.log 2>&1
if [ -n "${gid1:-}" ]; then
	pair pp 18515 "ibv_rc_pingpong -d $dev0 -g $gid0 -p 18515 -s 4096 -n 100" \
		"ibv_rc_pingpong -d $dev1 -g $gid1 -p 18515 -s 4096 -n 100 127.0.0.1" \
		>> /tmp/demo-rdma.log 2>&1
	pp=$(sed -n 's/.*iters in [0-9.]* seconds = \([0-9.]*\) usec\/iter.*/\1/p' /tmp/pair.pp.c)
	pair bw 18516 "ib_write_bw -d $dev0 -x $gid0 -p 18516 -s 65536 -n 200 -F" \
		"ib_write_bw -d $dev1 -x $gid1 -p 18516 -s 65536 -n 200 -F 127.0.0.1" \
		>> /tmp/demo-rdma.log 2>&1
	bw=$(awk '$1 == 65536 && NF >= 5 { v = $4 } END { print v }' /tmp/pair.bw.c)
	cat /tmp/pair.pp.c /tmp/pair.bw.c >> /tmp/demo-rdma.log
	if grep -q '^FAIL ' /tmp/demo-rdma.log; then
		text="$(grep -m1 '^FAIL ' /tmp/demo-rdma.log | cut -d' ' -f2-)"
	elif [ -n "$pp" ] && [ -n "$bw" ]; then
		rc=0 text="ibv_rc_pingpong 4 KiB: $pp us/iter; ib_write_bw 64 KiB: $bw MB/s ($dev0 <-> $dev1; emulated time)"
	else
		text="no figures in the ping-pong or ib_write_bw output"
	fi
fi
result rdma $rc "$text"

# The Ethernet parts: the second port moves to namespace p (the peer host).
: > /tmp/demo-net.log
snic_pair_netns >> /tmp/demo-net.log 2>&1

# --- sPIN: the NIC answers UDP ping-pong, the host never sees it ---
: > /tmp/demo-spin.log
rc=1 text="spinctl did not start"
if run spin spin_start pp --send -p 9000 -c 1536 "$H/pingpong.elf"; then
	run spin ip netns exec p spin-udp ping 10.0.0.1 9000 -n 20 -s 64 -r 2000
	m=$(sed -n 's/.*matched=\([0-9]*\).*/\1/p' /tmp/demo-spin.log | tail -1)
	spin_stop pp >> /tmp/demo-spin.log 2>&1
	cat /tmp/pp.out >> /tmp/demo-spin.log
	cyc=$(spin_field pp handler cycles_mean kind=header)
	ins=$(spin_field pp handler insns_mean kind=header)
	if [ "${m:-0}" = 20 ] && [ -n "$cyc" ]; then
		rc=0 text="20/20 echoes answered by the NIC's header handler, $ins instructions, $cyc cycles per packet"
	else
		text="matched ${m:-0}/20 echoes"
	fi
fi
result spin $rc "$text"

# --- FLD-E: the FLD echoes UDP port 7 through snic #0, no host CPU ---
: > /tmp/demo-fld.log
rc=1 text="fld.ko did not load"
if run fld modprobe fld snic="$if0" udp_port=7; then
	i0=$(host_irqs "$if0") r0=$(ethsum "$if0" 'rx[0-9]+_packets') e0=$(fldctl get accel_tx)
	if run fld ip netns exec p fld-udp ping 10.0.0.1 7 500 256 16; then
		i1=$(host_irqs "$if0") r1=$(ethsum "$if0" 'rx[0-9]+_packets') e1=$(fldctl get accel_tx)
		di=$((i1 - i0)) dr=$((r1 - r0)) de=$((e1 - e0))
		if [ $de -eq 500 ] && [ $di -lt 20 ] && [ $dr -lt 20 ]; then
			rc=0 text="500/500 datagrams echoed by the FLD; host $if0: +$di interrupts, +$dr packets received"
		else
			text="echoed $de/500, host $if0 +$di interrupts, +$dr packets"
		fi
	else
		text="fld-udp ping failed"
	fi
	run fld rmmod fld
fi
result fld $rc "$text"

# --- HDC: the engine copies and digests a file on the SSD by itself ---
: > /tmp/demo-hdc.log
rc=1 text="hdc setup failed"
if run hdc hdc_setup; then
	f=$T_DIR/1m1
	if run hdc d2d copy "$f" "$OUT/demo" && run hdc cmp "$f" "$OUT/demo"; then
		ours=$(d2d digest --sha256 "$f" 2>> /tmp/demo-hdc.log | cut -d' ' -f1)
		ref=$(sha256sum "$f" | cut -d' ' -f1)
		echo "d2d $ours sha256sum $ref" >> /tmp/demo-hdc.log
		if [ -n "$ours" ] && [ "$ours" = "$ref" ]; then
			rc=0 text="d2d copy of $(stat -c %s "$f") B byte-identical; d2d digest --sha256 = sha256sum = ${ref%"${ref#????????????????}"}..."
		else
			text="sha256 differs: d2d '$ours' vs sha256sum '$ref'"
		fi
	else
		text="d2d copy failed"
	fi
fi
result hdc $rc "$text"

if [ $failed = 0 ]; then
	echo "== d2d demo: all four systems PASS =="
else
	echo "== d2d demo: FAILED (see the lines above) =="
fi
exit $failed
