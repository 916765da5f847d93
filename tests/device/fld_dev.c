/*
 * fld device-tier helpers shared by test_fld.c and test_fld_accel.c: the
 * QEMU environment (snic + fld, a wire socket), FLD registers and
 * commands, FLD-E queue setup through snic's admin queue, and frame
 * builders (UDP, iotauth's CoAP/JWT, defrag's VXLAN fragments).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include <nettle/hmac.h>
#include "fld_dev.h"

const uint8_t mac_nic[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x01 };
const uint8_t mac_peer[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x99 };

struct qt *qt;
struct snic_dev nic;
struct flde_cfg flde_cfg = { .rq_log_nstrides = 3 };
int fld_devfn = -1;

/* ---- environment ---- */

uint64_t galloc(size_t size, size_t align)
{
	return qt_alloc(qt, size, align);
}

uint32_t fld_rd(uint32_t reg)
{
	return qt_readl(qt, FLD_BAR0 + reg);
}

void fld_wr(uint32_t reg, uint32_t val)
{
	qt_writel(qt, FLD_BAR0 + reg, val);
}

uint64_t fld_stat(int i)
{
	return fld_rd(FLD_REG_STATS + 8 * i) |
	       (uint64_t)fld_rd(FLD_REG_STATS + 8 * i + 4) << 32;
}

uint64_t fld_mem(int row, int col)
{
	uint32_t r = FLD_REG_MEM + row * FLD_MEM_ROW_SIZE + col * 8;

	return fld_rd(r) | (uint64_t)fld_rd(r + 4) << 32;
}

/* Run FLD command @op with @n arguments; returns CMD_STATUS. */
uint32_t fld_cmd(uint32_t op, int n, const uint32_t *args,
			uint32_t *result)
{
	int i;

	for (i = 0; i < FLD_CMD_NARGS; i++)
		fld_wr(FLD_REG_CMD_ARG0 + 4 * i, i < n ? args[i] : 0);
	fld_wr(FLD_REG_CMD, op);
	if (result)
		*result = fld_rd(FLD_REG_CMD_RESULT);
	return fld_rd(FLD_REG_CMD_STATUS);
}

void settle(void)
{
	int i;

	for (i = 0; i < 16; i++)
		qt_readl(qt, nic.bar0 + SNIC_REG_ID);
}

void cap_drain(void)
{
	settle();
	qt_udp_drain(inj);
}

bool env_start(const char *fld_opts)
{
	char args[1024];
	int qfd;

	qt_quit(qt);
	qt = NULL;
	if (!inj_open(&qfd, 4 << 20))
		return false;
	snprintf(args, sizeof(args),
		 "-netdev hubport,id=p0,hubid=0 "
		 WIRE_QEMU_ARGS
		 "-device snic,id=snic0,netdev=p0,mac=52:54:00:00:00:01 "
		 "-device fld,id=fld0%s", qfd, fld_opts);
	qt = qt_start(args);
	close(qfd);
	if (!qt_alive(qt) || !snic_dev_open(&nic, qt, 0, SNIC_BAR, RAM_BASE))
		return false;
	/* a timed snic (-global snic.timing=on): its commands need the clock */
	nic.timed = strstr(fld_opts, "snic.timing=on") != NULL;
	fld_devfn = qt_pci_find(qt, FLD_PCI_VENDOR_ID, FLD_PCI_DEVICE_ID, 0);
	if (fld_devfn < 0)
		return false;
	qt_pci_map_bar(qt, fld_devfn, FLD_BAR_REGS, FLD_BAR0);
	qt_pci_map_bar(qt, fld_devfn, FLD_BAR_WIN, FLD_BAR2);
	qt_pci_map_bar(qt, fld_devfn, FLD_BAR_MSIX, FLD_BAR4);
	qt_pci_enable(qt, fld_devfn);
	qt_alloc_init(qt, HEAP_BASE, HEAP_END);
	if (!snic_aq_ready(&nic, 64))
		return false;
	if (snic_set_port(&nic, SNIC_PORT_F_UP, MTU, &mac_nic, 1,
			  SNIC_EQN_NONE) != OK)
		return false;
	fld_wr(FLD_REG_CTRL, FLD_CTRL_ENABLE);
	cap_drain();
	return true;
}

/* ---- FLD-E: snic queues in FLD's BAR, driven by the control plane ---- */

