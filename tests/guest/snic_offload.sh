# The sPIN offload engine between two guests (docs/snic-spin.md "Offload
# engine"): guest 1 serves an RC QP with spin-offload (its data image in
# an MR and in the handler's region 0) and runs an example on that QP with
# spinctl --qp --opcode; guest 2 sends custom requests (IBV_WR_DRIVER1
# through libsnic) and the verbs-only baselines, and checks every byte.
# Round "batch": batched_read answers one request for 16 x 64 and 4 x 256
# bytes (and plain READs fetch the same); round "walk": list_walk finds
# the node 10 and 64 hops down the list (and a chain of READs does).
# Registering an opcode as nobody is refused (CAP_NET_ADMIN).
# vm-args: --guests 2
# timeout: 400
. /opt/d2d/tests/lib.sh
. /opt/d2d/tests/snic_eth.inc
. /opt/d2d/tests/snic_rdma_user.inc
. /opt/d2d/tests/spin.inc

ITERS=2
rdma_user_two_guests
check ping wait_ping "$peer" 60

# round NAME BARRIER ELF OPCODE CUSTOM_REQUESTS CLIENT_OPS...
round() {
	local n=$1 b=$2 elf=$3 op=$4 reqs=$5 spid qpn i r
	shift 5
	if [ "$me" = 1 ]; then
		timeout 300 spin-offload -d "$dev" -p 18600 server /tmp/img.$n > /tmp/so.$n 2>&1 &
		spid=$!
		for i in $(seq 1 100); do
			grep -q '^qpn=' /tmp/so.$n && break
			sleep 0.1
		done
		qpn=$(sed -n 's/^qpn=//p' /tmp/so.$n)
		if [ "$n" = batch ]; then
			check nobody_opcode_eperm refused opcode asnobody spinctl run \
				--qp "${qpn:-0}" --opcode "$op" -t 1 "$H/$elf.elf"
		fi
		check ${n}_start spin_start $n --qp "${qpn:-none}" --opcode "$op" \
			-r 262144:r -i 0:/tmp/img.$n "$H/$elf.elf"
		expect ${n}_ready "$(spin_field $n ready opcodes)" "$op"
		check barrier_$b barrier $b
		wait $spid && pass ${n}_server || fail ${n}_server "$(tail -1 /tmp/so.$n)"
		check barrier_$((b + 1)) barrier $((b + 1))
		check ${n}_stop spin_stop $n
		expect ${n}_handlers "$(spin_field $n handler invocations kind=payload)" "$reqs"
		expect ${n}_aborts "$(spin_field $n stats aborts aborts=)" 0
	else
		check barrier_$b barrier $b
		timeout 300 spin-offload -d "$dev" -p 18600 -n $ITERS client 10.0.0.1 "$@" \
			> /tmp/sc.$n 2>&1 || fail ${n}_client "$(tail -1 /tmp/sc.$n)"
		sed -n 's/^result op=\([a-z]*\) a=\([0-9]*\) b=\([0-9]*\) ok=\([01]\).*/\1_\2_\3:\4/p' \
			/tmp/sc.$n > /tmp/sr.$n
		for r in $(cat /tmp/sr.$n); do
			if [ "${r#*:}" = 1 ]; then
				pass "${n}_${r%:*}"
			else
				fail "${n}_${r%:*}" "wrong bytes"
			fi
		done
		expect ${n}_results "$(wc -l < /tmp/sr.$n)" \
			"$(printf '%s\n' "$@" | grep -c -E '^(batch|reads|walk|chain)$')"
		check barrier_$((b + 1)) barrier $((b + 1))
	fi
}

round batch 1 batched_read 0xc1 $((2 * ITERS)) batch 16 64 reads 16 64 batch 4 256 reads 4 256
round walk 3 list_walk 0xc2 $((2 * ITERS)) walk 10 chain 10 walk 64 chain 64
check dmesg_clean dmesg_clean
finish
