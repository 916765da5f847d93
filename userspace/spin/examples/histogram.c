/*
 * histogram: counts the datagrams' 32-bit integers in HIST_BINS bins
 * (bin = value % HIST_BINS) in handler memory with atomic increments; the
 * completion handler DMAs the whole table (u32 per bin) to host region 0.
 */
#include <spin.h>
#include <spin_net.h>

#define HIST_BINS	256

uint32_t hist[HIST_BINS] __attribute__((aligned(64)));
uint32_t hist_values;

static int histogram_payload(const struct spin_args *a)
{
	struct spin_udp_pkt *u = spin_udp_parse((void *)a->pkt, a->pkt_len);
	const uint32_t *v;
	uint32_t len, n, i;

	if (!u)
		return SPIN_DROP;
	v = (const uint32_t *)spin_udp_payload(u, a->pkt_len, &len);
	n = len / 4;
	for (i = 0; i < n; i++)
		spin_amo_add(&hist[v[i] % HIST_BINS], 1);
	spin_amo_add(&hist_values, n);
	return SPIN_DROP;
}
SPIN_PAYLOAD_HANDLER(histogram_payload);

static int histogram_completion(const struct spin_args *a)
{
	(void)a;
	if (spin_region_size(0) >= sizeof(hist))
		spin_wait(spin_dma_to_host(0, 0, hist, sizeof(hist)));
	return SPIN_DROP;
}
SPIN_COMPLETION_HANDLER(histogram_completion);
