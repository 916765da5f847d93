/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * offload.h: the request formats of the offload-engine examples
 * (batched_read.c, list_walk.c; docs/snic-spin.md "Offload engine"),
 * shared by the handlers and the host tool that sends the requests
 * (spin-offload).  Offsets are into the handler's host region 0; all
 * fields little endian.  Freestanding: only <stdint.h>.
 */
#ifndef SPIN_OFFLOAD_H
#define SPIN_OFFLOAD_H

#include <stdint.h>

#define OFFLOAD_OP_BATCH	0xc1	/* batched READ */
#define OFFLOAD_OP_WALK		0xc2	/* linked-list walk */

/* Batched READ: n buffers of len bytes at off[i]; response n * len. */
#define OFFLOAD_BATCH_MAX	32
struct offload_batch_req {
	uint32_t n;
	uint32_t len;
	uint32_t off[OFFLOAD_BATCH_MAX];	/* the first n are sent */
};

/* List walk: from node head, at most depth nodes, find key. */
struct offload_walk_req {
	uint32_t head;		/* offset of the first node */
	uint32_t key;
	uint32_t depth;
};

/* A list node, 64 bytes; the response is the node found (or zeros). */
#define OFFLOAD_NODE_END	0xffffffffu
struct offload_node {
	uint32_t key;
	uint32_t next;		/* offset of the next node, or NODE_END */
	uint32_t value[14];
};

#endif
