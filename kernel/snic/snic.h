/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snic: driver-private definitions.
 *
 * The device interface (registers, admin commands, queue formats) is
 * defined once in <d2d/snic_ifc.h> and documented in docs/snic.md.
 */
#ifndef _SNIC_H
#define _SNIC_H

#include <linux/pci.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/auxiliary_bus.h>
#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/ethtool.h>
#include <linux/u64_stats_sync.h>
#include <linux/if_vlan.h>
#include <linux/net_tstamp.h>
#include <net/xdp.h>
#include <d2d/snic_ifc.h>

#define SNIC_DRV_NAME		"snic"
#define SNIC_AQ_DEPTH		64
#define SNIC_AQ_TIMEOUT_MS	5000
#define SNIC_AQ_VECTOR		0	/* admin queue and the async EQ */

/* Ethernet geometry */
#define SNIC_MAX_CHANNELS	(SNIC_NUM_MSIX - 1)
#define SNIC_ASYNC_EQ_LOG	8	/* link, queue and RDMA QP events */
#define SNIC_EQ_LOG		6
#define SNIC_SQ_LOG		9	/* basic blocks (default; ethtool -G) */
#define SNIC_RQ_LOG		10	/* descriptors (default; ethtool -G) */
#define SNIC_RING_LOG_MIN	6	/* ethtool -G bounds: 64 .. 8192 */
#define SNIC_RING_LOG_MAX	13
#define SNIC_RX_HEADROOM	(NET_SKB_PAD + NET_IP_ALIGN)
#define SNIC_NTUPLE_MAX		128
#define SNIC_NTUPLE_PRIO	0x100	/* + location; below the catch-all */
#define SNIC_FLOWER_PRIO	0x200	/* + tc pref; after ntuple rules */
#define SNIC_CATCHALL_PRIO	0xffff
#define SNIC_WQE_MAX_DATA	(SNIC_WQE_MAX_DS - 2)
#define SNIC_TX_WAKE		(4 * SNIC_WQE_MAX_BBS)	/* free BBs to wake */
#define SNIC_FRAME_OVERHEAD	18	/* device takes frames up to MTU + 18 */

/* ethtool --set-priv-flags bits (names in snic_ethtool.c) */
#define SNIC_PFLAG_RX_CQE_COMPRESS	BIT(0)	/* RX CQs with mini-CQE lines */
#define SNIC_PFLAG_ALL			SNIC_PFLAG_RX_CQE_COMPRESS

/*
 * One admin command in flight, on its caller's stack: found by the id
 * slot of its command id (snic_aq.inflight), never by its ring position,
 * so that no other command can reuse it before its caller is done.
 */
struct snic_aq_ctx {
	struct completion done;
	struct snic_aq_cqe cqe;
	u16 cmd_id;
};

struct snic_aq {
	struct snic_aq_cmd *sq;
	struct snic_aq_cqe *cq;
	dma_addr_t sq_dma;
	dma_addr_t cq_dma;
	u32 depth;
	u32 sq_tail;
	u32 cq_head;
	u8 phase;
	u16 gen;		/* upper bits of cmd_id, catches stale CQEs */
	spinlock_t lock;	/* sq_tail, cq_head, gen, inflight[] */
	struct semaphore slots;	/* at most depth - 1 commands in flight */
	struct snic_aq_ctx **inflight;	/* id slot -> its waiter, NULL: free */
	bool broken;		/* a command timed out: device needs reset */
	u64 cmds;
	u64 errors;
	u64 timeouts;
};

/* A ring in coherent host memory with its doorbell record after it. */
struct snic_ring {
	void *buf;
	dma_addr_t dma;
	size_t bytes;		/* ring part; the record follows, 64-aligned */
	__le32 *dbr;
	dma_addr_t dbr_dma;
};

struct snic_eq {
	struct snic_ring r;
	u32 size;
	u16 cons;
	u16 db_page;
	u32 eqn;
	bool live;
};

