# The guest image has the tools and modules a Debian machine with these
# packages has: tcpdump (dropping to its own user), ibstat/ibstatus,
# rdmacm-utils' mckey, rstream, riostream, rcopy and cmtime, bpftool,
# xdp-tools, setpriv, and the 8021q, mqprio, ingress, fq, flower and gact
# modules.  Each tool runs; tcpdump captures the snic port's traffic.
# vm-args: --guests 1
# timeout: 180
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

# runs NAME CMD...: CMD starts and prints its usage or version (status 0,
# or the usage status its authors chose, as long as it printed something).
runs() {
	local name=$1 out
	shift
	out=$("$@" 2>&1)
	if [ -n "$out" ] && ! echo "$out" | grep -qiE 'not found|no such file|error while loading'; then
		pass "runs_$name"
	else
		fail "runs_$name" "$(echo "$out" | tail -1)"
	fi
}

for t in tcpdump ibstat ibstatus mckey rstream riostream rcopy cmtime bpftool \
	xdp-loader xdp-filter xdpdump setpriv socat; do
	check "present_$t" sh -c "command -v $t"
done
runs tcpdump tcpdump --version
runs ibstat ibstat -V
runs mckey mckey -h
runs rstream rstream -h
runs riostream riostream -h
runs rcopy rcopy -h
runs cmtime cmtime -h
runs bpftool bpftool version
runs xdp_loader xdp-loader help
runs setpriv setpriv --version
check setpriv_nobody sh -c '[ "$(setpriv --reuid nobody --regid nogroup --clear-groups id -u)" = 65534 ]'
for m in 8021q sch_mqprio sch_ingress sch_fq cls_flower act_gact; do
	check "modprobe_$m" modprobe "$m"
done

snic_pair_netns
# tcpdump drops to its user after opening the capture.
tcpdump -n -i "$if0" -c 4 -w /tmp/cap.pcap icmp > /tmp/tcpdump.out 2>&1 &
tpid=$!
sleep 1
ping -c 4 -i 0.2 10.0.0.2 > /dev/null 2>&1
for i in $(seq 1 50); do kill -0 $tpid 2>/dev/null || break; sleep 0.1; done
kill $tpid 2>/dev/null
check tcpdump_captured sh -c "tcpdump -n -r /tmp/cap.pcap 2>/dev/null | grep -c 'ICMP echo' | grep -qv '^0$'"
check tcpdump_user sh -c "grep -q '^tcpdump:' /etc/passwd"
modprobe ib_umad
check ibstat_snic sh -c "ibstat 2>&1 | grep -q 'snic'"
ip netns del p
check rmmod_snic snic_rmmod
check dmesg_clean dmesg_clean
finish
