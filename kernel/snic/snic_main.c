// SPDX-License-Identifier: GPL-2.0
/*
 * snic: PCI driver for the d2d SmartNIC (PCI 1234:d201).
 *
 * probe: map BAR0, check the device identity, reset it, set up MSI-X and
 * the admin queue, and learn the device's capabilities with IDENTIFY.
 * With SNIC_CAP_ETH it maps the doorbell BAR, registers a net_device and
 * offers the function to the peer-queue API; with SNIC_CAP_RDMA too it
 * registers an ib_device on that net_device (snic_ib_main.c); with
 * SNIC_CAP_SPIN it also creates /dev/snic-spinN (snic_spin.c).
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/interrupt.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <d2d/snic_rdma_if.h>
#include "snic.h"

#define SNIC_RESET_TIMEOUT_MS	1000

static int snic_reset(struct snic_dev *sd)
{
	unsigned long timeout = jiffies + msecs_to_jiffies(SNIC_RESET_TIMEOUT_MS);

	snic_wr(sd, SNIC_REG_CTRL, SNIC_CTRL_RESET);
	snic_wr(sd, SNIC_REG_CTRL, 0);
	while (!(snic_rd(sd, SNIC_REG_STATUS) & SNIC_STATUS_READY)) {
		if (time_after(jiffies, timeout))
			return -ETIMEDOUT;
		usleep_range(100, 200);
	}
	return 0;
}

static void snic_dev_release(struct kref *ref)
{
	kfree(container_of(ref, struct snic_dev, ref));
}

/* The last reference may be a peer's, after remove. */
void snic_dev_put(struct snic_dev *sd)
{
	kref_put(&sd->ref, snic_dev_release);
}

/*
 * Vector 0: admin completions, the async EQ (link, queue errors) and the
 * sPIN EQ (handler events).
 */
static irqreturn_t snic_admin_irq(int irq, void *data)
{
	irqreturn_t ret = snic_aq_irq(irq, data);

	if (snic_async_eq_poll(data))
		ret = IRQ_HANDLED;
	if (snic_spin_eq_poll(data))
		ret = IRQ_HANDLED;
	return ret;
}

static int snic_map_doorbells(struct snic_dev *sd)
{
	struct pci_dev *pdev = sd->pdev;
	int ret;

	if (pci_resource_len(pdev, SNIC_BAR_DB) <
	    (resource_size_t)SNIC_DB_PAGES * SNIC_DB_PAGE_SIZE)
		return -ENODEV;
	ret = pcim_iomap_regions(pdev, BIT(SNIC_BAR_DB), SNIC_DRV_NAME);
	if (ret)
		return ret;
	sd->db = pcim_iomap_table(pdev)[SNIC_BAR_DB];
	/* What a peer device writes to reach a doorbell. */
	sd->db_bus = pci_bus_address(pdev, SNIC_BAR_DB);
	return 0;
}

