/*
 * snic: RDMA (RoCEv2) transport - shared state of PDs, MRs, SRQs and QPs
 * and the interfaces between the transport's parts, split by role like
 * Linux rdma_rxe:
 *
 *   snic-rdma-main.c   the top: init/reset, the bottom half running each
 *                      kicked QP's roles, admin dispatch, statistics
 *   snic-rdma-qp.c     QP admin, state machine, doorbells
 *   snic-rdma-ssq.c    scalable shared send queues and their poller
 *   snic-rdma-recv.c   receive dispatch to the responder or the completer
 *   snic-rdma-req.c    requester: WQE fetch, packetisation, retransmission
 *   snic-rdma-resp.c   responder: requests in, ACK/NAK, READ responses,
 *                      atomics
 *   snic-rdma-comp.c   completer: responses in, in-order completion, timers
 *   snic-rdma-flush.c  the error state, flush, send CQEs
 *   snic-rdma-srq.c    SRQ admin and doorbells, receive WQE fetch
 *   snic-rdma-xrc.c    XRC domains, XRC SRQs' domains and CQs, the SRQ an
 *                      XRC_TGT QP's request names
 *   snic-rdma-llq.c    low-latency QPs: small SENDs placed in a polled ring
 *   snic-rdma-pipe.c   DMA-only notification pipes: phase-bit elements,
 *                      the consumer record, the NIC cores' poll lists
 *   snic-rdma-mr.c     PD/MR admin, MR keys and translation, DMA through
 *                      MRs, fast registration and invalidation
 *   snic-rdma-counter.c  counter sets: per-QP statistics
 *   snic-rdma-mcast.c  multicast groups of UD QPs
 *   snic-rdma-net.c    QP lookup, async events, the kick, shared headers,
 *                      source addresses, transmission
 *   snic-roce.c        wire headers and ICRC (pure C)
 *
 * Each file calls only files listed below it (docs/snic.md "Device model
 * layers").
 *
 * Interface: kernel/include/d2d/snic_rdma_ifc.h, docs/snic-rdma.md.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_SNIC_RDMA_H
#define HW_D2D_SNIC_RDMA_H

#include "d2d/snic_rdma_ifc.h"
#include "snic-roce.h"

/* Included by snic.h after SnicState is declared. */

/* Send WQEs one QP has fetched and not yet completed (power of 2). */
#define SNIC_RDMA_WIN           32
/*
 * Packets one RC QP may have unacknowledged: a congestion window between
 * MIN and MAX, starting at INIT, halved on a loss (sequence NAK, missing
 * READ response), back to MIN on a retransmit timeout, one larger per ACK
 * that makes progress.  A burst the wire (or the peer's receive buffer)
 * cannot take costs a go-back-N of everything after the lost packet.
 */
#define SNIC_RDMA_MAX_INFLIGHT  256
#define SNIC_RDMA_CWND_MIN      16
#define SNIC_RDMA_CWND_INIT     64
/*
 * Loss probe: with packets outstanding and no progress for this long
 * (doubling while none comes, at most 32x), the oldest unacknowledged
 * packet is sent once more with AckReq, without going back and without
 * using a retry.  A lost retransmission or a lost last ACK is then
 * repaired in milliseconds instead of a whole transport timeout: a
 * duplicate is re-ACKed, a missing packet is accepted and what follows
 * it NAKed.  Only when it is shorter than the QP's transport timeout.
 */
#define SNIC_RDMA_PTO_NS        (2 * SCALE_MS)
#define SNIC_RDMA_PTO_MAX_SHIFT 5
/* The requester asks for an ACK at least every this many packets. */
#define SNIC_RDMA_ACK_EVERY     16
/* Packets one QP sends per bottom-half pass before others get a turn. */
#define SNIC_RDMA_BUDGET        16
/* Pipe QPs one NIC core serves per poll turn (snic-rdma-pipe.c). */
#define SNIC_PIPE_POLL_BUDGET   64
#define SNIC_PIPE_MAX_CORES     64
#define SNIC_PIPE_DEF_CORES     8
#define SNIC_PIPE_DEF_POLL_NS   1000
#define SNIC_PIPE_DEF_POLL_MAX_NS 16000
#define SNIC_PIPE_DEF_POLL_COST_NS 20
/* Page-list entries the device holds over all MRs. */
#define SNIC_RDMA_MAX_PAGES     (4u << 20)
/* Basic blocks in @qp's send ring. */
#define QP_SQ_SIZE(qp) (1u << (qp)->sq_log)
/* Largest frame: headers + 4096 payload + pad + ICRC. */
#define SNIC_RDMA_MAX_FRAME     (ROCE_MAX_HDRS + 4096 + 8)

/* SnicQp.req_ask: the completer's requests to the requester. */
#define SNIC_REQ_REWIND         0x1 /* go back to comp_psn */
#define SNIC_REQ_PROBE          0x2 /* loss probe: comp_psn's packet again */

typedef struct SnicPd {
    bool valid;
    uint32_t refs;              /* MRs, QPs, SRQs naming it */
} SnicPd;

