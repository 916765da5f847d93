// SPDX-License-Identifier: GPL-2.0
/*
 * snic ethtool steering: ntuple rules (ethtool -N flow-type udp4/tcp4
 * ... action N) as device steering rules in front of the RSS catch-all
 * rule, kept across channel rebuilds, and the RSS hash fields
 * (rx-flow-hash).
 */
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include "snic.h"
#include "snic_en.h"

static struct snic_ntuple *snic_ntuple_find(struct snic_priv *priv, u32 loc)
{
	struct snic_ntuple *r;

	list_for_each_entry(r, &priv->ntuple, node)
		if (r->fs.location == loc)
			return r;
	return NULL;
}

/*
 * Translate an ethtool flow spec into a device rule.  Only udp4/tcp4 with
 * exact ports and masked addresses; the action is a queue or a drop.
 * With @check_only the destination RQ is not looked up (channels may be
 * down).
 */
static int snic_ntuple_build(struct snic_priv *priv,
			     const struct ethtool_rx_flow_spec *fs,
			     struct snic_steer_rule *r, bool check_only)
{
	const struct ethtool_tcpip4_spec *v = &fs->h_u.tcp_ip4_spec;
	const struct ethtool_tcpip4_spec *m = &fs->m_u.tcp_ip4_spec;
	u32 match = SNIC_MATCH_ETHERTYPE | SNIC_MATCH_IP_PROTO;
	u64 q;

	memset(r, 0, sizeof(*r));
	if (fs->flow_type & (FLOW_EXT | FLOW_MAC_EXT | FLOW_RSS))
		return -EOPNOTSUPP;
	switch (fs->flow_type) {
	case TCP_V4_FLOW:
		r->ip_proto = IPPROTO_TCP;
		break;
	case UDP_V4_FLOW:
		r->ip_proto = IPPROTO_UDP;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (m->tos)
		return -EOPNOTSUPP;
	if ((m->psrc && m->psrc != htons(0xffff)) ||
	    (m->pdst && m->pdst != htons(0xffff)))
		return -EINVAL;
	r->ethertype = htons(ETH_P_IP);
	if (m->ip4src) {
		match |= SNIC_MATCH_SRC_IP;
		r->src_ip = v->ip4src & m->ip4src;
		r->src_ip_mask = m->ip4src;
	}
	if (m->ip4dst) {
		match |= SNIC_MATCH_DST_IP;
		r->dst_ip = v->ip4dst & m->ip4dst;
		r->dst_ip_mask = m->ip4dst;
	}
	if (m->psrc) {
		match |= SNIC_MATCH_SRC_PORT;
		r->src_port = v->psrc;
	}
	if (m->pdst) {
		match |= SNIC_MATCH_DST_PORT;
		r->dst_port = v->pdst;
	}
	r->match = cpu_to_le32(match);
	r->priority = cpu_to_le16(SNIC_NTUPLE_PRIO + fs->location);
	r->actions = SNIC_ACT_COUNT;
	if (fs->ring_cookie == RX_CLS_FLOW_DISC) {
		r->dest = SNIC_DEST_DROP;
		return 0;
	}
	if (ethtool_get_flow_spec_ring_vf(fs->ring_cookie))
		return -EINVAL;
	q = ethtool_get_flow_spec_ring(fs->ring_cookie);
	if (q >= priv->num_ch)
		return -EINVAL;
	r->dest = SNIC_DEST_RQ;
	if (!check_only)
		r->dest_id = cpu_to_le32(priv->ch[q].rq.qn);
	return 0;
}

int snic_ntuple_install(struct snic_priv *priv, struct snic_ntuple *rule)
{
	struct snic_steer_rule r;
	u64 id;
	int ret;

	ASSERT_RTNL();
	if (!priv->up)
		return 0;
	ret = snic_ntuple_build(priv, &rule->fs, &r, false);
	if (ret)
		return ret;
	ret = snic_aq_exec_buf(priv->sd, SNIC_AQ_ADD_RULE, 0, 0, &r,
			       sizeof(r), &id);
	if (ret)
		return ret;
	rule->rule_id = id;
	rule->installed = true;
	return 0;
}

void snic_ntuple_uninstall(struct snic_priv *priv, struct snic_ntuple *rule)
{
	if (!rule->installed)
		return;
	snic_cmd_destroy(priv->sd, SNIC_AQ_DEL_RULE, rule->rule_id);
	rule->installed = false;
}

static void snic_ntuple_free(struct snic_priv *priv, struct snic_ntuple *r)
{
	snic_ntuple_uninstall(priv, r);
	list_del(&r->node);
	priv->num_ntuple--;
	kfree(r);
}

void snic_ntuple_flush(struct snic_priv *priv)
{
	struct snic_ntuple *r, *tmp;

	list_for_each_entry_safe(r, tmp, &priv->ntuple, node)
		snic_ntuple_free(priv, r);
}

static int snic_ntuple_add(struct snic_priv *priv,
			   struct ethtool_rx_flow_spec *fs)
{
	struct snic_ntuple *new, *r;
	struct snic_steer_rule tmp;
	struct list_head *pos;
	int ret;

