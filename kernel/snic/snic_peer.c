// SPDX-License-Identifier: GPL-2.0
/*
 * snic peer-queue API (<d2d/snic_peer.h>): raw Ethernet queues and steering
 * rules for other drivers, whose rings and doorbell records sit at bus
 * addresses the caller chooses (host RAM or a peer device's BAR).  RC QPs
 * of the same kind are in snic_ib_peer.c, on the objects list kept here.
 *
 * Queues are made with the same admin helpers as the net_device's; each
 * gets a doorbell page of its own so that a peer device can be handed the
 * page's bus address.  Each user has a handle of its own (struct
 * snic_peer) with the list of what it created: it may use, ring and
 * destroy only those, attach its queues only to its own CQs and steer
 * only to its own RQs (or drop); any other number is -ENOENT to it.
 *
 * A user of the API is the auxiliary driver of a peer device of its own,
 * snic.peer_<user>.N (snic_main.c): its probe gets the snic with
 * snic_peer_dev(), and its remove callback, which runs while the snic is
 * still whole, destroys what it made there.  There is no other way to a
 * snic, and no reference outlives the remove callback.
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <d2d/snic_peer.h>
#include <d2d/snic_rdma_ifc.h>
#include "snic.h"

/* When the peer device is added, before its driver can bind. */
void snic_peer_init(struct snic_peer *peer, struct snic_dev *sd)
{
	peer->sd = sd;
	INIT_LIST_HEAD(&peer->objs);
	peer->dead = false;
}

/*
 * After the user's remove callback, which should have destroyed what it
 * made: what is left is counted and freed (the device reset takes the
 * objects), later calls fail.
 */
void snic_peer_release(struct snic_peer *peer)
{
	struct snic_dev *sd = peer->sd;
	struct snic_peer_obj *o, *tmp;
	int n = 0;

	mutex_lock(&sd->peer_lock);
	peer->dead = true;
	list_for_each_entry_safe(o, tmp, &peer->objs, node) {
		snic_db_page_free(sd, o->page);
		list_del(&o->node);
		kfree(o);
		n++;
	}
	mutex_unlock(&sd->peer_lock);
	if (n)
		dev_warn(&sd->pdev->dev,
			 "%d peer queues/rules still existed at removal\n", n);
}

/* The handle of a snic.peer_<user>.N device; NULL for any other device. */
struct snic_peer *snic_peer_dev(struct auxiliary_device *adev)
{
	struct snic_peer *peer = &container_of(adev, struct snic_adev,
					       adev)->peer;

	return peer->sd ? peer : NULL;
}
EXPORT_SYMBOL_GPL(snic_peer_dev);

u64 snic_peer_caps(struct snic_peer *peer)
{
	return peer->sd->caps;
}
EXPORT_SYMBOL_GPL(snic_peer_caps);

struct net_device *snic_peer_netdev(struct snic_peer *peer)
{
	return peer->sd->netdev;
}
EXPORT_SYMBOL_GPL(snic_peer_netdev);

/* Returns with peer_lock held, or -ENODEV once the peer device is gone. */
int snic_peer_enter(struct snic_peer *peer)
{
	mutex_lock(&peer->sd->peer_lock);
	if (peer->dead) {
		mutex_unlock(&peer->sd->peer_lock);
		return -ENODEV;
	}
	return 0;
}
EXPORT_SYMBOL_NS_GPL(snic_peer_enter, SNIC_CORE);

void snic_peer_exit(struct snic_peer *peer)
{
	mutex_unlock(&peer->sd->peer_lock);
}
EXPORT_SYMBOL_NS_GPL(snic_peer_exit, SNIC_CORE);

/* @peer's own object @id of @kind, or NULL: others' are not seen. */
struct snic_peer_obj *snic_peer_obj_find(struct snic_peer *peer,
					 enum snic_peer_kind kind, u32 id)
{
	struct snic_peer_obj *o;

	lockdep_assert_held(&peer->sd->peer_lock);
	list_for_each_entry(o, &peer->objs, node)
		if (o->kind == kind && o->id == id)
			return o;
	return NULL;
}
EXPORT_SYMBOL_NS_GPL(snic_peer_obj_find, SNIC_CORE);

u64 snic_peer_db_bus(struct snic_dev *sd, int page, u32 offset)
{
	return sd->db_bus + (u64)page * SNIC_DB_PAGE_SIZE + offset;
}
EXPORT_SYMBOL_NS_GPL(snic_peer_db_bus, SNIC_CORE);

