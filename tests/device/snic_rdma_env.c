/*
 * snic device tier: the RDMA test environment (snic_rdma_env.h), shared
 * by the RDMA and the sPIN-on-RDMA qtest programs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "snic_rdma_env.h"


const uint8_t mac_a[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x01 };
const uint8_t mac_b[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x02 };
const uint32_t ip_a = 0x0a000001, ip_b = 0x0a000002;
/* a link-local and a global IPv6 address */
const uint8_t ip6_a[16] = { 0xfe, 0x80, [8] = 0x50, 0x54, 0x00, 0xff,
			    0xfe, 0x00, 0x00, 0x01 };
const uint8_t ip6_b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x02 };

struct qt *qt;
struct snic_dev dev[ENV_MAX_DEVS];
int env_ndevs;

int env_index(const struct snic_dev *d)
{
	return (int)(d - dev);
}

void env_mac(int i, uint8_t mac[6])
{
	memcpy(mac, mac_a, 5);
	mac[5] = i + 1;
}

uint32_t env_ip(int i)
{
	return ip_a + i;
}

/* ------------------------------------------------------------------ */
/* Environment                                                         */
/* ------------------------------------------------------------------ */

uint64_t galloc(size_t size, size_t align)
{
	return qt_alloc(qt, size, align);
}

void mread(uint64_t addr, void *buf, size_t len)
{
	qt_memread(qt, addr, buf, len);
}

void mwrite(uint64_t addr, const void *buf, size_t len)
{
	qt_memwrite(qt, addr, buf, len);
}

void cap_drain(void)
{
	qt_udp_drain(inj);
}

/* Main-loop turns (bottom halves, frames); the capture port is drained. */
void pump(int n)
{
	while (n--)
		qt_readl(qt, A->bar0 + SNIC_REG_ID);
	cap_drain();
}

int port_up(struct snic_dev *d, uint16_t async_eqn)
{
	uint8_t mac[1][6];

	env_mac(env_index(d), mac[0]);
	return snic_set_port(d, SNIC_PORT_F_UP, PORT_MTU, mac, 1, async_eqn);
}

/*
 * Fresh QEMU with @n snics on hub 0 (admin queues up, ports up, MTU
 * 9000), @opts appended to each snic, @extra (more devices) to the
 * command line.  Device i is snic<i> on hub port p<i> (p2 is the wire,
 * so from the third on p<i + 1>).
 */
static bool env_boot(int n, const char *opts, const char *extra)
{
	char args[4096];
	size_t len = 0;
	int qfd, i;

	qt_quit(qt);
	qt = NULL;
	env_ndevs = 0;
	if (n < 2 || n > ENV_MAX_DEVS || !inj_open(&qfd, 8 << 20))
		return false;
	len += snprintf(args, sizeof(args), "-netdev hubport,id=p0,hubid=0 "
			"-netdev hubport,id=p1,hubid=0 " WIRE_QEMU_ARGS, qfd);
	for (i = 2; i < n; i++)
		len += snprintf(args + len, sizeof(args) - len,
				"-netdev hubport,id=p%d,hubid=0 ", i + 1);
	for (i = 0; i < n; i++)
		len += snprintf(args + len, sizeof(args) - len,
				"-device snic,id=snic%d,netdev=p%d,"
				"mac=52:54:00:00:00:%02x%s ",
				i, i < 2 ? i : i + 1, i + 1, opts);
	snprintf(args + len, sizeof(args) - len, "%s", extra);
	qt = qt_start(args);
	close(qfd);
	if (!qt_alive(qt))
		return false;
	qt_alloc_init(qt, HEAP_BASE, HEAP_END);
	for (i = 0; i < n; i++) {
		uint8_t mac[6];

		if (!snic_dev_open(&dev[i], qt, i, BAR_BASE(i), RAM_BASE(i)))
			return false;
		dev[i].timed = strstr(opts, "timing=on") != NULL;
		if (!snic_aq_ready(&dev[i], 64) ||
		    port_up(&dev[i], SNIC_EQN_NONE) != OK)
			return false;
		/* user UD QPs send from entry 0 (av_fill's sgid_index) */
		env_mac(i, mac);
		if (src_addr_set(&dev[i], 0, true, mac, env_ip(i)) != OK)
			return false;
	}
	env_ndevs = n;
	cap_drain();
	return true;
}

