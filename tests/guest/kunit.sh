# The KUnit suites built into our modules when the kernel has KUnit
# (kernel/snic/snic_ib_kunit.c: snic_ib's WQE builder, opcode and syndrome
# maps; kernel/hdc/hdc_kunit.c: hdc's segment merging, output bound and
# extent slicing).  A suite runs when its module loads; its KTAP results
# are read from debugfs, one PASS/FAIL line per case.  Needs a kernel with
# CONFIG_KUNIT (make check-debug's debug kernel); SKIP on the stock kernel.
. /opt/d2d/tests/lib.sh

DBG=/sys/kernel/debug
mountpoint -q $DBG || mount -t debugfs none $DBG 2>/dev/null
if [ ! -d $DBG/kunit ]; then
	skip kunit "kernel without CONFIG_KUNIT (make check-debug's kernel has it)"
	finish
fi

modprobe snic_ib && pass load_snic_ib || fail load_snic_ib "modprobe snic_ib"
modprobe hdc && pass load_hdc || fail load_hdc "modprobe hdc"

# suite MODULE SUITE CASES: every case ran and passed
suite() {
	local r=$DBG/kunit/$2/results want=$3 n=0 line res name
	if [ ! -f "$r" ]; then
		fail "$2" "no results in debugfs: suite not built into $1.ko"
		return
	fi
	sed 's/^[[:space:]]*//' "$r" > /tmp/kunit.res
	while read -r line; do
		case "$line" in
		"ok "*|"not ok "*) ;;
		*) continue ;;
		esac
		res=${line%% [0-9]*}
		name=${line#"$res" }
		name=${name#* }
		name=${name#- }
		[ "$name" = "$2" ] && continue	# the suite's own line
		n=$((n + 1))
		if [ "$res" = ok ]; then
			pass "$2/$name"
		else
			fail "$2/$name" "$(grep -B3 "$line" "$r" | grep -v "^ *ok " | tr '\n' ' ')"
		fi
	done < /tmp/kunit.res
	if [ "$n" = "$want" ]; then
		pass "$2/cases"
	else
		fail "$2/cases" "$n of $want cases reported"
	fi
}
suite snic_ib snic_ib_wqe 6
suite hdc hdc_extents 4
check dmesg_clean dmesg_clean
finish
