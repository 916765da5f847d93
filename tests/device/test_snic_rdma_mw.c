/*
 * snic device tier: memory windows on the two-snic RDMA environment -
 * ALLOC_MW/DEALLOC_MW, type 1 and type 2 binds (SNIC_WQE_BIND_MW) on B's
 * RC QP, remote WRITE/READ/atomics from A through the window's rkey
 * inside and outside the window and beyond its rights, a stale tag,
 * LOCAL_INV and SEND with invalidate of a type 2 window (and neither of a
 * type 1 window), rebinding, the bind checks (SNIC_RST_MW_BIND and
 * mw_bind_errors) and DESTROY_MR refused while a window is bound.
 * docs/snic-rdma.md "Memory windows".
 */
#include <arpa/inet.h>
#include <string.h>
#include "../lib/check.h"
#include "snic_rdma_env.h"

#define MW_LEN		(64 * 1024)
#define WIN_OFF		4096	/* the window: [WIN_OFF, WIN_OFF + WIN_LEN) */
#define WIN_LEN		8192
#define RW		(SNIC_ACCESS_REMOTE_WRITE | SNIC_ACCESS_REMOTE_READ)

static struct mr bm;		/* B's MR with SNIC_ACCESS_MW_BIND */

static int mw_alloc(struct snic_dev *d, uint32_t pdn, uint8_t type,
		    uint8_t tag, uint32_t *key)
{
	struct snic_aq_alloc_mw a;
	uint64_t res = 0;
	int st;

	memset(&a, 0, sizeof(a));
	a.pdn = pdn;
	a.type = type;
	a.key_tag = tag;
	st = snic_aq_cmd(d, SNIC_AQ_ALLOC_MW, &a, sizeof(a), &res);
	*key = (uint32_t)res;
	return st;
}

/* Post a bind of @mw_key over [off, off + len) of @m on @q. */
static uint16_t bind_post(struct qp *q, uint32_t mw_key, const struct mr *m,
			  uint64_t off, uint64_t len, uint32_t access)
{
	struct snic_wqe_bind b;
	struct wqe w;

	memset(&b, 0, sizeof(b));
	b.mw_key = mw_key;
	b.mr_key = m->key;
	b.access = access;
	b.addr = m->iova + off;
	b.length = len;
	w_init(&w, SNIC_WQE_BIND_MW, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &b, sizeof(b));
	return qp_post(q, &w);
}

/* Bind on B's QP; the completion's status. */
static int bind_st(uint32_t mw_key, const struct mr *m, uint64_t off,
		   uint64_t len, uint32_t access)
{
	struct snic_cqe e;
	uint16_t idx = bind_post(&sb.qp, mw_key, m, off, len, access);

	if (!cq_wait(&sb.scq, &e, 1000000) || e.wqe_counter != idx ||
	    e.wqe_opcode != SNIC_WQE_BIND_MW)
		return -1;
	return e.syndrome;
}

/*
 * A signaled @op (WRITE, READ or FA) of @len bytes from A at @roff of
 * B's MR bm through @rkey; the send completion's status.  A WRITE's data
 * is checked in B's memory, a READ's in A's.
 */
static int remote_st(uint8_t op, uint32_t rkey, uint64_t roff, uint32_t len)
{
	static unsigned seed = 1;
	uint8_t d[256], x[256];
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	fill(d, len, ++seed);
	if (op == SNIC_WQE_RDMA_WRITE)
		mr_write(&sa.mr, 512, d, len);
	else
		mr_write(&bm, roff, d, len);
	w_init(&w, op, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, bm.iova + roff, rkey);
	if (op == SNIC_WQE_ATOMIC_FA) {
		struct snic_wqe_atomic at = { .swap_add = 1 };

		w_seg(&w, &at, sizeof(at));
	}
	w_data(&w, len, sa.mr.key, sa.mr.iova + 512);
	idx = qp_post(&sa.qp, &w);
	if (!cq_wait(&sa.scq, &e, 1000000) || e.wqe_counter != idx)
		return -1;
	if (e.syndrome)
		return e.syndrome;
	if (op == SNIC_WQE_RDMA_WRITE)
		mr_read(&bm, roff, x, len);
	else if (op == SNIC_WQE_RDMA_READ)
		mr_read(&sa.mr, 512, x, len);
	else
		return 0;
	return memcmp(x, d, len) ? -2 : 0;
}

