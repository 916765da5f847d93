/*
 * fld device-tier helpers (fld_dev.c), shared by test_fld.c (the FLD
 * model: windows, pools, credits, echo, zuc) and test_fld_accel.c (the
 * iotauth and defrag accelerators).
 *
 * Topology: snic0 on a hub with a datagram socket held by the test
 * (capture and injection, as in snic_eth_env.h), and an fld.
 */
#ifndef TESTS_DEVICE_FLD_DEV_H
#define TESTS_DEVICE_FLD_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../lib/check.h"
#include "snic_dev.h"
#include "wire.h"
#include "d2d/fld_ifc.h"

#define OK		SNIC_AQ_OK
#define SNIC_BAR	0xe0000000ull
#define FLD_BAR0	0xe0400000ull
#define FLD_BAR4	0xe0500000ull
#define FLD_BAR2	0xe2000000ull	/* 32 MiB, naturally aligned */
#define RAM_BASE	0x1000000ull
#define HEAP_BASE	0x1200000ull
#define HEAP_END	0xf000000ull
#define MTU		1500
#define SQ_PAGE		5
#define RQ_PAGE		6
#define CQ_PAGE		7
#define FLOW_TAG	0x5a
#define UDP_PORT	7

extern const uint8_t mac_nic[6], mac_peer[6];
extern struct qt *qt;
extern struct snic_dev nic;
extern int fld_devfn;

/* FLD-E: snic queues in FLD's BAR, driven by the control plane */
struct flde {
	uint32_t cqn, sqn, rqn, rule;
	uint64_t rq_ring;
	uint32_t rx_off;
};

/* environment */
uint64_t galloc(size_t size, size_t align);
uint32_t fld_rd(uint32_t reg);
void fld_wr(uint32_t reg, uint32_t val);
uint64_t fld_stat(int i);
uint64_t fld_mem(int row, int col);
/* Run FLD command @op with @n arguments; returns CMD_STATUS. */
uint32_t fld_cmd(uint32_t op, int n, const uint32_t *args, uint32_t *result);
void settle(void);
void cap_drain(void);
/* (Re)start QEMU with "-device fld,id=fld0@fld_opts"; false on failure. */
bool env_start(const char *fld_opts);
/* What flde_setup creates from now on (at start: 0, 3, false) */
struct flde_cfg {
	uint8_t cq_flags;		/* SNIC_CQ_F_* of the CQ */
	uint8_t rq_log_nstrides;	/* 2 KiB strides per RQ buffer */
	bool rq_no_db;			/* FLD rings no RQ doorbell */
};
extern struct flde_cfg flde_cfg;
/* CQ, SQ (2^@sq_log), striding RQ, UDP_PORT rule tagged FLOW_TAG. */
bool flde_setup(struct flde *q, int sq_log, uint64_t sq_db, uint32_t quota);
uint64_t sq_db_addr(void);
/*
 * The same for queue set @slot (FLD slots, snic doorbell pages 5 + 3 x
 * slot ..): UDP @port tagged @tag to RQ slot @slot, answered on SQ @slot
 * (created with SNIC_SQ_F_RAW_ETH | @sq_flags).
 */
bool flde_setup_at(struct flde *q, unsigned int slot, int sq_log,
		   uint64_t sq_db, uint32_t quota, uint16_t port,
		   uint32_t tag, uint8_t sq_flags);
uint64_t sq_db_addr_at(unsigned int slot);
/* Per-RQ admission counter @i (enum fld_rq_stat) of RQ slot @slot. */
uint64_t fld_rq_stat(unsigned int slot, int i);

/* frames */
uint16_t csum(const uint8_t *p, size_t n, uint32_t s);
size_t mk_udp(uint8_t *f, uint16_t dport, size_t plen, uint32_t seq);
bool is_echo(const uint8_t *g, size_t glen, const uint8_t *f, size_t len);
bool echo_round(int n, size_t plen, uint32_t seq0, int *got);
/* Next frame on the wire not sent by us (the NIC's own MAC as source). */
int wire_recv(uint8_t *g, size_t len, int ms);

/* iotauth: tokens (nettle HMAC-SHA256), CoAP frames, tenant keys */
size_t b64url(const uint8_t *in, size_t n, char *out);
size_t mk_jwt(char *out, const char *alg, const char *claims,
	      const char *key);
size_t mk_coap(uint8_t *f, const char *jwt, uint8_t ver);
void key_set(uint32_t idx, const char *key);
bool iot_passes(const uint8_t *f, size_t len);

/* defrag: inner frames and their VXLAN-wrapped fragments */
size_t mk_inner(uint8_t *f, size_t plen, uint16_t id);
size_t mk_vxlan_frag(uint8_t *o, const uint8_t *inner, size_t off,
		     size_t n, bool last, uint32_t vni);

#endif
