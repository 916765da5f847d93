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
 */
#include <linux/netdevice.h>
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

int snic_setup_tc(struct net_device *nd, enum tc_setup_type type,
		  void *type_data)
{
	struct snic_priv *priv = netdev_priv(nd);

	switch (type) {
	case TC_SETUP_QDISC_MQPRIO:
		return snic_setup_mqprio(priv, type_data);
	default:
		return -EOPNOTSUPP;
	}
}
