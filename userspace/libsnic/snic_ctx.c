// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libsnic device and context: registration with libibverbs (PCI match on
 * the snic function), the user context with its mapped doorbell page,
 * device and port queries, protection domains, memory regions and
 * address handles.  Control operations go through snic.ko (ibv_cmd_*);
 * the data path lives in snic_qp.c and snic_cq.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <rdma/ib_user_ioctl_verbs.h>

#include "libsnic.h"

/* The device's firmware string from /sys/class/infiniband/<dev>/fw_ver. */
static int snic_sysfs_fw_ver(struct ibv_device *dev, char *buf, size_t len)
{
	char path[256];
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/fw_ver",
		 ibv_get_device_name(dev));
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, len, f) && buf[0] && buf[0] != '\n') {
		buf[strcspn(buf, "\n")] = 0;
		ret = 0;
	}
	fclose(f);
	return ret;
}

static int snic_query_device(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int ret;

	ret = ibv_cmd_query_device_any(context, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;
	/*
	 * The firmware string the device reports (IDENTIFY), as ethtool -i
	 * and the ib_device's fw_ver attribute show it; if sysfs cannot be
	 * read, the interface version snic.ko reports: major << 16 | minor.
	 */
	if (!snic_sysfs_fw_ver(context->device, attr->orig_attr.fw_ver,
			       sizeof(attr->orig_attr.fw_ver)))
		return 0;
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u", (unsigned int)(fw >> 16) & 0xffff,
		 (unsigned int)fw & 0xffff);
	return 0;
}

/*
 * ibv_query_rt_values_ex: the device clock, in ns (hca_core_clock is
 * SNIC_CLOCK_KHZ), read from the context's doorbell page.  Reading
 * SNIC_DB_CLOCK_LO latches the high half for SNIC_DB_CLOCK_HI.
 */
static int snic_query_rt_values(struct ibv_context *context,
				struct ibv_values_ex *values)
{
	struct snic_context *ctx = to_sctx(context);
	volatile uint32_t *lo, *hi;
	uint64_t ns;

	if (values->comp_mask & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK)
		return EINVAL;
	if (!values->comp_mask)
		return 0;
	lo = (volatile uint32_t *)(ctx->db + SNIC_DB_CLOCK_LO);
	hi = (volatile uint32_t *)(ctx->db + SNIC_DB_CLOCK_HI);
	ns = le32toh(*lo);
	ns |= (uint64_t)le32toh(*hi) << 32;
	values->raw_clock.tv_sec = ns / 1000000000;
	values->raw_clock.tv_nsec = ns % 1000000000;
	return 0;
}

static int snic_query_port(struct ibv_context *context, uint8_t port,
			   struct ibv_port_attr *attr)
{
	struct verbs_cmd_query_port cmd;

	return ibv_cmd_query_port(context, port, attr, &cmd, sizeof(cmd));
}

static struct ibv_pd *snic_alloc_pd(struct ibv_context *context)
{
	struct verbs_cmd_alloc_pd cmd;
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	ret = ibv_cmd_alloc_pd(context, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret)
		return snic_create_failed(pd, ret);
	return pd;
}

static int snic_dealloc_pd(struct ibv_pd *pd)
{
	int ret = ibv_cmd_dealloc_pd(pd);

	if (!ret)
		free(pd);
	return ret;
}

static struct ibv_mr *snic_reg_mr(struct ibv_pd *pd, void *addr,
				  size_t length, uint64_t hca_va, int access)
{
	struct verbs_cmd_reg_mr cmd;
	struct ib_uverbs_reg_mr_resp resp;
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	/* Optional access flags (relaxed ordering): the kernel ignores them. */
	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret)
		return snic_create_failed(vmr, ret);
	return &vmr->ibv_mr;
}

static int snic_dereg_mr(struct verbs_mr *vmr)
{
	int ret = ibv_cmd_dereg_mr(vmr);

	if (!ret)
		free(vmr);
	return ret;
}

