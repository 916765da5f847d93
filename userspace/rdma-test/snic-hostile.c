// SPDX-License-Identifier: GPL-2.0
/*
 * snic-hostile: a misbehaving RDMA process.  It opens two snic ports
 * (one guest, two ports on a hub), connects an RC QP pair between them and
 * then, bypassing libsnic's checks, writes garbage straight into its
 * mapped rings and rings its doorbell page: unknown opcodes, bad ds_cnt,
 * foreign and bus-address lkeys, huge lengths, inline overflow, bad
 * receive WQEs, random bytes, doorbells beyond the ring or for queues it
 * does not own.  Each case must end in error completions (or a refused
 * doorbell), never a hang; afterwards a fresh QP pair must still work.
 * One PASS/FAIL line per case.
 *
 * With -S it then plays a hostile peer on the wire: from DEV_B's netdev
 * (a raw packet socket) it sprays RoCEv2 packets at DEV_A's connected RC
 * QP and at random QPNs, with spoofed sources, guessed PSNs, the real and
 * random rkeys: RDMA WRITEs, READs and atomics on A's memory, SEND with
 * invalidate of A's key, random opcodes, corrupted frames, and malformed
 * UDP datagrams to port SPIN_PORT (-u, a sPIN context may listen there).
 * A's memory (the canary) must stay byte-identical, the connection must
 * still work, and every spoofed packet to the QP must be counted in
 * rx_bad_src.
 *
 * Uses libsnic's internal layout (libsnic.h) to find the rings: it only
 * works on snic devices and says SKIP elsewhere.
 *
 *   snic-hostile -d DEV_A -D DEV_B [-S [-u SPIN_PORT]] [-P PREFIX]
 *                [-T TIMEOUT_MS]
 */
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/if_packet.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libsnic.h"
#include "verbs_util.h"
#include "snic/snic-roce.h"

#define BUF	(64 * 1024)

struct side {
	struct vu_dev d;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

static const char *prefix = "hostile";
static int timeout_ms = 20000;
static int npass, nfail;
static char why[256];

static void result(const char *name)
{
	if (why[0]) {
		printf("FAIL %s/%s: %s\n", prefix, name, why);
		nfail++;
	} else {
		printf("PASS %s/%s\n", prefix, name);
		npass++;
	}
	fflush(stdout);
	why[0] = 0;
}

static int failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int failf(const char *fmt, ...)
{
	va_list ap;

	if (!why[0]) {
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
	}
	return -1;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void side_down(struct side *s)
{
	if (s->qp)
		ibv_destroy_qp(s->qp);
	if (s->cq)
		ibv_destroy_cq(s->cq);
	s->qp = NULL;
	s->cq = NULL;
}

/* Fresh CQ and RC QP on both sides, connected to each other. */
static int pair_up(struct side *a, struct side *b)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};
	struct side *s[2] = { a, b };
	struct vu_peer p[2];
	const char *step;
	int i, r;

	for (i = 0; i < 2; i++) {
		s[i]->cq = ibv_create_cq(s[i]->d.ctx, 256, NULL, NULL, 0);
		if (!s[i]->cq)
			return failf("ibv_create_cq: %s", strerror(errno));
		ia.send_cq = ia.recv_cq = s[i]->cq;
		s[i]->qp = ibv_create_qp(s[i]->d.pd, &ia);
		if (!s[i]->qp)
			return failf("ibv_create_qp: %s", strerror(errno));
		p[i].qpn = s[i]->qp->qp_num;
		p[i].psn = 100 + i;
		p[i].lid = s[i]->d.pattr.lid;
		memcpy(p[i].gid, s[i]->d.gid.raw, 16);
	}
	for (i = 0; i < 2; i++) {
		r = vu_qp_connect(s[i]->qp, &s[i]->d, &p[1 - i], p[i].psn, &step);
		if (r)
			return failf("modify to %s: %s", step, strerror(r));
	}
	return 0;
}

