# An interrupted synchronous request runs on in the engine and stays
# charged to its submitter's RLIMIT_MEMLOCK until its buffers are freed.
# nobody (ulimit -l 65536) submits synchronous AES requests with 4 MiB
# user source and destination buffers (the most a user endpoint may have;
# charged: 8 MiB) and is interrupted by a fatal signal at varying
# points; setpriv execs, so the signal reaches d2d itself.  The signal is
# SIGTERM: a background job of a non-interactive shell starts with SIGINT
# ignored (and no shell can undo that), so a SIGINT would never reach
# it; to the kernel both are the same fatal signal in the ioctl.  After the submitter is gone,
# whenever the engine still has a request in flight the charge
# (stats/user_mem_kib, read first) is not zero: its destination buffer is
# freed only after the request left the engine.  Whether a round catches
# a request in flight depends on timing (an INFO line counts them); the
# check never fails for lack of one.  Once nothing is in flight nothing
# is charged: no interrupted request leaks its charge.
# vm-args: --hdc @DISK@
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/hdc.inc

check setup hdc_setup
cd "$T_DIR" || exit 1

REQ="setpriv --reuid nobody --regid nogroup --clear-groups d2d raw --src-user 4194304 --dst-user 4194304 --func 4 --key $KEY2:$IV2 big"
# First, once for certain: the signal reaches d2d and ends it (status 143).
sh -c "ulimit -l 65536 && exec $REQ" > /dev/null 2>&1 &
pid=$!
i=0
while [ "$(cat /proc/$pid/comm 2>/dev/null)" != d2d ] && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
comm=$(cat /proc/$pid/comm 2>/dev/null)
kill -TERM $pid 2>/dev/null
wait $pid
st=$?
check signal_ends_d2d sh -c "[ $st = 143 ] || { echo 'status $st (was $comm)'; exit 1; }"
seen=0 bad=""
for i in $(seq 1 40); do
	sh -c "ulimit -l 65536 && exec $REQ" > /dev/null 2>&1 &
	pid=$!
	# signal at varying points: before, during and after the ioctl
	[ $((i % 4)) = 0 ] || sleep "0.$((i % 10))"
	kill -TERM $pid 2>/dev/null
	wait $pid
	kib=$(cat $SYS/stats/user_mem_kib)
	infl=$(cat $SYS/stats/inflight)
	if [ "$infl" != 0 ]; then
		seen=$((seen + 1))
		[ "$kib" != 0 ] || bad="$bad round $i: in flight, nothing charged;"
	fi
done
echo "INFO $seen of 40 interrupted requests seen still in flight"
check charged_while_in_flight sh -c "[ -z '$bad' ] || { echo '$bad'; exit 1; }"
i=0
while [ "$(cat $SYS/stats/inflight)" != 0 ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
check engine_idle test "$(cat $SYS/stats/inflight)" = 0
check nothing_left_charged test "$(cat $SYS/stats/user_mem_kib)" = 0
check dmesg_clean dmesg_clean
finish
