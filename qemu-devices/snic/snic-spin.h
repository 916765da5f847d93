/*
 * snic sPIN engine - model state shared by snic-spin-engine.c (contexts,
 * admin commands, messages, scheduling, accounting) and snic-spin-cmd.c
 * (the HPU command unit).  Interface: docs/snic-spin.md and
 * kernel/include/d2d/snic_spin_ifc.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_SNIC_SPIN_H
#define HW_D2D_SNIC_SPIN_H

#include "d2d/snic_spin_ifc.h"
#include "snic-spin-rv32.h"
#include "snic-spin-l2.h"

typedef struct SnicSpinRegion {
    bool valid;
    uint64_t addr, len;
    uint32_t flags;
} SnicSpinRegion;

typedef struct SnicSpinHStats {
    uint64_t inv, insns, insns_min, insns_max, cycles, cycles_min, cycles_max;
} SnicSpinHStats;

typedef struct SnicSpinCtx {
    bool valid;
    uint32_t entry[SPIN_NUM_HANDLERS];
    uint32_t code_off, code_size, hmem_off, hmem_size;
    uint32_t scratch_size, copy_bytes, watchdog;
    bool no_send;               /* SNIC_SPIN_CFG_F_NO_SEND */
    uint64_t timeout_ns;
    uint64_t ev_ring, ev_dbr;
    uint8_t ev_log;
    uint16_t ev_eqn;
    uint32_t ev_pi;
    uint32_t refs;              /* steering rules naming it */
    bool qp_attached;           /* RDMA requests of RC QP qpn come here */
    uint32_t qpn;
    uint32_t next_msg;
    SnicSpinRegion regions[SNIC_SPIN_MAX_REGIONS];
    /* custom opcode - SNIC_CUSTOM_OP_FIRST: its handler's entry, 0: none */
    uint32_t op_entry[SNIC_CUSTOM_OP_LAST - SNIC_CUSTOM_OP_FIRST + 1];

    /* accounting, as struct snic_spin_ctx_stats */
    uint64_t packets, bytes, messages, messages_done, pass, drop;
    SnicSpinHStats h[SPIN_NUM_HANDLERS];
    uint64_t commands, cmd_dma_bytes, sends, host_writes, atomics;
    uint64_t aborts, events, event_overflows, no_resources;
    uint64_t busy_cycles, first_cycle, last_cycle;
    uint64_t ic_bytes;          /* bytes moved over the interconnect */
    bool seen;
    uint64_t by_event[SNIC_SPIN_EV_MAX];
} SnicSpinCtx;

/* An open message: its cluster, scratch and ordering state. */
typedef struct SnicSpinMsg {
    bool valid;
    uint32_t ctx;
    uint32_t id;
    uint64_t key;               /* flow of a multi-packet message (QP) */
    uint32_t cluster;
    uint8_t *scratch;
    uint32_t scratch_size;
    uint32_t pkts, bytes;       /* arrived so far */
    uint32_t pkts_done;         /* payload handlers finished */
    bool last_seen;
    uint64_t hh_end;            /* cycle the header handler ended */
    uint64_t ph_end;            /* latest payload handler end */
    int64_t last_ns;            /* virtual time of the last packet */
} SnicSpinMsg;

/* A packet in the L2 packet buffer, waiting for its handlers. */
typedef struct SnicSpinPkt {
    QSIMPLEQ_ENTRY(SnicSpinPkt) next;
    uint32_t ctx;
    uint32_t msg;               /* index in SnicSpin.msgs */
    uint32_t idx;
    bool first, last;
    uint64_t arrival;           /* device cycle */
    uint32_t l2_off;            /* its place in the L2 packet buffer */
    bool in_l1;                 /* copied to its cluster's L1 already */
    uint32_t len;
    uint8_t data[];
} SnicSpinPkt;

typedef struct SnicSpinSlot {
    bool used;
    uint64_t done;              /* HPU cycle (of its run) it completes */
    uint32_t result;
} SnicSpinSlot;

/* One HPU: its L1 slot, its timeline and its command unit. */
typedef struct SnicSpinHpu {
    uint8_t *l1;                /* SPIN_L1_SLOT_SIZE bytes */
    uint64_t free_at;           /* device cycle it becomes free */
    int32_t last_ctx;           /* whose data is in l1 (-1: clean) */
    uint32_t desc[16];          /* command descriptor registers */
    SnicSpinSlot slot[SPIN_CMD_SLOTS];
} SnicSpinHpu;

/* A custom handler's response (snic-spin-offload.c). */
typedef struct SnicSpinResp {
    uint8_t *data;              /* the response window, len bytes */
    uint32_t len;
    bool sent;                  /* SPIN_CMD_RESP issued */
} SnicSpinResp;

/* One invocation being interpreted. */
typedef struct SnicSpinRun {
    SnicState *s;
    SnicSpinCtx *ctx;
    uint32_t ctx_id;
    SnicSpinHpu *hpu;
    SnicSpinPkt *pkt;           /* NULL for a completion handler */
    SnicSpinMsg *msg;
    int kind;                   /* SPIN_HANDLER_* */
    uint64_t start;             /* device cycle it started */
    uint32_t ev_addr;           /* command faults: the address reported */
    SnicSpinResp *resp;         /* a custom handler's response, else NULL */
    SpinRv32 cpu;
} SnicSpinRun;

