// SPDX-License-Identifier: GPL-2.0
/*
 * snic RSS: the device's RSS group over every channel's RQ (indirection
 * table, key, hashed fields) and the catch-all steering rule (priority
 * 0xffff) that reaches it; ethtool ntuple rules sit in front of it.
 */
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include "snic.h"
#include "snic_en.h"

void snic_rss_close(struct snic_priv *priv)
{
	struct snic_dev *sd = priv->sd;

	if (priv->rss_rule_live)
		snic_cmd_destroy(sd, SNIC_AQ_DEL_RULE, priv->rss_rule);
	priv->rss_rule_live = false;
	if (priv->rss_live)
		snic_cmd_destroy(sd, SNIC_AQ_DESTROY_RSS, priv->rss_id);
	priv->rss_live = false;
}

static struct snic_rss_cfg *snic_rss_cfg(struct snic_priv *priv)
{
	struct snic_rss_cfg *cfg;
	int i;

	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return NULL;
	memcpy(cfg->key, priv->rss_key, sizeof(cfg->key));
	cfg->hash_fields = cpu_to_le32(SNIC_RSS_HASH_IPV4 |
				       (priv->rss_l4 ? SNIC_RSS_HASH_L4 : 0));
	cfg->table_size = cpu_to_le32(SNIC_RSS_TABLE_SIZE);
	for (i = 0; i < SNIC_RSS_TABLE_SIZE; i++)
		cfg->rqn[i] = cpu_to_le32(priv->ch[priv->indir[i] %
						   priv->nch_open].rq.qn);
	return cfg;
}

/* Push the indirection table and key to the live RSS group. */
int snic_rss_apply(struct snic_priv *priv)
{
	struct snic_rss_cfg *cfg;
	int ret;

	ASSERT_RTNL();
	if (!priv->up || !priv->rss_live)
		return 0;
	cfg = snic_rss_cfg(priv);
	if (!cfg)
		return -ENOMEM;
	ret = snic_aq_exec_buf(priv->sd, SNIC_AQ_MODIFY_RSS, priv->rss_id, 0,
			       cfg, sizeof(*cfg), NULL);
	kfree(cfg);
	return ret;
}

/* RSS group over all channels, reached through a catch-all rule. */
int snic_rss_open(struct snic_priv *priv)
{
	struct snic_steer_rule rule = {
		.priority = cpu_to_le16(SNIC_CATCHALL_PRIO),
	};
	struct snic_dev *sd = priv->sd;
	struct snic_rss_cfg *cfg;
	u64 res;
	int ret;

	ASSERT_RTNL();
	if (snic_has(sd, SNIC_CAP_RSS)) {
		cfg = snic_rss_cfg(priv);
		if (!cfg)
			return -ENOMEM;
		ret = snic_aq_exec_buf(sd, SNIC_AQ_CREATE_RSS, 0, 0, cfg,
				       sizeof(*cfg), &res);
		kfree(cfg);
		if (ret)
			return ret;
		priv->rss_id = res;
		priv->rss_live = true;
		rule.dest = SNIC_DEST_RSS;
		rule.dest_id = cpu_to_le32(priv->rss_id);
	} else {
		rule.dest = SNIC_DEST_RQ;
		rule.dest_id = cpu_to_le32(priv->ch[0].rq.qn);
	}
	ret = snic_aq_exec_buf(sd, SNIC_AQ_ADD_RULE, 0, 0, &rule, sizeof(rule),
			       &res);
	if (ret)
		return ret;
	priv->rss_rule = res;
	priv->rss_rule_live = true;
	return 0;
}
