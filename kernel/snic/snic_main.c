// SPDX-License-Identifier: GPL-2.0
/*
 * snic: PCI driver for the d2d SmartNIC (PCI 1234:d201).
 *
 * probe: map BAR0, check the device identity, reset it, set up MSI-X and
 * the admin queue, and learn the device's capabilities with IDENTIFY.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/interrupt.h>
#include <linux/delay.h>
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

static int snic_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	struct device *dev = &pdev->dev;
	struct snic_dev *sd;
	u32 magic, version;
	int ret;

	sd = devm_kzalloc(dev, sizeof(*sd), GFP_KERNEL);
	if (!sd)
		return -ENOMEM;
	sd->pdev = pdev;
	pci_set_drvdata(pdev, sd);

	ret = pcim_enable_device(pdev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot enable PCI device\n");
	ret = pcim_iomap_regions(pdev, BIT(SNIC_BAR_REGS), SNIC_DRV_NAME);
	if (ret)
		return dev_err_probe(dev, ret, "cannot map BAR%d\n",
				     SNIC_BAR_REGS);
	sd->regs = pcim_iomap_table(pdev)[SNIC_BAR_REGS];
	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		return dev_err_probe(dev, ret, "no usable DMA mask\n");
	pci_set_master(pdev);

	magic = snic_rd(sd, SNIC_REG_ID);
	version = snic_rd(sd, SNIC_REG_VERSION);
	if (magic != SNIC_ID_MAGIC)
		return dev_err_probe(dev, -ENODEV, "bad ID register %#x\n",
				     magic);
	if ((version >> 16) != SNIC_VERSION_MAJOR)
		return dev_err_probe(dev, -ENODEV,
				     "unsupported device version %u.%u\n",
				     version >> 16, version & 0xffff);

	ret = snic_reset(sd);
	if (ret)
		return dev_err_probe(dev, ret, "device did not leave reset\n");

	ret = pci_alloc_irq_vectors(pdev, 1, SNIC_NUM_MSIX, PCI_IRQ_MSIX);
	if (ret < 0)
		return dev_err_probe(dev, ret, "cannot allocate MSI-X vectors\n");
	sd->num_vectors = ret;

	ret = snic_aq_init(sd);
	if (ret)
		goto err_vectors;
	ret = request_irq(pci_irq_vector(pdev, SNIC_AQ_VECTOR), snic_aq_irq, 0,
			  "snic-admin", sd);
	if (ret)
		goto err_aq;

	ret = snic_aq_identify(sd);
	if (ret) {
		dev_err(dev, "IDENTIFY failed: %d\n", ret);
		goto err_irq;
	}

	dev_info(dev, "%s, caps %#llx, %d MSI-X vectors, MAC %pM\n",
		 sd->id.fw_version, le64_to_cpu(sd->id.caps), sd->num_vectors,
		 sd->id.mac);
	return 0;

err_irq:
	free_irq(pci_irq_vector(pdev, SNIC_AQ_VECTOR), sd);
err_aq:
	snic_aq_destroy(sd);
err_vectors:
	pci_free_irq_vectors(pdev);
	return ret;
}

static void snic_remove(struct pci_dev *pdev)
{
	struct snic_dev *sd = pci_get_drvdata(pdev);

	/* Quiesce the device before its rings and vectors go away. */
	snic_wr(sd, SNIC_REG_CTRL, SNIC_CTRL_RESET);
	free_irq(pci_irq_vector(pdev, SNIC_AQ_VECTOR), sd);
	snic_aq_destroy(sd);
	pci_free_irq_vectors(pdev);
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