struct snic_cq {
	struct snic_ring r;
	u32 size;
	u16 cons;
	u16 db_page;
	u32 cqn;
	u8 flags;		/* SNIC_CQ_F_* it was created with */
	bool live;
};

/* SQ (counters in basic blocks) or RQ (counters in descriptors) */
struct snic_wq {
	struct snic_ring r;
	u32 size;
	u16 prod;
	u16 cons;
	u16 rung;		/* producer counter last written to the doorbell */
	u16 db_page;
	u32 qn;
	bool live;
};

/*
 * The roles of a function, each an auxiliary device (snic.eth.N, ...)
 * bound by a driver of its own.  The PCI driver adds snic.eth; the
 * Ethernet driver adds the roles that work on its net_device, in this
 * order, and deletes them in reverse before the net_device goes.  Each
 * user of the peer-queue API has a peer device of its own
 * (snic.peer_<user>.N), which its driver binds: a new user is one more
 * entry from SNIC_ADEV_PEER_FIRST to SNIC_ADEV_PEER_LAST.
 */
enum snic_adev_role {
	SNIC_ADEV_ETH,
	SNIC_ADEV_RDMA,		/* with SNIC_CAP_RDMA */
	SNIC_ADEV_PEER_FLD,	/* fld.ko */
	SNIC_ADEV_PEER_HDC,	/* hdc.ko */
	SNIC_ADEV_PEER_TEST,	/* snic_peer_test.ko */
	SNIC_ADEV_SPIN,		/* with SNIC_CAP_SPIN */
	SNIC_ADEV_NUM,
	SNIC_ADEV_PEER_FIRST = SNIC_ADEV_PEER_FLD,
	SNIC_ADEV_PEER_LAST = SNIC_ADEV_PEER_TEST,
};

struct snic_dev;

/*
 * What the core calls in the RDMA driver (snic_ib.ko) while it is bound
 * to snic.rdma: published with snic_rdma_ops_set(), withdrawn (and waited
 * for) with snic_rdma_ops_clear() before the driver's remove frees anything.
 */
struct snic_rdma_ops {
	/* RDMA async event from the admin interrupt (QP, SRQ, CQ errors) */
	void (*async_event)(struct snic_dev *sd, struct snic_eqe *eqe);
	/* 0: a user QP of the caller; -EACCES another's, -EPERM a kernel QP */
	int (*qp_owner)(struct snic_dev *sd, u32 qpn);
};

/*
 * One user's handle on one snic (<d2d/snic_peer.h>): the peer device's
 * driver gets it from snic_peer_dev().  It names only what this user
 * created: another user's queue, rule or QP number is -ENOENT to it.
 */
struct snic_peer {
	struct snic_dev *sd;		/* NULL: not a peer device */
	struct list_head objs;		/* struct snic_peer_obj, peer_lock */
	bool dead;			/* removed: calls fail, peer_lock */
};

struct snic_adev {
	struct auxiliary_device adev;
	struct snic_dev *sd;
	struct snic_peer peer;		/* peer roles only */
};

struct snic_dev {
	struct pci_dev *pdev;
	void __iomem *regs;
	void __iomem *db;		/* BAR2 doorbell pages */
	resource_size_t db_bus;		/* bus address of BAR2 */
	struct snic_aq aq;
	struct snic_identify_data id;
	u64 caps;
	int num_vectors;

	/* doorbell page allocator */
	spinlock_t db_lock;
	DECLARE_BITMAP(db_used, SNIC_DB_PAGES);
	atomic64_t db_user_refused;	/* user contexts refused a page */
	atomic64_t pin_refused;		/* user pins over RLIMIT_MEMLOCK */

	/* async EQ on the admin vector: link and queue-error events */
	struct snic_eq async_eq;
	bool async_on;			/* async_eq exists, IRQ may poll it */
	u64 async_errors;

	struct net_device *netdev;

	/*
	 * RDMA: the ib_device on top of netdev (snic_ib.ko, bound to
	 * snic.rdma), what the core calls in it, its completion vector
	 */
	struct snic_ib_dev *ib;
	const struct snic_rdma_ops __rcu *rdma_ops;
	/* held for writing while a QPN is freed (QP destroy) */
	struct rw_semaphore qpn_lock;
	int rdma_vector;		/* 0: no vector, no ib_device */

