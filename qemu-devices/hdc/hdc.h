/*
 * hdc: the HDC engine (DCS-ctrl) - shared state.
 *
 * Register map, command and completion formats: docs/hdc.md and
 * kernel/include/d2d/hdc_ifc.h (the one definition).
 *
 * Files, top to bottom (docs/hdc.md "Device model layers"; a file calls
 * only files below it): hdc-pci.c (PCI function, BARs, properties, the
 * engine's bottom half), hdc-regs.c (BAR0 registers, reset), hdc-cmdq.c
 * (host command and completion rings), hdc-scoreboard.c (D2D commands
 * split into READ / FUNC / WRITE device commands, dependencies),
 * hdc-nvme.c (the engine's own NVMe host: bring-up over peer-to-peer
 * MMIO, I/O queue in BAR4, PRPs into BAR2), hdc-func.c (near-device
 * functions), hdc-core.c (kick, error register, BAR2 chunk allocator).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_HDC_H
#define HW_D2D_HDC_H

#include "hw/pci/pci.h"
#include "qemu/queue.h"
#include "qemu/timer.h"
#include "qom/object.h"
#include "d2d/hdc_ifc.h"
#include "../common/d2d-pcie.h"
#include "../common/d2d-timing.h"
#include "../common/d2d-trace.h"
#include "hdc-func.h"

#define TYPE_HDC "hdc"
OBJECT_DECLARE_SIMPLE_TYPE(HdcState, HDC)

#define HDC_CAPS (HDC_CAP_NVME | HDC_CAP_CRC32C | HDC_CAP_MD5 | \
                  HDC_CAP_SHA256 | HDC_CAP_AES256_CTR | HDC_CAP_DEFLATE | \
                  HDC_CAP_SHA1 | HDC_CAP_CRC32 | HDC_CAP_GZIP | \
                  HDC_CAP_NIC | HDC_CAP_NIC_RX | HDC_CAP_TCP)
/* BAR0: registers up to the MSI-X table. */
#define HDC_REGS_MMIO_SIZE HDC_MSIX_OFFSET
/* Chunks one D2D command may hold between READ and FUNC. */
#define HDC_READ_WINDOW 8
/* NVMe I/O commands outstanding at most: a 64-entry SQ holds 63. */
#define HDC_NVME_SLOTS (HDC_NVME_IO_DEPTH - 1)
/* Extents fetched per DMA read of an extent list. */
#define HDC_EXT_BATCH 256
/* Bytes of synchronous copying one engine pass does before it yields. */
#define HDC_PASS_BUDGET (4 << 20)
/* Poll period of CSTS while waiting for RDY to change, virtual ns. */
#define HDC_NVME_RDY_POLL_NS (1 * SCALE_MS)

/* Device-wide counters; BAR0 statistics show their low 32 bits. */
typedef struct HdcStats {
    uint64_t cmds;
    uint64_t errs;
    uint64_t dev_cmds;
    uint64_t nvme_cmds;
    uint64_t nvme_errs;
    uint64_t rd_bytes;
    uint64_t wr_bytes;
    uint64_t fn_bytes;
    uint64_t bad_db;
    uint64_t dma_errs;
    uint64_t bad_reg;
        uint64_t stale_cpl;
    uint64_t hazard_waits;  /* commands that waited for an older one */
    uint64_t nic_tx;
    uint64_t nic_errs;
    uint64_t nic_rx;
    uint64_t nic_rx_drop;
    uint64_t tcp_acks;      /* TCP segments received and used */
    uint64_t tcp_rexmit;    /* TCP segments sent again */
    uint64_t tcp_rto;       /* retransmission timeouts */
    uint64_t tcp_dupacks;   /* duplicate ACKs received */
    uint64_t tcp_rx;        /* TCP receive: segments placed */
    uint64_t tcp_rx_ooo;    /* ... dropped: out of order or old */
    uint64_t tcp_rx_ack;    /* ... ACKs sent */
} HdcStats;

/* Host command queue: command ring and completion ring in host memory. */
typedef struct HdcCmdQueue {
    uint64_t cmd_base;
    uint64_t cpl_base;
    uint32_t msix;
    uint32_t cmd_tail;      /* last doorbell value */
    uint32_t cmd_head;      /* next command the device reads */
    uint32_t cpl_tail;      /* next completion slot the device writes */
    uint32_t cpl_head;      /* driver's consumer index */
    bool phase;
} HdcCmdQueue;

