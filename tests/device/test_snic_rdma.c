/*
 * snic device tier: the RoCEv2 transport of docs/snic-rdma.md, driven
 * through qtest with no guest.
 *
 * Topology as test_snic_eth: two snic functions (A, B) on one QEMU hub and
 * a third hub port that is a datagram socket held by this program, which
 * captures every frame (to check ICRCs independently) and injects
 * malformed RoCE frames.  Each test starts a fresh QEMU; the virtual clock
 * only moves when the test steps it (retransmit and RNR timers).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "../lib/check.h"
#include "snic_dev.h"

#define OK		SNIC_AQ_OK
#define BAR_BASE(i)	(0xe0000000ull + (uint64_t)(i) * 0x400000ull)
#define RAM_BASE(i)	(0x1000000ull + (uint64_t)(i) * SNIC_DEV_RAM_SIZE)
#define HEAP_BASE	0x1200000ull
#define HEAP_END	0xf000000ull
#define UNMAPPED	0x4000000000ull
#define PORT_MTU	9000
#define IOVA_BASE	0x7f0000000000ull	/* virtual addresses of MRs */
#define ALL_ACCESS	(SNIC_ACCESS_LOCAL_WRITE | SNIC_ACCESS_REMOTE_WRITE | \
			 SNIC_ACCESS_REMOTE_READ | SNIC_ACCESS_REMOTE_ATOMIC)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const uint8_t mac_a[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t mac_b[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x02 };
static const uint32_t ip_a = 0x0a000001, ip_b = 0x0a000002;

static struct qt *qt;
static struct snic_dev dev[2];
#define A (&dev[0])
#define B (&dev[1])
static int inj = -1;
static uint64_t heap;

/* ------------------------------------------------------------------ */
/* Environment                                                         */
/* ------------------------------------------------------------------ */

static uint64_t galloc(size_t size, size_t align)
{
	uint64_t a = (heap + align - 1) & ~(uint64_t)(align - 1);

	if (a + size > HEAP_END) {
		fprintf(stderr, "test heap exhausted\n");
		exit(1);
	}
	heap = a + size;
	qt_memset(qt, a, 0, size);
	return a;
}

static void mread(uint64_t addr, void *buf, size_t len)
{
	size_t off, n;

	for (off = 0; off < len; off += n) {
		n = len - off > 16384 ? 16384 : len - off;
		qt_memread(qt, addr + off, (uint8_t *)buf + off, n);
	}
}

static void mwrite(uint64_t addr, const void *buf, size_t len)
{
	size_t off, n;

	for (off = 0; off < len; off += n) {
		n = len - off > 16384 ? 16384 : len - off;
		qt_memwrite(qt, addr + off, (const uint8_t *)buf + off, n);
	}
}

static void inj_close(void)
{
	if (inj >= 0)
		close(inj);
	inj = -1;
}

static bool inj_open(int *qfd)
{
	struct sockaddr_in a = { .sin_family = AF_INET }, b;
	socklen_t l = sizeof(b);
	int q, t, big = 8 << 20;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	q = socket(AF_INET, SOCK_DGRAM, 0);
	t = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (q < 0 || t < 0 || bind(q, (void *)&a, sizeof(a)) ||
	    bind(t, (void *)&a, sizeof(a)))
		return false;
	if (getsockname(t, (void *)&b, &l) || connect(q, (void *)&b, l))
		return false;
	l = sizeof(b);
	if (getsockname(q, (void *)&b, &l) || connect(t, (void *)&b, l))
		return false;
	setsockopt(t, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	inj = t;
	*qfd = q;
	return true;
}

static bool inj_send(const void *f, size_t len)
{
	return send(inj, f, len, 0) == (ssize_t)len;
}

static void cap_drain(void)
{
	uint8_t buf[16384];

	while (recv(inj, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

static int cap_recv(void *buf, size_t len, int ms)
{
	struct pollfd p = { .fd = inj, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return -1;
	return recv(inj, buf, len, MSG_DONTWAIT);
}

/* Main-loop turns (bottom halves, frames); the capture port is drained. */
static void pump(int n)
{
	while (n--)
		qt_readl(qt, A->bar0 + SNIC_REG_ID);
	cap_drain();
}

static int port_up(struct snic_dev *d, uint16_t async_eqn)
{
	struct snic_port_cfg c;

	memset(&c, 0, sizeof(c));
	c.flags = SNIC_PORT_F_UP;
	c.mtu = PORT_MTU;
	c.num_macs = 1;
	c.async_eqn = async_eqn;
	memcpy(c.macs[0], d == A ? mac_a : mac_b, 6);
	return snic_aq_buf(d, SNIC_AQ_SET_PORT, &c, sizeof(c), sizeof(c), 0, 0,
			   NULL, 0, NULL);
}

/* Fresh QEMU with A and B (admin queues up, ports up, MTU 9000). */
static bool env_start_opts(const char *opts)
{
	char args[2048];
	int qfd, i;

	qt_quit(qt);
	qt = NULL;
	inj_close();
	if (!inj_open(&qfd))
		return false;
	snprintf(args, sizeof(args),
		 "-netdev hubport,id=p0,hubid=0 -netdev hubport,id=p1,hubid=0 "
		 "-netdev dgram,id=inj,local.type=fd,local.str=%d "
		 "-netdev hubport,id=p2,hubid=0,netdev=inj "
		 "-device snic,id=snic0,netdev=p0,mac=52:54:00:00:00:01%s "
		 "-device snic,id=snic1,netdev=p1,mac=52:54:00:00:00:02%s",
		 qfd, opts, opts);
	qt = qt_start(args);
	close(qfd);
	if (!qt_alive(qt))
		return false;
	heap = HEAP_BASE;
	for (i = 0; i < 2; i++) {
		if (!snic_dev_open(&dev[i], qt, i, BAR_BASE(i), RAM_BASE(i)) ||
		    !snic_aq_ready(&dev[i], 64) ||
		    port_up(&dev[i], SNIC_EQN_NONE) != OK)
			return false;
	}
	cap_drain();
	return true;
}

static bool env_start(void)
{
	return env_start_opts("");
}

static bool rstats(struct snic_dev *d, struct snic_rdma_stats *s)
{
	return snic_query_stats(d, SNIC_STATS_RDMA, 0, s, sizeof(*s)) == OK;
}

/* ------------------------------------------------------------------ */
/* CQs, EQs, PDs, MRs                                                  */
/* ------------------------------------------------------------------ */

struct cq {
	struct snic_dev *d;
	uint32_t n, size, cons;
	uint64_t ring, dbr;
	uint16_t page;
};

static int cq_create(struct cq *c, struct snic_dev *d, int log, uint32_t eqn,
		     int page)
{
	struct snic_aq_create_cq a = { 0 };
	uint64_t r = ~0ull;
	int st;

	memset(c, 0, sizeof(*c));
	c->d = d;
	c->size = 1u << log;
	c->ring = galloc(sizeof(struct snic_cqe) * c->size, 64);
	c->dbr = galloc(64, 64);
	c->page = page;
	a.ring_addr = c->ring;
	a.dbr_addr = c->dbr;
	a.log_size = log;
	a.eqn = eqn;
	a.db_page = page;
	st = snic_aq_cmd(d, SNIC_AQ_CREATE_CQ, &a, sizeof(a), &r);
	c->n = r;
	return st;
}

static bool cq_peek(struct cq *c, struct snic_cqe *q, int tries)
{
	return snic_ring_peek(qt, c->ring, c->size, c->cons, q, sizeof(*q),
			      offsetof(struct snic_cqe, op_own), tries);
}

/*
 * Wait for the next CQE, pumping the main loop and (with @step_ns) moving
 * the virtual clock so timers fire.
 */
static bool cq_wait(struct cq *c, struct snic_cqe *q, uint64_t step_ns)
{
	int i;

	for (i = 0; i < 400; i++) {
		if (cq_peek(c, q, 1)) {
			c->cons++;
			qt_writel(qt, c->dbr, c->cons & 0xffff);
			return true;
		}
		pump(4);
		if (step_ns && i % 4 == 3)
			qt_clock_step(qt, step_ns);
	}
	return false;
}

static bool cq_empty(struct cq *c)
{
	struct snic_cqe q;

	pump(32);
	return !cq_peek(c, &q, 2);
}

struct eq {
	uint32_t n, size, cons;
	uint64_t ring;
};

static int eq_create(struct eq *e, struct snic_dev *d, int page)
{
	struct snic_aq_create_eq c = { 0 };
	uint64_t r = ~0ull;
	int st;

	memset(e, 0, sizeof(*e));
	e->size = 16;
	e->ring = galloc(sizeof(struct snic_eqe) * e->size, 64);
	c.ring_addr = e->ring;
	c.log_size = 4;
	c.msix = 1;
	c.db_page = page;
	st = snic_aq_cmd(d, SNIC_AQ_CREATE_EQ, &c, sizeof(c), &r);
	e->n = r;
	return st;
}

/* Next EQE of type @type (others skipped), if any. */
static bool eq_find(struct eq *e, uint8_t type, struct snic_eqe *q)
{
	pump(8);
	while (snic_ring_peek(qt, e->ring, e->size, e->cons, q, sizeof(*q),
			      offsetof(struct snic_eqe, owner), 2)) {
		e->cons++;
		if (q->type == type)
			return true;
	}
	return false;
}

static uint32_t pd_create(struct snic_dev *d)
{
	uint64_t r = ~0ull;

	if (snic_aq_cmd(d, SNIC_AQ_CREATE_PD, NULL, 0, &r) != OK)
		return ~0u;
	return r;
}

/* A buffer in guest RAM and an MR over it (4 KiB pages, iova chosen). */
struct mr {
	uint32_t key;
	uint64_t iova, bus;
	size_t len;
};

/*
 * MR of @len bytes whose pages are scattered: page i of the iova range is
 * guest page (npages - 1 - i) of the allocation, so translation is tested.
 */
static int mr_create(struct mr *m, struct snic_dev *d, uint32_t pdn,
		     size_t len, uint32_t access, uint32_t off)
{
	uint32_t np = (off + len + 4095) / 4096, i;
	uint64_t pas = galloc(8 * np, 64);
	struct snic_mr_cfg c = { 0 };

	memset(m, 0, sizeof(*m));
	m->bus = galloc((size_t)np * 4096, 4096);
	m->len = len;
	m->iova = IOVA_BASE + heap + off;
	for (i = 0; i < np; i++) {
		uint64_t pa = m->bus + (uint64_t)(np - 1 - i) * 4096;

		qt_memwrite(qt, pas + 8 * i, &pa, 8);
	}
	c.pdn = pdn;
	c.access = access;
	c.key_tag = 0x5a;
	c.iova = m->iova;
	c.length = len;
	c.pas_addr = pas;
	c.npages = np;
	c.page_shift = 12;
	return snic_rdma_create_mr(d, &c, &m->key);
}

/* Guest physical address of byte @o of the MR (see mr_create). */
static uint64_t mr_pa(const struct mr *m, uint64_t o)
{
	uint64_t va = m->iova + o, base = m->iova & ~4095ull;
	uint64_t pg = (va - base) / 4096;
	uint32_t np = ((m->iova & 4095) + m->len + 4095) / 4096;

	return m->bus + (uint64_t)(np - 1 - pg) * 4096 + (va & 4095);
}

static void mr_write(const struct mr *m, uint64_t o, const void *buf,
		     size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		size_t n = 4096 - ((m->iova + o) & 4095);

		n = n > len ? len : n;
		mwrite(mr_pa(m, o), p, n);
		p += n;
		o += n;
		len -= n;
	}
}

static void mr_read(const struct mr *m, uint64_t o, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		size_t n = 4096 - ((m->iova + o) & 4095);

		n = n > len ? len : n;
		mread(mr_pa(m, o), p, n);
		p += n;
		o += n;
		len -= n;
	}
}

/* ------------------------------------------------------------------ */
/* QPs and WQEs                                                        */
/* ------------------------------------------------------------------ */

struct qp {
	struct snic_dev *d;
	uint32_t qpn, pdn;
	uint8_t type;
	uint32_t sq_size, rq_size, stride;
	uint64_t sq, rq, dbr;
	uint16_t sq_prod, rq_prod;
	uint16_t page;
	int srqn;
};

static int qp_create_f(struct qp *q, struct snic_dev *d, uint8_t type,
		       uint32_t pdn, struct cq *scq, struct cq *rcq, int srqn,
		       uint8_t flags)
{
	struct snic_aq_create_qp a = { 0 };
	uint64_t r = ~0ull;
	int st;

	memset(q, 0, sizeof(*q));
	q->d = d;
	q->type = type;
	q->pdn = pdn;
	q->sq_size = 64;
	q->rq_size = srqn < 0 ? 32 : 0;
	q->stride = 256;
	q->page = 4;
	q->srqn = srqn;
	q->sq = galloc(SNIC_WQEBB_SIZE * q->sq_size, 64);
	q->rq = galloc(q->stride * 32, 64);
	q->dbr = galloc(64, 64);
	a.type = type;
	a.flags = flags;
	a.sq_log = 6;
	a.rq_log = srqn < 0 ? 5 : 0;
	a.rq_log_stride = 8;
	a.db_page = q->page;
	a.pdn = pdn;
	a.send_cqn = scq->n;
	a.recv_cqn = rcq->n;
	a.srqn = srqn < 0 ? SNIC_SRQN_NONE : srqn;
	a.sq_addr = q->sq;
	a.rq_addr = q->rq;
	a.dbr_addr = q->dbr;
	st = snic_aq_cmd(d, SNIC_AQ_CREATE_QP, &a, sizeof(a), &r);
	q->qpn = r;
	return st;
}

static int qp_create(struct qp *q, struct snic_dev *d, uint8_t type,
		     uint32_t pdn, struct cq *scq, struct cq *rcq, int srqn)
{
	return qp_create_f(q, d, type, pdn, scq, rcq, srqn, 0);
}

static int qp_state(struct qp *q, uint8_t state, uint32_t mask,
		    struct snic_qp_attr *a)
{
	a->mask = mask | SNIC_QP_ATTR_STATE;
	a->state = state;
	return snic_rdma_modify_qp(q->d, q->qpn, a);
}

struct conn {
	uint8_t mtu;		/* SNIC_MTU_* */
	uint8_t timeout, retry, rnr_retry, rnr_timer;
	uint8_t rd_atomic;
};

static const struct conn conn_default = {
	.mtu = SNIC_MTU_1024, .timeout = 14, .retry = 7, .rnr_retry = 7,
	.rnr_timer = 1, .rd_atomic = 4,
};

static void av_fill(struct snic_av *av, struct snic_dev *from)
{
	memset(av, 0, sizeof(*av));
	memcpy(av->dmac, from == A ? mac_b : mac_a, 6);
	memcpy(av->smac, from == A ? mac_a : mac_b, 6);
	av->sip = htonl(from == A ? ip_a : ip_b);
	av->dip = htonl(from == A ? ip_b : ip_a);
	av->ttl = 64;
	av->udp_sport = 0xc000 | (from == A ? 1 : 2);
}

/* RESET -> INIT -> RTR (-> RTS with @rts) of RC QP @q towards @peer. */
static bool qp_connect_to(struct qp *q, const struct qp *peer,
			  const struct conn *c, uint32_t sq_psn,
			  uint32_t rq_psn, bool rts)
{
	struct snic_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.access = SNIC_ACCESS_REMOTE_WRITE | SNIC_ACCESS_REMOTE_READ |
		   SNIC_ACCESS_REMOTE_ATOMIC;
	if (qp_state(q, SNIC_QPS_INIT, SNIC_QP_ATTR_PKEY_INDEX |
		     SNIC_QP_ATTR_ACCESS, &a) != OK)
		return false;
	memset(&a, 0, sizeof(a));
	av_fill(&a.av, q->d);
	a.path_mtu = c->mtu;
	a.dest_qpn = peer->qpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = c->rnr_timer;
	if (qp_state(q, SNIC_QPS_RTR, SNIC_QP_ATTR_AV | SNIC_QP_ATTR_PATH_MTU |
		     SNIC_QP_ATTR_DEST_QPN | SNIC_QP_ATTR_RQ_PSN |
		     SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC |
		     SNIC_QP_ATTR_MIN_RNR_TIMER, &a) != OK)
		return false;
	if (!rts)
		return true;
	memset(&a, 0, sizeof(a));
	a.sq_psn = sq_psn;
	a.timeout = c->timeout;
	a.retry_cnt = c->retry;
	a.rnr_retry = c->rnr_retry;
	a.max_rd_atomic = c->rd_atomic;
	return qp_state(q, SNIC_QPS_RTS, SNIC_QP_ATTR_SQ_PSN |
			SNIC_QP_ATTR_TIMEOUT | SNIC_QP_ATTR_RETRY_CNT |
			SNIC_QP_ATTR_RNR_RETRY | SNIC_QP_ATTR_MAX_RD_ATOMIC,
			&a) == OK;
}

static bool qp_connect(struct qp *q, const struct qp *peer,
		       const struct conn *c, uint32_t sq_psn, uint32_t rq_psn)
{
	return qp_connect_to(q, peer, c, sq_psn, rq_psn, true);
}

/* UD/GSI QP to RTS. */
static bool qp_ud_up(struct qp *q, uint32_t qkey)
{
	struct snic_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qkey = qkey;
	return qp_state(q, SNIC_QPS_INIT, SNIC_QP_ATTR_PKEY_INDEX |
			SNIC_QP_ATTR_QKEY, &a) == OK &&
	       qp_state(q, SNIC_QPS_RTR, 0, &a) == OK &&
	       qp_state(q, SNIC_QPS_RTS, SNIC_QP_ATTR_SQ_PSN, &a) == OK;
}

static uint8_t qp_query_state(struct qp *q)
{
	struct snic_qp_attr a;

	if (snic_rdma_query_qp(q->d, q->qpn, &a) != OK)
		return 0xff;
	return a.state;
}

/* A send WQE under construction. */
struct wqe {
	uint8_t b[SNIC_WQE_MAX_BBS * SNIC_WQEBB_SIZE];
	unsigned ds;
};

static void w_init(struct wqe *w, uint8_t op, uint8_t flags, uint32_t imm)
{
	struct snic_wqe_ctrl *c = (void *)w->b;

	memset(w, 0, sizeof(*w));
	c->opcode = op;
	c->flags = flags;
	c->imm = htonl(imm);
	w->ds = 1;
}

static void w_seg(struct wqe *w, const void *p, size_t len)
{
	memcpy(w->b + 16 * w->ds, p, len);
	w->ds += (len + 15) / 16;
}

static void w_data(struct wqe *w, uint32_t len, uint32_t lkey, uint64_t addr)
{
	struct snic_wqe_data d = { .byte_count = len, .lkey = lkey,
				   .addr = addr };

	w_seg(w, &d, sizeof(d));
}

static void w_raddr(struct wqe *w, uint64_t addr, uint32_t rkey)
{
	struct snic_wqe_raddr r = { .addr = addr, .rkey = rkey };

	w_seg(w, &r, sizeof(r));
}

static void w_inline(struct wqe *w, const void *p, uint32_t len)
{
	uint32_t h = SNIC_INLINE_SEG | len;

	memcpy(w->b + 16 * w->ds, &h, 4);
	memcpy(w->b + 16 * w->ds + 4, p, len);
	w->ds += (4 + len + 15) / 16;
}

/* Copy the WQE at the producer; no doorbell.  Returns its wqe_idx. */
static uint16_t qp_put(struct qp *q, struct wqe *w)
{
	struct snic_wqe_ctrl *c = (void *)w->b;
	unsigned nbb = w->ds ? (w->ds + 3) / 4 : 1, i;
	uint16_t idx = q->sq_prod;

	c->ds_cnt = w->ds;
	c->wqe_idx = idx;
	for (i = 0; i < nbb; i++, q->sq_prod++)
		qt_memwrite(qt, q->sq + (q->sq_prod & (q->sq_size - 1)) *
			    SNIC_WQEBB_SIZE, w->b + i * SNIC_WQEBB_SIZE,
			    SNIC_WQEBB_SIZE);
	return idx;
}

static void qp_ring(struct qp *q)
{
	qt_writel(qt, q->dbr + 4, q->sq_prod);
	snic_db(q->d, q->page, SNIC_DB_QP_SQ, q->qpn, q->sq_prod);
}

static uint16_t qp_post(struct qp *q, struct wqe *w)
{
	uint16_t idx = qp_put(q, w);

	qp_ring(q);
	return idx;
}

/* Receive WQE with one scatter entry (or none with @len 0). */
static void qp_recv(struct qp *q, uint64_t cookie, uint32_t len, uint32_t lkey,
		    uint64_t addr)
{
	uint8_t b[32] = { 0 };
	struct snic_recv_hdr *h = (void *)b;
	struct snic_wqe_data *d = (void *)(b + 16);

	h->cookie = cookie;
	h->num_sge = len ? 1 : 0;
	d->byte_count = len;
	d->lkey = lkey;
	d->addr = addr;
	qt_memwrite(qt, q->rq + (q->rq_prod & (q->rq_size - 1)) * q->stride, b,
		    sizeof(b));
	q->rq_prod++;
	qt_writel(qt, q->dbr, q->rq_prod);
	snic_db(q->d, q->page, SNIC_DB_QP_RQ, q->qpn, q->rq_prod);
}

/* ------------------------------------------------------------------ */
/* A connected pair: PD, MRs, CQs and an RC QP on each side            */
/* ------------------------------------------------------------------ */

#define BUF_LEN		(256 * 1024)

struct side {
	struct snic_dev *d;
	uint32_t pdn;
	struct cq scq, rcq;
	struct qp qp;
	struct mr mr;		/* BUF_LEN, all access */
};

static struct side sa, sb;

static bool side_make(struct side *s, struct snic_dev *d, uint8_t type)
{
	memset(s, 0, sizeof(*s));
	s->d = d;
	s->pdn = pd_create(d);
	return s->pdn != ~0u &&
	       cq_create(&s->scq, d, 8, SNIC_EQN_NONE, 4) == OK &&
	       cq_create(&s->rcq, d, 8, SNIC_EQN_NONE, 4) == OK &&
	       mr_create(&s->mr, d, s->pdn, BUF_LEN, ALL_ACCESS, 0x80) == OK &&
	       qp_create(&s->qp, d, type, s->pdn, &s->scq, &s->rcq, -1) == OK;
}

static bool pair_up(const struct conn *c)
{
	return side_make(&sa, A, SNIC_QPT_RC) && side_make(&sb, B, SNIC_QPT_RC) &&
	       qp_connect(&sa.qp, &sb.qp, c, 100, 5000) &&
	       qp_connect(&sb.qp, &sa.qp, c, 5000, 100);
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

/* Expect a send CQE on @c for wqe @idx with @op, status 0, @bytes. */
#define CHECK_REQ(c, idx, op, bytes, e) do {				\
	CHECK(cq_wait((c), (e), 1000000));				\
	CHECK_EQ((e)->syndrome, SNIC_RST_OK);				\
	CHECK_EQ((e)->opcode, SNIC_CQE_REQ);				\
	CHECK_EQ((e)->wqe_counter, (uint16_t)(idx));			\
	CHECK_EQ((e)->wqe_opcode, (op));				\
	CHECK_EQ((e)->byte_cnt, (bytes));				\
} while (0)

/* ------------------------------------------------------------------ */
/* Tests: objects and admin                                            */
/* ------------------------------------------------------------------ */

static void caps_and_objects(void)
{
	struct snic_identify_data id;
	struct snic_qp_attr a;
	struct cq c1;
	struct qp q, g, g2;
	struct mr m;
	uint32_t pdn;

	CHECK(env_start());
	CHECK_EQ(snic_identify(A, &id), OK);
	CHECK(id.caps & SNIC_CAP_RDMA);
	CHECK(snic_rd(A, SNIC_REG_CAPS_LO) & SNIC_CAP_RDMA);
	pdn = pd_create(A);
	CHECK(pdn != ~0u);
	CHECK_EQ(cq_create(&c1, A, 6, SNIC_EQN_NONE, 4), OK);
	CHECK_EQ(mr_create(&m, A, pdn, 10000, ALL_ACCESS, 0x10), OK);
	CHECK(SNIC_KEY_INDEX(m.key) != 0);
	CHECK_EQ(SNIC_KEY_TAG(m.key), 0x5a);
	CHECK_EQ(qp_create(&q, A, SNIC_QPT_RC, pdn, &c1, &c1, -1), OK);
	CHECK(q.qpn >= 2);
	CHECK_EQ(qp_create(&g, A, SNIC_QPT_GSI, pdn, &c1, &c1, -1), OK);
	CHECK_EQ(g.qpn, SNIC_GSI_QPN);
	CHECK_EQ(qp_create(&g2, A, SNIC_QPT_GSI, pdn, &c1, &c1, -1),
		 SNIC_AQ_EBUSY);
	/* in use */
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_PD, pdn), SNIC_AQ_EBUSY);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_CQ, c1.n), SNIC_AQ_EBUSY);
	/* QUERY_QP of a fresh QP */
	CHECK_EQ(snic_rdma_query_qp(A, q.qpn, &a), OK);
	CHECK_EQ(a.state, SNIC_QPS_RESET);
	CHECK_EQ(a.sq_outstanding, 0);
	/* destroy in order */
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_QP, q.qpn), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_QP, q.qpn), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_QP, g.qpn), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_MR, SNIC_KEY_INDEX(m.key)), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_MR, SNIC_KEY_INDEX(m.key)),
		 SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_PD, pdn), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_CQ, c1.n), OK);
}

