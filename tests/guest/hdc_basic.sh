# hdc.ko takes the engine's NVMe controller, /dev/hdc digests and copies
# every test file of tools/mkdisk.sh's image correctly (md5sum, sha256sum,
# cmp, known answers), through the page cache rules (dirty data seen,
# copies on the SSD after a cache drop and a remount), with offsets, user
# buffers, AES-256-CTR (NIST vector, round trip) and deflate (inflates back).
# vm-args: --hdc @DISK@
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/hdc.inc

check setup hdc_setup
check dev_node test -c /dev/hdc
check nvme_running sh -c "[ \"\$(cat $SYS/nvme_state)\" = running ]"
check nvme_pci sh -c "[ \"\$(cat $SYS/nvme_pci)\" = $NVME_BDF ]"
check nvme_released sh -c "[ ! -e /sys/bus/pci/devices/$NVME_BDF/driver ]"
check nvme_override sh -c "[ \"\$(cat /sys/bus/pci/devices/$NVME_BDF/driver_override)\" = hdc-engine ]"
check hdc_bound sh -c "[ -e /sys/bus/pci/drivers/hdc/$HDC_BDF ]"
check probe_message sh -c 'dmesg | grep -q "hdc 0000:00:11.0: HDC engine 0.1"'
check stat sh -c 'd2d stat | grep -q "^ssd: *\/dev\/nvme[0-9]*n1"'

# Digests of every file equal md5sum's and sha256sum's lines.
cd "$T_DIR" || exit 1
for f in $FILES; do
	check "md5_$f" sh -c "[ \"\$(d2d digest --md5 $f)\" = \"\$(md5sum $f)\" ]"
	check "sha256_$f" sh -c "[ \"\$(d2d digest --sha256 $f)\" = \"\$(sha256sum $f)\" ]"
done
check md5_many_files sh -c "[ \"\$(d2d digest --md5 $FILES)\" = \"\$(md5sum $FILES)\" ]"
check md5_stdin sh -c "[ \"\$(d2d digest --md5 - < 4097)\" = \"\$(md5sum < 4097)\" ]"
check crc32c_check_value sh -c '[ "$(d2d digest --crc32c 123456789)" = "e3069283  123456789" ]'
check crc32c_abc sh -c '[ "$(d2d digest --crc32c abc)" = "364b3fb7  abc" ]'
check crc32c_empty sh -c '[ "$(d2d digest --crc32c empty)" = "00000000  empty" ]'
check md5_abc sh -c '[ "$(d2d digest --md5 abc)" = "900150983cd24fb0d6963f7d28e17f72  abc" ]'
check sums_file sh -c 'md5sum -c ../MD5SUMS >/dev/null'

# Copies: equal bytes and sizes; the digest of a copy is printed.
for f in $FILES; do
	check "copy_$f" sh -c "d2d copy $f $OUT/$f && cmp $f $OUT/$f"
done
check copy_prints_digest sh -c "[ \"\$(d2d copy 1m1 $OUT/d1 --sha256)\" = \"\$(sha256sum 1m1)\" ] && cmp 1m1 $OUT/d1"
check copy_overwrites sh -c "d2d copy 4k $OUT/ow && d2d copy abc $OUT/ow && cmp abc $OUT/ow"
sync
echo 3 > /proc/sys/vm/drop_caches
ok=1
for f in $FILES; do cmp -s "$f" "$OUT/$f" || ok=0; done
[ $ok = 1 ] && pass copies_on_ssd_after_cache_drop || fail copies_on_ssd_after_cache_drop "a copy differs once the page cache is dropped"
cd /
umount /mnt && mount -t ext4 "$(hdc_disk)" /mnt
cd "$T_DIR" || exit 1
ok=1
for f in $FILES; do cmp -s "$f" "$OUT/$f" || ok=0; done
[ $ok = 1 ] && pass copies_after_remount || fail copies_after_remount "a copy differs after umount/mount"

# Dirty page cache is written back before the engine reads.
check dirty_new_file sh -c "head -c 70000 /dev/urandom > $OUT/dirty && [ \"\$(d2d digest --md5 $OUT/dirty)\" = \"\$(md5sum $OUT/dirty)\" ]"
check dirty_overwrite sh -c "cp 1m1 $OUT/dirty2 && sync && printf 'NEW DATA' | dd of=$OUT/dirty2 bs=1 seek=5000 conv=notrunc 2>/dev/null && [ \"\$(d2d digest --sha256 $OUT/dirty2)\" = \"\$(sha256sum $OUT/dirty2)\" ]"
check read_after_engine_write sh -c "cat 4k > $OUT/rw && d2d copy 65549 $OUT/rw && cmp 65549 $OUT/rw"