/* Write @nbb raw basic blocks at the send producer and ring (or lie). */
static void inject_send(struct side *s, const uint8_t *bbs, unsigned int nbb,
			uint32_t db_extra)
{
	struct snic_qp *qp = to_sqp(s->qp);
	struct snic_context *ctx = to_sctx(s->qp->context);
	uint32_t mask = (1u << qp->sq.log_bbs) - 1, i;

	pthread_spin_lock(&qp->sq_lock);
	for (i = 0; i < nbb; i++)
		memcpy(qp->sq.ring + ((qp->sq.prod + i) & mask) * SNIC_WQEBB_SIZE,
		       bbs + i * SNIC_WQEBB_SIZE, SNIC_WQEBB_SIZE);
	qp->sq.wr_id[qp->sq.prod & mask] = 0xbad;
	qp->sq.nbb[qp->sq.prod & mask] = nbb ? nbb : 1;
	qp->sq.prod += nbb;
	snic_publish(ctx, &qp->dbr[1], SNIC_DB_QP_SQ, qp->qpn,
		     qp->sq.prod + db_extra);
	pthread_spin_unlock(&qp->sq_lock);
}

/* Write one raw receive WQE into @s's receive ring. */
static void inject_recv(struct side *s, const void *wqe, size_t len)
{
	struct snic_qp *qp = to_sqp(s->qp);
	struct snic_context *ctx = to_sctx(s->qp->context);
	uint32_t mask = (1u << qp->rq.log_size) - 1;
	size_t stride = (size_t)1 << qp->rq.log_stride;

	pthread_spin_lock(&qp->rq_lock);
	memset(qp->rq.ring + (qp->rq.prod & mask) * stride, 0, stride);
	memcpy(qp->rq.ring + (qp->rq.prod & mask) * stride, wqe,
	       len < stride ? len : stride);
	qp->rq.prod++;
	snic_publish(ctx, &qp->dbr[0], SNIC_DB_QP_RQ, qp->qpn,
		     qp->rq.prod);
	pthread_spin_unlock(&qp->rq_lock);
}

#define ST(x)	(1u << (x))

/*
 * Wait for completions on @a (and @b if given) until one is an error; it
 * must be one of @want (a mask of ST(ibv_wc_status)) when it comes from
 * @a.  A success first is a failure: the garbage was executed.
 */
static int expect_error(struct side *a, struct side *b, uint32_t want)
{
	long end = now_ms() + timeout_ms;
	struct ibv_wc wc;
	struct side *s[2] = { a, b };
	int i;

	while (now_ms() < end) {
		for (i = 0; i < 2; i++) {
			if (!s[i] || ibv_poll_cq(s[i]->cq, 1, &wc) <= 0)
				continue;
			if (wc.status != IBV_WC_SUCCESS) {
				/* For the log: which error the garbage got. */
				printf("  %s: %s (syndrome %u)\n",
				       i ? "receiver" : "sender",
				       ibv_wc_status_str(wc.status),
				       wc.vendor_err);
				if (i == 0 && !(want & ST(wc.status)))
					return failf("unexpected status %s",
						     ibv_wc_status_str(wc.status));
				return 0;
			}
			return failf("garbage completed successfully "
				     "(wr_id %#llx opcode %d)",
				     (unsigned long long)wc.wr_id, wc.opcode);
		}
		usleep(500);
	}
	return failf("no error completion in %d ms", timeout_ms);
}

static void ctrl(uint8_t *wqe, uint8_t opcode, uint8_t flags, uint8_t ds,
		 uint32_t prod)
{
	struct snic_wqe_ctrl *c = (void *)wqe;

	c->opcode = opcode;
	c->flags = flags | SNIC_WQE_F_SIGNAL;
	c->wqe_idx = htole16(prod);
	c->ds_cnt = ds;
}

static void data(uint8_t *wqe, unsigned int i, uint32_t len, uint32_t lkey,
		 uint64_t addr)
{
	struct snic_wqe_data *d = (void *)(wqe + 16 * i);

	d->byte_count = htole32(len);
	d->lkey = htole32(lkey);
	d->addr = htole64(addr);
}