/* pair_up, B's MR with MW_BIND (all access) and its pd. */
static bool mw_env(uint32_t access)
{
	return env_start() && pair_up(&conn_default) &&
	       mr_create(&bm, B, sb.pdn, MW_LEN, access, 0) == OK;
}

static uint64_t mw_stat(struct snic_dev *d, int which)
{
	struct snic_rdma_stats st;

	if (!rstats(d, &st))
		return ~0ull;
	return which == 0 ? st.mw_binds : which == 1 ? st.mw_bind_errors :
	       st.mw_invalidates;
}

static void mw_type2_bind_access_invalidate(void)
{
	uint32_t mw, k1, k2, k3;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	CHECK(mw_env(ALL_ACCESS | SNIC_ACCESS_MW_BIND));
	CHECK_EQ(mw_alloc(B, sb.pdn, SNIC_MW_TYPE_2, 0x10, &mw), OK);
	/* not bound yet: remote access error */
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_WRITE, mw, WIN_OFF, 16),
		 SNIC_RST_REM_ACCESS);
	CHECK(pair_reconnect());
	k1 = SNIC_MAKE_KEY(SNIC_KEY_INDEX(mw), 0x11);
	CHECK_EQ(bind_st(k1, &bm, WIN_OFF, WIN_LEN, RW), SNIC_RST_OK);
	CHECK_EQ(mw_stat(B, 0), 1);
	/* inside the window: WRITE and READ, first and last bytes */
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_WRITE, k1, WIN_OFF, 64), 0);
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_READ, k1, WIN_OFF + WIN_LEN - 200,
			   200), 0);
	/* one byte past the window (inside the MR) */
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_WRITE, k1, WIN_OFF + WIN_LEN - 8, 9),
		 SNIC_RST_REM_ACCESS);
	CHECK(pair_reconnect());
	/* before the window */
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_READ, k1, WIN_OFF - 4, 8),
		 SNIC_RST_REM_ACCESS);
	CHECK(pair_reconnect());
	/* rights the window does not grant (the MR has them) */
	CHECK_EQ(remote_st(SNIC_WQE_ATOMIC_FA, k1, WIN_OFF, 8),
		 SNIC_RST_REM_ACCESS);
	CHECK(pair_reconnect());
	/* the window's key with the allocation tag */
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_WRITE, mw, WIN_OFF, 8),
		 SNIC_RST_REM_ACCESS);
	CHECK(pair_reconnect());
	/* a window key is no lkey */
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sa.mr.iova, sa.mr.key);
	w_data(&w, 8, k1, bm.iova + WIN_OFF);
	idx = qp_post(&sb.qp, &w);
	CHECK(cq_wait(&sb.scq, &e, 1000000));
	CHECK_EQ(e.wqe_counter, idx);
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_PROT);
	CHECK(pair_reconnect());
	/* the MR cannot go while the window is bound to it */
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_MR, SNIC_KEY_INDEX(bm.key)),
		 SNIC_AQ_EBUSY);
	/* a bound type 2 window cannot be bound again */
	k2 = SNIC_MAKE_KEY(SNIC_KEY_INDEX(mw), 0x12);
	CHECK_EQ(bind_st(k2, &bm, 0, 64, RW), SNIC_RST_MW_BIND);
	CHECK_EQ(mw_stat(B, 1), 1);
	CHECK(pair_reconnect());
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_WRITE, k1, WIN_OFF, 8), 0);
	/* LOCAL_INV: the key stops working */
	w_init(&w, SNIC_WQE_LOCAL_INV, SNIC_WQE_F_SIGNAL, k1);
	idx = qp_post(&sb.qp, &w);
	CHECK_REQ(&sb.scq, idx, SNIC_WQE_LOCAL_INV, 0, &e);
	CHECK_EQ(mw_stat(B, 2), 1);
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_WRITE, k1, WIN_OFF, 8),
		 SNIC_RST_REM_ACCESS);
	CHECK(pair_reconnect());
	/* rebind with a new tag and a new range */
	CHECK_EQ(bind_st(k2, &bm, 0, 1024, SNIC_ACCESS_REMOTE_WRITE),
		 SNIC_RST_OK);
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_WRITE, k2, 512, 256), 0);
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_WRITE, k1, 512, 8),
		 SNIC_RST_REM_ACCESS);
	CHECK(pair_reconnect());
	/* SEND with invalidate of the window from A */
	CHECK_SEND_INV(k2, 0x71, &e);
	CHECK_EQ(mw_stat(B, 2), 2);
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_WRITE, k2, 512, 8),
		 SNIC_RST_REM_ACCESS);
	CHECK(pair_reconnect());
	/* nothing bound now: the MR may go; then the window */
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_MR, SNIC_KEY_INDEX(bm.key)),
		 OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_MR, SNIC_KEY_INDEX(mw)),
		 SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DEALLOC_MW, SNIC_KEY_INDEX(mw)), OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DEALLOC_MW, SNIC_KEY_INDEX(mw)),
		 SNIC_AQ_ENOENT);
	/* a type 2 window bound again, then its QP destroyed: unusable */
	CHECK_EQ(mw_alloc(B, sb.pdn, SNIC_MW_TYPE_2, 0x20, &k3), OK);
	CHECK_EQ(mr_create(&bm, B, sb.pdn, MW_LEN, ALL_ACCESS |
			   SNIC_ACCESS_MW_BIND, 0), OK);
	k3 = SNIC_MAKE_KEY(SNIC_KEY_INDEX(k3), 0x21);
	CHECK_EQ(bind_st(k3, &bm, 0, 4096, RW), SNIC_RST_OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_MR, SNIC_KEY_INDEX(bm.key)),
		 SNIC_AQ_EBUSY);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_QP, sb.qp.qpn), OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_MR, SNIC_KEY_INDEX(bm.key)),
		 OK);
}

