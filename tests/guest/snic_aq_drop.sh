# An admin completion the device never posts (fault injection: snic
# aq-drop-opcode=0x50, SNIC_AQ_SPIN_WRITE_MEM runs but completes silently).
# The caller gets ETIMEDOUT after the admin timeout, the kernel log says
# which command timed out, the function's admin_stats count it, later
# commands fail at once with EIO (the queue is reported broken, nothing
# waits on it), nothing WARNs, rmmod completes, and a fresh probe (which
# resets the device) has a working admin queue again.
# vm-args: --snic-opts aq-drop-opcode=80
# timeout: 240
. /opt/d2d/tests/lib.sh
H=/usr/local/share/spin

check modprobe modprobe snic
SPIN=/dev/snic-spin0
check spin_dev test -c "$SPIN"
PCI=$(readlink -f "/sys/class/misc/${SPIN#/dev/}/device")
timeouts() { sed -n 's/^timeouts //p' "$PCI/admin_stats"; }
check no_timeouts_yet test "$(timeouts)" = 0

# Allocating sPIN memory zeroes it with SPIN_WRITE_MEM: its completion is
# dropped.
check write_mem_times_out sh -c "! spinctl -d $SPIN run -p 9990 $H/empty.elf > /tmp/run.out 2> /tmp/run.err;
	grep -q 'allocating program memory: Connection timed out' /tmp/run.err || { cat /tmp/run.err; exit 1; }"
check timeout_logged sh -c "dmesg | grep -q 'admin command .* (opcode 0x50) timed out'"
check timeout_counted test "$(timeouts)" = 1
check broken_queue_eio sh -c "! spinctl -d $SPIN stats dev 2> /tmp/st.err;
	grep -q 'Input/output error' /tmp/st.err || { cat /tmp/st.err; exit 1; }"
check rmmod snic_rmmod
check modprobe_again modprobe snic
i=0
while [ ! -c "$SPIN" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check queue_works_again sh -c "spinctl -d $SPIN stats dev | grep -q '^devstats '"
check dmesg_clean dmesg_clean
dmesg | grep -B8 -A30 -E 'WARNING:|BUG:|Call Trace' | sed 's/^/  /'
finish