typedef struct SnicMr {
    bool valid;                 /* allocated */
    bool live;                  /* usable: not invalidated / registered */
    uint8_t tag;
    uint32_t pdn, access, flags;
    uint64_t iova, length;
    uint8_t page_shift;
    uint32_t npages, max_pages;
    uint64_t *pages;            /* bus addresses, host order */
    /*
     * A memory window (snic-rdma-mw.c) is an entry of the same table:
     * mw_type SNIC_MW_TYPE_*, live while bound, iova/length/access the
     * window's, over MR index mw_mr; a type 2 window is also bound to QP
     * mw_qpn.  An MR counts the windows bound to it in mw_binds.
     */
    uint8_t mw_type;
    uint32_t mw_mr, mw_qpn;
    uint32_t mw_binds;
} SnicMr;

/*
 * A receive ring: a QP's own RQ or an SRQ its QPs share.  dbr: the le32
 * producer counter the device re-reads when pi reaches ci; 2^log_size
 * WQEs of 2^log_stride bytes.
 */
typedef struct SnicRecvRing {
    uint64_t ring, dbr;
    uint16_t pi, ci;
    uint8_t log_size, log_stride;
} SnicRecvRing;

typedef struct SnicSrq {
    bool valid;
    uint32_t pdn;
    uint16_t db_page;
    SnicRecvRing rq;
    uint32_t limit;
    uint32_t refs;              /* QPs on it */
    bool xrc;                   /* an XRC SRQ (snic-rdma-xrc.c) */
    uint16_t xrcdn, cqn;        /* XRC: its domain and completion queue */
} SnicSrq;

/* An XRC domain (SNIC_AQ_CREATE_XRCD). */
typedef struct SnicXrcd {
    bool valid;
    uint32_t refs;              /* XRC SRQs and XRC_TGT QPs in it */
} SnicXrcd;

typedef struct SnicSge {
    uint64_t addr;
    uint32_t len, lkey;
} SnicSge;

/* A receive WQE as the device copied it from the ring. */
typedef struct SnicRecvWqe {
    uint64_t cookie;
    uint16_t counter;           /* ring counter it came from */
    bool bad;                   /* num_sge out of range */
    uint8_t nsge;
    uint64_t len;               /* sum of the scatter list */
    SnicSge sge[SNIC_MAX_SGE];
} SnicRecvWqe;

/* A send WQE the requester fetched. */
typedef struct SnicSwqe {
    uint8_t opcode, flags, nbb;
    uint16_t idx;               /* SQ counter of its first basic block */
    uint8_t status;             /* SNIC_RST_* found locally, 0 if none */
    bool local;                 /* no packets (REG_MR, LOCAL_INV, NOP) */
    bool sent;                  /* UD: on the wire */
    bool inl;                   /* data in inl[] */
    uint32_t first_psn, npkts;
    uint32_t mtu;               /* path MTU when it was fetched */
    uint64_t len;
    uint32_t imm;               /* wire value (BE order as a number) */
    uint64_t raddr;
    uint32_t rkey;
    uint64_t swap_add, compare;
    struct snic_av av;          /* UD */
    uint8_t sip6[16], dip6[16]; /* UD over IPv6 (av.flags SNIC_AV_F_IPV6) */
    uint32_t dest_qpn, qkey;    /* UD */
    uint32_t req_len;           /* CUSTOM: request bytes in inl_data */
    uint16_t xrc_srqn;          /* XRC_INI: the remote XRC SRQ */
    uint8_t nsge;
    SnicSge sge[SNIC_MAX_SGE];
    uint8_t inl_data[SNIC_MAX_RDMA_INLINE];
} SnicSwqe;

/* Responder work for the bottom half: READ responses, atomic ACKs. */
typedef struct SnicRdJob {
    bool atomic;
    uint32_t psn;               /* first response PSN */
    uint32_t npkts, sent;
    uint32_t mtu;               /* path MTU when it was queued */
    uint64_t va;
    uint32_t rkey, len;
    uint64_t orig;              /* atomic result */
    bool custom;                /* a custom response: ccache[cslot] */
    uint8_t cslot;
    uint32_t pdn;               /* the PD its key is checked in (XRC_TGT) */
} SnicRdJob;

/*
 * The response a handler gave to a custom request (docs/snic-rdma.md
 * "Custom opcodes"), kept for duplicates of the request as atomics keep
 * their original value: a retried request is answered again from here.
 */
typedef struct SnicCustomResp {
    uint32_t psn, npkts;        /* the PSNs it answers */
    uint32_t len;
    uint8_t *data;              /* len bytes; NULL: empty slot */
} SnicCustomResp;

/* What the sPIN engine's custom_in hook made of a custom request. */
enum {
    SNIC_CUSTOM_OK,             /* the response is filled in */
    SNIC_CUSTOM_NO_HANDLER,     /* no handler for the opcode on the QP */
    SNIC_CUSTOM_FAILED,         /* the handler aborted or gave no response */
    SNIC_CUSTOM_NO_RES,         /* no room in the engine now */
};

typedef struct SnicAtomicCache {
    bool valid;
    uint32_t psn;
    uint64_t orig;
} SnicAtomicCache;

