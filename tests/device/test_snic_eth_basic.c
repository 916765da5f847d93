/*
 * snic device tier, Ethernet: identify, object create/destroy and their parameter checks, send
 * and receive, ring wraparound and receive-buffer sizes.
 * The environment (two snics, the wire socket, queues, frames) is
 * snic_eth_env.h's; the tests are device/snic_eth/<name>.
 */
#include "snic_eth_env.h"

static void identify_caps(void)
{
	const uint64_t want = SNIC_CAP_ADMINQ | SNIC_CAP_ETH | SNIC_CAP_CSUM |
		SNIC_CAP_TSO | SNIC_CAP_RSS | SNIC_CAP_STEER | SNIC_CAP_VXLAN |
		SNIC_CAP_RATE | SNIC_CAP_STRIDING_RQ;
	struct snic_identify_data id;
	struct snic_port_info pi;
	uint64_t regcaps;
	uint8_t many[SNIC_MAX_MACS][6];
	int i;

	for (i = 0; i < SNIC_MAX_MACS; i++) {
		memcpy(many[i], mac_a, 6);
		many[i][5] = 0x80 + i;
	}

	CHECK(env_start());
	CHECK_EQ(snic_identify(A, &id), OK);
	CHECK_EQ(id.magic, SNIC_ID_MAGIC);
	CHECK_EQ(id.caps & want, want);
	regcaps = snic_rd(A, SNIC_REG_CAPS_LO) |
		  (uint64_t)snic_rd(A, SNIC_REG_CAPS_HI) << 32;
	CHECK_EQ(regcaps, id.caps);
	CHECK(!memcmp(id.mac, mac_a, 6));
	CHECK_EQ(id.max_mtu, SNIC_MAX_MTU);
	CHECK_EQ(id.max_eqs, SNIC_MAX_EQS);
	CHECK_EQ(id.max_cqs, SNIC_MAX_CQS);
	CHECK_EQ(id.max_sqs, SNIC_MAX_SQS);
	CHECK_EQ(id.max_rqs, SNIC_MAX_RQS);
	CHECK_EQ(id.max_rss, SNIC_MAX_RSS);
	CHECK_EQ(id.max_rules, SNIC_MAX_RULES);
	CHECK_EQ(id.db_pages, SNIC_DB_PAGES);
	CHECK_EQ(id.rss_table_size, SNIC_RSS_TABLE_SIZE);
	CHECK_EQ(snic_identify(B, &id), OK);
	CHECK(!memcmp(id.mac, mac_b, 6));

	CHECK_EQ(port_query(A, &pi), OK);
	CHECK_EQ(pi.flags, SNIC_PORT_F_UP);
	CHECK_EQ(pi.link_up, 1);
	CHECK_EQ(pi.speed_mbps, 100000);
	CHECK_EQ(pi.mtu, MTU);
	CHECK(!memcmp(pi.mac, mac_a, 6));
	/* SET_PORT range checks. */
	CHECK_EQ(port_default(A, SNIC_PORT_F_UP, SNIC_MIN_MTU - 1),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(port_default(A, SNIC_PORT_F_UP, SNIC_MAX_MTU + 1),
		 SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(snic_set_port(A, SNIC_PORT_F_UP, MTU, many, SNIC_MAX_MACS + 1,
			  SNIC_EQN_NONE), SNIC_AQ_EINVAL_PARAM);
	CHECK_EQ(snic_set_port(A, SNIC_PORT_F_UP, MTU, many, SNIC_MAX_MACS,
			  SNIC_EQN_NONE), OK);
	CHECK_EQ(snic_set_port(A, SNIC_PORT_F_UP, MTU, &mac_a, 1, 17),
		 SNIC_AQ_ENOENT);
	CHECK_EQ(port_default(A, SNIC_PORT_F_UP, 9000), OK);
	CHECK_EQ(port_query(A, &pi), OK);
	CHECK_EQ(pi.mtu, 9000);
}

/* Good creates return distinct in-range numbers; destroys undo them. */
static void objects_create_destroy(void)
{
	struct snic_eq e, e2;
	struct snic_cq c1, c2;
	struct snic_sq s;
	struct snic_rq r1, r2;
	uint32_t rss, ru[3], tbl[2];
	struct snic_steer_rule rule = { .dest = SNIC_DEST_DROP };
	uint32_t eqn[SNIC_MAX_EQS];
	int i, j;

	CHECK(env_start());
	CHECK_EQ(snic_eq_create(&e, A, 3, 1, 0, 0, 1), OK);
	CHECK_EQ(snic_cq_create(&c1, A, 4, e.n, 1), OK);
	CHECK_EQ(snic_cq_create(&c2, A, 4, SNIC_EQN_NONE, 1), OK);
	CHECK(c1.n != c2.n);
	CHECK_EQ(snic_sq_create(&s, A, 4, c1.n, 1), OK);
	CHECK_EQ(snic_rq_create(&r1, A, 4, c2.n, 1), OK);
	CHECK_EQ(snic_rq_create_at(&r2, A, 4, c2.n, 255, SNIC_RQ_STRIDING, 6, 4,
			      1024, qt_alloc(qt, 64, 64)), OK);
	CHECK(r1.n != r2.n);
	tbl[0] = r1.n;
	tbl[1] = r2.n;
	CHECK_EQ(rss_create(A, ms_key, SNIC_RSS_HASH_IPV4, 2, tbl, &rss), OK);
	CHECK_EQ(rule_add(A, &rule, &ru[0]), OK);
	rule.dest = SNIC_DEST_RSS;
	rule.dest_id = rss;
	CHECK_EQ(rule_add(A, &rule, &ru[1]), OK);
	CHECK_EQ(rule_to_rq(A, 3, r1.n, &ru[2]), OK);
	CHECK(ru[0] != ru[1] && ru[1] != ru[2] && ru[0] != ru[2]);

	for (i = 0; i < 3; i++)
		CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DEL_RULE, ru[i]), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_RSS, rss), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_RQ, r1.n), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_RQ, r2.n), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_SQ, s.n), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_CQ, c1.n), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_CQ, c2.n), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_EQ, e.n), OK);
	/* Gone: a second destroy finds nothing. */
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DEL_RULE, ru[0]), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_RSS, rss), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_RQ, r1.n), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_SQ, s.n), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_CQ, c1.n), SNIC_AQ_ENOENT);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_EQ, e.n), SNIC_AQ_ENOENT);
	/* SNIC_MAX_EQS distinct numbers, then ENOSPC; a freed one returns. */
	for (i = 0; i < SNIC_MAX_EQS; i++) {
		CHECK_EQ(snic_eq_create(&e2, A, 1, 0, 0, 0, 0), OK);
		eqn[i] = e2.n;
		for (j = 0; j < i; j++)
			CHECK(eqn[j] != eqn[i]);
	}
	CHECK_EQ(snic_eq_create(&e2, A, 1, 0, 0, 0, 0), SNIC_AQ_ENOSPC);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_EQ, eqn[5]), OK);
	CHECK_EQ(snic_eq_create(&e2, A, 1, 0, 0, 0, 0), OK);
	CHECK_EQ(e2.n, eqn[5]);
}

