/*
 * snic congestion control and multipath (docs/snic-rdma.md "Congestion
 * control", docs/timing.md "ECN marking"): a CE-marked request makes the
 * responder send a RoCEv2 CNP to the requester's QP (at most one per
 * cnp-interval-us); a CNP cuts the DCQCN rate of the QP it names (QUERY_QP
 * cc_rate_mbps, counters) and the rate recovers on the timer; AIMD QPs
 * only count CNPs; malformed CNPs are dropped and counted; ecn-mark-every
 * marks end to end with the data intact; spray varies the UDP source
 * port per packet and the data arrives; in timing mode the switch queue
 * marks ECT frames above its threshold (timing-rx-queue-bytes shows its
 * depth), DCQCN paces the requester, and two flows sharing a port under
 * DCQCN both get a fair part of it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include "../lib/check.h"
#include "qtest.h"
#include "snic_cc_flows.h"
#include "snic_rdma_env.h"

#define SNIC1		"/machine/peripheral/snic1"

/* Set the IPv4 ECN field of raw frame @f (header checksum fixed). */
static void set_ecn(uint8_t *f, uint8_t ecn)
{
	uint8_t *ip = f + 14;
	uint32_t sum = 0;
	int i;

	ip[1] = (ip[1] & ~3) | ecn;
	ip[10] = ip[11] = 0;
	for (i = 0; i < 20; i += 2)
		sum += ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = ~sum >> 8;
	ip[11] = ~sum;
}

/*
 * A CNP from B (its MAC and IP) to A's QP @dqpn: mk_req makes frames from
 * A to B, so the addresses are swapped.  @extra reserved bytes beyond the
 * 16 (a malformed CNP); the ICRC is right.
 */
static size_t mk_cnp(uint8_t *f, uint32_t dqpn, size_t extra)
{
	size_t len = mk_req(f, 0x04, dqpn, 0, 16 + extra);
	uint8_t mac[6], ip[4];

	memcpy(mac, f, 6);
	memcpy(f, f + 6, 6);
	memcpy(f + 6, mac, 6);
	memcpy(ip, f + 26, 4);
	memcpy(f + 26, f + 30, 4);
	memcpy(f + 30, ip, 4);
	f[42] = 0x81;
	f[43] = 0;		/* no pad */
	f[46] = 0x40;		/* BECN */
	memset(f + 54, 0, 16 + extra);
	f[50] &= 0x7f;		/* no AckReq */
	set_ecn(f, 0);
	fix_icrc(f, len);
	return len;
}

static uint32_t rate_of(struct qp *q)
{
	struct snic_qp_attr a;

	if (snic_rdma_query_qp(q->d, q->qpn, &a) != OK)
		return ~0u;
	return a.cc_rate_mbps;
}

/* Next captured CNP within a few main-loop turns, or 0. */
static int cap_cnp(uint8_t *f, size_t size)
{
	int n, i;

	for (i = 0; i < 64; i++) {
		qt_readl(qt, A->bar0 + SNIC_REG_ID);
		while ((n = cap_recv(f, size, 0)) > 0) {
			if (n > 42 && f[12] == 0x08 && f[42] == 0x81)
				return n;
		}
	}
	return 0;
}

