// SPDX-License-Identifier: GPL-2.0
/*
 * fld.ko: PCI binding of the FlexDriver endpoint - BARs, reset, the
 * error interrupt, the command interface - and the auxiliary driver of
 * snic's peer devices (snic.peer_fld.N), through which it gets a snic:
 * FLD-E (and, for accel=zuc, FLD-R's listener) is set up on the snic
 * named by the "snic" parameter (default: the first one bound) as soon
 * as both the FLD and that snic are bound, and torn down when either
 * goes; the snic's removal reaches fld as its auxiliary remove callback.
 */
#include <linux/module.h>
#include <linux/auxiliary_bus.h>
#include <linux/interrupt.h>
#include <linux/delay.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include "fld.h"

static char *fld_snic_name;
module_param_named(snic, fld_snic_name, charp, 0444);
MODULE_PARM_DESC(snic, "netdev of the snic FLD-E drives (default: the first snic bound)");
static ushort fld_udp_port = 7;
module_param_named(udp_port, fld_udp_port, ushort, 0444);
MODULE_PARM_DESC(udp_port, "UDP port steered to FLD-E (0: none at load)");
static ushort fld_rdma_port = FLDR_DEFAULT_PORT;
module_param_named(rdma_port, fld_rdma_port, ushort, 0444);
MODULE_PARM_DESC(rdma_port, "rdma_cm port of FLD-R (accel=zuc; 0: none at load)");
static ushort fld_tenant = 1;
module_param_named(tenant, fld_tenant, ushort, 0444);
MODULE_PARM_DESC(tenant, "flow tag of FLD-E's traffic: the iotauth tenant (0..4095)");
static uint fld_tenants = 1;
module_param_named(tenants, fld_tenants, uint, 0444);
static bool fld_loopback;
module_param_named(loopback, fld_loopback, bool, 0444);
MODULE_PARM_DESC(loopback, "FLD-E send queues loop back into the snic's own receive path (defrag re-injection) instead of the wire");
MODULE_PARM_DESC(tenants, "FLD-E queue sets (1..4): tenant k gets UDP port udp_port + k, flow tag tenant + k, its own RQ, SQ and rate limit");
/* PCIe knobs of FLD-E, on by default (docs/fld.md "PCIe efficiency") */
static uint fld_tx_signal = 16;
module_param_named(tx_signal, fld_tx_signal, uint, 0444);
MODULE_PARM_DESC(tx_signal, "FLD-E asks for a TX CQE on one WQE in this many (1..256; 1: every WQE)");
static bool fld_mmio_wqe = true;
module_param_named(mmio_wqe, fld_mmio_wqe, bool, 0444);
MODULE_PARM_DESC(mmio_wqe, "FLD-E rings the snic's SQs with WQE-by-MMIO lines (0: 4-byte doorbells, the NIC reads each WQE)");
static bool fld_mini_cqe = true;
module_param_named(mini_cqe, fld_mini_cqe, bool, 0444);
MODULE_PARM_DESC(mini_cqe, "FLD-E's snic CQs write mini-CQE lines (0: a 64-byte CQE per packet)");

/* Data-plane errors the device raises: report, count, clear. */
static irqreturn_t fld_err_irq(int irq, void *data)
{
	struct fld_dev *fd = data;

	atomic64_inc(&fd->err_irqs);
	fd->last_error = fld_rd(fd, FLD_REG_ERROR);
	fd->last_info = fld_rd(fd, FLD_REG_ERR_INFO);
	if (fd->last_error)
		dev_warn_ratelimited(&fd->pdev->dev,
				     "device error %u (info %#x), %u so far\n",
				     fd->last_error, fd->last_info,
				     fld_rd(fd, FLD_REG_ERROR_COUNT));
	fld_wr(fd, FLD_REG_ERROR, 0);
	return IRQ_HANDLED;
}

static int fld_reset(struct fld_dev *fd)
{
	int i;

	fld_wr(fd, FLD_REG_CTRL, FLD_CTRL_RESET);
	fld_wr(fd, FLD_REG_CTRL, 0);
	for (i = 0; i < 100; i++) {
		if (fld_rd(fd, FLD_REG_STATUS) & FLD_STATUS_READY)
			return 0;
		usleep_range(100, 200);
	}
	return -ETIMEDOUT;
}