/*
 * One CQ (log 8) shared by an SQ of 2^@sq_log basic blocks and a striding
 * RQ of 16 buffers x 8 strides of 2 KiB, all in FLD's windows (the RQ
 * ring itself in host RAM, written once); a rule steers UDP port 7 to the
 * RQ with a flow tag; the RQ's replies go out on the SQ.
 */
bool flde_setup(struct flde *q, int sq_log, uint64_t sq_db,
		       uint32_t quota)
{
	return flde_setup_at(q, 0, sq_log, sq_db, quota, UDP_PORT, FLOW_TAG, 0);
}

bool flde_setup_at(struct flde *q, unsigned int slot, int sq_log,
		   uint64_t sq_db, uint32_t quota, uint16_t port,
		   uint32_t tag, uint8_t sq_flags)
{
	unsigned int pg = 3 * slot;
	struct snic_aq_create_cq cc = { 0 };
	struct snic_aq_create_sq sc = { 0 };
	struct snic_aq_create_rq rc = { 0 };
	struct snic_steer_rule r = { 0 };
	uint64_t res;
	uint32_t a[8], out;
	int k, rlog;

	/* FLD slots first: snic probes a ring when it creates the queue. */
	a[0] = slot; a[1] = FLD_QN_NONE; a[2] = 8;
	if (fld_cmd(FLD_CMD_CQ_SET, 3, a, &out) != FLD_CMD_OK ||
	    out != FLD_WIN_CQ + slot * FLD_CQ_WIN_SIZE)
		return false;
	a[0] = slot; a[1] = FLD_QN_NONE; a[2] = sq_log; a[3] = slot;
	a[4] = (uint32_t)sq_db; a[5] = sq_db >> 32; a[6] = quota;
	if (fld_cmd(FLD_CMD_SQ_SET, 7, a, &out) != FLD_CMD_OK ||
	    out != FLD_WIN_SQ + slot * FLD_SQ_WIN_SIZE)
		return false;
	/* 16 buffers, or as many as FLD's receive window holds */
	rlog = flde_cfg.rq_log_nstrides > 4 ? 8 - flde_cfg.rq_log_nstrides : 4;
	a[0] = slot; a[1] = FLD_QN_NONE; a[2] = rlog; a[3] = 11;
	a[4] = flde_cfg.rq_log_nstrides;
	a[5] = slot;
	a[6] = (uint32_t)(nic.bar2 + (RQ_PAGE + pg) * SNIC_DB_PAGE_SIZE +
			  SNIC_DB_RQ);
	a[7] = (nic.bar2 + (RQ_PAGE + pg) * SNIC_DB_PAGE_SIZE) >> 32;
	if (flde_cfg.rq_no_db)
		a[6] = a[7] = 0;
	if (fld_cmd(FLD_CMD_RQ_SET, 8, a, &q->rx_off) != FLD_CMD_OK)
		return false;

	cc.ring_addr = FLD_BAR2 + FLD_WIN_CQ + slot * FLD_CQ_WIN_SIZE;
	cc.dbr_addr = FLD_BAR2 + FLD_WIN_DBR + FLD_DBR_CQ + 4 * slot;
	cc.log_size = 8;
	cc.eqn = SNIC_EQN_NONE;
	cc.db_page = CQ_PAGE + pg;
	cc.flags = flde_cfg.cq_flags;
	if (snic_aq_cmd(&nic, SNIC_AQ_CREATE_CQ, &cc, sizeof(cc), &res) != OK)
		return false;
	q->cqn = res;
	sc.ring_addr = FLD_BAR2 + FLD_WIN_SQ + slot * FLD_SQ_WIN_SIZE;
	sc.dbr_addr = FLD_BAR2 + FLD_WIN_DBR + FLD_DBR_SQ + 4 * slot;
	sc.log_size = sq_log;
	sc.flags = SNIC_SQ_F_RAW_ETH | sq_flags;
	sc.cqn = q->cqn;
	sc.db_page = SQ_PAGE + pg;
	if (snic_aq_cmd(&nic, SNIC_AQ_CREATE_SQ, &sc, sizeof(sc), &res) != OK)
		return false;
	q->sqn = res;
	/* The RQ ring: 16 descriptors naming FLD's receive window. */
	q->rq_ring = galloc(16 * sizeof(struct snic_rx_desc), 64);
	for (k = 0; k < (1 << rlog); k++) {
		uint32_t bufsz = 2048u << flde_cfg.rq_log_nstrides;
		struct snic_rx_desc d = {
			.byte_count = bufsz, .lkey = 0,
			.addr = FLD_BAR2 + q->rx_off + (uint64_t)k * bufsz,
		};

		qt_memwrite(qt, q->rq_ring + k * sizeof(d), &d, sizeof(d));
	}
	rc.ring_addr = q->rq_ring;
	rc.dbr_addr = FLD_BAR2 + FLD_WIN_DBR + FLD_DBR_RQ + 4 * slot;
	rc.log_size = rlog;
	rc.type = SNIC_RQ_STRIDING;
	rc.cqn = q->cqn;
	rc.db_page = RQ_PAGE + pg;
	rc.log_stride_size = 11;
	rc.log_num_strides = flde_cfg.rq_log_nstrides;
	if (snic_aq_cmd(&nic, SNIC_AQ_CREATE_RQ, &rc, sizeof(rc), &res) != OK)
		return false;
	q->rqn = res;

	a[0] = FLD_BIND_CQ; a[1] = slot; a[2] = q->cqn;
	if (fld_cmd(FLD_CMD_BIND, 3, a, NULL) != FLD_CMD_OK)
		return false;
	a[0] = FLD_BIND_SQ; a[1] = slot; a[2] = q->sqn;
	if (fld_cmd(FLD_CMD_BIND, 3, a, NULL) != FLD_CMD_OK)
		return false;
	a[0] = FLD_BIND_RQ; a[1] = slot; a[2] = q->rqn;
	if (fld_cmd(FLD_CMD_BIND, 3, a, NULL) != FLD_CMD_OK)
		return false;
	a[0] = slot; a[1] = slot;
	if (fld_cmd(FLD_CMD_RQ_ROUTE, 2, a, NULL) != FLD_CMD_OK)
		return false;

	r.match = SNIC_MATCH_IP_PROTO | SNIC_MATCH_DST_PORT;
	r.priority = 10;
	r.dest = SNIC_DEST_RQ;
	r.actions = SNIC_ACT_TAG | SNIC_ACT_COUNT;
	r.dest_id = q->rqn;
	r.flow_tag = tag;
	r.ip_proto = 17;
	r.dst_port = htons(port);
	if (snic_aq_buf(&nic, SNIC_AQ_ADD_RULE, &r, sizeof(r), sizeof(r), 0, 0,
			NULL, 0, &res) != OK)
		return false;
	q->rule = res;
	return true;
}

