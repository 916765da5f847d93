/*
 * snic device tier: the RDMA test environment shared by test_snic_rdma.c
 * and test_snic_spin_rdma.c - two snics (A, B; env_start_n: up to
 * ENV_MAX_DEVS) on one QEMU hub with an injection/capture socket port, guest-RAM heap, CQs, EQs, PDs, MRs, QPs,
 * send/receive WQEs, a connected RC pair and raw RoCE request frames.
 * One QEMU at a time (the globals below).
 */
#ifndef D2D_SNIC_RDMA_ENV_H
#define D2D_SNIC_RDMA_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "snic_q.h"
#include "wire.h"

#define OK		SNIC_AQ_OK
#define BAR_BASE(i)	(0xe0000000ull + (uint64_t)(i) * 0x400000ull)
#define RAM_BASE(i)	(0x1000000ull + (uint64_t)(i) * SNIC_DEV_RAM_SIZE)
#define ENV_MAX_DEVS	5	/* RAM_BASE(i) stays below HEAP_BASE */
#define HEAP_BASE	0x1200000ull
#define HEAP_END	0xf000000ull
#define UNMAPPED	0x4000000000ull
#define PORT_MTU	9000
#define IOVA_BASE	0x7f0000000000ull	/* virtual addresses of MRs */
#define ALL_ACCESS	(SNIC_ACCESS_LOCAL_WRITE | SNIC_ACCESS_REMOTE_WRITE | \
			 SNIC_ACCESS_REMOTE_READ | SNIC_ACCESS_REMOTE_ATOMIC)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define A (&dev[0])
#define B (&dev[1])
struct mr {
	uint32_t key;
	uint64_t iova, bus;
	size_t len;
};

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

struct conn {
	uint8_t mtu;		/* SNIC_MTU_* */
	uint8_t timeout, retry, rnr_retry, rnr_timer;
	uint8_t rd_atomic;
	bool v6;		/* the path over IPv6 (ip6_a, ip6_b) */
};

struct wqe {
	uint8_t b[SNIC_WQE_MAX_BBS * SNIC_WQEBB_SIZE];
	unsigned ds;
};

#define BUF_LEN		(256 * 1024)
struct side {
	struct snic_dev *d;
	uint32_t pdn;
	struct snic_cq scq, rcq;
	struct qp qp;
	struct mr mr;		/* BUF_LEN, all access */
};

/* Expect a send CQE on @c for wqe @idx with @op, status 0, @bytes. */
#define CHECK_REQ(c, idx, op, bytes, e) do {				\
	CHECK(cq_wait((c), (e), 1000000));				\
	CHECK_EQ((e)->syndrome, SNIC_RST_OK);				\
	CHECK_EQ((e)->opcode, SNIC_CQE_REQ);				\
	CHECK_EQ((e)->wqe_counter, (uint16_t)(idx));			\
	CHECK_EQ((e)->wqe_opcode, (op));				\
	CHECK_EQ((e)->byte_cnt, (bytes));				\
} while (0)

/*
 * SEND with invalidate of @ikey from A to B (20 bytes, B's receive takes
 * cookie @ck): A's completion, and B's receive reporting the key.
 */
#define CHECK_SEND_INV(ikey, ck, e) do {				\
	struct wqe _w;							\
	uint16_t _idx;							\
									\
	qp_recv(&sb.qp, (ck), 100, sb.mr.key, sb.mr.iova);		\
	w_init(&_w, SNIC_WQE_SEND_INV, SNIC_WQE_F_SIGNAL, (ikey));	\
	w_data(&_w, 20, sa.mr.key, sa.mr.iova);				\
	_idx = qp_post(&sa.qp, &_w);					\
	CHECK_REQ(&sa.scq, _idx, SNIC_WQE_SEND_INV, 20, (e));		\
	CHECK(cq_wait(&sb.rcq, (e), 0));				\
	CHECK_EQ((e)->opcode, SNIC_CQE_RECV);				\
	CHECK_EQ((e)->wqe_opcode, SNIC_WQE_SEND_INV);			\
	CHECK_EQ((e)->rdma_flags, SNIC_CQE_RF_INV);			\
	CHECK_EQ(ntohl((e)->imm), (ikey));				\
	CHECK_EQ((e)->byte_cnt, 20);					\
} while (0)

extern const uint8_t mac_a[6];
extern const uint8_t mac_b[6];
extern const uint32_t ip_a, ip_b;
extern const uint8_t ip6_a[16], ip6_b[16];
extern struct qt *qt;
extern struct snic_dev dev[ENV_MAX_DEVS];
extern int env_ndevs;		/* snics of the running QEMU */
extern const struct conn conn_default;
extern struct side sa, sb;

/* guest RAM (qt_alloc, qt_memread/write of the global qt), the
 * injection/capture port, the QEMU with A and B */
uint64_t galloc(size_t size, size_t align);
void mread(uint64_t addr, void *buf, size_t len);
void mwrite(uint64_t addr, const void *buf, size_t len);
void cap_drain(void);
void pump(int n);
int port_up(struct snic_dev *d, uint16_t async_eqn);
bool env_start_opts(const char *opts);
bool env_start_extra(const char *opts, const char *extra);
bool env_start(void);
/* A QEMU with @n (2..ENV_MAX_DEVS) snics dev[0..n-1], each with @opts. */
bool env_start_n(int n, const char *opts);
/* Device i: MAC 52:54:00:00:00:<i + 1>, IPv4 10.0.0.<i + 1>. */
int env_index(const struct snic_dev *d);
void env_mac(int i, uint8_t mac[6]);
uint32_t env_ip(int i);
bool rstats(struct snic_dev *d, struct snic_rdma_stats *s);
/* SET_SRC_ADDR: entry @index of @d's source address table. */
int src_addr_set(struct snic_dev *d, uint8_t index, bool valid,
		 const uint8_t *mac, uint32_t ip);