static void hostile_admin(void)
{
	struct snic_aq_create_qp cq_bad;
	struct snic_mr_cfg mc;
	struct snic_qp_attr a;
	struct cq c1;
	struct qp q;
	uint32_t pdn, key;
	uint64_t r;
	int i;

	CHECK(env_start());
	pdn = pd_create(A);
	CHECK_EQ(cq_create(&c1, A, 6, SNIC_EQN_NONE, 4), OK);
	/* bad ids */
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_PD, 5000), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_QP, 0xffffffff), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_SRQ, 77), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_MR, 0), SNIC_AQ_ENOENT);
	CHECK_EQ(qp_create(&q, A, SNIC_QPT_RC, pdn + 1, &c1, &c1, -1),
		 SNIC_AQ_ENOENT);
	CHECK_EQ(qp_create(&q, A, SNIC_QPT_RC, pdn, &c1, &c1, 3),
		 SNIC_AQ_ENOENT);
	CHECK_EQ(qp_create(&q, A, 9, pdn, &c1, &c1, -1), SNIC_AQ_EINVAL_PARAM);
	memset(&cq_bad, 0, sizeof(cq_bad));
	cq_bad.type = SNIC_QPT_RC;
	cq_bad.sq_log = 20;
	cq_bad.rq_log = 4;
	cq_bad.rq_log_stride = 6;
	cq_bad.pdn = pdn;
	cq_bad.send_cqn = cq_bad.recv_cqn = c1.n;
	cq_bad.srqn = SNIC_SRQN_NONE;
	CHECK_EQ(snic_aq_cmd(A, SNIC_AQ_CREATE_QP, &cq_bad, sizeof(cq_bad), &r),
		 SNIC_AQ_EINVAL_PARAM);
	cq_bad.sq_log = 4;
	cq_bad.sq_addr = UNMAPPED;
	CHECK_EQ(snic_aq_cmd(A, SNIC_AQ_CREATE_QP, &cq_bad, sizeof(cq_bad), &r),
		 SNIC_AQ_EDMA);
	/* MRs: bad page shift, unreachable page list, too many pages */
	memset(&mc, 0, sizeof(mc));
	mc.pdn = pdn;
	mc.length = 4096;
	mc.npages = 1;
	mc.page_shift = 40;
	mc.pas_addr = galloc(64, 64);
	CHECK_EQ(snic_rdma_create_mr(A, &mc, &key), SNIC_AQ_EINVAL_PARAM);
	mc.page_shift = 12;
	mc.length = 8192;
	CHECK_EQ(snic_rdma_create_mr(A, &mc, &key), SNIC_AQ_EINVAL_PARAM);
	mc.length = 4096;
	mc.pas_addr = UNMAPPED;
	CHECK_EQ(snic_rdma_create_mr(A, &mc, &key), SNIC_AQ_EDMA);
	mc.npages = SNIC_MAX_MR_PAGES + 1;
	CHECK_EQ(snic_rdma_create_mr(A, &mc, &key), SNIC_AQ_EINVAL_PARAM);
	mc.npages = 1;
	mc.flags = 0x80;
	CHECK_EQ(snic_rdma_create_mr(A, &mc, &key), SNIC_AQ_EINVAL_PARAM);
	/* state machine */
	CHECK_EQ(qp_create(&q, A, SNIC_QPT_RC, pdn, &c1, &c1, -1), OK);
	memset(&a, 0, sizeof(a));
	CHECK_EQ(qp_state(&q, SNIC_QPS_RTS, 0, &a), SNIC_AQ_ESTATE);
	CHECK_EQ(qp_state(&q, SNIC_QPS_RTR, 0, &a), SNIC_AQ_ESTATE);
	CHECK_EQ(qp_state(&q, SNIC_QPS_SQD, 0, &a), SNIC_AQ_ESTATE);
	/* missing required attributes */
	CHECK_EQ(qp_state(&q, SNIC_QPS_INIT, 0, &a), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(qp_state(&q, SNIC_QPS_INIT, SNIC_QP_ATTR_PKEY_INDEX |
			  SNIC_QP_ATTR_ACCESS, &a), OK);
	CHECK_EQ(qp_query_state(&q), SNIC_QPS_INIT);
	CHECK_EQ(qp_state(&q, SNIC_QPS_RTS, 0, &a), SNIC_AQ_ESTATE);
	CHECK_EQ(qp_state(&q, SNIC_QPS_RTR, SNIC_QP_ATTR_AV, &a),
		 SNIC_AQ_EINVAL_PARAM);
	/* cur_state that does not match */
	a.cur_state = SNIC_QPS_RTS;
	CHECK_EQ(qp_state(&q, SNIC_QPS_INIT, SNIC_QP_ATTR_CUR_STATE, &a),
		 SNIC_AQ_ESTATE);
	/* out of range values */
	a.path_mtu = 9;
	CHECK_EQ(qp_state(&q, SNIC_QPS_INIT, SNIC_QP_ATTR_PATH_MTU, &a),
		 SNIC_AQ_EINVAL_PARAM);
	a.path_mtu = 0;
	a.state = 77;
	a.mask = SNIC_QP_ATTR_STATE;
	CHECK_EQ(snic_rdma_modify_qp(A, q.qpn, &a), SNIC_AQ_EINVAL_PARAM);
	/* short buffer */
	CHECK_EQ(snic_aq_buf(A, SNIC_AQ_MODIFY_QP, &a, sizeof(a), 10, q.qpn, 0,
			     NULL, 0, NULL), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(snic_aq_buf(A, SNIC_AQ_QUERY_QP, NULL, 0, 10, q.qpn, 0,
			     NULL, 0, NULL), SNIC_AQ_EINVAL_PARAM);
	/* PSNs cannot change once the QP runs */
	a.mask = SNIC_QP_ATTR_RQ_PSN;
	a.rq_psn = 1;
	CHECK_EQ(snic_rdma_modify_qp(A, q.qpn, &a), OK);	/* in INIT */
	/* any -> ERR, ERR -> RTS refused, ERR -> RESET -> INIT */
	CHECK_EQ(qp_state(&q, SNIC_QPS_ERR, 0, &a), OK);
	CHECK_EQ(qp_state(&q, SNIC_QPS_RTS, 0, &a), SNIC_AQ_ESTATE);
	CHECK_EQ(qp_state(&q, SNIC_QPS_RESET, 0, &a), OK);
	CHECK_EQ(qp_query_state(&q), SNIC_QPS_RESET);
	/* doorbells for no QP / a foreign page / beyond the ring */
	snic_db(A, 4, SNIC_DB_QP_SQ, 999, 1);
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_DB_QUEUE);
	snic_db(A, 9, SNIC_DB_QP_SQ, q.qpn, 1);
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_DB_PAGE);
	snic_db(A, 4, SNIC_DB_QP_SQ, q.qpn, 1000);
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_DB_RANGE);
	snic_db(A, 4, SNIC_DB_SRQ, 3, 1);
	CHECK_EQ(snic_rd(A, SNIC_REG_ERROR), SNIC_ERR_DB_QUEUE);
	/* random commands in the RDMA opcode range never hurt */
	srand(7);
	for (i = 0; i < 300; i++) {
		struct snic_aq_cmd c;
		unsigned k;

		memset(&c, 0, sizeof(c));
		c.opcode = 0x30 + rand() % 0x20;
		for (k = 0; k < sizeof(c.raw); k++)
			c.raw[k] = rand() % 3 ? 0 : rand();
		if (rand() % 2)
			c.buf.addr = galloc(128, 64);
		c.buf.len = rand() % 200;
		snic_aq_exec(A, &c, NULL);
	}
	CHECK(qt_alive(qt));
	CHECK_EQ(snic_rd(A, SNIC_REG_ID), SNIC_ID_MAGIC);
	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	memset(&a, 0, sizeof(a));
	a.mask = SNIC_QP_ATTR_SQ_PSN;
	CHECK_EQ(snic_rdma_modify_qp(A, sa.qp.qpn, &a), SNIC_AQ_EINVAL_PARAM);
	a.mask = SNIC_QP_ATTR_RQ_PSN | SNIC_QP_ATTR_STATE;
	a.state = SNIC_QPS_RTS;
	CHECK_EQ(snic_rdma_modify_qp(A, sa.qp.qpn, &a), SNIC_AQ_EINVAL_PARAM);
	a.mask = SNIC_QP_ATTR_TIMEOUT | SNIC_QP_ATTR_STATE;
	a.timeout = 9;
	CHECK_EQ(snic_rdma_modify_qp(A, sa.qp.qpn, &a), OK);	/* RTS->RTS */
	CHECK(snic_reset(A));
	CHECK(snic_aq_ready(A, 64));
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_QP, q.qpn), SNIC_AQ_ENOENT);
}

