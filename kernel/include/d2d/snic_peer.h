/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snic peer-queue API: raw Ethernet queues whose rings and doorbell records
 * sit at caller-given bus addresses, for other drivers (fld, hdc, tests)
 * that let a peer device drive snic's data plane over PCIe.
 *
 * A user reaches a snic only through the bus: snic adds, per function, one
 * auxiliary device per user, snic.peer_<user>.N (snic.peer_fld.N for fld,
 * snic.peer_hdc.N for hdc, snic.peer_test.N for the test module), and the
 * user's auxiliary driver binds it ({ .name = "snic.peer_<user>" }).  Its
 * probe gets its handle on the snic with snic_peer_dev(); its remove
 * callback runs while the snic still works (before its net_device and
 * ib_device go: unbind, rmmod snic, the Ethernet device unbound) and must
 * destroy everything the user created on it; after remove the handle is
 * not to be used.
 *
 * A handle names only what its user created: queues, rules and QPs of
 * other users (or of snic's own net_device and ib_device) are -ENOENT to
 * it, as a CQ for a new queue, a steering destination, a doorbell to
 * ring, counters to read or an object to destroy.  A rule goes to one of
 * the user's own RQs (SNIC_DEST_RQ) or drops (SNIC_DEST_DROP); any other
 * destination is -EPERM.
 *
 * The caller owns the memory behind every bus address it passes (host RAM
 * it mapped for DMA, or a peer BAR) and formats WQEs, descriptors and CQEs
 * as <d2d/snic_ifc.h> and docs/snic.md define.  All functions sleep.
 */
#ifndef _D2D_SNIC_PEER_H
#define _D2D_SNIC_PEER_H

#include <linux/types.h>
#include <d2d/snic_ifc.h>

struct snic_peer;
struct auxiliary_device;
struct net_device;

/*
 * The user's handle on the snic of a snic.peer_<user>.N device, from its
 * driver's probe; NULL for any other auxiliary device.
 */
struct snic_peer *snic_peer_dev(struct auxiliary_device *adev);
/* Its net_device (e.g. to pick a snic by interface name). */
struct net_device *snic_peer_netdev(struct snic_peer *peer);
/* The device's SNIC_CAP_* bits (IDENTIFY caps). */
u64 snic_peer_caps(struct snic_peer *peer);

struct snic_peer_cq_attr {
	u64 ring_bus;		/* 2^log_size 64-byte CQEs */
	u64 dbr_bus;		/* le32 consumer counter */
	u8 log_size;
	bool mini;		/* SNIC_CQ_F_MINI: mini-CQE lines (SNIC_CAP_MINI_CQE) */
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
int snic_peer_create_cq(struct snic_peer *peer,
			const struct snic_peer_cq_attr *attr,
			struct snic_peer_queue *cq);
int snic_peer_create_sq(struct snic_peer *peer,
			const struct snic_peer_sq_attr *attr,
			struct snic_peer_queue *sq);
int snic_peer_create_rq(struct snic_peer *peer,
			const struct snic_peer_rq_attr *attr,
			struct snic_peer_queue *rq);
int snic_peer_destroy_cq(struct snic_peer *peer, u32 cqn);
int snic_peer_destroy_sq(struct snic_peer *peer, u32 sqn);
int snic_peer_destroy_rq(struct snic_peer *peer, u32 rqn);

/* Ring a doorbell from the CPU: SNIC_DB_SQ/RQ/CQ(_ARM) with @counter. */
void snic_peer_ring(struct snic_peer *peer, const struct snic_peer_queue *q,
		    u32 db_offset, u16 counter);

/*
 * Steering: @rule as the device takes it (dest SNIC_DEST_RQ with a peer
 * rqn, SNIC_DEST_DROP, ...).  Returns the rule id in @rule_id.
 */
int snic_peer_add_rule(struct snic_peer *peer,
		       const struct snic_steer_rule *rule, u32 *rule_id);
int snic_peer_del_rule(struct snic_peer *peer, u32 rule_id);

/*
 * Rate limit (token bucket, bits/s; 0: none) of an SQ this peer created,
 * as at creation with snic_peer_sq_attr.rate_bps; -ENOENT if not its own.
 */
int snic_peer_set_sq_rate(struct snic_peer *peer, u32 sqn, u64 rate_bps);

/* Counters of a queue (SNIC_STATS_SQ / SNIC_STATS_RQ). */
int snic_peer_query_stats(struct snic_peer *peer, u32 kind, u32 id,
			  struct snic_queue_stats *stats);

/*
 * RDMA RC QPs whose send ring, receive ring and doorbell record are at
 * caller-given bus addresses (snic_ib_peer.c, docs/snic-rdma.md).  The QP
 * is privileged (SNIC_QP_F_PRIV: lkey 0 names bus addresses) in a PD of
 * its own; its CQs come from snic_peer_create_cq().  The caller rings
 * SNIC_DB_QP_SQ / SNIC_DB_QP_RQ on the doorbell page returned, formats the
 * WQEs (<d2d/snic_rdma_ifc.h>) and connects the QP by handing
 * snic_peer_modify_qp() what rdma_init_qp_attr() gives for each state;
 * accept a connection with rdma_accept() and conn_param.qp_num = qpn.
 */
struct snic_peer_qp_attr {
	u64 sq_bus;		/* 2^sq_log 64-byte basic blocks */
	u64 rq_bus;		/* 2^rq_log receive WQEs of 2^rq_log_stride B */
	u64 dbr_bus;		/* le32 receive producer, le32 send producer */
	u8 sq_log;
	u8 rq_log;
	u8 rq_log_stride;	/* 5..8 */
	u32 send_cqn;
	u32 recv_cqn;
};

struct snic_peer_qp {
	u32 qpn;
	u64 db_page_bus;	/* the QP's doorbell page */
};

struct ib_device;
struct ib_qp_attr;

/* The ib_device on top of this snic (rdma_cm ids name it); NULL if none. */
struct ib_device *snic_peer_ib_device(struct snic_peer *peer);
int snic_peer_create_qp(struct snic_peer *peer,
			const struct snic_peer_qp_attr *attr,
			struct snic_peer_qp *qp);
/* MODIFY_QP with verbs attributes, checked as ib_modify_qp() would. */
int snic_peer_modify_qp(struct snic_peer *peer, u32 qpn,
			struct ib_qp_attr *attr, int mask);
int snic_peer_destroy_qp(struct snic_peer *peer, u32 qpn);

#endif /* _D2D_SNIC_PEER_H */
