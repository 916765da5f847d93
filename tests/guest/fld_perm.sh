# fld's permission model (docs/fld.md, "Permissions"): any user reads the
# sysfs state through fldctl; writing a steering port, VNI, rate or key
# takes root (file mode) and CAP_NET_ADMIN (checked by fld.ko at the
# write).  As nobody: EACCES; as root without CAP_NET_ADMIN: EPERM, and
# nothing changed; as root: applied.
# vm-args: --guests 1 --qemu-arg -device --qemu-arg fld,id=fld0,accel=iotauth
# timeout: 180
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

check modprobe_snic modprobe snic
set -- $(snic_netdevs)
check modprobe_fld modprobe fld snic="$1" udp_port=7
SYSD=$(ls -d /sys/bus/pci/drivers/fld/0000:* | head -1)
NOBODY="setpriv --reuid nobody --regid nogroup --clear-groups"
NOADMIN="setpriv --bounding-set -net_admin --inh-caps -net_admin"

# fails_with ERRTEXT CMD...: CMD fails and says ERRTEXT.
fails_with() {
	local want=$1 out
	shift
	if out=$("$@" 2>&1); then
		echo "succeeded: $out"
		return 1
	fi
	echo "$out" | grep -qi "$want" || { echo "no '$want' in: $out"; return 1; }
}

check nobody_show $NOBODY fldctl show
check nobody_stats $NOBODY fldctl stats
check nobody_get $NOBODY fldctl get accel_rx
check nobody_tenants $NOBODY fldctl tenants
check nobody_flow_udp fails_with 'permission denied' $NOBODY fldctl flow udp 9
check nobody_rate fails_with 'permission denied' $NOBODY fldctl rate 0 1000000
check nobody_key fails_with 'permission denied' $NOBODY fldctl key 1 00112233445566778899aabbccddeeff
check nobody_vni fails_with 'permission denied' $NOBODY fldctl flow vxlan 42
check key_not_readable sh -c "! cat $SYSD/key 2>/dev/null"

check noadmin_flow_udp fails_with 'not permitted' $NOADMIN fldctl flow udp 9
check noadmin_rate fails_with 'not permitted' $NOADMIN fldctl rate 0 1000000
check noadmin_key fails_with 'not permitted' $NOADMIN fldctl key 1 00112233445566778899aabbccddeeff
check noadmin_vni fails_with 'not permitted' $NOADMIN fldctl flow vxlan 42
check port_unchanged test "$(cat "$SYSD/udp_port")" = 7

check root_flow_udp fldctl flow udp 9
check root_port_changed test "$(cat "$SYSD/udp_port")" = 9
check root_key fldctl key 1 00112233445566778899aabbccddeeff
check rmmod_fld rmmod fld
check rmmod_snic snic_rmmod
check dmesg_clean dmesg_clean
finish
