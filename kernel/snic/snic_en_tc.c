// SPDX-License-Identifier: GPL-2.0
/*
 * snic traffic control offloads (ndo_setup_tc): mqprio in channel mode
 * with the bw_rlimit shaper on the per-SQ rate limiters.
 *
 * mqprio "hw 1 mode channel": traffic class T owns count[T] TX queues
 * from offset[T]; its max_rate is split evenly over them, one rate
 * limiter per queue (MODIFY_SQ, as tx_maxrate), so the class never
 * exceeds it.  min_rate is refused (the device has no guarantee).  The
 * rates show in /sys/class/net/IF/queues/tx-N/tx_maxrate (Mbit/s) and
 * survive channel rebuilds; deleting the qdisc clears them.
 *
 * flower on the ingress block (TC_SETUP_BLOCK, TC_SETUP_CLSFLOWER): an
 * IPv4 match (destination MAC, IP protocol, addresses under mask, exact
 * TCP/UDP ports) with one action, drop or hw_tc (the first queue of that
 * mqprio class), becomes a device steering rule of priority
 * SNIC_FLOWER_PRIO + the filter's pref, counted; the rules live in the
 * driver and are re-added whenever the channels are rebuilt.  tc -s reads
 * the rule's device counters.
 */
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/flow_offload.h>
#include <net/pkt_cls.h>
#include <net/pkt_sched.h>
#include "snic.h"
#include "snic_en.h"

/* Per-queue rates @bps (priv->num_ch entries) to the device and sysfs. */
static int snic_tc_rates_apply(struct snic_priv *priv, const u64 *bps)
{
	int q, ret;

	for (q = 0; q < priv->num_ch; q++) {
		if (bps[q] != priv->tx_rate[q]) {
			ret = snic_tx_rate_set(priv, q, bps[q]);
			if (ret)
				return ret;
		}
		netdev_get_tx_queue(priv->netdev, q)->tx_maxrate =
			div_u64(bps[q], 1000000);
	}
	return 0;
}

static int snic_mqprio_del(struct snic_priv *priv)
{
	u64 zero[SNIC_MAX_CHANNELS] = { };

	netdev_reset_tc(priv->netdev);
	return snic_tc_rates_apply(priv, zero);
}

static int snic_setup_mqprio(struct snic_priv *priv,
			     struct tc_mqprio_qopt_offload *mq)
{
	struct net_device *nd = priv->netdev;
	u64 bps[SNIC_MAX_CHANNELS] = { }, old[SNIC_MAX_CHANNELS];
	u8 num_tc = mq->qopt.num_tc;
	int tc, q, ret;

	ASSERT_RTNL();
	if (!num_tc)
		return snic_mqprio_del(priv);
	if (mq->mode != TC_MQPRIO_MODE_CHANNEL ||
	    (mq->shaper != TC_MQPRIO_SHAPER_DCB &&
	     mq->shaper != TC_MQPRIO_SHAPER_BW_RATE)) {
		netdev_err(nd, "mqprio: only mode channel, shaper dcb or bw_rlimit\n");
		return -EOPNOTSUPP;
	}
	if ((mq->flags & TC_MQPRIO_F_MIN_RATE) &&
	    memchr_inv(mq->min_rate, 0, num_tc * sizeof(mq->min_rate[0]))) {
		netdev_err(nd, "mqprio: min_rate is not supported, only max_rate\n");
		return -EOPNOTSUPP;
	}
	for (tc = 0; tc < num_tc; tc++) {
		u16 count = mq->qopt.count[tc], off = mq->qopt.offset[tc];
		u64 per;

		if (!count || off + count > priv->num_ch) {
			netdev_err(nd, "mqprio: class %d queues %u@%u outside the %d channels\n",
				   tc, count, off, priv->num_ch);
			return -EINVAL;
		}
		if (mq->shaper != TC_MQPRIO_SHAPER_BW_RATE ||
		    !(mq->flags & TC_MQPRIO_F_MAX_RATE) || !mq->max_rate[tc])
			continue;
		/* bytes/s of the class, split over its queues, in bit/s */
		per = div_u64(mq->max_rate[tc] * 8, count);
		if (!per) {
			netdev_err(nd, "mqprio: class %d max_rate too small\n", tc);
			return -EINVAL;
		}
		for (q = off; q < off + count; q++)
			bps[q] = per;
	}
	if (mq->shaper == TC_MQPRIO_SHAPER_BW_RATE &&
	    !snic_has(priv->sd, SNIC_CAP_RATE)) {
		netdev_err(nd, "mqprio: the device has no rate limiter\n");
		return -EOPNOTSUPP;
	}