enum kind { K_OPCODE, K_DS0, K_DSBIG, K_LKEY, K_BUSKEY, K_HUGE, K_TOTAL,
	    K_INLINE };

/* One malformed send WQE on a fresh pair: an error completion follows. */
static void send_case(struct side *a, struct side *b, const char *name,
		      enum kind k)
{
	uint8_t w[SNIC_WQE_MAX_BYTES] = { 0 };
	uint32_t prod, lkey, want = 0;
	uint64_t addr;
	unsigned int nbb = 1, i;

	if (pair_up(a, b))
		goto out;
	prod = to_sqp(a->qp)->sq.prod;
	lkey = a->mr->lkey;
	addr = (uintptr_t)a->buf;
	switch (k) {
	case K_OPCODE:
		want = ST(IBV_WC_LOC_QP_OP_ERR);
		ctrl(w, 0x7f, 0, 1, prod);
		break;
	case K_DS0:
		want = ST(IBV_WC_LOC_QP_OP_ERR);
		ctrl(w, SNIC_WQE_SEND, 0, 0, prod);
		break;
	case K_DSBIG:
		want = ST(IBV_WC_LOC_QP_OP_ERR);
		ctrl(w, SNIC_WQE_SEND, 0, 200, prod);
		nbb = 4;
		break;
	case K_LKEY:	/* an MR index far beyond the table */
		want = ST(IBV_WC_LOC_PROT_ERR);
		ctrl(w, SNIC_WQE_SEND, 0, 2, prod);
		data(w, 1, 64, 0xfffff000u | (lkey & 0xff), addr);
		break;
	case K_BUSKEY:	/* lkey 0 = bus address: kernel QPs only */
		want = ST(IBV_WC_LOC_PROT_ERR);
		ctrl(w, SNIC_WQE_SEND, 0, 2, prod);
		data(w, 1, 64, SNIC_LKEY_BUS, 0x100000);
		break;
	case K_HUGE:	/* valid key, length far past the MR */
		want = ST(IBV_WC_LOC_PROT_ERR) | ST(IBV_WC_LOC_LEN_ERR);
		ctrl(w, SNIC_WQE_SEND, 0, 2, prod);
		data(w, 1, 0x7fffffffu, lkey, addr);
		break;
	case K_TOTAL:	/* fifteen 2 GiB pieces: beyond SNIC_MAX_MSG_SIZE */
		want = ST(IBV_WC_LOC_LEN_ERR);
		ctrl(w, SNIC_WQE_SEND, 0, 16, prod);
		for (i = 1; i < 16; i++)
			data(w, i, 0x7fffffffu, lkey, addr);
		nbb = 4;
		break;
	case K_INLINE:	/* claims 4000 inline bytes in one basic block */
		want = ST(IBV_WC_LOC_LEN_ERR) | ST(IBV_WC_LOC_QP_OP_ERR);
		ctrl(w, SNIC_WQE_SEND, SNIC_WQE_F_INLINE, 2, prod);
		*(uint32_t *)(w + 16) = htole32(SNIC_INLINE_SEG | 4000);
		break;
	}
	inject_send(a, w, nbb, 0);
	expect_error(a, NULL, want);
out:
	side_down(a);
	side_down(b);
	result(name);
}

/* A malformed receive WQE on b, then a well-formed SEND from a. */
static void recv_case(struct side *a, struct side *b, const char *name,
		      bool bad_lkey)
{
	uint8_t w[64] = { 0 };
	struct snic_recv_hdr *h = (void *)w;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { 0 }, *bad;

	if (pair_up(a, b))
		goto out;
	h->cookie = htole64(0xbad);
	if (bad_lkey) {
		h->num_sge = htole16(1);
		data(w, 1, 4096, 0xfffff000u, (uintptr_t)b->buf);
	} else {
		h->num_sge = htole16(0xffff);
	}
	inject_recv(b, w, sizeof(w));
	sge.addr = (uintptr_t)a->buf;
	sge.length = 64;
	sge.lkey = a->mr->lkey;
	wr.wr_id = 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(a->qp, &wr, &bad)) {
		failf("post_send: %s", strerror(errno));
		goto out;
	}
	/* The receiver's error and/or the sender's NAK-ed send (IBA:
	 * responder-side errors NAK with remote operational error). */
	expect_error(a, b, ST(IBV_WC_REM_OP_ERR) | ST(IBV_WC_REM_INV_REQ_ERR) |
		     ST(IBV_WC_REM_ACCESS_ERR));
