/*
 * snic: SmartNIC device model - shared state.
 *
 * Register map, queue and descriptor formats: docs/snic.md and
 * kernel/include/d2d/snic_ifc.h (the one definition).
 *
 * Files (layers: docs/snic.md "Device model layers"): snic-pci.c (PCI
 * function, netdev glue), snic-regs.c (BAR0), snic-db.c (BAR2 doorbells),
 * snic-admin.c (admin queue, IDENTIFY), snic-queues.c (EQ/CQ/SQ/RQ objects,
 * CQE/EQE posting), snic-core.c (bottom: errors, DMA probe, admin
 * buffers, port state, frame output and loopback, interrupts), snic-tx.c
 * (send path, offloads, rate limiter), snic-rx.c (receive pipeline),
 * snic-steer.c (RSS groups, steering rules), snic-port.c (port config,
 * statistics), snic-pkt.c (pure packet helpers), snic-spin*.c (sPIN
 * engine, docs/snic-spin.md); the RoCEv2 transport: snic-rdma.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_SNIC_H
#define HW_D2D_SNIC_H

#include "hw/pci/pci.h"
#include "net/net.h"
#include "qemu/timer.h"
#include "qom/object.h"
#include "d2d/snic_ifc.h"
#include "../common/d2d-pcie.h"
#include "../common/d2d-timing.h"
#include "snic-pkt.h"

/*
 * The host-order mirror field of a statistics list entry (snic_ifc.h
 * SNIC_PORT_STATS, snic_rdma_ifc.h SNIC_RDMA_STATS).
 */
#define SNIC_STAT_HOST(id, field) uint64_t field;

#define TYPE_SNIC "snic"
OBJECT_DECLARE_SIMPLE_TYPE(SnicState, SNIC)

#include "snic-rdma.h"
#include "snic-spin.h"

/*
 * sPIN's receive hook: how the layers below the sPIN engine (receive
 * pipeline, steering, the RDMA responder and QP objects) hand it packets
 * and ask about its contexts.  snic_spin_init registers it in
 * SnicState.spin_hook; nothing below the engine calls it directly.
 */
typedef struct SnicSpinHook {
    /* A frame a steering rule sent to context @ctx. */
    void (*rx)(SnicState *s, uint32_t ctx, const uint8_t *f, size_t len);
    /*
     * An RC request packet the responder accepted on a QP with a context:
     * SPIN_PASS (*payload: the payload as the handlers left it),
     * SPIN_DROP, or -1 when the engine has no room.
     */
    int (*rdma_in)(SnicState *s, SnicQp *qp, const SnicRoceHdr *h,
                   uint32_t opflags, const uint8_t **payload);
    /*
     * A custom-opcode request the responder accepted (in sequence, once
     * per PSN): run the QP's handler for it, which fills @resp (h->dlen
     * bytes, zeroed); SNIC_CUSTOM_* (snic-rdma.h).
     */
    int (*custom_in)(SnicState *s, SnicQp *qp, const SnicRoceHdr *h,
                     uint8_t *resp);
    /* Does context @ctx exist?  Its rule reference count, or NULL. */
    bool (*ctx_exists)(SnicState *s, uint32_t ctx);
    uint32_t *(*ctx_refs)(SnicState *s, uint32_t ctx);
    /* QP @qp is being destroyed. */
    void (*qp_gone)(SnicState *s, SnicQp *qp);
} SnicSpinHook;

#define SNIC_FW_VERSION "d2d-snic 0.1.0"
#define SNIC_CAPS (SNIC_CAP_ADMINQ | SNIC_CAP_ETH | SNIC_CAP_CSUM | \
                   SNIC_CAP_TSO | SNIC_CAP_RSS | SNIC_CAP_STEER | \
                   SNIC_CAP_VXLAN | SNIC_CAP_RATE | SNIC_CAP_STRIDING_RQ | \
                   SNIC_CAP_RDMA | SNIC_CAP_SPIN | SNIC_CAP_VLAN | \
                   SNIC_CAP_MMIO_WQE | SNIC_CAP_MINI_CQE | \
                   SNIC_CAP_RDMA_MMIO_WQE)
