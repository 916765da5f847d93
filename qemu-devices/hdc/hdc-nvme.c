/*
 * hdc: the engine's NVMe host.  The engine owns one controller of the SSD
 * and drives it by itself, over peer-to-peer PCIe only: every register and
 * doorbell access is a DMA to the controller's BAR0 (QEMU routes it to the
 * controller's MMIO handler), its admin and I/O queues and PRP lists live
 * in our BAR4, its data goes to and from our BAR2.  Nothing polls: a write
 * by the controller into a BAR4 completion queue kicks the engine.  The
 * only timer is the deadline of the bring-up (CSTS.RDY, admin commands).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "block/nvme.h"
#include "hdc.h"
#include "hw/d2d/trace.h"

#define HDC_NVME_PAGE 4096
#define HDC_NVME_TO_UNIT_NS (500 * SCALE_MS)

const char *hdc_nvme_state_name(uint32_t state)
{
    static const char *const names[] = {
        [HDC_NVME_OFF] = "off", [HDC_NVME_INIT] = "init",
        [HDC_NVME_RUNNING] = "running", [HDC_NVME_FAILED] = "failed",
    };

    return state < ARRAY_SIZE(names) ? names[state] : "?";
}

static void hdc_nvme_set_state(HdcState *s, uint32_t state)
{
    if (s->nv.state != state) {
        trace_hdc_nvme_state(hdc_nvme_state_name(s->nv.state),
                             hdc_nvme_state_name(state));
    }
    s->nv.state = state;
}

/* ---- the controller's registers, by peer-to-peer DMA ---- */

static bool hdc_nvme_rd(HdcState *s, uint32_t off, void *buf, unsigned len)
{
    if (d2d_dma_read(&s->parent_obj, &s->pcie, &s->nv.pcie, s->nv.bar + off,
                     buf, len) != MEMTX_OK) {
        s->stats.dma_errs++;
        return false;
    }
    return true;
}

static bool hdc_nvme_rd32(HdcState *s, uint32_t off, uint32_t *val)
{
    uint8_t b[4];

    if (!hdc_nvme_rd(s, off, b, sizeof(b))) {
        return false;
    }
    *val = ldl_le_p(b);
    return true;
}

static bool hdc_nvme_wr(HdcState *s, uint32_t off, uint64_t val, unsigned len)
{
    uint8_t b[8];

    stq_le_p(b, val);
    if (d2d_dma_write(&s->parent_obj, &s->pcie, &s->nv.pcie, s->nv.bar + off,
                      b, len) != MEMTX_OK) {
        s->stats.dma_errs++;
        return false;
    }
    return true;
}

/* Doorbell @idx: SQ y tail is 2y, CQ y head is 2y + 1. */
static bool hdc_nvme_db(HdcState *s, unsigned idx, uint32_t val)
{
    trace_hdc_nvme_doorbell(idx, val);
    return hdc_nvme_wr(s, 0x1000 + idx * s->nv.db_stride, val, 4);
}

/* ---- BAR4: the queue window ---- */

static uint64_t hdc_nvmeq_read(void *opaque, hwaddr addr, unsigned size)
{
    HdcState *s = opaque;

    d2d_mmio_account(&s->pcie, false, addr, size);
    d2d_mmio_account(&s->nv.pcie, false, addr, size);
    return ldn_le_p(s->nv.q + addr, size);
}

static void hdc_nvmeq_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    HdcState *s = opaque;

    d2d_mmio_account(&s->pcie, true, addr, size);
    d2d_mmio_account(&s->nv.pcie, true, addr, size);
    stn_le_p(s->nv.q + addr, size, val);
    if ((addr >= HDC_NVMEQ_ACQ &&
         addr < HDC_NVMEQ_ACQ + HDC_NVME_ADMIN_DEPTH * sizeof(NvmeCqe)) ||
        (addr >= HDC_NVMEQ_IOCQ &&
         addr < HDC_NVMEQ_IOCQ + HDC_NVME_IO_DEPTH * sizeof(NvmeCqe)) ||
        hdc_nic_is_cq(addr) || hdc_nic_rx_is_cq(addr)) {
        hdc_kick(s);
    }
}