out:
	side_down(a);
	side_down(b);
	result(name);
}

/* Random basic blocks, then doorbells that lie; nothing may hang. */
static void chaos_case(struct side *a, struct side *b, const char *name,
		       bool lie)
{
	uint8_t w[SNIC_WQE_MAX_BYTES];
	struct snic_context *ctx;
	struct ibv_wc wc;
	unsigned int i, j;
	long end;

	if (pair_up(a, b))
		goto out;
	ctx = to_sctx(a->qp->context);
	if (lie) {
		/* Producer far beyond the ring; queues we do not own. */
		inject_send(a, w, 0, 3 * (1u << to_sqp(a->qp)->sq.log_bbs) + 7);
		snic_ring_db(ctx, SNIC_DB_QP_SQ, SNIC_GSI_QPN, 0x1234);
		snic_ring_db(ctx, SNIC_DB_QP_RQ, SNIC_MAX_QPS + 5, 1);
		snic_ring_db(ctx, SNIC_DB_SRQ, 0, 3);
		snic_ring_db(ctx, SNIC_DB_CQ_ARM, 0, 0);
		snic_ring_db(ctx, SNIC_DB_CQ_ARM_SE, 0xffff, 0xffff);
	} else {
		srand(12345);
		for (i = 0; i < 8; i++) {
			for (j = 0; j < sizeof(w); j++)
				w[j] = rand();
			inject_send(a, w, 1 + i % 4, 0);
		}
	}
	/* Drain whatever comes for a few seconds: the point is no hang. */
	end = now_ms() + 3000;
	while (now_ms() < end) {
		while (ibv_poll_cq(a->cq, 1, &wc) > 0)
			;
		usleep(1000);
	}
out:
	side_down(a);
	side_down(b);
	result(name);
}

/* A fresh pair moves three messages intact. */
static void still_works(struct side *a, struct side *b)
{
	struct ibv_sge ss, rs;
	struct ibv_send_wr sw = { 0 }, *sbad;
	struct ibv_recv_wr rw = { 0 }, *rbad;
	struct ibv_wc wc;
	long end;
	int i, got;

	if (pair_up(a, b))
		goto out;
	for (i = 0; i < 3; i++) {
		memset(b->buf, 0, 4096);
		memset(a->buf, 0x30 + i, 4096);
		rs = (struct ibv_sge){ (uintptr_t)b->buf, 4096, b->mr->lkey };
		rw.wr_id = 10 + i;
		rw.sg_list = &rs;
		rw.num_sge = 1;
		ss = (struct ibv_sge){ (uintptr_t)a->buf, 4096, a->mr->lkey };
		sw.wr_id = 20 + i;
		sw.sg_list = &ss;
		sw.num_sge = 1;
		sw.opcode = IBV_WR_SEND;
		sw.send_flags = IBV_SEND_SIGNALED;
		if (ibv_post_recv(b->qp, &rw, &rbad) ||
		    ibv_post_send(a->qp, &sw, &sbad)) {
			failf("post: %s", strerror(errno));
			goto out;
		}
		end = now_ms() + timeout_ms;
		for (got = 0; got < 2 && now_ms() < end;) {
			struct side *s = got ? b : a;

			if (ibv_poll_cq(s->cq, 1, &wc) <= 0) {
				usleep(500);
				continue;
			}
			if (wc.status != IBV_WC_SUCCESS) {
				failf("message %d: %s", i,
				      ibv_wc_status_str(wc.status));
				goto out;
			}
			got++;
		}
		if (got < 2) {
			failf("message %d: no completion", i);
			goto out;
		}
		if (b->buf[0] != 0x30 + i || b->buf[4095] != 0x30 + i) {
			failf("message %d: payload wrong", i);
			goto out;
		}
	}
out:
	side_down(a);
	side_down(b);
	result("nic_still_works");
}

