// SPDX-License-Identifier: GPL-2.0
/*
 * fld.ko: sysfs attributes of the PCI device, read and written by fldctl:
 *   stats      every device counter, "name value" per line
 *   mem_table  the memory table: row, FLD bytes, conventional bytes,
 *              bytes this instance allocated
 *   queues     FLD-E's snic queues (a line per tenant), pools
 *   errors     device errors, error interrupts, the last error
 *   udp_port   the UDP port steered to FLD-E (write 0 to stop steering)
 *   vxlan_vni  VXLAN VNI whose frames the NIC decapsulates to FLD-E (the
 *              defrag accelerator's input; write 0 to stop)
 *   accel      the accelerator this instance runs
 *   nic_stats  snic's counters of FLD-E's SQs and RQs, PCIe traffic
 *              included (what the NIC moved to and from FLD for them)
 *   tenants    per tenant: port, flow tag, rate, FLD's per-RQ admission
 *              counters and snic's SQ/RQ packet and byte counters
 *   rate       RW: "TENANT BPS" sets tenant's SQ rate limit (0: none)
 *   key        WO: "INDEX HEX" sets accelerator key INDEX (iotauth: the
 *              tenant's HMAC key, INDEX = the flow tag), "INDEX -" removes it
 */
#include <linux/capability.h>
#include <linux/device.h>
#include <linux/sysfs.h>
#include <linux/string.h>
#include <linux/kernel.h>
#include "fld.h"

static const char *const fld_stat_names[] = { FLD_STATS(FLD_STAT_NAME) };

static const char *const fld_mem_names[FLD_MEM_NROWS] = {
	"tx_ring", "tx_ring_map", "tx_buffers", "tx_buffer_map",
	"rx_buffers", "cqs", "rq_ring", "producer_indices", "total",
};

static struct fld_dev *to_fld(struct device *dev)
{
	return pci_get_drvdata(to_pci_dev(dev));
}

static ssize_t stats_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct fld_dev *fd = to_fld(dev);
	int i, n = 0;

	BUILD_BUG_ON(ARRAY_SIZE(fld_stat_names) != FLD_STAT_COUNT);
	for (i = 0; i < FLD_STAT_COUNT; i++)
		n += sysfs_emit_at(buf, n, "%s %llu\n", fld_stat_names[i],
				   fld_rd64(fd, FLD_REG_STATS + 8 * i));
	return n;
}
static DEVICE_ATTR_RO(stats);

static ssize_t mem_table_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct fld_dev *fd = to_fld(dev);
	int i, n = 0;

	for (i = 0; i < FLD_MEM_NROWS; i++) {
		u32 r = FLD_REG_MEM + i * FLD_MEM_ROW_SIZE;

		n += sysfs_emit_at(buf, n, "%s %llu %llu %llu\n",
				   fld_mem_names[i], fld_rd64(fd, r),
				   fld_rd64(fd, r + 8), fld_rd64(fd, r + 16));
	}
	return n;
}
static DEVICE_ATTR_RO(mem_table);

static ssize_t queues_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct fld_dev *fd = to_fld(dev);
	struct fld_flde *e = &fd->e;
	unsigned int k;
	u32 descs, bytes;
	int n = 0;

	mutex_lock(&fd->lock);
	for (k = 0; e->up && k < e->ntenants; k++)
		n += sysfs_emit_at(buf, n,
				   "flde snic_cq %u snic_sq %u snic_rq %u rule %d udp_port %u tenant %u\n",
				   e->q[k].cq.qn, e->q[k].sq.qn, e->q[k].rq.qn,
				   e->q[k].have_rule ? (int)e->q[k].rule_id : -1,
				   e->udp_port ? e->udp_port + k : 0,
				   (e->tenant + k) & FLD_MAX_FLOW_TAG);
	/* FLD-E tenant k sends on SQ slot k */
	for (k = 0; e->up && k < e->ntenants; k++) {
		fld_sq_credits(fd, k, &descs, &bytes);
		n += sysfs_emit_at(buf, n,
				   "flde_credits tenant %u descs %u bytes %u\n",
				   k, descs, bytes);
	}
	if (e->up)
		n += sysfs_emit_at(buf, n,
				   "flde_pcie tx_signal %u mmio_wqe %d mini_cqe %d\n",
				   e->knobs.tx_signal, e->knobs.mmio_wqe,
				   e->knobs.mini_cqe);
	if (!e->up)
		n += sysfs_emit_at(buf, n, "flde down\n");
	else if (e->loopback)
		n += sysfs_emit_at(buf, n, "flde loopback\n");
	n += sysfs_emit_at(buf, n,
			   "sq_ring %u rq_buffers %u x %u strides of %u B\n",
			   1u << FLDE_SQ_LOG, 1u << FLDE_RQ_LOG,
			   1u << FLDE_LOG_NSTR, 1u << FLDE_LOG_STRIDE);
	n += sysfs_emit_at(buf, n, "pool_descs %u in_use %u\n",
			   fld_rd(fd, FLD_REG_POOL_DESCS),
			   fld_rd(fd, FLD_REG_POOL_IN_USE));
	n += sysfs_emit_at(buf, n, "pool_blocks %u of %u B in_use %u\n",
			   fld_rd(fd, FLD_REG_POOL_BLOCKS),
			   fld_rd(fd, FLD_REG_BLOCK_SIZE),
			   fld_rd(fd, FLD_REG_BLOCKS_IN_USE));
	n = fld_fldr_show(fd, buf, n);
	mutex_unlock(&fd->lock);
	return n;
}
static DEVICE_ATTR_RO(queues);