	memcpy(old, priv->tx_rate, priv->num_ch * sizeof(*old));
	ret = snic_tc_rates_apply(priv, bps);
	if (ret) {
		netdev_err(nd, "mqprio: rate limiter: %d\n", ret);
		snic_tc_rates_apply(priv, old);
		return ret;
	}
	ret = netdev_set_num_tc(nd, num_tc);
	if (ret) {
		snic_tc_rates_apply(priv, old);
		return ret;
	}
	for (tc = 0; tc < num_tc; tc++)
		netdev_set_tc_queue(nd, tc, mq->qopt.count[tc],
				    mq->qopt.offset[tc]);
	mq->qopt.hw = TC_MQPRIO_HW_OFFLOAD_TCS;
	return 0;
}

/* ---- flower ---- */

static struct snic_flower *snic_flower_find(struct snic_priv *priv,
					    unsigned long cookie)
{
	struct snic_flower *f;

	list_for_each_entry(f, &priv->flower, node)
		if (f->cookie == cookie)
			return f;
	return NULL;
}

#define SNIC_FLOWER_KEYS (BIT_ULL(FLOW_DISSECTOR_KEY_CONTROL) | \
			  BIT_ULL(FLOW_DISSECTOR_KEY_BASIC) | \
			  BIT_ULL(FLOW_DISSECTOR_KEY_ETH_ADDRS) | \
			  BIT_ULL(FLOW_DISSECTOR_KEY_IPV4_ADDRS) | \
			  BIT_ULL(FLOW_DISSECTOR_KEY_PORTS))

/* The match of @cls into @r (what the device compares), or an error. */
static int snic_flower_match(struct flow_cls_offload *cls,
			     struct snic_steer_rule *r)
{
	struct flow_rule *rule = flow_cls_offload_flow_rule(cls);
	struct netlink_ext_ack *extack = cls->common.extack;
	u32 match = 0;

	if (rule->match.dissector->used_keys & ~SNIC_FLOWER_KEYS) {
		NL_SET_ERR_MSG_MOD(extack, "match on fields the steering table does not have");
		return -EOPNOTSUPP;
	}
	if (flow_rule_match_key(rule, FLOW_DISSECTOR_KEY_CONTROL)) {
		struct flow_match_control m;

		flow_rule_match_control(rule, &m);
		if (m.mask->flags) {
			NL_SET_ERR_MSG_MOD(extack, "no match on IP fragment flags");
			return -EOPNOTSUPP;
		}
	}
	if (flow_rule_match_key(rule, FLOW_DISSECTOR_KEY_BASIC)) {
		struct flow_match_basic m;

		flow_rule_match_basic(rule, &m);
		if (m.mask->n_proto) {
			if (m.key->n_proto != htons(ETH_P_IP)) {
				NL_SET_ERR_MSG_MOD(extack, "only protocol ip");
				return -EOPNOTSUPP;
			}
			match |= SNIC_MATCH_ETHERTYPE;
			r->ethertype = htons(ETH_P_IP);
		}
		if (m.mask->ip_proto) {
			if (m.mask->ip_proto != 0xff) {
				NL_SET_ERR_MSG_MOD(extack, "ip_proto must be exact");
				return -EOPNOTSUPP;
			}
			match |= SNIC_MATCH_IP_PROTO;
			r->ip_proto = m.key->ip_proto;
		}
	}
	if (flow_rule_match_key(rule, FLOW_DISSECTOR_KEY_ETH_ADDRS)) {
		struct flow_match_eth_addrs m;

		flow_rule_match_eth_addrs(rule, &m);
		if (!is_zero_ether_addr(m.mask->src) ||
		    (!is_zero_ether_addr(m.mask->dst) &&
		     !is_broadcast_ether_addr(m.mask->dst))) {
			NL_SET_ERR_MSG_MOD(extack, "only an exact destination MAC");
			return -EOPNOTSUPP;
		}
		if (!is_zero_ether_addr(m.mask->dst)) {
			match |= SNIC_MATCH_DMAC;
			ether_addr_copy(r->dmac, m.key->dst);
		}
	}
	if (flow_rule_match_key(rule, FLOW_DISSECTOR_KEY_IPV4_ADDRS)) {
		struct flow_match_ipv4_addrs m;

		flow_rule_match_ipv4_addrs(rule, &m);
		if (m.mask->src) {
			match |= SNIC_MATCH_SRC_IP;
			r->src_ip = m.key->src & m.mask->src;
			r->src_ip_mask = m.mask->src;
		}
		if (m.mask->dst) {
			match |= SNIC_MATCH_DST_IP;
			r->dst_ip = m.key->dst & m.mask->dst;
			r->dst_ip_mask = m.mask->dst;
		}
	}
	if (flow_rule_match_key(rule, FLOW_DISSECTOR_KEY_PORTS)) {
		struct flow_match_ports m;

		flow_rule_match_ports(rule, &m);
		if ((m.mask->src && m.mask->src != htons(0xffff)) ||
		    (m.mask->dst && m.mask->dst != htons(0xffff))) {
			NL_SET_ERR_MSG_MOD(extack, "ports must be exact");
			return -EOPNOTSUPP;
		}
		if (m.mask->src) {
			match |= SNIC_MATCH_SRC_PORT;
			r->src_port = m.key->src;
		}
		if (m.mask->dst) {
			match |= SNIC_MATCH_DST_PORT;
			r->dst_port = m.key->dst;
		}
	}
	if ((match & (SNIC_MATCH_SRC_IP | SNIC_MATCH_DST_IP | SNIC_MATCH_IP_PROTO |
		      SNIC_MATCH_SRC_PORT | SNIC_MATCH_DST_PORT)) &&
	    !(match & SNIC_MATCH_ETHERTYPE)) {
		NL_SET_ERR_MSG_MOD(extack, "IP fields need protocol ip");
		return -EOPNOTSUPP;
	}
	r->match = cpu_to_le32(match);
	return 0;
}

