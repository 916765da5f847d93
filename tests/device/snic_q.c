/*
 * snic device tier: the shared queue driver (see snic_q.h).
 */
#include <string.h>
#include "snic_q.h"

/* ---- rings ---- */

bool snic_ring_peek(struct qt *qt, uint64_t ring, uint32_t size,
		    uint32_t cons, void *q, size_t esz, size_t owner_off,
		    int tries)
{
	int want = !((cons / size) & 1);

	while (tries--) {
		qt_memread(qt, ring + (cons & (size - 1)) * esz, q, esz);
		if ((((uint8_t *)q)[owner_off] & 1) == want)
			return true;
	}
	return false;
}

void snic_ring_put(struct qt *qt, uint64_t ring, uint32_t size,
		   uint32_t prod, size_t stride, const void *p, size_t len)
{
	qt_memwrite(qt, ring + (prod & (size - 1)) * stride, p, len);
}

void snic_settle(struct snic_dev *d, int n)
{
	while (n--)
		snic_rd(d, SNIC_REG_ID);
}

/* ---- event queues ---- */

int snic_eq_create(struct snic_eq *e, struct snic_dev *d, int log, int vec,
		   int mod_us, int mod_cnt, int page)
{
	struct snic_aq_create_eq c = { 0 };
	uint64_t r = ~0ull;
	int st;

	memset(e, 0, sizeof(*e));
	e->d = d;
	e->size = 1u << log;
	e->ring = qt_alloc(d->qt, sizeof(struct snic_eqe) * e->size, 64);
	e->page = page;
	e->vec = vec;
	c.ring_addr = e->ring;
	c.log_size = log;
	c.msix = vec;
	c.mod_usecs = mod_us;
	c.mod_count = mod_cnt;
	c.db_page = page;
	st = snic_aq_cmd(d, SNIC_AQ_CREATE_EQ, &c, sizeof(c), &r);
	e->n = r;
	return st;
}

bool snic_eq_peek(struct snic_eq *e, struct snic_eqe *q, int tries)
{
	return snic_ring_peek(e->d->qt, e->ring, e->size, e->cons, q,
			      sizeof(*q), offsetof(struct snic_eqe, owner),
			      tries);
}

bool snic_eq_poll(struct snic_eq *e, struct snic_eqe *q, int tries)
{
	if (!snic_eq_peek(e, q, tries))
		return false;
	e->cons++;
	return true;
}

void snic_eq_arm(struct snic_eq *e)
{
	snic_db(e->d, e->page, SNIC_DB_EQ_ARM, e->n, e->cons);
}

/* ---- completion queues ---- */

int snic_cq_create(struct snic_cq *c, struct snic_dev *d, int log,
		   uint32_t eqn, int page)
{
	return snic_cq_create_flags(c, d, log, eqn, page, 0);
}

int snic_cq_create_flags(struct snic_cq *c, struct snic_dev *d, int log,
			 uint32_t eqn, int page, uint8_t flags)
{
	struct snic_aq_create_cq a = { 0 };
	uint64_t r = ~0ull;
	int st;

	memset(c, 0, sizeof(*c));
	c->d = d;
	c->size = 1u << log;
	c->ring = qt_alloc(d->qt, sizeof(struct snic_cqe) * c->size, 64);
	c->dbr = qt_alloc(d->qt, 64, 64);
	c->page = page;
	a.ring_addr = c->ring;
	a.dbr_addr = c->dbr;
	a.log_size = log;
	a.eqn = eqn;
	a.db_page = page;
	a.flags = flags;
	st = snic_aq_cmd(d, SNIC_AQ_CREATE_CQ, &a, sizeof(a), &r);
	c->n = r;
	return st;
}

bool snic_cq_peek(struct snic_cq *c, struct snic_cqe *q, int tries)
{
	return snic_ring_peek(c->d->qt, c->ring, c->size, c->cons, q,
			      sizeof(*q), offsetof(struct snic_cqe, op_own),
			      tries);
}

void snic_cq_consume(struct snic_cq *c)
{
	c->cons++;
	qt_writel(c->d->qt, c->dbr, c->cons & 0xffff);
}

bool snic_cq_poll(struct snic_cq *c, struct snic_cqe *q, int tries,
		  int turns)
{
	if (!turns) {
		if (!snic_cq_peek(c, q, tries))
			return false;
		snic_cq_consume(c);
		return true;
	}
	while (tries--) {
		if (snic_cq_peek(c, q, 1)) {
			snic_cq_consume(c);
			return true;
		}
		snic_settle(c->d, turns);
	}
	return false;
}

void snic_cq_arm(struct snic_cq *c)
{
	snic_db(c->d, c->page, SNIC_DB_CQ_ARM, c->n, c->cons);
}

/* ---- Ethernet send queues ---- */

int snic_sq_create_at(struct snic_sq *s, struct snic_dev *d, int log,
		      uint32_t cqn, int page, uint64_t ring, uint64_t dbr)
{
	struct snic_aq_create_sq a = { 0 };
	uint64_t r = ~0ull;
	int st;

	memset(s, 0, sizeof(*s));
	s->d = d;
	s->size = 1u << log;
	s->ring = ring;
	s->dbr = dbr;
	s->page = page;
	a.ring_addr = ring;
	a.dbr_addr = dbr;
	a.log_size = log;
	a.flags = SNIC_SQ_F_RAW_ETH;
	a.cqn = cqn;
	a.db_page = page;
	st = snic_aq_cmd(d, SNIC_AQ_CREATE_SQ, &a, sizeof(a), &r);
	s->n = r;
	return st;
}