/* An NVMe extent in host order. */
typedef struct HdcExtent {
    uint64_t lba;
    uint32_t nlb;
    uint16_t skip;
    uint16_t flags;
} HdcExtent;

/* A command's source or destination, validated. */
typedef struct HdcEp {
    uint8_t type;           /* enum hdc_ep_type */
    uint64_t addr;          /* HOST: bus address; DEVBUF: BAR2 offset */
    uint64_t cap;           /* bytes it holds */
    HdcExtent *ext;         /* NVME */
    uint32_t next;          /* NVME cursor: extent ... */
    uint32_t blk;           /* ... and block within it */
    uint32_t n;
} HdcEp;

typedef enum HdcEntryType {
    HDC_E_READ,
    HDC_E_FUNC,
    HDC_E_WRITE,
} HdcEntryType;

typedef enum HdcEntryState {
    HDC_ES_WAIT,            /* dependencies not done */
    HDC_ES_READY,           /* waiting for its controller */
    HDC_ES_ISSUE,           /* issued, in progress */
    HDC_ES_DONE,
} HdcEntryState;

/* Device an entry runs on. */
typedef enum HdcDev {
    HDC_DEV_NONE,
    HDC_DEV_NVME,
    HDC_DEV_HOST,
    HDC_DEV_DEVBUF,
    HDC_DEV_FUNC,
    HDC_DEV_NIC,
} HdcDev;

/* One NVMe command's worth of an entry: blocks at a chunk offset. */
typedef struct HdcRun {
    uint64_t lba;
    uint32_t nlb;
    uint32_t off;
    bool zero;              /* a hole: zeros, no NVMe command */
} HdcRun;

typedef struct HdcJob HdcJob;

/* An HDC_EP_NIC destination's flow, checked (struct hdc_net_flow). */
typedef struct HdcFlow {
    uint8_t proto;          /* HDC_NET_UDP, HDC_NET_TCP */
    uint8_t hdr_len;
    uint8_t l3_off;
    uint8_t l4_off;
    uint16_t mss;
    uint8_t hdr[HDC_NET_HDR_MAX];
} HdcFlow;

/* The guest's flow fields, but the header (copied once it is checked). */
static inline void hdc_flow_load(HdcFlow *fl, const struct hdc_net_flow *f)
{
    fl->proto = f->proto;
    fl->hdr_len = f->hdr_len;
    fl->l3_off = f->l3_off;
    fl->l4_off = f->l4_off;
    fl->mss = le16_to_cpu(f->mss);
}

/* An HDC_EP_NIC source (struct hdc_net_rx): filter, progress, report. */
typedef struct HdcRx {
    uint32_t dst_ip;        /* host order; 0: any */
    uint32_t src_ip;
    uint16_t dst_port;
    uint16_t src_port;      /* 0: any */
    uint64_t next;          /* bytes received in order */
    uint64_t gap_lo;
    uint64_t gap_hi;
    uint32_t dgrams;
    uint32_t dropped;
    bool tcp;               /* a TCP receive (hdc-tcp-rx.c) */
    bool fin;               /* TCP: the stream ends after the prefix */
    uint64_t prefix_addr;   /* TCP: the stream's first bytes in host memory */
    uint32_t prefix_len;
} HdcRx;

/*
 * A byte range a command reads or writes, for the hazard check: space is
 * the HdcDev it lives on (NVMe: LBA << lba_shift), [lo, hi).
 */
typedef struct HdcRange {
    uint8_t space;
    uint64_t lo;
    uint64_t hi;
} HdcRange;

/* A device command of the scoreboard. */
typedef struct HdcEntry {
    QTAILQ_ENTRY(HdcEntry) link;
    HdcJob *job;
    uint8_t type;           /* HdcEntryType */
    uint8_t dev;            /* HdcDev */
    uint8_t state;          /* HdcEntryState */
    bool last;              /* READ/FUNC: the final chunk */
    uint32_t idx;
    int32_t chunk;          /* BAR2 chunk, -1 if none */
    uint32_t data_off;      /* first valid byte in the chunk */
    uint32_t len;           /* valid bytes */
    uint64_t pos;           /* READ: source offset; WRITE: output offset */
    HdcRun *runs;
    uint32_t nruns;
    uint32_t next_run;      /* runs handed to the NVMe controller */
    uint32_t pending;       /* NVMe commands outstanding */
    struct HdcEntry *read;  /* FUNC: its READ and WRITE */
    struct HdcEntry *write;
} HdcEntry;