/* The same for an IPv6 entry (SNIC_SRC_F_IPV6). */
int src_addr_set6(struct snic_dev *d, uint8_t index, const uint8_t *mac,
		  const uint8_t *ip6);
/* An IPv4 entry on VLAN @vid (SNIC_SRC_F_VLAN). */
int src_addr_set_vlan(struct snic_dev *d, uint8_t index, const uint8_t *mac,
		      uint32_t ip, uint16_t vid);
/* CQs, EQs, PDs, MRs */
/* (snic_cq_create and snic_cq_peek of snic_q.h; these pump the main loop) */
bool cq_wait(struct snic_cq *c, struct snic_cqe *q, uint64_t step_ns);
bool cq_empty(struct snic_cq *c);
int eq_create(struct snic_eq *e, struct snic_dev *d, int page);
bool eq_find(struct snic_eq *e, uint8_t type, struct snic_eqe *q);
uint32_t pd_create(struct snic_dev *d);
int mr_create(struct mr *m, struct snic_dev *d, uint32_t pdn,
	      size_t len, uint32_t access, uint32_t off);
uint64_t mr_pa(const struct mr *m, uint64_t o);
void mr_write(const struct mr *m, uint64_t o, const void *buf,
	      size_t len);
void mr_read(const struct mr *m, uint64_t o, void *buf, size_t len);
/* QPs, WQEs, a connected RC pair (sa on A, sb on B); qp_connect_to
 * brings RC and UC QPs up, each with its own state machine attributes */
int qp_create_f(struct qp *q, struct snic_dev *d, uint8_t type,
		uint32_t pdn, struct snic_cq *scq, struct snic_cq *rcq,
		int srqn, uint8_t flags);
int qp_create(struct qp *q, struct snic_dev *d, uint8_t type,
	      uint32_t pdn, struct snic_cq *scq, struct snic_cq *rcq,
	      int srqn);
int qp_state(struct qp *q, uint8_t state, uint32_t mask,
	     struct snic_qp_attr *a);
/* The path from device @from to @to; av_fill: to the other of A and B. */
void av_fill_to(struct snic_av *av, struct snic_dev *from,
		struct snic_dev *to);
void av_fill(struct snic_av *av, struct snic_dev *from);
bool qp_connect_to(struct qp *q, const struct qp *peer,
		   const struct conn *c, uint32_t sq_psn,
		   uint32_t rq_psn, bool rts);
bool qp_connect(struct qp *q, const struct qp *peer,
		const struct conn *c, uint32_t sq_psn, uint32_t rq_psn);
bool qp_ud_up(struct qp *q, uint32_t qkey);
uint8_t qp_query_state(struct qp *q);
void w_init(struct wqe *w, uint8_t op, uint8_t flags, uint32_t imm);
void w_seg(struct wqe *w, const void *p, size_t len);
void w_data(struct wqe *w, uint32_t len, uint32_t lkey, uint64_t addr);
void w_raddr(struct wqe *w, uint64_t addr, uint32_t rkey);
void w_inline(struct wqe *w, const void *p, uint32_t len);
uint16_t qp_put(struct qp *q, struct wqe *w);
void qp_ring(struct qp *q);
uint16_t qp_post(struct qp *q, struct wqe *w);
/* dwords @from..@to - 1 of @line as a WQE-by-MMIO line on @q's @page */
void qp_line(struct qp *q, uint16_t page, const uint8_t *line,
	     unsigned int from, unsigned int to);
/* qp_post with the WQE's first basic block as a WQE-by-MMIO line */
uint16_t qp_post_mmio(struct qp *q, struct wqe *w);
void qp_recv(struct qp *q, uint64_t cookie, uint32_t len, uint32_t lkey,
	     uint64_t addr);
bool side_make(struct side *s, struct snic_dev *d, uint8_t type);
/* side_make whose receive CQ raises its events on @rcq_eqn */
bool side_make_eq(struct side *s, struct snic_dev *d, uint8_t type,
		  uint32_t rcq_eqn);
bool pair_up(const struct conn *c);
/* Both QPs of pair_up back through RESET and connected again (same PDs,
 * MRs, CQs): after a test moved one to ERR. */
bool pair_reconnect(void);
/*
 * Step the virtual clock deadline by deadline until the CQE of send WQE
 * @idx is in @c: the ns from @t0 to then, -1 if it never comes or failed.
 */
int64_t cq_wait_timed(struct snic_cq *c, uint16_t idx, uint64_t t0,
		      struct snic_cqe *e);
void fill(uint8_t *p, size_t n, unsigned seed);
/* raw RoCEv2 frames: ICRC, a request from A's MAC/IP to B */
uint32_t crc_raw(uint32_t crc, const uint8_t *p, size_t n);
uint32_t icrc_of(const uint8_t *f, size_t len);
void fix_icrc(uint8_t *f, size_t len);
size_t mk_req(uint8_t *f, uint8_t opcode, uint32_t dqpn, uint32_t psn,
	      size_t paylen);
bool cq_wait_n(struct snic_cq *c, struct snic_cqe *e, int n,
	       uint64_t step_ns);

#endif