uint64_t sq_db_addr(void)
{
	return sq_db_addr_at(0);
}

uint64_t sq_db_addr_at(unsigned int slot)
{
	return nic.bar2 + (SQ_PAGE + 3 * slot) * SNIC_DB_PAGE_SIZE +
	       SNIC_DB_SQ;
}

uint64_t fld_rq_stat(unsigned int slot, int i)
{
	uint32_t r = FLD_REG_RQ_STATS + slot * FLD_RQ_STATS_SIZE + 8 * i;

	return fld_rd(r) | (uint64_t)fld_rd(r + 4) << 32;
}

/* ---- frames ---- */

uint16_t csum(const uint8_t *p, size_t n, uint32_t s)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += p[i] << 8 | p[i + 1];
	if (n & 1)
		s += p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s;
}

/* Ethernet/IPv4/UDP from the peer to the NIC, port @dport, @plen bytes. */
size_t mk_udp(uint8_t *f, uint16_t dport, size_t plen, uint32_t seq)
{
	uint8_t *ip = f + 14, *udp = ip + 20;
	uint32_t s = 0;
	size_t i;

	memcpy(f, mac_nic, 6);
	memcpy(f + 6, mac_peer, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[2] = (20 + 8 + plen) >> 8;
	ip[3] = 20 + 8 + plen;
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, (uint8_t[]){ 10, 0, 0, 2 }, 4);
	memcpy(ip + 16, (uint8_t[]){ 10, 0, 0, 1 }, 4);
	i = csum(ip, 20, 0);
	ip[10] = i >> 8;
	ip[11] = i;
	udp[0] = 0x30;
	udp[1] = 0x39;
	udp[2] = dport >> 8;
	udp[3] = dport;
	udp[4] = (8 + plen) >> 8;
	udp[5] = 8 + plen;
	udp[6] = udp[7] = 0;
	for (i = 0; i < plen; i++)
		udp[8 + i] = (uint8_t)(seq * 7 + i);
	if (plen >= 4)
		memcpy(udp + 8, &seq, 4);
	/* pseudo header */
	for (i = 12; i < 20; i += 2)
		s += ip[i] << 8 | ip[i + 1];
	s += 17 + 8 + plen;
	i = csum(udp, 8 + plen, s);
	if (i == 0)
		i = 0xffff;
	udp[6] = i >> 8;
	udp[7] = i;
	return 14 + 20 + 8 + plen;
}

