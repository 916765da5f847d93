# XRC between two guests (one snic port each) with the stock
# ibv_xsrq_pingpong: guest 1 serves, guest 2 is the client; no request
# is NAKed (xrc_bad_srqn 0 on both).
# vm-args: --guests 2
# timeout: 300
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc

rdma_user_two_guests
check ping wait_ping "$peer" 60
check barrier_1 barrier 1
p=18540
cmd="ibv_xsrq_pingpong -d $dev -g $gid -p $p -s 4096 -n 50"
xpair xsrq_pingpong_two_guests "$p" 1 "$cmd" "$cmd 10.0.0.1"
check barrier_2 barrier 2
check xsrq_nothing_naked test "$(hw xrc_bad_srqn)" = 0
check dmesg_clean dmesg_clean
finish
