// SPDX-License-Identifier: GPL-2.0
/*
 * snic RDMA: memory windows (docs/snic-rdma.md "Memory windows").
 *
 * ALLOC_MW gives a window of the PD's in the device's MR key table, with
 * a tag the driver chooses; the window is bound, rebound and invalidated
 * by work requests the provider (user QPs) or a kernel ULP posts, so the
 * driver keeps no state of it besides its key.
 */
#include "snic_ib.h"

int snic_ib_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct snic_ib_dev *ibd = to_sibdev(ibmw->device);
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_ALLOC_MW };
	struct snic_aq_alloc_mw *a = (struct snic_aq_alloc_mw *)cmd.raw;
	u64 key;
	int ret;

	BUILD_BUG_ON(sizeof(*a) > sizeof(cmd.raw));
	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	a->pdn = cpu_to_le32(to_sibpd(ibmw->pd)->pdn);
	a->type = ibmw->type == IB_MW_TYPE_1 ? SNIC_MW_TYPE_1 : SNIC_MW_TYPE_2;
	a->key_tag = snic_ib_next_tag(ibd);
	ret = snic_aq_exec(ibd->sd, &cmd, &key);
	if (ret)
		return ret;
	ibmw->rkey = key;
	return 0;
}

int snic_ib_dealloc_mw(struct ib_mw *ibmw)
{
	struct snic_ib_dev *ibd = to_sibdev(ibmw->device);
	int ret;

	ret = snic_cmd_destroy(ibd->sd, SNIC_AQ_DEALLOC_MW,
			       SNIC_KEY_INDEX(ibmw->rkey));
	/* the window holds no host memory: a broken admin queue leaks it */
	if (ret && ret != -ENOENT)
		dev_warn(&ibd->sd->pdev->dev, "DEALLOC_MW %#x failed: %d\n",
			 ibmw->rkey, ret);
	return 0;
}