static int try_eq(uint64_t ring, int log, int msix, int page)
{
	struct snic_aq_create_eq c = {
		.ring_addr = ring, .log_size = log, .msix = msix,
		.db_page = page,
	};

	return snic_aq_cmd(A, SNIC_AQ_CREATE_EQ, &c, sizeof(c), NULL);
}

static int try_cq(uint64_t ring, uint64_t dbr, int log, uint32_t eqn,
		  int page)
{
	struct snic_aq_create_cq c = {
		.ring_addr = ring, .dbr_addr = dbr, .log_size = log,
		.eqn = eqn, .db_page = page,
	};

	return snic_aq_cmd(A, SNIC_AQ_CREATE_CQ, &c, sizeof(c), NULL);
}

static int try_sq(uint64_t ring, uint64_t dbr, int log, uint32_t cqn,
		  int page)
{
	struct snic_aq_create_sq c = {
		.ring_addr = ring, .dbr_addr = dbr, .log_size = log,
		.flags = SNIC_SQ_F_RAW_ETH, .cqn = cqn, .db_page = page,
	};

	return snic_aq_cmd(A, SNIC_AQ_CREATE_SQ, &c, sizeof(c), NULL);
}

static int try_rq(uint64_t ring, uint64_t dbr, int log, int type,
		  uint32_t cqn, int page, int lss, int lns)
{
	struct snic_aq_create_rq c = {
		.ring_addr = ring, .dbr_addr = dbr, .log_size = log,
		.type = type, .cqn = cqn, .db_page = page,
		.log_stride_size = lss, .log_num_strides = lns,
	};

	return snic_aq_cmd(A, SNIC_AQ_CREATE_RQ, &c, sizeof(c), NULL);
}