bool env_start_extra(const char *opts, const char *extra)
{
	return env_boot(2, opts, extra);
}

bool env_start_n(int n, const char *opts)
{
	return env_boot(n, opts, "");
}

bool env_start_opts(const char *opts)
{
	return env_start_extra(opts, "");
}

bool env_start(void)
{
	return env_start_opts("");
}

int src_addr_set(struct snic_dev *d, uint8_t index, bool valid,
		 const uint8_t *mac, uint32_t ip)
{
	struct snic_aq_set_src_addr a;

	memset(&a, 0, sizeof(a));
	a.index = index;
	a.valid = valid;
	memcpy(a.mac, mac, 6);
	a.ip = htonl(ip);
	return snic_aq_cmd(d, SNIC_AQ_SET_SRC_ADDR, &a, sizeof(a), NULL);
}

int src_addr_set6(struct snic_dev *d, uint8_t index, const uint8_t *mac,
		  const uint8_t *ip6)
{
	struct snic_aq_set_src_addr a;

	memset(&a, 0, sizeof(a));
	a.index = index;
	a.valid = 1;
	a.flags = SNIC_SRC_F_IPV6;
	memcpy(a.mac, mac, 6);
	memcpy(a.ip6, ip6, 16);
	return snic_aq_cmd(d, SNIC_AQ_SET_SRC_ADDR, &a, sizeof(a), NULL);
}

int src_addr_set_vlan(struct snic_dev *d, uint8_t index, const uint8_t *mac,
		      uint32_t ip, uint16_t vid)
{
	struct snic_aq_set_src_addr a;

	memset(&a, 0, sizeof(a));
	a.index = index;
	a.valid = 1;
	a.flags = SNIC_SRC_F_VLAN;
	a.vlan_id = vid;
	memcpy(a.mac, mac, 6);
	a.ip = htonl(ip);
	return snic_aq_cmd(d, SNIC_AQ_SET_SRC_ADDR, &a, sizeof(a), NULL);
}

bool rstats(struct snic_dev *d, struct snic_rdma_stats *s)
{
	return snic_query_stats(d, SNIC_STATS_RDMA, 0, s, sizeof(*s)) == OK;
}

/* ------------------------------------------------------------------ */
/* CQs, EQs, PDs, MRs                                                  */
/* ------------------------------------------------------------------ */


/*
 * Wait for the next CQE, pumping the main loop and (with @step_ns) moving
 * the virtual clock so timers fire.
 */
bool cq_wait(struct snic_cq *c, struct snic_cqe *q, uint64_t step_ns)
{
	int i;

	for (i = 0; i < 400; i++) {
		if (snic_cq_peek(c, q, 1)) {
			snic_cq_consume(c);
			return true;
		}
		pump(4);
		if (step_ns && i % 4 == 3)
			qt_clock_step(qt, step_ns);
	}
	return false;
}

bool cq_empty(struct snic_cq *c)
{
	struct snic_cqe q;

	pump(32);
	return !snic_cq_peek(c, &q, 2);
}


/* 16 EQEs on MSI-X vector 1, no moderation. */
int eq_create(struct snic_eq *e, struct snic_dev *d, int page)
{
	return snic_eq_create(e, d, 4, 1, 0, 0, page);
}

/* Next EQE of type @type (others skipped), if any. */
bool eq_find(struct snic_eq *e, uint8_t type, struct snic_eqe *q)
{
	pump(8);
	while (snic_eq_poll(e, q, 2)) {
		if (q->type == type)
			return true;
	}
	return false;
}

uint32_t pd_create(struct snic_dev *d)
{
	uint64_t r = ~0ull;

	if (snic_aq_cmd(d, SNIC_AQ_CREATE_PD, NULL, 0, &r) != OK)
		return ~0u;
	return r;
}

/* A buffer in guest RAM and an MR over it (4 KiB pages, iova chosen). */

/*
 * MR of @len bytes whose pages are scattered: page i of the iova range is
 * guest page (npages - 1 - i) of the allocation, so translation is tested.
 */
