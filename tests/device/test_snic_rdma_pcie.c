/*
 * snic device tier: what a message costs on each device's PCIe link - the
 * header-only property of snic's transport (docs/snic-rdma.md "Header-only
 * TX and shadow MRs").  The transport runs in the device, so a payload
 * crosses each host's link exactly once: the requester reads it from the
 * host buffer straight into its frames, the responder writes it from the
 * wire straight into the target buffer.  Beside the payload only the
 * control records move (the WQE, the doorbell record, the CQE); nothing
 * is staged in device memory and read again, and no host page table or
 * MR is fetched per message (the MR's translation lives in the device
 * from CREATE_MR on).
 */
#include <string.h>
#include "../lib/check.h"
#include "snic_rdma_env.h"

#define MSG	65536u
/* control records: a one-segment send WQE is one 64-byte WQEBB, a CQE 64
 * bytes, a one-segment receive WQE its header and one data segment */
#define WQE	SNIC_WQEBB_SIZE
#define CQE	((uint64_t)sizeof(struct snic_cqe))
#define RWQE	((uint64_t)(sizeof(struct snic_recv_hdr) + \
			    sizeof(struct snic_wqe_data)))

struct pc {
	uint64_t rd, wr;
};

static struct pc pcie(struct snic_dev *d)
{
	const char *path = d == A ? "/machine/peripheral/snic0" :
				    "/machine/peripheral/snic1";
	struct pc p = { 0, 0 };

	qt_qom_get_u64(qt, path, "pcie-dma_read_bytes", &p.rd);
	qt_qom_get_u64(qt, path, "pcie-dma_write_bytes", &p.wr);
	return p;
}

/*
 * One signaled @op of MSG bytes between sa (requester) and sb; the DMA
 * bytes of both devices must be @ard/@awr (requester reads/writes) and
 * @brd/@bwr (responder).
 */
static void one_message(uint8_t op, const char *name, uint64_t ard,
			uint64_t awr, uint64_t brd, uint64_t bwr)
{
	static uint8_t src[MSG], dst[MSG];
	struct pc a0, b0, a1, b1;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	fill(src, MSG, 7);
	mr_write(op == SNIC_WQE_RDMA_READ ? &sb.mr : &sa.mr, 0, src, MSG);
	if (op == SNIC_WQE_SEND)
		qp_recv(&sb.qp, 1, MSG, sb.mr.key, sb.mr.iova);
	a0 = pcie(A);
	b0 = pcie(B);
	w_init(&w, op, SNIC_WQE_F_SIGNAL, 0);
	if (op != SNIC_WQE_SEND)
		w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, MSG, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, op, MSG, &e);
	if (op == SNIC_WQE_SEND) {
		CHECK(cq_wait(&sb.rcq, &e, 1000000));
		CHECK_EQ(e.byte_cnt, MSG);
	}
	a1 = pcie(A);
	b1 = pcie(B);
	mr_read(op == SNIC_WQE_RDMA_READ ? &sa.mr : &sb.mr, 0, dst, MSG);
	CHECK(!memcmp(src, dst, MSG));
	printf("# %s: requester reads %llu writes %llu, responder reads %llu writes %llu\n",
	       name, (unsigned long long)(a1.rd - a0.rd),
	       (unsigned long long)(a1.wr - a0.wr),
	       (unsigned long long)(b1.rd - b0.rd),
	       (unsigned long long)(b1.wr - b0.wr));
	CHECK_EQ(a1.rd - a0.rd, ard);
	CHECK_EQ(a1.wr - a0.wr, awr);
	CHECK_EQ(b1.rd - b0.rd, brd);
	CHECK_EQ(b1.wr - b0.wr, bwr);
}

static void payload_crosses_once(void)
{
	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	/* WRITE: the payload read once by A, written once by B */
	one_message(SNIC_WQE_RDMA_WRITE, "write", MSG + WQE, CQE, 0, MSG);
	/* SEND: B also reads its receive WQE and writes a receive CQE */
	one_message(SNIC_WQE_SEND, "send", MSG + WQE, CQE, RWQE, MSG + CQE);
	/* READ: B reads the payload once, A writes it once */
	one_message(SNIC_WQE_RDMA_READ, "read", WQE, MSG + CQE, MSG, 0);
}

int main(void)
{
	RUN("device/snic_rdma_pcie", payload_crosses_once);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