/* ---- a hostile peer on the wire ---- */

#define SPRAY_N		3000

/* The netdev of @s's GID: its ifindex and MAC. */
static int side_netdev(struct side *s, int *ifindex, uint8_t *mac)
{
	struct ibv_gid_entry e;
	struct ifreq ifr;
	int fd, r;

	if (ibv_query_gid_ex(s->d.ctx, s->d.port, s->d.gidx, &e, 0))
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	if (!if_indextoname(e.ndev_ifindex, ifr.ifr_name))
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -1;
	r = ioctl(fd, SIOCGIFHWADDR, &ifr);
	close(fd);
	if (r)
		return -1;
	*ifindex = e.ndev_ifindex;
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

/* A hw counter of @s's port, or -1. */
static long long side_counter(struct side *s, const char *name)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
		 ibv_get_device_name(s->d.ctx->device), name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static uint32_t gid_ip(const struct vu_dev *d)
{
	return (uint32_t)d->gid.raw[12] << 24 | d->gid.raw[13] << 16 |
	       d->gid.raw[14] << 8 | d->gid.raw[15];
}

/* One more message each way on the connected pair, data checked. */
static int pair_still_talks(struct side *a, struct side *b)
{
	struct ibv_sge ss = { (uintptr_t)b->buf, 256, b->mr->lkey };
	struct ibv_send_wr sw = { 0 }, *sbad;
	struct ibv_wc wc;
	long end;
	int got = 0;

	memset(b->buf, 0x5c, 256);
	sw.wr_id = 1;
	sw.sg_list = &ss;
	sw.num_sge = 1;
	sw.opcode = IBV_WR_SEND;
	sw.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(b->qp, &sw, &sbad))
		return failf("post: %s", strerror(errno));
	end = now_ms() + timeout_ms;
	while (got < 2 && now_ms() < end) {
		struct side *s = got ? a : b;

		if (ibv_poll_cq(s->cq, 1, &wc) <= 0) {
			usleep(500);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS)
			return failf("%s completion: %s", got ? "receive" : "send",
				     ibv_wc_status_str(wc.status));
		got++;
	}
	if (got < 2)
		return failf("no completion after the spray");
	if (a->buf[0] != 0x5c || a->buf[255] != 0x5c)
		return failf("the peer's SEND did not land");
	return 0;
}

/* Make @f (a RoCE frame of @len bytes) malformed in one of several ways. */
static size_t spray_mangle(uint8_t *f, size_t len, uint16_t spin_port)
{
	size_t k;

	switch (rand() % 4) {
	case 0:			/* bit flips anywhere after Ethernet: bad ICRC */
		for (k = 0; k < 1 + (size_t)(rand() % 4); k++)
			f[14 + rand() % (len - 14)] ^= 1 << (rand() % 8);
		return len;
	case 1:			/* cut short */
		return 14 + rand() % (len - 14);
	case 2:			/* IP total length beyond the frame */
		f[16] = 0xff;
		return len;
	default:		/* a garbage UDP datagram to the sPIN port */
		f[ROCE_L4_OFF + 2] = spin_port >> 8;
		f[ROCE_L4_OFF + 3] = spin_port;
		f[ROCE_L4_OFF + 6] = f[ROCE_L4_OFF + 7] = 0;	/* no csum */
		for (k = ROCE_BTH_OFF; k < len; k++)
			f[k] = rand();
		if (rand() % 2)		/* and a UDP length that lies */
			f[ROCE_L4_OFF + 4] = rand();
		return len;
	}
}

/*
 * From B's netdev, as a peer that is not A's connected partner: every
 * RoCE packet to A's QP carries a spoofed source (another IPv4 address,
 * a random MAC) and the QP's real rkey at guessed PSNs around the one A
 * expects; the rest go to random QPNs or are malformed.
 */
