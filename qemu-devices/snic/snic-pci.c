/*
 * snic: PCI function - BARs, MSI-X, properties, type registration.
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
#include "snic.h"

/* Like a real NIC the device never pushes back: no buffer means a drop. */
static void snic_net_receive_timed(void *opaque, const uint8_t *buf,
                                   size_t size)
{
    snic_rx_frame(opaque, buf, size);
}

static ssize_t snic_net_receive(NetClientState *nc, const uint8_t *buf,
                                size_t size)
{
    SnicState *s = qemu_get_nic_opaque(nc);

    /* timing mode: the switch queue in front of the port may hold it */
    if (d2d_timing_frame_in(&s->timing, buf, size, snic_net_receive_timed,
                            s)) {
        return size;
    }
    return snic_rx_frame(s, buf, size);
}

static void snic_net_link_changed(NetClientState *nc)
{
    snic_port_link_changed(qemu_get_nic_opaque(nc), !nc->link_down);
}

static NetClientInfo snic_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .receive = snic_net_receive,
    .link_status_changed = snic_net_link_changed,
};

static char *snic_get_queue_stats(Object *obj, Error **errp)
{
    GString *out = g_string_new(NULL);

    snic_queue_stats_format(SNIC(obj), out);
    return g_string_free(out, false);
}

static char *snic_get_rdma_stats(Object *obj, Error **errp)
{
    GString *out = g_string_new(NULL);

    snic_rdma_stats_format(SNIC(obj), out);
    return g_string_free(out, false);
}

/* SnicState.notify: the device logic's interrupts, as MSI-X messages. */
static void snic_msix_notify(SnicState *s, unsigned vector)
{
    d2d_msix_notify(&s->parent_obj, &s->pcie, vector);
}

