/*
 * fld device tier, accelerators: iotauth (CoAP messages carrying HS256
 * JSON Web Tokens checked against per-tenant keys; expiry against
 * FLD_REG_UNIX_TIME and the virtual clock; a counter per verdict) and
 * defrag (VXLAN-decapsulated IPv4 fragments reassembled; overlaps,
 * duplicates, too many pieces, timeouts).  Environment and frame helpers
 * are fld_dev.c, shared with test_fld.c.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "fld_dev.h"
#include "fld/fld-defrag.h"

/*
 * iotauth: tenant 0x5a (the rule's flow tag) has a key; tokens signed with
 * it pass, anything else is dropped and counted - wrong key, "none"
 * algorithm, no key for the tenant, not CoAP, not a JWT, bad checksum.
 */
static void iotauth_tokens(void)
{
	static const char key[] = "tenant-5a-secret-key-of-40-bytes-length!";
	static const char claims[] = "{\"sub\":\"sensor-17\",\"iat\":1700000000}";
	uint8_t f[2048];
	char jwt[512];
	struct flde q;
	size_t len;
	uint32_t a[8] = { FLD_NUM_KEYS, 1 << 8 };

	CHECK(env_start(",accel=iotauth"));
	CHECK_EQ(fld_rd(FLD_REG_ACCEL), FLD_ACCEL_IOTAUTH);
	CHECK(fld_rd(FLD_REG_CAPS) & FLD_CAP_IOTAUTH);
	CHECK(flde_setup(&q, 6, sq_db_addr(), 0));
	CHECK_EQ(fld_cmd(FLD_CMD_KEY_SET, 8, a, NULL), FLD_CMD_EINVAL);
	key_set(FLOW_TAG, key);

	mk_jwt(jwt, "HS256", claims, key);
	len = mk_coap(f, jwt, 1);
	CHECK(iot_passes(f, len));
	CHECK(iot_passes(f, len));
	mk_jwt(jwt, "HS256", claims, "some-other-key");
	CHECK(!iot_passes(f, mk_coap(f, jwt, 1)));
	mk_jwt(jwt, "none", claims, key);
	CHECK(!iot_passes(f, mk_coap(f, jwt, 1)));
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_DROPS), 2);

	mk_jwt(jwt, "HS256", claims, key);
	CHECK(!iot_passes(f, mk_coap(f, jwt, 2)));		/* CoAP version 2 */
	CHECK(!iot_passes(f, mk_coap(f, "not.a-jwt", 1)));	/* base64 */
	CHECK(!iot_passes(f, mk_coap(f, "nodots", 1)));
	len = mk_coap(f, jwt, 1);
	f[len - 1] ^= 0x20;					/* UDP checksum */
	CHECK(!iot_passes(f, len));
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_BAD), 4);

	key_set(FLOW_TAG, "");					/* tenant gone */
	CHECK(!iot_passes(f, mk_coap(f, jwt, 1)));
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_DROPS), 3);
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_TX), 2);
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_RX), 9);
	CHECK(qt_alive(qt));
}


/*
 * iotauth expiry and verdict counters: FLD_REG_UNIX_TIME unset drops
 * tokens carrying exp; once set it advances with the virtual clock, so a
 * token valid now is dropped after its exp; each reason has its counter.
 */