#define SNIC_SPEED_MBPS 100000
/* Largest frame the send path assembles: TSO payload + headers. */
#define SNIC_MAX_TX_FRAME (65536 + SNIC_MAX_INLINE + 64)
/* WQE-by-MMIO lines an SQ holds until it runs them (a power of 2, <= 8) */
#define SNIC_SQ_MMIO_SLOTS 8
/* WQEs one SQ runs per pass before others get a turn. */
#define SNIC_TX_BUDGET 64

/* Device-wide counters mirrored in the BAR0 statistics registers. */
typedef struct SnicStats {
    uint32_t aq_cmds;
    uint32_t aq_errs;
    uint32_t bad_db;
    uint32_t dma_errs;
    uint32_t bad_reg;
    uint32_t irqs;
} SnicStats;

/* Port counters, as struct snic_port_stats in host order (one list). */
typedef struct SnicPortStats {
    SNIC_PORT_STATS(SNIC_STAT_HOST)
} SnicPortStats;

/* Admin queue: a command ring and a completion ring in host memory. */
typedef struct SnicAdminQueue {
    uint64_t sq_base;
    uint64_t cq_base;
    uint32_t depth;
    uint32_t msix;
    uint32_t sq_tail;       /* last doorbell value */
    uint32_t sq_head;       /* next command the device reads */
    uint32_t cq_tail;       /* next completion slot the device writes */
    uint32_t cq_head;       /* driver's consumer index */
    bool phase;             /* phase bit of the current pass over the CQ */
    QEMUBH *bh;
} SnicAdminQueue;

/* SNIC_QUEUE_STATS (d2d/snic_ifc.h) in its order, then the queue's PCIe. */
typedef struct SnicQueueStats {
    SNIC_QUEUE_STATS(D2D_PCIE_U64)
    D2DPcieCounters pcie;
} SnicQueueStats;

typedef struct SnicEq {
    bool valid;
    uint64_t ring;
    uint8_t log_size;
    uint16_t pi, ci;
    uint16_t msix;
    uint16_t mod_usecs, mod_count;
    uint16_t db_page;
    bool armed;
    uint32_t pending;       /* EQEs since the last interrupt */
    uint32_t refs;          /* CQs bound to it */
    uint64_t overflows;
    QEMUTimer *mod_timer;
    struct SnicState *s;
} SnicEq;

typedef struct SnicCq {
    bool valid;
    bool error;
    uint64_t ring, dbr;
    uint8_t log_size;
    uint16_t pi, ci;
    uint16_t eqn;
    uint16_t db_page;
    bool armed;
    bool arm_se;            /* armed for solicited and error CQEs only */
    uint32_t refs;          /* SQs, RQs and QPs bound to it */
    uint16_t mod_count;     /* MODIFY_CQ moderation: 0 = off */
    uint16_t mod_period;    /* microseconds, 0 = off */
    uint32_t mod_pending;   /* CQEs counted since arming */
    uint8_t flags;          /* SNIC_CQ_F_* */
    /* SNIC_CQ_F_MINI: the line being filled */
    struct snic_cqe_line line;
} SnicCq;

/* A CQ's moderation timer: kept apart so CQ memsets leave it alone. */
typedef struct SnicCqTimer {
    struct SnicState *s;
    uint16_t cqn;
    QEMUTimer *timer;
    QEMUTimer *line_timer;  /* writes a mini-CQE line not filled in time */
} SnicCqTimer;

#define SNIC_CQE_SIZE 64
QEMU_BUILD_BUG_ON(sizeof(struct snic_cqe) != SNIC_CQE_SIZE);
QEMU_BUILD_BUG_ON(sizeof(struct snic_cqe_line) != SNIC_CQE_SIZE);

/* A mini-CQE line is written at most this long after its first entry. */
#define SNIC_CQ_LINE_NS 1000