/* ------------------------------------------------------------------ */
/* Tests: data movement                                                */
/* ------------------------------------------------------------------ */

static void rc_send_recv(void)
{
	static uint8_t src[20000], dst[20000];
	struct snic_rdma_stats st;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	/* SEND: 20000 bytes in 20 packets of MTU 1024 into two receives */
	fill(src, sizeof(src), 1);
	mr_write(&sa.mr, 0, src, sizeof(src));
	qp_recv(&sb.qp, 0x1111, 30000, sb.mr.key, sb.mr.iova + 1000);
	qp_recv(&sb.qp, 0x2222, 100, sb.mr.key, sb.mr.iova + 40000);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, 15000, sa.mr.key, sa.mr.iova);
	w_data(&w, 5000, sa.mr.key, sa.mr.iova + 15000);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 20000, &e);
	CHECK_EQ(e.rdma_qpn, sa.qp.qpn);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.syndrome, 0);
	CHECK_EQ(e.cookie, 0x1111);
	CHECK_EQ(e.byte_cnt, 20000);
	CHECK_EQ(e.wqe_opcode, SNIC_WQE_SEND);
	CHECK_EQ(e.wqe_counter, 0);
	CHECK_EQ(e.rdma_flags, 0);
	mr_read(&sb.mr, 1000, dst, sizeof(dst));
	CHECK(!memcmp(src, dst, sizeof(dst)));
	/* SEND with immediate and solicited: 3 bytes */
	w_init(&w, SNIC_WQE_SEND_IMM, SNIC_WQE_F_SIGNAL | SNIC_WQE_F_SOLICITED,
	       0xcafe0001);
	w_data(&w, 3, sa.mr.key, sa.mr.iova + 7);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND_IMM, 3, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.cookie, 0x2222);
	CHECK_EQ(e.byte_cnt, 3);
	CHECK_EQ(e.wqe_opcode, SNIC_WQE_SEND_IMM);
	CHECK_EQ(e.rdma_flags, SNIC_CQE_RF_IMM | SNIC_CQE_RF_SOLICITED);
	CHECK_EQ(ntohl(e.imm), 0xcafe0001);
	CHECK_EQ(e.wqe_counter, 1);
	mr_read(&sb.mr, 40000, dst, 3);
	CHECK(!memcmp(dst, src + 7, 3));
	CHECK(rstats(A, &st));
	CHECK(st.tx_pkts >= 21);
	CHECK(st.rx_acks >= 1);
	CHECK_EQ(st.retransmits, 0);
	CHECK_EQ(st.rx_icrc_errors + st.rx_malformed + st.rx_no_qp, 0);
	CHECK(rstats(B, &st));
	CHECK(st.tx_acks >= 2);
	CHECK(st.tx_acks < 21);		/* coalesced */
	CHECK(cq_empty(&sa.scq));
	CHECK(cq_empty(&sb.rcq));
}