/* Create a queue of @kind on a fresh doorbell page. */
static int snic_peer_create(struct snic_peer *peer, enum snic_peer_kind kind,
			    const void *attr, struct snic_peer_queue *q)
{
	const struct snic_peer_cq_attr *ca = attr;
	const struct snic_peer_sq_attr *sa = attr;
	const struct snic_peer_rq_attr *ra = attr;
	struct snic_dev *sd = peer->sd;
	struct snic_peer_obj *o;
	u32 db_off;
	int ret;

	ret = snic_peer_enter(peer);
	if (ret)
		return ret;
	/* an SQ's or RQ's CQ is one of this user's own */
	if (kind != SNIC_PEER_CQ &&
	    !snic_peer_obj_find(peer, SNIC_PEER_CQ,
				kind == SNIC_PEER_SQ ? sa->cqn : ra->cqn)) {
		ret = -ENOENT;
		goto out;
	}
	o = kzalloc(sizeof(*o), GFP_KERNEL);
	if (!o) {
		ret = -ENOMEM;
		goto out;
	}
	o->kind = kind;
	o->page = snic_db_page_alloc(sd);
	if (o->page < 0) {
		ret = o->page;
		kfree(o);
		goto out;
	}
	switch (kind) {
	case SNIC_PEER_CQ:
		db_off = SNIC_DB_CQ;
		ret = -EOPNOTSUPP;
		if (ca->mini && !snic_has(sd, SNIC_CAP_MINI_CQE))
			break;
		ret = snic_cmd_create_cq(sd, ca->ring_bus, ca->dbr_bus,
					 ca->log_size,
					 ca->mini ? SNIC_CQ_F_MINI : 0,
					 SNIC_EQN_NONE, o->page,
					 &o->id);
		break;
	case SNIC_PEER_SQ:
		db_off = SNIC_DB_SQ;
		ret = snic_cmd_create_sq_flags(sd, sa->ring_bus, sa->dbr_bus,
					       sa->log_size, SNIC_SQ_F_RAW_ETH |
					       (sa->loopback ?
						SNIC_SQ_F_LOOPBACK : 0),
					       sa->cqn, o->page, &o->id);
		if (!ret && sa->rate_bps) {
			ret = snic_cmd_sq_rate(sd, o->id, sa->rate_bps);
			if (ret)
				snic_cmd_destroy(sd, SNIC_AQ_DESTROY_SQ, o->id);
		}
		break;
	default:
		db_off = SNIC_DB_RQ;
		ret = snic_cmd_create_rq(sd, ra->ring_bus, ra->dbr_bus,
					 ra->log_size, ra->type,
					 ra->log_stride_size,
					 ra->log_num_strides, ra->cqn, o->page,
					 &o->id);
		break;
	}
	if (ret) {
		snic_db_page_free(sd, o->page);
		kfree(o);
		goto out;
	}
	list_add_tail(&o->node, &peer->objs);
	q->qn = o->id;
	q->db_bus = snic_peer_db_bus(sd, o->page, db_off);
out:
	snic_peer_exit(peer);
	return ret;
}