typedef struct SnicSq {
    bool valid;
    bool error;
    uint64_t ring, dbr;
    uint8_t log_size;
    uint8_t flags;
    uint16_t cqn;
    uint16_t db_page;
    uint16_t pi, ci;
    bool pending;           /* has work for the TX bottom half */
    /*
     * WQE-by-MMIO: lines not yet run, slot idx % SNIC_SQ_MMIO_SLOTS holds
     * the first basic block of WQE mmio_idx[slot] if bit slot of
     * mmio_valid is set.
     */
    uint8_t mmio_valid;
    uint16_t mmio_idx[SNIC_SQ_MMIO_SLOTS];
    uint8_t mmio_bb[SNIC_SQ_MMIO_SLOTS][SNIC_WQEBB_SIZE];
    /* token bucket */
    uint64_t rate_bps;
    uint32_t burst;
    int64_t tokens;         /* bytes, may go negative */
    int64_t refill_ns;      /* virtual time of the last refill */
    bool rate_wait;
    SnicQueueStats st;
} SnicSq;

typedef struct SnicRq {
    bool valid;
    bool error;
    uint64_t ring, dbr;
    uint8_t log_size;
    uint8_t type;
    uint8_t log_stride, log_nstrides;
    uint16_t cqn;
    uint16_t db_page;
    uint16_t pi, ci;        /* known producer, next descriptor to use */
    uint32_t stride;        /* striding: next free stride in desc ci */
    bool desc_valid;        /* striding: desc is descriptor ci, read once */
    struct snic_rx_desc desc;
    uint32_t refs;          /* RSS groups and rules naming it */
    SnicQueueStats st;
} SnicRq;

/*
 * A doorbell page's WQE-by-MMIO line as its 32-bit stores arrive, and
 * the clock bits its last SNIC_DB_CLOCK_LO read latched.
 */
typedef struct SnicMmioLine {
    uint8_t line[SNIC_DB_SQ_WQE_SIZE];
    uint16_t mask;          /* dwords written so far */
} SnicMmioLine;

typedef struct SnicMmioWqe {
    SnicMmioLine sq;        /* SNIC_DB_SQ_WQE: an Ethernet SQ's */
    SnicMmioLine qp;        /* SNIC_DB_QP_SQ_WQE: an RDMA QP's */
    uint32_t clock_hi;      /* SNIC_DB_CLOCK_HI */
} SnicMmioWqe;

typedef struct SnicRss {
    bool valid;
    uint8_t key[SNIC_RSS_KEY_SIZE];
    uint32_t fields;
    uint32_t table_size;
    uint32_t rqn[SNIC_RSS_TABLE_SIZE];
    uint32_t refs;
} SnicRss;

typedef struct SnicRule {
    bool valid;
    struct snic_steer_rule r;   /* as the driver gave it (wire order) */
    uint64_t packets, bytes;
} SnicRule;

typedef struct SnicPort {
    uint32_t flags;
    uint16_t mtu;
    uint16_t num_macs;
    uint8_t macs[SNIC_MAX_MACS][6];
    uint16_t async_eqn;
    uint8_t vlans[SNIC_VLAN_N / 8];  /* SET_VLAN: accepted VLAN IDs */
} SnicPort;

struct SnicState {
    PCIDevice parent_obj;

    MemoryRegion regs;
    MemoryRegion db;
    NICConf conf;
    NICState *nic;
    char *serial;

    uint32_t ctrl;
    uint32_t status;
    /* CTRL.RESET written, snic_reset_bh not run yet */
    bool reset_pending;
    QEMUBH *reset_bh;
    uint32_t error;
    uint32_t error_count;

    SnicAdminQueue aq;
    /*
     * Fault injection (QOM aq-drop-opcode, settable at run time): commands
     * with this opcode run but post no completion; 0 (NOP) = off.
     * aq-dropped counts them; neither is touched by reset.
     */
    uint8_t aq_drop_opcode;
    uint64_t aq_dropped;
    SnicStats stats;
    D2DPcieCounters pcie;