/*
 * FLDs and snics meet here: every bound FLD (fld_devs) and every snic
 * peer device fld bound (fld_snics, in bind order), under fld_bind_lock,
 * which the probe and remove callbacks of both drivers take.
 */
static DEFINE_MUTEX(fld_bind_lock);
static LIST_HEAD(fld_devs);
static LIST_HEAD(fld_snics);

struct fld_snic {
	struct list_head node;
	struct snic_peer *snic;
};

static bool fld_snic_wanted(struct snic_peer *snic)
{
	return !fld_snic_name || !*fld_snic_name ||
	       !strcmp(netdev_name(snic_peer_netdev(snic)), fld_snic_name);
}

/* FLD-E and FLD-R of @fd on @snic. */
static void fld_attach(struct fld_dev *fd, struct snic_peer *snic)
{
	struct fld_pcie_knobs knobs = {
		.tx_signal = fld_tx_signal,
		.mmio_wqe = fld_mmio_wqe,
		.mini_cqe = fld_mini_cqe,
	};
	int ret;

	lockdep_assert_held(&fld_bind_lock);
	mutex_lock(&fd->lock);
	fd->snic = snic;
	dev_info(&fd->pdev->dev, "on snic %s\n",
		 netdev_name(snic_peer_netdev(snic)));
	ret = fld_flde_start(fd, fld_udp_port, fld_tenant & FLD_MAX_FLOW_TAG,
			     fld_tenants, fld_loopback, &knobs);
	if (ret)
		dev_warn(&fd->pdev->dev, "FLD-E not started: %d\n", ret);
	ret = fld_fldr_start(fd, fld_rdma_port);
	if (ret)
		dev_warn(&fd->pdev->dev, "FLD-R not started: %d\n", ret);
	mutex_unlock(&fd->lock);
}

/* Destroys what @fd made on its snic; the snic still works. */
static void fld_detach(struct fld_dev *fd)
{
	lockdep_assert_held(&fld_bind_lock);
	mutex_lock(&fd->lock);
	if (fd->snic) {
		fld_fldr_stop(fd);
		fld_flde_stop(fd);
		dev_info(&fd->pdev->dev, "off snic %s\n",
			 netdev_name(snic_peer_netdev(fd->snic)));
	}
	fd->snic = NULL;
	mutex_unlock(&fd->lock);
}

/* The first wanted snic for an FLD that has none. */
static void fld_attach_snic(struct fld_dev *fd)
{
	struct fld_snic *s;

	list_for_each_entry(s, &fld_snics, node) {
		if (fld_snic_wanted(s->snic)) {
			fld_attach(fd, s->snic);
			return;
		}
	}
	dev_info(&fd->pdev->dev, "waiting for snic %s\n",
		 fld_snic_name && *fld_snic_name ? fld_snic_name : "(any)");
}

static int fld_snic_probe(struct auxiliary_device *adev,
			  const struct auxiliary_device_id *id)
{
	struct fld_snic *s;
	struct fld_dev *fd;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->snic = snic_peer_dev(adev);
	auxiliary_set_drvdata(adev, s);
	mutex_lock(&fld_bind_lock);
	list_add_tail(&s->node, &fld_snics);
	if (fld_snic_wanted(s->snic))
		list_for_each_entry(fd, &fld_devs, node)
			if (!fd->snic)
				fld_attach(fd, s->snic);
	mutex_unlock(&fld_bind_lock);
	return 0;
}

/* The snic goes (unbind, rmmod snic): take everything off it first. */
static void fld_snic_remove(struct auxiliary_device *adev)
{
	struct fld_snic *s = auxiliary_get_drvdata(adev);
	struct fld_dev *fd;

	mutex_lock(&fld_bind_lock);
	list_del(&s->node);
	list_for_each_entry(fd, &fld_devs, node)
		if (fd->snic == s->snic)
			fld_detach(fd);
	mutex_unlock(&fld_bind_lock);
	kfree(s);
}

static const struct auxiliary_device_id fld_snic_ids[] = {
	{ .name = "snic.peer_fld" },
	{ }
};
MODULE_DEVICE_TABLE(auxiliary, fld_snic_ids);