static void iotauth_expiry_reasons(void)
{
	static const char key[] = "tenant-5a-expiry-key";
	const uint32_t t0 = 1800000000;
	char claims[128], jwt[512];
	uint8_t f[2048];
	struct flde q;
	size_t len;

	CHECK(env_start(",accel=iotauth"));
	CHECK(flde_setup(&q, 6, sq_db_addr(), 0));
	key_set(FLOW_TAG, key);
	CHECK_EQ(fld_rd(FLD_REG_UNIX_TIME), 0);
	snprintf(claims, sizeof(claims), "{\"sub\":\"s1\",\"exp\":%u}", t0 + 100);
	mk_jwt(jwt, "HS256", claims, key);
	len = mk_coap(f, jwt, 1);
	CHECK(!iot_passes(f, len));			/* no time: fail closed */
	CHECK_EQ(fld_stat(FLD_STAT_IOT_EXPIRED), 1);

	fld_wr(FLD_REG_UNIX_TIME, t0);
	CHECK_EQ(fld_rd(FLD_REG_UNIX_TIME), t0);
	CHECK(iot_passes(f, len));
	CHECK_EQ(fld_stat(FLD_STAT_IOT_VALID), 1);
	qt_clock_step(qt, 99ull * 1000000000);
	CHECK(iot_passes(f, len));			/* t0 + 99 < exp */
	qt_clock_step(qt, 1ull * 1000000000);
	CHECK(fld_rd(FLD_REG_UNIX_TIME) >= t0 + 100);
	CHECK(!iot_passes(f, len));			/* t0 + 100: expired */
	CHECK_EQ(fld_stat(FLD_STAT_IOT_EXPIRED), 2);
	CHECK_EQ(fld_stat(FLD_STAT_IOT_VALID), 2);

	mk_jwt(jwt, "HS256", claims, "forged");
	CHECK(!iot_passes(f, mk_coap(f, jwt, 1)));
	CHECK_EQ(fld_stat(FLD_STAT_IOT_BAD_SIG), 1);
	mk_jwt(jwt, "none", claims, key);
	CHECK(!iot_passes(f, mk_coap(f, jwt, 1)));
	CHECK_EQ(fld_stat(FLD_STAT_IOT_BAD_ALG), 1);
	mk_jwt(jwt, "HS256", "{\"exp\":\"tomorrow\"}", key);
	CHECK(!iot_passes(f, mk_coap(f, jwt, 1)));
	CHECK(!iot_passes(f, mk_coap(f, "nodots", 1)));
	CHECK_EQ(fld_stat(FLD_STAT_IOT_MALFORMED), 2);
	key_set(FLOW_TAG, "");
	CHECK(!iot_passes(f, mk_coap(f, jwt, 1)));
	CHECK_EQ(fld_stat(FLD_STAT_IOT_NO_TENANT), 1);
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_DROPS), 5);
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_BAD), 2);
	/* reset forgets the time */
	fld_wr(FLD_REG_CTRL, FLD_CTRL_RESET);
	fld_wr(FLD_REG_CTRL, 0);
	CHECK_EQ(fld_rd(FLD_REG_UNIX_TIME), 0);
	CHECK(qt_alive(qt));
}

/*
 * defrag: VXLAN frames whose inner IPv4 datagrams are fragmented reach
 * FLD decapsulated (a VNI rule with DECAP); FLD sends each datagram out
 * whole, byte for byte the unfragmented inner frame, in any fragment
 * order; overlapping fragments are dropped, unfragmented frames pass.
 */
static void defrag_vxlan(void)
{
	struct snic_steer_rule r = { 0 };
	static const int order[] = { 2, 0, 3, 1 };
	uint8_t inner[2048], o[2048], g[2048];
	size_t ilen, ipl, k;
	struct flde q;
	int n, i;

	CHECK(env_start(",accel=defrag"));
	CHECK_EQ(fld_rd(FLD_REG_ACCEL), FLD_ACCEL_DEFRAG);
	CHECK(flde_setup(&q, 6, sq_db_addr(), 0));
	r.match = SNIC_MATCH_VNI;
	r.priority = 5;
	r.dest = SNIC_DEST_RQ;
	r.actions = SNIC_ACT_DECAP | SNIC_ACT_COUNT;
	r.dest_id = q.rqn;
	r.vni = 42;
	CHECK_EQ(snic_aq_buf(&nic, SNIC_AQ_ADD_RULE, &r, sizeof(r), sizeof(r),
			     0, 0, NULL, 0, NULL), OK);

	/* 1200 bytes of IP payload in 4 fragments of 304, 304, 304, 288 */
	ilen = mk_inner(inner, 1192, 0x77);
	ipl = ilen - 34;
	for (i = 0; i < 4; i++) {
		k = order[i] * 304;
		n = mk_vxlan_frag(o, inner, k, ipl - k < 304 ? ipl - k : 304,
				  k + 304 >= ipl, 42);
		CHECK(send(inj, o, n, 0) == n);
	}
	n = wire_recv(g, sizeof(g), 2000);
	CHECK_EQ(n, (int)ilen);
	CHECK(!memcmp(g, inner, ilen));
	CHECK_EQ(fld_stat(FLD_STAT_DF_REASSEMBLED), 1);
	CHECK_EQ(fld_stat(FLD_STAT_ACCEL_RX), 4);

	/* overlapping fragments: the datagram is dropped */
	ilen = mk_inner(inner, 592, 0x78);
	ipl = ilen - 34;
	n = mk_vxlan_frag(o, inner, 0, 304, false, 42);
	CHECK(send(inj, o, n, 0) == n);
	n = mk_vxlan_frag(o, inner, 296, ipl - 296, true, 42);
	CHECK(send(inj, o, n, 0) == n);
	CHECK(wire_recv(g, sizeof(g), 500) < 0);
	CHECK_EQ(fld_stat(FLD_STAT_DF_DROPPED), 1);

	/* an unfragmented inner frame passes as it is */
	ilen = mk_inner(inner, 100, 0x79);
	n = mk_vxlan_frag(o, inner, 0, ilen - 34, true, 42);
	CHECK(send(inj, o, n, 0) == n);
	n = wire_recv(g, sizeof(g), 2000);
	CHECK_EQ(n, (int)ilen);
	CHECK(!memcmp(g, inner, ilen));
	CHECK_EQ(fld_stat(FLD_STAT_DF_REASSEMBLED), 1);
	CHECK_EQ(fld_rd(FLD_REG_POOL_IN_USE), 0);
	CHECK(qt_alive(qt));
}