	/* lifetime; peer-queue API: its users' objects (struct snic_peer) */
	struct kref ref;
	struct mutex peer_lock;		/* every snic_peer's objs and dead */

	struct snic_spin *spin;		/* sPIN host interface, NULL: none */

	/* auxiliary devices snic.<role>.<adev_id>, one per role */
	int adev_id;
	struct snic_adev *adev[SNIC_ADEV_NUM];
};

/* Per-channel counters, kept across channel rebuilds. */
struct snic_txq_stats {
	struct u64_stats_sync syncp;
	u64 packets;
	u64 bytes;
	u64 tso_packets;	/* TSO WQEs */
	u64 tso_segs;		/* frames they become */
	u64 tso_bytes;
	u64 csum_offload;	/* WQEs with SNIC_ETH_CS_* */
	u64 csum_none;
	u64 linearize;
	u64 stopped;
	u64 dropped;
	u64 xdp_xmit;		/* XDP frames posted (XDP_TX, ndo_xdp_xmit) */
	u64 xdp_xmit_err;	/* refused: bad length or DMA mapping */
	u64 xdp_xmit_full;	/* refused: no room on the SQ */
	u64 xsk_xmit;		/* UMEM frames posted from an XSK TX ring */
	u64 xsk_bytes;
	u64 xsk_err;		/* XSK TX descriptors refused: bad length */
};

struct snic_txc_stats {
	struct u64_stats_sync syncp;
	u64 cqes;
	u64 errors;		/* SNIC_CQE_TX_ERR */
	u64 wake;
};

struct snic_rxq_stats {
	struct u64_stats_sync syncp;
	u64 packets;
	u64 bytes;
	u64 csum_ok;		/* CHECKSUM_UNNECESSARY from the CQE */
	u64 csum_none;
	u64 csum_bad;		/* device flagged L3/L4 bad */
	u64 hash;
	u64 errors;		/* SNIC_CQE_RX_ERR or bad length */
	u64 alloc_fail;
	u64 xdp_pass;		/* XDP verdicts, one each per frame */
	u64 xdp_drop;
	u64 xdp_tx;
	u64 xdp_redirect;
	u64 xdp_aborted;	/* XDP_ABORTED or an unknown verdict */
	u64 xdp_tx_err;		/* XDP_TX frames the SQ refused (dropped) */
	u64 xdp_redirect_err;	/* xdp_do_redirect() failed (dropped) */
	u64 mini_cqes;		/* completions taken from mini-CQE lines */
	u64 mini_lines;		/* mini-CQE lines taken */
	u64 xsk_packets;	/* frames received into UMEM frames (zero-copy) */
	u64 xsk_bytes;
	u64 xsk_pass_copy;	/* of those, XDP_PASS: copied into an skb */
	u64 xsk_fill_empty;	/* refills that found the fill ring empty */
	/* binds and MTUs refused: frames too small (written under RTNL) */
	u64 xsk_refused;
};

struct snic_ch_stats {
	struct snic_txq_stats tx;
	struct snic_txc_stats txc;
	struct snic_rxq_stats rx;
};

struct snic_tx_map {
	dma_addr_t addr;
	u32 len;
	bool page;
};

/* Indexed by the WQE's first basic block: an skb or an XDP frame. */
struct snic_tx_buf {
	struct sk_buff *skb;
	struct xdp_frame *xdpf;
	u16 xsk;		/* UMEM frames its completion returns (AF_XDP) */
	u32 bytes;		/* BQL */
	u16 bbs;
	u8 nmaps;
	struct snic_tx_map maps[SNIC_WQE_MAX_DATA];
};

struct snic_rx_buf {
	/* page fragment, or with an XSK pool its struct xdp_buff; NULL: empty */
	void *data;
	dma_addr_t dma;
};

struct snic_priv;
struct snic_ib_dev;