static void ud_send_recv(void)
{
	static uint8_t src[900], dst[1024];
	struct side ua, ub;
	struct snic_wqe_ud ud;
	struct snic_rdma_stats st;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	CHECK(env_start());
	CHECK(side_make(&ua, A, SNIC_QPT_UD));
	CHECK(side_make(&ub, B, SNIC_QPT_UD));
	CHECK(qp_ud_up(&ua.qp, 0x1234));
	CHECK(qp_ud_up(&ub.qp, 0x5678));
	fill(src, sizeof(src), 3);
	mr_write(&ua.mr, 0, src, sizeof(src));
	qp_recv(&ub.qp, 0xaa, 2000, ub.mr.key, ub.mr.iova + 64);
	memset(&ud, 0, sizeof(ud));
	av_fill(&ud.av, A);
	ud.dest_qpn = ub.qp.qpn;
	ud.qkey = 0x5678;
	w_init(&w, SNIC_WQE_SEND_IMM, SNIC_WQE_F_SIGNAL, 0x77);
	w_seg(&w, &ud, sizeof(ud));
	w_data(&w, sizeof(src), ua.mr.key, ua.mr.iova);
	idx = qp_post(&ua.qp, &w);
	CHECK_REQ(&ua.scq, idx, SNIC_WQE_SEND_IMM, sizeof(src), &e);
	CHECK(cq_wait(&ub.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.cookie, 0xaa);
	CHECK_EQ(e.byte_cnt, 40 + sizeof(src));
	CHECK_EQ(e.rdma_flags, SNIC_CQE_RF_GRH | SNIC_CQE_RF_IMM);
	CHECK_EQ(e.src_qpn, ua.qp.qpn);
	CHECK(!memcmp(e.smac, mac_a, 6));
	CHECK_EQ(ntohl(e.imm), 0x77);
	mr_read(&ub.mr, 64, dst, 40 + sizeof(src));
	{
		static const uint8_t zero[20];

		CHECK(!memcmp(dst, zero, 20));
		CHECK_EQ(dst[20], 0x45);		/* IPv4 header */
		CHECK_EQ(dst[20 + 9], 17);
		CHECK_EQ(ntohl(*(uint32_t *)(dst + 20 + 12)), ip_a);
		CHECK_EQ(ntohl(*(uint32_t *)(dst + 20 + 16)), ip_b);
	}
	CHECK(!memcmp(dst + 40, src, sizeof(src)));
	/* wrong qkey: dropped and counted, the receive stays posted */
	qp_recv(&ub.qp, 0xbb, 2000, ub.mr.key, ub.mr.iova + 4096);
	ud.qkey = 0x1111;
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &ud, sizeof(ud));
	w_data(&w, 10, ua.mr.key, ua.mr.iova);
	idx = qp_post(&ua.qp, &w);
	CHECK_REQ(&ua.scq, idx, SNIC_WQE_SEND, 10, &e);
	CHECK(cq_empty(&ub.rcq));
	CHECK(rstats(B, &st));
	CHECK_EQ(st.rx_bad_qkey, 1);
	/* qkey with the MSB set: the QP's own qkey is used */
	ud.qkey = 0x80000000;
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &ud, sizeof(ud));
	w_data(&w, 10, ua.mr.key, ua.mr.iova);
	qp_post(&ua.qp, &w);
	CHECK(cq_wait(&ua.scq, &e, 0));
	CHECK(cq_empty(&ub.rcq));
	CHECK(rstats(B, &st));
	CHECK_EQ(st.rx_bad_qkey, 2);
	/* larger than the path MTU: local length error, QP to SQE */
	ud.qkey = 0x5678;
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &ud, sizeof(ud));
	w_data(&w, 5000, ua.mr.key, ua.mr.iova);
	idx = qp_post(&ua.qp, &w);
	CHECK(cq_wait(&ua.scq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_LEN);
	CHECK_EQ(e.wqe_counter, idx);
	CHECK_EQ(qp_query_state(&ua.qp), SNIC_QPS_SQE);
	/* SQE -> RTS: sending works again */
	{
		struct snic_qp_attr a;

		memset(&a, 0, sizeof(a));
		CHECK_EQ(qp_state(&ua.qp, SNIC_QPS_RTS, 0, &a), OK);
	}
	qp_recv(&ub.qp, 0xcc, 2000, ub.mr.key, ub.mr.iova + 8192);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &ud, sizeof(ud));
	w_data(&w, 1024, ua.mr.key, ua.mr.iova);
	idx = qp_post(&ua.qp, &w);
	CHECK_REQ(&ua.scq, idx, SNIC_WQE_SEND, 1024, &e);
	CHECK(cq_wait(&ub.rcq, &e, 0));
	CHECK_EQ(e.cookie, 0xbb);	/* the WQE left by the bad qkey */
	CHECK_EQ(e.byte_cnt, 40 + 1024);
}

static void gsi_qp(void)
{
	struct cq ca, cb;
	struct qp ga, gb;
	struct mr ma, mb;
	struct snic_wqe_ud ud;
	struct snic_cqe e;
	struct wqe w;
	uint32_t pa, pb;

	CHECK(env_start());
	pa = pd_create(A);
	pb = pd_create(B);
	CHECK_EQ(cq_create(&ca, A, 6, SNIC_EQN_NONE, 4), OK);
	CHECK_EQ(cq_create(&cb, B, 6, SNIC_EQN_NONE, 4), OK);
	CHECK_EQ(mr_create(&ma, A, pa, 4096, ALL_ACCESS, 0), OK);
	CHECK_EQ(mr_create(&mb, B, pb, 4096, ALL_ACCESS, 0), OK);
	CHECK_EQ(qp_create(&ga, A, SNIC_QPT_GSI, pa, &ca, &ca, -1), OK);
	CHECK_EQ(qp_create(&gb, B, SNIC_QPT_GSI, pb, &cb, &cb, -1), OK);
	CHECK_EQ(ga.qpn, 1);
	CHECK(qp_ud_up(&ga, SNIC_GSI_QKEY));
	CHECK(qp_ud_up(&gb, SNIC_GSI_QKEY));
	qp_recv(&gb, 9, 300, mb.key, mb.iova);
	memset(&ud, 0, sizeof(ud));
	av_fill(&ud.av, A);
	ud.dest_qpn = SNIC_GSI_QPN;
	ud.qkey = SNIC_GSI_QKEY;
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &ud, sizeof(ud));
	w_data(&w, 256, ma.key, ma.iova);
	qp_post(&ga, &w);
	CHECK(cq_wait(&ca, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ);
	CHECK(cq_wait(&cb, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.byte_cnt, 296);
	CHECK_EQ(e.src_qpn, 1);
}

static void rc_write_read_atomic(void)
{
	static uint8_t src[9000], dst[9000];
	struct snic_wqe_atomic at;
	struct snic_cqe e;
	struct wqe w;
	uint64_t v;
	uint16_t idx;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	fill(src, sizeof(src), 5);
	mr_write(&sa.mr, 0, src, sizeof(src));
	/* WRITE of 9000 bytes (9 packets), no receive consumed */
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 100, sb.mr.key);
	w_data(&w, 9000, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 9000, &e);
	mr_read(&sb.mr, 100, dst, 9000);
	CHECK(!memcmp(src, dst, 9000));
	CHECK(cq_empty(&sb.rcq));
	/* WRITE with immediate consumes a receive WQE, nothing scattered */
	qp_recv(&sb.qp, 0x3333, 16, sb.mr.key, sb.mr.iova + 200000);
	w_init(&w, SNIC_WQE_RDMA_WRITE_IMM, SNIC_WQE_F_SIGNAL, 0xabcd);
	w_raddr(&w, sb.mr.iova + 50000, sb.mr.key);
	w_data(&w, 2048, sa.mr.key, sa.mr.iova + 1);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE_IMM, 2048, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.cookie, 0x3333);
	CHECK_EQ(e.byte_cnt, 2048);
	CHECK_EQ(e.wqe_opcode, SNIC_WQE_RDMA_WRITE_IMM);
	CHECK_EQ(e.rdma_flags, SNIC_CQE_RF_IMM);
	CHECK_EQ(ntohl(e.imm), 0xabcd);
	mr_read(&sb.mr, 50000, dst, 2048);
	CHECK(!memcmp(src + 1, dst, 2048));
	/* READ 5000 bytes back from B into A at offset 100000 */
	fill(src, 5000, 9);
	mr_write(&sb.mr, 120000, src, 5000);
	w_init(&w, SNIC_WQE_RDMA_READ, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 120000, sb.mr.key);
	w_data(&w, 3000, sa.mr.key, sa.mr.iova + 100000);
	w_data(&w, 2000, sa.mr.key, sa.mr.iova + 110000);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_READ, 5000, &e);
	mr_read(&sa.mr, 100000, dst, 3000);
	mr_read(&sa.mr, 110000, dst + 3000, 2000);
	CHECK(!memcmp(src, dst, 5000));
	/* atomics on an 8-byte word of B */
	v = 100;
	mr_write(&sb.mr, 8192, &v, 8);
	memset(&at, 0, sizeof(at));
	at.swap_add = 23;
	w_init(&w, SNIC_WQE_ATOMIC_FA, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 8192, sb.mr.key);
	w_seg(&w, &at, sizeof(at));
	w_data(&w, 8, sa.mr.key, sa.mr.iova + 64);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_ATOMIC_FA, 8, &e);
	mr_read(&sa.mr, 64, &v, 8);
	CHECK_EQ(v, 100);
	mr_read(&sb.mr, 8192, &v, 8);
	CHECK_EQ(v, 123);
	at.compare = 123;
	at.swap_add = 0x1122334455667788ull;
	w_init(&w, SNIC_WQE_ATOMIC_CS, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 8192, sb.mr.key);
	w_seg(&w, &at, sizeof(at));
	w_data(&w, 8, sa.mr.key, sa.mr.iova + 72);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_ATOMIC_CS, 8, &e);
	mr_read(&sa.mr, 72, &v, 8);
	CHECK_EQ(v, 123);
	mr_read(&sb.mr, 8192, &v, 8);
	CHECK_EQ(v, 0x1122334455667788ull);
	/* compare fails: memory unchanged, old value returned */
	at.compare = 5;
	at.swap_add = 6;
	w_init(&w, SNIC_WQE_ATOMIC_CS, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 8192, sb.mr.key);
	w_seg(&w, &at, sizeof(at));
	w_data(&w, 8, sa.mr.key, sa.mr.iova + 80);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_ATOMIC_CS, 8, &e);
	mr_read(&sa.mr, 80, &v, 8);
	CHECK_EQ(v, 0x1122334455667788ull);
	mr_read(&sb.mr, 8192, &v, 8);
	CHECK_EQ(v, 0x1122334455667788ull);
	/* inline SEND: the buffer is reused right after posting */
	{
		uint8_t msg[150];

		fill(msg, sizeof(msg), 11);
		qp_recv(&sb.qp, 0x4444, 1000, sb.mr.key, sb.mr.iova + 60000);
		w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL | SNIC_WQE_F_INLINE,
		       0);
		w_inline(&w, msg, sizeof(msg));
		idx = qp_post(&sa.qp, &w);
		CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, sizeof(msg), &e);
		CHECK(cq_wait(&sb.rcq, &e, 0));
		CHECK_EQ(e.byte_cnt, sizeof(msg));
		mr_read(&sb.mr, 60000, dst, sizeof(msg));
		CHECK(!memcmp(dst, msg, sizeof(msg)));
		/* inline WRITE */
		w_init(&w, SNIC_WQE_RDMA_WRITE,
		       SNIC_WQE_F_SIGNAL | SNIC_WQE_F_INLINE, 0);
		w_raddr(&w, sb.mr.iova + 61000, sb.mr.key);
		w_inline(&w, msg, 37);
		idx = qp_post(&sa.qp, &w);
		CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 37, &e);
		mr_read(&sb.mr, 61000, dst, 37);
		CHECK(!memcmp(dst, msg, 37));
	}
}

/* Multi-packet messages at path MTU 4096, and a zero-length READ. */
static void mtu_4096(void)
{
	static uint8_t src[65536], dst[65536];
	struct conn c = conn_default;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	c.mtu = SNIC_MTU_4096;
	CHECK(env_start());
	CHECK(pair_up(&c));
	fill(src, sizeof(src), 21);
	mr_write(&sa.mr, 0, src, sizeof(src));
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 3, sb.mr.key);
	w_data(&w, 65536 - 5, sa.mr.key, sa.mr.iova + 5);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 65536 - 5, &e);
	mr_read(&sb.mr, 3, dst, 65536 - 5);
	CHECK(!memcmp(src + 5, dst, 65536 - 5));
	qp_recv(&sb.qp, 1, 65536, sb.mr.key, sb.mr.iova + 70000);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, 4096 * 3 + 1, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 4096 * 3 + 1, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.byte_cnt, 4096 * 3 + 1);
	mr_read(&sb.mr, 70000, dst, 4096 * 3 + 1);
	CHECK(!memcmp(src, dst, 4096 * 3 + 1));
	fill(src, 40000, 22);
	mr_write(&sb.mr, 140000, src, 40000);
	w_init(&w, SNIC_WQE_RDMA_READ, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 140000, sb.mr.key);
	w_data(&w, 40000, sa.mr.key, sa.mr.iova + 200000);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_READ, 40000, &e);
	mr_read(&sa.mr, 200000, dst, 40000);
	CHECK(!memcmp(src, dst, 40000));
	/* zero-length READ: no memory touched, so no key needed */
	w_init(&w, SNIC_WQE_RDMA_READ, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, 0, 0);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_READ, 0, &e);
}

/* Unsignaled WQEs complete silently; a signaled CQE retires them. */
static void unsignaled(void)
{
	struct snic_cqe e;
	struct snic_qp_attr a;
	struct wqe w;
	uint16_t idx = 0;
	int i;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	for (i = 0; i < 10; i++) {
		w_init(&w, SNIC_WQE_RDMA_WRITE, i == 9 ? SNIC_WQE_F_SIGNAL : 0,
		       0);
		w_raddr(&w, sb.mr.iova + i * 100, sb.mr.key);
		w_data(&w, 100, sa.mr.key, sa.mr.iova);
		idx = qp_put(&sa.qp, &w);
	}
	qp_ring(&sa.qp);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 100, &e);
	CHECK_EQ(idx, 9);
	CHECK(cq_empty(&sa.scq));
	CHECK_EQ(snic_rdma_query_qp(A, sa.qp.qpn, &a), OK);
	CHECK_EQ(a.sq_outstanding, 0);
	CHECK_EQ(a.state, SNIC_QPS_RTS);
	/* a NOP WQE completes locally */
	w_init(&w, SNIC_WQE_NOP, SNIC_WQE_F_SIGNAL, 0);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_NOP, 0, &e);
}

/* ------------------------------------------------------------------ */
/* Tests: wire format                                                  */
/* ------------------------------------------------------------------ */

