/*
 * hdc: PCI function - BAR0 registers + MSI-X, BAR2 buffer RAM, BAR4 NVMe
 * queue window, properties, the engine's bottom half, type registration.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qapi/error.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "hdc.h"

#define HDC_BUF_MIB_MAX 2048     /* HDC_REG_BUF_SIZE is 32 bits */

/*
 * Everything the engine does runs here: the NVMe controller's completions
 * and bring-up, new commands, the scoreboard, doorbells to the controller
 * and completions to the host.  MMIO handlers and the timer only kick it,
 * so no handler ever reaches a peer while a peer is reaching us.  The BH
 * is guarded by our own reentrancy guard: DMA that loops back into our own
 * BARs is refused instead of re-entering the engine.  Disabling the NVMe
 * controller polls the main loop, which may call us again (see
 * hdc_nvme_disable_bh): that call only asks for another pass.
 */
static void hdc_engine_bh(void *opaque)
{
    HdcState *s = opaque;

    if (s->busy) {
        s->rerun = true;
        return;
    }
    s->busy = true;
    do {
        s->rerun = false;
        hdc_nvme_process(s);
        hdc_nic_process(s);
        hdc_tcp_process(s);
        hdc_cmdq_fetch(s);
        /* after the fetch: an abort also fails a receive just fetched */
        hdc_nic_rx_process(s);
        hdc_sb_run(s);
        hdc_tcp_rx_flush(s);
        hdc_nvme_flush(s);
        hdc_nic_flush(s);
        hdc_cmdq_post(s);
    } while (s->rerun);
    s->busy = false;
    if (s->nv.quiesce) {
        qemu_bh_schedule(s->nv.disable_bh);
    }
}

static char *hdc_get_scoreboard(Object *obj, Error **errp)
{
    GString *out = g_string_new(NULL);

    hdc_sb_format(HDC(obj), out);
    return g_string_free(out, false);
}

static void hdc_realize(PCIDevice *pdev, Error **errp)
{
    ERRP_GUARD();
    HdcState *s = HDC(pdev);
    int i;

    if (s->buf_mib < 1 || s->buf_mib > HDC_BUF_MIB_MAX ||
        !is_power_of_2(s->buf_mib)) {
        error_setg(errp, "hdc: buf-mib must be a power of 2 in 1..%d",
                   HDC_BUF_MIB_MAX);
        return;
    }
    s->buf_size = (uint64_t)s->buf_mib << 20;
    if (!d2d_timing_realize(&s->timing, pdev, errp)) {
        return;
    }

    pci_config_set_interrupt_pin(pdev->config, 1);
    memory_region_init(&s->bar0, OBJECT(s), "hdc-bar0", HDC_REGS_SIZE);
    memory_region_init_io(&s->regs, OBJECT(s), &hdc_regs_ops, s, "hdc-regs",
                          HDC_REGS_MMIO_SIZE);
    memory_region_add_subregion(&s->bar0, 0, &s->regs);
    if (msix_init(pdev, HDC_NUM_MSIX, &s->bar0, HDC_BAR_REGS,
                  HDC_MSIX_OFFSET, &s->bar0, HDC_BAR_REGS,
                  HDC_MSIX_PBA_OFFSET, 0, errp)) {
        d2d_timing_unrealize(&s->timing);
        return;
    }
    for (i = 0; i < HDC_NUM_MSIX; i++) {
        msix_vector_use(pdev, i);
    }
    pci_register_bar(pdev, HDC_BAR_REGS,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->bar0);

    memory_region_init_ram(&s->buf, OBJECT(s), "hdc-buf", s->buf_size, errp);
    if (*errp) {
        msix_uninit(pdev, &s->bar0, &s->bar0);
        d2d_timing_unrealize(&s->timing);
        return;
    }
    s->buf_ptr = memory_region_get_ram_ptr(&s->buf);
    pci_register_bar(pdev, HDC_BAR_BUF,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &s->buf);

    s->nv.done = hdc_sb_nvme_done;
    s->nic.done = hdc_sb_nic_done;
    hdc_nic_init(s);
    s->nicrx.deliver = hdc_sb_rx_deliver;
    s->nicrx.fail_all = hdc_sb_rx_fail;
    hdc_nic_rx_init(s);
    hdc_tcp_init(s);
    hdc_nvme_init(s);
    memory_region_init_io(&s->nvmeq, OBJECT(s), &hdc_nvmeq_ops, s,
                          "hdc-nvmeq", HDC_NVMEQ_SIZE);
    pci_register_bar(pdev, HDC_BAR_NVMEQ,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->nvmeq);

    s->bh = qemu_bh_new_guarded(hdc_engine_bh, s,
                                &DEVICE(s)->mem_reentrancy_guard);
    d2d_timing_bh_register(&s->timing, s->bh, hdc_engine_bh, s);
    hdc_sb_init(s);
    hdc_reset_state(s, true);
}

static void hdc_exit(PCIDevice *pdev)
{
    HdcState *s = HDC(pdev);

    hdc_reset_state(s, true);
    hdc_sb_free(s);
    hdc_tcp_fini(s);
    hdc_nvme_exit(s);
    d2d_timing_unrealize(&s->timing);
    qemu_bh_delete(s->bh);
    msix_uninit(pdev, &s->bar0, &s->bar0);
}

static void hdc_qdev_reset(DeviceState *dev)
{
    hdc_reset_state(HDC(dev), true);
}

static void hdc_instance_init(Object *obj)
{
    HdcState *s = HDC(obj);

    d2d_pcie_counters_add_props(obj, &s->pcie);
    d2d_timing_init(obj, &s->timing);
    object_property_add_str(obj, "scoreboard", hdc_get_scoreboard, NULL);
}

/* In-flight DMA, NVMe queues in BAR4 and a peer's state: not migratable. */
static const VMStateDescription vmstate_hdc = {
    .name = TYPE_HDC,
    .unmigratable = 1,
};

static Property hdc_properties[] = {
    DEFINE_PROP_UINT32("buf-mib", HdcState, buf_mib,
                       HDC_BUF_SIZE_DEFAULT >> 20),
    DEFINE_PROP_END_OF_LIST(),
};

static void hdc_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = hdc_realize;
    k->exit = hdc_exit;
    k->vendor_id = HDC_PCI_VENDOR_ID;
    k->device_id = HDC_PCI_DEVICE_ID;
    k->revision = 0x01;
    k->class_id = PCI_CLASS_OTHERS;
    dc->desc = "d2d HDC engine (DCS-ctrl)";
    dc->reset = hdc_qdev_reset;
    dc->vmsd = &vmstate_hdc;
    device_class_set_props(dc, hdc_properties);
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo hdc_info = {
    .name = TYPE_HDC,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(HdcState),
    .instance_init = hdc_instance_init,
    .class_init = hdc_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void hdc_register_types(void)
{
    type_register_static(&hdc_info);
}

type_init(hdc_register_types)