static ssize_t errors_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct fld_dev *fd = to_fld(dev);

	return sysfs_emit(buf, "count %u irqs %lld last %u info %#x\n",
			  fld_rd(fd, FLD_REG_ERROR_COUNT),
			  (long long)atomic64_read(&fd->err_irqs),
			  fd->last_error, fd->last_info);
}
static DEVICE_ATTR_RO(errors);

static ssize_t accel_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	static const char *const names[] = {
		[FLD_ACCEL_NONE] = "none", [FLD_ACCEL_ECHO] = "echo",
		[FLD_ACCEL_ZUC] = "zuc", [FLD_ACCEL_DEFRAG] = "defrag",
		[FLD_ACCEL_IOTAUTH] = "iotauth",
	};
	u32 a = fld_rd(to_fld(dev), FLD_REG_ACCEL);

	return sysfs_emit(buf, "accel %s\n",
			  a < ARRAY_SIZE(names) ? names[a] : "unknown");
}
static DEVICE_ATTR_RO(accel);

static int nic_line(char *buf, int n, const char *name,
		    const struct snic_queue_stats *q)
{
	return sysfs_emit_at(buf, n,
			     "%s packets %llu bytes %llu errors %llu drops %llu doorbells %llu dma_reads %llu dma_read_bytes %llu dma_writes %llu dma_write_bytes %llu tlps %llu tlp_bytes %llu mmio_writes %llu mmio_write_bytes %llu\n",
			     name, le64_to_cpu(q->packets), le64_to_cpu(q->bytes),
			     le64_to_cpu(q->errors), le64_to_cpu(q->drops),
			     le64_to_cpu(q->doorbells),
			     le64_to_cpu(q->pcie.dma_reads),
			     le64_to_cpu(q->pcie.dma_read_bytes),
			     le64_to_cpu(q->pcie.dma_writes),
			     le64_to_cpu(q->pcie.dma_write_bytes),
			     le64_to_cpu(q->pcie.tlps),
			     le64_to_cpu(q->pcie.tlp_bytes),
			     le64_to_cpu(q->pcie.mmio_writes),
			     le64_to_cpu(q->pcie.mmio_write_bytes));
}

/* "sq" / "rq" for tenant 0 (the names tools read), "sqK" / "rqK" after. */
static void fld_tenant_qname(char *name, size_t size, const char *kind,
			     unsigned int k)
{
	if (k)
		snprintf(name, size, "%s%u", kind, k);
	else
		strscpy(name, kind, size);
}

static ssize_t nic_stats_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct fld_dev *fd = to_fld(dev);
	struct fld_flde *e = &fd->e;
	struct snic_queue_stats q;
	int n = 0, ret = 0;
	unsigned int k;

	mutex_lock(&fd->lock);
	if (!e->up) {
		ret = -ENODEV;
		goto out;
	}
	/* tenant 0's lines are "sq" and "rq", tenant k's "sqK" and "rqK" */
	for (k = 0; k < e->ntenants; k++) {
		char name[8];

		ret = snic_peer_query_stats(e->snic, SNIC_STATS_SQ,
					    e->q[k].sq.qn, &q);
		if (ret)
			goto out;
		fld_tenant_qname(name, sizeof(name), "sq", k);
		n += nic_line(buf, n, name, &q);
		ret = snic_peer_query_stats(e->snic, SNIC_STATS_RQ,
					    e->q[k].rq.qn, &q);
		if (ret)
			goto out;
		fld_tenant_qname(name, sizeof(name), "rq", k);
		n += nic_line(buf, n, name, &q);
	}
