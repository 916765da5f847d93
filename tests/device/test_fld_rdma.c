/*
 * fld device tier: FLD-R.  Two snics on one hub and an fld (accel=zuc):
 * the test plays fld.ko on snic B (an RC QP whose send ring, receive ring,
 * doorbell record and completion ring are FLD windows, made with snic's
 * admin queue and FLD_CMD_QP_SET) and a plain client on snic A (an RC QP
 * in guest memory).  zuc requests go out as RDMA SENDs from A and come
 * back as SENDs that FLD synthesised: the 3GPP test sets, many requests
 * of every size (receive buffers recycled), a short header and a bad
 * magic (answered with FLD_ZUC_EHDR, counted), a message larger than
 * FLD's receive buffer (the NIC's receive error counted and reported,
 * nothing hangs), and refused QP commands.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/check.h"
#include "snic_rdma_env.h"
#include "d2d/fld_ifc.h"
#include "fld/fld-zuc.h"
#include "../../userspace/fld/fld_zuc_vectors.h"

#define FLD_BAR0	0xe0800000ull
#define FLD_BAR4	0xe0900000ull
#define FLD_BAR2	0xe2000000ull
#define QP_PAGE		6	/* snic B doorbell pages of FLD's QP and CQ */
#define CQ_PAGE		7

static int fld_devfn = -1;
static struct qp fq;		/* FLD's QP on B, as its driver sees it */
static uint32_t fcqn;

static uint32_t fld_rd(uint32_t reg)
{
	return qt_readl(qt, FLD_BAR0 + reg);
}

static uint64_t fld_stat(int i)
{
	return fld_rd(FLD_REG_STATS + 8 * i) |
	       (uint64_t)fld_rd(FLD_REG_STATS + 8 * i + 4) << 32;
}

static uint32_t fld_cmd(uint32_t op, int n, const uint32_t *args,
			uint32_t *result)
{
	int i;

	for (i = 0; i < FLD_CMD_NARGS; i++)
		qt_writel(qt, FLD_BAR0 + FLD_REG_CMD_ARG0 + 4 * i,
			  i < n ? args[i] : 0);
	qt_writel(qt, FLD_BAR0 + FLD_REG_CMD, op);
	if (result)
		*result = fld_rd(FLD_REG_CMD_RESULT);
	return fld_rd(FLD_REG_CMD_STATUS);
}

static bool fld_env(void)
{
	if (!env_start_extra("", "-device fld,id=fld0,accel=zuc"))
		return false;
	fld_devfn = qt_pci_find(qt, FLD_PCI_VENDOR_ID, FLD_PCI_DEVICE_ID, 0);
	if (fld_devfn < 0)
		return false;
	qt_pci_map_bar(qt, fld_devfn, FLD_BAR_REGS, FLD_BAR0);
	qt_pci_map_bar(qt, fld_devfn, FLD_BAR_WIN, FLD_BAR2);
	qt_pci_map_bar(qt, fld_devfn, FLD_BAR_MSIX, FLD_BAR4);
	qt_pci_enable(qt, fld_devfn);
	qt_writel(qt, FLD_BAR0 + FLD_REG_CTRL, FLD_CTRL_ENABLE);
	return fld_rd(FLD_REG_CAPS) & FLD_CAP_RDMA;
}

/*
 * What fld.ko does on a connection: FLD CQ slot 0 and QP slot 0 (SQ slot
 * 0, 2^@lsq basic blocks, 2^@lrq receive buffers), the snic CQ and RC QP
 * on them (privileged: lkey 0), bound; then both QPs connected.
 */
