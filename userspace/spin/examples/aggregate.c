/*
 * aggregate: a running aggregate over every datagram the context gets.
 * The payload handler adds the datagram's 32-bit integers into a 64-bit
 * total in handler memory and counts packets and payload bytes, with RV32A
 * atomics (handlers run in parallel on many HPUs); the completion handler
 * publishes the totals to host region 0 as
 * { u32 sum_lo, u32 sum_hi, u32 packets, u32 bytes } (one host write).
 * The integers are unsigned here, so sum is the exact 64-bit total.
 */
#include <spin.h>
#include <spin_net.h>

struct aggregate {
	uint32_t sum_lo;
	uint32_t sum_hi;
	uint32_t packets;
	uint32_t bytes;
};

struct aggregate agg;

static int aggregate_payload(const struct spin_args *a)
{
	struct spin_udp_pkt *u = spin_udp_parse((void *)a->pkt, a->pkt_len);
	const uint32_t *v;
	uint32_t len, n, i, lo = 0, hi = 0, old;

	if (!u)
		return SPIN_DROP;
	/* Misaligned (offset 42) word loads: the HPU does them. */
	v = (const uint32_t *)spin_udp_payload(u, a->pkt_len, &len);
	n = len / 4;
	for (i = 0; i < n; i++) {
		lo += v[i];
		hi += lo < v[i];
	}
	old = spin_amo_add(&agg.sum_lo, lo);
	hi += old + lo < old;
	if (hi)
		spin_amo_add(&agg.sum_hi, hi);
	spin_amo_add(&agg.bytes, len);
	spin_amo_add(&agg.packets, 1);
	return SPIN_DROP;
}
SPIN_PAYLOAD_HANDLER(aggregate_payload);

static int aggregate_completion(const struct spin_args *a)
{
	struct aggregate snap;

	(void)a;
	snap.sum_lo = agg.sum_lo;
	snap.sum_hi = agg.sum_hi;
	snap.packets = agg.packets;
	snap.bytes = agg.bytes;
	spin_host_write(0, 0, &snap, sizeof(snap));
	return SPIN_DROP;
}
SPIN_COMPLETION_HANDLER(aggregate_completion);
