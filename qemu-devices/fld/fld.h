/*
 * fld: the FlexDriver endpoint - shared state.
 *
 * An accelerator-side block that drives snic's data plane over
 * peer-to-peer PCIe: the NIC's send rings, completion rings, doorbell
 * records and buffers are windows of FLD's BAR2, answered from compressed
 * state.  Register map and formats: docs/fld.md and
 * kernel/include/d2d/fld_ifc.h (the one definition).
 *
 * Files, top to bottom (docs/fld.md "Device model layers"; a file calls
 * only files below it): fld-pci.c (PCI function, BARs, properties),
 * fld-regs.c (BAR0 registers, commands, reset, memory table), fld-win.c
 * (BAR2 windows: WQE synthesis, CQE compression, doorbell records, TX
 * buffer translation, RX buffers), fld-accel.c (the accelerators),
 * fld-rdma.c (FLD-R: RC QP slots whose send/receive rings are FLD
 * windows), fld-stream.c (the accelerator stream API: receive with
 * metadata, transmit with credits, completions, doorbells to the NIC, the
 * bottom half), fld-iot.c (CoAP and JWT checks of iotauth), fld-defrag.c
 * (IPv4 reassembly of defrag), fld-zucreq.c (zuc requests), fld-cqe.c,
 * fld-pool.c, fld-cuckoo.c, fld-mem.c, fld-zuc.c (pure C components with
 * host unit tests), fld-core.c (kick, error registers, Unix time).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_FLD_H
#define HW_D2D_FLD_H

#include "hw/pci/pci.h"
#include "qom/object.h"
#include "d2d/fld_ifc.h"
#include "d2d/snic_ifc.h"
#include "d2d/snic_rdma_ifc.h"
#include "../common/d2d-pcie.h"
#include "../common/d2d-timing.h"
#include "../common/d2d-trace.h"
#include "fld-cuckoo.h"
#include "fld-pool.h"
#include "fld-mem.h"
#include "fld-cqe.h"
#include "fld-defrag.h"

#define TYPE_FLD "fld"
OBJECT_DECLARE_SIMPLE_TYPE(FldState, FLD)

#define FLD_ETH_HLEN        14
/*
 * Packets the accelerator's input FIFO holds.  Every configured RQ and
 * FLD-R QP gets an equal share (FLD_ACCEL_FIFO / queues in use) and its
 * own queue within it: a queue over its share drops and counts against
 * itself only.
 */
#define FLD_ACCEL_FIFO      FLD_ACCEL_FIFO_PKTS
/* Packets the bottom half hands the accelerator per pass. */
#define FLD_BH_BUDGET       64

/* A send queue: what the NIC reads as a ring of WQEs. */
typedef struct FldSq {
    bool valid;
    uint16_t sqn;           /* the NIC's queue number */
    uint8_t log_size;       /* basic blocks */
    uint8_t cq;             /* FLD CQ slot of its completions */
    uint64_t db_addr;       /* NIC doorbell (bus address) */
    uint32_t quota;         /* buffer bytes it may hold */
    uint16_t pi;            /* producer counter: the only ring state */
    uint16_t ci;            /* completed up to here */
    uint16_t sig;           /* one past the last signaled WQE */
    uint16_t vb_head;       /* next free block of its TX buffer window */
    uint32_t bytes_held;    /* buffer bytes in flight */
    uint32_t blocks_held;
    uint16_t db_pi;         /* last producer counter rung */
    bool rdma;              /* send ring of an FLD-R QP: WQEs are SENDs */
} FldSq;

/* A completion queue window: CQEs compressed on write. */
typedef struct FldCq {
    bool valid;
    uint16_t cqn;
    uint8_t log_size;
    uint16_t pi;            /* CQEs received */
    uint16_t ci;            /* CQEs processed */
    /*
     * NIC entries (CQEs or mini-CQE lines) received and processed: the
     * doorbell record; last[k]: entry k of ring is its NIC entry's last.
     */
    uint16_t nic_pi, nic_ci;
    uint8_t *last;          /* 1 << FLD_CQ_MAX_LOG */
    uint8_t stage[64];      /* the CQE being written */
    uint64_t stage_mask;    /* bytes of it written so far */
    uint32_t stage_slot;
    uint8_t (*ring)[FLD_CQE_SIZE];  /* 1 << FLD_CQ_MAX_LOG compressed CQEs */
#define FLD_CQ_RING_MASK ((1u << FLD_CQ_MAX_LOG) - 1)
} FldCq;

