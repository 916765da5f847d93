// SPDX-License-Identifier: GPL-2.0
/*
 * hdc sysfs attributes on the misc device, /sys/class/misc/hdc/: what the
 * engine offers, its NVMe controller, and statistics in stats/ (the
 * driver's request counters and the device's HDC_REG_STAT_* registers).
 */
#include <linux/sysfs.h>
#include "hdc.h"

static struct hdc_dev *to_hdc(struct device *dev)
{
	struct miscdevice *misc = dev_get_drvdata(dev);

	return container_of(misc, struct hdc_dev, misc);
}

static ssize_t version_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	u32 v = to_hdc(dev)->version;

	return sysfs_emit(buf, "%u.%u\n", v >> 16, v & 0xffff);
}
static DEVICE_ATTR_RO(version);

static ssize_t caps_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%#x\n", to_hdc(dev)->caps);
}
static DEVICE_ATTR_RO(caps);

static ssize_t buf_size_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%u\n", to_hdc(dev)->buf_size);
}
static DEVICE_ATTR_RO(buf_size);

static ssize_t nvme_state_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  hdc_nvme_state_str(hdc_rd(to_hdc(dev),
						    HDC_REG_NVME_STATUS)));
}
static DEVICE_ATTR_RO(nvme_state);

static ssize_t nvme_pci_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct hdc_dev *hd = to_hdc(dev);

	return sysfs_emit(buf, "%s\n",
			  hd->nvme.pdev ? pci_name(hd->nvme.pdev) : "none");
}
static DEVICE_ATTR_RO(nvme_pci);

static ssize_t lba_size_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct hdc_dev *hd = to_hdc(dev);

	return sysfs_emit(buf, "%u\n",
			  hd->nvme.running ? 1u << hd->nvme.lba_shift : 0);
}
static DEVICE_ATTR_RO(lba_size);

static ssize_t nvme_lbas_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%llu\n", to_hdc(dev)->nvme.nsze);
}
static DEVICE_ATTR_RO(nvme_lbas);

static ssize_t nvme_disk_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	struct hdc_dev *hd = to_hdc(dev);
	ssize_t n;

	mutex_lock(&hd->bdev_lock);
	n = sysfs_emit(buf, "%s\n", hd->disk_name);
	mutex_unlock(&hd->bdev_lock);
	return n;
}
static DEVICE_ATTR_RO(nvme_disk);

static ssize_t error_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct hdc_dev *hd = to_hdc(dev);

	return sysfs_emit(buf, "%u %u\n", hdc_rd(hd, HDC_REG_ERROR),
			  hdc_rd(hd, HDC_REG_ERROR_COUNT));
}
static DEVICE_ATTR_RO(error);

/* The port a receive steers to the engine now, 0 if none. */
static ssize_t nic_rx_port_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_hdc(dev)->nic.rx_port));
}
static DEVICE_ATTR_RO(nic_rx_port);

static struct attribute *hdc_attrs[] = {
	&dev_attr_version.attr,
	&dev_attr_caps.attr,
	&dev_attr_buf_size.attr,
	&dev_attr_nvme_state.attr,
	&dev_attr_nvme_pci.attr,
	&dev_attr_lba_size.attr,
	&dev_attr_nvme_lbas.attr,
	&dev_attr_nvme_disk.attr,
	&dev_attr_error.attr,
	&dev_attr_nic_rx_port.attr,
	NULL,
};

static const struct attribute_group hdc_attr_group = {
	.attrs = hdc_attrs,
};

/* A driver counter: the attribute's var is the field's offset. */
static ssize_t hdc_stat_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct dev_ext_attribute *ea = container_of(attr, struct dev_ext_attribute,
						    attr);
	struct hdc_dev *hd = to_hdc(dev);
	unsigned long flags;
	u64 v;

	hdc_stats_sync(hd);
	spin_lock_irqsave(&hd->stat_lock, flags);
	v = *(u64 *)((void *)hd + (unsigned long)ea->var);
	spin_unlock_irqrestore(&hd->stat_lock, flags);
	return sysfs_emit(buf, "%llu\n", v);
}

/* A statistic register of the engine: the attribute's var is it. */
static ssize_t hdc_reg_stat_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct dev_ext_attribute *ea = container_of(attr, struct dev_ext_attribute,
						    attr);

	return sysfs_emit(buf, "%u\n",
			  hdc_rd(to_hdc(dev), (unsigned long)ea->var));
}