static bool fldr_up(int lsq, int lrq)
{
	struct snic_aq_create_cq cc = { 0 };
	struct snic_aq_create_qp qc = { 0 };
	uint64_t page = B->bar2 + QP_PAGE * SNIC_DB_PAGE_SIZE, res;
	uint32_t a[8], rq_off, pdn;

	if (!side_make(&sa, A, SNIC_QPT_RC))
		return false;
	pdn = pd_create(B);
	a[0] = 0; a[1] = FLD_QN_NONE; a[2] = 8;
	if (fld_cmd(FLD_CMD_CQ_SET, 3, a, NULL) != FLD_CMD_OK)
		return false;
	a[0] = 0; a[1] = 0; a[2] = lsq; a[3] = lrq; a[4] = 0;
	a[5] = (uint32_t)page; a[6] = page >> 32; a[7] = 0;
	if (fld_cmd(FLD_CMD_QP_SET, 8, a, &rq_off) != FLD_CMD_OK ||
	    rq_off != FLD_WIN_QP_RQ)
		return false;
	cc.ring_addr = FLD_BAR2 + FLD_WIN_CQ;
	cc.dbr_addr = FLD_BAR2 + FLD_WIN_DBR + FLD_DBR_CQ;
	cc.log_size = 8;
	cc.eqn = SNIC_EQN_NONE;
	cc.db_page = CQ_PAGE;
	if (snic_aq_cmd(B, SNIC_AQ_CREATE_CQ, &cc, sizeof(cc), &res) != OK)
		return false;
	fcqn = res;
	qc.type = SNIC_QPT_RC;
	qc.flags = SNIC_QP_F_PRIV;
	qc.sq_log = lsq;
	qc.rq_log = lrq;
	qc.rq_log_stride = FLD_QP_RQ_LOG_STRIDE;
	qc.db_page = QP_PAGE;
	qc.pdn = pdn;
	qc.send_cqn = fcqn;
	qc.recv_cqn = fcqn;
	qc.srqn = SNIC_SRQN_NONE;
	qc.sq_addr = FLD_BAR2 + FLD_WIN_SQ;
	qc.rq_addr = FLD_BAR2 + rq_off;
	qc.dbr_addr = FLD_BAR2 + FLD_WIN_DBR + FLD_DBR_QP;
	if (snic_aq_cmd(B, SNIC_AQ_CREATE_QP, &qc, sizeof(qc), &res) != OK)
		return false;
	memset(&fq, 0, sizeof(fq));
	fq.d = B;
	fq.qpn = res;
	fq.type = SNIC_QPT_RC;
	a[0] = FLD_BIND_CQ; a[1] = 0; a[2] = fcqn;
	if (fld_cmd(FLD_CMD_BIND, 3, a, NULL) != FLD_CMD_OK)
		return false;
	a[0] = FLD_BIND_QP; a[1] = 0; a[2] = fq.qpn;
	if (fld_cmd(FLD_CMD_BIND, 3, a, NULL) != FLD_CMD_OK)
		return false;
	return qp_connect(&fq, &sa.qp, &conn_default, 5000, 100) &&
	       qp_connect(&sa.qp, &fq, &conn_default, 100, 5000);
}

/* Client side: answers land at MR offset 128 KiB + 16 KiB x slot. */
#define REQ_OFF(i)	((uint64_t)(i) * 16384)
#define ANS_OFF(i)	(128 * 1024 + (uint64_t)(i) * 16384)

/* Post a receive for the answer and SEND @len bytes at REQ_OFF(@slot). */
static void client_send(unsigned slot, const void *req, size_t len)
{
	struct wqe w;

	qp_recv(&sa.qp, slot, 16384, sa.mr.key, sa.mr.iova + ANS_OFF(slot));
	mr_write(&sa.mr, REQ_OFF(slot), req, len);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, len, sa.mr.key, sa.mr.iova + REQ_OFF(slot));
	qp_post(&sa.qp, &w);
}

/* The next answer: its slot (cookie) and bytes into @ans; -1 if none. */
static long client_answer(uint8_t *ans, size_t size, unsigned *slot)
{
	struct snic_cqe e;

	if (!cq_wait(&sa.rcq, &e, 1000000) || e.opcode != SNIC_CQE_RECV ||
	    e.byte_cnt > size)
		return -1;
	*slot = e.cookie;
	mr_read(&sa.mr, ANS_OFF(*slot), ans, e.byte_cnt);
	return e.byte_cnt;
}

/* The send completions of the client so far (all must be good). */
static int client_reaped;
static bool client_reap(int n)
{
	struct snic_cqe e;

	while (n--) {
		if (!cq_wait(&sa.scq, &e, 1000000) ||
		    e.opcode != SNIC_CQE_REQ || e.syndrome != SNIC_RST_OK)
			return false;
		client_reaped++;
	}
	return true;
}

