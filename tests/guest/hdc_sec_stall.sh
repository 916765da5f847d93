# No driver-wide lock is held across user copies: a request whose user
# buffer is backed by userfaultfd and never filled stalls only itself.
# Another process's request completes meanwhile, unbinding the engine
# completes while the stalled request still waits, and that request then
# fails with ENODEV; the engine binds again and works.
# vm-args: --hdc @DISK@
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/hdc.inc

DRV=/sys/bus/pci/drivers/hdc
check setup hdc_setup
cd "$T_DIR" || exit 1

start_stalled /tmp/stall.out hdc-hostile uffd-stall
check request_stalled grep -q STALLED /tmp/stall.out
check other_request_completes sh -c "[ \"\$(d2d digest --md5 65549)\" = \"\$(md5sum 65549)\" ]"

# Unbinding must not wait for the stalled request (bounded: 60 s).  The
# driver's sysfs link goes before its remove() runs: wait for the write.
echo "$HDC_BDF" > "$DRV/unbind" &
unbind_pid=$!
check unbind_while_stalled exits_within 60 $unbind_pid
check no_dev_node sh -c "[ ! -e /dev/hdc ]"
check request_still_stalled sh -c "kill -0 $stall_pid && ! grep -q submit: /tmp/stall.out"

kill -USR1 $stall_pid
wait $stall_pid
wait $unbind_pid
check stalled_request_enodev grep -q "submit: ENODEV" /tmp/stall.out
check rmmod rmmod hdc
check modprobe_again modprobe hdc
i=0
while [ ! -c /dev/hdc ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check works_again sh -c "[ \"\$(d2d digest --md5 65549)\" = \"\$(md5sum 65549)\" ]"
check dmesg_clean dmesg_clean
finish