const MemoryRegionOps hdc_nvmeq_ops = {
    .read = hdc_nvmeq_read,
    .write = hdc_nvmeq_write,
    D2D_MMIO_OPS_ANY_SIZE,
};

/*
 * The controller's data DMA to and from BAR2 (RAM: QEMU does not show it
 * to us) is accounted when its command completes, in MPS-sized TLPs.
 */
static void hdc_nvme_account_data(HdcState *s, bool write, uint64_t addr,
                                  uint32_t len)
{
    while (len) {
        uint32_t n = MIN(len, D2D_PCIE_MPS - addr % D2D_PCIE_MPS);

        d2d_mmio_account(&s->pcie, write, addr, n);
        d2d_mmio_account(&s->nv.pcie, write, addr, n);
        addr += n;
        len -= n;
    }
}

/* ---- command slots ---- */

static unsigned hdc_nvme_nslots(HdcNvme *nv)
{
    return MIN(HDC_NVME_SLOTS, nv->iodepth ? nv->iodepth - 1 : 0);
}

/* Fail the commands of live entries; their chunks stay quarantined. */
void hdc_nvme_orphan_all(HdcState *s)
{
    unsigned i;

    for (i = 0; i < HDC_NVME_SLOTS; i++) {
        HdcNvmeSlot *slot = &s->nv.slots[i];
        HdcEntry *e = slot->entry;

        if (slot->busy && e) {
            slot->entry = NULL;
            hdc_chunk_orphan_get(s, slot->chunk);
            s->nv.done(s, e, false);
        }
    }
}

/* The controller is disabled: nothing it was doing can touch us now. */
static void hdc_nvme_release_all(HdcState *s)
{
    unsigned i;

    for (i = 0; i < HDC_NVME_SLOTS; i++) {
        HdcNvmeSlot *slot = &s->nv.slots[i];
        HdcEntry *e = slot->entry;

        if (!slot->busy) {
            continue;
        }
        slot->busy = false;
        slot->entry = NULL;
        s->nv.slots_used--;
        if (e) {
            s->nv.done(s, e, false);
        } else {
            hdc_chunk_orphan_put(s, slot->chunk);
        }
    }
    s->nv.admin_busy = false;
}

static void hdc_nvme_consume(HdcState *s, bool admin, bool doorbell);

/* Disable the controller we brought up, from hdc_nvme_disable_bh. */
static void hdc_nvme_quiesce(HdcState *s)
{
    HdcNvme *nv = &s->nv;

    nv->quiesce = false;
    if (!nv->live) {
        return;
    }
    nv->sq_db_pending = false;
    if (hdc_nvme_wr(s, NVME_REG_CC, 0, 4)) {
        /* What completed while it drained still counts. */
        hdc_nvme_consume(s, false, false);
        nv->live = false;
        hdc_nvme_release_all(s);
    } else {
        /* Unreachable: it may still write BAR2; keep those chunks out. */
        D2D_GUEST_ERR(hdc_nvme_disable_failed,
                      "cannot disable the NVMe controller");
        nv->live = false;
        hdc_nvme_orphan_all(s);
    }
    if (nv->stopping) {
        nv->stopping = false;
        hdc_nvme_set_state(s, HDC_NVME_OFF);
    }
}

/*
 * CC.EN = 0 makes QEMU's controller drain its I/O and delete its queues
 * before the write returns, polling the main loop meanwhile: its last
 * completions and SQ reads then reach our BAR4 from inside this call.  So
 * it runs in a bottom half of its own, not guarded against re-entry into
 * our MMIO like the engine's, with the engine held off (busy) meanwhile.
 */