static void zuc_3gpp_sets(void)
{
	static uint8_t req[9000], ans[16384];
	unsigned int i, slot;
	long n;

	CHECK(fld_env());
	CHECK(fldr_up(6, 4));
	for (i = 0; i < FLD_ZUC_NVECTORS; i++) {
		size_t len = fld_zv_request(&fld_zuc_vectors[i], req, 100 + i);

		client_send(i, req, len);
		CHECK(client_reap(1));
		n = client_answer(ans, sizeof(ans), &slot);
		CHECK_EQ(slot, i);
		CHECK(fld_zv_answer_ok(&fld_zuc_vectors[i], ans, n, 100 + i));
	}
	CHECK_EQ(fld_stat(FLD_STAT_QP_RECVS), FLD_ZUC_NVECTORS);
	CHECK_EQ(fld_stat(FLD_STAT_QP_SENDS), FLD_ZUC_NVECTORS);
	CHECK_EQ(fld_stat(FLD_STAT_TX_DONE), FLD_ZUC_NVECTORS);
	CHECK_EQ(fld_stat(FLD_STAT_QP_BAD_MSGS), 0);
	CHECK_EQ(fld_stat(FLD_STAT_NIC_ERR_CQES), 0);
	CHECK_EQ(fld_rd(FLD_REG_ERROR_COUNT), 0);
	CHECK_EQ(fld_rd(FLD_REG_POOL_IN_USE), 0);
	CHECK(qt_alive(qt));
}

/* One EEA3 request of @bits bits from @seed, and its local answer. */
static size_t mk_eea3(uint8_t *req, uint8_t *want, uint32_t seed,
		      uint32_t bits)
{
	struct fld_zuc_hdr h;
	size_t i, nb = (bits + 7) / 8;

	memset(&h, 0, sizeof(h));
	h.magic = FLD_ZUC_MAGIC;
	h.op = FLD_ZUC_OP_EEA3;
	h.bearer = seed % 32;
	h.direction = seed & 1;
	h.count = seed * 2654435761u;
	h.length_bits = bits;
	h.request_id = seed;
	for (i = 0; i < 16; i++)
		h.key[i] = seed * 13 + i;
	memcpy(req, &h, sizeof(h));
	for (i = 0; i < nb; i++)
		req[64 + i] = seed + i * 7;
	memcpy(want, req, 64);
	fld_eea3(h.key, h.count, h.bearer, h.direction, req + 64, want + 64,
		 bits);
	return 64 + nb;
}

/*
 * 120 requests of 1..65536 bits, 8 outstanding: FLD's 16 receive
 * buffers are recycled many times, its send ring (64 basic blocks) wraps,
 * every answer is the local computation.
 */
static void zuc_many_sizes(void)
{
	static uint8_t req[9000], ans[16384], want[8][9000];
	static size_t wlen[8];
	unsigned int slot, sent = 0, got = 0, bad = 0;
	long n;

	CHECK(fld_env());
	CHECK(fldr_up(6, 4));
	client_reaped = 0;
	while (got < 120) {
		while (sent < 120 && sent - got < 8) {
			uint32_t bits = sent == 0 ? FLD_ZUC_MAX_BITS :
					1 + (sent * 7919u) % FLD_ZUC_MAX_BITS;
			size_t len = mk_eea3(req, want[sent % 8], sent, bits);

			wlen[sent % 8] = len;
			client_send(sent % 8, req, len);
			sent++;
		}
		n = client_answer(ans, sizeof(ans), &slot);
		if (n < 0)
			break;
		if (slot != got % 8 || (size_t)n != wlen[slot] ||
		    memcmp(ans, want[slot], n))
			bad++;
		got++;
	}
	CHECK_EQ(got, 120);
	CHECK_EQ(bad, 0);
	CHECK(client_reap(sent - client_reaped));
	CHECK_EQ(fld_stat(FLD_STAT_QP_RECVS), 120);
	CHECK_EQ(fld_stat(FLD_STAT_QP_SENDS), 120);
	CHECK(fld_stat(FLD_STAT_RX_RECYCLED) >= 120);
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_BAD), 0);
	CHECK_EQ(fld_rd(FLD_REG_ERROR_COUNT), 0);
}

/*
 * A message shorter than the header and one with a bad magic are
 * answered with FLD_ZUC_EHDR and counted; a bad bearer with EPARAM; the
 * QP keeps serving.
 */