/*
 * Congestion control of one RC QP (snic-rdma-cc.c, docs/snic-rdma.md
 * "Congestion control"): the notification point's CNP pacing and the
 * DCQCN reaction point.  Rates in kbit/s, alpha in 1/65536.
 */
typedef struct SnicCc {
    /* notification point */
    bool cnp_pending;           /* a CE-marked packet came: CNP to send */
    bool cnp_ever;              /* a CNP was sent (cnp_ns is valid) */
    int64_t cnp_ns;             /* when the last CNP was sent */
    /* reaction point (DCQCN) */
    uint64_t rc_kbps, rt_kbps;  /* current and target rate */
    uint32_t alpha;
    int64_t alpha_t0;           /* start of the alpha timer's period */
    int64_t timer_t0;           /* start of the rate increase timer */
    uint64_t bc_bytes;          /* byte counter since the last event */
    uint32_t t_cnt, bc_cnt;     /* increase events since the last cut */
    int64_t next_tx_ns;         /* pacing (timing mode) */
    QEMUTimer *timer;           /* pacing: kicks the QP when it may send */
} SnicCc;

/* Device-wide congestion control parameters (snic properties). */
typedef struct SnicCcParams {
    bool dcqcn;                 /* cc=dcqcn (default cc=aimd) */
    bool spray;                 /* per-packet UDP source ports (RC) */
    uint32_t cnp_interval_us;   /* N: at most one CNP per QP per N us */
    uint32_t g_shift;           /* g = 2^-g_shift */
    uint32_t alpha_us;          /* K: alpha timer */
    uint32_t timer_us;          /* T: rate increase timer */
    uint32_t bc_bytes;          /* B: byte counter */
    uint32_t f;                 /* F: fast recovery steps */
    uint32_t rai_mbps, rhai_mbps;   /* additive / hyper increase */
    uint32_t min_mbps;          /* rate floor */
} SnicCcParams;

typedef struct SnicRdmaCounters {
    uint32_t retransmits, rnr_naks_rcvd, seq_naks_rcvd;
} SnicRdmaCounters;

typedef struct SnicQp {
    bool valid;
    SnicState *s;
    uint32_t qpn;
    uint8_t type, flags, state;
    uint32_t pdn;
    uint16_t scqn, rcqn, srqn, db_page;
    /*
     * XRC_TGT: its XRC domain; pdn, the CQs and srqn are those of the
     * XRC SRQ the current request names (snic_xrc_bind).
     */
    uint16_t xrcdn;
    uint64_t sq_ring, dbr;      /* dbr: RQ producer +0, SQ producer +4 */
    uint8_t sq_log;

    /* attributes */
    uint8_t path_mtu;
    uint32_t mtu;
    uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
    uint8_t max_rd_atomic, max_dest_rd_atomic, sqd_notify;
    uint32_t dest_qpn, qkey, access;
    struct snic_av av;
    uint8_t sip6[16], dip6[16]; /* the path if av.flags has SNIC_AV_F_IPV6 */

    /* send queue and requester */
    uint16_t sq_pi;             /* producer from doorbell / record */
    uint16_t sq_fetch;          /* next basic block to fetch */
    /* the last WQE-by-MMIO line (SNIC_DB_QP_SQ_WQE): the BB at mmio_idx */
    uint8_t mmio_bb[SNIC_WQEBB_SIZE];
    uint16_t mmio_idx;
    bool mmio_valid;
    SnicSwqe *win;              /* SNIC_RDMA_WIN entries */
    uint32_t win_head, win_tail;    /* counters into win */
    uint32_t tx_wqe;            /* window counter of the WQE at tx_psn */
    uint32_t next_psn;          /* first PSN of the next new WQE */
    uint32_t tx_psn;            /* next PSN to put on the wire */
    uint32_t comp_psn;          /* oldest unacknowledged PSN */
    uint32_t max_sent;          /* one past the highest PSN ever sent */
    uint32_t pkts_since_ack;
    bool rewound;               /* a gap already made us go back */
    /*
     * After a retransmit timeout: only the oldest unacknowledged packet
     * (AckReq set) goes out until something is acknowledged.  Resending
     * the whole tail each time could lose its first packet every time
     * under periodic loss.
     */
    bool probe;
    uint32_t cwnd;              /* congestion window, packets */
    uint8_t pto_shift;          /* loss probes sent since progress */
    uint32_t rewound_at;
    uint8_t retry_left, rnr_left;
    bool rnr_wait;
    bool fetch_blocked;         /* a fetched WQE failed: fetch no more */
    bool drained_sent;
    QEMUTimer *retry_timer, *rnr_timer, *probe_timer;
    bool pending;               /* work for the bottom half */
    /*
     * What the completer asked of the requester (SNIC_REQ_*), done when
     * the requester next runs: the completer records it and kicks, as
     * Linux rdma_rxe's completer schedules the requester's task.
     */
    uint8_t req_ask;

    /* responder */
    uint32_t resp_psn;          /* expected request PSN */
    uint32_t msn;
    bool nak_sent;              /* sequence NAK for resp_psn sent */
    bool comm_est;
    uint32_t resp_op;           /* ROCE_F_SEND / ROCE_F_WRITE in progress */
    bool uc_drop;               /* UC: dropping until the next FIRST/ONLY */
    bool have_rwqe;
    SnicRecvWqe rwqe;           /* consumed for the SEND in progress */
    uint64_t resp_off;
    uint64_t w_va;
    uint32_t w_rkey, w_len;
    bool ack_pending;
    uint8_t ack_syn;
    uint32_t ack_psn;
    SnicRdJob jobs[SNIC_MAX_RD_ATOMIC];
    uint32_t job_head, job_tail;
    SnicAtomicCache acache[SNIC_MAX_RD_ATOMIC];
    uint32_t acache_next;
    SnicCustomResp ccache[SNIC_MAX_RD_ATOMIC];
    uint32_t ccache_next;
    /* sPIN (docs/snic-spin.md "RDMA QPs") */
    uint32_t spin_ctx;          /* context + 1 matching this QP, 0: none */
    bool spin_msg;              /* the message in progress went through it */
    uint64_t spin_placed;       /* its bytes handlers passed (placed) */

    /* receive ring (log_size 0 with an SRQ); rq.dbr = dbr */
    SnicRecvRing rq;

    /* DMA-only notification pipe (SNIC_QP_F_PIPE, snic-rdma-pipe.c) */
    uint8_t ci_every;           /* consumer record every n elements */
    uint8_t pipe_core;          /* NIC core whose poll list has it */
    uint32_t ssqn;              /* SNIC_QP_F_SSQ: its shared send queue */
    bool pipe_fault;            /* the consumer record was not writable */
    uint64_t ci_addr;           /* consumer record */
    uint16_t ci_sq_done, ci_rq_done;    /* counters last written there */
    bool rql_ok;                /* rql holds the receive line at rql_ctr */
    uint16_t rql_ctr;
    uint8_t rql[64];
    SnicCc cc;                  /* congestion control (RC) */

    /* low-latency receive ring (SNIC_AQ_SET_LLQ, snic-rdma-llq.c) */
    uint8_t llq_log;            /* 2^n slots; 0: none */
    uint8_t llq_slot_log;       /* 2^n bytes per slot */
    uint8_t llq_ci_every;       /* consumer record every n slots */
    uint64_t llq_ring, llq_ci_addr;
    uint32_t llq_pi;            /* slots filled */
    uint32_t llq_ci;            /* slots the host returned, as last read */
    uint32_t llq_ci_read_at;    /* llq_pi at that read */

    SnicRdmaCounters cnt;
    uint32_t cnt_set;           /* counter set, 0: none (snic-rdma-counter.c) */
    D2DPcieCounters pcie;
} SnicQp;

