# The permission model of /dev/hdc (docs/hdc.md, "Permissions"): every
# d2d subcommand and every ioctl run as nobody.  Opening /dev/hdc, CAPS,
# STATS and requests on descriptors nobody may open are allowed; the
# descriptor modes decide the rest (EBADF), opening others' files fails
# as open(2) does (EACCES), immutable/append-only destinations are EPERM,
# and WAIT for a user destination from another process is EPERM without
# taking the result from its owner.
# vm-args: --hdc @DISK@
# timeout: 180
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/hdc.inc

check setup hdc_setup
D=$OUT/perm
mkdir -p "$D" && chown nobody:nogroup "$D"
cp "$T_DIR/65549" "$D/secret" && chmod 0600 "$D/secret"
cp "$T_DIR/4k" "$D/rootfile" && chmod 0644 "$D/rootfile"
cp "$T_DIR/4k" "$D/imm" && cp "$T_DIR/4k" "$D/app"
chown nobody:nogroup "$D/imm" "$D/app"
hdc-hostile chattr "$D/imm" i
hdc-hostile chattr "$D/app" a
sync
want=$(md5sum < "$T_DIR/65549")
before=$(md5sum "$D/secret" "$D/rootfile" "$D/imm" "$D/app")

check node_mode sh -c '[ "$(stat -c %a:%U /dev/hdc)" = 666:root ]'
check sysfs_read_only sh -c "[ \$(stat -c %a $SYS/stats/requests) = 444 ]"
# d2d stat: open, HDC_IOC_CAPS, HDC_IOC_STATS.
check nobody_stat as_nobody sh -c 'd2d stat | grep -qi nvme'
# HDC_IOC_SUBMIT on descriptors nobody opened.
check nobody_digest as_nobody sh -c "[ \"\$(d2d digest --md5 $T_DIR/65549 | cut -d' ' -f1)\" = \"${want%% *}\" ]"
check nobody_copy as_nobody sh -c "d2d copy $T_DIR/65549 $D/mine && cmp $T_DIR/65549 $D/mine"
check nobody_raw_user as_nobody sh -c "d2d raw --src-user 4096 --func 2 | grep -q '^ok'"
check nobody_nowait as_nobody sh -c "d2d raw --nowait 4 --func 2 $T_DIR/4k | grep -q '^ok'"
check nobody_forkwait_other_eperm as_nobody sh -c "hdc-hostile forkwait > /tmp/fw.out; grep -q 'child wait: EPERM' /tmp/fw.out"
check nobody_forkwait_owner_ok sh -c "grep -q 'parent wait: ok' /tmp/fw.out || { tail -1 /tmp/fw.out; exit 1; }"
# What nobody may not do.
check secret_src_eacces expect_errno EACCES as_nobody d2d digest --md5 "$D/secret"
check rootfile_dst_eacces expect_errno EACCES as_nobody d2d copy "$T_DIR/4k" "$D/rootfile"
check wronly_src_ebadf expect_errno EBADF as_nobody d2d raw --src-mode w --func 2 "$D/mine"
check rdonly_dst_ebadf expect_errno EBADF as_nobody d2d raw --dst "$D/mine" --dst-mode r "$T_DIR/4k"
check rdonly_dst_other_ebadf expect_errno EBADF as_nobody d2d raw --dst "$D/rootfile" --dst-mode r "$T_DIR/4k"
check immutable_dst_eperm expect_errno EPERM as_nobody d2d copy "$T_DIR/4k" "$D/imm"
check append_dst_eperm expect_errno EPERM as_nobody d2d copy "$T_DIR/4k" "$D/app"
check param_root_only sh -c "! as_nobody sh -c 'echo 1 > /sys/module/hdc/parameters/user_mem_max_kib' 2>/dev/null"
after=$(md5sum "$D/secret" "$D/rootfile" "$D/imm" "$D/app")
[ "$before" = "$after" ] && pass others_files_unchanged || fail others_files_unchanged "$after"
check dmesg_clean dmesg_clean
finish