static void mw_type1_bind_rebind_unbind(void)
{
	uint32_t mw, k1, k2;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	CHECK(mw_env(ALL_ACCESS | SNIC_ACCESS_MW_BIND));
	CHECK_EQ(mw_alloc(B, sb.pdn, SNIC_MW_TYPE_1, 0x30, &mw), OK);
	k1 = SNIC_MAKE_KEY(SNIC_KEY_INDEX(mw), 0x31);
	CHECK_EQ(bind_st(k1, &bm, WIN_OFF, WIN_LEN, RW |
			 SNIC_ACCESS_REMOTE_ATOMIC), SNIC_RST_OK);
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_WRITE, k1, WIN_OFF + 100, 100), 0);
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_READ, k1, WIN_OFF, 256), 0);
	CHECK_EQ(remote_st(SNIC_WQE_ATOMIC_FA, k1, WIN_OFF + 64, 8), 0);
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_READ, k1, WIN_OFF + WIN_LEN, 8),
		 SNIC_RST_REM_ACCESS);
	CHECK(pair_reconnect());
	/* a type 1 window is rebound while bound: the old key dies */
	k2 = SNIC_MAKE_KEY(SNIC_KEY_INDEX(mw), 0x32);
	CHECK_EQ(bind_st(k2, &bm, 0, 4096, SNIC_ACCESS_REMOTE_READ),
		 SNIC_RST_OK);
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_READ, k2, 0, 64), 0);
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_WRITE, k1, WIN_OFF, 8),
		 SNIC_RST_REM_ACCESS);
	CHECK(pair_reconnect());
	/* ... and is not invalidated by LOCAL_INV (IBA: type 2 only) */
	w_init(&w, SNIC_WQE_LOCAL_INV, SNIC_WQE_F_SIGNAL, k2);
	idx = qp_post(&sb.qp, &w);
	CHECK(cq_wait(&sb.scq, &e, 1000000));
	CHECK_EQ(e.wqe_counter, idx);
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_PROT);
	CHECK(pair_reconnect());
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_READ, k2, 0, 64), 0);
	/* a bind of length 0 unbinds it */
	k1 = SNIC_MAKE_KEY(SNIC_KEY_INDEX(mw), 0x33);
	CHECK_EQ(bind_st(k1, &bm, 0, 0, 0), SNIC_RST_OK);
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_READ, k1, 0, 64),
		 SNIC_RST_REM_ACCESS);
	CHECK(pair_reconnect());
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_MR, SNIC_KEY_INDEX(bm.key)),
		 OK);
	CHECK_EQ(mw_stat(B, 0), 3);
}

