// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libsnic memory windows (docs/libsnic.md "Memory windows"): the window
 * itself is a kernel object (ibv_cmd_alloc_mw), a type 1 bind is a
 * SNIC_WQE_BIND_MW work request the provider posts on the caller's QP,
 * with the window's next key (ibv_inc_rkey), as IBV_WR_BIND_MW does for
 * type 2 windows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libsnic.h"

struct ibv_mw *snic_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct verbs_cmd_alloc_mw cmd;
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret)
		return snic_create_failed(mw, ret);
	return mw;
}

int snic_dealloc_mw(struct ibv_mw *mw)
{
	int ret = ibv_cmd_dealloc_mw(mw);

	if (!ret)
		free(mw);
	return ret;
}

int snic_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr, *bad;
	int ret;

	/* type 2 windows are bound by IBV_WR_BIND_MW work requests only */
	if (mw->type != IBV_MW_TYPE_1 || mw->pd != qp->pd)
		return EINVAL;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	ret = snic_post_send(qp, &wr, &bad);
	if (!ret)
		mw->rkey = wr.bind_mw.rkey;
	return ret;
}