int snic_sq_create(struct snic_sq *s, struct snic_dev *d, int log,
		   uint32_t cqn, int page)
{
	uint64_t ring = qt_alloc(d->qt, SNIC_WQEBB_SIZE << log, 64);

	return snic_sq_create_at(s, d, log, cqn, page, ring,
				 qt_alloc(d->qt, 64, 64));
}

uint16_t snic_sq_put(struct snic_sq *s, const uint8_t *bbs, int nbb)
{
	uint16_t first = s->prod;
	int i;

	for (i = 0; i < nbb; i++, s->prod++)
		snic_ring_put(s->d->qt, s->ring, s->size, s->prod,
			      SNIC_WQEBB_SIZE, bbs + i * SNIC_WQEBB_SIZE,
			      SNIC_WQEBB_SIZE);
	return first;
}

void snic_sq_ring(struct snic_sq *s)
{
	qt_writel(s->d->qt, s->dbr, s->prod & 0xffff);
	snic_db(s->d, s->page, SNIC_DB_SQ, s->n, s->prod);
}

/* ---- Ethernet receive queues ---- */

int snic_rq_create_at(struct snic_rq *r, struct snic_dev *d, int log,
		      uint32_t cqn, int page, int type, int lss, int lns,
		      uint32_t buf_size, uint64_t dbr)
{
	struct snic_aq_create_rq a = { 0 };
	uint64_t res = ~0ull;
	int st;

	memset(r, 0, sizeof(*r));
	r->d = d;
	r->size = 1u << log;
	r->ring = qt_alloc(d->qt, sizeof(struct snic_rx_desc) * r->size, 64);
	r->dbr = dbr;
	r->buf_size = buf_size;
	r->bufs = qt_alloc(d->qt, (size_t)buf_size * r->size, 64);
	qt_memset(d->qt, r->bufs, 0xee, (size_t)buf_size * r->size);
	r->page = page;
	a.ring_addr = r->ring;
	a.dbr_addr = dbr;
	a.log_size = log;
	a.type = type;
	a.cqn = cqn;
	a.db_page = page;
	a.log_stride_size = lss;
	a.log_num_strides = lns;
	st = snic_aq_cmd(d, SNIC_AQ_CREATE_RQ, &a, sizeof(a), &res);
	r->n = res;
	return st;
}

int snic_rq_create(struct snic_rq *r, struct snic_dev *d, int log,
		   uint32_t cqn, int page)
{
	return snic_rq_create_at(r, d, log, cqn, page, SNIC_RQ_PLAIN, 0, 0,
				 2048, qt_alloc(d->qt, 64, 64));
}

uint64_t snic_rq_buf(struct snic_rq *r, uint32_t ctr)
{
	return r->bufs + (uint64_t)(ctr & (r->size - 1)) * r->buf_size;
}

void snic_rq_post(struct snic_rq *r, int n, bool db)
{
	while (n--) {
		struct snic_rx_desc x = {
			.byte_count = r->buf_size,
			.lkey = 0,
			.addr = snic_rq_buf(r, r->prod),
		};

		snic_ring_put(r->d->qt, r->ring, r->size, r->prod, sizeof(x),
			      &x, sizeof(x));
		r->prod++;
	}
	qt_writel(r->d->qt, r->dbr, r->prod & 0xffff);
	if (db)
		snic_db(r->d, r->page, SNIC_DB_RQ, r->n, r->prod);
}

/* ---- sPIN event rings ---- */

void snic_evq_init(struct snic_evq *q, struct qt *qt, int log)
{
	memset(q, 0, sizeof(*q));
	q->qt = qt;
	q->size = 1u << log;
	q->ring = qt_alloc(qt, sizeof(struct snic_spin_event) * q->size, 64);
	q->dbr = qt_alloc(qt, 64, 64);
}

bool snic_evq_next(struct snic_evq *q, struct snic_spin_event *ev)
{
	if (!snic_ring_peek(q->qt, q->ring, q->size, q->cons, ev, sizeof(*ev),
			    offsetof(struct snic_spin_event, owner), 1))
		return false;
	q->cons++;
	qt_writel(q->qt, q->dbr, q->cons);
	return true;
}

int snic_spin_ctx_create(struct snic_dev *d, struct snic_spin_ctx_cfg *cfg,
			 const struct snic_evq *ev, uint32_t eqn, uint32_t *id)
{
	uint64_t res = ~0ull;
	int st;

	cfg->ev_ring = ev->ring;
	cfg->ev_dbr = ev->dbr;
	cfg->ev_log_size = __builtin_ctz(ev->size);
	cfg->ev_eqn = eqn;
	st = snic_aq_buf(d, SNIC_AQ_SPIN_CREATE_CTX, cfg, sizeof(*cfg),
			 sizeof(*cfg), 0, 0, NULL, 0, &res);
	*id = res;
	return st;
}
