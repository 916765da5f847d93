/*
 * fld: PCI function - BAR0 registers, BAR2 NIC-facing windows, BAR4
 * MSI-X, properties (accelerator, pool sizes), QOM read-outs, type
 * registration.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/module.h"
#include "qapi/error.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "fld.h"

#define FLD_POOL_MAX (1u << 16)

/* "name=value" lines: every statistic, then the memory table. */
static char *fld_get_stats(Object *obj, Error **errp)
{
    static const char *const names[] = { FLD_STATS(FLD_STAT_NAME) };
    FldState *s = FLD(obj);
    GString *out = g_string_new(NULL);
    unsigned i;

    QEMU_BUILD_BUG_ON(ARRAY_SIZE(names) != FLD_STAT_COUNT);
    for (i = 0; i < FLD_STAT_COUNT; i++) {
        g_string_append_printf(out, "%s=%" PRIu64 "\n", names[i],
                               s->stats[i]);
    }
    for (i = 0; i < FLD_MEM_TOTAL; i++) {
        g_string_append_printf(out, "mem_%s=%" PRIu64 "/%" PRIu64 "\n",
                               fld_mem_row_names[i], s->mem.fld[i],
                               s->mem.conv[i]);
    }
    g_string_append_printf(out, "pool_in_use=%u\nerror=%u\n",
                           fld_pool_in_use(&s->pool), s->error);
    return g_string_free(out, false);
}

/* Names of the units' throughput properties (index: FldUnit). */
static const char *const fld_unit_props[FLD_UNIT_COUNT] = {
    [FLD_UNIT_ZUC] = "timing-zuc-mbps",
    [FLD_UNIT_DEFRAG] = "timing-defrag-mbps",
    [FLD_UNIT_IOTAUTH] = "timing-iotauth-mbps",
};

/* Timing mode: the common parameters, then the units'. */
static bool fld_timing_realize(FldState *s, Error **errp)
{
    unsigned u;

    if (!d2d_timing_realize(&s->timing, &s->parent_obj, errp)) {
        return false;
    }
    for (u = FLD_UNIT_NONE + 1; s->timing.p.on && u < FLD_UNIT_COUNT; u++) {
        if (s->unit_mbps[u] < 1 || s->unit_mbps[u] > D2D_UNIT_MBPS_MAX) {
            error_setg(errp, "fld: %s must be 1..%u", fld_unit_props[u],
                       D2D_UNIT_MBPS_MAX);
            d2d_timing_unrealize(&s->timing);
            return false;
        }
    }
    return true;
}

/* Power-on state: nothing configured, CTRL clear, STATUS ready. */
static void fld_power_on(FldState *s)
{
    fld_reset_state(s);
    s->ctrl = 0;
    s->status = FLD_STATUS_READY;
}

static void fld_realize(PCIDevice *pdev, Error **errp)
{
    FldState *s = FLD(pdev);
    unsigned i;

    s->rdma_recv_cqe = fld_rdma_recv_cqe;
    s->rdma_doorbells = fld_rdma_doorbells;
    s->accel = fld_accel_find(s->accel_name ? s->accel_name : "echo");
    if (!s->accel) {
        error_setg(errp, "fld: unknown accel '%s'", s->accel_name);
        return;
    }
    if (s->pool_descs < 16 || s->pool_descs > FLD_POOL_MAX ||
        s->pool_blocks < 64 || s->pool_blocks > FLD_POOL_MAX) {
        error_setg(errp, "fld: pool-descs and pool-blocks must be in "
                   "16..%u and 64..%u", FLD_POOL_MAX, FLD_POOL_MAX);
        return;
    }
    if (!fld_timing_realize(s, errp)) {
        return;
    }
    if (!fld_pool_init(&s->pool, s->pool_descs) ||
        !fld_ck_init(&s->bmap, s->pool_blocks)) {
        error_setg(errp, "fld: cannot allocate the descriptor pool");
        return;
    }
    s->blocks = g_malloc0((size_t)s->pool_blocks * FLD_BLOCK_SIZE);
    s->bfree = g_new0(uint32_t, s->pool_blocks);
    s->fifo = g_new0(FldPkt, FLD_ACCEL_FIFO);
    s->acc_out = g_malloc(FLD_MAX_FRAME);
    if (s->accel->id == FLD_ACCEL_DEFRAG) {
        s->df = g_new0(FldDefrag, 1);
        s->df_out = g_malloc(FLD_DF_MAX_FRAME);
    }
    for (i = 0; i < FLD_MAX_CQS; i++) {
        s->cqs[i].ring = g_malloc0(FLD_CQE_SIZE << FLD_CQ_MAX_LOG);
        s->cqs[i].last = g_malloc0(1u << FLD_CQ_MAX_LOG);
    }
    for (i = 0; i < FLD_MAX_RQS; i++) {
        s->rqs[i].buf = g_malloc0(FLD_RQ_BUF_SIZE);
    }

    memory_region_init_io(&s->regs, OBJECT(s), &fld_regs_ops, s, "fld-regs",
                          FLD_REGS_SIZE);
    pci_register_bar(pdev, FLD_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->regs);
    memory_region_init_io(&s->win, OBJECT(s), &fld_win_ops, s, "fld-win",
                          FLD_WIN_SIZE);
    pci_register_bar(pdev, FLD_BAR_WIN, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->win);
    if (msix_init_exclusive_bar(pdev, FLD_NUM_MSIX, FLD_BAR_MSIX, errp)) {
        d2d_timing_unrealize(&s->timing);
        return;
    }
    for (i = 0; i < FLD_NUM_MSIX; i++) {
        msix_vector_use(pdev, i);
    }
    /* Guarded: DMA that loops back into our own BARs is refused. */
    s->bh = qemu_bh_new_guarded(fld_bh, s, &DEVICE(s)->mem_reentrancy_guard);
    d2d_timing_bh_register(&s->timing, s->bh, fld_bh, s);
    fld_power_on(s);
}