static void hdc_nvme_disable_bh(void *opaque)
{
    HdcState *s = opaque;

    if (s->busy) {
        return;     /* the engine reschedules us when it is done */
    }
    s->busy = true;
    hdc_nvme_quiesce(s);
    s->busy = false;
    hdc_kick(s);
}

void hdc_nvme_request_disable(HdcState *s)
{
    if (s->nv.live) {
        s->nv.quiesce = true;
        qemu_bh_schedule(s->nv.disable_bh);
    }
}

static void hdc_nvme_fail(HdcState *s, enum hdc_err err, const char *why)
{
    HdcNvme *nv = &s->nv;

    timer_del(nv->timer);
    hdc_nvme_set_state(s, HDC_NVME_FAILED);
    nv->step = HDC_NS_IDLE;
    nv->admin_busy = false;
    hdc_raise_error(s, err, why);
    hdc_nvme_request_disable(s);
}

/* ---- admin commands of the bring-up ---- */

static void hdc_nvme_admin(HdcState *s, NvmeCmd *cmd)
{
    HdcNvme *nv = &s->nv;

    stw_le_p(&cmd->cid, ++nv->admin_cid);
    memcpy(nv->q + HDC_NVMEQ_ASQ + nv->asq_tail * sizeof(NvmeCmd), cmd,
           sizeof(*cmd));
    nv->asq_tail = (nv->asq_tail + 1) % nv->adepth;
    nv->admin_busy = true;
    nv->deadline = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + nv->timeout_ns;
    timer_mod(nv->timer, nv->deadline);
    if (!hdc_nvme_db(s, 0, nv->asq_tail)) {
        hdc_nvme_fail(s, HDC_ERR_NVME_BAR, "admin doorbell write failed");
    }
}

static void hdc_nvme_identify(HdcState *s, uint8_t cns, uint32_t nsid)
{
    NvmeCmd cmd = { 0 };

    cmd.opcode = NVME_ADM_CMD_IDENTIFY;
    stl_le_p(&cmd.nsid, nsid);
    stq_le_p(&cmd.dptr.prp1, s->nv.bar4 + HDC_NVMEQ_IDENT);
    stl_le_p(&cmd.cdw10, cns);
    hdc_nvme_admin(s, &cmd);
}

static void hdc_nvme_create_queue(HdcState *s, uint8_t opcode)
{
    HdcNvme *nv = &s->nv;
    NvmeCmd cmd = { 0 };

    cmd.opcode = opcode;
    stl_le_p(&cmd.cdw10, (uint32_t)(nv->iodepth - 1) << 16 | 1);
    if (opcode == NVME_ADM_CMD_CREATE_CQ) {
        /*
         * Physically contiguous, interrupts off: the engine is woken by
         * the completion's write into BAR4.
         */
        stq_le_p(&cmd.dptr.prp1, nv->bar4 + HDC_NVMEQ_IOCQ);
        stl_le_p(&cmd.cdw11, NVME_CQ_PC);
    } else {
        stq_le_p(&cmd.dptr.prp1, nv->bar4 + HDC_NVMEQ_IOSQ);
        stl_le_p(&cmd.cdw11, 1 << 16 | NVME_SQ_PC);
    }
    hdc_nvme_admin(s, &cmd);
}

/* The namespace must fit the engine: LBA size 512 B..64 KiB, no metadata. */
static bool hdc_nvme_parse_ns(HdcState *s)
{
    HdcNvme *nv = &s->nv;
    NvmeIdNs *id = (NvmeIdNs *)(nv->q + HDC_NVMEQ_IDENT);
    unsigned idx = NVME_ID_NS_FLBAS_INDEX(id->flbas);
    uint64_t nsze = ldq_le_p(&id->nsze);
    uint8_t ds;

    if (idx >= ARRAY_SIZE(id->lbaf) || !nsze) {
        return false;
    }
    ds = id->lbaf[idx].ds;
    if (ds < 9 || ds > 16 || lduw_le_p(&id->lbaf[idx].ms) ||
        (1u << ds) > nv->max_xfer) {
        return false;
    }
    nv->lba_shift = ds;
    nv->nsze = nsze;
    return true;
}