/* A D2D command from the host queue. */
struct HdcJob {
    QTAILQ_ENTRY(HdcJob) link;
    uint64_t seq;
    uint16_t cmd_id;
    uint8_t opcode;
    uint16_t status;        /* enum hdc_status: the first error */
    bool done;
    uint64_t length;
    HdcEp src;
    HdcEp dst;
    HdcFlow flow;           /* dst HDC_EP_NIC */
    HdcRx rx;               /* src HDC_EP_NIC */
    bool all_read_rx;       /* every byte of it received */
    uint8_t nfuncs;
    uint8_t funcs[HDC_MAX_FUNCS];
    uint64_t aux_addr;
    HdcFuncChain *fc;       /* NULL: no functions */
    QTAILQ_HEAD(, HdcEntry) entries;
    uint32_t nentries;
    uint32_t chunks;        /* READ entries created */
    uint32_t func_next;     /* chunk the next FUNC runs on */
    uint32_t reads_open;    /* chunks read or being read, FUNC not run */
    uint32_t writes;        /* WRITE entries created */
    uint64_t rd_pos;        /* source bytes given to READ entries */
    bool all_read;
    bool funcs_done;
    GByteArray *fifo;       /* function output not yet in a WRITE */
    uint64_t out_pos;       /* output bytes given to WRITE entries */
    uint64_t produced;      /* output bytes of the function chain */
        uint64_t written;       /* bytes the destination received */
    GArray *rd_ranges;      /* HdcRange, sorted, merged; NULL: none */
    GArray *wr_ranges;
        bool hazard_checked;    /* no older command conflicts any more */
    bool waits;             /* for an older command: */
    uint64_t after;         /* its seq */
};

/* An NVMe I/O command slot; its index is the command id. */
typedef struct HdcNvmeSlot {
    bool busy;
    bool write;
    HdcEntry *entry;        /* NULL: orphaned by a reset */
    int32_t chunk;          /* chunk its data lives in */
    uint32_t bytes;
} HdcNvmeSlot;

/* Bring-up steps (docs/hdc.md "The engine's NVMe controller"). */
typedef enum HdcNvmeStep {
    HDC_NS_IDLE,
    HDC_NS_START,
    HDC_NS_WAIT_DISABLED,
    HDC_NS_WAIT_READY,
    HDC_NS_ID_CTRL,
    HDC_NS_ID_NS,
    HDC_NS_CREATE_CQ,
    HDC_NS_CREATE_SQ,
} HdcNvmeStep;

/*
 * An NVMe command of entry @e finished (@ok) or was failed by a reset.
 * Set by the top (hdc-pci.c) to the scoreboard's handler, so the NVMe host
 * below the scoreboard never calls up into it.
 */
typedef void HdcNvmeDoneFn(HdcState *s, HdcEntry *e, bool ok);

typedef struct HdcNvme {
    HdcNvmeDoneFn *done;
    uint32_t state;         /* enum hdc_nvme_state */
    uint32_t step;          /* HdcNvmeStep */
    uint64_t bar_reg;       /* HDC_REG_NVME_BAR_* */
    uint32_t nsid;
    uint64_t bar;           /* latched at bring-up */
    uint64_t bar2;          /* our BAR2 and BAR4 bus addresses then */
    uint64_t bar4;
    uint64_t cap;
    uint32_t db_stride;
    int64_t deadline;
    int64_t timeout_ns;
    uint32_t lba_shift;
    uint64_t nsze;
    uint32_t max_xfer;      /* bytes per NVMe command */
    bool live;              /* enabled with its queues in our BAR4 */
    bool quiesce;           /* to be disabled by disable_bh */
    bool stopping;          /* SHUTDOWN: OFF once disabled */
    QEMUBH *disable_bh;
    uint16_t adepth;
    uint16_t asq_tail;
    uint16_t acq_head;
    bool acq_phase;
    bool admin_busy;
    uint16_t admin_cid;
    uint16_t iodepth;
    uint16_t iosq_tail;
    uint16_t iocq_head;
    bool iocq_phase;
    bool sq_db_pending;
    uint32_t slots_used;
    HdcNvmeSlot slots[HDC_NVME_SLOTS];
    QEMUTimer *timer;
    uint8_t *q;             /* BAR4 backing store */
    D2DPcieCounters pcie;   /* traffic on the controller's behalf */
} HdcNvme;