/* A buffer command whose buffer is not reachable. */
static int try_buf_unmapped(uint8_t opcode, uint32_t len)
{
	struct snic_aq_cmd cmd = { .opcode = opcode };

	cmd.buf.addr = UNMAPPED;
	cmd.buf.len = len;
	return snic_aq_exec(A, &cmd, NULL);
}

/* Every bad-parameter case of the creation checks, ENOENT, EDMA, EBUSY. */
static void objects_bad_params(void)
{
	const int EINV = SNIC_AQ_EINVAL_PARAM, NOENT = SNIC_AQ_ENOENT;
	const int EDMA = SNIC_AQ_EDMA, BUSY = SNIC_AQ_EBUSY;
	struct snic_eq e;
	struct snic_cq c, c2;
	struct snic_sq s;
	struct snic_rq r1, r2;
	struct snic_steer_rule rule = { .dest = SNIC_DEST_RQ };
	struct snic_rss_cfg rc;
	uint64_t ring, dbr;
	uint32_t errs0, nbad = 0, rss, ru1, ru2, tbl[4];
	uint32_t no_eq, no_cq, no_rq;
	int i;

#define BAD(expr, want) do { CHECK_EQ(expr, want); nbad++; } while (0)
	CHECK(env_start());
	ring = qt_alloc(qt, 0x10000, 0x1000);
	dbr = qt_alloc(qt, 64, 64);
	CHECK_EQ(snic_eq_create(&e, A, 3, 1, 0, 0, 1), OK);
	CHECK_EQ(snic_cq_create(&c, A, 4, e.n, 1), OK);
	CHECK_EQ(snic_cq_create(&c2, A, 4, SNIC_EQN_NONE, 1), OK);
	no_eq = (e.n + 9) % SNIC_MAX_EQS;
	no_cq = c.n + c2.n + 100;
	errs0 = snic_rd(A, SNIC_REG_STAT_AQ_ERRS);

	/* EQ */
	BAD(try_eq(ring + 8, 3, 0, 0), EINV);
	BAD(try_eq(ring + 32, 3, 0, 0), EINV);
	BAD(try_eq(ring, SNIC_MIN_LOG_SIZE - 1, 0, 0), EINV);
	BAD(try_eq(ring, SNIC_MAX_LOG_SIZE + 1, 0, 0), EINV);
	BAD(try_eq(ring, 3, 0, SNIC_DB_PAGES), EINV);
	BAD(try_eq(ring, 3, SNIC_NUM_MSIX, 0), EINV);
	BAD(try_eq(UNMAPPED, 3, 0, 0), EDMA);
	/* CQ */
	BAD(try_cq(ring + 32, dbr, 3, SNIC_EQN_NONE, 0), EINV);
	BAD(try_cq(ring, dbr + 2, 3, SNIC_EQN_NONE, 0), EINV);
	BAD(try_cq(ring, dbr, 0, SNIC_EQN_NONE, 0), EINV);
	BAD(try_cq(ring, dbr, 16, SNIC_EQN_NONE, 0), EINV);
	BAD(try_cq(ring, dbr, 3, SNIC_EQN_NONE, 256), EINV);
	BAD(try_cq(ring, dbr, 3, no_eq, 0), NOENT);
	BAD(try_cq(UNMAPPED, dbr, 3, SNIC_EQN_NONE, 0), EDMA);
	BAD(try_cq(ring, UNMAPPED, 3, SNIC_EQN_NONE, 0), EDMA);
	/* SQ */
	BAD(try_sq(ring + 16, dbr, 3, c.n, 0), EINV);
	BAD(try_sq(ring, dbr + 1, 3, c.n, 0), EINV);
	BAD(try_sq(ring, dbr, 0, c.n, 0), EINV);
	BAD(try_sq(ring, dbr, 16, c.n, 0), EINV);
	BAD(try_sq(ring, dbr, 3, c.n, 300), EINV);
	BAD(try_sq(ring, dbr, 3, no_cq, 0), NOENT);
	BAD(try_sq(UNMAPPED, dbr, 3, c.n, 0), EDMA);
	BAD(try_sq(ring, UNMAPPED + 64, 3, c.n, 0), EDMA);
	/* RQ */
	BAD(try_rq(ring + 16, dbr, 3, SNIC_RQ_PLAIN, c.n, 0, 0, 0), EINV);
	BAD(try_rq(ring, dbr + 3, 3, SNIC_RQ_PLAIN, c.n, 0, 0, 0), EINV);
	BAD(try_rq(ring, dbr, 0, SNIC_RQ_PLAIN, c.n, 0, 0, 0), EINV);
	BAD(try_rq(ring, dbr, 16, SNIC_RQ_PLAIN, c.n, 0, 0, 0), EINV);
	BAD(try_rq(ring, dbr, 3, SNIC_RQ_PLAIN, c.n, 999, 0, 0), EINV);
	BAD(try_rq(ring, dbr, 3, 2, c.n, 0, 0, 0), EINV);
	BAD(try_rq(ring, dbr, 3, SNIC_RQ_STRIDING, c.n, 0, 5, 4), EINV);
	BAD(try_rq(ring, dbr, 3, SNIC_RQ_STRIDING, c.n, 0, 14, 4), EINV);
	BAD(try_rq(ring, dbr, 3, SNIC_RQ_STRIDING, c.n, 0, 6, 0), EINV);
	BAD(try_rq(ring, dbr, 3, SNIC_RQ_STRIDING, c.n, 0, 6, 17), EINV);
	BAD(try_rq(ring, dbr, 3, SNIC_RQ_PLAIN, no_cq, 0, 0, 0), NOENT);
	BAD(try_rq(UNMAPPED, dbr, 3, SNIC_RQ_PLAIN, c.n, 0, 0, 0), EDMA);
	BAD(try_rq(ring, UNMAPPED, 3, SNIC_RQ_PLAIN, c.n, 0, 0, 0), EDMA);
	/* the boundaries themselves are good */
	CHECK_EQ(try_rq(ring, dbr, SNIC_MIN_LOG_SIZE, SNIC_RQ_STRIDING, c2.n,
			SNIC_DB_PAGES - 1, 13, 16), OK);
	CHECK_EQ(try_eq(ring, SNIC_MAX_LOG_SIZE, SNIC_NUM_MSIX - 1, 0), OK);

	CHECK_EQ(snic_sq_create(&s, A, 4, c.n, 1), OK);
	CHECK_EQ(snic_rq_create(&r1, A, 4, c2.n, 1), OK);
	CHECK_EQ(snic_rq_create(&r2, A, 4, c2.n, 1), OK);
	no_rq = r1.n + r2.n + 100;

	/* RSS */
	tbl[0] = r1.n;
	tbl[1] = r1.n;
	tbl[2] = r1.n;
	tbl[3] = r1.n;
	BAD(rss_create(A, ms_key, SNIC_RSS_HASH_IPV4, 0, tbl, NULL), EINV);
	BAD(rss_create(A, ms_key, SNIC_RSS_HASH_IPV4, 3, tbl, NULL), EINV);
	memset(&rc, 0, sizeof(rc));
	rc.table_size = 2 * SNIC_RSS_TABLE_SIZE;
	BAD(snic_aq_buf(A, SNIC_AQ_CREATE_RSS, &rc, sizeof(rc), sizeof(rc), 0,
			0, NULL, 0, NULL), EINV);
	tbl[2] = no_rq;
	BAD(rss_create(A, ms_key, SNIC_RSS_HASH_IPV4, 4, tbl, NULL), NOENT);
	tbl[2] = r1.n;
	BAD(try_buf_unmapped(SNIC_AQ_CREATE_RSS, sizeof(rc)), EDMA);
	CHECK_EQ(rss_create(A, ms_key, SNIC_RSS_HASH_IPV4, 4, tbl, &rss), OK);
	rc.table_size = 1;
	rc.hash_fields = SNIC_RSS_HASH_IPV4;
	rc.rqn[0] = r1.n;
	BAD(snic_aq_buf(A, SNIC_AQ_MODIFY_RSS, &rc, sizeof(rc), sizeof(rc),
			rss + 50, 0, NULL, 0, NULL), NOENT);
	/* Rules */
	rule.dest = 0xff;	/* no such destination (3 is SNIC_DEST_SPIN) */
	BAD(rule_add(A, &rule, NULL), EINV);
	rule.dest = SNIC_DEST_RQ;
	rule.dest_id = no_rq;
	BAD(rule_add(A, &rule, NULL), NOENT);
	rule.dest = SNIC_DEST_RSS;
	rule.dest_id = rss + 50;
	BAD(rule_add(A, &rule, NULL), NOENT);
	BAD(try_buf_unmapped(SNIC_AQ_ADD_RULE, sizeof(rule)), EDMA);
	BAD(modify_sq_rate(A, s.n + 100, 1000000, 0), NOENT);

	/* Destroying what does not exist */
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_EQ, no_eq), NOENT);
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_CQ, no_cq), NOENT);
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_SQ, s.n + 100), NOENT);
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_RQ, no_rq), NOENT);
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_RSS, rss + 50), NOENT);
	BAD(snic_aq_obj(A, SNIC_AQ_DEL_RULE, 400), NOENT);

	/* In use: EBUSY, and nothing is destroyed */
	CHECK_EQ(rule_to_rq(A, 10, r2.n, &ru1), OK);
	rule.dest = SNIC_DEST_RSS;
	rule.dest_id = rss;
	CHECK_EQ(rule_add(A, &rule, &ru2), OK);
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_EQ, e.n), BUSY);	/* CQ c */
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_CQ, c.n), BUSY);	/* SQ s */
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_CQ, c2.n), BUSY);	/* RQs */
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_RQ, r1.n), BUSY);	/* RSS */
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_RQ, r2.n), BUSY);	/* rule */
	BAD(snic_aq_obj(A, SNIC_AQ_DESTROY_RSS, rss), BUSY);	/* rule */
	CHECK_EQ(snic_rd(A, SNIC_REG_STAT_AQ_ERRS) - errs0, nbad);

	/* Unwound in order, everything goes. */
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DEL_RULE, ru2), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_RSS, rss), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_RQ, r1.n), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DEL_RULE, ru1), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_RQ, r2.n), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_SQ, s.n), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_CQ, c.n), OK);
	CHECK_EQ(snic_aq_obj(A, SNIC_AQ_DESTROY_EQ, e.n), OK);

	/* Out of numbers: SNIC_MAX_RSS groups, SNIC_MAX_RULES rules. */
	CHECK_EQ(snic_rq_create(&r1, A, 4, c2.n, 1), OK);
	tbl[0] = r1.n;
	for (i = 0; i < SNIC_MAX_RSS; i++)
		CHECK_EQ(rss_create(A, ms_key, SNIC_RSS_HASH_IPV4, 1, tbl, NULL),
			 OK);
	CHECK_EQ(rss_create(A, ms_key, SNIC_RSS_HASH_IPV4, 1, tbl, NULL),
		 SNIC_AQ_ENOSPC);
	rule.dest = SNIC_DEST_DROP;
	for (i = 0; i < SNIC_MAX_RULES; i++)
		CHECK_EQ(rule_add(A, &rule, NULL), OK);
	CHECK_EQ(rule_add(A, &rule, NULL), SNIC_AQ_ENOSPC);
	CHECK(qt_alive(qt));
