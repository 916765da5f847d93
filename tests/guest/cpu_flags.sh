# The emulated CPU: CMPXCHG8B and CMPXCHG16B, with and without LOCK, set ZF
# as the compare went and leave the other flags as the instruction before
# left them (userspace/cpu/cpu-flags.c).  QEMU 7.2 computed the old flags
# inside these instructions from a stale condition-code state and could
# put a register's value into RFLAGS: the timing-mode double fault
# (docs/timing.md).  Two vCPUs, so that LOCK takes QEMU's parallel path.
# vm-args: --guests 1
. /opt/d2d/tests/lib.sh

for c in cmpxchg16b cmpxchg16b_fail lock_cmpxchg16b lock_cmpxchg16b_fail \
	cmpxchg8b cmpxchg8b_fail lock_cmpxchg8b lock_cmpxchg8b_fail; do
	check "$c" cpu-flags "$c"
done
finish
