/*
 * rdma_reduce: reduce on an RDMA RC QP (spinctl --qp N).  Every RDMA SEND
 * or WRITE arriving on the QP is a multi-packet message; the payload
 * handlers sum its payload as 32-bit words into the message's scratch
 * (they may run in parallel: atomics) and pass every packet, so the
 * receiver's verbs see the message as without the context (with
 * rdma_reduce_drop poked to 1 they drop every packet instead: the
 * requester still completes, nothing is placed); the
 * completion handler writes the sum (mod 2^32) to host region 0 at
 * 4 * (msg_id % words of the region) - msg_id is the QP's message
 * sequence number, from 0.  docs/snic-spin.md "RDMA QPs".
 */
#include <spin.h>

struct rdma_reduce_stats {
	uint32_t messages;
	uint32_t packets;
	uint32_t bytes;		/* payload bytes summed */
};

struct rdma_reduce_stats rdma_reduce_stats;
uint32_t rdma_reduce_drop;	/* spinctl --poke rdma_reduce_drop=1 */

/* RoCEv2 opcodes with a RETH (WRITE first / only) or an ImmDt. */
static uint32_t roce_payload_off(uint32_t op)
{
	uint32_t off = 14 + 20 + 8 + 12;	/* Ethernet, IPv4, UDP, BTH */

	if (op == 0x06 || op == 0x0a || op == 0x0b)
		off += 16;
	if (op == 0x03 || op == 0x05 || op == 0x09 || op == 0x0b)
		off += 4;
	return off;
}

static int rdma_reduce_payload(const struct spin_args *a)
{
	const uint8_t *f = (const uint8_t *)a->pkt_l2;	/* the whole frame */
	uint32_t off, len, n, i, sum = 0;
	const uint32_t *v;

	if (a->full_len < 14 + 20 + 8 + 12 + 4)
		return SPIN_PASS;
	off = roce_payload_off(f[42]);
	len = a->full_len - off - ((f[43] >> 4) & 3) - 4;
	if (off + 4 > a->full_len || len > a->full_len)
		return SPIN_PASS;
	v = (const uint32_t *)(f + off);
	n = len / 4;
	for (i = 0; i < n; i++)
		sum += v[i];
	spin_amo_add((volatile uint32_t *)a->scratch, sum);
	spin_amo_add(&rdma_reduce_stats.packets, 1);
	spin_amo_add(&rdma_reduce_stats.bytes, len);
	return rdma_reduce_drop ? SPIN_DROP : SPIN_PASS;
}
SPIN_PAYLOAD_HANDLER(rdma_reduce_payload);

static int rdma_reduce_completion(const struct spin_args *a)
{
	uint32_t words = spin_region_size(0) / 4;

	spin_amo_add(&rdma_reduce_stats.messages, 1);
	if (words)
		spin_host_write32(0, 4 * (a->msg_id % words),
				  *(volatile uint32_t *)a->scratch);
	return SPIN_DROP;
}
SPIN_COMPLETION_HANDLER(rdma_reduce_completion);