    SnicEq *eqs;
    SnicCq *cqs;
    SnicCqTimer *cq_timers;
    SnicSq *sqs;
    SnicRq *rqs;
    SnicRss *rss;
    SnicRule *rules;
    SnicMmioWqe *mmio_wqe;  /* SNIC_DB_PAGES */
    /* One past the highest slot ever used since reset: bounds the scans. */
    uint32_t sqs_hi;
    uint32_t rules_hi;
    SnicPort port;
    SnicPortStats ps;
    /* CQ of the loopback SQ whose frame the receive path is taking, or -1 */
    int32_t rx_loop_cqn;

    QEMUBH *tx_bh;
    QEMUTimer *rate_timer;
    uint8_t *tx_frame;      /* SNIC_MAX_TX_FRAME */
    uint8_t *tx_seg;
    /*
     * 802.1Q: the tag the Ethernet WQE being run inserts (-1: none; set
     * as each starts), the frame with it inserted, and a received frame
     * with its tag removed.
     */
    int32_t tx_vlan;
    uint8_t *tx_vlan_frame;  /* SNIC_MAX_TX_FRAME + 4 */
    uint8_t *rx_vlan_frame;  /* SNIC_MAX_TX_FRAME */

    SnicRdma rdma;
    SnicSpin spin;
    D2DTiming timing;       /* docs/timing.md */
    const SnicSpinHook *spin_hook;

    /*
     * Set by the PCI glue (snic-pci.c) at realize, so that the device
     * logic reaches it and the receive pipeline without calling up:
     * notify raises MSI-X vector @vector (through snic_irq); port_rx takes
     * a frame the port loops back from a loopback SQ completing on CQ
     * @cqn (through snic_port_loopback).
     */
    void (*notify)(SnicState *s, unsigned vector);
    void (*port_rx)(SnicState *s, const uint8_t *f, size_t len,
                    uint16_t cqn);
};

/* snic-core.c: the bottom layer */
void snic_raise_error(SnicState *s, enum snic_err err, const char *why);
bool snic_dma_probe(SnicState *s, uint64_t addr);
/*
 * A ring at @ring (SNIC_RING_ALIGN) with a 4-byte record at @record, both
 * answering DMA: SNIC_AQ_OK, SNIC_AQ_EINVAL_PARAM (alignment) or
 * SNIC_AQ_EDMA (counted in dma_errs).
 */
uint16_t snic_ring_record_check(SnicState *s, uint64_t ring, uint64_t record);
/*
 * Whether building block @i of a send WQE is still to be read, the blocks
 * before it read and @avail blocks posted: the control block's ds_cnt,
 * seen at block 1, gives the WQE's size in blocks (*nbb); a size over the
 * maximum or over what is posted stops at the control block.
 */
bool snic_wqe_bb_wanted(const struct snic_wqe_ctrl *ctrl, unsigned i,
                        unsigned avail, unsigned *nbb);
/* Read / write @len bytes of an admin command's buffer (struct snic_aq_buf). */
uint16_t snic_aq_read_buf(SnicState *s, const struct snic_aq_cmd *c,
                          void *out, size_t len);
uint16_t snic_aq_write_buf(SnicState *s, const struct snic_aq_cmd *c,
                           const void *data, size_t len);
bool snic_port_up(SnicState *s);
bool snic_port_xmit(SnicState *s, const uint8_t *f, size_t len,
                    uint64_t *pkts, uint64_t *bytes);
/* A loopback SQ's frame (on CQ @cqn) into the port's receive path. */
void snic_port_loopback(SnicState *s, const uint8_t *f, size_t len,
                        uint16_t cqn);
/* Raise MSI-X vector @vector, counted in the irqs statistic. */
void snic_irq(SnicState *s, unsigned vector);

/* snic-regs.c */
extern const MemoryRegionOps snic_regs_ops;
void snic_reset_state(SnicState *s);
void snic_reset_bh(void *opaque);

/* snic-admin.c */
void snic_aq_enable(SnicState *s);
void snic_aq_disable(SnicState *s);
void snic_aq_doorbell(SnicState *s, uint32_t tail);
void snic_aq_kick(SnicState *s);
void snic_aq_bh(void *opaque);

/* snic-db.c */
extern const MemoryRegionOps snic_db_ops;