int mr_create(struct mr *m, struct snic_dev *d, uint32_t pdn,
	      size_t len, uint32_t access, uint32_t off)
{
	uint32_t np = (off + len + 4095) / 4096, i;
	uint64_t pas = galloc(8 * np, 64);
	struct snic_mr_cfg c = { 0 };

	memset(m, 0, sizeof(*m));
	m->bus = galloc((size_t)np * 4096, 4096);
	m->len = len;
	m->iova = IOVA_BASE + qt_alloc_top(qt) + off;
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
uint64_t mr_pa(const struct mr *m, uint64_t o)
{
	uint64_t va = m->iova + o, base = m->iova & ~4095ull;
	uint64_t pg = (va - base) / 4096;
	uint32_t np = ((m->iova & 4095) + m->len + 4095) / 4096;

	return m->bus + (uint64_t)(np - 1 - pg) * 4096 + (va & 4095);
}

void mr_write(const struct mr *m, uint64_t o, const void *buf,
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

void mr_read(const struct mr *m, uint64_t o, void *buf, size_t len)
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


int qp_create_f(struct qp *q, struct snic_dev *d, uint8_t type,
		uint32_t pdn, struct snic_cq *scq, struct snic_cq *rcq, int srqn,
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

int qp_create(struct qp *q, struct snic_dev *d, uint8_t type,
	      uint32_t pdn, struct snic_cq *scq, struct snic_cq *rcq, int srqn)
{
	return qp_create_f(q, d, type, pdn, scq, rcq, srqn, 0);
}

int qp_state(struct qp *q, uint8_t state, uint32_t mask,
	     struct snic_qp_attr *a)
{
	a->mask = mask | SNIC_QP_ATTR_STATE;
	a->state = state;
	return snic_rdma_modify_qp(q->d, q->qpn, a);
}


const struct conn conn_default = {
	.mtu = SNIC_MTU_1024, .timeout = 14, .retry = 7, .rnr_retry = 7,
	.rnr_timer = 1, .rd_atomic = 4,
};

void av_fill_to(struct snic_av *av, struct snic_dev *from,
		struct snic_dev *to)
{
	int f = env_index(from), t = env_index(to);

	memset(av, 0, sizeof(*av));
	env_mac(t, av->dmac);
	env_mac(f, av->smac);
	av->sip = htonl(env_ip(f));
	av->dip = htonl(env_ip(t));
	av->ttl = 64;
	av->udp_sport = 0xc000 | (f + 1);
}

void av_fill(struct snic_av *av, struct snic_dev *from)
{
	av_fill_to(av, from, from == A ? B : A);
}

/*
 * RESET -> INIT -> RTR (-> RTS with @rts) of RC or UC QP @q towards @peer
 * (UC: without RC's RD/atomic, RNR and retry attributes).
 */
bool qp_connect_to(struct qp *q, const struct qp *peer,
		   const struct conn *c, uint32_t sq_psn,
		   uint32_t rq_psn, bool rts)
{
	bool rc = q->type == SNIC_QPT_RC || q->type == SNIC_QPT_XRC_INI ||
		  q->type == SNIC_QPT_XRC_TGT;
	struct snic_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.access = SNIC_ACCESS_REMOTE_WRITE | SNIC_ACCESS_REMOTE_READ |
		   SNIC_ACCESS_REMOTE_ATOMIC;
	if (qp_state(q, SNIC_QPS_INIT, SNIC_QP_ATTR_PKEY_INDEX |
		     SNIC_QP_ATTR_ACCESS, &a) != OK)
		return false;
	memset(&a, 0, sizeof(a));
	av_fill_to(&a.av, q->d, peer->d);
	if (c->v6) {
		a.av.sip = a.av.dip = 0;
		a.av.flags = SNIC_AV_F_IPV6;
		memcpy(a.sip6, q->d == A ? ip6_a : ip6_b, 16);
		memcpy(a.dip6, q->d == A ? ip6_b : ip6_a, 16);
	}
	a.path_mtu = c->mtu;
	a.dest_qpn = peer->qpn;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = c->rnr_timer;
	if (qp_state(q, SNIC_QPS_RTR, SNIC_QP_ATTR_AV | SNIC_QP_ATTR_PATH_MTU |
		     SNIC_QP_ATTR_DEST_QPN | SNIC_QP_ATTR_RQ_PSN |
		     (rc ? SNIC_QP_ATTR_MAX_DEST_RD_ATOMIC |
		      SNIC_QP_ATTR_MIN_RNR_TIMER : 0), &a) != OK)
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
			(rc ? SNIC_QP_ATTR_TIMEOUT | SNIC_QP_ATTR_RETRY_CNT |
			 SNIC_QP_ATTR_RNR_RETRY | SNIC_QP_ATTR_MAX_RD_ATOMIC : 0),
			&a) == OK;
}

bool qp_connect(struct qp *q, const struct qp *peer,
		const struct conn *c, uint32_t sq_psn, uint32_t rq_psn)
{
	return qp_connect_to(q, peer, c, sq_psn, rq_psn, true);
}

/* UD/GSI QP to RTS. */
bool qp_ud_up(struct qp *q, uint32_t qkey)
{
	struct snic_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qkey = qkey;
	return qp_state(q, SNIC_QPS_INIT, SNIC_QP_ATTR_PKEY_INDEX |
			SNIC_QP_ATTR_QKEY, &a) == OK &&
	       qp_state(q, SNIC_QPS_RTR, 0, &a) == OK &&
	       qp_state(q, SNIC_QPS_RTS, SNIC_QP_ATTR_SQ_PSN, &a) == OK;
}

uint8_t qp_query_state(struct qp *q)
{
	struct snic_qp_attr a;

	if (snic_rdma_query_qp(q->d, q->qpn, &a) != OK)
		return 0xff;
	return a.state;
}

/* A send WQE under construction. */

void w_init(struct wqe *w, uint8_t op, uint8_t flags, uint32_t imm)
{
	struct snic_wqe_ctrl *c = (void *)w->b;

	memset(w, 0, sizeof(*w));
	c->opcode = op;
	c->flags = flags;
	c->imm = htonl(imm);
	w->ds = 1;
}

void w_seg(struct wqe *w, const void *p, size_t len)
{
	memcpy(w->b + 16 * w->ds, p, len);
	w->ds += (len + 15) / 16;
}

void w_data(struct wqe *w, uint32_t len, uint32_t lkey, uint64_t addr)
{
	struct snic_wqe_data d = { .byte_count = len, .lkey = lkey,
				   .addr = addr };

	w_seg(w, &d, sizeof(d));
}

void w_raddr(struct wqe *w, uint64_t addr, uint32_t rkey)
{
	struct snic_wqe_raddr r = { .addr = addr, .rkey = rkey };

	w_seg(w, &r, sizeof(r));
}

void w_inline(struct wqe *w, const void *p, uint32_t len)
{
	uint32_t h = SNIC_INLINE_SEG | len;

	memcpy(w->b + 16 * w->ds, &h, 4);
	memcpy(w->b + 16 * w->ds + 4, p, len);
	w->ds += (4 + len + 15) / 16;
}

/* Copy the WQE at the producer; no doorbell.  Returns its wqe_idx. */
uint16_t qp_put(struct qp *q, struct wqe *w)
{
	struct snic_wqe_ctrl *c = (void *)w->b;
	unsigned nbb = w->ds ? (w->ds + 3) / 4 : 1, i;
	uint16_t idx = q->sq_prod;

	c->ds_cnt = w->ds;
	c->wqe_idx = idx;
	for (i = 0; i < nbb; i++, q->sq_prod++)
		snic_ring_put(qt, q->sq, q->sq_size, q->sq_prod,
			      SNIC_WQEBB_SIZE, w->b + i * SNIC_WQEBB_SIZE,
			      SNIC_WQEBB_SIZE);
	return idx;
}

void qp_ring(struct qp *q)
{
	qt_writel(qt, q->dbr + 4, q->sq_prod);
	snic_db(q->d, q->page, SNIC_DB_QP_SQ, q->qpn, q->sq_prod);
}

uint16_t qp_post(struct qp *q, struct wqe *w)
{
	uint16_t idx = qp_put(q, w);

	qp_ring(q);
	return idx;
}

void qp_line(struct qp *q, uint16_t page, const uint8_t *line,
	     unsigned int from, unsigned int to)
{
	uint64_t at = q->d->bar2 + (uint64_t)page * SNIC_DB_PAGE_SIZE +
		      SNIC_DB_QP_SQ_WQE;
	uint32_t v;
	unsigned int i;

	for (i = from; i < to; i++) {
		memcpy(&v, line + 4 * i, 4);
		qt_writel(qt, at + 4 * i, v);
	}
}

/* The ring and the record as for a doorbell, then the line. */
uint16_t qp_post_mmio(struct qp *q, struct wqe *w)
{
	struct snic_wqe_ctrl *c = (void *)w->b;
	uint16_t idx = qp_put(q, w);

	c->db_qn = q->qpn;
	qt_writel(qt, q->dbr + 4, q->sq_prod);
	qp_line(q, q->page, w->b, 0, SNIC_DB_SQ_WQE_SIZE / 4);
	return idx;
}

/* Receive WQE with one scatter entry (or none with @len 0). */
void qp_recv(struct qp *q, uint64_t cookie, uint32_t len, uint32_t lkey,
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
	snic_ring_put(qt, q->rq, q->rq_size, q->rq_prod, q->stride, b,
		      sizeof(b));
	q->rq_prod++;
	qt_writel(qt, q->dbr, q->rq_prod);
	snic_db(q->d, q->page, SNIC_DB_QP_RQ, q->qpn, q->rq_prod);
}

/* ------------------------------------------------------------------ */
/* A connected pair: PD, MRs, CQs and an RC QP on each side            */
/* ------------------------------------------------------------------ */



struct side sa, sb;

bool side_make_eq(struct side *s, struct snic_dev *d, uint8_t type,
		  uint32_t rcq_eqn)
{
	memset(s, 0, sizeof(*s));
	s->d = d;
	s->pdn = pd_create(d);
	return s->pdn != ~0u &&
	       snic_cq_create(&s->scq, d, 8, SNIC_EQN_NONE, 4) == OK &&
	       snic_cq_create(&s->rcq, d, 8, rcq_eqn, 4) == OK &&
	       mr_create(&s->mr, d, s->pdn, BUF_LEN, ALL_ACCESS, 0x80) == OK &&
	       qp_create(&s->qp, d, type, s->pdn, &s->scq, &s->rcq, -1) == OK;
}

bool side_make(struct side *s, struct snic_dev *d, uint8_t type)
{
	return side_make_eq(s, d, type, SNIC_EQN_NONE);
}

int64_t cq_wait_timed(struct snic_cq *c, uint16_t idx, uint64_t t0,
		      struct snic_cqe *e)
{
	uint64_t t = qt_clock_now(qt);
	int i;

	for (i = 0; i < 100000; i++) {
		if (snic_cq_peek(c, e, 1)) {
			snic_cq_consume(c);
			if (e->wqe_counter != idx || e->syndrome != SNIC_RST_OK)
				return -1;
			return (int64_t)(t - t0);
		}
		t = qt_clock_step_next(qt);
	}
	return -1;
}

bool pair_up(const struct conn *c)
{
	return side_make(&sa, A, SNIC_QPT_RC) && side_make(&sb, B, SNIC_QPT_RC) &&
	       qp_connect(&sa.qp, &sb.qp, c, 100, 5000) &&
	       qp_connect(&sb.qp, &sa.qp, c, 5000, 100);
}

bool pair_reconnect(void)
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

void fill(uint8_t *p, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

/* Reflected CRC-32 (poly 0xedb88320) without pre/post inversion. */
uint32_t crc_raw(uint32_t crc, const uint8_t *p, size_t n)
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
uint32_t icrc_of(const uint8_t *f, size_t len)
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

void fix_icrc(uint8_t *f, size_t len)
{
	uint32_t c = icrc_of(f, len);

	f[len - 4] = c;
	f[len - 3] = c >> 8;
	f[len - 2] = c >> 16;
	f[len - 1] = c >> 24;
}

size_t mk_req(uint8_t *f, uint8_t opcode, uint32_t dqpn, uint32_t psn,
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

/* Wait for @n CQEs on @c (any order of arrival is in WQE order). */
bool cq_wait_n(struct snic_cq *c, struct snic_cqe *e, int n,
	       uint64_t step_ns)
{
	while (n--) {
		if (!cq_wait(c, e, step_ns) || e->syndrome)
			return false;
	}
	return true;
}