/*
 * Transport classes: RC, UC and XRC QPs are connected (one peer on the
 * AV of MODIFY_QP, multi-packet messages with PSNs, the responder's
 * message state); RC and XRC are reliable (ACKs, NAKs, retransmission,
 * READ and atomics).  UD and GSI are datagram QPs.  An XRC_INI QP is the
 * requester half of an RC QP, an XRC_TGT QP the responder half.
 */
static inline bool snic_qp_xrc(const SnicQp *qp)
{
    return qp->type == SNIC_QPT_XRC_INI || qp->type == SNIC_QPT_XRC_TGT;
}

static inline bool snic_qp_connected(const SnicQp *qp)
{
    return qp->type == SNIC_QPT_RC || qp->type == SNIC_QPT_UC ||
           snic_qp_xrc(qp);
}

static inline bool snic_qp_reliable(const SnicQp *qp)
{
    return qp->type == SNIC_QPT_RC || snic_qp_xrc(qp);
}

/* Does @qp have a send queue (XRC_TGT has none)? */
static inline bool snic_qp_has_sq(const SnicQp *qp)
{
    return qp->type != SNIC_QPT_XRC_TGT;
}

/* A shared send queue (snic-rdma-ssq.c). */
typedef struct SnicSsq {
    bool valid;
    uint8_t log_size, ci_every, core;
    uint16_t db_page;
    uint64_t ring, ci_addr;
    uint16_t ci, ci_done;       /* consumer, last written to the record */
    uint32_t qps;               /* SNIC_QP_F_SSQ QPs on it */
} SnicSsq;

/* A NIC core: the pipe QPs it polls. */
typedef struct SnicPipeCore {
    GArray *qps;                /* uint32_t qpns */
    uint32_t cursor;            /* next one to serve */
} SnicPipeCore;

typedef struct SnicPipes {
    /* properties */
    uint32_t ncores;            /* nic-cores */
    uint32_t poll_ns;           /* pipe-poll-ns: poll turn interval */
    uint32_t poll_max_ns;       /* pipe-poll-max-ns: backed off when idle */
    uint32_t poll_cost_ns;      /* pipe-poll-cost-ns: modeled per read */
    SnicPipeCore *cores;
    QEMUTimer *timer;
    uint32_t interval;
    uint64_t last_sqes;
} SnicPipes;

