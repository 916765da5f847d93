# Many requests at once: concurrent d2d processes (digests and copies),
# more NOWAIT requests than the 64-entry command queue holds (from one
# process and from several), and a fragmented file made here by
# interleaved appends (mkfs -d writes contiguously).
# vm-args: --hdc @DISK@
# timeout: 240
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/hdc.inc

check setup hdc_setup
cd "$T_DIR" || exit 1
SET="4k 4097 65549 1m1 text sparse 123456789 one"

# Concurrent submitters.
for f in $SET; do
	d2d digest --sha256 "$f" > "/tmp/c.$f" 2>&1 &
done
wait
ok=1
for f in $SET; do [ "$(cat "/tmp/c.$f")" = "$(sha256sum "$f")" ] || { ok=0; bad=$f; }; done
[ $ok = 1 ] && pass concurrent_digests || fail concurrent_digests "$bad: $(cat "/tmp/c.$bad")"

for f in $SET; do
	d2d copy "$f" "$OUT/cc.$f" > "/tmp/cc.$f" 2>&1 &
	d2d digest --md5 "$f" > "/tmp/cd.$f" 2>&1 &
done
wait
ok=1
for f in $SET; do
	cmp -s "$f" "$OUT/cc.$f" || { ok=0; bad="copy $f: $(cat "/tmp/cc.$f")"; }
	[ "$(cat "/tmp/cd.$f")" = "$(md5sum "$f")" ] || { ok=0; bad="digest $f: $(cat "/tmp/cd.$f")"; }
done
[ $ok = 1 ] && pass concurrent_copies_and_digests || fail concurrent_copies_and_digests "$bad"

# A full command queue: 100 and 300 NOWAIT requests from one process.
want=$(md5sum 65549 | cut -d' ' -f1)
check nowait_100 sh -c "out=\$(d2d raw --nowait 100 --func 2 65549) && echo \"\$out\" | grep -q 'ok requests=100 same_digests=yes' && echo \"\$out\" | grep -q '^digest0=$want'"
check nowait_300_chain sh -c "out=\$(d2d raw --nowait 300 --func 1 --func 2 --func 3 4097) && echo \"\$out\" | grep -q 'same_digests=yes' && echo \"\$out\" | grep -q \"^digest1=\$(md5sum 4097 | cut -d' ' -f1)\""
for i in 1 2 3 4; do
	d2d raw --nowait 80 --func 3 1m1 > "/tmp/nw.$i" 2>&1 &
done
wait
want=$(sha256sum 1m1 | cut -d' ' -f1)
ok=1
for i in 1 2 3 4; do
	grep -q 'same_digests=yes' "/tmp/nw.$i" && grep -q "^digest0=$want" "/tmp/nw.$i" || { ok=0; bad=$(tail -1 "/tmp/nw.$i"); }
done
[ $ok = 1 ] && pass nowait_four_processes || fail nowait_four_processes "$bad"
check queue_drained sh -c "[ \$(cat $SYS/stats/inflight) = 0 ] && [ \$(cat $SYS/stats/dev_inflight) = 0 ]"

# A fragmented file: two files growing in turns, written back each time.
i=0
while [ $i -lt 48 ]; do
	head -c 8192 /dev/urandom >> "$OUT/frag_a"
	sync
	head -c 8192 /dev/urandom >> "$OUT/frag_b"
	sync
	i=$((i + 1))
done
head -c 1234 /dev/urandom >> "$OUT/frag_a"
n=$(filefrag "$OUT/frag_a" | sed -n 's/.*: \([0-9]*\) extents\{0,1\} found.*/\1/p')
[ "${n:-0}" -gt 2 ] && pass fragmented_file || fail fragmented_file "$(filefrag "$OUT/frag_a")"
check frag_md5 sh -c "[ \"\$(d2d digest --md5 $OUT/frag_a)\" = \"\$(md5sum $OUT/frag_a)\" ]"
check frag_range sh -c "[ \"\$(d2d raw --func 3 --offset 5000 --length 300000 $OUT/frag_a | sed -n 's/^digest0=//p')\" = \"\$(dd if=$OUT/frag_a bs=5000 skip=1 count=60 2>/dev/null | sha256sum | cut -d' ' -f1)\" ]"
check frag_copy sh -c "d2d copy $OUT/frag_a $OUT/frag_copy && cmp $OUT/frag_a $OUT/frag_copy"
check frag_aes sh -c "d2d copy $OUT/frag_a $OUT/frag.enc --aes256-ctr $KEY2:$IV2 && d2d copy $OUT/frag.enc $OUT/frag.dec --aes256-ctr $KEY2:$IV2 && cmp $OUT/frag_a $OUT/frag.dec"
check frag_b_md5 sh -c "[ \"\$(d2d digest --md5 $OUT/frag_b)\" = \"\$(md5sum $OUT/frag_b)\" ]"

check no_request_errors sh -c "[ \$(cat $SYS/stats/errors) = 0 ]"
check dmesg_clean dmesg_clean
finish
