/*
 * snic timing mode (docs/timing.md) on two snics of one QEMU: a 64 KiB
 * RDMA WRITE's CQE appears at the virtual time the cost model predicts
 * (within 5%), identical runs give the same time (within 1%), frames
 * leave only when the wire has carried them, a CQE's timestamp is the
 * time it lands, bad parameters are refused, and with timing off nothing
 * waits for the clock.
 *
 * Modeled time is read off the virtual clock, which moves only when the
 * test steps it (from timer deadline to timer deadline): no wall clock.
 */
#include "../lib/check.h"
#include "common/d2d-cost.h"
#include "qtest.h"
#include "snic_rdma_env.h"

#define MSG	(64 * 1024)

static const struct conn conn_4k = {
	.mtu = SNIC_MTU_4096, .timeout = 14, .retry = 7, .rnr_retry = 7,
	.rnr_timer = 1, .rd_atomic = 4,
};

/* A MSG-byte WRITE from sa to sb; *wqe: its index. */
static void post_write(uint16_t *wqe)
{
	struct wqe w;

	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, MSG, sa.mr.key, sa.mr.iova);
	*wqe = qp_post(&sa.qp, &w);
}

/*
 * Post the WRITE and step the clock deadline by deadline until its CQE is
 * in memory: the virtual ns from the doorbell to then, -1 if it never is.
 */
static int64_t timed_write(struct snic_cqe *e)
{
	uint64_t t0 = qt_clock_now(qt);
	uint16_t idx;

	post_write(&idx);
	return cq_wait_timed(&sa.scq, idx, t0, e);
}

static void rdma_write_calibrated(void)
{
	static uint8_t src[MSG], dst[MSG];
	D2DTimingParams p;
	struct snic_cqe e;
	int64_t pred, t1, t2, t3;

	d2d_timing_params_default(&p);
	pred = d2d_predict_rdma_write_ns(&p, MSG, 4096);
	CHECK(env_start_opts(",timing=on"));
	CHECK(pair_up(&conn_4k));
	fill(src, sizeof(src), 9);
	mr_write(&sa.mr, 0, src, sizeof(src));
	t1 = timed_write(&e);
	fprintf(stderr, "snic_timing: 64 KiB WRITE %lld ns, model %lld ns\n",
		(long long)t1, (long long)pred);
	CHECK(t1 > 0);
	CHECK_EQ(e.byte_cnt, MSG);
	mr_read(&sb.mr, 0, dst, sizeof(dst));
	CHECK(!memcmp(src, dst, sizeof(dst)));
	CHECK(within_pct(t1, pred, 5));
	/* the same WRITE again, then in a fresh QEMU */
	t2 = timed_write(&e);
	CHECK(within_pct(t2, t1, 1));
	CHECK(env_start_opts(",timing=on"));
	CHECK(pair_up(&conn_4k));
	t3 = timed_write(&e);
	CHECK(within_pct(t3, t1, 1));
}

/* A slower link (Gen3 x4) makes PCIe the bottleneck: still the model. */
static void rdma_write_pcie_bound(void)
{
	D2DTimingParams p;
	struct snic_cqe e;
	int64_t pred, t;

	d2d_timing_params_default(&p);
	p.pcie_lanes = 4;
	pred = d2d_predict_rdma_write_ns(&p, MSG, 4096);
	CHECK(env_start_opts(",timing=on,timing-pcie-lanes=4"));
	CHECK(pair_up(&conn_4k));
	t = timed_write(&e);
	fprintf(stderr, "snic_timing: x4 64 KiB WRITE %lld ns, model %lld ns\n",
		(long long)t, (long long)pred);
	CHECK(within_pct(t, pred, 5));
}

/* In timing mode nothing completes before the clock has moved. */
static void nothing_before_its_time(void)
{
	static uint8_t src[MSG], dst[MSG], zero[MSG];
	struct snic_cqe e;
	uint16_t idx;

	CHECK(env_start_opts(",timing=on"));
	CHECK(pair_up(&conn_4k));
	fill(src, sizeof(src), 3);
	mr_write(&sa.mr, 0, src, sizeof(src));
	post_write(&idx);
	pump(64);
	/* the clock has not moved: no CQE, no byte placed at the peer */
	CHECK(!snic_cq_peek(&sa.scq, &e, 1));
	mr_read(&sb.mr, 0, dst, sizeof(dst));
	CHECK(!memcmp(dst, zero, sizeof(dst)));
	CHECK(cq_wait(&sa.scq, &e, 1000));
	CHECK_EQ(e.wqe_counter, idx);
	mr_read(&sb.mr, 0, dst, sizeof(dst));
	CHECK(!memcmp(dst, src, sizeof(dst)));
}

