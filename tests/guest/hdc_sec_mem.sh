# DMA memory is charged: nobody with ulimit -l 4096 (KiB) cannot pin
# more than 4 MiB of coherent buffers with uncollected NOWAIT requests
# (ENOMEM, counted in stats/mem_refused, logged); collecting them gives
# the memory back; root (CAP_IPC_LOCK) is not limited; the cap on all
# unprivileged users (user_mem_max_kib) refuses with EAGAIN.
# vm-args: --hdc @DISK@
# timeout: 180
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/hdc.inc

PARAM=/sys/module/hdc/parameters/user_mem_max_kib
check setup hdc_setup

# 16 requests of 1 MiB user source and 1 MiB user destination each.
out=$(as_nobody sh -c 'ulimit -l 4096 && exec hdc-hostile memhog 16 1048576' 2>&1)
echo "$out" | sed 's/^/INFO /'
acc=$(echo "$out" | sed -n 's/^accepted \([0-9]*\) .*/\1/p')
[ -n "$acc" ] && [ "$acc" -le 4 ] && pass nobody_limited || fail nobody_limited "$out"
check nobody_enomem sh -c "echo '$out' | grep -q 'errno ENOMEM'"
check nobody_after_collect sh -c "echo '$out' | grep -q 'after collect: ok'"
check refusals_counted sh -c "[ \$(cat $SYS/stats/mem_refused) -ge 12 ]"
check refusal_logged sh -c 'dmesg | grep -q "of DMA memory over the RLIMIT_MEMLOCK limit"'
check nothing_left_charged sh -c "[ \$(cat $SYS/stats/user_mem_kib) = 0 ]"

out=$(sh -c 'ulimit -l 4096 && exec hdc-hostile memhog 16 1048576' 2>&1)
check root_not_limited sh -c "echo '$out' | grep -q 'accepted 16 refused 0'"

# The cap on all unprivileged users together.
old=$(cat $PARAM)
echo 1024 > $PARAM
out=$(as_nobody sh -c 'ulimit -l unlimited 2>/dev/null; ulimit -l 65536; exec hdc-hostile memhog 4 1048576' 2>&1)
echo $old > $PARAM
check cap_eagain sh -c "echo '$out' | grep -q 'errno EAGAIN'"
check cap_root_reserve sh -c "[ \"\$(d2d digest --md5 $T_DIR/65549)\" = \"\$(md5sum $T_DIR/65549)\" ]"
check nothing_left_charged_2 sh -c "[ \$(cat $SYS/stats/user_mem_kib) = 0 ]"
check dmesg_clean dmesg_clean
finish
