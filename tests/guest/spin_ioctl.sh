# /dev/snic-spinN under bad ioctl arguments and two owners (the C checks
# are in userspace/spin/tools/spin-ioctl-test.c: memory, contexts,
# attachments, regions and mmap, events, statistics, teardown on close),
# then spinctl's own refusals, module unload with a context alive, and a
# clean kernel log.
# timeout: 180
. /opt/d2d/tests/lib.sh

check modprobe modprobe snic
check spin_devices sh -c "[ \$(ls /dev/snic-spin* | wc -l) -ge 1 ]"
spin-ioctl-test "guest/$T" /dev/snic-spin0 || D2D_FAILED=1

H=/usr/local/share/spin
check spinctl_help sh -c "spinctl --help | grep -q 'usage: spinctl'"
check spinctl_no_args sh -c "spinctl; [ \$? = 2 ]"
check spinctl_bad_command sh -c "spinctl frobnicate 2>&1 | grep -q 'unknown command'"
check spinctl_elf sh -c "spinctl elf $H/reduce.elf | grep -q 'entry completion=0x'"
check spinctl_not_elf sh -c "! spinctl elf /bin/busybox 2>/tmp/e; grep -q 'not a 32-bit' /tmp/e"
check spinctl_truncated sh -c "head -c 100 $H/reduce.elf > /tmp/t.elf;
	! spinctl elf /tmp/t.elf 2>/tmp/e; grep -q 'outside the file' /tmp/e"
check spinctl_garbage sh -c "head -c 4096 /dev/urandom > /tmp/g.elf;
	spinctl elf /tmp/g.elf 2>/dev/null; [ \$? = 2 ]"
check spinctl_bad_port sh -c "spinctl run -p 0 $H/reduce.elf 2>&1 | grep -q 'not a UDP port'"
check spinctl_bad_poke sh -c "spinctl run --poke nosuchsym=1 $H/reduce.elf 2>&1 | grep -q \"no symbol 'nosuchsym'\""
check spinctl_huge_region sh -c "! spinctl run -r 1000000000 $H/reduce.elf 2>/dev/null"
check spinctl_stats_dev sh -c "spinctl stats dev | grep -q '^devstats clusters='"

# A killed owner (SIGKILL: no cleanup of its own) loses its context and
# port: another process can attach to the port at once.
spinctl run -p 9556 -r 8192 "$H/empty.elf" > /tmp/k1.out 2>&1 &
pid=$!
sleep 1
check owner_ready grep -q '^ready ' /tmp/k1.out
kill -KILL $pid
wait $pid 2>/dev/null
check port_free_after_kill sh -c "spinctl run -p 9556 -t 1 $H/empty.elf | grep -q '^ready '"
check memory_back_after_kill sh -c "spinctl info | grep -q 'pmem_free=1048576 l2h_size=4194304 l2h_free=4194304'"

# An open context pins the module; the PCI function going away under it
# (unbind) tears the context down, the file gets ENODEV, no oops.
spinctl run -p 9555 -t 60 "$H/empty.elf" > /tmp/live.out 2>&1 &
pid=$!
sleep 2
check rmmod_refused_while_open sh -c "rmmod snic_ib; ! rmmod snic 2>/dev/null"
bdf=$(basename "$(readlink -f /sys/class/misc/snic-spin0/device)")
check unbind_with_context sh -c "echo $bdf > /sys/bus/pci/drivers/snic/unbind"
wait $pid
check spinctl_sees_enodev grep -q 'No such device' /tmp/live.out
check rebind sh -c "echo $bdf > /sys/bus/pci/drivers/snic/bind"
check dev_back sh -c "sleep 1; ls /dev/snic-spin* >/dev/null"
check rmmod_when_closed snic_rmmod
check modprobe_again modprobe snic
check dmesg_clean dmesg_clean
finish
