// SPDX-License-Identifier: GPL-2.0
/*
 * hdc: PCI driver for the d2d HDC engine (DCS-ctrl, PCI 1234:d203).
 *
 * probe: map BAR0, check the identity, reset, MSI-X, the host command
 * queue, take the engine's NVMe controller and bring it up (hdc_nvme.c),
 * then offer /dev/hdc (hdc_chardev.c).  The device structure is reference
 * counted (hdc_dev_put(), hdc_req.c): open files and requests may outlive
 * the PCI binding, they then get -ENODEV.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include "hdc.h"

static int hdc_reset(struct hdc_dev *hd)
{
	unsigned long timeout = jiffies + msecs_to_jiffies(HDC_RESET_TIMEOUT_MS);

	hdc_wr(hd, HDC_REG_CTRL, HDC_CTRL_RESET);
	hdc_wr(hd, HDC_REG_CTRL, 0);
	while (!(hdc_rd(hd, HDC_REG_STATUS) & HDC_STATUS_READY)) {
		if (time_after(jiffies, timeout))
			return -ETIMEDOUT;
		usleep_range(100, 200);
	}
	return 0;
}

static int hdc_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	struct device *dev = &pdev->dev;
	struct hdc_dev *hd;
	u32 magic;
	int ret;

	hd = kzalloc(sizeof(*hd), GFP_KERNEL);
	if (!hd)
		return -ENOMEM;
	kref_init(&hd->ref);
	hd->pdev = pci_dev_get(pdev);
	init_rwsem(&hd->gone_lock);
	mutex_init(&hd->bdev_lock);
	hdc_nic_init(hd);
	spin_lock_init(&hd->stat_lock);
	atomic_set(&hd->inflight, 0);
	pci_set_drvdata(pdev, hd);

	ret = pcim_enable_device(pdev);
	if (ret) {
		dev_err(dev, "cannot enable PCI device: %d\n", ret);
		goto err_put;
	}
	ret = pcim_iomap_regions(pdev, BIT(HDC_BAR_REGS), HDC_DRV_NAME);
	if (ret) {
		dev_err(dev, "cannot map BAR%d: %d\n", HDC_BAR_REGS, ret);
		goto err_put;
	}
	hd->regs = pcim_iomap_table(pdev)[HDC_BAR_REGS];
	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret) {
		dev_err(dev, "no usable DMA mask\n");
		goto err_put;
	}
	pci_set_master(pdev);

	magic = hdc_rd(hd, HDC_REG_ID);
	hd->version = hdc_rd(hd, HDC_REG_VERSION);
	if (magic != HDC_ID_MAGIC) {
		dev_err(dev, "bad ID register %#x\n", magic);
		ret = -ENODEV;
		goto err_put;
	}
	if ((hd->version >> 16) != (HDC_VERSION >> 16)) {
		dev_err(dev, "unsupported device version %u.%u\n",
			hd->version >> 16, hd->version & 0xffff);
		ret = -ENODEV;
		goto err_put;
	}
	ret = hdc_reset(hd);
	if (ret) {
		dev_err(dev, "device did not leave reset\n");
		goto err_put;
	}
	hd->caps = hdc_rd(hd, HDC_REG_CAPS);
	hd->buf_size = hdc_rd(hd, HDC_REG_BUF_SIZE);

	ret = pci_alloc_irq_vectors(pdev, 1, HDC_NUM_MSIX, PCI_IRQ_MSIX);
	if (ret < 0) {
		dev_err(dev, "cannot allocate MSI-X vectors: %d\n", ret);
		goto err_put;
	}
	hd->num_vectors = ret;

	hd->wq = alloc_workqueue("hdc", WQ_UNBOUND, 0);
	if (!hd->wq) {
		ret = -ENOMEM;
		goto err_vectors;
	}
	/* The device buffer of HDC_REQ_SW_P2P (the queue must be off). */
	hdc_wr(hd, HDC_REG_DEVBUF_SIZE, HDC_CHUNK_SIZE);
	ret = hdc_queue_init(hd);
	if (ret)
		goto err_wq;
	ret = request_irq(pci_irq_vector(pdev, HDC_CMD_VECTOR), hdc_queue_irq,
			  0, "hdc-cmd", hd);
	if (ret)
		goto err_queue;

	/* Without its SSD the engine still digests user buffers. */
	if (hdc_nvme_attach(hd))
		dev_warn(dev, "NVMe controller not available: file endpoints will fail with ENODEV\n");

	ret = hdc_chardev_register(hd);
	if (ret)
		goto err_nvme;

	dev_info(dev, "HDC engine %u.%u, caps %#x, %u MiB buffer, %d MSI-X vectors, NVMe %s\n",
		 hd->version >> 16, hd->version & 0xffff, hd->caps,
		 hd->buf_size >> 20, hd->num_vectors,
		 hd->nvme.running ? "running" : "off");
	return 0;