	if (!(priv->netdev->features & NETIF_F_NTUPLE))
		return -EOPNOTSUPP;
	if (fs->location >= SNIC_NTUPLE_MAX)
		return -EINVAL;
	ret = snic_ntuple_build(priv, fs, &tmp, true);
	if (ret)
		return ret;
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	new->fs = *fs;
	/* Install before replacing: a refused rule leaves the old one. */
	ret = snic_ntuple_install(priv, new);
	if (ret) {
		kfree(new);
		return ret;
	}
	r = snic_ntuple_find(priv, fs->location);
	if (r)
		snic_ntuple_free(priv, r);
	/* Keep the list sorted by location, as GRXCLSRLALL reports it. */
	pos = &priv->ntuple;
	list_for_each_entry(r, &priv->ntuple, node) {
		if (r->fs.location > fs->location) {
			pos = &r->node;
			break;
		}
	}
	list_add_tail(&new->node, pos);
	priv->num_ntuple++;
	return 0;
}

int snic_get_rxnfc(struct net_device *nd, struct ethtool_rxnfc *cmd,
		   u32 *rule_locs)
{
	struct snic_priv *priv = netdev_priv(nd);
	struct snic_ntuple *r;
	u32 n = 0;

	switch (cmd->cmd) {
	case ETHTOOL_GRXRINGS:
		cmd->data = priv->num_ch;
		return 0;
	case ETHTOOL_GRXCLSRLCNT:
		cmd->rule_cnt = priv->num_ntuple;
		cmd->data = SNIC_NTUPLE_MAX;
		return 0;
	case ETHTOOL_GRXCLSRULE:
		r = snic_ntuple_find(priv, cmd->fs.location);
		if (!r)
			return -ENOENT;
		cmd->fs = r->fs;
		return 0;
	case ETHTOOL_GRXCLSRLALL:
		list_for_each_entry(r, &priv->ntuple, node) {
			if (n == cmd->rule_cnt)
				return -EMSGSIZE;
			rule_locs[n++] = r->fs.location;
		}
		cmd->rule_cnt = n;
		cmd->data = SNIC_NTUPLE_MAX;
		return 0;
	case ETHTOOL_GRXFH:
		switch (cmd->flow_type) {
		case TCP_V4_FLOW:
		case UDP_V4_FLOW:
			cmd->data = RXH_IP_SRC | RXH_IP_DST;
			if (priv->rss_l4)
				cmd->data |= RXH_L4_B_0_1 | RXH_L4_B_2_3;
			break;
		case IPV4_FLOW:
			cmd->data = RXH_IP_SRC | RXH_IP_DST;
			break;
		default:
			cmd->data = 0;
			break;
		}
		return 0;
	}
	return -EOPNOTSUPP;
}

/*
 * ethtool -N rx-flow-hash tcp4|udp4 sd|sdfn: the device hashes IPv4
 * addresses, with or without the TCP/UDP ports, for both protocols at
 * once; other flow types and fields cannot be chosen.
 */
static int snic_set_rxfh_fields(struct snic_priv *priv,
				struct ethtool_rxnfc *cmd)
{
	const u64 ip = RXH_IP_SRC | RXH_IP_DST;
	const u64 l4 = RXH_L4_B_0_1 | RXH_L4_B_2_3;
	bool old = priv->rss_l4;
	int ret;

	if (cmd->flow_type != TCP_V4_FLOW && cmd->flow_type != UDP_V4_FLOW)
		return -EOPNOTSUPP;
	if (cmd->data != ip && cmd->data != (ip | l4))
		return -EINVAL;
	priv->rss_l4 = cmd->data & l4;
	if (priv->rss_l4 == old || !priv->up)
		return 0;
	ret = snic_rss_apply(priv);
	if (ret) {
		priv->rss_l4 = old;
		snic_rss_apply(priv);
	}
	return ret;
}

int snic_set_rxnfc(struct net_device *nd, struct ethtool_rxnfc *cmd)
{
	struct snic_priv *priv = netdev_priv(nd);
	struct snic_ntuple *r;

	switch (cmd->cmd) {
	case ETHTOOL_SRXFH:
		return snic_set_rxfh_fields(priv, cmd);
	case ETHTOOL_SRXCLSRLINS:
		return snic_ntuple_add(priv, &cmd->fs);
	case ETHTOOL_SRXCLSRLDEL:
		r = snic_ntuple_find(priv, cmd->fs.location);
		if (!r)
			return -ENOENT;
		snic_ntuple_free(priv, r);
		return 0;
	}
	return -EOPNOTSUPP;
}
