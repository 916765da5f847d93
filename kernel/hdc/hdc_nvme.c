// SPDX-License-Identifier: GPL-2.0
/*
 * hdc: the engine's NVMe controller.
 *
 * The SSD is an NVMe subsystem with two controllers sharing a namespace:
 * the host's nvme driver keeps one, the engine drives the other itself
 * over peer-to-peer PCIe (docs/hdc.md, "The engine's NVMe controller").
 * Here the driver takes that second controller away from the nvme driver
 * (and keeps it away with driver_override), enables it as a bus master,
 * hands its BAR0 bus address to the engine and waits for the engine to
 * bring it up.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/pci.h>
#include "hdc.h"

static char *nvme_bdf = "0000:00:10.0";
module_param(nvme_bdf, charp, 0444);
MODULE_PARM_DESC(nvme_bdf, "PCI address (domain:bus:slot.fn) of the NVMe controller the engine owns");

static uint nvme_nsid = 1;
module_param(nvme_nsid, uint, 0444);
MODULE_PARM_DESC(nvme_nsid, "namespace of the shared SSD the engine uses");

/* Matches no driver: nothing binds the controller while the engine has it. */
#define HDC_NVME_OVERRIDE	"hdc-engine"

const char *hdc_nvme_state_str(u32 state)
{
	switch (state) {
	case HDC_NVME_OFF:	return "off";
	case HDC_NVME_INIT:	return "init";
	case HDC_NVME_RUNNING:	return "running";
	case HDC_NVME_FAILED:	return "failed";
	default:		return "unknown";
	}
}

/* Poll HDC_REG_NVME_STATUS until it is until (or FAILED) or ms passed. */
static u32 hdc_nvme_wait(struct hdc_dev *hd, u32 until, unsigned int ms)
{
	unsigned long timeout = jiffies + msecs_to_jiffies(ms);
	u32 st;

	for (;;) {
		st = hdc_rd(hd, HDC_REG_NVME_STATUS);
		if (st == until ||
		    (st == HDC_NVME_FAILED && until != HDC_NVME_OFF))
			return st;
		if (time_after(jiffies, timeout))
			return st;
		usleep_range(5000, 10000);
	}
}

int hdc_nvme_attach(struct hdc_dev *hd)
{
	struct device *dev = &hd->pdev->dev;
	unsigned int dom, bus, slot, fn;
	struct pci_dev *npdev;
	dma_addr_t bar;
	u32 st;
	int ret;

	if (!(hd->caps & HDC_CAP_NVME))
		return -EOPNOTSUPP;
	if (sscanf(nvme_bdf, "%x:%x:%x.%x", &dom, &bus, &slot, &fn) != 4 ||
	    slot > 0x1f || fn > 7) {
		dev_err(dev, "nvme_bdf=%s is not domain:bus:slot.fn\n", nvme_bdf);
		return -EINVAL;
	}
	npdev = pci_get_domain_bus_and_slot(dom, bus, PCI_DEVFN(slot, fn));
	if (!npdev) {
		dev_err(dev, "no PCI device at %s (nvme_bdf)\n", nvme_bdf);
		return -ENODEV;
	}
	if (npdev->class != PCI_CLASS_STORAGE_EXPRESS) {
		dev_err(dev, "%s is not an NVMe controller (class %#x)\n",
			nvme_bdf, npdev->class);
		pci_dev_put(npdev);
		return -ENODEV;
	}

	/* Override first, so that nothing rebinds it once it is released. */
	ret = driver_set_override(&npdev->dev, &npdev->driver_override,
				  HDC_NVME_OVERRIDE, strlen(HDC_NVME_OVERRIDE));
	if (ret) {
		pci_dev_put(npdev);
		return ret;
	}
	if (npdev->dev.driver) {
		dev_info(dev, "taking %s from the %s driver\n", pci_name(npdev),
			 npdev->dev.driver->name);
		device_release_driver(&npdev->dev);
	}
	hd->nvme.pdev = npdev;

	ret = pci_enable_device(npdev);
	if (ret) {
		dev_err(dev, "cannot enable %s: %d\n", pci_name(npdev), ret);
		hdc_nvme_detach(hd);
		return ret;
	}
	hd->nvme.enabled = true;
	pci_set_master(npdev);

	bar = pci_bus_address(npdev, 0);
	hdc_wr(hd, HDC_REG_NVME_BAR_LO, lower_32_bits(bar));
	hdc_wr(hd, HDC_REG_NVME_BAR_HI, upper_32_bits(bar));
	hdc_wr(hd, HDC_REG_NVME_NSID, nvme_nsid);
	hdc_wr(hd, HDC_REG_NVME_CTRL, HDC_NVME_BRINGUP);
	st = hdc_nvme_wait(hd, HDC_NVME_RUNNING, HDC_NVME_TIMEOUT_MS);
	if (st != HDC_NVME_RUNNING) {
		dev_err(dev, "engine could not bring up %s: state %s, error %u\n",
			pci_name(npdev), hdc_nvme_state_str(st),
			hdc_rd(hd, HDC_REG_ERROR));
		hdc_nvme_detach(hd);
		return -EIO;
	}
	hd->nvme.lba_shift = hdc_rd(hd, HDC_REG_NVME_LBA_SHIFT);
	hd->nvme.nsze = hdc_rd(hd, HDC_REG_NVME_NSZE_LO) |
		((u64)hdc_rd(hd, HDC_REG_NVME_NSZE_HI) << 32);
	if (hd->nvme.lba_shift < 9 || hd->nvme.lba_shift > PAGE_SHIFT ||
	    !hd->nvme.nsze) {
		dev_err(dev, "unusable namespace: LBA shift %u, %llu LBAs\n",
			hd->nvme.lba_shift, hd->nvme.nsze);
		hdc_nvme_detach(hd);
		return -EIO;
	}
	hd->nvme.running = true;
	dev_info(dev, "NVMe %s at %pad: namespace %u, %llu LBAs of %u bytes\n",
		 pci_name(npdev), &bar, nvme_nsid, hd->nvme.nsze,
		 1u << hd->nvme.lba_shift);
	return 0;
}

void hdc_nvme_detach(struct hdc_dev *hd)
{
	struct pci_dev *npdev = hd->nvme.pdev;
	u32 st;

	if (!npdev)
		return;
	st = hdc_rd(hd, HDC_REG_NVME_STATUS);
	if (st != HDC_NVME_OFF) {
		hdc_wr(hd, HDC_REG_NVME_CTRL, HDC_NVME_SHUTDOWN);
		st = hdc_nvme_wait(hd, HDC_NVME_OFF, 2000);
		if (st != HDC_NVME_OFF)
			dev_warn(&hd->pdev->dev, "NVMe shutdown left state %s\n",
				 hdc_nvme_state_str(st));
	}
	hd->nvme.running = false;
	if (hd->nvme.enabled) {
		pci_clear_master(npdev);
		pci_disable_device(npdev);
		hd->nvme.enabled = false;
	}
	/* The controller stays unbound; drivers_probe gives it back. */
	driver_set_override(&npdev->dev, &npdev->driver_override, "", 0);
	pci_dev_put(npdev);
	hd->nvme.pdev = NULL;
}
