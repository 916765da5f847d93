// SPDX-License-Identifier: GPL-2.0
/*
 * snic RDMA: protection domains and memory regions.
 *
 * CREATE_MR takes a struct snic_mr_cfg and a list of le64 bus addresses
 * of equal-sized pages: user MRs get it from their pinned ib_umem, fast
 * registration MRs (alloc_mr) start invalid and get their pages from a
 * REG_MR WQE that points at the list map_mr_sg filled; the DMA MR is a
 * PHYS MR (iova = bus address) for kernel users only.  A key is the MR's
 * table index << 8 | a tag the driver chooses.
 */
#include <linux/dma-mapping.h>
#include <rdma/iter.h>
#include "snic_ib.h"

int snic_ib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct snic_ib_dev *ibd = to_sibdev(ibpd->device);
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_CREATE_PD };
	u64 pdn;
	int ret;

	ret = snic_aq_exec(ibd->sd, &cmd, &pdn);
	if (ret)
		return ret;
	to_sibpd(ibpd)->pdn = pdn;
	return 0;
}

/*
 * A PD holds no host memory: if the device cannot destroy it (its admin
 * queue is broken) the number is leaked on the device and the PD is gone
 * for the host.  Only EBUSY (objects still use it) is an answer: the core
 * treats any failure of a kernel PD as a driver bug.
 */
int snic_ib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct snic_ib_dev *ibd = to_sibdev(ibpd->device);
	u32 pdn = to_sibpd(ibpd)->pdn;
	int ret;

	ret = snic_cmd_destroy(ibd->sd, SNIC_AQ_DESTROY_PD, pdn);
	if (ret == -EBUSY)
		return ret;
	if (ret)
		dev_warn(&ibd->sd->pdev->dev, "DESTROY_PD %u failed: %d\n",
			 pdn, ret);
	return 0;
}

u8 snic_ib_next_tag(struct snic_ib_dev *ibd)
{
	return atomic_inc_return(&ibd->key_tag);
}

static int snic_ib_pages_alloc(struct snic_ib_dev *ibd, struct snic_ib_mr *mr,
			       u32 n)
{
	mr->max_pages = n;
	if (!n)
		return 0;
	mr->pages = dma_alloc_coherent(&ibd->sd->pdev->dev,
				       (size_t)n * sizeof(__le64),
				       &mr->pages_dma, GFP_KERNEL);
	return mr->pages ? 0 : -ENOMEM;
}

static void snic_ib_pages_free(struct snic_ib_dev *ibd, struct snic_ib_mr *mr)
{
	if (mr->pages)
		dma_free_coherent(&ibd->sd->pdev->dev,
				  (size_t)mr->max_pages * sizeof(__le64),
				  mr->pages, mr->pages_dma);
	mr->pages = NULL;
}

/* CREATE_MR; sets lkey/rkey. */
static int snic_ib_mr_create(struct snic_ib_dev *ibd, struct snic_ib_mr *mr,
			     u32 pdn, int access, u32 flags, u64 iova,
			     u64 length, u8 page_shift)
{
	struct snic_mr_cfg cfg = {};
	u64 key;
	int ret;

	cfg.pdn = cpu_to_le32(pdn);
	cfg.access = cpu_to_le32(access & (SNIC_ACCESS_LOCAL_WRITE |
					   SNIC_ACCESS_REMOTE_WRITE |
					   SNIC_ACCESS_REMOTE_READ |
					   SNIC_ACCESS_REMOTE_ATOMIC |
					   SNIC_ACCESS_MW_BIND));
	cfg.flags = cpu_to_le32(flags);
	cfg.key_tag = cpu_to_le32(snic_ib_next_tag(ibd));
	cfg.iova = cpu_to_le64(iova);
	cfg.length = cpu_to_le64(length);
	cfg.pas_addr = cpu_to_le64(mr->pages ? mr->pages_dma : 0);
	cfg.npages = cpu_to_le32(flags & SNIC_MR_F_FAST_REG ? mr->max_pages :
				 mr->npages);
	cfg.page_shift = page_shift;
	ret = snic_aq_exec_buf(ibd->sd, SNIC_AQ_CREATE_MR, 0, 0, &cfg,
			       sizeof(cfg), &key);
	if (ret)
		return ret;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->live = true;
	return 0;
}

/* IB access flags share bit positions with SNIC_ACCESS_*. */
static_assert(IB_ACCESS_LOCAL_WRITE == SNIC_ACCESS_LOCAL_WRITE);
static_assert(IB_ACCESS_REMOTE_WRITE == SNIC_ACCESS_REMOTE_WRITE);
static_assert(IB_ACCESS_REMOTE_READ == SNIC_ACCESS_REMOTE_READ);
static_assert(IB_ACCESS_REMOTE_ATOMIC == SNIC_ACCESS_REMOTE_ATOMIC);
static_assert(IB_ACCESS_MW_BIND == SNIC_ACCESS_MW_BIND);