/* A CE-marked request to B's QP: B sends one CNP back to A's QP. */
static void ce_gets_cnp(void)
{
	uint8_t f[2048], c[2048];
	struct snic_rdma_stats st;
	int n;
	size_t len;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	/* a duplicate WRITE (PSN before the expected one), CE set */
	len = mk_req(f, 0x0a, sb.qp.qpn, 4000, 64);
	memcpy(f + 42 + 12, &sb.mr.iova, 8);
	set_ecn(f, 3);
	fix_icrc(f, len);
	cap_drain();
	CHECK(inj_send(f, len));
	n = cap_cnp(c, sizeof(c));
	CHECK(n == 14 + 20 + 8 + 12 + 16 + 4);
	/* to A's QP, from B's address, not ECN-capable, BECN, valid ICRC */
	CHECK_EQ(ntohl(*(uint32_t *)(c + 42 + 4)) & 0xffffff, sa.qp.qpn);
	CHECK(!memcmp(c, mac_a, 6));
	CHECK_EQ(ntohl(*(uint32_t *)(c + 26)), ip_b);
	CHECK_EQ(c[15] & 3, 0);
	CHECK_EQ(c[46], 0x40);
	CHECK_EQ((uint32_t)(c[n - 4] | c[n - 3] << 8 | c[n - 2] << 16 |
			    (uint32_t)c[n - 1] << 24), icrc_of(c, n));
	CHECK(rstats(B, &st));
	CHECK_EQ(st.ecn_marked, 1);
	CHECK_EQ(st.cnp_sent, 1);
	/* within cnp-interval-us (50): no second CNP */
	CHECK(inj_send(f, len));
	pump(16);
	CHECK(rstats(B, &st));
	CHECK_EQ(st.ecn_marked, 2);
	CHECK_EQ(st.cnp_sent, 1);
	/* after it: one more */
	qt_clock_step(qt, 50000);
	CHECK(inj_send(f, len));
	pump(16);
	CHECK(rstats(B, &st));
	CHECK_EQ(st.cnp_sent, 2);
	/* not CE: nothing */
	qt_clock_step(qt, 50000);
	set_ecn(f, 2);
	CHECK(inj_send(f, len));
	pump(16);
	CHECK(rstats(B, &st));
	CHECK_EQ(st.ecn_marked, 3);
	CHECK_EQ(st.cnp_sent, 2);
}

/* A CNP cuts the DCQCN rate of the QP it names; the timer brings it back. */
static void cnp_cuts_rate(void)
{
	struct snic_rdma_stats st;
	uint8_t f[256];
	size_t len;
	uint32_t r0, r1, r2, r3;

	CHECK(env_start_opts(",cc=dcqcn"));
	CHECK(pair_up(&conn_default));
	r0 = rate_of(&sa.qp);
	CHECK_EQ(r0, 100000);
	len = mk_cnp(f, sa.qp.qpn, 0);
	CHECK(inj_send(f, len));
	pump(16);
	CHECK(rstats(A, &st));
	CHECK_EQ(st.cnp_rcvd, 1);
	CHECK_EQ(st.cc_rate_decreases, 1);
	CHECK_EQ(st.rx_malformed, 0);
	/* alpha starts at 1: the first cut halves the rate */
	r1 = rate_of(&sa.qp);
	CHECK(r1 >= 49900 && r1 <= 50000);
	CHECK(inj_send(f, len));
	pump(16);
	r2 = rate_of(&sa.qp);
	CHECK(r2 < r1);
	/* B's QP is not touched */
	CHECK_EQ(rate_of(&sb.qp), 100000);
	/* 5 timer periods of 55 us: fast recovery towards the rate before */
	qt_clock_step(qt, 5 * 55000);
	r3 = rate_of(&sa.qp);
	CHECK(r3 > r2 && r3 <= r1);
	CHECK(rstats(A, &st));
	CHECK_EQ(st.cc_rate_increases, 5);
	/* long enough: back to line rate */
	qt_clock_step(qt, 200000000);
	CHECK_EQ(rate_of(&sa.qp), 100000);
	/* the QP still works */
	{
		struct snic_cqe e;
		struct wqe w;
		uint16_t idx;

		w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
		w_raddr(&w, sb.mr.iova, sb.mr.key);
		w_data(&w, 5000, sa.mr.key, sa.mr.iova);
		idx = qp_post(&sa.qp, &w);
		CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 5000, &e);
	}
	/* AIMD (the default): CNPs are counted, no rate */
	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	len = mk_cnp(f, sa.qp.qpn, 0);
	CHECK(inj_send(f, len));
	pump(16);
	CHECK(rstats(A, &st));
	CHECK_EQ(st.cnp_rcvd, 1);
	CHECK_EQ(st.cc_rate_decreases, 0);
	CHECK_EQ(rate_of(&sa.qp), 0);
}