static struct auxiliary_driver fld_snic_driver = {
	.name = "snic",
	.probe = fld_snic_probe,
	.remove = fld_snic_remove,
	.id_table = fld_snic_ids,
};

static int fld_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct fld_dev *fd;
	u32 ver;
	int ret;

	fd = devm_kzalloc(&pdev->dev, sizeof(*fd), GFP_KERNEL);
	if (!fd)
		return -ENOMEM;
	fd->pdev = pdev;
	mutex_init(&fd->lock);
	atomic64_set(&fd->err_irqs, 0);
	pci_set_drvdata(pdev, fd);

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(FLD_BAR_REGS), "fld");
	if (ret)
		return ret;
	fd->regs = pcim_iomap_table(pdev)[FLD_BAR_REGS];
	if (pci_resource_len(pdev, FLD_BAR_WIN) < FLD_WIN_SIZE)
		return -ENODEV;
	fd->win_bus = pci_resource_start(pdev, FLD_BAR_WIN);
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	pci_set_master(pdev);

	if (fld_rd(fd, FLD_REG_ID) != FLD_ID_MAGIC)
		return -ENODEV;
	ver = fld_rd(fd, FLD_REG_VERSION);
	if (ver >> 16 != FLD_VERSION_MAJOR) {
		dev_err(&pdev->dev, "unsupported version %#x\n", ver);
		return -ENODEV;
	}
	ret = fld_reset(fd);
	if (ret)
		return ret;
	/* iotauth checks token expiry against this (the device keeps time) */
	fld_wr(fd, FLD_REG_UNIX_TIME, (u32)ktime_get_real_seconds());

	ret = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSIX);
	if (ret < 0)
		return ret;
	ret = request_irq(pci_irq_vector(pdev, 0), fld_err_irq, 0, "fld-err",
			  fd);
	if (ret)
		goto err_vec;
	fld_wr(fd, FLD_REG_ERR_MSIX, 0);
	fld_wr(fd, FLD_REG_CTRL, FLD_CTRL_ENABLE);

	dev_info(&pdev->dev, "FlexDriver %u.%u, accelerator %u, pool %u descriptors, %u x %u B blocks\n",
		 ver >> 16, ver & 0xffff, fld_rd(fd, FLD_REG_ACCEL),
		 fld_rd(fd, FLD_REG_POOL_DESCS), fld_rd(fd, FLD_REG_POOL_BLOCKS),
		 fld_rd(fd, FLD_REG_BLOCK_SIZE));

	mutex_lock(&fld_bind_lock);
	list_add_tail(&fd->node, &fld_devs);
	fld_attach_snic(fd);
	mutex_unlock(&fld_bind_lock);
	return 0;

err_vec:
	pci_free_irq_vectors(pdev);
	return ret;
}

static void fld_remove(struct pci_dev *pdev)
{
	struct fld_dev *fd = pci_get_drvdata(pdev);

	mutex_lock(&fld_bind_lock);
	fld_detach(fd);
	list_del(&fd->node);
	mutex_unlock(&fld_bind_lock);
	fld_wr(fd, FLD_REG_ERR_MSIX, ~0u);
	fld_wr(fd, FLD_REG_CTRL, FLD_CTRL_RESET);
	free_irq(pci_irq_vector(pdev, 0), fd);
	pci_free_irq_vectors(pdev);
}

static const struct pci_device_id fld_ids[] = {
	{ PCI_DEVICE(FLD_PCI_VENDOR_ID, FLD_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, fld_ids);

static struct pci_driver fld_driver = {
	.name = "fld",
	.id_table = fld_ids,
	.probe = fld_probe,
	.remove = fld_remove,
	.dev_groups = fld_groups,
};

static int __init fld_init(void)
{
	int ret;

	ret = pci_register_driver(&fld_driver);
	if (ret)
		return ret;
	ret = auxiliary_driver_register(&fld_snic_driver);
	if (ret)
		pci_unregister_driver(&fld_driver);
	return ret;
}
module_init(fld_init);

/* The snics go first: each takes its FLDs' queues along. */
static void __exit fld_exit(void)
{
	auxiliary_driver_unregister(&fld_snic_driver);
	pci_unregister_driver(&fld_driver);
}
module_exit(fld_exit);

MODULE_DESCRIPTION("d2d FlexDriver endpoint control plane");
MODULE_LICENSE("GPL");
