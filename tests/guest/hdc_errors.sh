# Bad input to /dev/hdc and the d2d CLI gets a clear errno and message,
# never an oops, and changes no file: files off the engine's SSD (tmpfs),
# pipes, directories, sockets, ranges past the end, wrong descriptor
# modes, unknown functions, a bad struct size, unaligned or overlapping
# destinations, a too small user buffer; usage errors exit 2.
# vm-args: --hdc @DISK@
# timeout: 180
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/hdc.inc

check no_driver_message expect_errno ENOENT d2d digest --md5 /etc/passwd
check setup hdc_setup
cd "$T_DIR" || exit 1
cp 4k "$OUT/keep" && cp 1m1 "$OUT/keep2" && sync
echo "tmpfs data" > /tmp/tmpfs_file
echo "tmpfs dst" > /tmp/tmpfs_dst
before=$(md5sum "$OUT/keep" "$OUT/keep2" /tmp/tmpfs_dst)

# Files that are not on the engine's SSD.
check tmpfs_digest expect_errno EXDEV d2d digest --md5 /tmp/tmpfs_file
check tmpfs_src_copy expect_errno EXDEV d2d copy /tmp/tmpfs_file "$OUT/keep"
check tmpfs_dst_copy expect_errno EXDEV d2d copy 4k /tmp/tmpfs_dst
check tmpfs_message sh -c 'd2d digest --md5 /tmp/tmpfs_file 2>&1 | grep -q "not on the engine.s SSD"'
check kernel_says_why sh -c 'dmesg | grep -q "is not on the engine.s SSD"'
check proc_file expect_errno EXDEV d2d digest --md5 /proc/version

# Not regular files.
check pipe_digest expect_errno EINVAL sh -c 'cat 4k | d2d digest --md5 -'
mkfifo /tmp/fifo
(cat 4k > /tmp/fifo &)
check fifo_raw expect_errno EINVAL d2d raw --func 2 --length 10 /tmp/fifo
check directory expect_errno EISDIR d2d digest --md5 "$T_DIR"
check directory_dst expect_errno EISDIR d2d raw --dst "$OUT" --dst-mode r 4k
check socket expect_errno EINVAL d2d raw --src-socket --func 2 --length 10
check chardev expect_errno EINVAL d2d raw --func 2 --length 10 /dev/zero

# Ranges.
check offset_past_eof expect_errno EINVAL d2d raw --func 2 --offset 5000 --length 1 4k
check length_past_eof expect_errno EINVAL d2d raw --func 2 --offset 100 --length 4000 4k
check length_overflow expect_errno EINVAL d2d raw --func 2 --offset 1 --length 0xffffffffffffffff 4k
check zero_length_ok sh -c 'd2d raw --func 2 --length 0 4k | grep -q "^digest0=d41d8cd98f00b204e9800998ecf8427e"'
check eof_offset_zero_length sh -c 'd2d raw --func 1 --offset 4096 --length 0 4k | grep -q "^digest0=00000000"'

# Descriptor modes.
check write_only_src expect_errno EBADF d2d raw --src-mode w --func 2 "$OUT/keep"
check read_only_dst expect_errno EBADF d2d raw --dst "$OUT/keep" --dst-mode r 4k
check read_only_dst_message sh -c 'd2d raw --dst '"$OUT"'/keep --dst-mode r 4k 2>&1 | grep -q "destination for writing"'

# Functions and the request structure.
check unknown_function expect_errno EINVAL d2d raw --func 9 4k
check function_zero expect_errno EINVAL d2d raw --func 0 4k
check unknown_function_logged sh -c 'dmesg | grep -q "unknown function id 9"'
check bad_struct_size expect_errno EINVAL d2d raw --size 100 --func 2 4k
check bad_key_usage sh -c 'd2d copy 4k /mnt/out/x --aes256-ctr 1234 2>/dev/null; [ $? = 2 ]'

# Destinations.
check unaligned_dst_offset expect_errno EINVAL d2d raw --dst "$OUT/keep" --dst-offset 100 4k
check block_tail_inside_file expect_errno EINVAL d2d raw --dst "$OUT/keep2" --length 100 4k
check deflate_before_eof expect_errno EINVAL d2d raw --dst "$OUT/keep" --func 5 4k
check overlap_same_file expect_errno EINVAL d2d raw --src-mode r --dst "$OUT/keep2" --dst-offset 4096 --length 65536 "$OUT/keep2"
check user_dst_too_small expect_errno ENOSPC d2d raw --dst-user 100 4k
check user_src_too_big expect_errno EINVAL d2d raw --src-user 8388608 --length 8388608 1m1
check same_file_copy sh -c 'd2d copy 4k 4k 2>&1 | grep -q "same file"'

# Usage errors exit 2.
for a in "" "copy" "copy 4k" "digest 4k" "digest --md5" "digest --md5 --sha256 4k" "frob" "copy 4k x --bogus"; do
	# shellcheck disable=SC2086
	d2d $a >/dev/null 2>&1
	rc=$?
	n=$(echo "usage_${a:-none}" | tr ' -' '__')
	[ $rc = 2 ] && pass "$n" || fail "$n" "status $rc"
done

after=$(md5sum "$OUT/keep" "$OUT/keep2" /tmp/tmpfs_dst)
[ "$before" = "$after" ] && pass no_file_changed || fail no_file_changed "$after"
check test_files_intact sh -c 'md5sum -c ../MD5SUMS >/dev/null'
check no_stray_dst sh -c '[ ! -e '"$OUT"'/x ]'
check engine_still_works sh -c "[ \"\$(d2d digest --md5 65549)\" = \"\$(md5sum 65549)\" ]"
check nothing_in_flight sh -c "[ \$(cat $SYS/stats/inflight) = 0 ]"
check dmesg_clean dmesg_clean
finish
