# FLD iotauth: an fld instance with the iotauth accelerator; fld.ko steers
# UDP port 5683 (CoAP) on snic #0 to FLD-E, tagged as tenant 1, and fldctl
# gives tenant 1 its HMAC-SHA256 key.  From the other snic port (another
# network namespace) CoAP messages carrying JSON Web Tokens are sent: a
# token signed with the tenant's key is passed on, a token signed with
# another key, an unsigned ("none") token, garbage and any token once the
# key is removed are dropped and counted by the device.  The tokens were
# made with Python's hmac module for the key below (hex).  Expiry: fld.ko
# gives the device the guest's Unix time at probe; a token whose exp is
# in 2096 passes, one whose exp was in 2020 is dropped, a non-numeric exp
# is malformed.  Each verdict has its own device counter (iot_*).
# vm-args: --guests 1 --qemu-arg -device --qemu-arg fld,id=fld0,accel=iotauth
# timeout: 200
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc

KEY=67756573742d74656e616e742d312d686d61632d6b65792d30313233343536373839
HDR=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9
CLAIMS=eyJzdWIiOiJzZW5zb3ItMSIsImlhdCI6MTcwMDAwMDAwMH0
GOOD=$HDR.$CLAIMS.eargWRSKTV1wTljs6NRoZOvOf1SbJApxAFcARA1UCHw
WRONGKEY=$HDR.$CLAIMS.WhMht5FvfY7Ohr7MPzd4Jx7WxwrFUC6pj7UuiKDOH80
FUTURE=$HDR.eyJzdWIiOiJzZW5zb3ItMSIsImV4cCI6NDAwMDAwMDAwMH0.nw5gYbmz3PXH3w_djE4svitlXzllf44ZWg3gk5rzq44
PAST=$HDR.eyJzdWIiOiJzZW5zb3ItMSIsImV4cCI6MTYwMDAwMDAwMH0.snbjgMngpN8ysbXLpJJt0Z-R_KSSjvoI4aTu3JkJpY0
BADEXP=$HDR.eyJzdWIiOiJzZW5zb3ItMSIsImV4cCI6Im5ldmVyIn0.IGte6f1KJJR8VyIhWKoMuyVNB2zZxlKqgUvxofVm_jo
NONE=eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJzZW5zb3ItMSJ9.U2fQpOkwAle4af6qvFpoCvtVz0iC7v3iwclfBdV3_zk

snic_pair_netns

check modprobe_fld modprobe fld snic="$if0" udp_port=5683 tenant=1
check accel_iotauth sh -c "fldctl show | grep -q 'accel iotauth'"
check tenant_1 sh -c "fldctl show | grep -q 'udp_port 5683 tenant 1'"
coap() { ip netns exec p fld-udp coap 10.0.0.1 5683 "$1"; }

check no_key_dropped sh -c "! ip netns exec p fld-udp coap 10.0.0.1 5683 $GOOD"
check key_set fldctl key 1 "$KEY"
check valid_token_passes coap "$GOOD"
check valid_token_again coap "$GOOD"
check unexpired_token_passes coap "$FUTURE"
check expired_token_dropped sh -c "! ip netns exec p fld-udp coap 10.0.0.1 5683 $PAST"
check exp_not_number_dropped sh -c "! ip netns exec p fld-udp coap 10.0.0.1 5683 $BADEXP"
check wrong_key_dropped sh -c "! ip netns exec p fld-udp coap 10.0.0.1 5683 $WRONGKEY"
check alg_none_dropped sh -c "! ip netns exec p fld-udp coap 10.0.0.1 5683 $NONE"
check garbage_dropped sh -c "! ip netns exec p fld-udp coap 10.0.0.1 5683 not-a-token"
check key_bad_hex sh -c "! fldctl key 1 xyz"
check key_bad_tenant sh -c "! fldctl key 4096 00"
check key_removed fldctl key 1 -
check removed_key_dropped sh -c "! ip netns exec p fld-udp coap 10.0.0.1 5683 $GOOD"
fldctl stats | grep -E '^(accel|iot)_' | sed 's/^/# /'
check passed_3 test "$(fldctl get accel_tx)" -eq 3
check dropped_5 test "$(fldctl get accel_drops)" -eq 5
check malformed_2 test "$(fldctl get accel_bad)" -eq 2
check iot_valid_3 test "$(fldctl get iot_valid)" -eq 3
check iot_expired_1 test "$(fldctl get iot_expired)" -eq 1
check iot_bad_sig_1 test "$(fldctl get iot_bad_sig)" -eq 1
check iot_bad_alg_1 test "$(fldctl get iot_bad_alg)" -eq 1
check iot_no_tenant_2 test "$(fldctl get iot_no_tenant)" -eq 2
check iot_malformed_2 test "$(fldctl get iot_malformed)" -eq 2
check rmmod_fld rmmod fld
ip netns del p
check rmmod_snic snic_rmmod
check dmesg_clean dmesg_clean
finish