/* A WQE at the NIC, by the index of its first basic block. */
typedef struct HdcNicSlot {
    HdcEntry *entry;        /* its WRITE; NULL: orphaned (or free) */
    int32_t chunk;          /* the chunk its payload is in */
    uint8_t nbb;            /* basic blocks; 0: free */
} HdcNicSlot;

/* The engine's NIC queues (hdc-nic.c). */
typedef struct HdcNic {
    uint32_t sqn;
    uint64_t db;            /* bus address of the snic SQ doorbell */
    bool enabled;
    bool db_pending;
    uint16_t sq_pi;         /* producer counter, basic blocks */
    uint16_t sq_ci;         /* first basic block not completed */
    uint16_t cq_ci;         /* consumer counter */
    bool stop;              /* HDC_NIC_DISABLE: fail what is at the NIC */
    HdcNicSlot slots[1 << HDC_NIC_SQ_LOG];
    /* set by hdc-pci.c: a datagram of WRITE @e completed (or failed) */
    void (*done)(struct HdcState *s, HdcEntry *e, bool ok);
} HdcNic;

/* A received datagram, parsed (hdc-nic-rx.c); ports and IPs host order. */
typedef struct HdcRxDgram {
    uint32_t src_ip;
    uint32_t dst_ip;
    uint16_t src_port;
    uint16_t dst_port;
    uint64_t off;
    uint32_t len;
    const uint8_t *data;
    uint8_t proto;          /* HDC_NET_UDP, HDC_NET_TCP */
    uint8_t tcp_flags;      /* TCP: the header's flags */
    bool has_ts;            /* TCP: a timestamp option, tsval its TSval */
    uint32_t seq;           /* TCP: the sequence number */
    uint32_t tsval;
} HdcRxDgram;

/* What HdcNicRx.deliver did with a datagram. */
enum {
    HDC_RX_PLACED,
    HDC_RX_DROPPED,
    HDC_RX_WAIT,            /* keep it: its chunk is not there yet */
};

/* The engine's receive queues (hdc-nic-rx.c). */
typedef struct HdcNicRx {
    bool enabled;
    bool waiting;           /* a datagram waits for the scoreboard */
    uint16_t fail;          /* status to fail the receives with, or 0 */
    uint16_t rq_pi;         /* RQ producer counter, descriptors */
    uint16_t cq_ci;         /* receive CQ consumer counter */
    int32_t chunk[1 << HDC_NIC_RQ_LOG];     /* descriptor i's BAR2 chunk */
    /*
     * Set by hdc-pci.c to the scoreboard's handlers: a datagram for the
     * receiving command (NULL: a bad frame to count), and failing every
     * receiving command with a status.
     */
    int (*deliver)(struct HdcState *s, const HdcRxDgram *d);
    void (*fail_all)(struct HdcState *s, uint16_t status);
} HdcNicRx;

/*
 * The engine's TCP sender (hdc-tcp.c): one transfer at a time.  Stream
 * offsets count the command's output bytes; sequence numbers are
 * iss + offset.
 */
typedef struct HdcTcp {
    HdcJob *job;            /* the transfer, NULL: none */
    QEMUTimer *timer;       /* retransmission and persist timer */
    uint32_t rqn;
    uint64_t rq_db;         /* bus address of the snic RQ doorbell, 0: none */
    bool rx_on;             /* descriptors posted */
    uint16_t rq_pi;         /* RQ producer counter */
    uint16_t rcq_ci;        /* RX CQ consumer counter */
    uint32_t iss;
    uint64_t una;           /* first byte not acked */
    uint64_t nxt;           /* next byte to send */
    uint64_t max;           /* bytes sent at least once */
    uint64_t recover;       /* NewReno: max when loss was detected */
    uint32_t wnd;           /* peer's window, bytes */
    uint32_t cwnd;
    uint32_t ssthresh;
    uint32_t dupacks;
    uint32_t retries;       /* timeouts since the last new ack */
    uint32_t max_retries;
    uint32_t ts_recent;     /* peer's last TSval: our TSecr */
    uint16_t ip_id;         /* IPv4 id of the next segment */
    uint8_t wscale;
    bool ts;                /* the header carries the timestamp option */
    bool recovery;
    bool fired;             /* the timer expired: handled in the pass */
    bool reset;             /* the peer reset the connection */
    int64_t rto_ns;
    int64_t rto_first_ns;
} HdcTcp;