/* Malformed or misdirected CNPs are dropped, counted, and change nothing. */
static void malformed_cnp_harmless(void)
{
	struct snic_rdma_stats st;
	struct snic_cqe e;
	struct wqe w;
	uint8_t f[256];
	size_t len;
	uint16_t idx;
	int i;

	CHECK(env_start_opts(",cc=dcqcn"));
	CHECK(pair_up(&conn_default));
	/* 4 bytes too long */
	len = mk_cnp(f, sa.qp.qpn, 4);
	CHECK(inj_send(f, len));
	/* bad ICRC */
	len = mk_cnp(f, sa.qp.qpn, 0);
	f[len - 1] ^= 1;
	CHECK(inj_send(f, len));
	/* truncated */
	len = mk_cnp(f, sa.qp.qpn, 0);
	CHECK(inj_send(f, len - 10));
	/* no such QP */
	len = mk_cnp(f, 0x777, 0);
	CHECK(inj_send(f, len));
	/* from another address than the QP's peer */
	len = mk_cnp(f, sa.qp.qpn, 0);
	f[26 + 3] ^= 0x10;
	set_ecn(f, 0);
	fix_icrc(f, len);
	CHECK(inj_send(f, len));
	/* random bytes after a CNP's BTH */
	for (i = 0; i < 200; i++) {
		len = mk_cnp(f, sa.qp.qpn, 0);
		f[54 + i % 16] = i * 37;
		f[47 + i % 3] = i;
		if (i & 1)
			f[42 + 1] = i;		/* SE/M/pad/TVer */
		fix_icrc(f, len);
		CHECK(inj_send(f, len));
	}
	/* until all 205 frames are in (a loaded host delivers them late) */
	for (i = 0; i < 400; i++) {
		pump(16);
		CHECK(rstats(A, &st));
		if (st.rx_malformed + st.rx_icrc_errors + st.rx_bad_src +
		    st.rx_no_qp + st.cnp_rcvd >= 205)
			break;
	}
	/* the long one, the truncated one, the 100 with TVer 1 */
	CHECK_EQ(st.rx_malformed, 102);
	CHECK_EQ(st.rx_icrc_errors, 1);
	CHECK_EQ(st.rx_bad_src, 1);
	/* the rest are CNPs, to A's QP or to none (0x777, other QPNs) */
	CHECK_EQ(st.rx_no_qp + st.cnp_rcvd, 101);
	CHECK_EQ(st.cc_rate_decreases, st.cnp_rcvd);
	CHECK_EQ(qp_query_state(&sa.qp), SNIC_QPS_RTS);
	/* the QP works */
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, 3000, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	CHECK_REQ(&sa.scq, idx, SNIC_WQE_RDMA_WRITE, 3000, &e);
}

/* A WRITE of @n bytes from sa to sb with data check. */
static bool write_checked(size_t n, unsigned seed)
{
	static uint8_t src[BUF_LEN], dst[BUF_LEN];
	struct snic_cqe e;
	struct wqe w;
	uint16_t idx;

	fill(src, n, seed);
	mr_write(&sa.mr, 0, src, n);
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, n, sa.mr.key, sa.mr.iova);
	idx = qp_post(&sa.qp, &w);
	if (!cq_wait(&sa.scq, &e, 1000000) || e.syndrome || e.wqe_counter != idx)
		return false;
	mr_read(&sb.mr, 0, dst, n);
	return !memcmp(src, dst, n);
}

/* ecn-mark-every: marks, CNPs and rate cuts end to end; data intact. */
static void mark_every_end_to_end(void)
{
	struct snic_rdma_stats sta, stb;
	uint64_t marked = 0;

	CHECK(env_start_opts(",cc=dcqcn,ecn-mark-every=4"));
	CHECK(pair_up(&conn_default));
	CHECK(write_checked(64 * 1024, 3));
	CHECK(rstats(A, &sta));
	CHECK(rstats(B, &stb));
	CHECK(qt_qom_get_u64(qt, SNIC1, "ecn-marked", &marked));
	/* 64 WRITE packets at MTU 1024: every 4th ECT one marked at B */
	CHECK(marked >= 16);
	CHECK_EQ(stb.ecn_marked, marked);
	CHECK(stb.cnp_sent >= 1);
	CHECK_EQ(sta.cnp_rcvd, stb.cnp_sent);
	CHECK_EQ(sta.cc_rate_decreases, sta.cnp_rcvd);
	CHECK(rate_of(&sa.qp) < 100000);
	CHECK_EQ(sta.retransmits, 0);
}

