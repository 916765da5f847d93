# Guest half of tests/bench/hdc.sh: the same work done by the HDC engine
# (d2d) and by the CPU (coreutils-like tools, copy_file_range, sendfile),
# each from a cold page cache and followed by sync, between insn-mark
# points.  Prints one "BENCH name=... mark=... secs=... ns=..." line per
# run: secs from /proc/uptime, ns from the guest's monotonic clock (in
# timing mode, tools/vm --timing, both are virtual, modeled time).
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/hdc.inc

hdc_setup > /tmp/setup.log 2>&1 || { echo "BENCH-ERROR setup: $(cat /tmp/setup.log)"; exit 1; }
cd "$T_DIR" || exit 1
now() { cut -d' ' -f1 /proc/uptime; }
# ns of the guest's monotonic clock (busybox date has no %N)
now_ns() { sed -n 's/^now at \([0-9]*\) nsecs.*/\1/p' /proc/timer_list | head -1; }

# run NAME MARK CMD: one measurement between marks MARK and MARK+1.
run() {
	local name=$1 mark=$2 t0 t1 n0 n1 rc
	shift 2
	rm -f "$OUT"/b.*
	sync
	echo 3 > /proc/sys/vm/drop_caches
	t0=$(now)
	n0=$(now_ns)
	insn-mark "$mark"
	sh -c "$1" > /dev/null 2>/tmp/bench.err
	rc=$?
	sync
	insn-mark $((mark + 1))
	n1=$(now_ns)
	t1=$(now)
	[ $rc = 0 ] || echo "BENCH-ERROR $name: status $rc: $(tail -1 /tmp/bench.err)"
	echo "BENCH name=$name mark=$mark secs=$(echo "$t1 $t0" | awk '{printf "%.2f", $1 - $2}') ns=$((n1 - n0)) rc=$rc"
}

F=big
run d2d-sha256 10 "d2d digest --sha256 $F"
run cpu-sha256 12 "sha256sum $F"
run d2d-md5 14 "d2d digest --md5 $F"
run cpu-md5 16 "md5sum $F"
run d2d-copy 20 "d2d copy $F $OUT/b.d2d"
run cpu-cp 22 "cp $F $OUT/b.cp"
run cpu-cfr 24 "cfr $F $OUT/b.cfr"
run cpu-sendfile 26 "cfr --sendfile $F $OUT/b.sf"
run d2d-copy-sha256 30 "d2d copy $F $OUT/b.d2ds --sha256"
run cpu-cp-sha256 32 "cp $F $OUT/b.cps && sha256sum $OUT/b.cps"
run cpu-tee-sha256 34 "tee $OUT/b.tee < $F | sha256sum"
run d2d-deflate 40 "d2d copy $F $OUT/b.z --deflate"
run cpu-gzip 42 "gzip -c $F > $OUT/b.gz"
run d2d-aes 50 "d2d copy $F $OUT/b.enc --aes256-ctr $KEY2:$IV2"
echo "BENCH-DONE mib=$(($(stat -c %s $F) / 1048576))"
