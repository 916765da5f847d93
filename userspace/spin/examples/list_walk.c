/*
 * list_walk: a server-side linked-list walk on the offload engine.  A
 * custom request (OFFLOAD_OP_WALK, offload.h) gives the head node, a key
 * and a depth; the handler chases the next offsets through host region 0
 * by DMA and answers with the node whose key matches (zeros if none
 * within depth): one round trip instead of a chain of client READs.
 * Run with spinctl run --qp QPN --opcode 0xc2 --region SIZE:r.
 * docs/snic-spin.md "Offload engine".
 */
#include <spin.h>
#include "offload.h"

static int list_walk(const struct spin_args *a)
{
	const volatile struct spin_custom *c = spin_custom_req(a);
	const struct offload_walk_req *r;
	struct offload_node *node;
	uint32_t off, i;

	if (!c || c->req_len < sizeof(*r))
		return SPIN_DROP;
	r = (const struct offload_walk_req *)(uintptr_t)c->req;
	node = spin_alloc_resp(a, sizeof(*node));
	if (!node)
		return SPIN_DROP;
	off = r->head;
	for (i = 0; i < r->depth && off != OFFLOAD_NODE_END; i++) {
		spin_wait(spin_submit_dma(0, off, node, sizeof(*node)));
		if (node->key == r->key) {
			spin_submit_resp(sizeof(*node));
			return SPIN_DROP;
		}
		off = node->next;
	}
	spin_submit_resp(0);
	return SPIN_DROP;
}
SPIN_CUSTOM_HANDLER(list_walk);