/*
 * The handlers of one packet, run as far as an instruction budget allows:
 * the UDP bottom half suspends a handler when its turn's budget is spent
 * and resumes it on its next turn.
 */
typedef struct SnicSpinJob {
    SnicSpinPkt *pkt;           /* NULL: no packet in progress */
    int stage;                  /* SNIC_SPIN_JOB_* (snic-spin-engine.c) */
    bool running;               /* run holds a started handler */
    bool deliver;               /* a passed frame goes to the host */
    bool aborted;
    int verdict, fate;
    uint64_t end;               /* device cycle its last handler ended */
    SnicSpinRun run;
} SnicSpinJob;

typedef struct SnicSpin {
    uint32_t clusters, hpus, clock_mhz;     /* QOM properties */
    uint32_t msg_slots;         /* QOM spin-msg-slots: open msgs/cluster */
    uint32_t l2p_size;          /* QOM spin-l2p-size: packet buffer bytes */
    uint8_t *pmem;
    uint8_t *l2h;
    SnicSpinHpu *hpu;           /* clusters * hpus */
    uint32_t *open_msgs;        /* per cluster */
    uint32_t *scratch_used;     /* per cluster, bytes of L1 */
    SnicSpinCtx ctxs[SNIC_SPIN_MAX_CTXS];
    SnicSpinMsg *msgs;          /* clusters * SNIC_SPIN_MSG_SLOTS */
    QSIMPLEQ_HEAD(, SnicSpinPkt) queue;
    uint64_t l2p_used, l2p_peak;
    uint64_t packets, no_ctx, no_resources, aborts, busy_cycles, now_cycle;
    /*
     * The interconnect between the NIC, the L2 packet buffer and the
     * clusters' L1: busy until this cycle.  Every packet crosses it into
     * L2 when it arrives and into its HPU's L1 before its handler starts,
     * at SNIC_SPIN_IC_MBPS (docs/snic-spin.md "Time").
     */
    uint64_t ic_free;
    /*
     * L2 bank contention (docs/snic-spin.md "Time"): the packet buffer's
     * and the handler memory's banks; packets are placed in the packet
     * buffer one after the other from l2p_next on (wrapping).
     */
    SpinL2Banks l2p_banks, l2h_banks;
    uint64_t l2p_next;
    uint64_t qp_wd_refused;     /* QP attach: watchdog above the cap */
    uint8_t *frame;             /* send command: SPIN_PKT_MAX bytes */
    uint8_t *pass_buf;          /* an RDMA packet a handler passed */
    QEMUBH *bh;
    QEMUTimer *timer;           /* message inactivity */
    SnicSpinJob job;            /* the UDP packet the bottom half runs */
    uint64_t bh_yields;         /* QOM spin-bh-yields: handler suspended */
    /*
     * The command unit's MMIO handler (snic-spin-cmd.c, above the engine),
     * set by the top (snic-pci.c) so that the engine hands it to each HPU
     * without calling up into it.
     */
    SpinRvMmio cmd_mmio;
} SnicSpin;

/* snic-spin-engine.c: called by the layers above; below it, SnicSpinHook */
void snic_spin_init(SnicState *s);
void snic_spin_free(SnicState *s);
/* PsPIN's interconnect: 512 Gbit/s. */
#define SNIC_SPIN_IC_MBPS 512000
void snic_spin_reset(SnicState *s);
/* Virtual time (ns) of device cycle @cycle, rounded up. */
int64_t snic_spin_cycle_ns(const SnicSpin *sp, uint64_t cycle);
uint16_t snic_spin_admin(SnicState *s, const struct snic_aq_cmd *c,
                         uint64_t *res);
uint16_t snic_spin_query_stats(SnicState *s, const struct snic_aq_cmd *c);
void snic_spin_bh(void *opaque);
void snic_spin_timer(void *opaque);
void snic_spin_packet_in(SnicState *s, uint32_t ctx_id, uint64_t key,
                         bool first, bool last, const uint8_t *f, size_t len);
void snic_spin_event(SnicState *s, uint32_t ctx_id, uint8_t type,
                     uint8_t handler, uint32_t msg_id, uint32_t pc,
                     uint32_t addr, uint32_t info, uint32_t insns,
                     uint32_t cycles);

/* snic-spin-offload.c: custom opcodes (below the engine) */
uint16_t snic_spin_offload_reg(SnicState *s, const struct snic_aq_cmd *c);
uint32_t snic_spin_offload_entry(SnicSpinCtx *ctx, uint8_t opcode);
void snic_spin_offload_prepare(SnicSpinRun *run, SnicQp *qp,
                               const SnicRoceHdr *h, uint32_t entry,
                               SnicSpinResp *resp);

/* snic-spin-cmd.c: command unit MMIO of the running HPU (cmd_mmio) */
int snic_spin_cmd_mmio(SpinRv32 *cpu, uint32_t addr, unsigned size,
                       bool write, uint32_t *val);

#endif