out:
	mutex_unlock(&fd->lock);
	return ret ? ret : n;
}
static DEVICE_ATTR_RO(nic_stats);

/*
 * Per tenant: its port, flow tag and rate; FLD's admission counters of its
 * RQ slot (enum fld_rq_stat); snic's counters of its SQ and RQ.
 */
static ssize_t tenants_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct fld_dev *fd = to_fld(dev);
	struct fld_flde *e = &fd->e;
	struct snic_queue_stats sq, rq;
	unsigned int k;
	int n = 0, ret = 0;

	mutex_lock(&fd->lock);
	if (!e->up) {
		ret = -ENODEV;
		goto out;
	}
	for (k = 0; k < e->ntenants; k++) {
		u32 r = FLD_REG_RQ_STATS + k * FLD_RQ_STATS_SIZE;

		ret = snic_peer_query_stats(e->snic, SNIC_STATS_SQ,
					    e->q[k].sq.qn, &sq);
		if (!ret)
			ret = snic_peer_query_stats(e->snic, SNIC_STATS_RQ,
						    e->q[k].rq.qn, &rq);
		if (ret)
			goto out;
		n += sysfs_emit_at(buf, n,
				   "tenant %u udp_port %u tag %u rate_bps %llu accel_rx %llu accel_drops %llu accel_tx %llu held %llu sq_packets %llu sq_bytes %llu rq_packets %llu rq_drops %llu\n",
				   k, e->udp_port ? e->udp_port + k : 0,
				   (e->tenant + k) & FLD_MAX_FLOW_TAG,
				   e->q[k].rate_bps,
				   fld_rd64(fd, r + 8 * FLD_RQ_STAT_ACCEL_RX),
				   fld_rd64(fd, r + 8 * FLD_RQ_STAT_ACCEL_DROPS),
				   fld_rd64(fd, r + 8 * FLD_RQ_STAT_ACCEL_TX),
				   fld_rd64(fd, r + 8 * FLD_RQ_STAT_HELD),
				   le64_to_cpu(sq.packets), le64_to_cpu(sq.bytes),
				   le64_to_cpu(rq.packets), le64_to_cpu(rq.drops));
	}
out:
	mutex_unlock(&fd->lock);
	return ret ? ret : n;
}
static DEVICE_ATTR_RO(tenants);

/*
 * Writable attributes change how the NIC steers and paces traffic (ports,
 * VNI, rates) or hold a secret (keys): beyond the file mode (root), the
 * writer needs CAP_NET_ADMIN, as for a netdev's own sysfs settings.
 */
static int fld_store_allowed(void)
{
	return capable(CAP_NET_ADMIN) ? 0 : -EPERM;
}

static ssize_t rate_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct fld_dev *fd = to_fld(dev);
	unsigned int k;
	int n = 0;

	mutex_lock(&fd->lock);
	for (k = 0; fd->e.up && k < fd->e.ntenants; k++)
		n += sysfs_emit_at(buf, n, "%u %llu\n", k, fd->e.q[k].rate_bps);
	mutex_unlock(&fd->lock);
	return n;
}

static ssize_t rate_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	struct fld_dev *fd = to_fld(dev);
	unsigned int k;
	u64 bps;
	int ret;

	ret = fld_store_allowed();
	if (ret)
		return ret;
	if (sscanf(buf, "%u %llu", &k, &bps) != 2)
		return -EINVAL;
	mutex_lock(&fd->lock);
	ret = fld_flde_set_rate(fd, k, bps);
	mutex_unlock(&fd->lock);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(rate);

static ssize_t udp_port_show(struct device *dev,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_fld(dev)->e.udp_port);
}

