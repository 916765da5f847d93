# Timing mode (docs/timing.md): the guest runs on instruction-counted
# virtual time and the snic completes its work on that clock after the
# cost model's delays.  Every figure below is virtual time as the guest's
# clock shows it, never the host's wall clock:
#  - 64 KiB RDMA WRITEs between the two ports stream at the wire's pace:
#    above 80% of the model's message rate (65536 B per 5350 ns of wire
#    at 100 Gbit/s) and never above the line rate;
#  - a 64 B RDMA WRITE takes at least the model's fixed latencies (a WQE
#    read round trip, two NIC pipelines, cable and switch: 1.3 us).
# vm-args: --guests 1 --timing
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

if [ "${D2D_TIMING:-0}" = 1 ] && [ -n "${D2D_ICOUNT_SHIFT:-}" ]; then
	pass timing_env
else
	fail timing_env "the guest was not booted with tools/vm --timing"
	finish
fi
rdma_user_one_guest

# in_range NAME VALUE LOW HIGH WHAT
in_range() {
	if awk -v v="$2" -v l="$3" -v h="$4" 'BEGIN {exit !(v != "" && v >= l && v <= h)}'; then
		pass "$1"
		echo "  $1: $2 $5 (expected $3..$4)"
	else
		fail "$1" "${2:-no figure} $5, expected $3..$4"
	fi
}

p=18720
pair write_bw $p "ib_write_bw -d $dev0 -x $gid0 -p $p -s 65536 -n 200 -F" \
	"ib_write_bw -d $dev1 -x $gid1 -p $p -s 65536 -n 200 -F 10.0.0.1"
# "#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]"
# (perftest's MB is 2^20 bytes): line rate 100e9 / 8 / 2^20 = 11921,
# the model's stream 65536 B / 5350 ns = 11682, 80% of it 9346.
bw=$(awk '$1 == 65536 && NF >= 5 {print $4}' /tmp/pair.write_bw.c | tail -1)
in_range write_bw_modeled "$bw" 9346 11921 "MiB/s"

p=18721
pair write_lat $p "ib_write_lat -d $dev0 -x $gid0 -p $p -s 64 -n 200 -F" \
	"ib_write_lat -d $dev1 -x $gid1 -p $p -s 64 -n 200 -F 10.0.0.1"
# "#bytes #iterations t_min[usec] t_max[usec] t_typical[usec] ..."
lat=$(awk '$1 == 64 && NF >= 5 {print $3}' /tmp/pair.write_lat.c | tail -1)
in_range write_lat_modeled "$lat" 1.3 20 "us (minimum one-way)"
finish