err_nvme:
	hdc_queue_stop(hd);
	hdc_nic_detach(hd);
	hdc_nvme_detach(hd);
	hdc_wr(hd, HDC_REG_CTRL, HDC_CTRL_RESET);
	free_irq(pci_irq_vector(pdev, HDC_CMD_VECTOR), hd);
err_queue:
	hdc_wr(hd, HDC_REG_CTRL, HDC_CTRL_RESET);
	hdc_queue_destroy(hd);
err_wq:
	destroy_workqueue(hd->wq);
err_vectors:
	pci_free_irq_vectors(pdev);
err_put:
	hdc_dev_put(hd);
	return ret;
}

static void hdc_remove(struct pci_dev *pdev)
{
	struct hdc_dev *hd = pci_get_drvdata(pdev);

	/*
	 * No new opens, then no new requests on open files: a request being
	 * built now is refused by the stopped queue.  gone_lock only waits
	 * for HDC_IOC_STATS's register reads.
	 */
	hdc_chardev_unregister(hd);
	down_write(&hd->gone_lock);
	WRITE_ONCE(hd->gone, true);
	up_write(&hd->gone_lock);

	/*
	 * The NIC queues first: a transfer on the network (a TCP or UDP
	 * receive waiting for its peer, a send on a closed window) ends now
	 * with -ENODEV instead of holding the removal for the drain timeout.
	 * Then let the engine finish what it has, and quiesce it.
	 */
	hdc_nic_detach(hd);
	hdc_queue_stop(hd);
	hdc_nvme_detach(hd);
	hdc_wr(hd, HDC_REG_CTRL, HDC_CTRL_RESET);
	free_irq(pci_irq_vector(pdev, HDC_CMD_VECTOR), hd);
	destroy_workqueue(hd->wq);
	hdc_queue_destroy(hd);
	pci_free_irq_vectors(pdev);
	hdc_dev_put(hd);
}

static void hdc_shutdown(struct pci_dev *pdev)
{
	struct hdc_dev *hd = pci_get_drvdata(pdev);

	/* Stop all DMA: the engine's and its NVMe controller's. */
	if (hd->nvme.running)
		hdc_wr(hd, HDC_REG_NVME_CTRL, HDC_NVME_SHUTDOWN);
	hdc_wr(hd, HDC_REG_CTRL, HDC_CTRL_RESET);
}

static const struct pci_device_id hdc_pci_ids[] = {
	{ PCI_DEVICE(HDC_PCI_VENDOR_ID, HDC_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, hdc_pci_ids);

static struct pci_driver hdc_pci_driver = {
	.name = HDC_DRV_NAME,
	.id_table = hdc_pci_ids,
	.probe = hdc_probe,
	.remove = hdc_remove,
	.shutdown = hdc_shutdown,
};

/* The PCI driver of the engine; the NIC side's driver of snic.peer_hdc. */
static int __init hdc_init(void)
{
	int ret;

	hdc_sysfs_init();
	ret = hdc_nic_register();
	if (ret)
		return ret;
	ret = pci_register_driver(&hdc_pci_driver);
	if (ret)
		hdc_nic_unregister();
	return ret;
}
module_init(hdc_init);

static void __exit hdc_exit(void)
{
	pci_unregister_driver(&hdc_pci_driver);
	hdc_nic_unregister();
}
module_exit(hdc_exit);

MODULE_DESCRIPTION("d2d HDC engine (DCS-ctrl) driver, /dev/hdc");
MODULE_AUTHOR("d2d developers");
MODULE_LICENSE("GPL");