static void snic_realize(PCIDevice *pdev, Error **errp)
{
    SnicState *s = SNIC(pdev);
    int i;

    /* Checked first: nothing to undo on failure. */
    if (s->spin.clusters < 1 || s->spin.clusters > SNIC_SPIN_MAX_CLUSTERS ||
        s->spin.hpus < 1 || s->spin.hpus > SNIC_SPIN_MAX_HPUS ||
        s->spin.clock_mhz < 1 || s->spin.clock_mhz > 100000 ||
        s->spin.msg_slots < 1 || s->spin.msg_slots > SNIC_SPIN_MSG_SLOTS ||
        s->spin.l2p_size < SPIN_PKT_MAX ||
        s->spin.l2p_size > SNIC_SPIN_L2P_SIZE) {
        error_setg(errp, "snic: spin-clusters 1..%d, spin-hpus 1..%d, "
                   "spin-clock-mhz 1..100000, spin-msg-slots 1..%d, "
                   "spin-l2p-size %d..%d",
                   SNIC_SPIN_MAX_CLUSTERS, SNIC_SPIN_MAX_HPUS,
                   SNIC_SPIN_MSG_SLOTS, SPIN_PKT_MAX, SNIC_SPIN_L2P_SIZE);
        return;
    }
    if (s->rdma.pipe.ncores < 1 ||
        s->rdma.pipe.ncores > SNIC_PIPE_MAX_CORES ||
        s->rdma.pipe.poll_ns < 1 ||
        s->rdma.pipe.poll_max_ns < s->rdma.pipe.poll_ns) {
        error_setg(errp, "snic: nic-cores 1..%d, pipe-poll-ns >= 1, "
                   "pipe-poll-max-ns >= pipe-poll-ns", SNIC_PIPE_MAX_CORES);
        return;
    }
    if (snic_rdma_cc_check(s)) {
        error_setg(errp, "%s", snic_rdma_cc_check(s));
        return;
    }
    if (!d2d_timing_realize(&s->timing, pdev, errp)) {
        return;
    }
    s->notify = snic_msix_notify;
    s->port_rx = snic_rx_loopback;
    pci_config_set_interrupt_pin(pdev->config, 1);
    memory_region_init_io(&s->regs, OBJECT(s), &snic_regs_ops, s,
                          "snic-regs", SNIC_REGS_SIZE);
    pci_register_bar(pdev, SNIC_BAR_REGS,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->regs);
    memory_region_init_io(&s->db, OBJECT(s), &snic_db_ops, s, "snic-db",
                          SNIC_DB_PAGES * SNIC_DB_PAGE_SIZE);
    pci_register_bar(pdev, SNIC_BAR_DB,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->db);
    if (msix_init_exclusive_bar(pdev, SNIC_NUM_MSIX, SNIC_BAR_MSIX, errp)) {
        d2d_timing_unrealize(&s->timing);
        return;
    }
    for (i = 0; i < SNIC_NUM_MSIX; i++) {
        msix_vector_use(pdev, i);
    }
    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    s->nic = qemu_new_nic(&snic_net_info, &s->conf,
                          object_get_typename(OBJECT(s)),
                          DEVICE(s)->id,
                          &DEVICE(s)->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);
    s->aq.bh = d2d_bh_new_guarded(s, snic_aq_bh, s);
    s->reset_bh = d2d_bh_new_guarded(s, snic_reset_bh, s);
    s->tx_bh = d2d_bh_new_guarded(s, snic_tx_bh, s);
    s->rate_timer = d2d_timer_new_guarded(DEVICE(s), snic_tx_rate_timer, s);
    s->tx_frame = g_malloc(SNIC_MAX_TX_FRAME);
    s->tx_seg = g_malloc(SNIC_MAX_TX_FRAME);
    s->tx_vlan_frame = g_malloc(SNIC_MAX_TX_FRAME + 4);
    s->rx_vlan_frame = g_malloc(SNIC_MAX_TX_FRAME);
    s->tx_vlan = -1;
    snic_queues_init(s);
    snic_rdma_init(s);
    snic_queues_reset(s);
    snic_rdma_reset(s);
    s->spin.cmd_mmio = snic_spin_cmd_mmio;
    snic_spin_init(s);
    d2d_timing_bh_register(&s->timing, s->aq.bh, snic_aq_bh, s);
    d2d_timing_bh_register(&s->timing, s->tx_bh, snic_tx_bh, s);
    d2d_timing_bh_register(&s->timing, s->rdma.bh, snic_rdma_bh, s);
    d2d_timing_bh_register(&s->timing, s->spin.bh, snic_spin_bh, s);
    s->status = SNIC_STATUS_READY;
}

static void snic_exit(PCIDevice *pdev)
{
    SnicState *s = SNIC(pdev);

    d2d_timing_unrealize(&s->timing);
    qemu_bh_delete(s->aq.bh);
    qemu_bh_delete(s->reset_bh);
    qemu_bh_delete(s->tx_bh);
    d2d_timer_free_guarded(s->rate_timer);
    snic_rdma_free(s);
    snic_queues_free(s);
    snic_spin_free(s);
    g_free(s->tx_frame);
    g_free(s->tx_seg);
    g_free(s->tx_vlan_frame);
    g_free(s->rx_vlan_frame);
    qemu_del_nic(s->nic);
    msix_uninit_exclusive_bar(pdev);
}

static void snic_qdev_reset(DeviceState *dev)
{
    SnicState *s = SNIC(dev);

    /* Machine reset or FLR: done now, a CTRL.RESET still pending with it. */
    qemu_bh_cancel(s->reset_bh);
    s->reset_pending = false;
    snic_reset_state(s);
    s->ctrl = 0;
    s->status = SNIC_STATUS_READY;
}