/* Reflected CRC-32 (poly 0xedb88320) without pre/post inversion. */
static uint32_t crc_raw(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
	}
	return crc;
}

/*
 * ICRC of a captured RoCEv2 frame, computed independently of the model
 * (IBA Annex A17): CRC-32 over 8 bytes of ones, the IPv4 header with TOS,
 * TTL and checksum set to ones, the UDP header with its checksum set to
 * ones, the BTH with resv8a set to ones, and the rest up to the ICRC.
 */
static uint32_t icrc_of(const uint8_t *f, size_t len)
{
	uint8_t m[9100], ones[8];
	size_t n = len - 14 - 4;

	memcpy(m, f + 14, n);
	m[1] = m[8] = 0xff;
	m[10] = m[11] = 0xff;
	m[26] = m[27] = 0xff;
	m[32] = 0xff;
	memset(ones, 0xff, 8);
	return ~crc_raw(crc_raw(0xffffffffu, ones, 8), m, n);
}

static void fix_icrc(uint8_t *f, size_t len)
{
	uint32_t c = icrc_of(f, len);

	f[len - 4] = c;
	f[len - 3] = c >> 8;
	f[len - 2] = c >> 16;
	f[len - 1] = c >> 24;
}

static void icrc_capture(void)
{
	uint8_t f[9100];
	struct snic_cqe e;
	struct wqe w;
	int n, seen = 0, acks = 0, i;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	cap_drain();
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 2500, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	/* no pump: it drains the capture socket */
	for (i = 0; i < 64 && !cq_peek(&sa.scq, &e, 1); i++)
		qt_readl(qt, A->bar0 + SNIC_REG_ID);
	while ((n = cap_recv(f, sizeof(f), 200)) > 0) {
		uint32_t wire;

		CHECK(n > 14 + 20 + 8 + 12 + 4);
		CHECK_EQ(f[12], 0x08);
		CHECK_EQ(f[13], 0x00);
		CHECK_EQ(f[14 + 9], 17);			/* UDP */
		CHECK_EQ(f[14 + 22] << 8 | f[14 + 23], 4791);	/* dport */
		CHECK_EQ(f[14 + 26] << 8 | f[14 + 27], 0);	/* no UDP csum */
		wire = f[n - 4] | f[n - 3] << 8 | f[n - 2] << 16 |
		       (uint32_t)f[n - 1] << 24;
		CHECK_EQ(wire, icrc_of(f, n));
		if (f[42] == 0x11)
			acks++;
		else
			seen++;
		if (seen == 1 && f[42] != 0x11) {
			/* WRITE FIRST: BTH, RETH with va, rkey, length */
			CHECK_EQ(f[42], 0x06);
			CHECK_EQ(f[42 + 2] << 8 | f[42 + 3], 0xffff);
			CHECK_EQ(ntohl(*(uint32_t *)(f + 42 + 4)), sb.qp.qpn);
			CHECK_EQ(ntohl(*(uint32_t *)(f + 42 + 8)) & 0xffffff,
				 100);
			CHECK_EQ(ntohl(*(uint32_t *)(f + 42 + 20)), sb.mr.key);
			CHECK_EQ(ntohl(*(uint32_t *)(f + 42 + 24)), 2500);
			CHECK_EQ(n, 42 + 12 + 16 + 1024 + 4);
		}
	}
	CHECK_EQ(seen, 3);
	CHECK(acks >= 1);
}

static size_t mk_req(uint8_t *f, uint8_t opcode, uint32_t dqpn, uint32_t psn,
		     size_t paylen)
{
	size_t hl = opcode == 0x06 || opcode == 0x0a ? 16 : 0, tl;
	uint8_t *ip = f + 14, *udp = f + 34, *bth = f + 42;
	uint32_t sum = 0;
	size_t i;

	memset(f, 0, 42 + 12 + hl + paylen + 4);
	memcpy(f, mac_b, 6);
	memcpy(f + 6, mac_a, 6);
	f[12] = 0x08;
	tl = 12 + hl + paylen;
	ip[0] = 0x45;
	ip[2] = (20 + 8 + tl + 4) >> 8;
	ip[3] = (20 + 8 + tl + 4);
	ip[8] = 64;
	ip[9] = 17;
	*(uint32_t *)(ip + 12) = htonl(ip_a);
	*(uint32_t *)(ip + 16) = htonl(ip_b);
	for (i = 0; i < 20; i += 2)
		sum += ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = ~sum >> 8;
	ip[11] = ~sum;
	udp[0] = 0xc0;
	udp[2] = 4791 >> 8;
	udp[3] = 4791 & 0xff;
	udp[4] = (8 + tl + 4) >> 8;
	udp[5] = 8 + tl + 4;
	bth[0] = opcode;
	bth[1] = ((4 - paylen % 4) % 4) << 4;
	bth[2] = bth[3] = 0xff;
	*(uint32_t *)(bth + 4) = htonl(dqpn);
	*(uint32_t *)(bth + 8) = htonl(0x80000000u | psn);
	fix_icrc(f, 42 + tl + 4);
	return 42 + tl + 4;
}

static void malformed_frames(void)
{
	struct snic_rdma_stats s0, s1;
	struct snic_cqe e;
	uint8_t f[2048];
	struct wqe w;
	size_t len;
	int i;

	CHECK(env_start());
	/* no QP yet: the RDMA engine is idle, RoCE takes the Ethernet path */
	{
		struct snic_port_stats ps;

		len = mk_req(f, 0x04, 5, 0, 8);
		CHECK(inj_send(f, len));
		pump(16);
		CHECK(rstats(B, &s0));
		CHECK_EQ(s0.rx_pkts + s0.rx_no_qp, 0);
		CHECK_EQ(snic_query_stats(B, SNIC_STATS_PORT, 0, &ps,
					  sizeof(ps)), OK);
		CHECK_EQ(ps.rx_no_dest, 1);
	}
	CHECK(pair_up(&conn_default));
	CHECK(rstats(B, &s0));
	/* a good SEND ONLY to B's QP, with the PSN it expects: accepted */
	qp_recv(&sb.qp, 1, 4096, sb.mr.key, sb.mr.iova);
	len = mk_req(f, 0x04, sb.qp.qpn, 100, 64);
	CHECK(inj_send(f, len));
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.byte_cnt, 64);
	/* bad ICRC */
	len = mk_req(f, 0x04, sb.qp.qpn, 101, 64);
	f[len - 1] ^= 0x10;
	CHECK(inj_send(f, len));
	/* truncated: headers cut, lengths not fixed */
	len = mk_req(f, 0x04, sb.qp.qpn, 101, 64);
	CHECK(inj_send(f, 50));
	/* IP length beyond the frame */
	CHECK(inj_send(f, len - 10));
	/* bad opcode sequence: a SEND MIDDLE with no FIRST */
	len = mk_req(f, 0x01, sb.qp.qpn, 101, 1024);
	CHECK(inj_send(f, len));
	/* reserved opcode */
	len = mk_req(f, 0x15, sb.qp.qpn, 101, 0);
	CHECK(inj_send(f, len));
	/* unknown QP, and QP 0 */
	len = mk_req(f, 0x04, 999, 0, 8);
	CHECK(inj_send(f, len));
	len = mk_req(f, 0x04, 0, 0, 8);
	CHECK(inj_send(f, len));
	/* random garbage after valid headers, ICRC fixed */
	srand(5);
	for (i = 0; i < 200; i++) {
		size_t k;

		len = mk_req(f, rand() % 0x20, sb.qp.qpn, rand() & 0xffffff,
			     rand() % 1100);
		for (k = 0; k < 1 + (size_t)(rand() % 3); k++)
			f[42 + rand() % 40] = rand();
		if (rand() % 2)
			fix_icrc(f, len);
		inj_send(f, len);
		if (i % 20 == 0)
			pump(4);
	}
	pump(64);
	CHECK(qt_alive(qt));
	CHECK(rstats(B, &s1));
	CHECK(s1.rx_icrc_errors >= s0.rx_icrc_errors + 1);
	CHECK(s1.rx_malformed >= s0.rx_malformed + 4);
	CHECK(s1.rx_no_qp >= s0.rx_no_qp + 2);
	/* B is still usable: reset its QP pair and send again */
	CHECK(pair_up(&conn_default));
	qp_recv(&sb.qp, 7, 100, sb.mr.key, sb.mr.iova);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, 100, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.cookie, 7);
}

/* ------------------------------------------------------------------ */
/* Tests: errors                                                       */
/* ------------------------------------------------------------------ */

/* Remote access errors: NAK, error CQE, QP to ERR, flush, guard bytes. */
static void remote_access_errors(void)
{
	static uint8_t before[4096], after[4096];
	struct mr small, small2;
	struct eq ea, eb;
	struct snic_eqe q;
	struct snic_cqe e;
	struct wqe w;
	struct snic_rdma_stats st;
	uint16_t idx, idx2, idx3;

	CHECK(env_start());
	CHECK_EQ(eq_create(&ea, A, 5), OK);
	CHECK_EQ(eq_create(&eb, B, 5), OK);
	CHECK_EQ(port_up(A, ea.n), OK);
	CHECK_EQ(port_up(B, eb.n), OK);
	CHECK(pair_up(&conn_default));
	/* a 1000-byte MR in the middle of guard bytes on B */
	CHECK_EQ(mr_create(&small, B, sb.pdn, 1000, ALL_ACCESS, 0x100), OK);
	qt_memset(qt, small.bus, 0xee, 4096);
	mread(small.bus, before, sizeof(before));
	/* wrong rkey (tag) */
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, small.iova, small.key ^ 1);
	w_data(&w, 100, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	/* two more posted behind it: flushed */
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, small.iova, small.key);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	idx2 = qp_post(&sa.qp, &w);
	w_init(&w, SNIC_WQE_SEND, 0, 0);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	idx3 = qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_REM_ACCESS);
	CHECK_EQ(e.wqe_counter, idx);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_WR_FLUSH);
	CHECK_EQ(e.wqe_counter, idx2);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_WR_FLUSH);
	CHECK_EQ(e.wqe_counter, idx3);
	CHECK_EQ(qp_query_state(&sa.qp), SNIC_QPS_ERR);
	CHECK_EQ(qp_query_state(&sb.qp), SNIC_QPS_ERR);
	CHECK(eq_find(&ea, SNIC_EQE_QP_ERROR, &q));
	CHECK_EQ(q.obj, sa.qp.qpn);
	CHECK_EQ(q.data, SNIC_RST_REM_ACCESS);
	CHECK(eq_find(&eb, SNIC_EQE_QP_ERROR, &q));
	CHECK_EQ(q.obj, sb.qp.qpn);
	/* posted after the error: flushed too, signaled or not */
	w_init(&w, SNIC_WQE_SEND, 0, 0);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_WR_FLUSH);
	CHECK_EQ(e.wqe_counter, idx);
	/* receives of a QP in ERR are flushed with their cookie */
	qp_recv(&sa.qp, 0xfeed, 100, sa.mr.key, sa.mr.iova);
	CHECK(cq_wait(&sa.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_WR_FLUSH);
	CHECK_EQ(e.cookie, 0xfeed);
	mread(small.bus, after, sizeof(after));
	CHECK(!memcmp(before, after, sizeof(after)));
	CHECK(rstats(A, &st));
	CHECK_EQ(st.rem_access_naks_rcvd, 1);
	CHECK(rstats(B, &st));
	CHECK_EQ(st.rem_access_naks_sent, 1);

	/* out of bounds by one byte, and READ without access: fresh pair */
	CHECK(pair_up(&conn_default));
	CHECK_EQ(mr_create(&small2, B, sb.pdn, 1000, SNIC_ACCESS_LOCAL_WRITE |
			   SNIC_ACCESS_REMOTE_WRITE, 0x100), OK);
	qt_memset(qt, small2.bus, 0xee, 4096);
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, small2.iova + 1, small2.key);
	w_data(&w, 1000, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_REM_ACCESS);
	CHECK(pair_up(&conn_default));
	w_init(&w, SNIC_WQE_RDMA_READ, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, small2.iova, small2.key);
	w_data(&w, 100, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.syndrome, SNIC_RST_REM_ACCESS);
	/* MR of another PD */
	CHECK(pair_up(&conn_default));
	{
		struct mr other;

		CHECK_EQ(mr_create(&other, B, pd_create(B), 1000, ALL_ACCESS,
				   0), OK);
		w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
		w_raddr(&w, other.iova, other.key);
		w_data(&w, 10, sa.mr.key, sa.mr.iova);
		qp_post(&sa.qp, &w);
		CHECK(cq_wait(&sa.scq, &e, 1000000));
		CHECK_EQ(e.syndrome, SNIC_RST_REM_ACCESS);
	}
	/* no byte outside (or inside) the small MR was touched */
	mread(small2.bus, after, sizeof(after));
	CHECK(!memcmp(before, after, sizeof(after)));
}

