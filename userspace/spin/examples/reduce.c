/*
 * reduce: each message (a UDP datagram) carries a slot number and 32-bit
 * integers: [u32 slot][s32 v0][s32 v1]...  The payload handler sums the
 * integers into the message's scratch; the completion handler writes the
 * sum (mod 2^32) to host region 0 at 4 * slot with a host-direct write.
 * Messages whose slot does not fit the region are counted, not written.
 */
#include <spin.h>
#include <spin_net.h>

struct reduce_msg {		/* per-message scratch */
	uint32_t sum;
	uint32_t slot;
	uint32_t valid;
};

struct reduce_stats {
	uint32_t messages;
	uint32_t bad;
};

struct reduce_stats reduce_stats;

static int reduce_header(const struct spin_args *a)
{
	struct reduce_msg *m = (struct reduce_msg *)a->scratch;
	struct spin_udp_pkt *u = spin_udp_parse((void *)a->pkt, a->pkt_len);

	if (u && spin_udp_payload_len(u) >= 4 && a->pkt_len >= SPIN_UDP_HLEN + 4) {
		m->slot = *(const uint32_t *)((const uint8_t *)u + SPIN_UDP_HLEN);
		m->valid = 1;
	}
	return SPIN_DROP;
}
SPIN_HEADER_HANDLER(reduce_header);

static int reduce_payload(const struct spin_args *a)
{
	struct reduce_msg *m = (struct reduce_msg *)a->scratch;
	struct spin_udp_pkt *u = spin_udp_parse((void *)a->pkt, a->pkt_len);
	const uint32_t *v;
	uint32_t n, i, sum = 0, len;

	if (!u)
		return SPIN_DROP;
	v = (const uint32_t *)spin_udp_payload(u, a->pkt_len, &len);
	n = len / 4;
	for (i = 1; i < n; i++)
		sum += v[i];
	/* Payload handlers of a message may run in parallel. */
	spin_amo_add(&m->sum, sum);
	return SPIN_DROP;
}
SPIN_PAYLOAD_HANDLER(reduce_payload);

static int reduce_completion(const struct spin_args *a)
{
	struct reduce_msg *m = (struct reduce_msg *)a->scratch;

	spin_amo_add(&reduce_stats.messages, 1);
	if (!m->valid || m->slot >= spin_region_size(0) / 4) {
		spin_amo_add(&reduce_stats.bad, 1);
		return SPIN_DROP;
	}
	spin_host_write32(0, 4 * m->slot, m->sum);
	return SPIN_DROP;
}
SPIN_COMPLETION_HANDLER(reduce_completion);
