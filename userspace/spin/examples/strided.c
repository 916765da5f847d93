/*
 * strided: a datatype receive.  Each datagram carries [u32 offset][data]
 * where offset is the data's byte position in the message stream; the
 * payload handler scatters it into host region 0 in STRIDE_BLOCK-byte
 * blocks STRIDE_STRIDE bytes apart (stream byte p lands at
 * (p / 256) * 512 + p % 256), one DMA per block piece, straight from L1.
 */
#include <spin.h>
#include <spin_net.h>

#define STRIDE_BLOCK	256
#define STRIDE_STRIDE	512
#define STRIDE_MAX_DMAS	16

struct strided_stats {
	uint32_t packets, dmas, bytes, bad;
} strided_stats;

static int strided_payload(const struct spin_args *a)
{
	struct spin_udp_pkt *u = spin_udp_parse((void *)a->pkt, a->pkt_len);
	spin_handle_t h[STRIDE_MAX_DMAS];
	const uint8_t *data;
	uint32_t len, pos, n = 0, room = spin_region_size(0);

	if (!u || a->pkt_len != a->full_len)
		goto bad;
	len = spin_udp_payload_len(u);
	if (len < 4 || len > a->pkt_len - SPIN_UDP_HLEN)
		goto bad;
	data = (const uint8_t *)u + SPIN_UDP_HLEN;
	pos = *(const uint32_t *)data;
	data += 4;
	len -= 4;
	/* The last byte's place must be inside the region. */
	if (len && ((pos + len - 1) / STRIDE_BLOCK * STRIDE_STRIDE +
		    (pos + len - 1) % STRIDE_BLOCK >= room ||
		    pos + len < pos))
		goto bad;
	while (len) {
		uint32_t in = pos % STRIDE_BLOCK;
		uint32_t chunk = STRIDE_BLOCK - in;

		if (chunk > len)
			chunk = len;
		if (n == STRIDE_MAX_DMAS) {
			spin_wait_all(h, n);
			n = 0;
		}
		h[n++] = spin_dma_to_host(0, pos / STRIDE_BLOCK * STRIDE_STRIDE + in,
					  data, chunk);
		spin_amo_add(&strided_stats.dmas, 1);
		spin_amo_add(&strided_stats.bytes, chunk);
		data += chunk;
		pos += chunk;
		len -= chunk;
	}
	/* L1 is reused once the handler ends: finish the DMAs first. */
	spin_wait_all(h, n);
	spin_amo_add(&strided_stats.packets, 1);
	return SPIN_DROP;
bad:
	spin_amo_add(&strided_stats.bad, 1);
	return SPIN_DROP;
}
SPIN_PAYLOAD_HANDLER(strided_payload);