/* Bad local WQEs: error CQE with the right status, QP to ERR. */
static void local_errors(void)
{
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	CHECK(env_start());
	/* bad lkey */
	CHECK(pair_up(&conn_default));
	w_init(&w, SNIC_WQE_SEND, 0, 0);
	w_data(&w, 10, sa.mr.key + 0x100, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_PROT);
	CHECK_EQ(e.wqe_counter, idx);
	CHECK_EQ(qp_query_state(&sa.qp), SNIC_QPS_ERR);
	/* lkey 0 (bus address) on a QP without SNIC_QP_F_PRIV */
	CHECK(pair_up(&conn_default));
	w_init(&w, SNIC_WQE_SEND, 0, 0);
	w_data(&w, 10, SNIC_LKEY_BUS, sa.mr.bus);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_PROT);
	/* beyond the MR */
	CHECK(pair_up(&conn_default));
	w_init(&w, SNIC_WQE_RDMA_WRITE, 0, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 100, sa.mr.key, sa.mr.iova + BUF_LEN - 50);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_PROT);
	/* huge length */
	CHECK(pair_up(&conn_default));
	w_init(&w, SNIC_WQE_RDMA_WRITE, 0, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 0x80000000u, sa.mr.key, sa.mr.iova);
	w_data(&w, 0x80000000u, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_LEN);
	/* bad opcode, and ds_cnt 0 */
	CHECK(pair_up(&conn_default));
	w_init(&w, 0x7e, SNIC_WQE_F_SIGNAL, 0);
	idx = qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_QP_OP);
	CHECK_EQ(e.wqe_opcode, 0x7e);
	CHECK_EQ(e.wqe_counter, idx);
	CHECK(pair_up(&conn_default));
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w.ds = 0;
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_QP_OP);
	/* atomic with a 4-byte buffer; READ on a UD QP-like opcode misuse */
	CHECK(pair_up(&conn_default));
	{
		struct snic_wqe_atomic at = { 0 };

		w_init(&w, SNIC_WQE_ATOMIC_FA, 0, 0);
		w_raddr(&w, sb.mr.iova, sb.mr.key);
		w_seg(&w, &at, sizeof(at));
		w_data(&w, 4, sa.mr.key, sa.mr.iova);
		qp_post(&sa.qp, &w);
		CHECK(cq_wait(&sa.scq, &e, 0));
		CHECK_EQ(e.syndrome, SNIC_RST_LOC_LEN);
	}
	/* misaligned atomic: the responder NAKs invalid request */
	CHECK(pair_up(&conn_default));
	{
		struct snic_wqe_atomic at = { 0 };

		w_init(&w, SNIC_WQE_ATOMIC_FA, 0, 0);
		w_raddr(&w, sb.mr.iova + 4, sb.mr.key);
		w_seg(&w, &at, sizeof(at));
		w_data(&w, 8, sa.mr.key, sa.mr.iova);
		qp_post(&sa.qp, &w);
		CHECK(cq_wait(&sa.scq, &e, 1000000));
		CHECK_EQ(e.syndrome, SNIC_RST_REM_INV_REQ);
	}
	/* a SEND larger than the receive WQE: invalid request at the peer */
	CHECK(pair_up(&conn_default));
	qp_recv(&sb.qp, 0x99, 100, sb.mr.key, sb.mr.iova);
	w_init(&w, SNIC_WQE_SEND, 0, 0);
	w_data(&w, 101, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.syndrome, SNIC_RST_REM_INV_REQ);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_LEN);
	CHECK_EQ(e.cookie, 0x99);
	CHECK(qt_alive(qt));
}

/* ------------------------------------------------------------------ */
/* Tests: reliability                                                  */
/* ------------------------------------------------------------------ */

/* Wait for @n CQEs on @c (any order of arrival is in WQE order). */
static bool cq_wait_n(struct cq *c, struct snic_cqe *e, int n,
		      uint64_t step_ns)
{
	while (n--) {
		if (!cq_wait(c, e, step_ns) || e->syndrome)
			return false;
	}
	return true;
}

static void loss_injection(void)
{
	static uint8_t src[BUF_LEN], dst[40000];
	struct conn c = conn_default;
	struct snic_rdma_stats sta, stb;
	struct snic_qp_attr qa;
	struct snic_cqe e;
	struct wqe w;
	uint64_t v = 0;
	int i;

	/* settable at start ... */
	CHECK(env_start_opts(",loss-every=3"));
	CHECK(qt_qom_get_u64(qt, "/machine/peripheral/snic0", "loss-every",
			     &v));
	CHECK_EQ(v, 3);
	/* ... and at run time */
	CHECK(env_start());
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic0", "loss-every", 7));
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic1", "loss-every", 7));
	CHECK(qt_qom_get_u64(qt, "/machine/peripheral/snic1", "loss-every",
			     &v));
	CHECK_EQ(v, 7);
	c.timeout = 10;			/* 4.2 ms */
	CHECK(pair_up(&c));
	fill(src, sizeof(src), 33);
	mr_write(&sa.mr, 0, src, 60000);
	mr_write(&sb.mr, 150000, src + 1000, 30000);
	for (i = 0; i < 4; i++)
		qp_recv(&sb.qp, 100 + i, 5000, sb.mr.key,
			sb.mr.iova + 100000 + i * 5000);
	/* 4 WRITEs, 3 READs, 4 SENDs, interleaved, all signaled */
	for (i = 0; i < 4; i++) {
		w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
		w_raddr(&w, sb.mr.iova + i * 10000, sb.mr.key);
		w_data(&w, 10000, sa.mr.key, sa.mr.iova + i * 10000);
		qp_put(&sa.qp, &w);
		if (i < 3) {
			w_init(&w, SNIC_WQE_RDMA_READ, SNIC_WQE_F_SIGNAL, 0);
			w_raddr(&w, sb.mr.iova + 150000 + i * 10000, sb.mr.key);
			w_data(&w, 10000, sa.mr.key,
			       sa.mr.iova + 150000 + i * 10000);
			qp_put(&sa.qp, &w);
		}
		w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
		w_data(&w, 4999, sa.mr.key, sa.mr.iova + 50000 + i * 1000);
		qp_put(&sa.qp, &w);
	}
	qp_ring(&sa.qp);
	CHECK(cq_wait_n(&sa.scq, &e, 11, 2000000));
	CHECK(cq_wait_n(&sb.rcq, &e, 4, 2000000));
	for (i = 0; i < 4; i++) {
		mr_read(&sb.mr, i * 10000, dst, 10000);
		CHECK(!memcmp(dst, src + i * 10000, 10000));
		mr_read(&sb.mr, 100000 + i * 5000, dst, 4999);
		CHECK(!memcmp(dst, src + 50000 + i * 1000, 4999));
	}
	mr_read(&sa.mr, 150000, dst, 30000);
	CHECK(!memcmp(dst, src + 1000, 30000));
	CHECK(rstats(A, &sta));
	CHECK(rstats(B, &stb));
	CHECK(sta.loss_injected > 0);
	CHECK(stb.loss_injected > 0);
	CHECK(sta.retransmits > 0);
	CHECK(stb.out_of_seq + stb.dup_requests > 0);
	CHECK_EQ(snic_rdma_query_qp(A, sa.qp.qpn, &qa), OK);
	CHECK(qa.retransmits > 0);
	CHECK_EQ(qa.sq_outstanding, 0);
	CHECK_EQ(qa.state, SNIC_QPS_RTS);
	fprintf(stderr, "loss: A retransmits %llu timeouts %llu seq_naks %llu "
		"lost %llu; B dup %llu oos %llu lost %llu\n",
		(unsigned long long)sta.retransmits,
		(unsigned long long)sta.timeouts,
		(unsigned long long)sta.seq_naks_rcvd,
		(unsigned long long)sta.loss_injected,
		(unsigned long long)stb.dup_requests,
		(unsigned long long)stb.out_of_seq,
		(unsigned long long)stb.loss_injected);
	/* the host sees the same counters, and per-QP lines, through QOM */
	{
		static char txt[8192];
		char want[64];

		CHECK(qt_qom_get_str(qt, "/machine/peripheral/snic0",
				     "rdma-stats", txt, sizeof(txt)));
		CHECK(strstr(txt, "retransmits="));
		CHECK(strstr(txt, "loss_injected="));
		snprintf(want, sizeof(want), "qp %u: type=0 state=3", sa.qp.qpn);
		CHECK(strstr(txt, want));
		CHECK(strstr(txt, "dma_reads="));
	}
	/* loss off again: a clean transfer */
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic0", "loss-every", 0));
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic1", "loss-every", 0));
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 200000, sb.mr.key);
	w_data(&w, 20000, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait_n(&sa.scq, &e, 1, 2000000));
	mr_read(&sb.mr, 200000, dst, 20000);
	CHECK(!memcmp(dst, src, 20000));
}

/* Random loss (loss-ppm) with atomics in the mix. */
static void loss_ppm_atomics(void)
{
	struct conn c = conn_default;
	struct snic_wqe_atomic at;
	struct snic_rdma_stats st;
	struct snic_cqe e;
	struct wqe w;
	uint64_t v;
	int i;

	CHECK(env_start());
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic0", "loss-seed", 9));
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic0", "loss-ppm",
			     200000));
	CHECK(qt_qom_set_u64(qt, "/machine/peripheral/snic1", "loss-ppm",
			     200000));
	c.timeout = 10;
	CHECK(pair_up(&c));
	v = 1000;
	mr_write(&sb.mr, 4096, &v, 8);
	memset(&at, 0, sizeof(at));
	at.swap_add = 1;
	for (i = 0; i < 20; i++) {
		w_init(&w, SNIC_WQE_ATOMIC_FA, SNIC_WQE_F_SIGNAL, 0);
		w_raddr(&w, sb.mr.iova + 4096, sb.mr.key);
		w_seg(&w, &at, sizeof(at));
		w_data(&w, 8, sa.mr.key, sa.mr.iova + 8 * i);
		qp_put(&sa.qp, &w);
	}
	qp_ring(&sa.qp);
	CHECK(cq_wait_n(&sa.scq, &e, 20, 2000000));
	/* each add executed exactly once: replays came from the cache */
	mr_read(&sb.mr, 4096, &v, 8);
	CHECK_EQ(v, 1020);
	for (i = 0; i < 20; i++) {
		mr_read(&sa.mr, 8 * i, &v, 8);
		CHECK_EQ(v, 1000u + i);
	}
	CHECK(rstats(A, &st));
	CHECK(st.loss_injected > 0);
	CHECK(st.retransmits > 0);
}

static void rnr_retry(void)
{
	struct conn c = conn_default;
	struct snic_rdma_stats st;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;
	int i;

	CHECK(env_start());
	c.rnr_timer = 14;		/* 1.28 ms */
	CHECK(pair_up(&c));
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, 3000, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	for (i = 0; i < 5; i++) {
		pump(16);
		qt_clock_step(qt, 2000000);
	}
	CHECK(cq_empty(&sa.scq));
	CHECK(rstats(B, &st));
	CHECK(st.rnr_naks_sent >= 2);
	/* the receive arrives: the next retry completes */
	qp_recv(&sb.qp, 5, 4000, sb.mr.key, sb.mr.iova);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND, 3000, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.byte_cnt, 3000);
	CHECK(rstats(A, &st));
	CHECK(st.rnr_naks_rcvd >= 2);

	/* rnr_retry 2: the third RNR NAK ends it */
	c.rnr_retry = 2;
	CHECK(pair_up(&c));
	w_init(&w, SNIC_WQE_SEND, 0, 0);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 2000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_RNR_RETRY_EXC);
	CHECK_EQ(e.wqe_counter, idx);
	CHECK_EQ(qp_query_state(&sa.qp), SNIC_QPS_ERR);
}

static void retry_exceeded(void)
{
	struct conn c = conn_default;
	struct snic_rdma_stats st;
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	CHECK(env_start());
	c.timeout = 8;			/* 1 ms */
	c.retry = 3;
	CHECK(pair_up(&c));
	/* B keeps a QP, so its RDMA engine stays in use and counts drops */
	{
		struct qp spare;

		CHECK_EQ(qp_create(&spare, B, SNIC_QPT_RC, sb.pdn, &sb.scq,
				   &sb.rcq, -1), OK);
	}
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_QP, sb.qp.qpn), OK);
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 100, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ_ERR);
	CHECK_EQ(e.syndrome, SNIC_RST_RETRY_EXC);
	CHECK_EQ(e.wqe_counter, idx);
	CHECK(rstats(A, &st));
	CHECK_EQ(st.timeouts, 4);
	CHECK_EQ(st.retransmits, 3);
	CHECK(rstats(B, &st));
	CHECK_EQ(st.rx_no_qp, 4);
}

/* ------------------------------------------------------------------ */
/* Tests: memory registration, SRQ, events                             */
/* ------------------------------------------------------------------ */

static int reg_wqe(struct qp *q, uint32_t key, uint64_t iova, uint64_t len,
		   uint64_t pas, uint32_t np, uint32_t access)
{
	struct snic_wqe_reg r;
	struct wqe w;

	memset(&r, 0, sizeof(r));
	r.key = key;
	r.access = access;
	r.iova = iova;
	r.length = len;
	r.pas_addr = pas;
	r.npages = np;
	r.page_shift = 12;
	w_init(&w, SNIC_WQE_REG_MR, SNIC_WQE_F_SIGNAL, 0);
	w_seg(&w, &r, sizeof(r));
	return qp_post(q, &w);
}