/* @g is @f echoed: addresses and ports swapped, the rest identical. */
bool is_echo(const uint8_t *g, size_t glen, const uint8_t *f,
		    size_t len)
{
	if (glen != len || memcmp(g, f + 6, 6) || memcmp(g + 6, f, 6) ||
	    memcmp(g + 12, f + 12, 14) || memcmp(g + 26, f + 30, 4) ||
	    memcmp(g + 30, f + 26, 4) || memcmp(g + 34, f + 36, 2) ||
	    memcmp(g + 36, f + 34, 2))
		return false;
	return !memcmp(g + 38, f + 38, len - 38);
}

/* Inject @n frames of @plen bytes, expect @n echoes in order. */
bool echo_round(int n, size_t plen, uint32_t seq0, int *got)
{
	uint8_t f[2048], g[2048];
	int i, r;

	*got = 0;
	for (i = 0; i < n; i++) {
		size_t len = mk_udp(f, UDP_PORT, plen, seq0 + i);

		if (send(inj, f, len, 0) != (ssize_t)len)
			return false;
	}
	for (i = 0; i < n; i++) {
		size_t len = mk_udp(f, UDP_PORT, plen, seq0 + i);

		do {
			settle();
			r = cap_recv(g, sizeof(g), 2000);
		} while (r > 0 && !memcmp(g, mac_nic, 6));	/* our own */
		if (r < 0 || !is_echo(g, r, f, len))
			return false;
		(*got)++;
	}
	return true;
}

/* ---- iotauth ---- */