static void hdc_nvme_admin_done(HdcState *s, uint16_t cid, uint16_t status)
{
    HdcNvme *nv = &s->nv;
    uint8_t mdts;

    if (!nv->admin_busy || cid != nv->admin_cid ||
        nv->state != HDC_NVME_INIT) {
        s->stats.stale_cpl++;
        return;
    }
    nv->admin_busy = false;
    timer_del(nv->timer);
    if (status) {
        s->stats.nvme_errs++;
        hdc_nvme_fail(s, HDC_ERR_NVME_CMD, "bring-up admin command failed");
        return;
    }
    switch (nv->step) {
    case HDC_NS_ID_CTRL:
        mdts = ((NvmeIdCtrl *)(nv->q + HDC_NVMEQ_IDENT))->mdts;
        nv->max_xfer = HDC_CHUNK_SIZE;
        if (mdts && mdts < 16) {
            nv->max_xfer = MIN(HDC_CHUNK_SIZE, HDC_NVME_PAGE << mdts);
        }
        nv->step = HDC_NS_ID_NS;
        hdc_nvme_identify(s, NVME_ID_CNS_NS, nv->nsid);
        break;
    case HDC_NS_ID_NS:
        if (!hdc_nvme_parse_ns(s)) {
            hdc_nvme_fail(s, HDC_ERR_NVME_CMD,
                          "namespace absent or of an unusable format");
            return;
        }
        nv->step = HDC_NS_CREATE_CQ;
        hdc_nvme_create_queue(s, NVME_ADM_CMD_CREATE_CQ);
        break;
    case HDC_NS_CREATE_CQ:
        nv->step = HDC_NS_CREATE_SQ;
        hdc_nvme_create_queue(s, NVME_ADM_CMD_CREATE_SQ);
        break;
    case HDC_NS_CREATE_SQ:
        nv->step = HDC_NS_IDLE;
        hdc_nvme_set_state(s, HDC_NVME_RUNNING);
        qemu_log_mask(LOG_UNIMP, "hdc: NVMe controller at 0x%" PRIx64
                      " running: %" PRIu64 " LBAs of %u bytes\n",
                      nv->bar, nv->nsze, 1u << nv->lba_shift);
        break;
    default:
        s->stats.stale_cpl++;
        break;
    }
}

static void hdc_nvme_io_done(HdcState *s, uint16_t cid, uint16_t status)
{
    HdcNvme *nv = &s->nv;
    HdcNvmeSlot *slot;
    HdcEntry *e;

    if (cid >= HDC_NVME_SLOTS || !nv->slots[cid].busy) {
        s->stats.stale_cpl++;
        return;
    }
    slot = &nv->slots[cid];
    e = slot->entry;
    slot->busy = false;
    slot->entry = NULL;
    nv->slots_used--;
    if (status) {
        s->stats.nvme_errs++;
        D2D_GUEST_ERR(hdc_nvme_io_failed, "NVMe %s failed: status 0x%x",
                      slot->write ? "write" : "read", status);
    } else {
        if (slot->write) {
            s->stats.wr_bytes += slot->bytes;
        } else {
            s->stats.rd_bytes += slot->bytes;
        }
        hdc_nvme_account_data(s, !slot->write,
                              nv->bar2 + (uint64_t)slot->chunk *
                              HDC_CHUNK_SIZE, slot->bytes);
    }
    if (e) {
        s->nv.done(s, e, !status);
    } else {
        hdc_chunk_orphan_put(s, slot->chunk);
    }
}

