# Guest half of tests/bench/flexins-offload.sh: one guest in timing mode
# (tools/vm --timing, docs/timing.md), snic's two ports on one hub: the
# spin-offload server on dev0 (10.0.0.1) with the example handler on its
# QP, the client on dev1.  For each operation the client sends ITERS
# requests between insn-meter marks M and M + 1 (spin-offload -m), so the
# count covers the requests only, not the connection setup.  Prints
# "BENCH op=OP a=A b=B us=X hpu=C mark=M iters=N" lines; us is the
# client's guest-clock time per request (modeled time in timing mode), C
# the custom handler's mean HPU cycles per request (spinctl's account).
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc
. /opt/d2d/tests/spin.inc

spin_one_guest
ITERS=${ITERS:-20}
mark=10
port=18700

# serve ELF OPCODE: the server (pid in spid), and spinctl on its QP unless
# ELF is "-".
serve() {
	local i qpn
	port=$((port + 1))
	spin-offload -d "$dev0" -p $port server /tmp/img > /tmp/so.out 2>&1 &
	spid=$!
	for i in $(seq 1 100); do
		grep -q '^qpn=' /tmp/so.out && break
		sleep 0.1
	done
	qpn=$(sed -n 's/^qpn=//p' /tmp/so.out)
	[ "$1" = - ] && return 0
	spin_start off -d "$SPIN" --qp "${qpn:-none}" --opcode "$2" \
		-r 262144:r -i 0:/tmp/img -q "$H/$1.elf" >/dev/null ||
		echo "BENCH-ERROR spinctl $1 did not start"
}

# one ELF OPCODE OP A [B]: ITERS requests, the client marking them.
one() {
	local elf=$1 opc=$2 us hpu
	shift 2
	serve "$elf" "$opc"
	spin-offload -d "$dev1" -p $port -n $ITERS -m $mark client 10.0.0.1 "$@" \
		> /tmp/sc.out 2>&1
	wait $spid
	hpu=0
	if [ "$elf" != - ]; then
		spin_stop off
		hpu=$(spin_field off handler cycles_mean kind=payload)
	fi
	grep -q 'ok=1' /tmp/sc.out || echo "BENCH-ERROR $*: $(tail -1 /tmp/sc.out)"
	us=$(sed -n 's/.*us_per_op=\([0-9.]*\).*/\1/p' /tmp/sc.out)
	echo "BENCH op=$1 a=$2 b=${3:-0} us=${us:-0} hpu=${hpu:-0} mark=$mark iters=$ITERS"
	mark=$((mark + 10))
}

for n in 4 16; do
	one batched_read 0xc1 batch $n 64
	one - - reads $n 64
done
for d in 4 16; do
	one list_walk 0xc2 walk $d
	one - - chain $d
done
exit 0
