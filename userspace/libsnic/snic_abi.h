/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libsnic's driver commands, declared once (as rdma-core providers do with
 * DECLARE_DRV_CMD, e.g. providers/rxe/rxe-abi.h): for every uverbs command
 * whose response snic.ko extends, the buffer the ibv_cmd_* helper fills -
 * the kernel's core response, then snic's udata of
 * <d2d/snic_verbs_abi.h> (docs/snic-ib.md) - with its layout checked.  The
 * commands carry no driver words (the verbs_cmd_* buffers of
 * verbs_provider_abi.h): the kernel decides every ring's geometry; only
 * create_qp adds the QP mode (doorbell or pipe).
 */
#ifndef LIBSNIC_SNIC_ABI_H
#define LIBSNIC_SNIC_ABI_H

#include <stddef.h>
#include <rdma/ib_user_verbs.h>
#include <d2d/snic_verbs_abi.h>
#include "verbs_provider_abi.h"

/* struct snic_<name>_resp_full: @core, then snic's @drv right after it. */
#define SNIC_DRV_RESP(name, core, drv_resp)				\
	struct snic_##name##_resp_full {				\
		struct core ibv;					\
		struct drv_resp drv;					\
	};								\
	_Static_assert(offsetof(struct snic_##name##_resp_full, drv) ==	\
		       sizeof(struct core),				\
		       #name ": snic's udata follows the core response")

/* create_qp's command: the core command, then snic's driver words. */
struct snic_create_qp_cmd_full {
	struct verbs_cmd_create_qp ibv;
	struct snic_create_qp_cmd drv;
};
_Static_assert(offsetof(struct snic_create_qp_cmd_full, drv) ==
	       sizeof(struct verbs_cmd_create_qp),
	       "create_qp: snic's words follow the core command");

SNIC_DRV_RESP(get_context, ib_uverbs_get_context_resp,
	      snic_alloc_ucontext_resp);
SNIC_DRV_RESP(create_cq, ib_uverbs_create_cq_resp, snic_create_cq_resp);
SNIC_DRV_RESP(create_cq_ex, ib_uverbs_ex_create_cq_resp, snic_create_cq_resp);
/* resize_cq answers with the same driver data as create_cq */
SNIC_DRV_RESP(resize_cq, ib_uverbs_resize_cq_resp, snic_create_cq_resp);
SNIC_DRV_RESP(create_qp, ib_uverbs_create_qp_resp, snic_create_qp_resp);
SNIC_DRV_RESP(create_srq, ib_uverbs_create_srq_resp, snic_create_srq_resp);
SNIC_DRV_RESP(create_ah, ib_uverbs_create_ah_resp, snic_create_ah_resp);

#endif /* LIBSNIC_SNIC_ABI_H */