/* A striding receive queue whose buffers are FLD's RX window. */
typedef struct FldRq {
    bool valid;
    uint16_t rqn;
    uint8_t log_size;       /* descriptors */
    uint8_t log_stride, log_nstrides;
    uint8_t cq;
    uint8_t route_sq;       /* SQ slot the accelerator answers on */
    bool routed;
    uint64_t db_addr;
    uint16_t pi;            /* descriptors posted (the doorbell record) */
    uint16_t db_pi;
    uint8_t *buf;           /* FLD_RQ_BUF_SIZE bytes */
    uint64_t stats[FLD_RQ_STAT_COUNT];  /* enum fld_rq_stat */
} FldRq;

/*
 * One input queue of the accelerator FIFO: the packet slots of one RQ
 * (index = RQ slot) or one FLD-R QP (FLD_INQ_QP(slot)), in arrival order.
 */
typedef struct FldInQ {
    uint8_t fq[FLD_ACCEL_FIFO];
    uint8_t head, len;
} FldInQ;

#define FLD_INQ_QP(n)       (FLD_MAX_RQS + (n))
#define FLD_NUM_INQ         (FLD_MAX_RQS + FLD_MAX_QPS)

/*
 * An FLD-R RC QP (fld-rdma.c): its send side is SQ slot @sq (rdma), its
 * receive ring and buffers are FLD windows, its doorbell record is served
 * from FLD_DBR_QP.
 */
typedef struct FldQp {
    bool valid;
    bool broken;            /* a receive error: QP in ERR, nothing reposted */
    uint16_t qpn;           /* the NIC's QP number, FLD_QN_NONE until bound */
    uint8_t sq;             /* its SQ slot */
    uint8_t cq;             /* CQ slot of its receive completions */
    uint8_t log_rq;         /* receive WQEs */
    uint64_t db_page;       /* the QP's doorbell page (bus address) */
    uint16_t pi;            /* receive WQEs posted (doorbell record +0) */
    uint16_t ci;            /* receive WQEs completed */
    uint16_t db_pi;
    uint8_t *buf;           /* 2^log_rq x FLD_QP_BUF_SIZE */
} FldQp;

/* What the accelerator learns about a received packet. */
typedef struct FldRxMeta {
    uint8_t rq;             /* FLD RQ slot */
    uint8_t reply_sq;       /* its routed SQ slot */
    bool routed;
    bool csum_ok;           /* NIC verified L3 and L4 checksums */
    bool tag_valid;
    bool hash_valid;
    bool decap;             /* NIC removed VXLAN outer headers */
    uint16_t flow_tag;      /* steering tag: tenant / context */
    uint32_t rss_hash;
    bool rdma;              /* an FLD-R message (no Ethernet headers) */
    uint8_t qp;             /* its QP slot */
} FldRxMeta;

/* A packet waiting in the accelerator's input FIFO. */
typedef struct FldPkt {
    FldRxMeta m;
    bool timed;             /* timing mode: its unit time is charged */
    uint16_t len;
    uint8_t data[FLD_MAX_FRAME];
} FldPkt;

/*
 * Timing mode: the processing unit an accelerator's packets go through,
 * each with its throughput property (docs/timing.md).
 */
typedef enum FldUnit {
    FLD_UNIT_NONE,          /* echo: FLD's per-packet latency only */
    FLD_UNIT_ZUC,
    FLD_UNIT_DEFRAG,
    FLD_UNIT_IOTAUTH,
    FLD_UNIT_COUNT,
} FldUnit;

