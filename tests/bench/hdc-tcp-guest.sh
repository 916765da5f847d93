# Guest half of the TCP part of tests/bench/hdc-net.sh: one guest in
# timing mode (tools/vm --timing --hdc: one clock, docs/timing.md), its
# two snic ports on one hub, the first 10.0.0.1 (the HDC engine's side),
# the second 10.0.0.2 in network namespace p (the peer: stock Linux TCP).
# The first SIZE bytes of the SSD's 100 MiB file go REPS times per method, each run
# between insn-mark points: 'd2d send --tcp' (the engine sends on the
# handed-over connection), 'udpsend --tcp --sendfile' (the kernel's
# sendfile) and 'udpsend --tcp' (read + send), the CPU baselines from a
# warm page cache; then nginx serving a 1 MiB file to wget in p, through
# libd2d-sendfile.so and stock (sendfile on).  Nothing is written to
# the SSD by these.  Then the receive side, NIC -> CRC32C -> SSD: p sends
# the first SIZE bytes of the same file on each connection, received
# into a file on the SSD by 'd2d recv --tcp --crc32c' (the engine) and
# by 'udprecv --tcp --crc32c' (read + write + CRC32C in software +
# fsync), REPS times each; one more of each checks both CRCs agree.
# Prints one "BENCH name=...
# size=... reps=... mark=... secs=..." line per run; secs is modeled
# (virtual, instruction-counted) time.
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/hdc.inc

PORT=9300
NGX=/tmp/ngx
LIB=/usr/lib/x86_64-linux-gnu/libd2d-sendfile.so
snic_pair_netns > /tmp/setup.log 2>&1
grep -q '^FAIL' /tmp/setup.log && { echo "BENCH-ERROR snic: $(cat /tmp/setup.log)"; exit 1; }
hdc_setup > /tmp/setup.log 2>&1 || { echo "BENCH-ERROR setup: $(cat /tmp/setup.log)"; exit 1; }
# Modeled seconds, to the nanosecond (the kernel's clock: /proc/timer_list).
now() {
	awk '/^now at/ { printf "%.9f\n", $3 / 1e9; exit }' /proc/timer_list
}
# Nothing is written to the SSD (timing mode models its writes too): the
# first SIZE bytes of the 100 MiB file.
F=$T_DIR/big
head -c 4194304 $F > /dev/null	# warm page cache for the CPU baselines
ip netns exec p socat -u TCP-LISTEN:$PORT,reuseaddr,fork OPEN:/dev/null &
sleep 1

# run NAME SIZE REPS MARK CMD: CMD REPS times between MARK and MARK+1.
run() {
	local name=$1 size=$2 reps=$3 mark=$4 t0 t1 rc=0 k
	shift 4
	t0=$(now)
	insn-mark "$mark"
	for k in $(seq 1 "$reps"); do
		sh -c "$1" > /dev/null 2>/tmp/bench.err || rc=$?
	done
	insn-mark $((mark + 1))
	t1=$(now)
	[ $rc = 0 ] || echo "BENCH-ERROR $name/$size: status $rc: $(tail -1 /tmp/bench.err)"
	echo "BENCH name=$name size=$size reps=$reps mark=$mark secs=$(echo "$t1 $t0" | awk '{printf "%.6f", $1 - $2}') rc=$rc"
}

# marks are 8 bits: 180..253 here (hdc-net-guest.sh uses 100..179)
mark=180
for size in 65536 1048576 4194304; do
	reps=$((size >= 4194304 ? 2 : size >= 1048576 ? 4 : 8))
	run d2d-tcp "$size" $reps $mark "d2d send --tcp --length $size $F 10.0.0.2:$PORT"
	run sendfile-tcp "$size" $reps $((mark + 2)) "udpsend --tcp --sendfile --length $size $F 10.0.0.2 $PORT"
	run read-send-tcp "$size" $reps $((mark + 4)) "udpsend --tcp --length $size $F 10.0.0.2 $PORT"
	mark=$((mark + 10))
done

# nginx: the same binary and configuration on two ports, one of them
# with the preload library (two masters, one worker each).
ngx_conf() {	# ngx_conf PORT DIR
	mkdir -p "$2"
	cat > "$2/nginx.conf" <<EOF
user root;
worker_processes 1;
pid $2/nginx.pid;
events { worker_connections 64; }
http {
	sendfile on;
	access_log off;
	client_body_temp_path $2/body;
	proxy_temp_path $2/proxy;
	fastcgi_temp_path $2/fastcgi;
	uwsgi_temp_path $2/uwsgi;
	scgi_temp_path $2/scgi;
	default_type application/octet-stream;
	server { listen 10.0.0.1:$1; root $T_DIR; }
}
EOF
}
ngx_conf 8080 $NGX-d2d
ngx_conf 8081 $NGX-stock
LD_PRELOAD=$LIB D2D_SENDFILE_LOG=$NGX-d2d/sendfile.log \
	nginx -e $NGX-d2d/error.log -p $NGX-d2d -c $NGX-d2d/nginx.conf ||
	echo "BENCH-ERROR nginx (d2d)"
nginx -e $NGX-stock/error.log -p $NGX-stock -c $NGX-stock/nginx.conf ||
	echo "BENCH-ERROR nginx (stock)"
sleep 1
# The receive side: p serves the first $(cat /tmp/rsize) bytes of F.
ip netns exec p socat TCP-LISTEN:$((PORT + 1)),reuseaddr,fork \
	SYSTEM:"head -c \$(cat /tmp/rsize) $F" &
sleep 1
mark=230
for size in 65536 1048576 4194304; do
	reps=$((size >= 4194304 ? 2 : size >= 1048576 ? 4 : 8))
	echo $size > /tmp/rsize
	run d2d-recv-tcp "$size" $reps $mark "d2d recv --tcp --crc32c 10.0.0.2:$((PORT + 1)) $OUT/rtcp --bytes $size"
	run cpu-recv-tcp "$size" $reps $((mark + 2)) "udprecv --tcp --crc32c 10.0.0.2 $((PORT + 1)) $OUT/rtcp $size"
	a=$(d2d recv --tcp --crc32c 10.0.0.2:$((PORT + 1)) $OUT/rtcp --bytes $size 2>/dev/null | cut -d' ' -f1)
	b=$(udprecv --tcp --crc32c 10.0.0.2 $((PORT + 1)) $OUT/rtcp $size | cut -d' ' -f1)
	echo "BENCH-INFO recv-$size-crc32c: d2d $a, CPU $b, $([ -n "$a" ] && [ "$a" = "$b" ] && echo equal || echo DIFFERENT)"
	mark=$((mark + 10))
done
rm -f $OUT/rtcp

run nginx-d2d 1048577 8 220 "ip netns exec p wget -q -O /dev/null http://10.0.0.1:8080/1m1"
run nginx-stock 1048577 8 222 "ip netns exec p wget -q -O /dev/null http://10.0.0.1:8081/1m1"
echo "BENCH-INFO nginx-d2d sendfile calls by d2d: $(grep -c '^d2d ' $NGX-d2d/sendfile.log 2>/dev/null), fallbacks: $(grep -c '^fallback' $NGX-d2d/sendfile.log 2>/dev/null)"
echo "BENCH-DONE"