/* The action of @cls: drop, or hw_tc -> the first queue of that class. */
static int snic_flower_action(struct snic_priv *priv,
			      struct flow_cls_offload *cls,
			      struct snic_steer_rule *r)
{
	struct flow_rule *rule = flow_cls_offload_flow_rule(cls);
	struct netlink_ext_ack *extack = cls->common.extack;
	struct net_device *nd = priv->netdev;
	const struct flow_action_entry *act;
	int tc;

	if (!flow_action_has_entries(&rule->action)) {
		/* hw_tc alone: steer to that traffic class */
		tc = tc_classid_to_hwtc(nd, cls->classid);
		if (tc < 0) {
			NL_SET_ERR_MSG_MOD(extack, "hw_tc needs that mqprio traffic class");
			return -EINVAL;
		}
		r->dest = SNIC_DEST_RQ;
		r->dest_id = cpu_to_le32(nd->tc_to_txq[tc].offset);
		return 0;
	}
	if (!flow_offload_has_one_action(&rule->action)) {
		NL_SET_ERR_MSG_MOD(extack, "one action only");
		return -EOPNOTSUPP;
	}
	act = &rule->action.entries[0];
	if (act->id != FLOW_ACTION_DROP) {
		NL_SET_ERR_MSG_MOD(extack, "actions: drop, or hw_tc with none");
		return -EOPNOTSUPP;
	}
	r->dest = SNIC_DEST_DROP;
	return 0;
}

static int snic_flower_install(struct snic_priv *priv, struct snic_flower *f)
{
	struct snic_steer_rule r = f->r;
	u64 id;
	int ret;

	if (r.dest == SNIC_DEST_RQ) {
		u32 q = le32_to_cpu(r.dest_id);

		if (q >= priv->nch_open)
			return -EINVAL;
		r.dest_id = cpu_to_le32(priv->ch[q].rq.qn);
	}
	ret = snic_aq_exec_buf(priv->sd, SNIC_AQ_ADD_RULE, 0, 0, &r, sizeof(r),
			       &id);
	if (ret)
		return ret;
	f->rule_id = id;
	f->installed = true;
	f->packets = 0;
	f->bytes = 0;
	return 0;
}

static void snic_flower_uninstall(struct snic_priv *priv, struct snic_flower *f)
{
	if (f->installed)
		snic_cmd_destroy(priv->sd, SNIC_AQ_DEL_RULE, f->rule_id);
	f->installed = false;
}

void snic_flower_install_all(struct snic_priv *priv)
{
	struct snic_flower *f;
	int ret;

	ASSERT_RTNL();
	list_for_each_entry(f, &priv->flower, node) {
		ret = snic_flower_install(priv, f);
		if (ret)
			netdev_warn(priv->netdev, "flower rule %lx not restored: %d\n",
				    f->cookie, ret);
	}
}