static int snic_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	struct device *dev = &pdev->dev;
	struct snic_dev *sd;
	u32 magic, version;
	int ret;

	sd = kzalloc(sizeof(*sd), GFP_KERNEL);
	if (!sd)
		return -ENOMEM;
	sd->pdev = pdev;
	kref_init(&sd->ref);
	INIT_LIST_HEAD(&sd->node);
	INIT_LIST_HEAD(&sd->peer_objs);
	mutex_init(&sd->peer_lock);
	spin_lock_init(&sd->db_lock);
	pci_set_drvdata(pdev, sd);

	ret = pcim_enable_device(pdev);
	if (ret) {
		dev_err_probe(dev, ret, "cannot enable PCI device\n");
		goto err_put;
	}
	ret = pcim_iomap_regions(pdev, BIT(SNIC_BAR_REGS), SNIC_DRV_NAME);
	if (ret) {
		dev_err_probe(dev, ret, "cannot map BAR%d\n", SNIC_BAR_REGS);
		goto err_put;
	}
	sd->regs = pcim_iomap_table(pdev)[SNIC_BAR_REGS];
	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret) {
		dev_err_probe(dev, ret, "no usable DMA mask\n");
		goto err_put;
	}
	pci_set_master(pdev);

	magic = snic_rd(sd, SNIC_REG_ID);
	version = snic_rd(sd, SNIC_REG_VERSION);
	ret = -ENODEV;
	if (magic != SNIC_ID_MAGIC) {
		dev_err(dev, "bad ID register %#x\n", magic);
		goto err_put;
	}
	if ((version >> 16) != SNIC_VERSION_MAJOR) {
		dev_err(dev, "unsupported device version %u.%u\n",
			version >> 16, version & 0xffff);
		goto err_put;
	}

	ret = snic_reset(sd);
	if (ret) {
		dev_err(dev, "device did not leave reset\n");
		goto err_put;
	}

	ret = pci_alloc_irq_vectors(pdev, 1, SNIC_NUM_MSIX, PCI_IRQ_MSIX);
	if (ret < 0) {
		dev_err(dev, "cannot allocate MSI-X vectors: %d\n", ret);
		goto err_put;
	}
	sd->num_vectors = ret;

	ret = snic_aq_init(sd);
	if (ret)
		goto err_vectors;
	ret = request_irq(pci_irq_vector(pdev, SNIC_AQ_VECTOR), snic_admin_irq,
			  0, "snic-admin", sd);
	if (ret)
		goto err_aq;

	ret = snic_aq_identify(sd);
	if (ret) {
		dev_err(dev, "IDENTIFY failed: %d\n", ret);
		goto err_irq;
	}
	sd->caps = le64_to_cpu(sd->id.caps);

	dev_info(dev, "%s, caps %#llx, %d MSI-X vectors, MAC %pM\n",
		 sd->id.fw_version, sd->caps, sd->num_vectors, sd->id.mac);

	/* The last vector carries RDMA completions, the rest Ethernet. */
	if (snic_has(sd, SNIC_CAP_RDMA) && sd->num_vectors >= 3)
		sd->rdma_vector = sd->num_vectors - 1;

	if (snic_has(sd, SNIC_CAP_ETH)) {
		ret = snic_map_doorbells(sd);
		if (ret) {
			dev_err(dev, "cannot map the doorbell BAR: %d\n", ret);
			goto err_irq;
		}
		ret = snic_eth_probe(sd);
		if (ret)
			goto err_irq;
		/* Ethernet keeps working without the RDMA device. */
		ret = snic_ib_probe(sd);
		if (ret)
			dev_warn(dev, "no RDMA device: %d\n", ret);
		snic_peer_register(sd);
		/* The NIC works without its sPIN engine: not fatal. */
		if (snic_spin_probe(sd))
			dev_warn(dev, "sPIN engine not available\n");
	}
	return 0;

err_irq:
	snic_wr(sd, SNIC_REG_CTRL, SNIC_CTRL_RESET);
	free_irq(pci_irq_vector(pdev, SNIC_AQ_VECTOR), sd);
err_aq:
	snic_aq_destroy(sd);
err_vectors:
	pci_free_irq_vectors(pdev);
err_put:
	snic_dev_put(sd);
	return ret;
}

static void snic_remove(struct pci_dev *pdev)
{
	struct snic_dev *sd = pci_get_drvdata(pdev);

	snic_spin_remove(sd);
	snic_peer_unregister(sd);
	snic_ib_remove(sd);
	snic_eth_remove(sd);
	/* Quiesce the device before its rings and vectors go away. */
	snic_wr(sd, SNIC_REG_CTRL, SNIC_CTRL_RESET);
	free_irq(pci_irq_vector(pdev, SNIC_AQ_VECTOR), sd);
	snic_aq_destroy(sd);
	pci_free_irq_vectors(pdev);
	snic_dev_put(sd);
}

static const struct pci_device_id snic_pci_ids[] = {
	{ PCI_DEVICE(SNIC_PCI_VENDOR_ID, SNIC_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, snic_pci_ids);

static struct pci_driver snic_pci_driver = {
	.name = SNIC_DRV_NAME,
	.id_table = snic_pci_ids,
	.probe = snic_probe,
	.remove = snic_remove,
	.dev_groups = snic_dev_groups,
};
module_pci_driver(snic_pci_driver);

MODULE_DESCRIPTION("d2d snic SmartNIC driver");
MODULE_AUTHOR("d2d developers");
MODULE_LICENSE("GPL");