/* Consume the completions the controller wrote into a BAR4 CQ. */
static void hdc_nvme_consume(HdcState *s, bool admin, bool doorbell)
{
    HdcNvme *nv = &s->nv;
    uint32_t base = admin ? HDC_NVMEQ_ACQ : HDC_NVMEQ_IOCQ;
    uint16_t depth = admin ? nv->adepth : nv->iodepth;
    uint16_t *head = admin ? &nv->acq_head : &nv->iocq_head;
    bool *phase = admin ? &nv->acq_phase : &nv->iocq_phase;
    bool any = false;

    while (nv->live && depth) {
        uint8_t *p = nv->q + base + *head * sizeof(NvmeCqe);
        uint16_t status = lduw_le_p(p + offsetof(NvmeCqe, status));
        uint16_t cid = lduw_le_p(p + offsetof(NvmeCqe, cid));

        if ((status & 1) != *phase) {
            break;
        }
        *head = (*head + 1) % depth;
        if (*head == 0) {
            *phase = !*phase;
        }
        any = true;
        if (admin) {
            hdc_nvme_admin_done(s, cid, status >> 1);
        } else {
            hdc_nvme_io_done(s, cid, status >> 1);
        }
    }
    if (any && nv->live && doorbell) {
        hdc_nvme_db(s, admin ? 1 : 3, *head);
    }
}

/* ---- bring-up ---- */

static bool hdc_nvme_overlaps_us(HdcState *s, uint64_t addr)
{
    static const int bars[] = { HDC_BAR_REGS, HDC_BAR_BUF, HDC_BAR_NVMEQ };
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(bars); i++) {
        pcibus_t base = pci_get_bar_addr(&s->parent_obj, bars[i]);
        uint64_t size = s->parent_obj.io_regions[bars[i]].size;

        if (base != PCI_BAR_UNMAPPED && addr >= base && addr - base < size) {
            return true;
        }
    }
    return false;
}

static bool hdc_nvme_start(HdcState *s)
{
    HdcNvme *nv = &s->nv;
    uint32_t cc, csts;
    uint8_t b[8];
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    nv->bar2 = pci_get_bar_addr(&s->parent_obj, HDC_BAR_BUF);
    nv->bar4 = pci_get_bar_addr(&s->parent_obj, HDC_BAR_NVMEQ);
    if (nv->bar2 == PCI_BAR_UNMAPPED || nv->bar4 == PCI_BAR_UNMAPPED) {
        hdc_nvme_fail(s, HDC_ERR_UNMAPPED, "engine BAR2/BAR4 not mapped");
        return false;
    }
    if (!nv->bar || nv->bar % HDC_NVME_PAGE ||
        hdc_nvme_overlaps_us(s, nv->bar)) {
        hdc_nvme_fail(s, HDC_ERR_NVME_BAR, "NVMe BAR address invalid");
        return false;
    }
    if (!hdc_nvme_rd(s, NVME_REG_CAP, b, 8)) {
        hdc_nvme_fail(s, HDC_ERR_NVME_BAR, "no answer at the NVMe BAR");
        return false;
    }
    nv->cap = ldq_le_p(b);
    if (NVME_CAP_MQES(nv->cap) < 1 ||
        !(NVME_CAP_CSS(nv->cap) & NVME_CAP_CSS_NVM) ||
        NVME_CAP_MPSMIN(nv->cap) != 0) {
        hdc_nvme_fail(s, HDC_ERR_NVME_BAR,
                      "no usable NVMe controller at the NVMe BAR");
        return false;
    }
    nv->timeout_ns = MAX(NVME_CAP_TO(nv->cap), 1) * HDC_NVME_TO_UNIT_NS;
    nv->db_stride = 4 << NVME_CAP_DSTRD(nv->cap);
    nv->adepth = MIN(HDC_NVME_ADMIN_DEPTH, NVME_CAP_MQES(nv->cap) + 1);
    nv->iodepth = MIN(HDC_NVME_IO_DEPTH, NVME_CAP_MQES(nv->cap) + 1);
    if (!hdc_nvme_rd32(s, NVME_REG_CC, &cc) ||
        !hdc_nvme_rd32(s, NVME_REG_CSTS, &csts)) {
        hdc_nvme_fail(s, HDC_ERR_NVME_BAR, "NVMe register read failed");
        return false;
    }
    nv->deadline = now + nv->timeout_ns;
    if (NVME_CC_EN(cc) || (csts & NVME_CSTS_READY)) {
        if (!hdc_nvme_wr(s, NVME_REG_CC, 0, 4)) {
            hdc_nvme_fail(s, HDC_ERR_NVME_BAR, "NVMe CC write failed");
            return false;
        }
    }
    nv->step = HDC_NS_WAIT_DISABLED;
    return true;
}