struct snic_channel {
	struct snic_priv *priv;
	u32 tx_buf_n, rx_buf_n;	/* entries of tx_buf[], rx_buf[] */
	struct napi_struct napi;
	int idx;
	int irq;
	int db_page;
	struct snic_eq eq;
	struct snic_cq txcq;
	struct snic_cq rxcq;
	struct snic_wq sq;
	struct snic_wq rq;
	struct snic_tx_buf *tx_buf;
	struct snic_rx_buf *rx_buf;
	u8 rx_mini_pos;		/* next entry of the mini-CQE line at rxcq.cons */
	u16 tx_last;		/* first BB of the last skb WQE posted */
	u16 tx_unsig;		/* skb WQEs posted since the last signaled */
	struct netdev_queue *txq;
	struct snic_ch_stats *stats;
	u32 rx_buf_len;		/* frame bytes a buffer takes */
	u32 rx_frag_size;	/* whole fragment, for build_skb */
	u32 rx_headroom;	/* before the frame: XDP_PACKET_HEADROOM with XDP */
	struct xdp_rxq_info xdp_rxq;
	/* zero-copy AF_XDP: the RQ takes UMEM frames, the SQ sends them */
	struct xsk_buff_pool *xsk_pool;
	u16 xsk_last;		/* SQ slot of the last XSK WQE posted */
	bool xdp_rxq_reg;
	bool xdp_flush;		/* redirected frames await xdp_do_flush() */
	bool irq_requested;
	bool napi_added;
	bool napi_enabled;
	char irq_name[IFNAMSIZ + 16];
};

struct snic_ntuple {
	struct list_head node;
	struct ethtool_rx_flow_spec fs;
	u32 rule_id;
	bool installed;
};

/* A tc flower rule (skip_sw) in the steering table. */
struct snic_flower {
	struct list_head node;
	unsigned long cookie;
	struct snic_steer_rule r;	/* SNIC_DEST_RQ: dest_id is a channel */
	u32 rule_id;
	bool installed;
	u64 packets, bytes;	/* device counts already reported */
};

struct snic_priv {
	struct snic_dev *sd;
	struct net_device *netdev;
	int max_ch;
	int num_ch;		/* configured channel count */
	struct snic_channel *ch;	/* num_ch entries while up */
	int nch_open;		/* channels of ch[] set up so far */
	struct snic_ch_stats *stats;	/* max_ch entries */
	bool up;		/* channels, RSS and rules exist */

	u32 rss_id;
	u32 rss_rule;
	bool rss_live;
	bool rss_rule_live;
	u8 rss_key[SNIC_RSS_KEY_SIZE];
	u32 indir[SNIC_RSS_TABLE_SIZE];	/* channel indices */

	u8 sq_log;		/* TX ring: basic blocks, log2 (ethtool -G) */
	u8 rq_log;		/* RX ring: descriptors, log2 */
	bool rss_l4;		/* RSS hashes TCP/UDP ports too */
	u32 pflags;		/* SNIC_PFLAG_* (ethtool priv flags) */
	struct snic_coal {	/* ethtool -C: CQ event moderation */
		u32 usecs;
		u32 frames;
	} rx_coal, tx_coal;

	struct list_head ntuple;	/* sorted by location */
	int num_ntuple;
	struct list_head flower;	/* tc flower rules, under RTNL */
	u64 *tx_rate;		/* bit/s per TX queue, 0 = unlimited */
	struct bpf_prog *xdp_prog;	/* native XDP; read in NAPI (RCU) */
	/* zero-copy AF_XDP pools by queue, max_ch entries, under RTNL */
	struct xsk_buff_pool **xsk_pool;
	/* SIOCSHWTSTAMP: rx_filter ALL stamps received skbs with the CQE's */
	struct hwtstamp_config tstamp;
	DECLARE_BITMAP(vlans, VLAN_N_VID);	/* the device's VLAN filter */

	struct mutex port_lock;	/* SET_PORT */
	bool port_up;
	u32 speed;
	struct work_struct rx_mode_work;
	struct work_struct reset_work;	/* rebuild after a queue error */
	u64 queue_errors;
};

