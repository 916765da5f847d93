/*
 * snic: SmartNIC device model - shared state.
 *
 * Register map and admin command formats: docs/snic.md and
 * kernel/include/uapi/d2d/snic_if.h (the one definition).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_SNIC_H
#define HW_D2D_SNIC_H

#include "hw/pci/pci.h"
#include "net/net.h"
#include "qom/object.h"
#include "d2d/snic_if.h"
#include "../common/d2d-pcie.h"

#define TYPE_SNIC "snic"
OBJECT_DECLARE_SIMPLE_TYPE(SnicState, SNIC)

#define SNIC_FW_VERSION "d2d-snic 0.1.0"

/* Device-wide counters mirrored in the BAR0 statistics registers. */
typedef struct SnicStats {
    uint32_t aq_cmds;
    uint32_t aq_errs;
    uint32_t bad_db;
    uint32_t dma_errs;
    uint32_t bad_reg;
    uint32_t irqs;
    uint64_t rx_no_queue;   /* frames from the wire with no RX queue */
} SnicStats;

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

struct SnicState {
    PCIDevice parent_obj;

    MemoryRegion regs;
    NICConf conf;
    NICState *nic;
    char *serial;

    uint32_t ctrl;
    uint32_t status;
    uint32_t error;
    uint32_t error_count;

    SnicAdminQueue aq;
    SnicStats stats;
    D2DPcieCounters pcie;
};

/* snic-regs.c */
extern const MemoryRegionOps snic_regs_ops;
void snic_reset_state(SnicState *s);
void snic_raise_error(SnicState *s, enum snic_err err, const char *why);

/* snic-admin.c */
void snic_aq_enable(SnicState *s);
void snic_aq_disable(SnicState *s);
void snic_aq_doorbell(SnicState *s, uint32_t tail);
void snic_aq_kick(SnicState *s);
void snic_aq_bh(void *opaque);

#endif