struct ib_mr *snic_ib_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct snic_ib_dev *ibd = to_sibdev(ibpd->device);
	struct snic_ib_mr *mr;
	int ret;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	/* Whole bus address space, no translation (kernel PDs only). */
	ret = snic_ib_mr_create(ibd, mr, to_sibpd(ibpd)->pdn, access,
				SNIC_MR_F_PHYS, 0, U64_MAX, PAGE_SHIFT);
	if (ret) {
		kfree(mr);
		return ERR_PTR(ret);
	}
	return &mr->ibmr;
}

struct ib_mr *snic_ib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 iova, int access, struct ib_udata *udata)
{
	struct snic_ib_dev *ibd = to_sibdev(ibpd->device);
	struct ib_block_iter biter;
	struct snic_ib_mr *mr;
	unsigned long pgsz;
	size_t n;
	u32 i = 0;
	int ret;

	/* Optional flags (relaxed ordering, ...) are hints: ignored. */
	if (!length || length > (u64)SNIC_MAX_MSG_SIZE * 2 ||
	    (access & ~(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |
			IB_ACCESS_MW_BIND | IB_ACCESS_OPTIONAL)))
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	/* Fails for ranges the process has not mapped. */
	mr->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		ret = PTR_ERR(mr->umem);
		goto err_free;
	}
	pgsz = ib_umem_find_best_pgsz(mr->umem, GENMASK(30, 12), iova);
	n = pgsz ? ib_umem_num_dma_blocks(mr->umem, pgsz) : 0;
	if (!n || n > SNIC_MAX_MR_PAGES) {
		ret = -EINVAL;
		goto err_umem;
	}
	ret = snic_ib_pages_alloc(ibd, mr, n);
	if (ret)
		goto err_umem;
	rdma_umem_for_each_dma_block(mr->umem, &biter, pgsz)
		mr->pages[i++] = cpu_to_le64(rdma_block_iter_dma_address(&biter));
	mr->npages = i;
	ret = snic_ib_mr_create(ibd, mr, to_sibpd(ibpd)->pdn, access, 0, iova,
				length, ilog2(pgsz));
	if (ret)
		goto err_pages;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = pgsz;
	return &mr->ibmr;

err_pages:
	snic_ib_pages_free(ibd, mr);
err_umem:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(ret);
}

struct ib_mr *snic_ib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			       u32 max_num_sg)
{
	struct snic_ib_dev *ibd = to_sibdev(ibpd->device);
	struct snic_ib_mr *mr;
	int ret;

	if (type != IB_MR_TYPE_MEM_REG || !max_num_sg ||
	    max_num_sg > SNIC_IB_MAX_FRPL)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	ret = snic_ib_pages_alloc(ibd, mr, max_num_sg);
	if (ret)
		goto err_free;
	ret = snic_ib_mr_create(ibd, mr, to_sibpd(ibpd)->pdn, 0,
				SNIC_MR_F_FAST_REG, 0, 0, PAGE_SHIFT);
	if (ret)
		goto err_pages;
	return &mr->ibmr;

err_pages:
	snic_ib_pages_free(ibd, mr);
err_free:
	kfree(mr);
	return ERR_PTR(ret);
}

static int snic_ib_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct snic_ib_mr *mr = to_sibmr(ibmr);

	if (mr->npages >= mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = cpu_to_le64(addr);
	return 0;
}

/* Fill the page list a later REG_MR WQE hands to the device. */
int snic_ib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int nents,
		      unsigned int *sg_offset)
{
	struct snic_ib_mr *mr = to_sibmr(ibmr);

	if (!mr->pages)
		return -EINVAL;
	mr->npages = 0;
	return ib_sg_to_pages(ibmr, sg, nents, sg_offset, snic_ib_set_page);
}

int snic_ib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct snic_ib_dev *ibd = to_sibdev(ibmr->device);
	struct snic_ib_mr *mr = to_sibmr(ibmr);
	int ret;

	ret = snic_cmd_destroy(ibd->sd, SNIC_AQ_DESTROY_MR,
			       SNIC_KEY_INDEX(ibmr->lkey));
	/* memory windows are still bound to it: it stays as it is */
	if (ret == -EBUSY)
		return ret;
	if (ret == -ETIMEDOUT || ret == -EIO) {
		/* The device may still read the list and the pages: keep them. */
		dev_warn(&ibd->sd->pdev->dev,
			 "DESTROY_MR %#x failed: %d, keeping its pages\n",
			 ibmr->lkey, ret);
		return ret;
	}
	snic_ib_pages_free(ibd, mr);
	if (mr->umem)
		ib_umem_release(mr->umem);
	kfree(mr);
	/* Anything else (ENOENT) means the device holds nothing of it. */
	return 0;
}