static inline u32 snic_rd(struct snic_dev *sd, u32 reg)
{
	return ioread32(sd->regs + reg);
}

static inline void snic_wr(struct snic_dev *sd, u32 reg, u32 val)
{
	iowrite32(val, sd->regs + reg);
}

static inline bool snic_has(struct snic_dev *sd, u64 cap)
{
	return (sd->caps & cap) == cap;
}

/* snic_main.c */
void snic_dev_put(struct snic_dev *sd);
void snic_adevs_add(struct snic_dev *sd);
void snic_adevs_del(struct snic_dev *sd);

static inline struct snic_dev *snic_adev_sd(struct auxiliary_device *adev)
{
	return container_of(adev, struct snic_adev, adev)->sd;
}

/* snic_admin.c */
int snic_aq_init(struct snic_dev *sd);
void snic_aq_destroy(struct snic_dev *sd);
irqreturn_t snic_aq_irq(int irq, void *data);
int snic_aq_exec(struct snic_dev *sd, struct snic_aq_cmd *cmd, u64 *result);
int snic_aq_exec_buf(struct snic_dev *sd, u8 opcode, u32 id, u32 kind,
		     void *buf, size_t len, u64 *result);
int snic_aq_identify(struct snic_dev *sd);

/* snic_queues.c: doorbell pages, object commands, host-memory queues */
/* Doorbell pages user contexts cannot take: the driver's own queues'. */
#define SNIC_DB_KERNEL_RESERVE	64
int snic_db_page_alloc(struct snic_dev *sd);
int snic_db_page_alloc_user(struct snic_dev *sd);
unsigned int snic_db_pages_used(struct snic_dev *sd);
struct mm_struct *snic_pin_charge(struct snic_dev *sd, unsigned long pages);
void snic_pin_uncharge(struct mm_struct *mm, unsigned long pages);
void snic_db_page_free(struct snic_dev *sd, int page);
void snic_db_write(struct snic_dev *sd, u16 page, u32 offset, u32 qn,
		   u16 ctr);
int snic_cmd_create_eq(struct snic_dev *sd, u64 ring, u8 log_size, u16 msix,
		       u16 db_page, u32 *eqn);
int snic_cmd_modify_cq(struct snic_dev *sd, u32 cqn, u32 count, u32 period_us);
/* @flags: SNIC_CQ_F_* */
int snic_cmd_create_cq(struct snic_dev *sd, u64 ring, u64 dbr, u8 log_size,
		       u8 flags, u16 eqn, u16 db_page, u32 *cqn);
int snic_cmd_create_sq(struct snic_dev *sd, u64 ring, u64 dbr, u8 log_size,
		       u16 cqn, u16 db_page, u32 *sqn);
/* The same with SNIC_SQ_F_* @flags (peer SQs: SNIC_SQ_F_LOOPBACK). */
int snic_cmd_create_sq_flags(struct snic_dev *sd, u64 ring, u64 dbr,
			     u8 log_size, u8 flags, u16 cqn, u16 db_page,
			     u32 *sqn);
int snic_cmd_create_rq(struct snic_dev *sd, u64 ring, u64 dbr, u8 log_size,
		       u8 type, u8 log_stride_size, u8 log_num_strides,
		       u16 cqn, u16 db_page, u32 *rqn);
int snic_cmd_destroy(struct snic_dev *sd, u8 opcode, u32 id);
int snic_cmd_sq_rate(struct snic_dev *sd, u32 sqn, u64 rate_bps);
int snic_cmd_query_stats(struct snic_dev *sd, u32 kind, u32 id, void *buf,
			 size_t len);
int snic_eq_create(struct snic_dev *sd, struct snic_eq *eq, u8 log_size,
		   u16 msix, u16 db_page);
void snic_eq_destroy(struct snic_dev *sd, struct snic_eq *eq);
struct snic_eqe *snic_eq_next(struct snic_eq *eq);
void snic_eq_arm(struct snic_dev *sd, struct snic_eq *eq);
int snic_cq_create(struct snic_dev *sd, struct snic_cq *cq, u8 log_size,
		   u8 flags, u16 eqn, u16 db_page);