#undef BAD
}

/* A -> B through the hub: byte-exact frame, every CQE field. */
static void send_receive(void)
{
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq;
	struct snic_cqe e;
	struct flow tcp = {
		.sip = IP4(10, 0, 0, 1), .dip = IP4(10, 0, 0, 2),
		.sport = 33000, .dport = 80, .proto = 6, .seq = 12345,
	};
	struct txo o = { .opcode = SNIC_WQE_ETH_SEND,
			 .flags = SNIC_WQE_F_SIGNAL };
	uint8_t f[2048], f2[2048], cap[4096], tail[8];
	size_t len, len2;
	uint16_t w;
	int n;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK(rx_setup(B, &rcq, &rq, 16));

	/* 14 inline bytes + 2 data segments, signaled */
	len = mk_udp(f, mac_b, 200, 1);
	o.inl = ETH_HLEN;
	o.nseg = 2;
	w = sq_send_o(&sq, f, len, &o);
	CHECK_EQ(w, 0);
	CHECK_TX(&tcq, &sq, w, len, &e);
	CHECK_EQ(e.op_own & SNIC_CQE_OWNER, 1);
	CHECK_RX(&rcq, &rq, f, len, &e);
	CHECK_EQ(e.wqe_counter, 0);
	CHECK_EQ(e.syndrome, 0);
	CHECK_EQ(e.l4_proto, 17);
	CHECK_EQ(e.flags & (RX_OK_FLAGS | SNIC_CQE_F_UDP | SNIC_CQE_F_TCP),
		 RX_OK_FLAGS | SNIC_CQE_F_UDP);
	CHECK_EQ(e.flags & (RX_BAD_FLAGS | SNIC_CQE_F_TAG | SNIC_CQE_F_DECAP |
			    SNIC_CQE_F_MPW_LAST), 0);
	/* nothing written past the frame */
	qt_memread(qt, snic_rq_buf(&rq, 0) + len, tail, sizeof(tail));
	CHECK_EQ(tail[0], 0xee);
	CHECK_EQ(tail[7], 0xee);
	/* the wire carried exactly the frame */
	n = cap_recv(cap, sizeof(cap), 1000);
	CHECK_EQ(n, len);
	CHECK(!memcmp(cap, f, len));

	/* unsignaled, then signaled: one TX CQE, for the second */
	len = mk_udp(f, mac_b, 300, 2);
	sq_send(&sq, f, len, false);
	len2 = mk_frame(f2, &tcp, 500, 3);
	w = sq_send(&sq, f2, len2, true);
	CHECK_TX(&tcq, &sq, w, len2, &e);
	CHECK(cq_empty(&tcq));
	CHECK_RX(&rcq, &rq, f, len, &e);
	CHECK_EQ(e.wqe_counter, 1);
	CHECK_RX(&rcq, &rq, f2, len2, &e);
	CHECK_EQ(e.wqe_counter, 2);
	CHECK_EQ(e.l4_proto, 6);
	CHECK_EQ(e.flags & (RX_OK_FLAGS | SNIC_CQE_F_UDP | SNIC_CQE_F_TCP),
		 RX_OK_FLAGS | SNIC_CQE_F_TCP);

	/* all inline (no data segment), then nothing inline (3 segments) */
	len = mk_udp(f, mac_b, 100, 4);
	o.inl = 100;
	o.nseg = 0;
	w = sq_send_o(&sq, f, len, &o);
	CHECK_TX(&tcq, &sq, w, len, &e);
	CHECK_RX(&rcq, &rq, f, len, &e);
	len = mk_udp(f, mac_b, 1514, 5);
	o.inl = 0;
	o.nseg = 3;
	w = sq_send_o(&sq, f, len, &o);
	CHECK_TX(&tcq, &sq, w, len, &e);
	CHECK_RX(&rcq, &rq, f, len, &e);
	/* SNIC_MAX_INLINE inline bytes + 1 data segment (ds_cnt 15) */
	len = mk_udp(f, mac_b, 600, 6);
	o.inl = SNIC_MAX_INLINE;
	o.nseg = 1;
	w = sq_send_o(&sq, f, len, &o);
	CHECK_TX(&tcq, &sq, w, len, &e);
	CHECK_RX(&rcq, &rq, f, len, &e);
	/* B -> A works too (A has no rule: dropped as rx_no_dest) */
	CHECK(qt_alive(qt));
}