/* The kernel resolves the GID into a snic_av; UD WQEs carry a copy. */
static struct ibv_ah *snic_create_ah(struct ibv_pd *pd,
				     struct ibv_ah_attr *attr)
{
	struct snic_create_ah_resp_full resp;
	struct snic_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv, sizeof(resp));
	if (ret)
		return snic_create_failed(ah, ret);
	ah->av = resp.drv.av;
	memcpy(ah->ud6.sip6, resp.drv.sip6, sizeof(ah->ud6.sip6));
	memcpy(ah->ud6.dip6, resp.drv.dip6, sizeof(ah->ud6.dip6));
	return &ah->ibv_ah;
}

static int snic_destroy_ah(struct ibv_ah *ibah)
{
	struct snic_ah *ah = snic_container_of(ibah, struct snic_ah, ibv_ah);
	int ret = ibv_cmd_destroy_ah(ibah);

	if (!ret)
		free(ah);
	return ret;
}

static void snic_free_context(struct ibv_context *ibctx)
{
	struct snic_context *ctx = to_sctx(ibctx);

	if (ctx->db)
		munmap(ctx->db, SNIC_DB_PAGE_SIZE);
	snic_ssq_free_all(ctx);
	pthread_mutex_destroy(&ctx->table_lock);
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

static const struct verbs_context_ops snic_ctx_ops = {
	.alloc_mw = snic_alloc_mw,
	.alloc_pd = snic_alloc_pd,
	.close_xrcd = snic_close_xrcd,
	.attach_mcast = ibv_cmd_attach_mcast,
	.bind_mw = snic_bind_mw,
	.create_ah = snic_create_ah,
	.create_cq = snic_create_cq,
	.create_cq_ex = snic_create_cq_ex,
	.create_qp = snic_create_qp,
	.create_qp_ex = snic_create_qp_ex,
	.create_srq = snic_create_srq,
	.create_srq_ex = snic_create_srq_ex,
	.dealloc_mw = snic_dealloc_mw,
	.dealloc_pd = snic_dealloc_pd,
	.dereg_mr = snic_dereg_mr,
	.destroy_ah = snic_destroy_ah,
	.destroy_cq = snic_destroy_cq,
	.destroy_qp = snic_destroy_qp,
	.destroy_srq = snic_destroy_srq,
	.detach_mcast = ibv_cmd_detach_mcast,
	.free_context = snic_free_context,
	.get_srq_num = snic_get_srq_num,
	.modify_cq = snic_modify_cq,
	.modify_qp = snic_modify_qp,
	.modify_srq = snic_modify_srq,
	.open_qp = snic_open_qp,
	.open_xrcd = snic_open_xrcd,
	.poll_cq = snic_poll_cq,
	.resize_cq = snic_resize_cq,
	.post_recv = snic_post_recv,
	.post_send = snic_post_send,
	.post_srq_recv = snic_post_srq_recv,
	.query_device_ex = snic_query_device,
	.query_port = snic_query_port,
	.query_qp = snic_query_qp,
	.query_rt_values = snic_query_rt_values,
	.query_srq = snic_query_srq,
	.reg_mr = snic_reg_mr,
	.req_notify_cq = snic_req_notify_cq,
};

/*
 * libibverbs copies the data-path operations into the public
 * ibv_context_ops, which applications call inline.  Seeing ours there
 * proves that our idea of verbs_context_ops matches the library's.
 */
/*
 * WQE-by-MMIO for single small send WQEs: when the device takes it
 * (@dev), unless SNIC_MMIO_WQE=0 in the environment (docs/libsnic.md).
 */
static bool snic_mmio_wqe_env(bool dev)
{
	const char *e = getenv("SNIC_MMIO_WQE");

	return dev && !(e && !strcmp(e, "0"));
}

static int snic_check_ops(struct snic_context *ctx)
{
	struct ibv_context_ops *ops = &ctx->vctx.context.ops;

	if (ops->poll_cq != snic_poll_cq || ops->post_send != snic_post_send ||
	    ops->post_recv != snic_post_recv ||
	    ops->req_notify_cq != snic_req_notify_cq ||
	    ops->post_srq_recv != snic_post_srq_recv) {
		fprintf(stderr, "libsnic: libibverbs provider ABI mismatch "
			"(verbs_context_ops layout is not rdma-core 44's)\n");
		return -1;
	}
	return 0;
}

static struct verbs_context *snic_alloc_context(struct ibv_device *ibdev,
						int cmd_fd, void *private_data)
{
	struct verbs_cmd_get_context cmd;
	struct snic_get_context_resp_full resp;
	struct snic_context *ctx;
	void *db;

	(void)private_data;
	/* The library allocates the whole struct; it wants vctx's offset. */
	ctx = _verbs_init_and_alloc_context(ibdev, cmd_fd, sizeof(*ctx),
			(struct verbs_context *)offsetof(struct snic_context, vctx),
			RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;
	pthread_mutex_init(&ctx->table_lock, NULL);
	memset(&resp, 0, sizeof(resp));
	if (ibv_cmd_get_context(&ctx->vctx, &cmd, sizeof(cmd), &resp.ibv,
				sizeof(resp)))
		goto err;
	if (resp.drv.cqe_size != sizeof(struct snic_cqe) ||
	    resp.drv.wqebb_size != SNIC_WQEBB_SIZE) {
		fprintf(stderr, "libsnic: kernel reports CQE %u / WQEBB %u bytes, "
			"provider built for %zu / %u\n", resp.drv.cqe_size,
			resp.drv.wqebb_size, sizeof(struct snic_cqe),
			(unsigned int)SNIC_WQEBB_SIZE);
		errno = EPROTO;
		goto err;
	}
	if (resp.drv.flags & SNIC_UCTX_F_NO_DB) {
		/* no doorbell page (ENOSPC: user contexts hold them all) */
		errno = resp.drv.db_page ? (int)resp.drv.db_page : ENOSPC;
		goto err;
	}
	ctx->db_page = resp.drv.db_page;
	ctx->max_inline = resp.drv.max_inline;
	ctx->max_sge = resp.drv.max_sge;
	ctx->mmio_wqe = snic_mmio_wqe_env(resp.drv.flags & SNIC_UCTX_F_MMIO_WQE);
	db = mmap(NULL, SNIC_DB_PAGE_SIZE, PROT_WRITE, MAP_SHARED, cmd_fd,
		  resp.drv.db_mmap_key);
	if (db == MAP_FAILED)
		goto err;
	ctx->db = db;
	verbs_set_ops(&ctx->vctx, &snic_ctx_ops);
	if (snic_check_ops(ctx)) {
		errno = EPROTO;
		goto err;
	}
	return &ctx->vctx;

err:
	if (ctx->db)
		munmap(ctx->db, SNIC_DB_PAGE_SIZE);
	snic_ssq_free_all(ctx);
	pthread_mutex_destroy(&ctx->table_lock);
	verbs_uninit_context(&ctx->vctx);
	free(ctx);
	return NULL;
}

static struct verbs_device *snic_alloc_device(struct verbs_sysfs_dev *sdev)
{
	struct snic_device *dev;

	(void)sdev;
	dev = calloc(1, sizeof(*dev));
	/* libibverbs frees it through snic_uninit_device (container_of) */
	/* cppcheck-suppress memleak */
	return dev ? &dev->vdev : NULL;
}

static void snic_uninit_device(struct verbs_device *vdev)
{
	free(snic_container_of(vdev, struct snic_device, vdev));
}

static const struct verbs_match_ent snic_match_table[] = {
	{ .vendor = SNIC_PCI_VENDOR_ID, .device = SNIC_PCI_DEVICE_ID,
	  .kind = VERBS_MATCH_PCI },
	{ .kind = VERBS_MATCH_SENTINEL },
};

static const struct verbs_device_ops snic_dev_ops = {
	.name = "snic",
	.match_min_abi_version = SNIC_UVERBS_ABI_VERSION,
	.match_max_abi_version = SNIC_UVERBS_ABI_VERSION,
	.match_table = snic_match_table,
	.alloc_device = snic_alloc_device,
	.uninit_device = snic_uninit_device,
	.alloc_context = snic_alloc_context,
};

/* dlopen() by libibverbs runs this: hand it our device operations. */
static void __attribute__((constructor)) snic_register(void)
{
	verbs_register_driver_34(&snic_dev_ops);
}
