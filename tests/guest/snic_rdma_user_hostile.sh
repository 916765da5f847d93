# A hostile process writes garbage WQEs straight into its mapped snic rings
# and rings its doorbell page (bad opcodes and ds_cnt, foreign and
# bus-address lkeys, huge lengths, inline overflow, bad receive WQEs,
# random bytes, lying doorbells): it gets error completions, while a
# well-behaved ping-pong on the same ports runs on undisturbed and the
# NIC keeps working afterwards; no QEMU crash, no kernel oops.  Then it
# plays a hostile peer from the second port (snic-hostile -S): RoCE
# packets with spoofed sources, guessed PSNs and the real rkey (WRITE,
# READ, atomics, SEND with invalidate) at the connected QP, random QPNs,
# corrupted frames and garbage UDP to a port where a sPIN context
# listens: the victim's memory stays byte-identical, the connection keeps
# working, every spoofed packet is counted (rx_bad_src), the sPIN
# context survives.
# vm-args: --guests 1
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_one_guest
# The bystander: an RC ping-pong between the same two ports.
timeout 200 ibv_rc_pingpong -d "$dev0" -g "$gid0" -p 18800 -s 1024 -n 300 > /tmp/by.s 2>&1 &
bs=$!
wait_listen 18800
timeout 200 ibv_rc_pingpong -d "$dev1" -g "$gid1" -p 18800 -s 1024 -n 300 127.0.0.1 > /tmp/by.c 2>&1 &
bc=$!

H=/usr/local/share/spin
SPIN=$(spin_dev_of "$dev0") || fail spin_dev "no spin device on $dev0"
spinctl -d "$SPIN" run -p 9777 "$H/empty.elf" > /tmp/spin.out 2>&1 &
sp=$!
timeout 200 snic-hostile -d "$dev0" -D "$dev1" -S -u 9777 -P "guest/$T/hostile" > /tmp/hostile 2>&1
tool_lines hostile /tmp/hostile
kill -TERM $sp 2>/dev/null
wait $sp && grep -q '^stats ' /tmp/spin.out && pass spin_context_survives ||
	fail spin_context_survives "$(tail -1 /tmp/spin.out)"

wait $bs; rs=$?
wait $bc; rc=$?
if [ $rs = 0 ] && [ $rc = 0 ]; then
	pass bystander_pingpong
else
	fail bystander_pingpong "server rc $rs: $(tail -1 /tmp/by.s); client rc $rc: $(tail -1 /tmp/by.c)"
fi
verbs_pair verbs_after 18601 "$dev0" "$dev1" -t rc_send,rc_write,rc_read,rc_atomic_faa
check dmesg_clean dmesg_clean
finish