/*
 * The engine's TCP receiver (hdc-tcp-rx.c): one receive at a time.
 * Stream offsets count the command's input bytes; sequence numbers are
 * irs + offset.  Out-of-order segments are dropped (the peer sends them
 * again), each answered by a duplicate ACK.
 */
typedef struct HdcTcpRx {
    HdcJob *job;            /* the receive, NULL: none */
    uint32_t irs;           /* sequence number of stream byte 0 */
    uint64_t edge;          /* right edge of the window offered, offset */
    uint64_t acked;         /* the ack number last sent, offset */
    uint32_t wnd;           /* the window offered beyond each ACK */
    uint32_t ts_recent;     /* the peer's last TSval: our TSecr */
    uint32_t dup_due;       /* duplicate ACKs to send this pass */
    uint16_t ip_id;         /* IPv4 id of the next ACK */
    uint8_t wscale;         /* our receive window scale */
    bool ts;                /* the template carries the timestamp option */
    bool ack_due;           /* bytes placed: a cumulative ACK is due */
    bool fin;               /* the peer's FIN came at the stream's end */
} HdcTcpRx;

struct HdcState {
    PCIDevice parent_obj;

    MemoryRegion bar0;
    MemoryRegion regs;
    MemoryRegion buf;
    MemoryRegion nvmeq;
    uint32_t buf_mib;
    uint64_t buf_size;
    uint8_t *buf_ptr;

    uint32_t ctrl;
    uint32_t status;
    uint32_t error;
    uint32_t error_count;
    uint64_t devbuf_size;

    HdcCmdQueue q;
    HdcStats stats;
    D2DPcieCounters pcie;
    HdcNvme nv;
    HdcNic nic;
    HdcNicRx nicrx;
    HdcTcp tcp;
    HdcTcpRx tcprx;

    /* scoreboard */
    QTAILQ_HEAD(, HdcJob) jobs;
    uint32_t njobs;
    uint64_t next_seq;
    uint32_t nchunks;       /* chunks of BAR2 */
    uint32_t pool_start;    /* first chunk after the DEVBUF area */
    uint32_t chunks_free;
    uint32_t chunk_hint;
    bool chunk_starved;     /* a command found no free chunk this pass */
    uint64_t chunk_starved_seq;
    bool *chunk_owned;
    uint16_t *chunk_orphans;

    QEMUBH *bh;
    D2DTiming timing;       /* docs/timing.md */
    bool busy;
    bool rerun;
    int64_t budget;         /* bytes a pass may copy before yielding */
};

/* hdc-core.c: the bottom layer */
void hdc_kick(HdcState *s);
void hdc_raise_error(HdcState *s, enum hdc_err err, const char *why);
void hdc_chunk_pool_init(HdcState *s);
void hdc_chunk_pool_free(HdcState *s);
void hdc_chunk_pool_reset(HdcState *s, bool hard);
/* A free chunk of the pool for @job, -1 if none (older commands first). */
int32_t hdc_chunk_alloc(HdcState *s, HdcJob *job);
void hdc_chunk_put(HdcState *s, int32_t chunk);
/* A free chunk of the pool for the engine itself, -1 if none. */
int32_t hdc_chunk_take(HdcState *s);
void hdc_chunk_orphan_get(HdcState *s, int32_t chunk);
void hdc_chunk_orphan_put(HdcState *s, int32_t chunk);
uint8_t *hdc_chunk_ptr(HdcState *s, int32_t chunk);

/* hdc-regs.c */
extern const MemoryRegionOps hdc_regs_ops;
void hdc_reset_state(HdcState *s, bool hard);

/* hdc-cmdq.c */
void hdc_cmdq_enable(HdcState *s);
void hdc_cmdq_disable(HdcState *s);
void hdc_cmdq_stop(HdcState *s);
void hdc_cmdq_doorbell(HdcState *s, uint32_t tail);
void hdc_cmdq_fetch(HdcState *s);
void hdc_cmdq_post(HdcState *s);

/* hdc-scoreboard.c */
void hdc_sb_init(HdcState *s);
void hdc_sb_free(HdcState *s);
HdcJob *hdc_job_new(HdcState *s, const struct hdc_cmd *cmd);
void hdc_job_free(HdcState *s, HdcJob *job);
void hdc_sb_run(HdcState *s);
void hdc_sb_drop_all(HdcState *s);
void hdc_sb_nvme_done(HdcState *s, HdcEntry *e, bool ok);
void hdc_sb_nic_done(HdcState *s, HdcEntry *e, bool ok);
int hdc_sb_rx_deliver(HdcState *s, const HdcRxDgram *d);
void hdc_sb_rx_fail(HdcState *s, uint16_t status);
void hdc_sb_format(HdcState *s, GString *out);