static void snic_instance_init(Object *obj)
{
    SnicState *s = SNIC(obj);
    /* the sPIN L2 banks' counters, read-only */
    const struct {
        const char *name;
        uint64_t *val;
    } banks[] = {
        { "spin-l2p-conflicts", &s->spin.l2p_banks.conflicts },
        { "spin-l2h-conflicts", &s->spin.l2h_banks.conflicts },
        { "spin-l2p-stall-cycles", &s->spin.l2p_banks.stall_cycles },
        { "spin-l2h-stall-cycles", &s->spin.l2h_banks.stall_cycles },
    };
    size_t i;

    d2d_pcie_counters_add_props(obj, &s->pcie);
    d2d_timing_init(obj, &s->timing);
    d2d_timing_ecn_init(obj, &s->timing);
    object_property_add_str(obj, "queue-stats", snic_get_queue_stats, NULL);
    object_property_add_str(obj, "rdma-stats", snic_get_rdma_stats, NULL);
    snic_rdma_loss_props(s, obj);
    for (i = 0; i < ARRAY_SIZE(banks); i++) {
        object_property_add_uint64_ptr(obj, banks[i].name, banks[i].val,
                                       OBJ_PROP_FLAG_READ);
    }
    snic_rdma_cc_props(s, obj);
    object_property_add_uint64_ptr(obj, "spin-bh-yields", &s->spin.bh_yields,
                                   OBJ_PROP_FLAG_READ);
    object_property_add_uint8_ptr(obj, "aq-drop-opcode", &s->aq_drop_opcode,
                                  OBJ_PROP_FLAG_READWRITE);
    object_property_add_uint64_ptr(obj, "aq-dropped", &s->aq_dropped,
                                   OBJ_PROP_FLAG_READ);
}

/*
 * Queues, RDMA connections and sPIN engines live in host memory and in
 * peers' BARs and have no vmstate: migration and snapshots are refused.
 */
static const VMStateDescription vmstate_snic = {
    .name = TYPE_SNIC,
    .unmigratable = 1,
};

static Property snic_properties[] = {
    DEFINE_NIC_PROPERTIES(SnicState, conf),
    DEFINE_PROP_STRING("serial", SnicState, serial),
    DEFINE_PROP_UINT32("spin-clusters", SnicState, spin.clusters,
                       SNIC_SPIN_DEF_CLUSTERS),
    DEFINE_PROP_UINT32("spin-hpus", SnicState, spin.hpus, SNIC_SPIN_DEF_HPUS),
    DEFINE_PROP_UINT32("spin-msg-slots", SnicState, spin.msg_slots,
                       SNIC_SPIN_MSG_SLOTS),
    DEFINE_PROP_UINT32("spin-clock-mhz", SnicState, spin.clock_mhz,
                       SNIC_SPIN_DEF_CLOCK_MHZ),
    DEFINE_PROP_UINT32("spin-l2p-size", SnicState, spin.l2p_size,
                       SNIC_SPIN_L2P_SIZE),
    DEFINE_PROP_UINT32("nic-cores", SnicState, rdma.pipe.ncores,
                       SNIC_PIPE_DEF_CORES),
    DEFINE_PROP_UINT32("pipe-poll-ns", SnicState, rdma.pipe.poll_ns,
                       SNIC_PIPE_DEF_POLL_NS),
    DEFINE_PROP_UINT32("pipe-poll-max-ns", SnicState, rdma.pipe.poll_max_ns,
                       SNIC_PIPE_DEF_POLL_MAX_NS),
    DEFINE_PROP_UINT32("pipe-poll-cost-ns", SnicState, rdma.pipe.poll_cost_ns,
                       SNIC_PIPE_DEF_POLL_COST_NS),
    DEFINE_PROP_END_OF_LIST(),
};

static void snic_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = snic_realize;
    k->exit = snic_exit;
    k->vendor_id = SNIC_PCI_VENDOR_ID;
    k->device_id = SNIC_PCI_DEVICE_ID;
    k->revision = 0x01;
    k->class_id = PCI_CLASS_NETWORK_ETHERNET;
    dc->desc = "d2d SmartNIC (sPIN, RoCEv2)";
    dc->reset = snic_qdev_reset;
    dc->vmsd = &vmstate_snic;
    device_class_set_props(dc, snic_properties);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo snic_info = {
    .name = TYPE_SNIC,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(SnicState),
    .instance_init = snic_instance_init,
    .class_init = snic_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void snic_register_types(void)
{
    type_register_static(&snic_info);
}

type_init(snic_register_types)
