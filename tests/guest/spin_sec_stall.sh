# No device-wide lock is held across user copies of /dev/snic-spinN: an
# ioctl whose user buffer is backed by userfaultfd and never filled stalls
# only itself.  Another process's ioctl on the same device completes
# meanwhile, unbinding the snic completes while the stalled ioctl still
# waits, and that ioctl then fails with ENODEV; the driver binds again and
# the device works.
# timeout: 300
. /opt/d2d/tests/lib.sh

DRV=/sys/bus/pci/drivers/snic
SPIN=/dev/snic-spin0
check modprobe modprobe snic
check spin_dev test -c "$SPIN"
BDF=$(basename "$(readlink -f "/sys/class/misc/${SPIN#/dev/}/device")")

start_stalled /tmp/stall.out spin-ioctl-test --uffd-stall "$SPIN"
check ioctl_stalled grep -q STALLED /tmp/stall.out
spinctl -d "$SPIN" stats dev > /tmp/other.out 2>&1 &
other_pid=$!
check other_ioctl_completes exits_within 60 $other_pid
check other_ioctl_output grep -q '^devstats ' /tmp/other.out

# Unbinding must not wait for the stalled ioctl.
echo "$BDF" > "$DRV/unbind" &
unbind_pid=$!
check unbind_while_stalled exits_within 60 $unbind_pid
check no_dev_node sh -c "[ ! -e $SPIN ]"
check ioctl_still_stalled sh -c "kill -0 $stall_pid && ! grep -q write: /tmp/stall.out"

kill -USR1 $stall_pid
wait $stall_pid
wait $unbind_pid
check stalled_ioctl_enodev grep -q "write: ENODEV" /tmp/stall.out
check rmmod snic_rmmod
check modprobe_again modprobe snic
i=0
while ! ls /dev/snic-spin* > /dev/null 2>&1 && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
check works_again sh -c "spinctl -d \$(ls /dev/snic-spin* | head -1) stats dev | grep -q '^devstats '"
check dmesg_clean dmesg_clean
finish