#define HDC_STAT(_attr, _field)						\
	{ __ATTR(_attr, 0444, hdc_stat_show, NULL),			\
	  (void *)offsetof(struct hdc_dev, _field) }
#define HDC_REG_STAT(_attr, _reg)					\
	{ __ATTR(_attr, 0444, hdc_reg_stat_show, NULL),			\
	  (void *)(unsigned long)(_reg) }

/*
 * stats/, one row per file: the driver's counters (64 bit, fields of
 * struct hdc_dev), then the engine's statistic registers (32 bit).
 */
static struct dev_ext_attribute hdc_stats[] = {
	HDC_STAT(requests, requests),
	HDC_STAT(errors, errors),
	HDC_STAT(bytes_in, bytes_in),
	HDC_STAT(bytes_out, bytes_out),
	HDC_STAT(dev_cmds, dev_cmds),
	HDC_STAT(nvme_cmds, nvme_cmds),
	HDC_STAT(mem_refused, mem_refused),
	HDC_STAT(tcp_sends, tcp_sends),
	HDC_STAT(tcp_recvs, tcp_recvs),
	HDC_STAT(tcp_resets, tcp_resets),
	HDC_REG_STAT(cmds, HDC_REG_STAT_CMDS),
	HDC_REG_STAT(dev_errs, HDC_REG_STAT_ERRS),
	HDC_REG_STAT(nvme_errs, HDC_REG_STAT_NVME_ERRS),
	HDC_REG_STAT(rd_kib, HDC_REG_STAT_RD_KIB),
	HDC_REG_STAT(wr_kib, HDC_REG_STAT_WR_KIB),
	HDC_REG_STAT(fn_kib, HDC_REG_STAT_FN_KIB),
	HDC_REG_STAT(dev_inflight, HDC_REG_STAT_INFLIGHT),
	HDC_REG_STAT(bad_doorbells, HDC_REG_STAT_BAD_DB),
	HDC_REG_STAT(dma_errs, HDC_REG_STAT_DMA_ERRS),
	HDC_REG_STAT(bad_regs, HDC_REG_STAT_BAD_REG),
	HDC_REG_STAT(nic_tx, HDC_REG_STAT_NIC_TX),
	HDC_REG_STAT(nic_errs, HDC_REG_STAT_NIC_ERRS),
	HDC_REG_STAT(nic_rx, HDC_REG_STAT_NIC_RX),
	HDC_REG_STAT(nic_rx_drop, HDC_REG_STAT_NIC_RX_DROP),
	HDC_REG_STAT(tcp_acks, HDC_REG_STAT_TCP_ACKS),
	HDC_REG_STAT(tcp_rexmit, HDC_REG_STAT_TCP_REXMIT),
	HDC_REG_STAT(tcp_rto, HDC_REG_STAT_TCP_RTO),
	HDC_REG_STAT(tcp_dupacks, HDC_REG_STAT_TCP_DUPACK),
	HDC_REG_STAT(tcp_rx_segs, HDC_REG_STAT_TCP_RX),
	HDC_REG_STAT(tcp_rx_ooo, HDC_REG_STAT_TCP_RX_OOO),
	HDC_REG_STAT(tcp_rx_acks, HDC_REG_STAT_TCP_RX_ACK),
};

static ssize_t user_mem_kib_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	long pages = atomic_long_read(&to_hdc(dev)->user_pages);

	return sysfs_emit(buf, "%ld\n", pages << (PAGE_SHIFT - 10));
}
static DEVICE_ATTR_RO(user_mem_kib);

static ssize_t inflight_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&to_hdc(dev)->inflight));
}
static DEVICE_ATTR_RO(inflight);

/* The table's rows, user_mem_kib, inflight, the end: hdc_sysfs_init(). */
static struct attribute *hdc_stat_attrs[ARRAY_SIZE(hdc_stats) + 3];

void hdc_sysfs_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hdc_stats); i++)
		hdc_stat_attrs[i] = &hdc_stats[i].attr.attr;
	hdc_stat_attrs[i++] = &dev_attr_user_mem_kib.attr;
	hdc_stat_attrs[i] = &dev_attr_inflight.attr;
}

static const struct attribute_group hdc_stat_group = {
	.name = "stats",
	.attrs = hdc_stat_attrs,
};

const struct attribute_group *hdc_misc_groups[] = {
	&hdc_attr_group,
	&hdc_stat_group,
	NULL,
};