static void fld_exit(PCIDevice *pdev)
{
    FldState *s = FLD(pdev);
    unsigned i;

    d2d_timing_unrealize(&s->timing);
    qemu_bh_delete(s->bh);
    msix_uninit_exclusive_bar(pdev);
    fld_pool_destroy(&s->pool);
    fld_ck_destroy(&s->bmap);
    g_free(s->blocks);
    g_free(s->bfree);
    g_free(s->fifo);
    g_free(s->acc_out);
    g_free(s->df);
    g_free(s->df_out);
    fld_rdma_reset(s);
    for (i = 0; i < FLD_MAX_CQS; i++) {
        g_free(s->cqs[i].ring);
        g_free(s->cqs[i].last);
    }
    for (i = 0; i < FLD_MAX_RQS; i++) {
        g_free(s->rqs[i].buf);
    }
}

static void fld_qdev_reset(DeviceState *dev)
{
    FldState *s = FLD(dev);

    fld_power_on(s);
}

static void fld_instance_init(Object *obj)
{
    FldState *s = FLD(obj);
    unsigned u;

    d2d_pcie_counters_add_props(obj, &s->pcie);
    object_property_add_str(obj, "stats", fld_get_stats, NULL);
    d2d_timing_init(obj, &s->timing);
    /* an Innova-2 Flex card's FPGA link, not the NIC's (docs/timing.md) */
    s->timing.p.pcie_gen = D2D_TDEF_FLD_PCIE_GEN;
    s->timing.p.pcie_lanes = D2D_TDEF_FLD_PCIE_LANES;
    for (u = FLD_UNIT_NONE + 1; u < FLD_UNIT_COUNT; u++) {
        s->unit_mbps[u] = D2D_TDEF_FLD_UNIT_MBPS;
        d2d_timing_add_param(obj, fld_unit_props[u], &s->unit_mbps[u]);
    }
    s->accel_ns = D2D_TDEF_FLD_ACCEL_NS;
    d2d_timing_add_param(obj, "timing-accel-ns", &s->accel_ns);
}

/* Peer queues and in-flight descriptors: not migratable. */
static const VMStateDescription vmstate_fld = {
    .name = TYPE_FLD,
    .unmigratable = 1,
};

static Property fld_properties[] = {
    DEFINE_PROP_STRING("accel", FldState, accel_name),
    DEFINE_PROP_UINT32("pool-descs", FldState, pool_descs, 2048),
    DEFINE_PROP_UINT32("pool-blocks", FldState, pool_blocks, 4096),
    DEFINE_PROP_UINT32("tx-signal", FldState, tx_signal_prop, 1),
    DEFINE_PROP_BOOL("mmio-wqe", FldState, mmio_wqe_prop, false),
    DEFINE_PROP_END_OF_LIST(),
};

static void fld_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = fld_realize;
    k->exit = fld_exit;
    k->vendor_id = FLD_PCI_VENDOR_ID;
    k->device_id = FLD_PCI_DEVICE_ID;
    k->revision = 0x01;
    k->class_id = PCI_CLASS_PROCESSOR_CO;
    dc->desc = "d2d FlexDriver endpoint";
    dc->reset = fld_qdev_reset;
    dc->vmsd = &vmstate_fld;
    device_class_set_props(dc, fld_properties);
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo fld_info = {
    .name = TYPE_FLD,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(FldState),
    .instance_init = fld_instance_init,
    .class_init = fld_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void fld_register_types(void)
{
    type_register_static(&fld_info);
}

type_init(fld_register_types)
