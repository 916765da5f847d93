# Stock nginx (Debian's binary, unchanged) serving files from the HDC
# engine's SSD through libd2d-sendfile.so: guest 1 starts nginx with
# LD_PRELOAD, guest 2 fetches files of 1 B .. 8 MiB with wget and checks
# their SHA-256 against the sums guest 1 serves.  The library's log shows
# the large files went by d2d (the engine sent them on the connection)
# and the small ones fell back to the kernel's sendfile (under
# D2D_SENDFILE_MIN); a file on tmpfs falls back with EXDEV.
# vm-args: --guests 2 --hdc @DISK@
# timeout: 600
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/hdc.inc

NGX=/tmp/ngx
LIB=/usr/lib/x86_64-linux-gnu/libd2d-sendfile.so
FILES="t/one t/4097 t/65549 t/1m1 out/8m tmp/tmpfs"

nginx_start() {
	mkdir -p $NGX
	cat > $NGX/nginx.conf <<EOF
user root;
worker_processes 1;
pid $NGX/nginx.pid;
events { worker_connections 64; }
http {
	sendfile on;
	access_log $NGX/access.log;
	client_body_temp_path $NGX/body;
	proxy_temp_path $NGX/proxy;
	fastcgi_temp_path $NGX/fastcgi;
	uwsgi_temp_path $NGX/uwsgi;
	scgi_temp_path $NGX/scgi;
	default_type application/octet-stream;
	server { listen 8080; root /mnt; }
}
EOF
	LD_PRELOAD=$LIB D2D_SENDFILE_LOG=$NGX/sendfile.log \
		nginx -e $NGX/error.log -p $NGX -c $NGX/nginx.conf
}

snic_eth_setup

if [ "$D2D_GUEST" = 1 ]; then
	check hdc_setup hdc_setup
	check ping_peer wait_ping "$peer" 30
	check make_8m sh -c "head -c 8388608 $T_DIR/big > $OUT/8m && sync"
	mkdir -p /mnt/tmp && mount -t tmpfs tmpfs /mnt/tmp
	head -c 200000 $T_DIR/big > /mnt/tmp/tmpfs
	check sums sh -c "cd /mnt && sha256sum $FILES > $OUT/SUMS"
	check nginx_start nginx_start
	check barrier_ready barrier 1
	check barrier_fetched barrier 2
	cat $NGX/sendfile.log
	check d2d_served sh -c "[ \$(grep -c '^d2d ' $NGX/sendfile.log) -ge 6 ]"
	check small_fell_back sh -c "grep -q '^fallback [0-9]* EMSGSIZE' $NGX/sendfile.log"
	check tmpfs_fell_back sh -c "grep -q '^fallback 200000 EXDEV' $NGX/sendfile.log"
	check no_d2d_errors sh -c "! grep -q '^error' $NGX/sendfile.log"
	check nginx_log_clean sh -c "! grep -E '\\[(alert|crit|error)\\]' $NGX/error.log"
	kill "$(cat $NGX/nginx.pid)"
	check nothing_in_flight sh -c "[ \$(cat $SYS/stats/inflight) = 0 ]"
else
	check ping_peer wait_ping "$peer" 30
	check barrier_ready barrier 1
	check fetch_sums wget -q -O /tmp/SUMS http://$peer:8080/out/SUMS
	for f in $FILES; do
		n=${f#*/}
		mkdir -p /tmp/$(dirname $f)
		check "fetch_$n" wget -q -O /tmp/$f http://$peer:8080/$f
	done
	check sha256_match sh -c "cd /tmp && sha256sum -c SUMS"
	check fetch_again wget -q -O /tmp/again http://$peer:8080/t/1m1
	check same_again cmp /tmp/again /tmp/t/1m1
	check barrier_fetched barrier 2
fi
check dmesg_clean dmesg_clean
finish