static void zuc_short_header(void)
{
	static uint8_t req[9000], ans[16384], want[9000];
	struct fld_zuc_hdr h;
	unsigned int slot;
	size_t len;
	long n;

	CHECK(fld_env());
	CHECK(fldr_up(6, 4));
	len = mk_eea3(req, want, 7, 800);
	client_send(0, req, 20);			/* short header */
	n = client_answer(ans, sizeof(ans), &slot);
	CHECK_EQ(n, FLD_ZUC_HDR_SIZE);
	memcpy(&h, ans, sizeof(h));
	CHECK_EQ(h.magic, FLD_ZUC_MAGIC);
	CHECK_EQ(h.status, FLD_ZUC_EHDR);
	CHECK_EQ(h.count, 7 * 2654435761u);		/* what arrived of it */
	req[0] ^= 0xff;					/* bad magic */
	client_send(1, req, len);
	n = client_answer(ans, sizeof(ans), &slot);
	CHECK_EQ(n, FLD_ZUC_HDR_SIZE);
	memcpy(&h, ans, sizeof(h));
	CHECK_EQ(h.status, FLD_ZUC_EHDR);
	CHECK_EQ(h.request_id, 7);
	req[0] ^= 0xff;
	req[6] = 40;					/* bearer > 31 */
	client_send(2, req, len);
	n = client_answer(ans, sizeof(ans), &slot);
	CHECK_EQ(n, FLD_ZUC_HDR_SIZE);
	memcpy(&h, ans, sizeof(h));
	CHECK_EQ(h.status, FLD_ZUC_EPARAM);
	len = mk_eea3(req, want, 8, 800);
	client_send(3, req, len);
	n = client_answer(ans, sizeof(ans), &slot);
	CHECK_EQ(n, (long)len);
	CHECK(!memcmp(ans, want, len));
	CHECK(client_reap(4));
	CHECK_EQ(fld_stat(FLD_STAT_QP_BAD_MSGS), 2);
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_BAD), 3);
	CHECK_EQ(fld_stat(FLD_STAT_QP_SENDS), 4);
	CHECK(qt_alive(qt));
}

/*
 * A SEND larger than FLD's receive buffer: the NIC completes the receive
 * with an error (the QP goes to ERR and flushes the rest); FLD counts
 * them, reports FLD_ERR_NIC_CQE once and reposts nothing.  The client's
 * request fails with a NAK instead of hanging.
 */
static void oversize_message_error(void)
{
	static uint8_t req[FLD_QP_BUF_SIZE + 100];
	struct snic_cqe e;
	struct wqe w;
	uint64_t errs;

	CHECK(fld_env());
	CHECK(fldr_up(6, 4));
	memset(req, 0x11, sizeof(req));
	mr_write(&sa.mr, 0, req, sizeof(req));
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, sizeof(req), sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	pump(64);
	errs = fld_stat(FLD_STAT_QP_ERR_CQES);
	CHECK(errs >= 1);
	CHECK_EQ(errs, 1u << 4);		/* the bad one and 15 flushed */
	CHECK_EQ(fld_stat(FLD_STAT_NIC_ERR_CQES), errs);
	CHECK_EQ(fld_rd(FLD_REG_ERROR), FLD_ERR_NIC_CQE);
	CHECK_EQ(fld_stat(FLD_STAT_QP_RECVS), 0);
	pump(64);
	CHECK_EQ(fld_stat(FLD_STAT_QP_ERR_CQES), errs);	/* no loop */
	CHECK(qt_alive(qt));
}

