# make demo: load snic.ko and show what the driver learned from the device.
echo "== d2d demo: snic identify =="
modprobe snic || exit 1
echo "-- lspci -d 1234:d201"
lspci -nn -d 1234:d201
echo "-- kernel log"
dmesg | grep 'snic 0000' | sed 's/^\[[ 0-9.]*\] //'
for d in /sys/bus/pci/drivers/snic/0000:*; do
	echo "-- $(basename "$d")"
	printf '   firmware  %s\n' "$(cat "$d/fw_version")"
	printf '   hardware  %s\n' "$(cat "$d/hw_version")"
	printf '   caps      %s\n' "$(cat "$d/caps")"
	printf '   serial    %s\n' "$(cat "$d/serial")"
	printf '   admin     %s\n' "$(tr '\n' ' ' < "$d/admin_stats")"
done
n=$(ls -d /sys/bus/pci/drivers/snic/0000:* | wc -l)
echo "== $n snic device(s) identified =="
[ "$n" -ge 1 ]