/* Host-order mirror of struct snic_rdma_stats, from the same list. */
typedef struct SnicRdmaStats {
    SNIC_RDMA_STATS(SNIC_STAT_HOST)
} SnicRdmaStats;

/* A multicast group (SNIC_AQ_ATTACH_MCAST, snic-rdma-mcast.c). */
typedef struct SnicMcastGroup {
    uint32_t group;             /* host order (IPv4) */
    bool v6;                    /* an IPv6 group: group6 */
    uint8_t group6[16];
    uint32_t nqps;              /* 0: free */
    uint32_t qpn[SNIC_MAX_MCAST_QP_ATTACH];
} SnicMcastGroup;

/* A source address table entry (SNIC_AQ_SET_SRC_ADDR). */
typedef struct SnicSrcAddr {
    bool valid;
    bool v6;                    /* the address is ip6, not ip */
    uint16_t vid;               /* its VLAN, 0 if none */
    uint8_t mac[6];
    __be32 ip;                  /* as struct snic_av's sip */
    uint8_t ip6[16];
} SnicSrcAddr;

typedef struct SnicRdma {
    SnicPd *pds;
    SnicMr *mrs;
    SnicSrq *srqs;
    SnicQp *qps;
    uint32_t qps_hi;            /* one past the highest qpn used */
    uint32_t nqps;              /* QPs that exist */
    uint32_t pages_used;
    SnicRdmaStats st;
    SnicRdmaStats *sets;        /* SNIC_RDMA_COUNTER_SETS counter sets */
    SnicRdmaStats attributed;   /* all that went to any set */
    SnicSrcAddr src[SNIC_SRC_ADDRS];
    SnicXrcd xrcds[SNIC_MAX_XRCDS];
    SnicMcastGroup mcast[SNIC_MAX_MCAST_GRPS];
    QEMUBH *bh;
    uint8_t *frame;             /* SNIC_RDMA_MAX_FRAME */
    uint8_t *tx_vlan_frame;     /* a frame with its 802.1Q tag inserted */
    uint8_t *rx_vlan_frame;     /* a received frame without its tag */
    /* loss injection (QOM properties) */
    uint32_t loss_every, loss_ppm;
    uint64_t loss_seed, loss_seed_used, loss_rng;
    uint64_t loss_count;
    SnicPipes pipe;
    SnicSsq *ssqs;              /* SNIC_MAX_SSQS */
    /*
     * Per QP number: bumped when an SSQ QP of that number goes, so that
     * SQEs it left in its SSQ do not run on the next QP of the number.
     */
    uint8_t ssq_gen[SNIC_MAX_QPS];
    QEMUTimer *ssq_timer;
    uint32_t ssq_interval;
    SnicCcParams cc;            /* congestion control, multipath */
} SnicRdma;

/*
 * snic-rdma-counter.c: counter sets, below the roles and the receive
 * path.  Work done for a QP sits between snic_qp_count_begin() and
 * snic_qp_count_end(); what the counters moved by goes to its set.
 */
typedef struct SnicQpCountMark {
    uint32_t set;
    SnicRdmaStats before;
} SnicQpCountMark;

void snic_qp_count_begin(SnicState *s, const SnicQp *qp, SnicQpCountMark *m);
void snic_qp_count_end(SnicState *s, const SnicQpCountMark *m);
bool snic_rdma_counter_read(SnicState *s, uint32_t id, SnicRdmaStats *out);
uint16_t snic_rdma_counter_admin(SnicState *s, const struct snic_aq_cmd *c);
void snic_rdma_counter_init(SnicState *s);
void snic_rdma_counter_reset(SnicState *s);
void snic_rdma_counter_free(SnicState *s);

/* snic-rdma-mcast.c: multicast groups, below the QP admin and receive */
uint16_t snic_rdma_mcast_admin(SnicState *s, const struct snic_aq_cmd *c);
/* The group of IPv4 address @group (host order), NULL if none. */
const SnicMcastGroup *snic_rdma_mcast_group(SnicState *s, bool v6,
                                            uint32_t group,
                                            const uint8_t *group6);
/* @dmac is the multicast MAC of a group with QPs. */
bool snic_rdma_mcast_mac(SnicState *s, const uint8_t *dmac);
void snic_rdma_mcast_qp_gone(SnicState *s, uint32_t qpn);
void snic_rdma_mcast_reset(SnicState *s);

/* snic-rdma-main.c: the top of the transport */
void snic_rdma_init(SnicState *s);
void snic_rdma_free(SnicState *s);
void snic_rdma_reset(SnicState *s);
/* Run the roles of every kicked QP. */
void snic_rdma_bh(void *opaque);
uint16_t snic_rdma_admin(SnicState *s, const struct snic_aq_cmd *c,
                         uint64_t *res);
uint16_t snic_rdma_query_stats(SnicState *s, const struct snic_aq_cmd *c);
void snic_rdma_stats_format(SnicState *s, GString *out);

/* snic-rdma-ssq.c: below the QP admin, above the requester */
void snic_ssq_init(SnicState *s);
void snic_ssq_free(SnicState *s);
void snic_ssq_reset(SnicState *s);
uint16_t snic_ssq_create(SnicState *s, const struct snic_aq_cmd *c,
                         uint64_t *res);