/* Timing off (the default): the CQE is there without the clock moving. */
static void timing_off_immediate(void)
{
	struct snic_cqe e;
	uint64_t t0;
	uint16_t idx;

	CHECK(env_start());
	CHECK(pair_up(&conn_4k));
	t0 = qt_clock_now(qt);
	post_write(&idx);
	CHECK(cq_wait(&sa.scq, &e, 0));
	CHECK_EQ(e.wqe_counter, idx);
	CHECK_EQ(qt_clock_now(qt), t0);
}

/*
 * The switch queue in front of a port: frames arriving together wait in
 * it and, past timing-switch-queue bytes, are dropped (counted).
 */
static void switch_queue_drops(void)
{
	uint8_t f[1500];
	uint64_t queued = 0, drops = 0;
	int i;

	CHECK(env_start_opts(",timing=on,timing-switch-queue=3000"));
	memset(f, 0, sizeof(f));
	memcpy(f, mac_b, 6);
	memcpy(f + 6, mac_a, 6);
	f[12] = 0x88;		/* a local experimental ethertype */
	f[13] = 0xb5;
	for (i = 0; i < 10; i++)
		CHECK(inj_send(f, sizeof(f)));
	pump(64);
	/* the first goes through, one waits (1524 B ahead), the rest drop */
	CHECK(qt_qom_get_u64(qt, "/machine/peripheral/snic1",
			     "timing-rx-queued", &queued));
	CHECK(qt_qom_get_u64(qt, "/machine/peripheral/snic1",
			     "timing-rx-drops", &drops));
	CHECK_EQ(queued, 1);
	CHECK_EQ(drops, 8);
	/* timing off: no queue */
	CHECK(env_start());
	for (i = 0; i < 10; i++)
		CHECK(inj_send(f, sizeof(f)));
	pump(64);
	CHECK(qt_qom_get_u64(qt, "/machine/peripheral/snic1",
			     "timing-rx-drops", &drops));
	CHECK_EQ(drops, 0);
}

/*
 * A CQE's timestamp is its completion time: in timing mode the virtual
 * time it lands in host memory, not the time the model made it.
 */
static void cqe_timestamp_completion(void)
{
	struct snic_cqe e;
	uint64_t t0;
	int64_t t;

	CHECK(env_start_opts(",timing=on"));
	CHECK(pair_up(&conn_4k));
	t0 = qt_clock_now(qt);
	t = timed_write(&e);
	CHECK(t > 0);
	CHECK_EQ(e.timestamp, t0 + t);
}

/*
 * The device clock in the doorbell pages (SNIC_DB_CLOCK_LO, then HI) is
 * the virtual clock, the time base of the CQE timestamps; reading LO
 * latches HI per page.
 */
static void db_clock(void)
{
	uint64_t page = A->bar2 + 3 * SNIC_DB_PAGE_SIZE, t0, t;
	struct snic_cqe e;
	uint32_t lo, hi;

	CHECK(env_start_opts(",timing=on"));
	CHECK(pair_up(&conn_4k));
	/* past 2^32 ns: the high half counts */
	qt_clock_step(qt, 5000000000ull);
	t0 = qt_clock_now(qt);
	lo = qt_readl(qt, page + SNIC_DB_CLOCK_LO);
	hi = qt_readl(qt, page + SNIC_DB_CLOCK_HI);
	CHECK_EQ((uint64_t)hi << 32 | lo, t0);
	CHECK(hi > 0);
	/* a CQE's timestamp on the same clock: after t0, at most now */
	CHECK(timed_write(&e) > 0);
	lo = qt_readl(qt, page + SNIC_DB_CLOCK_LO);
	hi = qt_readl(qt, page + SNIC_DB_CLOCK_HI);
	t = (uint64_t)hi << 32 | lo;
	CHECK(e.timestamp > t0);
	CHECK(e.timestamp <= t);
	CHECK_EQ(t, qt_clock_now(qt));
	/* other offsets still read 0 */
	CHECK_EQ(qt_readl(qt, page + SNIC_DB_CLOCK_HI + 4), 0);
}

/* A region the device had, "freed": filled with a pattern to watch. */
struct watched {
	uint64_t addr;
	size_t len;
};

static void watch_fill(const struct watched *w, int n)
{
	static uint8_t pat[BUF_LEN + 8192];
	int i;

	memset(pat, 0xa5, sizeof(pat));
	for (i = 0; i < n; i++)
		mwrite(w[i].addr, pat, w[i].len);
}

