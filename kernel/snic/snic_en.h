/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snic Ethernet: what the snic_en_*.c files and snic_ethtool.c share.
 * Layering: snic_en_main.c (net_device, channels, NAPI, attaching an XDP
 * program or an AF_XDP pool) calls down into snic_xsk.c (zero-copy pools,
 * wakeup), snic_xsk_tx.c (XSK transmit, which calls snic_en_tx.c),
 * snic_en_tc.c, snic_en_rx.c (which calls snic_xsk_rx.c, UMEM frames, and
 * both call snic_en_xdp.c, the XDP data path), snic_en_tx.c,
 * snic_en_rss.c and snic_en_fs_ethtool.c; ethtool (snic_ethtool.c) calls
 * into all of them.
 */
#ifndef SNIC_EN_H
#define SNIC_EN_H

#include "snic.h"

/* snic_en_tx.c */
netdev_tx_t snic_start_xmit(struct sk_buff *skb, struct net_device *nd);
bool snic_tx_poll(struct snic_channel *ch, int napi_budget);
void snic_tx_drain(struct snic_channel *ch);
int snic_xdp_post(struct snic_channel *ch, struct xdp_frame *xdpf);
unsigned int snic_sq_free(const struct snic_wq *sq);
bool snic_tx_frame_ok(struct snic_channel *ch, u32 len, u64 *err);
struct snic_tx_buf *snic_tx_post_frame(struct snic_channel *ch,
				       const void *data, dma_addr_t dma,
				       u32 len);
int snic_tx_rate_set(struct snic_priv *priv, int qi, u64 bps);	/* RTNL */

/* snic_en_rx.c */
bool snic_rx_refill(struct snic_channel *ch, bool in_napi);
int snic_rx_poll(struct snic_channel *ch, int budget);
void snic_rx_drain(struct snic_channel *ch);

/* snic_en_xdp.c */
unsigned int snic_rx_frag_size(unsigned int headroom, unsigned int mtu);
unsigned int snic_rx_headroom(struct snic_priv *priv);
bool snic_xdp_mtu_ok(unsigned int mtu);
void snic_xdp_release(struct snic_priv *priv);
int snic_xdp_rxq_reg(struct snic_channel *ch);
void snic_xdp_rxq_unreg(struct snic_channel *ch);
u32 snic_xdp_verdict(struct snic_channel *ch, struct bpf_prog *prog,
		     struct xdp_buff *xdp);
void snic_xdp_send(struct snic_channel *ch, struct bpf_prog *prog,
		   struct xdp_buff *xdp, u32 act);
void *snic_xdp_rx(struct snic_channel *ch, struct bpf_prog *prog,
		  struct snic_rx_buf *rb, u32 *off, u32 *len);
void snic_xdp_rx_done(struct snic_channel *ch);
int snic_xdp_xmit(struct net_device *nd, int n, struct xdp_frame **frames,
		  u32 flags);

/* snic_xsk_rx.c: a channel with a zero-copy AF_XDP pool, in NAPI */
int snic_xsk_rx_alloc(struct snic_channel *ch, struct snic_rx_buf *rb);
struct sk_buff *snic_xsk_rx(struct snic_channel *ch, struct bpf_prog *prog,
			    struct snic_rx_buf *rb, u32 len);
bool snic_xsk_rx_sleep(struct snic_channel *ch, bool filled);

/* snic_xsk_tx.c: in NAPI */
bool snic_xsk_tx(struct snic_channel *ch, int budget);

/* snic_xsk.c: pools under RTNL */
int snic_xsk_pool_check(struct snic_priv *priv, struct xsk_buff_pool *pool,
			unsigned int mtu);
bool snic_xsk_mtu_ok(struct snic_priv *priv, unsigned int mtu);
int snic_xsk_map(struct snic_priv *priv, struct xsk_buff_pool *pool);
void snic_xsk_unmap(struct xsk_buff_pool *pool);
int snic_xsk_wakeup(struct net_device *nd, u32 qid, u32 flags);

/* snic_en_rss.c: under RTNL */
int snic_rss_open(struct snic_priv *priv);
void snic_rss_close(struct snic_priv *priv);
int snic_rss_apply(struct snic_priv *priv);

/* snic_en_fs_ethtool.c: under RTNL */
int snic_ntuple_install(struct snic_priv *priv, struct snic_ntuple *rule);
void snic_ntuple_uninstall(struct snic_priv *priv, struct snic_ntuple *rule);
void snic_ntuple_flush(struct snic_priv *priv);
int snic_get_rxnfc(struct net_device *nd, struct ethtool_rxnfc *cmd,
		   u32 *rule_locs);
int snic_set_rxnfc(struct net_device *nd, struct ethtool_rxnfc *cmd);

/* snic_en_main.c: under RTNL */
int snic_coal_apply(struct snic_priv *priv);
int snic_reconfigure(struct snic_priv *priv, int num_ch, unsigned int mtu);

/* snic_en_tc.c: under RTNL */
int snic_setup_tc(struct net_device *nd, enum tc_setup_type type,
		  void *type_data);
void snic_flower_install_all(struct snic_priv *priv);
void snic_flower_uninstall_all(struct snic_priv *priv);
void snic_flower_flush(struct snic_priv *priv);

/* snic_ethtool.c */
extern const struct ethtool_ops snic_ethtool_ops;

#endif /* SNIC_EN_H */