uint16_t snic_ssq_destroy(SnicState *s, uint32_t n);
/* Put SSQ QP @qp on the least-loaded SSQ of its context; false if none. */
bool snic_ssq_place(SnicState *s, SnicQp *qp);
void snic_ssq_unplace(SnicState *s, SnicQp *qp);
void snic_ssq_wake(SnicState *s);
void snic_ssq_format(SnicState *s, GString *out);

/* snic-rdma-llq.c: below the QP admin and the responder */
uint16_t snic_llq_set(SnicState *s, const struct snic_aq_cmd *c);
/*
 * SEND_ONLY @h for LLQ QP @qp: SNIC_LLQ_PLACED (in the ring, no CQE),
 * SNIC_LLQ_FULL (RNR NAK it), SNIC_LLQ_FAULT (the ring is unwritable:
 * fail the QP) or SNIC_LLQ_PASS (not for the ring: the receive queue).
 */
enum { SNIC_LLQ_PLACED, SNIC_LLQ_FULL, SNIC_LLQ_FAULT, SNIC_LLQ_PASS };
int snic_llq_rx(SnicState *s, SnicQp *qp, const SnicRoceHdr *h,
                uint32_t fl);
void snic_llq_qp_reset(SnicQp *qp);

/* snic-rdma-pipe.c: below the requester, flush and receive fetch */
void snic_pipe_init(SnicState *s);
void snic_pipe_free(SnicState *s);
void snic_pipe_reset(SnicState *s);
/* Put pipe QP @qp on the least-loaded NIC core's poll list, or off it. */
void snic_pipe_add(SnicState *s, SnicQp *qp);
void snic_pipe_remove(SnicState *s, SnicQp *qp);
/* A pipe QP may have work: run the poller. */
void snic_pipe_wake(SnicState *s);
void snic_pipe_qp_reset(SnicQp *qp);
/*
 * Read the send pipe at sq_fetch into @bb (one basic block): 1 if an
 * SQE is there, 0 if not, -1 on a DMA error or a malformed element
 * (*status: the SNIC_RST_* to fail the QP with).
 */
int snic_pipe_sq_peek(SnicState *s, SnicQp *qp, uint8_t *bb, uint8_t *status);
/* An SQE whose ds_cnt gives no extent (counted, logged). */
void snic_pipe_sq_bad_extent(SnicState *s, SnicQp *qp);
/* sq_fetch / rq.ci advanced: count, write the record every ci_every. */
void snic_pipe_sq_consumed(SnicState *s, SnicQp *qp);
void snic_pipe_rq_consumed(SnicState *s, SnicQp *qp);
/* The RQE at rq.ci of a pipe QP, if the host has written it. */
bool snic_pipe_rq_peek(SnicState *s, SnicQp *qp, SnicRecvWqe *w);
void snic_pipe_format(SnicState *s, GString *out);

/* snic-rdma-mr.c */
uint16_t snic_pd_create(SnicState *s, uint64_t *res);
uint16_t snic_pd_destroy(SnicState *s, uint32_t pdn);
uint16_t snic_mr_create(SnicState *s, const struct snic_aq_cmd *c,
                        uint64_t *res);
uint16_t snic_mr_destroy(SnicState *s, uint32_t idx);
/*
 * Check @key for [addr, addr + len) with @access (SNIC_ACCESS_*, 0 for a
 * read of local memory) on behalf of @qp.  *mr is NULL for a bus address.
 */
bool snic_rdma_key_ok(SnicState *s, SnicQp *qp, uint32_t key, uint64_t addr,
                      uint64_t len, uint32_t access, bool remote,
                      SnicMr **mr);
/* DMA through an MR (or bus addresses if @mr is NULL). */
bool snic_rdma_mr_dma(SnicState *s, SnicQp *qp, SnicMr *mr, uint64_t addr,
                      void *buf, uint64_t len, bool write);
/*
 * Copy between @buf and the scatter/gather list at message offset @off.
 * Returns SNIC_RST_OK, SNIC_RST_LOC_PROT (key) or SNIC_RST_GENERAL (DMA).
 */
uint8_t snic_rdma_sg_copy(SnicState *s, SnicQp *qp, const SnicSge *sge,
                          unsigned nsge, uint64_t off, void *buf, size_t len,
                          bool to_mem);
uint8_t snic_rdma_fast_reg(SnicState *s, SnicQp *qp,
                           const struct snic_wqe_reg *r);
uint8_t snic_rdma_invalidate(SnicState *s, SnicQp *qp, uint32_t key);

/* snic-rdma-mw.c: memory windows, below snic-rdma-mr.c */
/* A free index of the MR/MW key table (never 0), or 0 if it is full. */
uint32_t snic_rdma_key_index_alloc(SnicState *s);
uint16_t snic_mw_alloc(SnicState *s, const struct snic_aq_cmd *c,
                       uint64_t *res);
