# modprobe/rmmod hdc 10 times with the nvme driver loaded first: each time
# the engine takes 00:10.0 from nvme, brings it up and digests a file;
# rmmod leaves no IRQ or device node.  Then the controller can be given
# back to nvme, and unbinding hdc with requests in flight is clean.
# vm-args: --hdc @DISK@
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/hdc.inc

modprobe nvme
d=$(hdc_disk) && mount -t ext4 "$d" /mnt
check nvme_had_both sh -c "[ -e /sys/bus/pci/devices/$NVME_BDF/driver ]"
want=$(md5sum "$T_DIR/65549")
bad=""
for i in 1 2 3 4 5 6 7 8 9 10; do
	modprobe hdc || { bad="modprobe failed in cycle $i"; break; }
	[ -c /dev/hdc ] || { bad="cycle $i: no /dev/hdc"; break; }
	[ "$(cat $SYS/nvme_state)" = running ] || { bad="cycle $i: NVMe $(cat $SYS/nvme_state)"; break; }
	[ -e /sys/bus/pci/devices/$NVME_BDF/driver ] && { bad="cycle $i: nvme still bound"; break; }
	got=$(d2d digest --md5 "$T_DIR/65549" 2>&1)
	[ "$got" = "$want" ] || { bad="cycle $i: digest: $got"; break; }
	rmmod hdc || { bad="rmmod failed in cycle $i"; break; }
	[ -e /dev/hdc ] && { bad="cycle $i: /dev/hdc left"; break; }
	grep -q hdc-cmd /proc/interrupts && { bad="cycle $i: IRQ left after rmmod"; break; }
done
[ -z "$bad" ] && pass ten_cycles || fail ten_cycles "$bad"
check no_module_left sh -c '! lsmod | grep -q "^hdc "'
check probe_count sh -c '[ "$(dmesg | grep -c "HDC engine 0.1, caps")" = 10 ]'
check override_cleared sh -c "[ \"\$(cat /sys/bus/pci/devices/$NVME_BDF/driver_override)\" = '(null)' ]"
check nvme_rebinds sh -c "echo $NVME_BDF > /sys/bus/pci/drivers_probe && sleep 1 && [ -e /sys/bus/pci/devices/$NVME_BDF/driver ]"
check fs_still_fine sh -c "cd $T_DIR && md5sum -c ../MD5SUMS >/dev/null"

# Unbind with requests in flight, then bind again.
modprobe hdc
d2d digest --sha256 "$T_DIR/big" > /tmp/unbind.out 2>&1 &
pid=$!
sleep 1
echo $HDC_BDF > /sys/bus/pci/drivers/hdc/unbind
wait $pid
rc=$?
sha=$(sed -n 's|  \./big$||p' /mnt/SHA256SUMS)
if [ $rc = 0 ]; then
	grep -q "^$sha" /tmp/unbind.out && pass unbind_in_flight || fail unbind_in_flight "wrong digest: $(cat /tmp/unbind.out)"
else
	grep -q "ENODEV\|EIO" /tmp/unbind.out && pass unbind_in_flight || fail unbind_in_flight "$(cat /tmp/unbind.out)"
fi
check unbound sh -c '[ ! -e /dev/hdc ]'
check bind_again sh -c "echo $HDC_BDF > /sys/bus/pci/drivers/hdc/bind && [ -c /dev/hdc ]"
check works_after_bind sh -c "[ \"\$(d2d digest --md5 $T_DIR/65549)\" = \"$want\" ]"
check rmmod_final rmmod hdc
check dmesg_clean dmesg_clean
finish
