# The near-device units SHA-1, IEEE CRC32 and gzip framing: 'd2d digest
# --sha1' equals sha1sum for every test file, 'd2d digest --crc32' equals
# the CRC32 in the trailer gzip writes (and the check value of
# "123456789"), 'd2d copy --gzip' writes a gzip file the stock gunzip
# takes back (its CRC32 and length trailer checked), digests on both sides
# of the gzip transform.
# vm-args: --hdc @DISK@
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/hdc.inc

# gzip_crc FILE: the CRC32 gzip stores for FILE, as 8 hex digits.
gzip_crc() {
	gzip -c < "$1" | tail -c 8 | head -c 4 | od -An -tx4 | tr -d ' \n'
}

check setup hdc_setup
check caps_listed sh -c 'd2d stat | grep -q "sha1 crc32 gzip"'
cd "$T_DIR" || exit 1
check sha1_abc sh -c '[ "$(d2d digest --sha1 abc)" = "a9993e364706816aba3e25717850c26c9cd0d89d  abc" ]'
check crc32_check_value sh -c '[ "$(d2d digest --crc32 123456789)" = "cbf43926  123456789" ]'
check crc32_empty sh -c '[ "$(d2d digest --crc32 empty)" = "00000000  empty" ]'
for f in $FILES; do
	check "sha1_$f" sh -c "[ \"\$(d2d digest --sha1 $f)\" = \"\$(sha1sum $f)\" ]"
	check "crc32_$f" sh -c "[ \"\$(d2d digest --crc32 $f)\" = \"$(gzip_crc $f)  $f\" ]"
done
for f in empty one 4097 1m1 text sparse; do
	check "gzip_$f" sh -c "d2d copy $f $OUT/$f.gz --gzip && gunzip -c $OUT/$f.gz | cmp - $f"
done
check gzip_magic sh -c "[ \"\$($HEX -N3 $OUT/one.gz | tr -d ' \n')\" = 1f8b08 ]"
check gzip_test sh -c "gzip -t $OUT/text.gz"
check gzip_compresses sh -c "[ \$(stat -c %s $OUT/text.gz) -lt 262144 ]"
check gzip_sha1_of_src sh -c "[ \"\$(d2d copy text $OUT/t2.gz --sha1 --gzip)\" = \"\$(sha1sum text)\" ]"
check gzip_crc32_of_dst sh -c "d2d copy 1m1 $OUT/t3.gz --gzip --crc32 > $OUT/t3.crc"
check gzip_crc32_of_dst_value sh -c "[ \"\$(cat $OUT/t3.crc)\" = \"$(gzip_crc $OUT/t3.gz)  $OUT/t3.gz\" ]"
check gzip_big sh -c "d2d copy big $OUT/big.gz --gzip && [ \"\$(gunzip -c $OUT/big.gz | md5sum | cut -d' ' -f1)\" = \"\$(md5sum < big | cut -d' ' -f1)\" ]"
check no_request_errors sh -c "[ \$(cat $SYS/stats/errors) = 0 ]"
check dmesg_clean dmesg_clean
finish
