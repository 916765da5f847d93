/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snic peer-queue API: raw Ethernet queues whose rings and doorbell records
 * sit at caller-given bus addresses, for other drivers (fld, hdc, tests)
 * that let a peer device drive snic's data plane over PCIe.
 *
 * The caller owns the memory behind every bus address it passes (host RAM
 * it mapped for DMA, or a peer BAR) and formats WQEs, descriptors and CQEs
 * as <d2d/snic_if.h> and docs/snic.md define.  All functions sleep.
 */
#ifndef _D2D_SNIC_PEER_H
#define _D2D_SNIC_PEER_H

#include <linux/types.h>
#include <d2d/snic_if.h>

struct snic_dev;

/* A snic by netdev name ("eth1"); NULL if none.  Drop with snic_peer_put(). */
struct snic_dev *snic_peer_get_by_name(const char *ifname);
/* The @index-th bound snic (0-based, probe order); NULL if none. */
struct snic_dev *snic_peer_get(unsigned int index);
void snic_peer_put(struct snic_dev *sd);

struct snic_peer_cq_attr {
	u64 ring_bus;		/* 2^log_size 64-byte CQEs */
	u64 dbr_bus;		/* le32 consumer counter */
	u8 log_size;
};

struct snic_peer_sq_attr {
	u64 ring_bus;		/* 2^log_size 64-byte basic blocks */
	u64 dbr_bus;		/* le32 producer counter */
	u8 log_size;
	u32 cqn;
	u64 rate_bps;		/* 0: unlimited */
	/*
	 * Frames go to the port's own receive path (steering, checksum
	 * verdict, RSS) instead of the wire; a looped frame steered to an RQ
	 * on this SQ's CQ is dropped (loop guard).  docs/snic.md.
	 */
	bool loopback;
};

struct snic_peer_rq_attr {
	u64 ring_bus;		/* 2^log_size 16-byte descriptors */
	u64 dbr_bus;		/* le32 producer counter */
	u8 log_size;
	u32 cqn;
	u8 type;		/* SNIC_RQ_PLAIN or SNIC_RQ_STRIDING */
	u8 log_stride_size;
	u8 log_num_strides;
};

/*
 * What a peer needs to ring the queue's doorbell itself: the bus address
 * of the 32-bit doorbell register (BAR2 page + SNIC_DB_SQ / _RQ / _CQ) and
 * the queue number to put in SNIC_DB_VAL().
 */
struct snic_peer_queue {
	u32 qn;
	u64 db_bus;
};

/* Polled CQ (no events). */
int snic_peer_create_cq(struct snic_dev *sd,
			const struct snic_peer_cq_attr *attr,
			struct snic_peer_queue *cq);
int snic_peer_create_sq(struct snic_dev *sd,
			const struct snic_peer_sq_attr *attr,
			struct snic_peer_queue *sq);
int snic_peer_create_rq(struct snic_dev *sd,
			const struct snic_peer_rq_attr *attr,
			struct snic_peer_queue *rq);
int snic_peer_destroy_cq(struct snic_dev *sd, u32 cqn);
int snic_peer_destroy_sq(struct snic_dev *sd, u32 sqn);
int snic_peer_destroy_rq(struct snic_dev *sd, u32 rqn);

/* Ring a doorbell from the CPU: SNIC_DB_SQ/RQ/CQ(_ARM) with @counter. */
void snic_peer_ring(struct snic_dev *sd, const struct snic_peer_queue *q,
		    u32 db_offset, u16 counter);

/*
 * Steering: @rule as the device takes it (dest SNIC_DEST_RQ with a peer
 * rqn, SNIC_DEST_DROP, ...).  Returns the rule id in @rule_id.
 */
int snic_peer_add_rule(struct snic_dev *sd,
		       const struct snic_steer_rule *rule, u32 *rule_id);
int snic_peer_del_rule(struct snic_dev *sd, u32 rule_id);

/*
 * Rate limit (token bucket, bits/s; 0: none) of an SQ this peer created,
 * as at creation with snic_peer_sq_attr.rate_bps; -ENOENT if not its own.
 */
int snic_peer_set_sq_rate(struct snic_dev *sd, u32 sqn, u64 rate_bps);

/* Counters of a queue (SNIC_STATS_SQ / SNIC_STATS_RQ). */
int snic_peer_query_stats(struct snic_dev *sd, u32 kind, u32 id,
			  struct snic_queue_stats *stats);

#endif /* _D2D_SNIC_PEER_H */