uint16_t snic_mw_dealloc(SnicState *s, uint32_t idx);
/* A SNIC_WQE_BIND_MW on @qp: SNIC_RST_OK or SNIC_RST_MW_BIND. */
uint8_t snic_mw_bind(SnicState *s, SnicQp *qp, const struct snic_wqe_bind *b);
/*
 * Remote access through window @mw for [addr, addr + len) with @access
 * on @qp: the MR it is bound to, or NULL if the window refuses.
 */
SnicMr *snic_mw_resolve(SnicState *s, SnicQp *qp, SnicMr *mw, uint32_t key,
                        uint64_t addr, uint64_t len, uint32_t access);
/* LOCAL_INV / SEND_INV naming window @mw: status (SNIC_RST_*). */
uint8_t snic_mw_invalidate(SnicState *s, SnicQp *qp, SnicMr *mw,
                           uint32_t key);
/* QP @qpn is destroyed: its type 2 windows are invalidated. */
void snic_mw_qp_gone(SnicState *s, uint32_t qpn);

/* snic-rdma-srq.c */
uint16_t snic_srq_create(SnicState *s, const struct snic_aq_cmd *c,
                         uint64_t *res);
uint16_t snic_srq_modify(SnicState *s, const struct snic_aq_cmd *c);
uint16_t snic_srq_destroy(SnicState *s, uint32_t srqn);
uint16_t snic_rdma_srq_db(SnicState *s, uint16_t page, uint32_t srqn,
                          uint16_t ctr);
/* Next receive WQE of @qp (its RQ or SRQ) without consuming it. */
bool snic_rdma_recv_peek(SnicState *s, SnicQp *qp, SnicRecvWqe *w);
void snic_rdma_recv_consume(SnicState *s, SnicQp *qp);

/* snic-rdma-xrc.c: XRC domains, below the QP admin, the SRQs and roles */
uint16_t snic_xrcd_create(SnicState *s, uint64_t *res);
uint16_t snic_xrcd_destroy(SnicState *s, uint32_t xrcdn);
/* The XRC fields of CREATE_SRQ into @q (taking its references). */
uint16_t snic_xrc_srq_create(SnicState *s, SnicSrq *q,
                             const struct snic_aq_create_srq *a);
/* XRC SRQ @q is destroyed: its references go, no TGT QP names it. */
void snic_xrc_srq_destroy(SnicState *s, SnicSrq *q);
/* CREATE_QP: an XRC_TGT QP's XRC domain exists? */
uint16_t snic_xrc_qp_check(SnicState *s, const struct snic_aq_create_qp *a);
/* XRC_TGT @qp takes its domain; no PD, CQ or SRQ until a request binds. */
void snic_xrc_qp_init(SnicState *s, SnicQp *qp, uint16_t xrcdn);
void snic_xrc_qp_destroy(SnicState *s, SnicQp *qp);
/*
 * XRC_TGT @qp takes a request for XRC SRQ @srqn: false if there is no
 * such XRC SRQ in its domain (or a message in progress names another).
 */
bool snic_xrc_bind(SnicState *s, SnicQp *qp, uint32_t srqn);
/* A received XRC packet: the RC opcode in *h and *fl. */
void snic_xrc_rx(SnicRoceHdr *h, uint32_t *fl);

/* snic-rdma-flush.c: below the roles */
/* The send CQE of @w, with @status (SNIC_RST_*). */
void snic_rdma_req_cqe(SnicState *s, SnicQp *qp, const SnicSwqe *w,
                       uint8_t status);
/* A send or receive error moves the QP to ERR (RC) or SQE (UD). */
void snic_rdma_qp_error(SnicState *s, SnicQp *qp, uint8_t status,
                        bool send_side);
/* Complete what an ERR (send and receive) or SQE (send) QP holds. */
void snic_rdma_flush(SnicState *s, SnicQp *qp);

/* snic-rdma-qp.c */
uint16_t snic_rdma_create_qp(SnicState *s, const struct snic_aq_cmd *c,
                             uint64_t *res);
uint16_t snic_rdma_modify_qp(SnicState *s, const struct snic_aq_cmd *c);
uint16_t snic_rdma_query_qp(SnicState *s, const struct snic_aq_cmd *c);
uint16_t snic_rdma_destroy_qp(SnicState *s, uint32_t qpn);
void snic_rdma_qp_free(SnicState *s, SnicQp *qp);
/* QP doorbells; false if @off is not an RDMA doorbell. */
/*
 * A whole WQE-by-MMIO line of a QP's send queue on @page (docs/snic-rdma.md);
 * false: refused (the caller counts and reports it).
 */
bool snic_rdma_db_wqe(SnicState *s, uint16_t page, const uint8_t *line);
bool snic_rdma_db(SnicState *s, uint16_t page, uint32_t off, uint32_t qn,
                  uint16_t ctr);

/* snic-rdma-req.c */
/*
 * Take the WQE in @segs (at most @avail basic blocks; the QP's next, at
 * sq_fetch) into @qp's window: its basic blocks, 0 if it must wait (PSN
 * window).  The caller checked the state and that the window has room.
 */
unsigned snic_rdma_req_take(SnicState *s, SnicQp *qp, const uint8_t *segs,
                            unsigned avail);