static bool hdc_nvme_configure(HdcState *s)
{
    HdcNvme *nv = &s->nv;
    uint32_t cc = 0;

    memset(nv->q, 0, HDC_NVMEQ_SIZE);
    nv->asq_tail = nv->acq_head = 0;
    nv->iosq_tail = nv->iocq_head = 0;
    nv->acq_phase = nv->iocq_phase = true;
    NVME_SET_CC_EN(cc, 1);
    NVME_SET_CC_CSS(cc, NVME_CC_CSS_NVM);
    NVME_SET_CC_MPS(cc, 0);
    NVME_SET_CC_IOSQES(cc, 6);
    NVME_SET_CC_IOCQES(cc, 4);
    /* Pin interrupts masked: nobody on the host owns this controller. */
    if (!hdc_nvme_wr(s, NVME_REG_INTMS, 0xffffffff, 4) ||
        !hdc_nvme_wr(s, NVME_REG_AQA,
                     (nv->adepth - 1) << 16 | (nv->adepth - 1), 4) ||
        !hdc_nvme_wr(s, NVME_REG_ASQ, nv->bar4 + HDC_NVMEQ_ASQ, 8) ||
        !hdc_nvme_wr(s, NVME_REG_ACQ, nv->bar4 + HDC_NVMEQ_ACQ, 8)) {
        hdc_nvme_fail(s, HDC_ERR_NVME_BAR, "NVMe register write failed");
        return false;
    }
    nv->live = true;
    if (!hdc_nvme_wr(s, NVME_REG_CC, cc, 4)) {
        hdc_nvme_fail(s, HDC_ERR_NVME_BAR, "NVMe CC write failed");
        return false;
    }
    nv->deadline = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + nv->timeout_ns;
    nv->step = HDC_NS_WAIT_READY;
    return true;
}

/* CSTS.RDY reached @ready?  If not, poll again a little later. */
static bool hdc_nvme_rdy_is(HdcState *s, bool ready)
{
    HdcNvme *nv = &s->nv;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    uint32_t csts;

    if (!hdc_nvme_rd32(s, NVME_REG_CSTS, &csts)) {
        hdc_nvme_fail(s, HDC_ERR_NVME_BAR, "NVMe CSTS read failed");
        return false;
    }
    if (ready && (csts & NVME_CSTS_FAILED)) {
        hdc_nvme_fail(s, HDC_ERR_NVME_TIMEOUT,
                      "NVMe controller reports a fatal status");
        return false;
    }
    if (!!(csts & NVME_CSTS_READY) == ready) {
        timer_del(nv->timer);
        return true;
    }
    if (now >= nv->deadline) {
        hdc_nvme_fail(s, HDC_ERR_NVME_TIMEOUT, ready ?
                      "NVMe controller did not become ready" :
                      "NVMe controller did not stop");
        return false;
    }
    timer_mod(nv->timer, MIN(now + HDC_NVME_RDY_POLL_NS, nv->deadline));
    return false;
}