static void peer_spray(struct side *a, struct side *b, uint16_t spin_port)
{
	static uint8_t saved[BUF];
	static const uint8_t ops[] = {
		ROCE_SEND_ONLY, ROCE_SEND_FIRST, ROCE_SEND_ONLY_INV,
		ROCE_WRITE_ONLY, ROCE_WRITE_FIRST, ROCE_READ_REQ,
		ROCE_CMP_SWAP, ROCE_FETCH_ADD, ROCE_ACK, ROCE_READ_RESP_ONLY,
	};
	struct ibv_sge rs = { (uintptr_t)a->buf, 4096, a->mr->lkey };
	struct ibv_recv_wr rw = { .sg_list = &rs, .num_sge = 1 }, *rbad;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_halen = 6 };
	uint8_t amac[6], bmac[6], f[2048];
	long long bad0, bad1;
	int sock = -1, ifa, ifb, i, to_qp = 0;
	uint32_t vip, pip;
	size_t k;

	if (pair_up(a, b))
		goto out;
	for (k = 0; k < BUF; k++)
		a->buf[k] = (uint8_t)(k * 13 + 7);
	memcpy(saved, a->buf, BUF);
	/* a receive a SEND (with invalidate) would land in */
	if (ibv_post_recv(a->qp, &rw, &rbad)) {
		failf("post_recv: %s", strerror(errno));
		goto out;
	}
	if (side_netdev(a, &ifa, amac) || side_netdev(b, &ifb, bmac)) {
		failf("cannot find the ports' netdevs");
		goto out;
	}
	sock = socket(AF_PACKET, SOCK_RAW, htons(0x0800));
	if (sock < 0) {
		failf("packet socket: %s", strerror(errno));
		goto out;
	}
	sll.sll_ifindex = ifb;
	memcpy(sll.sll_addr, amac, 6);
	vip = gid_ip(&a->d);
	pip = gid_ip(&b->d);
	bad0 = side_counter(a, "rx_bad_src");
	srand(4791);
	for (i = 0; i < SPRAY_N; i++) {
		SnicRoceHdr h;
		size_t off, len, pl;
		int kind = i % 4;

		memset(&h, 0, sizeof(h));
		memcpy(h.dmac, amac, 6);
		h.smac[0] = 0x02;
		for (k = 1; k < 6; k++)
			h.smac[k] = rand();
		do {
			h.sip = (pip & ~0xffu) | (1 + rand() % 254);
		} while (h.sip == pip || h.sip == vip);
		h.dip = vip;
		h.ttl = 64;
		h.sport = 0xc000 | (rand() & 0x3fff);
		h.pkey = ROCE_PKEY_DEFAULT;
		h.ackreq = true;
		h.opcode = ops[rand() % sizeof(ops)];
		/* kinds 0, 1: A's QP near its PSN; 2: any QPN; 3: malformed */
		h.dqpn = kind < 2 ? a->qp->qp_num : (uint32_t)(rand() % 1024);
		h.psn = (101 + rand() % 64 - 32) & 0xffffff;
		h.va = (uintptr_t)a->buf + rand() % (BUF - 256);
		h.rkey = kind == 0 ? a->mr->rkey : (uint32_t)rand();
		h.ieth = kind == 0 ? a->mr->rkey : (uint32_t)rand();
		h.dlen = 64;
		h.swap_add = 0x6666666666666666ull;
		pl = snic_roce_opflags(h.opcode) & ROCE_F_PAYLOAD ? 64 : 0;
		if (h.opcode == ROCE_SEND_FIRST || h.opcode == ROCE_WRITE_FIRST)
			pl = 1024;
		off = snic_roce_build(f, &h, pl);
		memset(f + off, 0xee, pl);
		len = snic_roce_finish(f, &h, pl);
		if (kind == 3)
			len = spray_mangle(f, len, spin_port);
		if (sendto(sock, f, len, 0, (struct sockaddr *)&sll,
			   sizeof(sll)) != (ssize_t)len) {
			if (errno == ENOBUFS) {	/* queue full: again */
				usleep(2000);
				i--;
				continue;
			}
			failf("sendto: %s", strerror(errno));
			goto out;
		}
		if (kind < 2)
			to_qp++;
		if (i % 32 == 31)
			usleep(1000);
	}
	/* until every spoofed packet to the QP was seen (or the timeout) */
	bad1 = side_counter(a, "rx_bad_src");
	for (k = 0; bad1 < bad0 + to_qp && (long)k < timeout_ms / 10; k++) {
		usleep(10000);
		bad1 = side_counter(a, "rx_bad_src");
	}
	for (k = 0; k < BUF && a->buf[k] == saved[k]; k++)
		;
	if (k < BUF) {
		failf("A's memory changed at offset %zu", k);
		goto out;
	}
	/* random QPNs may hit other RC QPs of A too: at least to_qp */
	if (bad0 < 0 || bad1 - bad0 < to_qp) {
		failf("rx_bad_src went %lld -> %lld for %d spoofed packets",
		      bad0, bad1, to_qp);
		goto out;
	}
	pair_still_talks(a, b);