/* snic-queues.c */
#define RING_MASK(q) ((1u << (q)->log_size) - 1)
#define RING_SIZE(q) (1u << (q)->log_size)
void snic_queues_init(SnicState *s);
void snic_queues_free(SnicState *s);
void snic_queues_reset(SnicState *s);
uint16_t snic_cmd_create_eq(SnicState *s, const struct snic_aq_cmd *c,
                            uint64_t *res);
uint16_t snic_cmd_resize_cq(SnicState *s, const struct snic_aq_cmd *c,
                            uint64_t *res);
uint16_t snic_cmd_create_cq(SnicState *s, const struct snic_aq_cmd *c,
                            uint64_t *res);
uint16_t snic_cmd_modify_cq(SnicState *s, const struct snic_aq_cmd *c);
uint16_t snic_cmd_create_sq(SnicState *s, const struct snic_aq_cmd *c,
                            uint64_t *res);
uint16_t snic_cmd_create_rq(SnicState *s, const struct snic_aq_cmd *c,
                            uint64_t *res);
uint16_t snic_cmd_destroy(SnicState *s, const struct snic_aq_cmd *c);
bool snic_cq_post(SnicState *s, uint16_t cqn, struct snic_cqe *cqe,
                  D2DPcieCounters *q);
void snic_eq_post(SnicState *s, uint16_t eqn, uint8_t type, uint32_t obj,
                  uint32_t data);
bool snic_rq_next_desc(SnicState *s, SnicRq *rq, struct snic_rx_desc *d);
void snic_queue_error(SnicState *s, uint8_t eqe_type, uint16_t cqn,
                      uint32_t qn, const char *why);
void snic_queue_stats_format(SnicState *s, GString *out);
/* Raise an EQ's MSI-X now; a CQ's completion event now. */
void snic_eq_fire(SnicState *s, SnicEq *eq);
void snic_cq_event(SnicState *s, uint16_t cqn);

/* snic-tx.c */
void snic_tx_bh(void *opaque);
void snic_tx_rate_timer(void *opaque);
void snic_tx_kick(SnicState *s, SnicSq *sq);
bool snic_tx_frame_out(SnicState *s, uint8_t *f, size_t len,
                       uint8_t cs_flags);
uint16_t snic_cmd_modify_sq(SnicState *s, const struct snic_aq_cmd *c);

/* snic-rx.c */
ssize_t snic_rx_frame(SnicState *s, const uint8_t *buf, size_t size);
/* A frame of a loopback SQ on CQ @cqn into the port's receive path. */
void snic_rx_loopback(SnicState *s, const uint8_t *buf, size_t size,
                      uint16_t cqn);
void snic_rx_spin_pass(SnicState *s, const uint8_t *buf, size_t size);

/* snic-steer.c */
uint16_t snic_cmd_rss(SnicState *s, const struct snic_aq_cmd *c,
                      uint64_t *res);
uint16_t snic_cmd_add_rule(SnicState *s, const struct snic_aq_cmd *c,
                           uint64_t *res);
uint16_t snic_cmd_del_rule(SnicState *s, const struct snic_aq_cmd *c);
SnicRule *snic_steer_match(SnicState *s, const uint8_t *f, size_t len,
                           const SnicPktInfo *pi, bool skip_spin);

/* snic-port.c */
uint16_t snic_cmd_set_port(SnicState *s, const struct snic_aq_cmd *c);
uint16_t snic_cmd_query_port(SnicState *s, const struct snic_aq_cmd *c);
uint16_t snic_cmd_set_vlan(SnicState *s, const struct snic_aq_cmd *c);
uint16_t snic_cmd_query_stats(SnicState *s, const struct snic_aq_cmd *c);
void snic_port_link_changed(SnicState *s, bool up);

/* Protection domain @pdn, if it exists (for every RDMA object's checks). */
static inline SnicPd *snic_pd(SnicState *s, uint32_t pdn)
{
    return pdn < SNIC_MAX_PDS && s->rdma.pds[pdn].valid ?
           &s->rdma.pds[pdn] : NULL;
}

#endif
