# WQE-by-MMIO on RDMA QPs (docs/snic-rdma.md): stock perftest ib_send_lat
# between the two snic ports of one guest through libsnic.  By default
# libsnic writes each single small send WQE to the doorbell page as a
# WQE-by-MMIO line: the device's hw_counters mmio_wqe (lines taken) and
# wqe_fetch_saved (WQEs run from their line) grow by at least the
# iterations on RC, UC and UD QPs, mmio_wqe_errors does not.  With
# SNIC_MMIO_WQE=0 the same test rings 4-byte doorbells (mmio_doorbells
# grows) and takes no line.
# vm-args: --guests 1
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

N=100
rdma_user_one_guest
hw0() { cat "/sys/class/infiniband/$dev0/ports/1/hw_counters/$1" 2>/dev/null || echo 0; }
snap() { echo "$(hw0 mmio_wqe) $(hw0 wqe_fetch_saved) $(hw0 mmio_wqe_errors) $(hw0 mmio_doorbells)"; }

# lat NAME PORT ENV QP-TYPE: ib_send_lat with ENV on both sides; sets
# d_lines d_saved d_errs d_dbs to the deltas of snic #0's counters.
lat() {
	local a b
	a=$(snap)
	pair "$1" "$2" "$3 ib_send_lat -d $dev0 -x $gid0 -p $2 -c $4 -n $N -F" \
		"$3 ib_send_lat -d $dev1 -x $gid1 -p $2 -c $4 -n $N -F 127.0.0.1"
	b=$(snap)
	set -- $a $b
	d_lines=$(($5 - $1)) d_saved=$(($6 - $2)) d_errs=$(($7 - $3)) d_dbs=$(($8 - $4))
	echo "# lines $d_lines, fetch saved $d_saved, refused $d_errs, doorbells $d_dbs"
}

check counters_exist test -e "/sys/class/infiniband/$dev0/ports/1/hw_counters/mmio_wqe"
p=18800
for t in RC UC UD; do
	lat "send_lat_${t}_mmio" $p "" $t
	check "${t}_mmio_lines" test "$d_lines" -ge $N
	check "${t}_fetch_saved" test "$d_saved" -ge $N
	check "${t}_no_refused" test "$d_errs" -eq 0
	p=$((p + 1))
done
lat send_lat_RC_doorbell $p "SNIC_MMIO_WQE=0" RC
check RC_off_no_lines test "$d_lines" -eq 0
check RC_off_doorbells test "$d_dbs" -ge $N
check dmesg_clean dmesg_clean
finish
