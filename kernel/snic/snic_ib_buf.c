// SPDX-License-Identifier: GPL-2.0
/*
 * snic RDMA: ring buffers - the physically contiguous host pages of CQ,
 * QP, SRQ and SSQ rings the device reaches at one bus address, charged to
 * RLIMIT_MEMLOCK for user objects, and the mmap entries through which user
 * space maps them (freed with the last mapping).  Below the objects and
 * the user contexts: calls nothing of snic_ib above it.
 */
#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <rdma/uverbs_ioctl.h>
#include "snic_ib.h"

/*
 * A ring; for a user object (@user) its pages are charged to the calling
 * process's RLIMIT_MEMLOCK until they are freed (with the last mapping).
 */
int snic_ib_buf_alloc(struct snic_ib_dev *ibd, struct snic_ib_buf *b,
		      size_t size, bool user)
{
	struct device *dev = &ibd->sd->pdev->dev;

	b->size = PAGE_ALIGN(size);
	if (b->size > SNIC_IB_BUF_MAX)
		return -EINVAL;
	b->mm = user ? snic_pin_charge(ibd->sd, b->size >> PAGE_SHIFT) : NULL;
	if (IS_ERR(b->mm)) {
		b->mm = NULL;
		return -ENOMEM;
	}
	/* User-sized: a failure is the caller's ENOMEM, not a warning. */
	b->va = alloc_pages_exact(b->size, GFP_KERNEL | __GFP_ZERO |
				  __GFP_NOWARN);
	if (!b->va)
		goto err;
	/*
	 * Shared with the device for the ring's whole life (like a coherent
	 * buffer); x86 DMA is cache coherent and the 64-bit mask never
	 * bounces, so the streaming mapping is never synced.
	 */
	b->dma = dma_map_single(dev, b->va, b->size, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, b->dma)) {
		free_pages_exact(b->va, b->size);
		b->va = NULL;
		goto err;
	}
	return 0;
err:
	snic_pin_uncharge(b->mm, b->size >> PAGE_SHIFT);
	b->mm = NULL;
	return -ENOMEM;
}

void snic_ib_buf_free(struct snic_ib_dev *ibd, struct snic_ib_buf *b)
{
	if (!b->va)
		return;
	dma_unmap_single(&ibd->sd->pdev->dev, b->dma, b->size,
			 DMA_BIDIRECTIONAL);
	free_pages_exact(b->va, b->size);
	b->va = NULL;
	snic_pin_uncharge(b->mm, b->size >> PAGE_SHIFT);
	b->mm = NULL;
}

/* Publish @m (freed on failure) as an mmap entry of @len bytes of @uc. */
struct snic_ib_mmap *snic_ib_mmap_insert(struct snic_ib_ucontext *uc,
					 struct snic_ib_mmap *m, size_t len,
					 u64 *key)
{
	int ret;

	ret = rdma_user_mmap_entry_insert(&uc->ibuc, &m->rdma, len);
	if (ret) {
		kfree(m);
		return ERR_PTR(ret);
	}
	*key = rdma_user_mmap_get_offset(&m->rdma);
	return m;
}

/*
 * Hand @b over to a new mmap entry of @uc.  On success the entry owns the
 * pages (snic_ib_buf_release drops them); on failure @b is untouched.
 */
struct snic_ib_mmap *snic_ib_mmap_buf(struct snic_ib_ucontext *uc,
				      struct snic_ib_buf *b, u64 *key)
{
	struct snic_ib_mmap *m;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	m->ibd = to_sibdev(uc->ibuc.device);
	m->type = SNIC_IB_MMAP_BUF;
	m->buf = *b;
	return snic_ib_mmap_insert(uc, m, b->size, key);
}

/* Free a ring: now (kernel object) or with its last mapping (user). */
void snic_ib_buf_release(struct snic_ib_dev *ibd, struct snic_ib_buf *b,
			 struct snic_ib_mmap *m)
{
	if (m)
		rdma_user_mmap_entry_remove(&m->rdma);
	else
		snic_ib_buf_free(ibd, b);
	b->va = NULL;
}