/* Source ports of A's request packets captured while it writes @n bytes. */
static int sports_of_write(size_t n, uint16_t *ports, int max)
{
	uint8_t f[9100];
	struct snic_cqe e;
	struct wqe w;
	int got = 0, i, k;

	cap_drain();
	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, n, sa.mr.key, sa.mr.iova);
	qp_post(&sa.qp, &w);
	for (i = 0; i < 400; i++) {
		bool done = snic_cq_peek(&sa.scq, &e, 1);

		while ((k = cap_recv(f, sizeof(f), 0)) > 0) {
			if (k > 42 && !memcmp(f + 6, mac_a, 6) &&
			    f[42] >= 0x06 && f[42] <= 0x0a && got < max)
				ports[got++] = f[34] << 8 | f[35];
		}
		if (done) {
			snic_cq_consume(&sa.scq);
			return e.syndrome ? -1 : got;
		}
		qt_readl(qt, A->bar0 + SNIC_REG_ID);
	}
	return -1;
}

static int distinct(const uint16_t *p, int n)
{
	int d = 0, i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && p[j] != p[i]; j++)
			;
		d += j == i;
	}
	return d;
}

/* spray=on: every packet of a QP has its own UDP source port. */
static void spray_varies_ports(void)
{
	static uint8_t src[32768], dst[32768];
	uint16_t ports[64];
	int n, i;

	CHECK(env_start());
	CHECK(pair_up(&conn_default));
	n = sports_of_write(16 * 1024, ports, 64);
	CHECK_EQ(n, 16);
	CHECK_EQ(distinct(ports, n), 1);
	CHECK(env_start_opts(",spray=on"));
	CHECK(pair_up(&conn_default));
	fill(src, sizeof(src), 5);
	mr_write(&sa.mr, 0, src, sizeof(src));
	n = sports_of_write(sizeof(src), ports, 64);
	CHECK_EQ(n, 32);
	CHECK(distinct(ports, n) >= 24);
	for (i = 0; i < n; i++)
		CHECK(ports[i] >= 0xc000);
	mr_read(&sb.mr, 0, dst, sizeof(dst));
	CHECK(!memcmp(src, dst, sizeof(dst)));
	CHECK(write_checked(200000, 8));
}

/*
 * Timing mode: frames arriving together queue at B's port; ECT ones
 * past timing-ecn-kmax are marked, not-ECT ones never.
 */
static void timing_queue_marks(void)
{
	uint8_t f[1500];
	uint64_t marked = 1, depth = 0;
	int i;

	CHECK(env_start_opts(",timing=on,timing-ecn-kmin=1000,"
			     "timing-ecn-kmax=2000"));
	memset(f, 0, sizeof(f));
	mk_req(f, 0x0a, 0x999, 0, 1400);
	memcpy(f, mac_b, 6);
	for (i = 0; i < 10; i++)
		CHECK(inj_send(f, 14 + 20 + 8 + 12 + 16 + 1400 + 4));
	pump(64);
	CHECK(qt_qom_get_u64(qt, SNIC1, "ecn-marked", &marked));
	CHECK_EQ(marked, 0);
	/*
	 * the ten came at one instant: all of them are still queued (each
	 * frame's time on the line, 24 bytes of overhead included, rounded
	 * up to the ns: up to 12.5 bytes more)
	 */
	CHECK(qt_qom_get_u64(qt, SNIC1, "timing-rx-queue-bytes", &depth));
	CHECK(depth >= 10 * (1474 + 24) && depth <= 10 * (1474 + 24 + 12));
	set_ecn(f, 1);
	for (i = 0; i < 10; i++)
		CHECK(inj_send(f, 14 + 20 + 8 + 12 + 16 + 1400 + 4));
	pump(64);
	CHECK(qt_qom_get_u64(qt, SNIC1, "ecn-marked", &marked));
	/* the queue still holds the first ten: every ECT one is past kmax */
	CHECK_EQ(marked, 10);
	/* drained at the line rate */
	qt_clock_step(qt, 100000);
	CHECK(qt_qom_get_u64(qt, SNIC1, "timing-rx-queue-bytes", &depth));
	CHECK_EQ(depth, 0);
	/* bad curve refused */
	CHECK(!env_start_opts(",timing=on,timing-ecn-kmin=3000,"
			      "timing-ecn-kmax=2000"));
	CHECK(!env_start_opts(",cc=cubic"));
	CHECK(!env_start_opts(",dcqcn-g-shift=0"));
}

