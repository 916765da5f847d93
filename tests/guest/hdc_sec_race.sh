# Extents never pass through user memory: nobody runs requests on its own
# files while a thread writes a forged extent (the blocks of root's 0600
# file) into every page the driver could map into its address space.
# The canary of root's file never shows in nobody's output and root's
# file is byte-identical afterwards.
# vm-args: --hdc @DISK@
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/hdc.inc

check setup hdc_setup
D=$OUT/race
mkdir -p "$D" && chmod 0755 "$D"
# root's secret: 64 KiB of canary lines, readable by root only.
i=0
while [ $i -lt 2048 ]; do echo "CANARY-ROOT-$i-abcdefghij"; i=$((i + 1)); done |
	head -c 65536 > "$D/secret"
chmod 0600 "$D/secret"
head -c 65536 /dev/zero | tr '\0' 'n' > "$D/mine"
head -c 65536 /dev/zero | tr '\0' 'o' > "$D/out"
chown nobody:nogroup "$D/mine" "$D/out"
sync
phys=$(hdc-hostile phys "$D/secret")
want=$(md5sum < "$D/secret")
check nobody_cannot_read sh -c "! su -s /bin/sh nobody -c \"cat $D/secret\""
check runs_as_nobody sh -c "[ \"\$(su -s /bin/sh nobody -c \"id -u\")\" = 65534 ]"

out=$(as_nobody \
	hdc-hostile race "$D/mine" "$D/out" "$phys" 65536 300 2>&1)
case "$out" in
"no leak"*) pass no_canary_in_output ;;
*) fail no_canary_in_output "$out" ;;
esac
echo 3 > /proc/sys/vm/drop_caches
got=$(md5sum < "$D/secret")
[ "$got" = "$want" ] && pass root_file_intact || fail root_file_intact "md5 $got, was $want"
check root_file_canary sh -c "head -1 $D/secret | grep -q '^CANARY-ROOT-0-'"
nn=$(head -c 65536 /dev/zero | tr '\0' N | md5sum)
[ "$(md5sum < "$D/out")" = "$nn" ] && pass own_write_works || fail own_write_works "$D/out is not all N"
check dmesg_clean dmesg_clean
finish