int snic_peer_destroy(struct snic_peer *peer, enum snic_peer_kind kind,
		      u8 opcode, u32 id)
{
	struct snic_dev *sd = peer->sd;
	struct snic_peer_obj *o;
	int ret;

	ret = snic_peer_enter(peer);
	if (ret)
		return ret;
	o = snic_peer_obj_find(peer, kind, id);
	if (!o) {
		ret = -ENOENT;
		goto out;
	}
	ret = snic_cmd_destroy(sd, opcode, id);
	if (!ret) {
		if (kind == SNIC_PEER_QP)	/* a QP has a PD of its own */
			snic_cmd_destroy(sd, SNIC_AQ_DESTROY_PD, o->pdn);
		snic_db_page_free(sd, o->page);
		list_del(&o->node);
		kfree(o);
	}
out:
	snic_peer_exit(peer);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(snic_peer_destroy, SNIC_CORE);

int snic_peer_create_cq(struct snic_peer *peer,
			const struct snic_peer_cq_attr *attr,
			struct snic_peer_queue *cq)
{
	return snic_peer_create(peer, SNIC_PEER_CQ, attr, cq);
}
EXPORT_SYMBOL_GPL(snic_peer_create_cq);

int snic_peer_create_sq(struct snic_peer *peer,
			const struct snic_peer_sq_attr *attr,
			struct snic_peer_queue *sq)
{
	return snic_peer_create(peer, SNIC_PEER_SQ, attr, sq);
}
EXPORT_SYMBOL_GPL(snic_peer_create_sq);

int snic_peer_create_rq(struct snic_peer *peer,
			const struct snic_peer_rq_attr *attr,
			struct snic_peer_queue *rq)
{
	return snic_peer_create(peer, SNIC_PEER_RQ, attr, rq);
}
EXPORT_SYMBOL_GPL(snic_peer_create_rq);

int snic_peer_destroy_cq(struct snic_peer *peer, u32 cqn)
{
	return snic_peer_destroy(peer, SNIC_PEER_CQ, SNIC_AQ_DESTROY_CQ, cqn);
}
EXPORT_SYMBOL_GPL(snic_peer_destroy_cq);

int snic_peer_destroy_sq(struct snic_peer *peer, u32 sqn)
{
	return snic_peer_destroy(peer, SNIC_PEER_SQ, SNIC_AQ_DESTROY_SQ, sqn);
}
EXPORT_SYMBOL_GPL(snic_peer_destroy_sq);

int snic_peer_destroy_rq(struct snic_peer *peer, u32 rqn)
{
	return snic_peer_destroy(peer, SNIC_PEER_RQ, SNIC_AQ_DESTROY_RQ, rqn);
}
EXPORT_SYMBOL_GPL(snic_peer_destroy_rq);

/* A doorbell offset's queue kind, for the owner check. */
static int snic_peer_db_kind(u32 db_offset)
{
	switch (db_offset) {
	case SNIC_DB_SQ:
		return SNIC_PEER_SQ;
	case SNIC_DB_RQ:
		return SNIC_PEER_RQ;
	case SNIC_DB_CQ:
	case SNIC_DB_CQ_ARM:
		return SNIC_PEER_CQ;
	default:
		return -1;
	}
}

void snic_peer_ring(struct snic_peer *peer, const struct snic_peer_queue *q,
		    u32 db_offset, u16 counter)
{
	struct snic_dev *sd = peer->sd;
	int kind = snic_peer_db_kind(db_offset);
	struct snic_peer_obj *o;

	if (snic_peer_enter(peer))
		return;
	o = kind < 0 ? NULL : snic_peer_obj_find(peer, kind, q->qn);
	if (!o)
		dev_warn_ratelimited(&sd->pdev->dev,
				     "peer doorbell offset %#x of queue %u: not the caller's\n",
				     db_offset, q->qn);
	else
		snic_db_write(sd, o->page, db_offset, q->qn, counter);
	snic_peer_exit(peer);
}
EXPORT_SYMBOL_GPL(snic_peer_ring);

int snic_peer_add_rule(struct snic_peer *peer,
		       const struct snic_steer_rule *rule, u32 *rule_id)
{
	struct snic_steer_rule r = *rule;
	struct snic_peer_obj *o;
	u64 id;
	int ret;

	o = kzalloc(sizeof(*o), GFP_KERNEL);
	if (!o)
		return -ENOMEM;
	ret = snic_peer_enter(peer);
	if (ret) {
		kfree(o);
		return ret;
	}
	/* to one of the caller's RQs, or dropped */
	if (r.dest == SNIC_DEST_RQ)
		ret = snic_peer_obj_find(peer, SNIC_PEER_RQ,
					 le32_to_cpu(r.dest_id)) ? 0 : -ENOENT;
	else if (r.dest != SNIC_DEST_DROP)
		ret = -EPERM;
	if (!ret)
		ret = snic_aq_exec_buf(peer->sd, SNIC_AQ_ADD_RULE, 0, 0, &r,
				       sizeof(r), &id);
	if (ret) {
		kfree(o);
	} else {
		o->kind = SNIC_PEER_RULE;
		o->id = id;
		o->page = -1;
		list_add_tail(&o->node, &peer->objs);
		*rule_id = id;
	}
	snic_peer_exit(peer);
	return ret;
}
EXPORT_SYMBOL_GPL(snic_peer_add_rule);

int snic_peer_del_rule(struct snic_peer *peer, u32 rule_id)
{
	return snic_peer_destroy(peer, SNIC_PEER_RULE, SNIC_AQ_DEL_RULE,
				 rule_id);
}
EXPORT_SYMBOL_GPL(snic_peer_del_rule);

int snic_peer_set_sq_rate(struct snic_peer *peer, u32 sqn, u64 rate_bps)
{
	int ret;

	ret = snic_peer_enter(peer);
	if (ret)
		return ret;
	if (!snic_peer_obj_find(peer, SNIC_PEER_SQ, sqn))
		ret = -ENOENT;
	else
		ret = snic_cmd_sq_rate(peer->sd, sqn, rate_bps);
	snic_peer_exit(peer);
	return ret;
}
EXPORT_SYMBOL_GPL(snic_peer_set_sq_rate);

int snic_peer_query_stats(struct snic_peer *peer, u32 kind, u32 id,
			  struct snic_queue_stats *stats)
{
	int ret;

	if (kind != SNIC_STATS_SQ && kind != SNIC_STATS_RQ)
		return -EINVAL;
	ret = snic_peer_enter(peer);
	if (ret)
		return ret;
	if (!snic_peer_obj_find(peer, kind == SNIC_STATS_SQ ? SNIC_PEER_SQ :
				SNIC_PEER_RQ, id))
		ret = -ENOENT;
	else
		ret = snic_cmd_query_stats(peer->sd, kind, id, stats,
					   sizeof(*stats));
	snic_peer_exit(peer);
	return ret;
}
EXPORT_SYMBOL_GPL(snic_peer_query_stats);
