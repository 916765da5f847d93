/*
 * snic device tier: N RC flows sharing one port (snic_cc_flows.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "snic_cc_flows.h"
#include "snic_rdma_env.h"

#define RECEIVER	"/machine/peripheral/snic0"
#define MTU_BYTES	4096		/* SNIC_MTU_4096: every packet is full */

struct flow {
	struct side snd, rcv;
	uint64_t start_ns;
	bool started;
	int posted;			/* WRITEs not completed yet */
	uint32_t acked_psn;		/* at the last sample */
	uint64_t acked;			/* bytes */
};

static struct flow fl[CC_MAX_FLOWS];

static const struct conn conn_4k = {
	.mtu = SNIC_MTU_4096, .timeout = 14, .retry = 7, .rnr_retry = 7,
	.rnr_timer = 1, .rd_atomic = 4,
};

/*
 * " key=N" on the line of QP @qpn in an rdma-stats text, or with @qpn ~0u
 * on its first line (the device's counters).
 */
static bool stat_field(const char *txt, uint32_t qpn, const char *key,
		       uint32_t *v)
{
	char pat[64];
	const char *p = txt, *end;

	if (qpn != ~0u) {
		snprintf(pat, sizeof(pat), "qp %u:", qpn);
		p = strstr(txt, pat);
		if (!p)
			return false;
	}
	end = strchr(p, '\n');
	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(p, pat);
	if (!p || (end && p > end))
		return false;
	*v = strtoul(p + strlen(pat), NULL, 10);
	return true;
}

static bool rdma_stats(struct snic_dev *d, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/machine/peripheral/snic%d",
		 env_index(d));
	return qt_qom_get_str(qt, path, "rdma-stats", buf, len);
}

/* The receiver's counters that the bucket reports as differences. */
static bool rx_counters(uint64_t *marks, uint64_t *cnps, uint64_t *drops)
{
	static char txt[16384];
	uint32_t m, c;

	if (!rdma_stats(&dev[0], txt, sizeof(txt)) ||
	    !stat_field(txt, ~0u, "ecn_marked", &m) ||
	    !stat_field(txt, ~0u, "cnp_sent", &c))
		return false;
	*marks = m;
	*cnps = c;
	return qt_qom_get_u64(qt, RECEIVER, "timing-rx-drops", drops);
}

static bool flow_make(struct flow *f, struct snic_dev *snd)
{
	memset(f, 0, sizeof(*f));
	return side_make(&f->snd, snd, SNIC_QPT_RC) &&
	       side_make(&f->rcv, &dev[0], SNIC_QPT_RC) &&
	       qp_connect(&f->snd.qp, &f->rcv.qp, &conn_4k, 0, 0) &&
	       qp_connect(&f->rcv.qp, &f->snd.qp, &conn_4k, 0, 0);
}

static void flow_post(struct flow *f)
{
	struct wqe w;

	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, f->rcv.mr.iova, f->rcv.mr.key);
	w_data(&w, CC_MSG, f->snd.mr.key, f->snd.mr.iova);
	qp_put(&f->snd.qp, &w);
	f->posted++;
}

/* Completions in, WRITEs out (one doorbell); false on an error CQE. */
static bool flow_refill(struct flow *f)
{
	struct snic_cqe e;
	int n = 0;

	while (f->posted && snic_cq_peek(&f->snd.scq, &e, 1)) {
		snic_cq_consume(&f->snd.scq);
		if (e.syndrome != SNIC_RST_OK) {
			fprintf(stderr, "snic_cc_flows: WRITE failed, syndrome "
				"%u\n", e.syndrome);
			return false;
		}
		f->posted--;
	}
	while (f->posted < CC_OUTSTANDING) {
		flow_post(f);
		n++;
	}
	if (n)
		qp_ring(&f->snd.qp);
	return true;
}

/* The flows' sample at the end of bucket @b (@t0: the first start). */
static bool sample(const struct cc_cfg *c, struct cc_bucket *b, uint64_t t0,
		   uint64_t now, uint64_t prev[3])
{
	static char txt[ENV_MAX_DEVS][16384];
	uint64_t cur[3];
	int k, s;

	memset(b, 0, sizeof(*b));
	b->t_us = (now - t0) / 1000;
	for (s = 1; s <= c->senders; s++)
		if (!rdma_stats(&dev[s], txt[s], sizeof(txt[s])))
			return false;
	for (k = 0; k < c->flows; k++) {
		struct flow *f = &fl[k];
		const char *t = txt[env_index(f->snd.d)];
		uint32_t psn = 0;
		uint64_t n;

		if (!stat_field(t, f->snd.qp.qpn, "acked_psn", &psn) ||
		    !stat_field(t, f->snd.qp.qpn, "rate_mbps", &b->rate_mbps[k]) ||
		    !stat_field(t, f->snd.qp.qpn, "cwnd", &b->cwnd[k]))
			return false;
		/* PSNs are 24 bits; 1000 bits per us is a Gbit/s */
		n = (uint64_t)((psn - f->acked_psn) & 0xffffff) * MTU_BYTES;
		b->gbps[k] = n * 8.0 / (c->bucket_us * 1000.0);
		f->acked += n;
		b->acked[k] = f->acked;
		f->acked_psn = psn;
	}
	if (!rx_counters(&cur[0], &cur[1], &cur[2]) ||
	    !qt_qom_get_u64(qt, RECEIVER, "timing-rx-queue-bytes", &b->qbytes))
		return false;
	b->marks = cur[0] - prev[0];
	b->cnps = cur[1] - prev[1];
	b->drops = cur[2] - prev[2];
	memcpy(prev, cur, sizeof(cur));
	return true;
}