out:
	if (sock >= 0)
		close(sock);
	side_down(a);
	side_down(b);
	result("peer_spray");
}

static int side_open(struct side *s, const char *dev)
{
	struct verbs_device *vdev;

	if (vu_dev_open(&s->d, dev, 1, -1))
		return -1;
	vdev = (struct verbs_device *)s->d.ctx->device;
	if (!vdev->ops || !vdev->ops->name || strcmp(vdev->ops->name, "snic")) {
		printf("SKIP %s/setup: %s is not driven by libsnic\n", prefix,
		       dev);
		exit(0);
	}
	s->buf = aligned_alloc(4096, BUF);
	if (!s->buf)
		return -1;
	memset(s->buf, 0, BUF);
	s->mr = ibv_reg_mr(s->d.pd, s->buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	return s->mr ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *deva = NULL, *devb = NULL;
	struct side a = { 0 }, b = { 0 };
	uint16_t spin_port = 9777;
	bool spray = false;
	int c;

	while ((c = getopt(argc, argv, "d:D:Su:P:T:")) != -1) {
		switch (c) {
		case 'd': deva = optarg; break;
		case 'D': devb = optarg; break;
		case 'S': spray = true; break;
		case 'u': spin_port = atoi(optarg); break;
		case 'P': prefix = optarg; break;
		case 'T': timeout_ms = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: snic-hostile -d DEV_A -D DEV_B "
				"[-S [-u SPIN_PORT]] [-P PREFIX] [-T TIMEOUT_MS]\n");
			return 2;
		}
	}
	if (!deva || !devb)
		return 2;
	if (side_open(&a, deva) || side_open(&b, devb)) {
		printf("FAIL %s/setup: cannot open %s and %s\n", prefix, deva,
		       devb);
		return 1;
	}
	send_case(&a, &b, "bad_opcode", K_OPCODE);
	send_case(&a, &b, "ds_cnt_zero", K_DS0);
	send_case(&a, &b, "ds_cnt_too_big", K_DSBIG);
	send_case(&a, &b, "foreign_lkey", K_LKEY);
	send_case(&a, &b, "bus_address_lkey", K_BUSKEY);
	send_case(&a, &b, "huge_length", K_HUGE);
	send_case(&a, &b, "huge_total_length", K_TOTAL);
	send_case(&a, &b, "inline_overflow", K_INLINE);
	recv_case(&a, &b, "recv_bad_num_sge", false);
	recv_case(&a, &b, "recv_bad_lkey", true);
	chaos_case(&a, &b, "random_wqes", false);
	chaos_case(&a, &b, "lying_doorbells", true);
	still_works(&a, &b);
	if (spray)
		peer_spray(&a, &b, spin_port);
	printf("snic-hostile: %d passed, %d failed\n", npass, nfail);
	ibv_dereg_mr(a.mr);
	ibv_dereg_mr(b.mr);
	vu_dev_close(&a.d);
	vu_dev_close(&b.d);
	free(a.buf);
	free(b.buf);
	return nfail ? 1 : 0;
}
