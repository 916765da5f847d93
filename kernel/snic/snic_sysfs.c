// SPDX-License-Identifier: GPL-2.0
/*
 * snic sysfs attributes on the PCI device: what IDENTIFY reported and the
 * admin queue's counters.
 */
#include <linux/sysfs.h>
#include "snic.h"

static struct snic_dev *to_snic(struct device *dev)
{
	return pci_get_drvdata(to_pci_dev(dev));
}

static ssize_t fw_version_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_snic(dev)->id.fw_version);
}
static DEVICE_ATTR_RO(fw_version);

static ssize_t hw_version_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	u32 v = le32_to_cpu(to_snic(dev)->id.version);

	return sysfs_emit(buf, "%u.%u\n", v >> 16, v & 0xffff);
}
static DEVICE_ATTR_RO(hw_version);

static ssize_t caps_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%#llx\n", le64_to_cpu(to_snic(dev)->id.caps));
}
static DEVICE_ATTR_RO(caps);

static ssize_t serial_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n", to_snic(dev)->id.serial);
}
static DEVICE_ATTR_RO(serial);

static ssize_t admin_stats_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct snic_aq *aq = &to_snic(dev)->aq;

	return sysfs_emit(buf, "cmds %llu\nerrors %llu\ntimeouts %llu\n",
			  aq->cmds, aq->errors, aq->timeouts);
}
static DEVICE_ATTR_RO(admin_stats);

static ssize_t db_pages_show(struct device *dev,
			     struct device_attribute *attr, char *buf)
{
	struct snic_dev *sd = to_snic(dev);

	return sysfs_emit(buf, "total %u\nused %u\nkernel_reserve %u\nuser_refused %lld\n",
			  SNIC_DB_PAGES, snic_db_pages_used(sd),
			  SNIC_DB_KERNEL_RESERVE,
			  (long long)atomic64_read(&sd->db_user_refused));
}
static DEVICE_ATTR_RO(db_pages);

static ssize_t pin_refused_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  (long long)atomic64_read(&to_snic(dev)->pin_refused));
}
static DEVICE_ATTR_RO(pin_refused);

static struct attribute *snic_attrs[] = {
	&dev_attr_fw_version.attr,
	&dev_attr_hw_version.attr,
	&dev_attr_caps.attr,
	&dev_attr_serial.attr,
	&dev_attr_admin_stats.attr,
	&dev_attr_db_pages.attr,
	&dev_attr_pin_refused.attr,
	NULL,
};

static const struct attribute_group snic_attr_group = {
	.attrs = snic_attrs,
};

const struct attribute_group *snic_dev_groups[] = {
	&snic_attr_group,
	NULL,
};
