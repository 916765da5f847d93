/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libsnic work-request formats: verbs work requests -> snic send and
 * receive WQEs, snic CQEs -> struct ibv_wc.  Pure functions over memory
 * (no libibverbs calls, no device access), so tests/unit can check them
 * on the host (test_libsnic_wqe).
 */
#ifndef LIBSNIC_SNIC_WQE_H
#define LIBSNIC_SNIC_WQE_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <d2d/snic_rdma_ifc.h>

#define SNIC_WQE_MAX_BYTES	(SNIC_WQE_MAX_BBS * SNIC_WQEBB_SIZE)
#define SNIC_RECV_HDR_SIZE	16

/* An address handle: the resolved address vector UD WQEs carry. */
struct snic_ah {
	struct ibv_ah ibv_ah;
	struct snic_av av;
	struct snic_wqe_ud6 ud6;	/* with SNIC_AV_F_IPV6 in av.flags */
};

/* What the send-WQE builder needs to know about the QP. */
struct snic_sq_params {
	enum ibv_qp_type qp_type;	/* IBV_QPT_RC, _UC, _UD or _XRC_SEND */
	bool sig_all;			/* sq_sig_all: every WQE completes */
	uint32_t max_inline;		/* bytes, from the kernel */
	uint32_t max_sge;
	uint32_t qkey;			/* UD: the QP's own qkey */
};

/* Result of building one send WQE. */
struct snic_wqe_info {
	unsigned int nbb;		/* basic blocks used, 1..4 */
	enum ibv_wc_opcode wc_opcode;	/* opcode its completion reports */
	bool signaled;
};

/*
 * Build the send WQE for @wr at producer counter @wqe_idx into @wqe
 * (SNIC_WQE_MAX_BYTES, zeroed here).  Inline data is copied from the
 * scatter list's addresses.  Returns 0 or an errno value (EINVAL: bad
 * opcode for the QP type, bad atomic length, too many segments; ENOMEM:
 * inline data larger than max_inline).
 */
int snic_build_send_wqe(const struct snic_sq_params *p,
			const struct ibv_send_wr *wr, uint16_t wqe_idx,
			void *wqe, struct snic_wqe_info *info);

/* Scatter entries a receive WQE of 2^log_stride bytes holds. */
unsigned int snic_recv_max_sge(unsigned int log_stride);

/*
 * Write the receive WQE for @wr (cookie = wr_id, then the scatter list)
 * into a slot of 2^log_stride bytes.  Returns 0 or EINVAL.
 */
int snic_build_recv_wqe(void *slot, unsigned int log_stride,
			const struct ibv_recv_wr *wr);

/* The CQE at consumer counter @cons is the device's newest (owner bit). */
static inline bool snic_cqe_valid(const struct snic_cqe *cqe, uint32_t cons,
				  unsigned int log_size)
{
	return (cqe->op_own & SNIC_CQE_OWNER) ==
	       (((cons >> log_size) & 1) ^ 1);
}

/* enum snic_rdma_status -> ibv_wc_status */
enum ibv_wc_status snic_wc_status(uint8_t syndrome);

/* A send WQE opcode -> the opcode of its completion. */
enum ibv_wc_opcode snic_wc_send_opcode(uint8_t wqe_opcode);

/*
 * Fill the receive parts of @wc from a SNIC_CQE_RECV(_ERR) CQE: wr_id
 * (the cookie), status, opcode, byte_len, flags, immediate data, UD
 * source.
 */
void snic_wc_from_recv_cqe(struct ibv_wc *wc, const struct snic_cqe *cqe);

#endif /* LIBSNIC_SNIC_WQE_H */
