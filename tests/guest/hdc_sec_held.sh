# A request held in the engine, deterministically: the SSD the engine
# shares with the host reads at 1 MB/s (tools/vm --ssd-read-mbps), so a
# request that reads 4 MiB of the file "big" into a user buffer (64 NVMe
# reads of 64 KiB) stays in the engine for about 4 s.  nobody (ulimit -l 65536) submits it synchronously and is
# killed (SIGKILL) once its buffer is charged: the engine runs on
# (stats/dev_inflight, its NVMe reads go on), and the charge of the 4 MiB
# destination (stats/user_mem_kib) must stay as long as the engine may
# still write into that buffer, and be gone once the engine is done.
# (hdc_sec_intr interrupts at random points; this one always catches a
# request in flight.)
# vm-args: --hdc @DISK@ --ssd-read-mbps 1
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/hdc.inc

check setup hdc_setup
cd "$T_DIR" || exit 1

st() { cat "$SYS/stats/$1"; }

# setpriv execs: $pid is d2d itself (a kill of su would leave d2d running)
sh -c "ulimit -l 65536 && exec setpriv --reuid nobody --regid nogroup --clear-groups d2d raw --length 4194304 --dst-user 4194304 big" > /dev/null 2>&1 &
pid=$!
i=0
while [ "$(st user_mem_kib)" -lt 4096 ] && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
check charged_while_running sh -c "[ $(st user_mem_kib) -ge 4096 ] || { echo 'charged $(st user_mem_kib) KiB after 10 s'; exit 1; }"
check submitter_is_d2d test "$(cat /proc/$pid/comm 2>/dev/null)" = d2d
kill -KILL $pid 2>/dev/null
wait $pid 2>/dev/null
# The submitter is gone; the engine is still reading into its buffer.
dev=$(st dev_inflight) kib=$(st user_mem_kib) n0=$(st nvme_cmds)
check held_after_kill sh -c "[ $dev != 0 ] || { echo 'the engine had no request left after the kill'; exit 1; }"
check charged_after_kill sh -c "[ $kib -ge 4096 ] || { echo '$kib KiB charged while the engine still owns the 4 MiB buffer'; exit 1; }"
i=0
while { [ "$(st dev_inflight)" != 0 ] || [ "$(st inflight)" != 0 ]; } && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
check engine_ran_on sh -c "[ $(st nvme_cmds) -gt $n0 ] || { echo 'no NVMe read after the kill'; exit 1; }"
check engine_idle sh -c "[ $(st dev_inflight) = 0 ] && [ $(st inflight) = 0 ]"
check nothing_left_charged test "$(st user_mem_kib)" = 0
check dmesg_clean dmesg_clean
finish