typedef struct FldAccelOps {
    const char *name;
    uint32_t id;            /* enum fld_accel */
    FldUnit unit;
    /*
     * One received packet.  Returns true when done with it (sent, or
     * dropped and counted), false to be called again with it later
     * (no transmit credit now).
     */
    bool (*rx)(FldState *s, FldPkt *p);
    /* Optional: called every pass before rx, to send what it holds. */
    void (*flush)(FldState *s);
} FldAccelOps;

typedef enum FldTxResult {
    FLD_TX_OK = 0,
    FLD_TX_NO_CREDIT = 1,   /* ring full or quota: retry after completions */
    FLD_TX_STALL = 2,       /* shared pool full: retry after completions */
    FLD_TX_BAD = 3,         /* bad queue or length: dropped */
} FldTxResult;

struct FldState {
    PCIDevice parent_obj;

    MemoryRegion regs;
    MemoryRegion win;
    QEMUBH *bh;
    D2DPcieCounters pcie;
    /* timing mode (docs/timing.md): the link, and the units' parameters */
    D2DTiming timing;
    uint32_t unit_mbps[FLD_UNIT_COUNT];     /* MB/s, [FLD_UNIT_NONE] unused */
    uint32_t accel_ns;                      /* latency per packet */

    /* properties */
    char *accel_name;
    uint32_t pool_descs;
    uint32_t pool_blocks;
    /* PCIe knobs (docs/fld.md "PCIe efficiency") */
    uint32_t tx_signal;     /* signal one Ethernet WQE in this many */
    bool mmio_wqe;          /* ring Ethernet SQs with WQE-by-MMIO lines */
    /* their values at reset: properties tx-signal, mmio-wqe */
    uint32_t tx_signal_prop;
    bool mmio_wqe_prop;

    const FldAccelOps *accel;
    uint32_t ctrl, status;
    uint32_t error, error_count, err_info, err_msix;
    uint32_t cmd_args[FLD_CMD_NARGS];
    uint32_t cmd_status, cmd_result;
    uint64_t stats[FLD_STAT_COUNT];

    FldSq sqs[FLD_MAX_SQS];
    FldCq cqs[FLD_MAX_CQS];
    FldRq rqs[FLD_MAX_RQS];
    FldQp qps[FLD_MAX_QPS];

    /* compressed transmit state */
    FldDescPool pool;       /* (sq, ring index) -> 8-byte descriptor */
    FldCuckoo bmap;         /* (sq, window block) -> buffer pool block */
    uint8_t *blocks;        /* pool_blocks x FLD_BLOCK_SIZE */
    uint32_t *bfree;        /* free block stack */
    uint32_t bfree_top;

    /* accelerator input FIFO: packet slots shared by the RQs' queues */
    FldPkt *fifo;
    uint8_t pkt_free[FLD_ACCEL_FIFO];
    uint32_t pkt_free_top;
    FldInQ inq[FLD_NUM_INQ];
    uint32_t accel_rr;      /* input queue served first in the next pass */

    FldMemParams mem_params;
    FldMemTable mem;
    /* accelerator key table (FLD_CMD_KEY_SET) */
    uint8_t keys[FLD_NUM_KEYS][FLD_KEY_MAX];
    uint8_t key_len[FLD_NUM_KEYS];
    /* FLD_REG_UNIX_TIME: Unix time = virtual clock + time_offset_ns */
    bool time_set;
    uint32_t sq_sel;        /* FLD_REG_SQ_SEL */
    int64_t time_offset_ns;

    uint8_t *acc_out;       /* an accelerator's answer being built */

    /* defrag accelerator: reassembly table and a datagram waiting to go */
    FldDefrag *df;
    uint8_t *df_out;
    size_t df_out_len;
    uint8_t df_sq;

    bool bh_busy, bh_rerun;

    /*
     * FLD-R (fld-rdma.c) sits above the stream layer: these are set by the
     * top (fld-pci.c) so that the stream layer hands FLD-R its receive
     * completions and asks for its doorbells without calling up into it.
     */
    void (*rdma_recv_cqe)(FldState *s, const FldCqe *c);
    void (*rdma_doorbells)(FldState *s);
};

