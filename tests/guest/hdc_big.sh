# The 100 MiB file of tools/mkdisk.sh's image: digests equal the host's
# md5sum/sha256sum (the image's MD5SUMS/SHA256SUMS), a copy (chunked,
# several requests in flight, progress shown) compares equal after a
# cache drop, AES-256-CTR in chunks round-trips, deflate inflates back.
# vm-args: --hdc @DISK@
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/hdc.inc

check setup hdc_setup
cd "$T_DIR" || exit 1
md5=$(sed -n 's|  \./big$||p' ../MD5SUMS)
sha=$(sed -n 's|  \./big$||p' ../SHA256SUMS)
t0=$(cut -d' ' -f1 /proc/uptime)
check big_md5 sh -c "[ \"\$(d2d digest --md5 big)\" = '$md5  big' ]"
check big_sha256 sh -c "[ \"\$(d2d digest --sha256 big)\" = '$sha  big' ]"
check big_crc32c sh -c "d2d digest --crc32c big | grep -q '^[0-9a-f]\{8\}  big$'"
check big_copy sh -c "d2d copy --progress big $OUT/big 2>/tmp/progress && echo 3 > /proc/sys/vm/drop_caches && cmp big $OUT/big"
check progress_shown grep -q "copy 100.0/100.0 MiB (100%)" /tmp/progress
check big_copy_digest sh -c "[ \"\$(d2d copy big $OUT/big2 --md5)\" = '$md5  big' ] && [ \$(stat -c %s $OUT/big2) = 104857600 ]"
check big_aes_round_trip sh -c "d2d copy big $OUT/big.enc --aes256-ctr $KEY2:$IV2 && d2d copy $OUT/big.enc $OUT/big.dec --aes256-ctr $KEY2:$IV2 && [ \"\$(d2d digest --md5 $OUT/big.dec)\" = \"$md5  $OUT/big.dec\" ]"
check big_aes_chunks_match_one_request sh -c "[ \"\$(d2d copy big $OUT/big.enc1 --aes256-ctr $KEY2:$IV2 --md5)\" = \"\$(d2d digest --md5 $OUT/big.enc | sed 's|big.enc|big.enc1|')\" ]"
check big_deflate sh -c "d2d copy big $OUT/big.z --deflate && [ \"\$(d2d-inflate < $OUT/big.z | md5sum)\" = '$md5  -' ]"
t1=$(cut -d' ' -f1 /proc/uptime)
echo "INFO hdc_big: engine part took $(echo "$t1 $t0" | awk '{print $1 - $2}') s"
check counters sh -c "[ \$(cat $SYS/stats/bytes_in) -gt 500000000 ]"
check no_request_errors sh -c "[ \$(cat $SYS/stats/errors) = 0 ]"
check dmesg_clean dmesg_clean
finish
