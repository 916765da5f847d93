# Memory a user makes snic.ko pin for it is charged to its RLIMIT_MEMLOCK
# (docs/snic-ib.md, docs/snic-spin.md): as nobody with a small limit, a
# sPIN host region or RDMA rings larger than the limit are refused with
# ENOMEM (counted in sysfs pin_refused), smaller ones work; root
# (CAP_IPC_LOCK) is not limited.
# vm-args: --guests 1
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc
H=/usr/local/share/spin

spin_one_guest
sys=/sys/class/infiniband/$dev0/device
# limited KIB CMD...: CMD as nobody with RLIMIT_MEMLOCK = KIB KiB
limited() {
	local kb=$1
	shift
	sh -c "ulimit -l $kb && exec setpriv --reuid 65534 --regid 65534 --clear-groups \"\$@\"" sh "$@"
}
p0=$(cat "$sys/pin_refused")

region_refused() {
	limited 64 spinctl -d "$SPIN" run -r 1048576 -t 1 "$H/empty.elf" > /dev/null 2> /tmp/e &&
		{ echo "a 1 MiB region was added"; return 1; }
	grep -q 'adding a host region: Cannot allocate memory' /tmp/e || { cat /tmp/e; return 1; }
}
region_ok() { $1 spinctl -d "$SPIN" run -r "$2" -t 1 "$H/empty.elf" | grep -q '^ready '; }
nobody64() { limited 64 "$@"; }
rings_refused() {
	limited 16 timeout 30 ibv_rc_pingpong -d "$dev0" -g "$gid0" -p 18900 > /tmp/pp 2>&1 &&
		{ echo "ibv_rc_pingpong ran"; return 1; }
	grep -q "Couldn't create CQ" /tmp/pp || { cat /tmp/pp; return 1; }
}

check spin_region_over_limit region_refused
check spin_region_within_limit region_ok nobody64 16384
check spin_region_root region_ok env 4194304
# ibv_rc_pingpong's CQ (501 entries) and QP rings need 9 + 6 pages
check rings_over_limit rings_refused
limited 1024 timeout 60 ibv_rc_pingpong -d "$dev0" -g "$gid0" -p 18901 > /tmp/pp2 2>&1 &
pp=$!
check rings_within_limit wait_listen 18901
kill $pp 2>/dev/null; wait $pp 2>/dev/null
check pin_refused_counted sh -c "[ \$(cat $sys/pin_refused) -ge $((p0 + 2)) ] || cat $sys/pin_refused"
check dmesg_clean dmesg_clean
finish