static void hdc_nvme_step(HdcState *s)
{
    HdcNvme *nv = &s->nv;

    while (nv->state == HDC_NVME_INIT) {
        switch (nv->step) {
        case HDC_NS_START:
            if (nv->live) {
                /* Let go of the controller of before first. */
                hdc_nvme_request_disable(s);
                return;
            }
            if (!hdc_nvme_start(s)) {
                return;
            }
            break;
        case HDC_NS_WAIT_DISABLED:
            if (!hdc_nvme_rdy_is(s, false) || !hdc_nvme_configure(s)) {
                return;
            }
            break;
        case HDC_NS_WAIT_READY:
            if (!hdc_nvme_rdy_is(s, true)) {
                return;
            }
            nv->step = HDC_NS_ID_CTRL;
            hdc_nvme_identify(s, NVME_ID_CNS_CTRL, 0);
            return;
        default:
            /* An admin command is out: has its deadline passed? */
            if (nv->admin_busy &&
                qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) >= nv->deadline) {
                hdc_nvme_fail(s, HDC_ERR_NVME_TIMEOUT,
                              "NVMe admin command timed out");
            }
            return;
        }
    }
}

void hdc_nvme_process(HdcState *s)
{
    HdcNvme *nv = &s->nv;

    if (nv->live) {
        hdc_nvme_consume(s, true, true);
        hdc_nvme_consume(s, false, true);
    }
    if (nv->state == HDC_NVME_INIT) {
        hdc_nvme_step(s);
    }
}

void hdc_nvme_ctrl_write(HdcState *s, uint32_t val)
{
    HdcNvme *nv = &s->nv;

    if (!(s->status & HDC_STATUS_READY)) {
        hdc_raise_error(s, HDC_ERR_IN_RESET, "NVMe control in reset");
        return;
    }
    switch (val) {
    case HDC_NVME_BRINGUP:
        if (nv->state == HDC_NVME_INIT || nv->state == HDC_NVME_RUNNING) {
            s->stats.bad_reg++;
            hdc_raise_error(s, HDC_ERR_BAD_REG, "NVMe controller already up");
            return;
        }
        nv->bar = nv->bar_reg;
        nv->stopping = false;
        hdc_nvme_set_state(s, HDC_NVME_INIT);
        nv->step = HDC_NS_START;
        nv->lba_shift = 0;
        nv->nsze = 0;
        hdc_kick(s);
        break;
    case HDC_NVME_SHUTDOWN:
        /* OFF once the controller is disabled (at once if not ours). */
        timer_del(nv->timer);
        nv->step = HDC_NS_IDLE;
        nv->admin_busy = false;
        if (nv->live) {
            nv->stopping = true;
            hdc_nvme_request_disable(s);
        } else {
            hdc_nvme_set_state(s, HDC_NVME_OFF);
        }
        break;
    default:
        s->stats.bad_reg++;
        hdc_raise_error(s, HDC_ERR_BAD_REG, "unknown NVMe control value");
        break;
    }
}

/* ---- I/O ---- */