/* WQEs that wrap around the SQ end; owner bit over several CQ passes. */
static void ring_wrap(void)
{
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq;
	struct snic_cqe e;
	struct txo o = { .opcode = SNIC_WQE_ETH_SEND,
			 .flags = SNIC_WQE_F_SIGNAL, .inl = ETH_HLEN,
			 .nseg = 7 };	/* ds_cnt 10: 3 BBs */
	uint8_t f[2048];
	size_t len;
	int i;

	CHECK(env_start());
	CHECK_EQ(snic_cq_create(&tcq, A, 2, SNIC_EQN_NONE, 2), OK);
	CHECK_EQ(snic_sq_create(&sq, A, 3, tcq.n, 2), OK);
	CHECK_EQ(snic_cq_create(&rcq, B, 2, SNIC_EQN_NONE, 1), OK);
	CHECK_EQ(snic_rq_create(&rq, B, 2, rcq.n, 1), OK);
	CHECK_EQ(rule_to_rq(B, 1, rq.n, NULL), OK);
	snic_rq_post(&rq, 4, true);
	for (i = 0; i < 13; i++) {
		uint16_t w;

		len = mk_udp(f, mac_b, 300 + 37 * i, i);
		w = sq_send_o(&sq, f, len, &o);
		CHECK_EQ(w, 3 * i);
		CHECK_TX(&tcq, &sq, w, len, &e);
		CHECK_RX(&rcq, &rq, f, len, &e);
		CHECK_EQ(e.wqe_counter, i);
		snic_rq_post(&rq, 1, i & 1);
	}
}