/* Bytes of the watched regions that are no longer the pattern. */
static size_t watch_changed(const struct watched *w, int n)
{
	static uint8_t buf[BUF_LEN + 8192];
	size_t bad = 0, j;
	int i;

	for (i = 0; i < n; i++) {
		mread(w[i].addr, buf, w[i].len);
		for (j = 0; j < w[i].len; j++)
			bad += buf[j] != 0xa5;
	}
	return bad;
}

/*
 * Teardown with work in flight (timing mode): WRITEs and READs of 64 KiB
 * both ways are posted and the clock is stopped part-way, with their data
 * on the wire and DMA writes queued for their modeled time.  Both sides
 * then destroy their QPs, MRs and CQs as a driver does; when a DESTROY
 * has completed, the memory of the object is the host's again: it is
 * refilled (freed and reused) and the clock runs on for 100 ms.  No byte
 * of it may change: every effect the device queued for the object landed
 * before its DESTROY completed, none comes after.  Repeated at 16 points
 * of the transfer.
 */
static void teardown_in_flight(void)
{
	static uint8_t src[MSG];
	struct watched w[12];
	struct wqe wq;
	uint64_t t0;
	size_t bad = 0;
	int cut, i, n;

	for (cut = 0; cut < 16; cut++) {
		CHECK(env_start_opts(",timing=on"));
		CHECK(pair_up(&conn_4k));
		fill(src, sizeof(src), 20 + cut);
		mr_write(&sa.mr, 0, src, sizeof(src));
		mr_write(&sb.mr, 0, src, sizeof(src));
		for (i = 0; i < 2; i++) {
			struct side *me = i ? &sb : &sa, *peer = i ? &sa : &sb;

			w_init(&wq, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
			w_raddr(&wq, peer->mr.iova + MSG, peer->mr.key);
			w_data(&wq, MSG, me->mr.key, me->mr.iova);
			qp_put(&me->qp, &wq);
			w_init(&wq, SNIC_WQE_RDMA_READ, SNIC_WQE_F_SIGNAL, 0);
			w_raddr(&wq, peer->mr.iova, peer->mr.key);
			w_data(&wq, MSG, me->mr.key, me->mr.iova + 2 * MSG);
			qp_put(&me->qp, &wq);
			qp_ring(&me->qp);
		}
		/* stop the clock part-way through the transfers */
		t0 = qt_clock_now(qt);
		while (qt_clock_now(qt) - t0 < 1000ull * (cut + 1))
			qt_clock_step_next(qt);
		n = 0;
		for (i = 0; i < 2; i++) {
			struct side *me = i ? &sb : &sa;

			CHECK_EQ(snic_aq_obj(me->d, SNIC_AQ_DESTROY_QP,
					     me->qp.qpn), OK);
			CHECK_EQ(snic_aq_obj(me->d, SNIC_AQ_DESTROY_MR,
					     SNIC_KEY_INDEX(me->mr.key)), OK);
			CHECK_EQ(snic_aq_obj(me->d, SNIC_AQ_DESTROY_CQ,
					     me->scq.n), OK);
			CHECK_EQ(snic_aq_obj(me->d, SNIC_AQ_DESTROY_CQ,
					     me->rcq.n), OK);
			w[n++] = (struct watched){ me->mr.bus, BUF_LEN + 4096 };
			w[n++] = (struct watched){ me->scq.ring, 64 * me->scq.size };
			w[n++] = (struct watched){ me->rcq.ring, 64 * me->rcq.size };
			w[n++] = (struct watched){ me->scq.dbr, 4 };
			w[n++] = (struct watched){ me->qp.sq, 64 * me->qp.sq_size };
			w[n++] = (struct watched){ me->qp.dbr, 8 };
		}
		watch_fill(w, n);
		t0 = qt_clock_now(qt);
		for (i = 0; i < 10000 && qt_clock_now(qt) - t0 < 100000000ull;
		     i++)
			qt_clock_step_next(qt);
		qt_clock_step(qt, 100000000ull);
		pump(64);
		bad += watch_changed(w, n);
		CHECK(qt_alive(qt));
	}
	CHECK_EQ(bad, 0);
}

/* The MR range a CQE completes, page by page (MR pages are scattered). */
#define LATE_PAGES	(MSG / 4096 + 1)
struct late_cq {
	struct snic_cq *cq;
	const struct mr *mr;
	uint64_t off;
	struct watched w[LATE_PAGES];
	int n;
	bool seen;
};

static void late_watch(struct late_cq *l)
{
	uint64_t o = l->off, end = l->off + MSG;

	for (l->n = 0; o < end; l->n++) {
		size_t len = 4096 - ((l->mr->iova + o) & 4095);

		len = len < end - o ? len : end - o;
		l->w[l->n] = (struct watched){ mr_pa(l->mr, o), len };
		o += len;
	}
}

/*
 * Nothing lands after its completion (timing mode): READs both ways and
 * a SEND, 64 KiB each, in flight at once.  As each CQE appears, the
 * memory it completes (the READ's destination, the receive buffer) is
 * scribbled over, as an application reusing it would; the clock then
 * runs 100 ms on and no byte of it changes.
 */
static void rdma_nothing_after_completion(void)
{
	static uint8_t src[MSG];
	struct late_cq l[3] = {
		{ .cq = &sa.scq, .mr = &sa.mr, .off = MSG },
		{ .cq = &sb.scq, .mr = &sb.mr, .off = MSG },
		{ .cq = &sb.rcq, .mr = &sb.mr, .off = 2 * MSG },
	};
	struct snic_cqe e;
	struct wqe wq;
	uint64_t t0;
	int i, left = 3, steps;

	CHECK(env_start_opts(",timing=on"));
	CHECK(pair_up(&conn_4k));
	fill(src, sizeof(src), 77);
	mr_write(&sa.mr, 0, src, sizeof(src));
	mr_write(&sb.mr, 0, src, sizeof(src));
	for (i = 0; i < 3; i++)
		late_watch(&l[i]);
	qp_recv(&sb.qp, 1, MSG, sb.mr.key, sb.mr.iova + 2 * MSG);
	for (i = 0; i < 2; i++) {
		struct side *me = i ? &sb : &sa, *peer = i ? &sa : &sb;

		w_init(&wq, SNIC_WQE_RDMA_READ, SNIC_WQE_F_SIGNAL, 0);
		w_raddr(&wq, peer->mr.iova, peer->mr.key);
		w_data(&wq, MSG, me->mr.key, me->mr.iova + MSG);
		qp_put(&me->qp, &wq);
	}
	/* the SEND unsignaled: sa's send CQE is the READ's */
	w_init(&wq, SNIC_WQE_SEND, 0, 0);
	w_data(&wq, MSG, sa.mr.key, sa.mr.iova);
	qp_put(&sa.qp, &wq);
	qp_ring(&sa.qp);
	qp_ring(&sb.qp);
	t0 = qt_clock_now(qt);
	for (steps = 0; left && steps < 100000; steps++) {
		for (i = 0; i < 3; i++) {
			if (l[i].seen || !snic_cq_peek(l[i].cq, &e, 1))
				continue;
			snic_cq_consume(l[i].cq);
			CHECK_EQ(e.syndrome, SNIC_RST_OK);
			CHECK_EQ(e.byte_cnt, MSG);
			watch_fill(l[i].w, l[i].n);
			l[i].seen = true;
			left--;
		}
		if (left)
			qt_clock_step_next(qt);
	}
	CHECK_EQ(left, 0);
	while (qt_clock_now(qt) - t0 < 100000000ull && steps++ < 200000)
		qt_clock_step_next(qt);
	qt_clock_step(qt, 100000000ull);
	pump(64);
	for (i = 0; i < 3; i++) {
		size_t bad = watch_changed(l[i].w, l[i].n);

		if (bad)
			fprintf(stderr, "snic_timing: %zu bytes written after "
				"CQE %d\n", bad, i);
		CHECK_EQ(bad, 0);
	}
}

static void bad_params_refused(void)
{
	CHECK(!env_start_opts(",timing=on,timing-pcie-lanes=3"));
	CHECK(!env_start_opts(",timing=on,timing-pcie-gen=9"));
	CHECK(!env_start_opts(",timing=on,timing-wire-mbps=0"));
	/* off: the parameters are not used, so not checked */
	CHECK(env_start_opts(",timing-pcie-lanes=3"));
	/* a realized device's model does not change under it */
	CHECK(!qt_qom_set_u64(qt, "/machine/peripheral/snic0",
			      "timing-pcie-lanes", 4));
}

int main(void)
{
	RUN("device/snic_timing", rdma_write_calibrated);
	RUN("device/snic_timing", rdma_write_pcie_bound);
	RUN("device/snic_timing", nothing_before_its_time);
	RUN("device/snic_timing", timing_off_immediate);
	RUN("device/snic_timing", switch_queue_drops);
	RUN("device/snic_timing", cqe_timestamp_completion);
	RUN("device/snic_timing", db_clock);
	RUN("device/snic_timing", teardown_in_flight);
	RUN("device/snic_timing", rdma_nothing_after_completion);
	RUN("device/snic_timing", bad_params_refused);
	qt_quit(qt);
	return check_failures ? 1 : 0;
}