int hdc_nvme_submit(HdcState *s, HdcEntry *e, const HdcRun *r, bool write)
{
    HdcNvme *nv = &s->nv;
    unsigned i, nslots = hdc_nvme_nslots(nv);
    uint64_t addr, prp2 = 0;
    uint32_t len = r->nlb << nv->lba_shift, first;
    HdcNvmeSlot *slot;
    NvmeCmd cmd = { 0 };

    if (nv->state != HDC_NVME_RUNNING || nv->stopping || !nv->live) {
        return -1;
    }
    if (pci_get_bar_addr(&s->parent_obj, HDC_BAR_BUF) != nv->bar2 ||
        pci_get_bar_addr(&s->parent_obj, HDC_BAR_NVMEQ) != nv->bar4) {
        hdc_nvme_fail(s, HDC_ERR_UNMAPPED,
                      "BAR2/BAR4 moved under the NVMe controller");
        return -1;
    }
    for (i = 0; i < nslots && nv->slots[i].busy; i++) {
        continue;
    }
    if (i == nslots) {
        return 0;
    }
    addr = nv->bar2 + (uint64_t)e->chunk * HDC_CHUNK_SIZE + r->off;
    first = HDC_NVME_PAGE - addr % HDC_NVME_PAGE;
    if (len > first) {
        if (len - first <= HDC_NVME_PAGE) {
            prp2 = addr + first;
        } else {
            uint32_t k, n = DIV_ROUND_UP(len - first, HDC_NVME_PAGE);
            uint32_t list = HDC_NVMEQ_PRP + i * HDC_NVMEQ_PRP_SLOT;

            for (k = 0; k < n; k++) {
                stq_le_p(nv->q + list + k * 8,
                         addr + first + (uint64_t)k * HDC_NVME_PAGE);
            }
            prp2 = nv->bar4 + list;
        }
    }
    cmd.opcode = write ? NVME_CMD_WRITE : NVME_CMD_READ;
    stw_le_p(&cmd.cid, i);
    stl_le_p(&cmd.nsid, nv->nsid);
    stq_le_p(&cmd.dptr.prp1, addr);
    stq_le_p(&cmd.dptr.prp2, prp2);
    stl_le_p(&cmd.cdw10, (uint32_t)r->lba);
    stl_le_p(&cmd.cdw11, r->lba >> 32);
    stl_le_p(&cmd.cdw12, r->nlb - 1);
    memcpy(nv->q + HDC_NVMEQ_IOSQ + nv->iosq_tail * sizeof(NvmeCmd), &cmd,
           sizeof(cmd));
    nv->iosq_tail = (nv->iosq_tail + 1) % nv->iodepth;
    nv->sq_db_pending = true;

    slot = &nv->slots[i];
    slot->busy = true;
    slot->write = write;
    slot->entry = e;
    slot->chunk = e->chunk;
    slot->bytes = len;
    nv->slots_used++;
    s->stats.nvme_cmds++;
    return 1;
}

/* One SQ doorbell for all the commands of an engine pass. */
void hdc_nvme_flush(HdcState *s)
{
    HdcNvme *nv = &s->nv;

    if (!nv->sq_db_pending || !nv->live) {
        return;
    }
    nv->sq_db_pending = false;
    if (!hdc_nvme_db(s, 2, nv->iosq_tail)) {
        hdc_nvme_fail(s, HDC_ERR_NVME_BAR, "NVMe doorbell write failed");
        hdc_nvme_orphan_all(s);
        hdc_kick(s);
    }
}

static void hdc_nvme_timer(void *opaque)
{
    hdc_kick(opaque);
}

void hdc_nvme_init(HdcState *s)
{
    s->nv.q = g_malloc0(HDC_NVMEQ_SIZE);
    s->nv.timer = d2d_timer_new_guarded(DEVICE(s), hdc_nvme_timer, s);
    s->nv.disable_bh = d2d_bh_new_guarded(s, hdc_nvme_disable_bh, s);
}

void hdc_nvme_exit(HdcState *s)
{
    qemu_bh_delete(s->nv.disable_bh);
    d2d_timer_free_guarded(s->nv.timer);
    g_free(s->nv.q);
}

/*
 * @hard (qdev reset): the controller is being reset with the machine,
 * forget it.  Otherwise (CTRL.RESET) disable it at the next engine pass;
 * until then its completions are consumed and ignored.
 */
void hdc_nvme_reset(HdcState *s, bool hard)
{
    HdcNvme *nv = &s->nv;

    timer_del(nv->timer);
    if (hard) {
        memset(nv->slots, 0, sizeof(nv->slots));
        nv->slots_used = 0;
        nv->live = false;
        nv->quiesce = false;
        nv->sq_db_pending = false;
        memset(&nv->pcie, 0, sizeof(nv->pcie));
    } else {
        hdc_nvme_request_disable(s);
    }
    hdc_nvme_set_state(s, HDC_NVME_OFF);
    nv->stopping = false;
    nv->step = HDC_NS_IDLE;
    nv->admin_busy = false;
    nv->bar_reg = 0;
    nv->nsid = 1;
    nv->lba_shift = 0;
    nv->nsze = 0;
}