/*
 * Timing mode: after a CNP the requester is paced at the cut rate, so a
 * 256 KiB WRITE takes longer in modeled time than at line rate.
 */
static int64_t timed_write(size_t n)
{
	struct snic_cqe e;
	struct wqe w;
	uint64_t t0;
	uint16_t idx;

	w_init(&w, SNIC_WQE_RDMA_WRITE, SNIC_WQE_F_SIGNAL, 0);
	w_raddr(&w, sb.mr.iova, sb.mr.key);
	w_data(&w, n, sa.mr.key, sa.mr.iova);
	t0 = qt_clock_now(qt);
	idx = qp_post(&sa.qp, &w);
	return cq_wait_timed(&sa.scq, idx, t0, &e);
}

static void timing_dcqcn_paces(void)
{
	uint8_t f[256];
	int64_t full, cut;
	size_t len;

	CHECK(env_start_opts(",timing=on,cc=dcqcn"));
	CHECK(pair_up(&conn_default));
	full = timed_write(BUF_LEN);
	CHECK(full > 0);
	len = mk_cnp(f, sa.qp.qpn, 0);
	CHECK(inj_send(f, len));
	CHECK(inj_send(f, len));
	pump(16);
	/* the second waited in the switch queue behind the first */
	qt_clock_step(qt, 1000);
	pump(16);
	/* two cuts: alpha 1 then ~1: about a quarter of the line rate */
	CHECK(rate_of(&sa.qp) < 30000);
	cut = timed_write(BUF_LEN);
	fprintf(stderr, "snic_cc: 256 KiB WRITE %lld ns at line rate, "
		"%lld ns after two CNPs\n", (long long)full, (long long)cut);
	CHECK(cut > 2 * full);
}

/*
 * Two RC flows from two ports into one 100 Gbit/s port, the second
 * starting 1 ms after the first at line rate (snic_cc_flows.h): with
 * DCQCN the first gives way and each gets at least a quarter of the line
 * over the last 10 ms of 40 (a property of the rate control, not a time:
 * modeled time repeats exactly).  AIMD fails it (the first flow keeps
 * most of the port), and so would DCQCN without its rate cut.
 */
static void dcqcn_two_flows_share(void)
{
	static struct cc_bucket b[80];
	struct cc_cfg c = {
		.mode = "dcqcn", .flows = 2, .senders = 2, .bucket_us = 500,
		.buckets = 80, .stagger_us = 1000,
	};
	uint64_t cnps = 0;
	double g[2];
	int i;

	CHECK(cc_run(&c, b));
	cc_goodput(&c, b, 60, 80, g);
	for (i = 0; i < 80; i++)
		cnps += b[i].cnps;
	fprintf(stderr, "snic_cc: two flows, goodput over 30-40 ms %.2f and "
		"%.2f Gbit/s, %llu CNPs\n", g[0], g[1],
		(unsigned long long)cnps);
	CHECK(cnps > 0);
	CHECK(g[0] >= 25.0);
	CHECK(g[1] >= 25.0);
}

int main(void)
{
	RUN("device/snic_cc", ce_gets_cnp);
	RUN("device/snic_cc", cnp_cuts_rate);
	RUN("device/snic_cc", malformed_cnp_harmless);
	RUN("device/snic_cc", mark_every_end_to_end);
	RUN("device/snic_cc", spray_varies_ports);
	RUN("device/snic_cc", timing_queue_marks);
	RUN("device/snic_cc", timing_dcqcn_paces);
	RUN("device/snic_cc", dcqcn_two_flows_share);
	qt_quit(qt);
	return check_failures ? 1 : 0;
}