static const char b64u[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

size_t b64url(const uint8_t *in, size_t n, char *out)
{
	size_t i, o = 0;
	uint32_t acc = 0;
	int bits = 0;

	for (i = 0; i < n; i++) {
		acc = acc << 8 | in[i];
		bits += 8;
		while (bits >= 6) {
			bits -= 6;
			out[o++] = b64u[(acc >> bits) & 63];
		}
	}
	if (bits)
		out[o++] = b64u[(acc << (6 - bits)) & 63];
	out[o] = 0;
	return o;
}

/* An HS256 JWT for @claims signed with @key (header {"alg":"HS256"...}). */
size_t mk_jwt(char *out, const char *alg, const char *claims,
		     const char *key)
{
	struct hmac_sha256_ctx c;
	char hdr[128];
	uint8_t mac[32];
	size_t n;

	snprintf(hdr, sizeof(hdr), "{\"alg\":\"%s\",\"typ\":\"JWT\"}", alg);
	n = b64url((const uint8_t *)hdr, strlen(hdr), out);
	out[n++] = '.';
	n += b64url((const uint8_t *)claims, strlen(claims), out + n);
	hmac_sha256_set_key(&c, strlen(key), (const uint8_t *)key);
	hmac_sha256_update(&c, n, (const uint8_t *)out);
	hmac_sha256_digest(&c, 32, mac);
	out[n++] = '.';
	n += b64url(mac, 32, out + n);
	return n;
}

/*
 * A CoAP POST (token, Uri-Path "auth") whose payload is @jwt, as the UDP
 * payload of a frame to the NIC's port 7.
 */
size_t mk_coap(uint8_t *f, const char *jwt, uint8_t ver)
{
	uint8_t c[1024];
	size_t n = 0, jl = strlen(jwt), len;

	c[n++] = ver << 6 | 2;		/* CON, token length 2 */
	c[n++] = 0x02;			/* POST */
	c[n++] = 0x12;
	c[n++] = 0x34;
	c[n++] = 0xaa;
	c[n++] = 0xbb;
	c[n++] = 0xb4;			/* Uri-Path (11), 4 bytes */
	memcpy(c + n, "auth", 4);
	n += 4;
	c[n++] = 0xff;
	memcpy(c + n, jwt, jl);
	n += jl;
	len = mk_udp(f, UDP_PORT, n, 0);
	memcpy(f + 42, c, n);
	/* redo the UDP checksum over the CoAP bytes */
	{
		uint8_t *ip = f + 14, *udp = ip + 20;
		uint32_t sum = 0;
		size_t i;

		udp[6] = udp[7] = 0;
		for (i = 12; i < 20; i += 2)
			sum += ip[i] << 8 | ip[i + 1];
		sum += 17 + 8 + n;
		i = csum(udp, 8 + n, sum);
		if (i == 0)
			i = 0xffff;
		udp[6] = i >> 8;
		udp[7] = i;
	}
	return len;
}

void key_set(uint32_t idx, const char *key)
{
	uint32_t a[8];
	size_t kl = strlen(key), c, i;

	for (c = 0; c * FLD_KEY_CHUNK < kl || (kl == 0 && c == 0); c++) {
		memset(a, 0, sizeof(a));
		a[0] = idx;
		a[1] = c | kl << 8;
		for (i = 0; i < FLD_KEY_CHUNK && c * FLD_KEY_CHUNK + i < kl; i++)
			a[2 + i / 4] |= (uint32_t)(uint8_t)key[c * FLD_KEY_CHUNK + i]
					<< (8 * (i % 4));
		fld_cmd(FLD_CMD_KEY_SET, 8, a, NULL);
	}
}

/* Send @f; true if FLD passed it on (an answer came back). */
bool iot_passes(const uint8_t *f, size_t len)
{
	uint8_t g[2048];
	int r;

	if (send(inj, f, len, 0) != (ssize_t)len)
		return false;
	do {
		settle();
		r = cap_recv(g, sizeof(g), 400);
	} while (r > 0 && !memcmp(g, mac_nic, 6));
	return r == (int)len && !memcmp(g, f + 6, 6) &&
	       !memcmp(g + 42, f + 42, len - 42);
}

/* ---- defrag ---- */

/* The inner frame: Ethernet to the peer, IPv4/UDP with @plen bytes. */
size_t mk_inner(uint8_t *f, size_t plen, uint16_t id)
{
	size_t len = mk_udp(f, 5000, plen, id);
	uint16_t c;

	memcpy(f, mac_peer, 6);		/* to the next receiver on the wire */
	memcpy(f + 6, mac_nic, 6);
	f[18] = id >> 8;
	f[19] = id;
	f[24] = f[25] = 0;
	c = csum(f + 14, 20, 0);
	f[24] = c >> 8;
	f[25] = c;
	return len;
}

/* Fragment [off, off + n) of the inner frame's IP payload, VXLAN-wrapped. */
size_t mk_vxlan_frag(uint8_t *o, const uint8_t *inner, size_t off,
			    size_t n, bool last, uint32_t vni)
{
	uint8_t *ip, *udp, *vx, *in;
	uint16_t c, fr = off / 8 | (last ? 0 : 0x2000);
	size_t ilen = 14 + 20 + n, tot = 20 + 8 + 8 + ilen;

	memcpy(o, mac_nic, 6);
	memcpy(o + 6, mac_peer, 6);
	o[12] = 0x08;
	o[13] = 0x00;
	ip = o + 14;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[2] = tot >> 8;
	ip[3] = tot;
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, (uint8_t[]){ 10, 0, 0, 9 }, 4);
	memcpy(ip + 16, (uint8_t[]){ 10, 0, 0, 1 }, 4);
	c = csum(ip, 20, 0);
	ip[10] = c >> 8;
	ip[11] = c;
	udp = ip + 20;
	udp[0] = 0xc0;
	udp[1] = 0x00;
	udp[2] = SNIC_VXLAN_PORT >> 8;
	udp[3] = SNIC_VXLAN_PORT & 0xff;
	udp[4] = (8 + 8 + ilen) >> 8;
	udp[5] = 8 + 8 + ilen;
	udp[6] = udp[7] = 0;		/* no UDP checksum */
	vx = udp + 8;
	memset(vx, 0, 8);
	vx[0] = 0x08;
	vx[4] = vni >> 16;
	vx[5] = vni >> 8;
	vx[6] = vni;
	in = vx + 8;
	memcpy(in, inner, 14 + 20);
	memcpy(in + 34, inner + 34 + off, n);
	in[16] = (20 + n) >> 8;
	in[17] = 20 + n;
	in[20] = fr >> 8;
	in[21] = fr;
	in[24] = in[25] = 0;
	c = csum(in + 14, 20, 0);
	in[24] = c >> 8;
	in[25] = c;
	return 14 + tot;
}

/* Next frame on the wire not sent by us (the NIC's own MAC as source). */
int wire_recv(uint8_t *g, size_t len, int ms)
{
	int r;

	do {
		settle();
		r = cap_recv(g, len, ms);
	} while (r > 0 && !memcmp(g, mac_nic, 6));
	return r;
}