/* Plain RQ: a frame too long for its buffer; running out of buffers. */
static void rx_buffers(void)
{
	struct snic_cq tcq, rcq;
	struct snic_sq sq;
	struct snic_rq rq;
	struct snic_cqe e;
	struct snic_pcie_stats p0, p1;
	struct snic_port_stats s0, s;
	uint8_t f[2048], tail[4];
	size_t len;

	CHECK(env_start());
	CHECK(tx_setup(A, &tcq, &sq, 6));
	CHECK_EQ(snic_cq_create(&rcq, B, 4, SNIC_EQN_NONE, 1), OK);
	CHECK_EQ(snic_rq_create_at(&rq, B, 2, rcq.n, 1, SNIC_RQ_PLAIN, 0, 0, 256,
			      qt_alloc(qt, 64, 64)), OK);
	CHECK_EQ(rule_to_rq(B, 1, rq.n, NULL), OK);
	CHECK(pstats(B, &s0));
	snic_rq_post(&rq, 2, true);
	/* 300 bytes into 256: RX_ERR, descriptor consumed, buffer intact */
	len = mk_udp(f, mac_b, 300, 1);
	sq_send(&sq, f, len, false);
	CHECK(cq_poll(&rcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_RX_ERR);
	CHECK_EQ(e.syndrome, SNIC_SYND_BAD_LEN);
	CHECK_EQ(e.qn, rq.n);
	CHECK_EQ(e.wqe_counter, 0);
	qt_memread(qt, snic_rq_buf(&rq, 0) + 256, tail, sizeof(tail));
	CHECK_EQ(tail[0], 0xee);
	/* 256 exactly fits the next one */
	len = mk_udp(f, mac_b, 256, 2);
	sq_send(&sq, f, len, false);
	CHECK_RX(&rcq, &rq, f, len, &e);
	CHECK_EQ(e.wqe_counter, 1);
	/* empty: dropped and counted */
	sq_send(&sq, f, len, false);
	CHECK(cq_empty(&rcq));
	CHECK(pstats(B, &s));
	CHECK_EQ(s.rx_no_buffer - s0.rx_no_buffer, 1);
	/* a buffer posted through the record only is found */
	snic_rq_post(&rq, 1, false);
	len = mk_udp(f, mac_b, 200, 3);
	sq_send(&sq, f, len, false);
	CHECK_RX(&rcq, &rq, f, len, &e);
	CHECK_EQ(e.wqe_counter, 2);
	/* a buffer the device cannot write: RX_ERR (DMA), the RQ goes on */
	{
		struct snic_rx_desc x = { .byte_count = 256, .lkey = 0,
					  .addr = UNMAPPED };

		qt_memwrite(qt, rq.ring + (rq.prod & (rq.size - 1)) *
			    sizeof(x), &x, sizeof(x));
		rq.prod++;
		snic_rq_post(&rq, 1, true);
	}
	CHECK_EQ(snic_query_stats(B, SNIC_STATS_PCIE, 0, &p0, sizeof(p0)), OK);
	sq_send(&sq, f, len, false);
	CHECK(cq_poll(&rcq, &e));
	CHECK_EQ(e.opcode, SNIC_CQE_RX_ERR);
	CHECK_EQ(e.syndrome, SNIC_SYND_DMA);
	CHECK_EQ(e.wqe_counter, 3);
	CHECK_EQ(snic_query_stats(B, SNIC_STATS_PCIE, 0, &p1, sizeof(p1)), OK);
	CHECK(p1.dma_errors > p0.dma_errors);
	len = mk_udp(f, mac_b, 222, 4);
	sq_send(&sq, f, len, false);
	CHECK_RX(&rcq, &rq, f, len, &e);
	CHECK_EQ(e.wqe_counter, 4);
}

int main(void)
{
	RUN("device/snic_eth", identify_caps);
	RUN("device/snic_eth", objects_create_destroy);
	RUN("device/snic_eth", objects_bad_params);
	RUN("device/snic_eth", send_receive);
	RUN("device/snic_eth", ring_wrap);
	RUN("device/snic_eth", rx_buffers);
	qt_quit(qt);
	inj_close();
	return check_failures ? 1 : 0;
}