/* QP commands with bad arguments are refused; slots stay consistent. */
static void qp_commands_refused(void)
{
	uint64_t page = 0xfe000000;
	uint32_t a[8];

	CHECK(fld_env());
	a[0] = 0; a[1] = FLD_QN_NONE; a[2] = 8;
	CHECK_EQ(fld_cmd(FLD_CMD_CQ_SET, 3, a, NULL), FLD_CMD_OK);
	a[0] = 0; a[1] = 0; a[2] = 6; a[3] = 4; a[4] = 0;
	a[5] = (uint32_t)page; a[6] = 0; a[7] = 0;
	a[0] = FLD_MAX_QPS;
	CHECK_EQ(fld_cmd(FLD_CMD_QP_SET, 8, a, NULL), FLD_CMD_EINVAL);
	a[0] = 0; a[3] = FLD_QP_MAX_LOG + 1;
	CHECK_EQ(fld_cmd(FLD_CMD_QP_SET, 8, a, NULL), FLD_CMD_EINVAL);
	a[3] = 4; a[5] = (uint32_t)page + 4;		/* not a page */
	CHECK_EQ(fld_cmd(FLD_CMD_QP_SET, 8, a, NULL), FLD_CMD_EINVAL);
	a[5] = (uint32_t)page; a[4] = 3;		/* CQ slot unset */
	CHECK_EQ(fld_cmd(FLD_CMD_QP_SET, 8, a, NULL), FLD_CMD_ENOENT);
	a[4] = 0;
	CHECK_EQ(fld_cmd(FLD_CMD_QP_SET, 8, a, NULL), FLD_CMD_OK);
	a[0] = 1;					/* SQ slot 0 taken */
	CHECK_EQ(fld_cmd(FLD_CMD_QP_SET, 8, a, NULL), FLD_CMD_EBUSY);
	a[0] = 0;
	CHECK_EQ(fld_cmd(FLD_CMD_SQ_CLEAR, 1, a, NULL), FLD_CMD_EBUSY);
	CHECK_EQ(fld_cmd(FLD_CMD_CQ_CLEAR, 1, a, NULL), FLD_CMD_EBUSY);
	a[0] = FLD_BIND_SQ; a[1] = 0; a[2] = 3;
	CHECK_EQ(fld_cmd(FLD_CMD_BIND, 3, a, NULL), FLD_CMD_EBUSY);
	a[0] = FLD_BIND_QP; a[1] = 0; a[2] = SNIC_MAX_QPS;
	CHECK_EQ(fld_cmd(FLD_CMD_BIND, 3, a, NULL), FLD_CMD_EINVAL);
	a[1] = 5; a[2] = 3;
	CHECK_EQ(fld_cmd(FLD_CMD_BIND, 3, a, NULL), FLD_CMD_ENOENT);
	a[1] = 0; a[3] = (uint32_t)page + 0x104; a[4] = 0;	/* not a page */
	CHECK_EQ(fld_cmd(FLD_CMD_BIND, 5, a, NULL), FLD_CMD_EINVAL);
	a[3] = (uint32_t)page + 0x1000;
	CHECK_EQ(fld_cmd(FLD_CMD_BIND, 5, a, NULL), FLD_CMD_OK);
	/* the NIC reading past the receive ring, writing past the buffers */
	CHECK_EQ(qt_readl(qt, FLD_BAR2 + FLD_WIN_QP_RQ + (32 << 4)), 0);
	qt_writel(qt, FLD_BAR2 + FLD_WIN_QP_BUF + (FLD_QP_BUF_SIZE << 4), 1);
	CHECK_EQ(fld_stat(FLD_STAT_BAD_READS), 1);
	CHECK_EQ(fld_stat(FLD_STAT_BAD_WRITES), 1);
	/* a synthesised receive WQE: buffer 3 of QP slot 0 */
	CHECK_EQ(qt_readl(qt, FLD_BAR2 + FLD_WIN_QP_RQ + 3 * 32), 3);
	CHECK_EQ(qt_readl(qt, FLD_BAR2 + FLD_WIN_QP_RQ + 3 * 32 + 8), 1);
	CHECK_EQ(qt_readl(qt, FLD_BAR2 + FLD_WIN_QP_RQ + 3 * 32 + 16),
		 FLD_QP_BUF_SIZE);
	CHECK_EQ(qt_readq(qt, FLD_BAR2 + FLD_WIN_QP_RQ + 3 * 32 + 24),
		 FLD_BAR2 + FLD_WIN_QP_BUF + 3 * FLD_QP_BUF_SIZE);
	/* its doorbell record: 16 receive WQEs posted, no send */
	CHECK_EQ(qt_readl(qt, FLD_BAR2 + FLD_WIN_DBR + FLD_DBR_QP), 16);
	CHECK_EQ(qt_readl(qt, FLD_BAR2 + FLD_WIN_DBR + FLD_DBR_QP + 4), 0);
	a[0] = 0;
	CHECK_EQ(fld_cmd(FLD_CMD_QP_CLEAR, 1, a, NULL), FLD_CMD_OK);
	CHECK_EQ(fld_cmd(FLD_CMD_QP_CLEAR, 1, a, NULL), FLD_CMD_ENOENT);
	CHECK_EQ(fld_cmd(FLD_CMD_CQ_CLEAR, 1, a, NULL), FLD_CMD_OK);
	CHECK(qt_alive(qt));
}

int main(void)
{
	RUN("device/fld_rdma", zuc_3gpp_sets);
	RUN("device/fld_rdma", zuc_many_sizes);
	RUN("device/fld_rdma", zuc_short_header);
	RUN("device/fld_rdma", oversize_message_error);
	RUN("device/fld_rdma", qp_commands_refused);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
