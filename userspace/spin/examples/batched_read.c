/*
 * batched_read: FlexiNS's batched READ on the offload engine.  A custom
 * request (OFFLOAD_OP_BATCH, offload.h) names n buffers of host region 0;
 * the handler gathers them by DMA straight into its response, which the
 * NIC sends back as one READ response: one round trip instead of n READs.
 * Run with spinctl run --qp QPN --opcode 0xc1 --region SIZE:r.
 * docs/snic-spin.md "Offload engine".
 */
#include <spin.h>
#include "offload.h"

static int batched_read(const struct spin_args *a)
{
	const volatile struct spin_custom *c = spin_custom_req(a);
	const struct offload_batch_req *r;
	uint32_t n, len, i;
	uint8_t *resp;

	if (!c || c->req_len < 8)
		return SPIN_DROP;	/* no response: the request fails */
	r = (const struct offload_batch_req *)(uintptr_t)c->req;
	n = r->n;
	len = r->len;
	if (!len || n > OFFLOAD_BATCH_MAX || c->req_len < 8 + 4 * n)
		return SPIN_DROP;
	resp = spin_alloc_resp(a, n * len);	/* n * len < 2^32: n <= 32 */
	if (!resp || len > c->resp_len)
		return SPIN_DROP;
	for (i = 0; i < n; i++)
		spin_submit_dma(0, r->off[i], resp + i * len, len);
	spin_wait_dma_finish();
	spin_submit_resp(n * len);
	return SPIN_DROP;
}
SPIN_CUSTOM_HANDLER(batched_read);