/* hdc-nic.c */
void hdc_nic_init(HdcState *s);
void hdc_nic_reset(HdcState *s);
uint32_t hdc_nic_status(HdcState *s);
void hdc_nic_ctrl_write(HdcState *s, uint32_t val);
bool hdc_nic_is_cq(hwaddr addr);
int hdc_nic_submit(HdcState *s, HdcEntry *w);
void hdc_nic_orphan(HdcState *s, HdcEntry *e);
void hdc_nic_process(HdcState *s);
void hdc_nic_flush(HdcState *s);
/*
 * One frame on the SQ: @hl header bytes (inlined), then @plen payload
 * bytes at bus address @bus; @e (or NULL) learns of its completion.
 * false if the ring is full.
 */
bool hdc_nic_post(HdcState *s, const uint8_t *hdr, unsigned hl,
                  uint64_t bus, uint32_t plen, HdcEntry *e);

/* hdc-tcp-rx.c */
void hdc_tcp_rx_reset(HdcState *s);
uint16_t hdc_tcp_rx_setup(HdcState *s, HdcJob *job, uint64_t addr);
/* What hdc_tcp_rx_seg made of a segment. */
enum {
    HDC_TCP_SEG_DROP,       /* not for the stream (counted, ACK if due) */
    HDC_TCP_SEG_DATA,       /* in order: place [*off, *off + len) */
    HDC_TCP_SEG_RESET,      /* the peer reset the connection */
};
/* The new bytes of a segment: @len at stream offset @off, payload + @skip. */
typedef struct HdcTcpSeg {
    uint64_t off;
    uint32_t skip;
    uint32_t len;
} HdcTcpSeg;
int hdc_tcp_rx_seg(HdcState *s, HdcJob *job, const HdcRxDgram *d,
                   HdcTcpSeg *g);
/* A segment's new bytes are placed; true if it also ends the stream (FIN). */
bool hdc_tcp_rx_took(HdcState *s, HdcJob *job, const HdcRxDgram *d);
/* The stream ends at the next byte (the FIN came with the prefix). */
void hdc_tcp_rx_fin(HdcState *s, HdcJob *job);
void hdc_tcp_rx_flush(HdcState *s);
void hdc_tcp_rx_job_end(HdcState *s, HdcJob *job);

/* hdc-tcp.c */
void hdc_tcp_init(HdcState *s);
void hdc_tcp_fini(HdcState *s);
void hdc_tcp_reset(HdcState *s);
void hdc_tcp_ctrl(HdcState *s, uint32_t val);
uint16_t hdc_tcp_flow_setup(HdcState *s, HdcJob *job,
                            const struct hdc_net_flow *f);
int hdc_tcp_submit(HdcState *s, HdcEntry *w);
bool hdc_tcp_acked(HdcState *s, const HdcEntry *e);
void hdc_tcp_process(HdcState *s);
void hdc_tcp_job_end(HdcState *s, HdcJob *job);

/* hdc-nic-rx.c */
void hdc_nic_rx_init(HdcState *s);
void hdc_nic_rx_reset(HdcState *s);
uint32_t hdc_nic_rx_status(HdcState *s);
void hdc_nic_rx_ctrl_write(HdcState *s, uint32_t val);
bool hdc_nic_rx_is_cq(hwaddr addr);
void hdc_nic_rx_process(HdcState *s);

/* hdc-nvme.c */
extern const MemoryRegionOps hdc_nvmeq_ops;
void hdc_nvme_init(HdcState *s);
void hdc_nvme_exit(HdcState *s);
void hdc_nvme_ctrl_write(HdcState *s, uint32_t val);
void hdc_nvme_process(HdcState *s);
void hdc_nvme_flush(HdcState *s);
/* 1: submitted, 0: no free command slot, -1: the controller is not up. */
int hdc_nvme_submit(HdcState *s, HdcEntry *e, const HdcRun *r, bool write);
void hdc_nvme_orphan_all(HdcState *s);
void hdc_nvme_request_disable(HdcState *s);
void hdc_nvme_reset(HdcState *s, bool hard);
const char *hdc_nvme_state_name(uint32_t state);

#endif