void snic_cq_destroy(struct snic_dev *sd, struct snic_cq *cq);
struct snic_cqe *snic_cq_next(struct snic_cq *cq);
void snic_cq_update(struct snic_cq *cq);
void snic_cq_arm(struct snic_dev *sd, struct snic_cq *cq);
int snic_sq_create(struct snic_dev *sd, struct snic_wq *sq, u8 log_size,
		   u16 cqn, u16 db_page);
int snic_rq_create(struct snic_dev *sd, struct snic_wq *rq, u8 log_size,
		   u16 cqn, u16 db_page);
void snic_wq_destroy(struct snic_dev *sd, struct snic_wq *wq, u8 opcode);
void snic_wq_ring(struct snic_dev *sd, struct snic_wq *wq, u32 db_offset);

/* snic_port.c */
int snic_async_eq_init(struct snic_dev *sd);
void snic_async_eq_cleanup(struct snic_dev *sd);
bool snic_async_eq_poll(struct snic_dev *sd);
int snic_port_apply(struct snic_priv *priv);
int snic_port_set_up(struct snic_priv *priv, bool up);
int snic_port_query(struct snic_priv *priv, struct snic_port_info *info);
int snic_vlan_rx_add_vid(struct net_device *nd, __be16 proto, u16 vid);
int snic_vlan_rx_kill_vid(struct net_device *nd, __be16 proto, u16 vid);
void snic_rx_mode_work(struct work_struct *work);

/* snic_en_main.c: the net_device (private parts: snic_en.h) */
extern struct auxiliary_driver snic_eth_driver;

/* snic_peer.c: what a peer driver created, freed at the latest on removal */
enum snic_peer_kind {
	SNIC_PEER_CQ,
	SNIC_PEER_SQ,
	SNIC_PEER_RQ,
	SNIC_PEER_RULE,
	SNIC_PEER_QP,		/* snic_ib_peer.c */
};

struct snic_peer_obj {
	struct list_head node;
	enum snic_peer_kind kind;
	u32 id;
	int page;		/* doorbell page, -1 for rules */
	/* QP only */
	u32 pdn;		/* its own PD */
	u8 state;		/* enum ib_qp_state */
	u32 dest_qpn;
};

/*
 * Around a peer device's life: calls work from snic_peer_init() until
 * snic_peer_release() (after the user's remove), then fail with -ENODEV.
 */
void snic_peer_init(struct snic_peer *peer, struct snic_dev *sd);
void snic_peer_release(struct snic_peer *peer);
int snic_peer_enter(struct snic_peer *peer);
void snic_peer_exit(struct snic_peer *peer);
struct snic_peer_obj *snic_peer_obj_find(struct snic_peer *peer,
					 enum snic_peer_kind kind, u32 id);
u64 snic_peer_db_bus(struct snic_dev *sd, int page, u32 offset);
/* Destroys peer object @id of @kind with admin @opcode; -ENOENT if none. */
int snic_peer_destroy(struct snic_peer *peer, enum snic_peer_kind kind,
		      u8 opcode, u32 id);

/* snic_rdma.c: calls into the RDMA driver, if bound; -ENOENT if none */
void snic_rdma_ops_set(struct snic_dev *sd, const struct snic_rdma_ops *ops);
void snic_rdma_ops_clear(struct snic_dev *sd);
void snic_rdma_async_event(struct snic_dev *sd, struct snic_eqe *eqe);
int snic_rdma_qp_pin(struct snic_dev *sd, u32 qpn);
void snic_rdma_qp_unpin(struct snic_dev *sd);

/* snic_spin.c: /dev/snic-spinN */
extern struct auxiliary_driver snic_spin_driver;
/* snic_spin_ev.c: the sPIN EQ, from the admin interrupt handler */
bool snic_spin_eq_poll(struct snic_dev *sd);

/* snic_sysfs.c */
extern const struct attribute_group *snic_dev_groups[];

#endif /* _SNIC_H */