/*
 * Do what the completer asked (req_ask), then fetch and send within
 * @budget packets.  True if it has more to send right now.
 */
bool snic_rdma_req_run(SnicState *s, SnicQp *qp, int *budget);

/* snic-rdma-cc.c: congestion control, below the roles, above the net */
/* Device properties cc, spray, cnp-interval-us, dcqcn-*. */
void snic_rdma_cc_props(SnicState *s, Object *obj);
/* NULL if the parameters are usable, else what is wrong. */
const char *snic_rdma_cc_check(SnicState *s);
void snic_rdma_cc_qp_init(SnicState *s, SnicQp *qp);
void snic_rdma_cc_qp_free(SnicQp *qp);
/* A QP starts over (RESET, new SQ PSN): full rate, no history. */
void snic_rdma_cc_qp_reset(SnicState *s, SnicQp *qp);
/* An RC packet for @qp arrived with CE set: a CNP is due. */
void snic_rdma_cc_ce(SnicState *s, SnicQp *qp);
/* A CNP for @qp arrived. */
void snic_rdma_cc_cnp(SnicState *s, SnicQp *qp, const SnicRoceHdr *h);
/* Send @qp's due CNP (from the RDMA bottom half). */
void snic_rdma_cc_run(SnicState *s, SnicQp *qp);
/*
 * May the requester send now?  False: paced (timing mode, DCQCN), the QP
 * is kicked when it may.
 */
bool snic_rdma_cc_may_send(SnicState *s, SnicQp *qp);
/* The requester sent a frame of @len bytes. */
void snic_rdma_cc_sent(SnicState *s, SnicQp *qp, size_t len);
/* Packets RC @qp may have unacknowledged (AIMD window or DCQCN's cap). */
uint32_t snic_rdma_cc_window(SnicState *s, SnicQp *qp);
/* DCQCN's current rate of @qp in Mbit/s, 0 in AIMD mode. */
uint32_t snic_rdma_cc_rate_mbps(SnicState *s, SnicQp *qp);
uint32_t snic_rdma_cc_alpha(SnicQp *qp);

/* snic-rdma-net.c: below the roles */
SnicQp *snic_rdma_qp(SnicState *s, uint32_t qpn);
/* An async event on the port's async EQ, if it has one. */
void snic_rdma_event(SnicState *s, uint8_t type, uint32_t obj,
                     uint32_t data);
/* Have the RDMA bottom half run @qp's roles. */
void snic_rdma_kick(SnicState *s, SnicQp *qp);
/* Packets sent and not yet acknowledged? */
bool snic_rdma_outstanding(SnicQp *qp);
/* (Re)arm or stop the retransmit and loss probe timers of RC @qp. */
void snic_rdma_timer_update(SnicState *s, SnicQp *qp);
/* Put a finished frame on the wire (loss injection, counters). */
void snic_rdma_xmit(SnicState *s, SnicQp *qp, const SnicRoceHdr *h,
                    const uint8_t *f, size_t len);
/* Headers every packet of @qp shares (addresses, BTH basics). */
void snic_rdma_hdr_init(SnicState *s, SnicQp *qp, SnicRoceHdr *h,
                        uint8_t opcode, uint32_t psn);
/* An XRC QP's packet: its RC opcode to the XRC one, a request's XRCETH. */
void snic_rdma_hdr_xrc(const SnicQp *qp, SnicRoceHdr *h, uint16_t srqn);
void snic_rdma_loss_props(SnicState *s, Object *obj);
uint16_t snic_src_addr_set(SnicState *s, const struct snic_aq_cmd *c);
/* A user UD QP's source: @av's smac and sip from its sgid_index entry. */
uint8_t snic_rdma_src_fill(SnicState *s, SnicQp *qp, struct snic_av *av,
                           uint8_t *sip6);
bool snic_rdma_src_ours(SnicState *s, const SnicRoceHdr *h);
/* The VLAN id of a path's AV, of a received frame (0: untagged). */
uint16_t snic_rdma_av_vid(const struct snic_av *av);
uint16_t snic_rdma_hdr_vid(const SnicRoceHdr *h);
uint32_t snic_rdma_ud_mtu(SnicState *s, const struct snic_av *av);

/* snic-rdma-recv.c: above the responder and the completer */
/* A frame from the wire: true if the RDMA engine took it. */
bool snic_rdma_rx(SnicState *s, const uint8_t *f, size_t len, int32_t vlan);

/* snic-rdma-resp.c */
void snic_rdma_resp_rx(SnicState *s, SnicQp *qp, const SnicRoceHdr *h);
bool snic_rdma_resp_run(SnicState *s, SnicQp *qp, int *budget);
void snic_rdma_custom_clear(SnicQp *qp);

/* snic-rdma-comp.c */
void snic_rdma_comp_rx(SnicState *s, SnicQp *qp, const SnicRoceHdr *h);
bool snic_rdma_retire(SnicState *s, SnicQp *qp);
void snic_rdma_retry_timer(void *opaque);
void snic_rdma_rnr_timer(void *opaque);
void snic_rdma_probe_timer(void *opaque);
int64_t snic_rdma_rnr_ns(uint8_t code);

#endif