/* fld-core.c: the bottom layer */
void fld_kick(FldState *s);
/* Latch @err and @info in the error registers, count, log, interrupt. */
void fld_raise_error(FldState *s, enum fld_err err, uint32_t info,
                     const char *why);
/* The error registers back to their reset values. */
void fld_error_reset(FldState *s);
/* Unix seconds from FLD_REG_UNIX_TIME and the virtual clock; -1: unset. */
int64_t fld_unix_time(FldState *s);

/* fld-regs.c */
extern const MemoryRegionOps fld_regs_ops;
void fld_reset_state(FldState *s);

/* fld-win.c */
extern const MemoryRegionOps fld_win_ops;

/* fld-stream.c */
void fld_bh(void *opaque);
void fld_stream_reset(FldState *s);
/* Drop RQ @slot's packets waiting for the accelerator (RQ_CLEAR). */
/*
 * A packet slot queued on input queue @q (an RQ slot or FLD_INQ_QP(n)) for
 * the accelerator, or NULL if @q is over its share (the caller counts the
 * drop).  The caller fills it.
 */
FldPkt *fld_inq_admit(FldState *s, unsigned q);
void fld_inq_flush(FldState *s, unsigned q);
void fld_sq_drop(FldState *s, unsigned slot);
bool fld_txd_get(FldState *s, unsigned slot, uint16_t idx,
                 struct fld_txd *d);
/* The buffer byte at @off of SQ @slot's TX window; false if unmapped. */
bool fld_txbuf_byte(FldState *s, unsigned slot, uint32_t off, uint8_t *b);
/*
 * The accelerator's transmit: copy @len bytes into the shared buffer
 * pool, post a descriptor on SQ @slot and ring the NIC's doorbell.
 */
FldTxResult fld_stream_tx(FldState *s, unsigned slot, const uint8_t *f,
                          size_t len, uint8_t cs_flags);
/* Credits of SQ @slot: free ring slots and buffer bytes. */
void fld_stream_credits(FldState *s, unsigned slot, uint32_t *descs,
                        uint32_t *bytes);

/* fld-rdma.c: FLD-R QP slots */
void fld_rdma_reset(FldState *s);
uint32_t fld_cmd_qp_set(FldState *s);
uint32_t fld_cmd_qp_clear(FldState *s, uint32_t slot);
/* FLD_BIND_QP: the qpn and (@db_page non-zero) the QP's doorbell page */
uint32_t fld_rdma_bind(FldState *s, uint32_t slot, uint32_t qpn,
                       uint64_t db_page);
bool fld_rdma_cq_in_use(FldState *s, unsigned cq);
/* A RECV / RECV_ERR completion. */
void fld_rdma_recv_cqe(FldState *s, const FldCqe *c);
void fld_rdma_doorbells(FldState *s);
/* BAR2 accesses in the FLD-R windows; false if @addr is not in them. */
bool fld_rdma_win_read(FldState *s, hwaddr addr, unsigned size,
                       uint64_t *val);
bool fld_rdma_win_write(FldState *s, hwaddr addr, const uint8_t *b,
                        unsigned size);
/* The SEND WQE the NIC reads in a send ring of an FLD-R QP. */
void fld_rdma_wqe(FldState *s, unsigned slot, uint16_t idx,
                  const struct fld_txd *t, uint8_t wqe[SNIC_WQEBB_SIZE]);
void fld_doorbell(FldState *s, uint64_t addr, uint32_t val);
/*
 * The Ethernet send WQE of descriptor @t at counter @idx of SQ @slot:
 * the frame's first FLD_WQE_INLINE bytes inline, signaled every
 * tx-signal WQEs (docs/fld.md "PCIe efficiency").
 */
void fld_eth_wqe(FldState *s, unsigned slot, uint16_t idx,
                 const struct fld_txd *t, uint8_t wqe[SNIC_WQEBB_SIZE]);

/* fld-accel.c */
const FldAccelOps *fld_accel_find(const char *name);
extern const FldAccelOps fld_accels[];

#endif
