# Only file systems whose blocks the engine may use in place: ext4
# mounted with data=journal, or a file with journalled data, is refused
# (EOPNOTSUPP, logged); freeze protection: fsfreeze waits for the
# requests writing to the file system, and while it is frozen a request
# writing to it waits for the thaw, as write(2) does.
# The SSD the engine shares with the host reads at 25 MB/s (tools/vm
# --ssd-read-mbps), so the 100 MiB request below stays in the engine for
# at least 4 s whatever the load on the host.
# vm-args: --hdc @DISK@ --ssd-read-mbps 25
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/hdc.inc

check setup hdc_setup
disk=$(hdc_disk)
cd "$T_DIR" || exit 1

# Freeze with one long request in flight: 100 MiB through AES-256-CTR
# and deflate, read at 25 MB/s.
d2d raw --func 4 --func 5 --key "$KEY2:$IV2" --dst "$OUT/frz" big >/dev/null 2>&1 &
cp_pid=$!
i=0
seen=0
while [ $i -lt 400 ]; do
	seen=$(cat $SYS/stats/inflight)
	[ "$seen" != 0 ] && break
	sleep 0.05
	i=$((i + 1))
done
fsfreeze --freeze /mnt
after=$(cat $SYS/stats/inflight)
[ "$seen" != 0 ] && pass request_was_in_flight || fail request_was_in_flight "never saw the request in flight"
[ "$after" = 0 ] && pass freeze_waits_for_engine || fail freeze_waits_for_engine "$after requests in flight on a frozen file system"
fsfreeze --unfreeze /mnt
wait $cp_pid
check request_ok_after_thaw sh -c "[ $? = 0 ]"
check output_inflates sh -c "[ \"\$(d2d-inflate < $OUT/frz | md5sum)\" = \"\$(d2d copy big $OUT/frz.aes --aes256-ctr $KEY2:$IV2 >/dev/null && md5sum < $OUT/frz.aes)\" ]"
rm -f "$OUT/frz" "$OUT/frz.aes"

# A request submitted while frozen waits for the thaw.
cp 4k "$OUT/small" && sync
fsfreeze --freeze /mnt
d2d copy 65549 "$OUT/small" 2>/dev/null &
cp_pid=$!
sleep 1
check submit_on_frozen_waits sh -c "kill -0 $cp_pid && [ \$(stat -c %s $OUT/small) = 4096 ]"
fsfreeze --unfreeze /mnt
wait $cp_pid
check submit_done_after_thaw cmp 65549 "$OUT/small"

# A file with journalled data.
cp 65549 "$OUT/jfile" && sync
check jflag_set hdc-hostile chattr "$OUT/jfile" j
check jflag_src_refused expect_errno EOPNOTSUPP d2d digest --md5 "$OUT/jfile"
check jflag_dst_refused expect_errno EOPNOTSUPP d2d copy 4k "$OUT/jfile"
check jflag_logged sh -c 'dmesg | grep -q "jfile: inline, encrypted, verity, compressed or journalled"'
rm -f "$OUT/jfile"

# ext4 with data=journal.
cd / && umount /mnt || fail umount "busy"
check mount_data_journal mount -t ext4 -o data=journal "$disk" /mnt
check journal_src_refused expect_errno EOPNOTSUPP d2d digest --md5 "$T_DIR/4k"
before=$(md5sum < "$OUT/small")
check journal_dst_refused expect_errno EOPNOTSUPP d2d copy "$T_DIR/4k" "$OUT/small"
check journal_dst_unchanged sh -c "[ \"\$(md5sum < $OUT/small)\" = '$before' ]"
check journal_logged sh -c 'dmesg | grep -q "ext4 mounted with data=journal is not supported"'
umount /mnt
check mount_ordered mount -t ext4 "$disk" /mnt
check ordered_works sh -c "[ \"\$(d2d digest --md5 $T_DIR/65549)\" = \"\$(md5sum $T_DIR/65549)\" ]"
check test_files_intact sh -c "cd /mnt/t && md5sum -c ../MD5SUMS >/dev/null"
check dmesg_clean dmesg_clean
finish