# Ranges (first block entered at an offset) and user buffers.
check digest_range sh -c "[ \"\$(d2d raw --func 2 --offset 1000 --length 70000 1m1 | sed -n 's/^digest0=//p')\" = \"\$(dd if=1m1 bs=1000 skip=1 count=70 2>/dev/null | md5sum | cut -d' ' -f1)\" ]"
check digest_sparse_range sh -c "[ \"\$(d2d raw --func 3 --offset 4000 --length 2100000 sparse | sed -n 's/^digest0=//p')\" = \"\$(dd if=sparse bs=4000 skip=1 count=525 2>/dev/null | sha256sum | cut -d' ' -f1)\" ]"
check copy_dst_offset sh -c "d2d raw --dst $OUT/doff --dst-offset 8192 4k >/dev/null && [ \$(stat -c %s $OUT/doff) = 12288 ] && dd if=$OUT/doff bs=4096 skip=2 2>/dev/null | cmp - 4k && [ \"\$(dd if=$OUT/doff bs=8192 count=1 2>/dev/null | md5sum)\" = \"\$(dd if=/dev/zero bs=8192 count=1 2>/dev/null | md5sum)\" ]"
check user_src sh -c "[ \"\$(d2d raw --src-user 4097 --func 2 4097 | sed -n 's/^digest0=//p')\" = \"\$(md5sum < 4097 | cut -d' ' -f1)\" ]"
check user_src_to_file sh -c "d2d raw --src-user 65549 --dst $OUT/fromuser 65549 >/dev/null && cmp 65549 $OUT/fromuser"
check user_dst sh -c "[ \"\$(d2d raw --dst-user 4096 4k | sed -n 's/^data=//p')\" = \"\$($HEX 4k | tr -d ' \\n')\" ]"

# AES-256-CTR: the NIST vector through files and user buffers; round trips.
check aes_nist_file sh -c "d2d copy nist-pt $OUT/nist-ct --aes256-ctr $NIST_KEY:$NIST_IV && [ \"\$($HEX $OUT/nist-ct | tr -d ' \\n')\" = $NIST_CT ]"
check aes_nist_user sh -c "[ \"\$(d2d raw --src-user 64 --dst-user 64 --func 4 --key $NIST_KEY:$NIST_IV nist-pt | sed -n 's/^data=//p')\" = $NIST_CT ]"
check aes_nist_decrypt sh -c "d2d copy $OUT/nist-ct $OUT/nist-pt2 --aes256-ctr $NIST_KEY:$NIST_IV && cmp nist-pt $OUT/nist-pt2"
for f in 4097 1m1 sparse; do
	check "aes_round_trip_$f" sh -c "d2d copy $f $OUT/$f.enc --aes256-ctr $KEY2:$IV2 && ! cmp -s $f $OUT/$f.enc && d2d copy $OUT/$f.enc $OUT/$f.dec --aes256-ctr $KEY2:$IV2 && cmp $f $OUT/$f.dec"
done
check aes_then_digest sh -c "out=\$(d2d copy 1m1 $OUT/e2 --aes256-ctr $KEY2:$IV2 --md5) && [ \"\$out\" = \"\$(md5sum $OUT/e2)\" ]"

# deflate: a zlib stream that inflates back; with digests of both sides.
for f in empty one 4097 1m1 text sparse; do
	check "deflate_$f" sh -c "d2d copy $f $OUT/$f.z --deflate && d2d-inflate < $OUT/$f.z | cmp - $f"
done
check deflate_compresses sh -c "[ \$(stat -c %s $OUT/text.z) -lt 262144 ]"
check deflate_sha256_of_src sh -c "[ \"\$(d2d copy text $OUT/t2.z --sha256 --deflate)\" = \"\$(sha256sum text)\" ]"
check deflate_md5_of_dst sh -c "out=\$(d2d copy text $OUT/t3.z --deflate --md5) && [ \"\$out\" = \"\$(md5sum $OUT/t3.z)\" ]"
check deflate_to_user sh -c "d2d raw --dst-user 1048576 --func 5 abc | sed -n 's/^data=//p' | grep -q '^78'"

check counters sh -c "[ \$(cat $SYS/stats/requests) -gt 50 ] && [ \$(cat $SYS/stats/inflight) = 0 ]"
check no_request_errors sh -c "[ \$(cat $SYS/stats/errors) = 0 ]"
check dmesg_clean dmesg_clean
finish