/* Both QPs back through RESET and connected again (same PDs, MRs, CQs). */
static bool pair_reconnect(void)
{
	struct snic_qp_attr a;
	struct qp *q[2] = { &sa.qp, &sb.qp };
	int i;

	memset(&a, 0, sizeof(a));
	for (i = 0; i < 2; i++) {
		if (qp_state(q[i], SNIC_QPS_RESET, 0, &a) != OK)
			return false;
		q[i]->sq_prod = q[i]->rq_prod = 0;
		qt_writel(qt, q[i]->dbr, 0);
		qt_writel(qt, q[i]->dbr + 4, 0);
	}
	return qp_connect(&sa.qp, &sb.qp, &conn_default, 300, 7000) &&
	       qp_connect(&sb.qp, &sa.qp, &conn_default, 7000, 300);
}

static void fast_reg_and_invalidate(void)
{
	struct snic_mr_cfg mc;
	struct snic_cqe e;
	struct wqe w;
	uint64_t pas, buf, iova = 0x123400000000ull;
	uint32_t key, k1, k2, i;
	uint8_t d[64];
	uint16_t idx;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	memset(&mc, 0, sizeof(mc));
	mc.pdn = sb.pdn;
	mc.flags = SNIC_MR_F_FAST_REG;
	mc.npages = 4;
	mc.key_tag = 1;
	CHECK_EQ(snic_rdma_create_mr(B, &mc, &key), OK);
	buf = galloc(4 * 4096, 4096);
	pas = galloc(64, 64);
	for (i = 0; i < 4; i++) {
		uint64_t pa = buf + (3 - i) * 4096;

		qt_memwrite(qt, pas + 8 * i, &pa, 8);
	}
	/* not registered yet: remote access error */
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, iova, key);
	w_data(&w, 16, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.syndrome, SNIC_RST_REM_ACCESS);
	CHECK(pair_reconnect());
	/* REG_MR with tag 2 on B's QP */
	k1 = SNIC_MAKE_KEY(SNIC_KEY_INDEX(key), 2);
	idx = reg_wqe(&sb.qp, k1, iova, 4 * 4096, pas, 4, ALL_ACCESS);
	CHECK_REQ(&sb.scq, idx, SNIC_WQE_REG_MR, 0, &e);
	/* WRITE across a page boundary lands in the right guest pages */
	fill(d, sizeof(d), 44);
	mr_write(&sa.mr, 0, d, sizeof(d));
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, iova + 4096 - 32, k1);
	w_data(&w, 64, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 64, &e);
	{
		uint8_t x[64];

		mread(buf + 3 * 4096 + 4096 - 32, x, 32);
		mread(buf + 2 * 4096, x + 32, 32);
		CHECK(!memcmp(x, d, 64));
	}
	/* LOCAL_INV: the key stops working */
	w_init(&w, SNIC_WQE_LOCAL_INV, SNIC_WQE_F_SIGNAL, k1);
	idx = qp_post(&sb.qp, &w);
	CHECK_REQ(&sb.scq, idx, SNIC_WQE_LOCAL_INV, 0, &e);
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, iova, k1);
	w_data(&w, 8, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.syndrome, SNIC_RST_REM_ACCESS);
	CHECK(pair_reconnect());
	/* re-register with tag 3; the stale tag 2 is refused */
	k2 = SNIC_MAKE_KEY(SNIC_KEY_INDEX(key), 3);
	idx = reg_wqe(&sb.qp, k2, iova, 4 * 4096, pas, 4, ALL_ACCESS);
	CHECK_REQ(&sb.scq, idx, SNIC_WQE_REG_MR, 0, &e);
	/* registering a valid MR again fails locally (B's QP to ERR) */
	idx = reg_wqe(&sb.qp, k2, iova, 4096, pas, 1, ALL_ACCESS);
	CHECK(cq_wait(&sb.scq, &e, 0));
	CHECK_EQ(e.syndrome, SNIC_RST_LOC_PROT);
	CHECK_EQ(e.wqe_counter, idx);
	CHECK(pair_reconnect());
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, iova + 8, k2);
	w_data(&w, 8, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 8, &e);
	/* SEND with invalidate names k2: B's receive reports it */
	qp_recv(&sb.qp, 0x51, 100, sb.mr.key, sb.mr.iova);
	w_init(&w, SNIC_WQE_SEND_INV, SNIC_WQE_F_SIGNAL, k2);
	w_data(&w, 20, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_SEND_INV, 20, &e);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RECV);
	CHECK_EQ(e.wqe_opcode, SNIC_WQE_SEND_INV);
	CHECK_EQ(e.rdma_flags, SNIC_CQE_RF_INV);
	CHECK_EQ(ntohl(e.imm), k2);
	CHECK_EQ(e.byte_cnt, 20);
	/* ... and k2 is dead now */
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, iova, k2);
	w_data(&w, 8, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.syndrome, SNIC_RST_REM_ACCESS);
}

/* SRQ shared by two QPs, limit event, and the receive-side events. */
static void srq_shared(void)
{
	struct snic_aq_create_srq cs;
	struct snic_aq_modify_srq ms;
	struct qp a2, b2;
	struct eq eb;
	struct snic_eqe q;
	struct snic_cqe e;
	struct wqe w;
	uint64_t ring, dbr, r;
	uint32_t srqn;
	int i, from1 = 0, from2 = 0;

	CHECK(env_start());
	CHECK_EQ(eq_create(&eb, B, 5), OK);
	CHECK_EQ(port_up(B, eb.n), OK);
	CHECK(side_make(&sa, A, SNIC_QPT_RC));
	memset(&sb, 0, sizeof(sb));
	sb.d = B;
	sb.pdn = pd_create(B);
	CHECK_EQ(cq_create(&sb.scq, B, 8, SNIC_EQN_NONE, 4), OK);
	CHECK_EQ(cq_create(&sb.rcq, B, 8, SNIC_EQN_NONE, 4), OK);
	CHECK_EQ(mr_create(&sb.mr, B, sb.pdn, BUF_LEN, ALL_ACCESS, 0), OK);
	ring = galloc(256 * 16, 64);
	dbr = galloc(64, 64);
	memset(&cs, 0, sizeof(cs));
	cs.pdn = sb.pdn;
	cs.log_size = 4;
	cs.log_stride = 5;
	cs.db_page = 4;
	cs.ring_addr = ring;
	cs.dbr_addr = dbr;
	cs.limit = 0;
	CHECK_EQ(snic_aq_cmd(B, SNIC_AQ_CREATE_SRQ, &cs, sizeof(cs), &r), OK);
	srqn = r;
	/* an SRQ of another PD is refused */
	CHECK_EQ(qp_create(&b2, B, SNIC_QPT_RC, pd_create(B), &sb.scq, &sb.rcq,
			   srqn), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(qp_create(&sb.qp, B, SNIC_QPT_RC, sb.pdn, &sb.scq, &sb.rcq,
			   srqn), OK);
	CHECK_EQ(qp_create(&b2, B, SNIC_QPT_RC, sb.pdn, &sb.scq, &sb.rcq, srqn),
		 OK);
	CHECK_EQ(qp_create(&a2, A, SNIC_QPT_RC, sa.pdn, &sa.scq, &sa.rcq, -1),
		 OK);
	CHECK(qp_connect(&sa.qp, &sb.qp, &conn_default, 1, 2));
	CHECK(qp_connect(&sb.qp, &sa.qp, &conn_default, 2, 1));
	CHECK(qp_connect(&a2, &b2, &conn_default, 10, 20));
	/* b2 only receives: RTR is enough, and its first packet is COMM_EST */
	CHECK(qp_connect_to(&b2, &a2, &conn_default, 20, 10, false));
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_SRQ, srqn), SNIC_AQ_EBUSY);
	/* 6 receive WQEs of 32 bytes; limit armed at 3 */
	for (i = 0; i < 6; i++) {
		uint8_t b[32] = { 0 };
		struct snic_recv_hdr *h = (void *)b;
		struct snic_wqe_data *d = (void *)(b + 16);

		h->cookie = 0x500 + i;
		h->num_sge = 1;
		d->byte_count = 1000;
		d->lkey = sb.mr.key;
		d->addr = sb.mr.iova + i * 1000;
		qt_memwrite(qt, ring + i * 32, b, 32);
	}
	qt_writel(qt, dbr, 6);
	snic_db(B, 4, SNIC_DB_SRQ, srqn, 6);
	ms.srqn = srqn;
	ms.limit = 3;
	CHECK_EQ(snic_aq_cmd(B, SNIC_AQ_MODIFY_SRQ, &ms, sizeof(ms), NULL), OK);
	for (i = 0; i < 4; i++) {
		w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
		w_data(&w, 100 + i, sa.mr.key, sa.mr.iova);
		qp_post(i % 2 ? &a2 : &sa.qp, &w);
		CHECK(cq_wait(&sb.rcq, &e, 1000000));
		CHECK_EQ(e.opcode, SNIC_CQE_RECV);
		CHECK_EQ(e.cookie, 0x500u + i);
		CHECK_EQ(e.wqe_counter, i);
		CHECK_EQ(e.byte_cnt, 100u + i);
		from1 += e.rdma_qpn == sb.qp.qpn;
		from2 += e.rdma_qpn == b2.qpn;
	}
	CHECK_EQ(from1, 2);
	CHECK_EQ(from2, 2);
	CHECK(eq_find(&eb, SNIC_EQE_QP_COMM_EST, &q));
	CHECK_EQ(q.obj, b2.qpn);
	CHECK(eq_find(&eb, SNIC_EQE_SRQ_LIMIT, &q));
	CHECK_EQ(q.obj, srqn);
	CHECK_EQ(q.data, 2);
	/* a QP on an SRQ going to ERR raises LAST_WQE, no receive flush */
	{
		struct snic_qp_attr a;

		memset(&a, 0, sizeof(a));
		CHECK_EQ(qp_state(&b2, SNIC_QPS_ERR, 0, &a), OK);
	}
	CHECK(eq_find(&eb, SNIC_EQE_QP_LAST_WQE, &q));
	CHECK_EQ(q.obj, b2.qpn);
	CHECK(cq_empty(&sb.rcq));
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_QP, b2.qpn), OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_QP, sb.qp.qpn), OK);
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_SRQ, srqn), OK);
}

/* SQD drains, events; CQ armed for solicited completions only. */
static void sqd_and_solicited_events(void)
{
	struct snic_qp_attr a;
	struct eq ea, eb;
	struct cq rc;
	struct snic_eqe q;
	struct snic_cqe e;
	struct wqe w;

	CHECK(env_start());
	CHECK_EQ(eq_create(&ea, A, 5), OK);
	CHECK_EQ(eq_create(&eb, B, 5), OK);
	CHECK_EQ(port_up(A, ea.n), OK);
	CHECK(side_make(&sa, A, SNIC_QPT_RC));
	memset(&sb, 0, sizeof(sb));
	sb.d = B;
	sb.pdn = pd_create(B);
	CHECK_EQ(cq_create(&sb.scq, B, 8, SNIC_EQN_NONE, 4), OK);
	CHECK_EQ(cq_create(&rc, B, 8, eb.n, 4), OK);
	sb.rcq = rc;
	CHECK_EQ(mr_create(&sb.mr, B, sb.pdn, BUF_LEN, ALL_ACCESS, 0), OK);
	CHECK_EQ(qp_create(&sb.qp, B, SNIC_QPT_RC, sb.pdn, &sb.scq, &sb.rcq,
			   -1), OK);
	CHECK(qp_connect(&sa.qp, &sb.qp, &conn_default, 1, 2));
	CHECK(qp_connect(&sb.qp, &sa.qp, &conn_default, 2, 1));
	/* armed for solicited only: a plain SEND raises nothing */
	snic_db(B, 4, SNIC_DB_CQ_ARM_SE, rc.n, 0);
	qp_recv(&sb.qp, 1, 100, sb.mr.key, sb.mr.iova);
	qp_recv(&sb.qp, 2, 100, sb.mr.key, sb.mr.iova);
	w_init(&w, SNIC_WQE_SEND, 0, 0);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK(!eq_find(&eb, SNIC_EQE_COMPLETION, &q));
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SOLICITED, 0);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.rdma_flags, SNIC_CQE_RF_SOLICITED);
	CHECK(eq_find(&eb, SNIC_EQE_COMPLETION, &q));
	CHECK_EQ(q.obj, rc.n);
	/* RTS -> SQD with notify: drained event once the SQ is idle */
	memset(&a, 0, sizeof(a));
	a.sqd_notify = 1;
	CHECK_EQ(qp_state(&sa.qp, SNIC_QPS_SQD, SNIC_QP_ATTR_SQD_NOTIFY, &a),
		 OK);
	CHECK(eq_find(&ea, SNIC_EQE_QP_SQ_DRAINED, &q));
	CHECK_EQ(q.obj, sa.qp.qpn);
	/* posted in SQD: waits until back in RTS */
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_empty(&sa.scq));
	CHECK_EQ(qp_state(&sa.qp, SNIC_QPS_RTS, 0, &a), OK);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ);
}