/* Binds the device refuses: SNIC_RST_MW_BIND, counted, nothing bound. */
static void mw_bind_refused(void)
{
	struct mr nobind, ro, other;
	uint32_t mw, mw1, k, opdn;

	CHECK(mw_env(ALL_ACCESS | SNIC_ACCESS_MW_BIND));
	CHECK_EQ(mr_create(&nobind, B, sb.pdn, 8192, ALL_ACCESS, 0), OK);
	CHECK_EQ(mr_create(&ro, B, sb.pdn, 8192, SNIC_ACCESS_REMOTE_READ |
			   SNIC_ACCESS_MW_BIND, 0), OK);
	opdn = pd_create(B);
	CHECK_EQ(mr_create(&other, B, opdn, 8192, ALL_ACCESS |
			   SNIC_ACCESS_MW_BIND, 0), OK);
	CHECK_EQ(mw_alloc(B, sb.pdn, SNIC_MW_TYPE_2, 1, &mw), OK);
	k = SNIC_MAKE_KEY(SNIC_KEY_INDEX(mw), 2);
	/* the MR lacks MW_BIND */
	CHECK_EQ(bind_st(k, &nobind, 0, 64, RW), SNIC_RST_MW_BIND);
	CHECK(pair_reconnect());
	/* the window reaches past the MR */
	CHECK_EQ(bind_st(k, &bm, MW_LEN - 64, 128, RW), SNIC_RST_MW_BIND);
	CHECK(pair_reconnect());
	/* remote WRITE over an MR that is not locally writable */
	CHECK_EQ(bind_st(k, &ro, 0, 64, SNIC_ACCESS_REMOTE_WRITE),
		 SNIC_RST_MW_BIND);
	CHECK(pair_reconnect());
	/* an MR of another PD */
	CHECK_EQ(bind_st(k, &other, 0, 64, RW), SNIC_RST_MW_BIND);
	CHECK(pair_reconnect());
	/* a type 2 bind of length 0 */
	CHECK_EQ(bind_st(k, &bm, 0, 0, RW), SNIC_RST_MW_BIND);
	CHECK(pair_reconnect());
	/* a window of another PD; an ordinary MR's key as the window */
	CHECK_EQ(mw_alloc(B, opdn, SNIC_MW_TYPE_1, 1, &mw1), OK);
	CHECK_EQ(bind_st(SNIC_MAKE_KEY(SNIC_KEY_INDEX(mw1), 2), &bm, 0, 64, RW),
		 SNIC_RST_MW_BIND);
	CHECK(pair_reconnect());
	CHECK_EQ(bind_st(bm.key, &bm, 0, 64, RW), SNIC_RST_MW_BIND);
	CHECK(pair_reconnect());
	CHECK_EQ(mw_stat(B, 1), 7);
	CHECK_EQ(mw_stat(B, 0), 0);
	/* nothing got bound: READ through the key fails, the MR may go */
	CHECK_EQ(remote_st(SNIC_WQE_RDMA_READ, k, 0, 8), SNIC_RST_REM_ACCESS);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_MR, SNIC_KEY_INDEX(bm.key)),
		 OK);
	/* admin: unknown type, unknown PD; the PD is held by its window */
	CHECK_EQ(mw_alloc(B, sb.pdn, 3, 0, &k), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(mw_alloc(B, 1000, SNIC_MW_TYPE_1, 0, &k), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_MR, SNIC_KEY_INDEX(other.key)),
		 OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_PD, opdn), SNIC_AQ_EBUSY);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DEALLOC_MW, SNIC_KEY_INDEX(mw1)), OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_PD, opdn), OK);
}

int main(void)
{
	RUN("device/snic_rdma_mw", mw_type2_bind_access_invalidate);
	RUN("device/snic_rdma_mw", mw_type1_bind_rebind_unbind);
	RUN("device/snic_rdma_mw", mw_bind_refused);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
