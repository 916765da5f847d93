// SPDX-License-Identifier: GPL-2.0
/*
 * snic: PCI driver for the d2d SmartNIC (PCI 1234:d201).
 *
 * probe: map BAR0, check the device identity, reset it, set up MSI-X and
 * the admin queue, and learn the device's capabilities with IDENTIFY.
 * With SNIC_CAP_ETH it maps the doorbell BAR and adds the auxiliary
 * device snic.eth.N, whose driver (snic_en_main.c) registers a net_device
 * and adds the roles on top of it: snic.rdma.N with SNIC_CAP_RDMA (an
 * ib_device, bound by snic_ib.ko: snic_ib_main.c), one snic.peer_<user>.N
 * per user of the peer-queue API (snic_peer.c), bound by that user's
 * driver (fld.ko: snic.peer_fld), and snic.spin.N with SNIC_CAP_SPIN
 * (/dev/snic-spinN, snic_spin.c).  Each role is an auxiliary driver of
 * its own.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/interrupt.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/idr.h>
#include <d2d/snic_rdma_ifc.h>
#include <d2d/snic_spin_ifc.h>
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

/* N of the auxiliary devices snic.<role>.N of a function */
static DEFINE_IDA(snic_adev_ida);

static void snic_dev_release(struct kref *ref)
{
	struct snic_dev *sd = container_of(ref, struct snic_dev, ref);

	if (sd->adev_id >= 0)
		ida_free(&snic_adev_ida, sd->adev_id);
	kfree(sd);
}

/* The last reference may be an open sPIN file's, after remove. */
void snic_dev_put(struct snic_dev *sd)
{
	kref_put(&sd->ref, snic_dev_release);
}

static const char * const snic_adev_names[SNIC_ADEV_NUM] = {
	[SNIC_ADEV_ETH] = "eth",
	[SNIC_ADEV_RDMA] = "rdma",
	[SNIC_ADEV_PEER_FLD] = "peer_fld",
	[SNIC_ADEV_PEER_HDC] = "peer_hdc",
	[SNIC_ADEV_PEER_TEST] = "peer_test",
	[SNIC_ADEV_SPIN] = "spin",
};

static void snic_adev_release(struct device *dev)
{
	kfree(container_of(dev, struct snic_adev, adev.dev));
}

/* Add the auxiliary device of @role; its driver, if loaded, binds now. */
static int snic_adev_add(struct snic_dev *sd, enum snic_adev_role role)
{
	struct snic_adev *a;
	int ret;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	a->sd = sd;
	if (role >= SNIC_ADEV_PEER_FIRST && role <= SNIC_ADEV_PEER_LAST)
		snic_peer_init(&a->peer, sd);
	a->adev.name = snic_adev_names[role];
	a->adev.id = sd->adev_id;
	a->adev.dev.parent = &sd->pdev->dev;
	a->adev.dev.release = snic_adev_release;
	ret = auxiliary_device_init(&a->adev);
	if (ret) {
		kfree(a);
		return ret;
	}
	ret = auxiliary_device_add(&a->adev);
	if (ret) {
		auxiliary_device_uninit(&a->adev);
		return ret;
	}
	sd->adev[role] = a;
	return 0;
}

/*
 * Delete the auxiliary device of @role: its driver's remove runs first;
 * a peer user's remove has destroyed what it made, and what is left goes.
 */
static void snic_adev_del(struct snic_dev *sd, enum snic_adev_role role)
{
	struct snic_adev *a = sd->adev[role];

	if (!a)
		return;
	auxiliary_device_delete(&a->adev);
	if (a->peer.sd)
		snic_peer_release(&a->peer);
	auxiliary_device_uninit(&a->adev);
	sd->adev[role] = NULL;
}

/*
 * The roles on top of the net_device, from the Ethernet driver's probe.
 * A role that cannot be added leaves the others working.
 */
void snic_adevs_add(struct snic_dev *sd)
{
	int role, ret;

	for (role = SNIC_ADEV_ETH + 1; role < SNIC_ADEV_NUM; role++) {
		if (role == SNIC_ADEV_RDMA && !snic_has(sd, SNIC_CAP_RDMA))
			continue;
		if (role == SNIC_ADEV_SPIN && !snic_has(sd, SNIC_CAP_SPIN))
			continue;
		ret = snic_adev_add(sd, role);
		if (ret)
			dev_warn(&sd->pdev->dev, "cannot add %s.%s: %d\n",
				 KBUILD_MODNAME, snic_adev_names[role], ret);
	}
}

/*
 * Their removal, in reverse, before the net_device goes.  RDMA goes after
 * the peer devices (their users' QPs and rdma_cm ids use it).
 */
void snic_adevs_del(struct snic_dev *sd)
{
	int role;

	for (role = SNIC_ADEV_NUM - 1; role > SNIC_ADEV_ETH; role--)
		snic_adev_del(sd, role);
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
	mutex_init(&sd->peer_lock);
	init_rwsem(&sd->qpn_lock);
	spin_lock_init(&sd->db_lock);
	sd->adev_id = -1;
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
	ret = ida_alloc(&snic_adev_ida, GFP_KERNEL);
	if (ret < 0)
		goto err_put;
	sd->adev_id = ret;

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
		ret = snic_adev_add(sd, SNIC_ADEV_ETH);
		if (ret) {
			dev_err(dev, "cannot add %s.eth: %d\n", KBUILD_MODNAME,
				ret);
			goto err_irq;
		}
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

	/* The Ethernet driver deletes the roles on top of it first. */
	snic_adev_del(sd, SNIC_ADEV_ETH);
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

/*
 * Role drivers first: the devices the PCI driver adds bind at once.
 * snic.rdma's driver is snic_ib.ko, loaded after this module (softdep).
 */
static struct auxiliary_driver *const snic_adrvs[] = {
	&snic_eth_driver, &snic_spin_driver,
};

static void snic_adrvs_unregister(int n)
{
	while (n--)
		auxiliary_driver_unregister(snic_adrvs[n]);
}

static int __init snic_init(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(snic_adrvs); i++) {
		ret = auxiliary_driver_register(snic_adrvs[i]);
		if (ret)
			goto err;
	}
	ret = pci_register_driver(&snic_pci_driver);
	if (ret)
		goto err;
	return 0;
err:
	snic_adrvs_unregister(i);
	return ret;
}
module_init(snic_init);

static void __exit snic_exit(void)
{
	pci_unregister_driver(&snic_pci_driver);
	snic_adrvs_unregister(ARRAY_SIZE(snic_adrvs));
}
module_exit(snic_exit);

MODULE_DESCRIPTION("d2d snic SmartNIC driver");
/* modprobe snic brings the ib_device up too, when snic_ib.ko is built. */
MODULE_SOFTDEP("post: snic_ib");
MODULE_AUTHOR("d2d developers");
MODULE_LICENSE("GPL");