/* A port number written to sysfs, applied by @set under the device lock. */
static ssize_t fld_store_port(struct device *dev, const char *buf,
			      size_t count,
			      int (*set)(struct fld_dev *fd, u16 port))
{
	struct fld_dev *fd = to_fld(dev);
	u16 port;
	int ret;

	ret = fld_store_allowed();
	if (ret)
		return ret;
	ret = kstrtou16(buf, 0, &port);
	if (ret)
		return ret;
	mutex_lock(&fd->lock);
	ret = set(fd, port);
	mutex_unlock(&fd->lock);
	return ret ? ret : count;
}

static ssize_t udp_port_store(struct device *dev,
			      struct device_attribute *attr, const char *buf,
			      size_t count)
{
	return fld_store_port(dev, buf, count, fld_flde_set_port);
}
static DEVICE_ATTR_RW(udp_port);

static ssize_t rdma_port_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_fld(dev)->r.port);
}

static int fld_set_rdma_port(struct fld_dev *fd, u16 port)
{
	return fld_fldr_set_port(fd, port);
}

/* FLD-R's rdma_cm port: connections dropped, listening again; 0: off. */
static ssize_t rdma_port_store(struct device *dev,
			       struct device_attribute *attr, const char *buf,
			       size_t count)
{
	return fld_store_port(dev, buf, count, fld_set_rdma_port);
}
static DEVICE_ATTR_RW(rdma_port);

static ssize_t vxlan_vni_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_fld(dev)->e.vni);
}

static ssize_t vxlan_vni_store(struct device *dev,
			       struct device_attribute *attr, const char *buf,
			       size_t count)
{
	struct fld_dev *fd = to_fld(dev);
	u32 vni;
	int ret;

	ret = fld_store_allowed();
	if (ret)
		return ret;
	ret = kstrtou32(buf, 0, &vni);
	if (ret)
		return ret;
	mutex_lock(&fd->lock);
	ret = fld_flde_set_vni(fd, vni);
	mutex_unlock(&fd->lock);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(vxlan_vni);

static ssize_t key_store(struct device *dev, struct device_attribute *attr,
			 const char *buf, size_t count)
{
	struct fld_dev *fd = to_fld(dev);
	u8 key[FLD_KEY_MAX] = {};
	char hex[2 * FLD_KEY_MAX + 2];
	u32 a[8], idx, c, i;
	size_t len = 0;
	int ret;

	ret = fld_store_allowed();
	if (ret)
		return ret;
	if (sscanf(buf, "%u %129s", &idx, hex) != 2 || idx >= FLD_NUM_KEYS)
		ret = -EINVAL;
	if (!ret && strcmp(hex, "-")) {
		len = strlen(hex);
		if (len % 2 || len / 2 > FLD_KEY_MAX || !len ||
		    hex2bin(key, hex, len / 2))
			ret = -EINVAL;
		len /= 2;
	}
	memzero_explicit(hex, sizeof(hex));
	if (ret) {
		memzero_explicit(key, sizeof(key));
		return ret;
	}
	mutex_lock(&fd->lock);
	c = 0;
	do {
		memset(a, 0, sizeof(a));
		a[0] = idx;
		a[1] = c | len << 8;
		for (i = 0; i < FLD_KEY_CHUNK && c * FLD_KEY_CHUNK + i < len; i++)
			a[2 + i / 4] |= (u32)key[c * FLD_KEY_CHUNK + i] << (8 * (i % 4));
		ret = fld_cmd(fd, FLD_CMD_KEY_SET, a, 8, NULL);
		c++;
	} while (!ret && c * FLD_KEY_CHUNK < len);
	mutex_unlock(&fd->lock);
	memzero_explicit(key, sizeof(key));
	return ret ? ret : count;
}
static DEVICE_ATTR_WO(key);

static struct attribute *fld_attrs[] = {
	&dev_attr_stats.attr,
	&dev_attr_mem_table.attr,
	&dev_attr_queues.attr,
	&dev_attr_errors.attr,
	&dev_attr_udp_port.attr,
	&dev_attr_rdma_port.attr,
	&dev_attr_vxlan_vni.attr,
	&dev_attr_accel.attr,
	&dev_attr_nic_stats.attr,
	&dev_attr_key.attr,
	&dev_attr_tenants.attr,
	&dev_attr_rate.attr,
	NULL,
};

static const struct attribute_group fld_group = {
	.attrs = fld_attrs,
};

const struct attribute_group *fld_groups[] = {
	&fld_group,
	NULL,
};