bool cc_run(const struct cc_cfg *c, struct cc_bucket *b)
{
	char opts[64];
	uint64_t t0, now, end, prev[3];
	int k, i;

	if (c->flows < 1 || c->flows > CC_MAX_FLOWS || c->senders < 1 ||
	    c->senders >= ENV_MAX_DEVS || c->bucket_us * 1000 % CC_STEP_NS)
		return false;
	snprintf(opts, sizeof(opts), ",timing=on,cc=%s", c->mode);
	if (!env_start_n(1 + c->senders, opts)) {
		fprintf(stderr, "snic_cc_flows: no environment (%s)\n", opts);
		return false;
	}
	for (k = 0; k < c->flows; k++) {
		if (!flow_make(&fl[k], &dev[1 + k % c->senders])) {
			fprintf(stderr, "snic_cc_flows: flow %d not up\n", k);
			return false;
		}
	}
	if (!rx_counters(&prev[0], &prev[1], &prev[2]))
		return false;
	/* from here on the harness alone moves the clock */
	t0 = now = qt_clock_now(qt);
	for (k = 0; k < c->flows; k++)
		fl[k].start_ns = t0 + (uint64_t)k * c->stagger_us * 1000;
	for (i = 0; i < c->buckets; i++) {
		end = t0 + (uint64_t)(i + 1) * c->bucket_us * 1000;
		while (now < end) {
			for (k = 0; k < c->flows; k++) {
				struct flow *f = &fl[k];

				f->started |= now >= f->start_ns;
				if (f->started && !flow_refill(f))
					return false;
			}
			qt_clock_step(qt, CC_STEP_NS);
			now += CC_STEP_NS;
		}
		cap_drain();
		if (!sample(c, &b[i], t0, now, prev)) {
			fprintf(stderr, "snic_cc_flows: no sample at %llu us\n",
				(unsigned long long)(now - t0) / 1000);
			return false;
		}
	}
	return true;
}

void cc_mean(const struct cc_bucket *b, int from, int n, int flows,
	     double *gbps)
{
	int k, i;

	for (k = 0; k < flows; k++) {
		gbps[k] = 0;
		for (i = from; i < n; i++)
			gbps[k] += b[i].gbps[k];
		gbps[k] = n > from ? gbps[k] / (n - from) : 0;
	}
}

void cc_goodput(const struct cc_cfg *c, const struct cc_bucket *b, int from,
		int n, double *gbps)
{
	int k;

	for (k = 0; k < c->flows; k++)
		gbps[k] = n > from && from > 0 ?
			  (b[n - 1].acked[k] - b[from - 1].acked[k]) * 8.0 /
			  ((n - from) * c->bucket_us * 1000.0) : 0;
}

double cc_jain(const double *x, int n)
{
	double s = 0, q = 0;
	int i;

	for (i = 0; i < n; i++) {
		s += x[i];
		q += x[i] * x[i];
	}
	return q > 0 ? s * s / (n * q) : 0;
}

/* Every flow's rate over buckets @i..@i + win - 1 within @tol of @fair. */
static bool fair_at(const struct cc_cfg *c, const struct cc_bucket *b, int i,
		    int win, double tol, double fair)
{
	double g[CC_MAX_FLOWS];
	int k;

	cc_mean(b, i, i + win, c->flows, g);
	for (k = 0; k < c->flows; k++) {
		if (g[k] < fair * (1 - tol) || g[k] > fair * (1 + tol))
			return false;
	}
	return true;
}

int64_t cc_converge_us(const struct cc_cfg *c, const struct cc_bucket *b,
		       int win, double tol)
{
	uint64_t last = (uint64_t)(c->flows - 1) * c->stagger_us;
	double g[CC_MAX_FLOWS], fair = 0;
	int i, k, first = -1;

	cc_goodput(c, b, c->buckets / 2, c->buckets, g);
	for (k = 0; k < c->flows; k++)
		fair += g[k] / c->flows;
	if (fair <= 0)
		return -1;
	for (i = 0; i + win <= c->buckets; i++) {
		if (b[i].t_us - c->bucket_us < last)
			continue;		/* not all flows started yet */
		if (!fair_at(c, b, i, win, tol, fair))
			first = -1;
		else if (first < 0)
			first = i;
	}
	if (first < 0)
		return -1;
	return (int64_t)(b[first + win - 1].t_us - last);
}