/* A hostile peer/guest mix: random WQEs and doorbells never crash. */
static void hostile_wqes(void)
{
	struct snic_cqe e;
	struct wqe w;
	int i, k;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	srand(11);
	for (i = 0; i < 300; i++) {
		w_init(&w, rand() % 20, rand() % 16, rand());
		for (k = 16; k < (int)sizeof(w.b); k++)
			w.b[k] = rand() % 3 ? 0 : rand();
		if (rand() % 2) {
			struct snic_wqe_data *d = (void *)(w.b + 16 * (1 + rand() % 3));

			d->lkey = rand() % 2 ? sa.mr.key : (uint32_t)rand();
			d->addr = sa.mr.iova + rand() % BUF_LEN;
			d->byte_count = rand() % 5000;
		}
		w.ds = rand() % 18;
		qp_put(&sa.qp, &w);
		if (rand() % 3 == 0)
			qp_recv(&sb.qp, i, rand() % 3000, rand() % 2 ?
				sb.mr.key : (uint32_t)rand(),
				sb.mr.iova + rand() % BUF_LEN);
		if (rand() % 4 == 0) {
			qp_ring(&sa.qp);
			pump(4);
			qt_clock_step(qt, 100000000);
		}
		if (rand() % 16 == 0)
			snic_db(A, rand() % 8, 0x18 + 4 * (rand() % 4),
				rand() % 8, rand());
		while (cq_peek(&sa.scq, &e, 1))
			sa.scq.cons++;
		qt_writel(qt, sa.scq.dbr, sa.scq.cons);
		while (cq_peek(&sb.rcq, &e, 1))
			sb.rcq.cons++;
		qt_writel(qt, sb.rcq.dbr, sb.rcq.cons);
		if (qp_query_state(&sa.qp) == SNIC_QPS_ERR && rand() % 4 == 0)
			CHECK(pair_reconnect());
	}
	CHECK(qt_alive(qt));
	CHECK_EQ(snic_rd(A, SNIC_REG_ID), SNIC_ID_MAGIC);
	/* still works */
	CHECK(pair_up(&conn_default));
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ);
}

/* PSNs wrap at 2^24 in the middle of messages. */
static void psn_wrap(void)
{
	static uint8_t src[40000], dst[40000];
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	CHECK(env_start());
	CHECK(side_make(&sa, A, SNIC_QPT_RC) && side_make(&sb, B, SNIC_QPT_RC));
	CHECK(qp_connect(&sa.qp, &sb.qp, &conn_default, 0xfffff0, 0xfffffa));
	CHECK(qp_connect(&sb.qp, &sa.qp, &conn_default, 0xfffffa, 0xfffff0));
	fill(src, sizeof(src), 61);
	mr_write(&sa.mr, 0, src, sizeof(src));
	mr_write(&sb.mr, 100000, src, sizeof(src));
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 40000, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 40000, &e);
	mr_read(&sb.mr, 0, dst, sizeof(dst));
	CHECK(!memcmp(src, dst, sizeof(dst)));
	w_init(&w, SNIC_WQE_RDMA_READ, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova + 100000, sb.mr.key);
	w_data(&w, 40000, sa.mr.key, sa.mr.iova + 50000);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_READ, 40000, &e);
	mr_read(&sa.mr, 50000, dst, sizeof(dst));
	CHECK(!memcmp(src, dst, sizeof(dst)));
	{
		struct snic_qp_attr a;

		CHECK_EQ(snic_rdma_query_qp(A, sa.qp.qpn, &a), OK);
		CHECK_EQ(a.sq_psn, (0xfffff0 + 40 + 40) & 0xffffff);
		CHECK_EQ(snic_rdma_query_qp(B, sb.qp.qpn, &a), OK);
		CHECK_EQ(a.rq_psn, (0xfffff0 + 80) & 0xffffff);
	}
}

/*
 * max_rd_atomic 1: a second READ goes out only after the first one's
 * responses; a fenced SEND waits for the READ before it.  Checked on the
 * wire through the capture port.
 */
static void rd_atomic_limit_and_fence(void)
{
	struct conn c = conn_default;
	uint8_t f[9100], ops[64];
	struct snic_cqe e;
	struct wqe w;
	int n, nops = 0, i, first_req = -1, second_req = -1, resp = -1;
	int send = -1, last_resp = -1;

	CHECK(env_start());
	c.rd_atomic = 1;
	CHECK(pair_up(&c));
	qp_recv(&sb.qp, 1, 100, sb.mr.key, sb.mr.iova);
	cap_drain();
	for (i = 0; i < 2; i++) {
		w_init(&w, SNIC_WQE_RDMA_READ, SNIC_WQE_F_SIGNAL, 0);
		w_raddr(&w, sb.mr.iova + i * 4096, sb.mr.key);
		w_data(&w, 3000, sa.mr.key, sa.mr.iova + i * 4096);
		qp_put(&sa.qp, &w);
	}
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL | SNIC_WQE_F_FENCE, 0);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	qp_put(&sa.qp, &w);
	qp_ring(&sa.qp);
	for (i = 0; i < 3; i++) {
		int k;

		for (k = 0; k < 400 && !cq_peek(&sa.scq, &e, 1); k++)
			qt_readl(qt, A->bar0 + SNIC_REG_ID);
		CHECK_EQ(e.syndrome, 0);
		sa.scq.cons++;
	}
	while ((n = cap_recv(f, sizeof(f), 100)) > 0 && nops < 64)
		if (n > 42)
			ops[nops++] = f[42];
	for (i = 0; i < nops; i++) {
		if (ops[i] == 0x0c && first_req < 0)
			first_req = i;
		else if (ops[i] == 0x0c)
			second_req = i;
		if (ops[i] >= 0x0d && ops[i] <= 0x10) {
			if (resp < 0)
				resp = i;
			last_resp = i;
		}
		if (ops[i] == 0x04)
			send = i;
	}
	CHECK(first_req >= 0 && second_req > 0 && resp > 0 && send > 0);
	CHECK(resp < second_req);
	CHECK(send > last_resp);
}

/*
 * Fairness and coexistence: a 256 KiB WRITE at path MTU 256 (1024 packets)
 * on one QP does not hold back a SEND on another QP of the same device,
 * and Ethernet frames still reach an Ethernet RQ while RoCE frames to the
 * same port never do.
 */
static void fairness_and_ethernet(void)
{
	struct conn c = conn_default;
	struct snic_aq_create_rq ra = { 0 };
	struct snic_steer_rule rule = { 0 };
	struct snic_rx_desc rd;
	struct snic_qp_attr qa;
	struct qp a2, b2;
	struct cq erq_cq;
	struct snic_cqe e;
	struct wqe w;
	uint64_t ering, edbr, ebuf, r;
	uint8_t f[128];
	int i;

	CHECK(env_start());
	c.mtu = SNIC_MTU_256;
	CHECK(pair_up(&c));
	CHECK_EQ(qp_create(&a2, A, SNIC_QPT_RC, sa.pdn, &sa.scq, &sa.rcq, -1),
		 OK);
	CHECK_EQ(qp_create(&b2, B, SNIC_QPT_RC, sb.pdn, &sb.scq, &sb.rcq, -1),
		 OK);
	CHECK(qp_connect(&a2, &b2, &c, 1, 2));
	CHECK(qp_connect(&b2, &a2, &c, 2, 1));
	/* B: an Ethernet RQ behind a catch-all rule */
	CHECK_EQ(cq_create(&erq_cq, B, 6, SNIC_EQN_NONE, 2), OK);
	ering = galloc(16 * 64, 64);
	edbr = galloc(64, 64);
	ebuf = galloc(2048 * 8, 64);
	ra.ring_addr = ering;
	ra.dbr_addr = edbr;
	ra.log_size = 3;
	ra.type = SNIC_RQ_PLAIN;
	ra.cqn = erq_cq.n;
	ra.db_page = 2;
	CHECK_EQ(snic_aq_cmd(B, SNIC_AQ_CREATE_RQ, &ra, sizeof(ra), &r), OK);
	for (i = 0; i < 8; i++) {
		rd.byte_count = 2048;
		rd.lkey = 0;
		rd.addr = ebuf + 2048 * i;
		qt_memwrite(qt, ering + 16 * i, &rd, sizeof(rd));
	}
	qt_writel(qt, edbr, 8);
	rule.priority = 100;
	rule.dest = SNIC_DEST_RQ;
	rule.dest_id = r;
	CHECK_EQ(snic_aq_buf(B, SNIC_AQ_ADD_RULE, &rule, sizeof(rule),
			     sizeof(rule), 0, 0, NULL, 0, NULL), OK);

	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, BUF_LEN, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	qp_recv(&b2, 77, 100, sb.mr.key, sb.mr.iova);
	w_init(&w, SNIC_WQE_SEND, SNIC_WQE_F_SIGNAL, 0);
	w_data(&w, 10, sa.mr.key, sa.mr.iova);
	qp_post(&a2, &w);
	CHECK(cq_wait(&sb.rcq, &e, 0));
	CHECK_EQ(e.cookie, 77);
	/* the big WRITE is still under way */
	CHECK_EQ(snic_rdma_query_qp(A, sa.qp.qpn, &qa), OK);
	CHECK_EQ(qa.sq_outstanding, 1);
	/* an Ethernet frame to B meanwhile: delivered to the Ethernet RQ */
	memset(f, 0, sizeof(f));
	memcpy(f, mac_b, 6);
	memcpy(f + 6, mac_a, 6);
	f[12] = 0x88;
	f[13] = 0xb5;
	CHECK(inj_send(f, sizeof(f)));
	CHECK(cq_wait(&erq_cq, &e, 0));
	CHECK_EQ(e.opcode, SNIC_CQE_RX);
	CHECK_EQ(e.byte_cnt, sizeof(f));
	/* both QPs' completions; no RoCE frame went to the Ethernet RQ */
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.syndrome, 0);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.syndrome, 0);
	CHECK(cq_empty(&erq_cq));
}

/* Reset and QP destruction with traffic, timers and BH work pending. */
static void reset_under_traffic(void)
{
	struct snic_cqe e;
	struct wqe w;
	int i;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	for (i = 0; i < 8; i++) {
		w_init(&w, i % 2 ? SNIC_WQE_RDMA_READ : SNIC_WQE_RDMA_WRITE,
		       SNIC_WQE_F_SIGNAL, 0);
		w_raddr(&w, sb.mr.iova, sb.mr.key);
		w_data(&w, 30000, sa.mr.key, sa.mr.iova + 100000);
		qp_put(&sa.qp, &w);
	}
	qp_ring(&sa.qp);
	qt_readl(qt, A->bar0 + SNIC_REG_ID);
	/* B's QP vanishes mid-transfer, then A is reset */
	CHECK_EQ(snic_aq_obj(B, SNIC_AQ_DESTROY_QP, sb.qp.qpn), OK);
	qt_readl(qt, A->bar0 + SNIC_REG_ID);
	CHECK(snic_reset(A));
	for (i = 0; i < 10; i++) {
		pump(8);
		qt_clock_step(qt, 1000000000);
	}
	CHECK(qt_alive(qt));
	/* both usable again */
	CHECK(snic_aq_ready(A, 64));
	CHECK_EQ(port_up(A, SNIC_EQN_NONE), OK);
	CHECK(pair_up(&conn_default));
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 5000, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	CHECK(cq_wait(&sa.scq, &e, 1000000));
	CHECK_EQ(e.opcode, SNIC_CQE_REQ);
	CHECK_EQ(e.syndrome, 0);
}

int main(void)
{
	RUN("device/snic_rdma", caps_and_objects);
	RUN("device/snic_rdma", hostile_admin);
	RUN("device/snic_rdma", rc_send_recv);
	RUN("device/snic_rdma", ud_send_recv);
	RUN("device/snic_rdma", gsi_qp);
	RUN("device/snic_rdma", rc_write_read_atomic);
	RUN("device/snic_rdma", mtu_4096);
	RUN("device/snic_rdma", unsignaled);
	RUN("device/snic_rdma", psn_wrap);
	RUN("device/snic_rdma", rd_atomic_limit_and_fence);
	RUN("device/snic_rdma", icrc_capture);
	RUN("device/snic_rdma", malformed_frames);
	RUN("device/snic_rdma", remote_access_errors);
	RUN("device/snic_rdma", local_errors);
	RUN("device/snic_rdma", loss_injection);
	RUN("device/snic_rdma", loss_ppm_atomics);
	RUN("device/snic_rdma", rnr_retry);
	RUN("device/snic_rdma", retry_exceeded);
	RUN("device/snic_rdma", fast_reg_and_invalidate);
	RUN("device/snic_rdma", srq_shared);
	RUN("device/snic_rdma", sqd_and_solicited_events);
	RUN("device/snic_rdma", hostile_wqes);
	RUN("device/snic_rdma", fairness_and_ethernet);
	RUN("device/snic_rdma", reset_under_traffic);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