/* A fragment of @inner ([off, off + n) of its IP payload) on the wire. */
static void df_send(const uint8_t *inner, size_t off, size_t n, bool last)
{
	uint8_t o[2048];
	size_t len = mk_vxlan_frag(o, inner, off, n, last, 42);

	CHECK(send(inj, o, len, 0) == (ssize_t)len);
}

/*
 * defrag limits: a datagram not whole within FLD_DF_TIMEOUT_MS of virtual
 * time is dropped; an exact duplicate fragment is dropped alone (the
 * datagram still completes, byte for byte); more than FLD_DF_MAX_FRAGS
 * pieces drop the datagram.  Each is counted.
 */
static void defrag_limits_timeout(void)
{
	struct snic_steer_rule r = { 0 };
	uint8_t inner[2048], g[2048];
	size_t ilen, ipl, i;
	struct flde q;

	CHECK(env_start(",accel=defrag"));
	CHECK(flde_setup(&q, 6, sq_db_addr(), 0));
	r.match = SNIC_MATCH_VNI;
	r.priority = 5;
	r.dest = SNIC_DEST_RQ;
	r.actions = SNIC_ACT_DECAP | SNIC_ACT_COUNT;
	r.dest_id = q.rqn;
	r.vni = 42;
	CHECK_EQ(snic_aq_buf(&nic, SNIC_AQ_ADD_RULE, &r, sizeof(r), sizeof(r),
			     0, 0, NULL, 0, NULL), OK);

	/* timeout: the second half comes too late */
	ilen = mk_inner(inner, 600, 0x90);
	ipl = ilen - 34;
	df_send(inner, 0, 304, false);
	settle();
	qt_clock_step(qt, (FLD_DF_TIMEOUT_MS + 1) * 1000000ull);
	df_send(inner, 304, ipl - 304, true);
	CHECK(wire_recv(g, sizeof(g), 500) < 0);
	CHECK_EQ(fld_stat(FLD_STAT_DF_TIMEOUTS), 1);
	/* ... and its first half again, in time: now whole */
	df_send(inner, 0, 304, false);
	CHECK_EQ(wire_recv(g, sizeof(g), 2000), (int)ilen);
	CHECK(!memcmp(g, inner, ilen));

	/* duplicate first fragment: dropped alone */
	ilen = mk_inner(inner, 600, 0x91);
	df_send(inner, 0, 304, false);
	df_send(inner, 0, 304, false);
	df_send(inner, 304, ipl - 304, true);
	CHECK_EQ(wire_recv(g, sizeof(g), 2000), (int)ilen);
	CHECK(!memcmp(g, inner, ilen));
	CHECK_EQ(fld_stat(FLD_STAT_DF_DUPLICATES), 1);
	CHECK_EQ(fld_stat(FLD_STAT_DF_REASSEMBLED), 2);

	/* 8-byte pieces: the (FLD_DF_MAX_FRAGS + 1)th drops the datagram */
	ilen = mk_inner(inner, 8 * FLD_DF_MAX_FRAGS + 100, 0x92);
	ipl = ilen - 34;
	for (i = 0; i <= FLD_DF_MAX_FRAGS; i++)
		df_send(inner, 8 * i, 8, false);
	df_send(inner, 8 * i, ipl - 8 * i, true);
	CHECK(wire_recv(g, sizeof(g), 500) < 0);
	CHECK_EQ(fld_stat(FLD_STAT_DF_TOO_MANY), 1);
	CHECK_EQ(fld_stat(FLD_STAT_DF_DROPPED), 1);
	CHECK_EQ(fld_stat(FLD_STAT_DF_REASSEMBLED), 2);
	CHECK(qt_alive(qt));
}

int main(void)
{
	RUN("device/fld_accel", iotauth_tokens);
	RUN("device/fld_accel", iotauth_expiry_reasons);
	RUN("device/fld_accel", defrag_vxlan);
	RUN("device/fld_accel", defrag_limits_timeout);
	qt_quit(qt);
	if (inj >= 0)
		close(inj);
	return check_failures ? 1 : 0;
}
