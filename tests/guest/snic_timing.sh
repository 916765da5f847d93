# Timing mode (docs/timing.md): the guest runs on instruction-counted
# virtual time and the snic completes its work on that clock after the
# cost model's delays.  Every figure below is virtual time as the guest's
# clock shows it, never the host's wall clock:
#  - 64 KiB RDMA WRITEs between the two ports stream at the model's pace:
#    within 5% of its time per message (timing.inc) and never above the
#    line rate;
#  - a 64 B RDMA READ takes at least the model's fixed latencies (two
#    PCIe read round trips, the cable and switch both ways: 1.6 us).
# vm-args: --guests 1 --timing
# timeout: 600
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc
. /opt/d2d/tests/timing.inc

timing_env
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

mtu=$(ibv_devinfo -d "$dev0" | awk '$1 == "active_mtu:" {print $2; exit}')
want=$(timing_write_stream_ns "${mtu:-1024}")
p=18720
pair write_bw $p "ib_write_bw -d $dev0 -x $gid0 -p $p -s 65536 -n 200 -F" \
	"ib_write_bw -d $dev1 -x $gid1 -p $p -s 65536 -n 200 -F 10.0.0.1"
# "#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]"
# (perftest's MB is 2^20 bytes); line rate: 100e9 / 8 / 2^20 = 11921
bw=$(awk '$1 == 65536 && NF >= 5 {print $4}' /tmp/pair.write_bw.c | tail -1)
lo=$(timing_mibs "$((want * 105 / 100))") hi=$(timing_mibs "$((want * 95 / 100))")
[ "$hi" -le 11921 ] || hi=11921
in_range write_bw_modeled "$bw" "$lo" "$hi" "MiB/s (model: $want ns per 64 KiB at MTU $mtu)"

p=18721
# READ: only the client polls (the server side is passive), so the one
# vCPU is not shared by two busy-polling programs
pair read_lat $p "ib_read_lat -d $dev0 -x $gid0 -p $p -s 64 -n 100 -F" \
	"ib_read_lat -d $dev1 -x $gid1 -p $p -s 64 -n 100 -F 10.0.0.1"
# "#bytes #iterations t_min[usec] t_max[usec] t_typical[usec] ..."
lat=$(awk '$1 == 64 && NF >= 5 {print $3}' /tmp/pair.read_lat.c | tail -1)
in_range read_lat_modeled "$lat" 1.6 50 "us (minimum round trip)"
finish