void snic_flower_uninstall_all(struct snic_priv *priv)
{
	struct snic_flower *f;

	list_for_each_entry(f, &priv->flower, node)
		snic_flower_uninstall(priv, f);
}

void snic_flower_flush(struct snic_priv *priv)
{
	struct snic_flower *f, *tmp;

	list_for_each_entry_safe(f, tmp, &priv->flower, node) {
		snic_flower_uninstall(priv, f);
		list_del(&f->node);
		kfree(f);
	}
}

static int snic_flower_replace(struct snic_priv *priv,
			       struct flow_cls_offload *cls)
{
	struct netlink_ext_ack *extack = cls->common.extack;
	struct snic_flower *f;
	int ret;

	if (snic_flower_find(priv, cls->cookie))
		return -EEXIST;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->cookie = cls->cookie;
	ret = snic_flower_match(cls, &f->r);
	if (!ret)
		ret = snic_flower_action(priv, cls, &f->r);
	if (ret)
		goto err;
	f->r.priority = cpu_to_le16(SNIC_FLOWER_PRIO +
				    min_t(u32, cls->common.prio,
					  SNIC_CATCHALL_PRIO - 1 -
					  SNIC_FLOWER_PRIO));
	f->r.actions = SNIC_ACT_COUNT;
	if (priv->up) {
		ret = snic_flower_install(priv, f);
		if (ret) {
			NL_SET_ERR_MSG_MOD(extack, "the device refused the rule");
			goto err;
		}
	}
	list_add_tail(&f->node, &priv->flower);
	return 0;
err:
	kfree(f);
	return ret;
}

static int snic_flower_destroy(struct snic_priv *priv,
			       struct flow_cls_offload *cls)
{
	struct snic_flower *f = snic_flower_find(priv, cls->cookie);

	if (!f)
		return -ENOENT;
	snic_flower_uninstall(priv, f);
	list_del(&f->node);
	kfree(f);
	return 0;
}

static int snic_flower_stats(struct snic_priv *priv,
			     struct flow_cls_offload *cls)
{
	struct snic_flower *f = snic_flower_find(priv, cls->cookie);
	struct snic_rule_stats rs;
	u64 pkts, bytes;
	int ret;

	if (!f)
		return -ENOENT;
	if (!f->installed)
		return 0;
	ret = snic_cmd_query_stats(priv->sd, SNIC_STATS_RULE, f->rule_id, &rs,
				   sizeof(rs));
	if (ret)
		return ret;
	pkts = le64_to_cpu(rs.packets);
	bytes = le64_to_cpu(rs.bytes);
	flow_stats_update(&cls->stats, bytes - f->bytes, pkts - f->packets, 0,
			  jiffies, FLOW_ACTION_HW_STATS_DELAYED);
	f->packets = pkts;
	f->bytes = bytes;
	return 0;
}

static int snic_setup_flower(struct snic_priv *priv,
			     struct flow_cls_offload *cls)
{
	ASSERT_RTNL();
	switch (cls->command) {
	case FLOW_CLS_REPLACE:
		return snic_flower_replace(priv, cls);
	case FLOW_CLS_DESTROY:
		return snic_flower_destroy(priv, cls);
	case FLOW_CLS_STATS:
		return snic_flower_stats(priv, cls);
	default:
		return -EOPNOTSUPP;
	}
}

static int snic_block_cb(enum tc_setup_type type, void *type_data,
			 void *cb_priv)
{
	struct snic_priv *priv = cb_priv;

	if (!tc_cls_can_offload_and_chain0(priv->netdev, type_data))
		return -EOPNOTSUPP;
	switch (type) {
	case TC_SETUP_CLSFLOWER:
		return snic_setup_flower(priv, type_data);
	default:
		return -EOPNOTSUPP;
	}
}

static LIST_HEAD(snic_block_cb_list);

int snic_setup_tc(struct net_device *nd, enum tc_setup_type type,
		  void *type_data)
{
	struct snic_priv *priv = netdev_priv(nd);

	switch (type) {
	case TC_SETUP_QDISC_MQPRIO:
		return snic_setup_mqprio(priv, type_data);
	case TC_SETUP_BLOCK:
		return flow_block_cb_setup_simple(type_data,
						  &snic_block_cb_list,
						  snic_block_cb, priv, priv,
						  true);
	default:
		return -EOPNOTSUPP;
	}
}
