# The insn-meter TCG plugin counts guest instructions between marks; the
# host side (insn_meter.host) checks the counts.
# vm-args: --guests 1 --smp 1 --insn-count @LOGDIR@/insn
. /opt/d2d/tests/lib.sh

check mark_1 insn-mark 1
check mark_2 insn-mark 2
# A known amount of work between marks 3 and 4.
insn-mark 3
dd if=/dev/zero bs=64k count=64 2>/dev/null | md5sum >/dev/null
insn-mark 4
check bad_id_refused sh -c '! insn-mark 300 2>/dev/null'
finish
