# RDMA completion timestamps through libsnic (docs/snic-rdma.md
# "Completion timestamps") in timing mode: snic-ts-test between the two
# ports of the guest checks the device clock's rate and value
# (ibv_query_device_ex, ibv_query_rt_values_ex), an extended CQ with
# IBV_WC_EX_WITH_COMPLETION_TIMESTAMP, and eight 64 KiB WRITEs that
# complete at increasing times, each between the clock reads around it.
# Forty WRITEs posted together complete, on average, the model's time per
# 64 KiB WRITE of a stream apart (timing.inc: the slower of wire and
# PCIe), within 5% (the mean gap from the 2nd to the 39th completion).
# vm-args: --guests 1 --timing
# timeout: 400
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc
. /opt/d2d/tests/timing.inc

timing_env
rdma_user_one_guest
timeout 120 snic-ts-test -d "$dev0" -e "$dev1" -P "guest/$T" > /tmp/ts.out 2>&1
tool_lines ts /tmp/ts.out
delta=$(sed -n 's/^stream_gap_ns=\([0-9]*\) .*/\1/p' /tmp/ts.out)
mtu=$(sed -n 's/^stream_gap_ns=.* mtu=\([0-9]*\)/\1/p' /tmp/ts.out)
want=$(timing_write_stream_ns "${mtu:-1024}")
if [ -n "$delta" ] &&
	awk -v d="$delta" -v w="$want" 'BEGIN {exit !(d * 100 >= w * 95 && d * 100 <= w * 105)}'; then
	pass stream_gap_modeled
else
	fail stream_gap_modeled "${delta:-no} ns between completions, model $want ns (MTU $mtu)"
fi
echo "  stream_gap_modeled: $delta ns, model $want ns at MTU $mtu"
check dmesg_clean dmesg_clean
finish
