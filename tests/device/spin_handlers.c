/*
 * sPIN handlers for tests/device/test_snic_spin.c and
 * test_snic_spin_rdma.c, compiled by clang-14
 * for riscv32 (tests/Makefile) and loaded into the snic's program memory.
 * They use only <d2d/snic_spin_hpu.h> (the device's HPU view) and a few
 * inline command-unit helpers; all state lives in handler memory:
 *
 *   hmem word 0: a counter, 1/2: a host buffer address (lo/hi),
 *   3/4: a second host address, 8..: a log.
 */
#include "d2d/snic_spin_hpu.h"

#define U32 __UINT32_TYPE__
#define U8 __UINT8_TYPE__
#define CMD ((volatile U32 *)SPIN_CMD_BASE)

#define HM_COUNT	0
#define HM_HOST_LO	1
#define HM_HOST_HI	2
#define HM_HOST2_LO	3
#define HM_HOST2_HI	4
#define HM_RESULT	5
#define HM_LOG_N	7
#define HM_LOG		8

static inline U32 *hmem(struct spin_args *a)
{
	return (U32 *)a->hmem;
}

static inline U32 rdcycle(void)
{
	U32 c;

	__asm__ volatile("rdcycle %0" : "=r"(c));
	return c;
}

static inline U32 amoadd(U32 *p, U32 v)
{
	U32 old;

	__asm__ volatile("amoadd.w %0, %2, (%1)" : "=r"(old) : "r"(p), "r"(v)
			 : "memory");
	return old;
}

static U32 cmd(U32 op, U32 flags, U32 local, U32 len, U32 host_lo,
	       U32 host_hi, U32 arg0, U32 arg1)
{
	CMD[0] = op;
	CMD[1] = flags;
	CMD[2] = local;
	CMD[3] = len;
	CMD[4] = host_lo;
	CMD[5] = host_hi;
	CMD[6] = arg0;
	CMD[7] = arg1;
	return CMD[SPIN_CMD_REG_ISSUE / 4];
}

static U32 cmd_wait(U32 h)
{
	return CMD[SPIN_CMD_REG_WAIT / 4 + h];
}

static void swap(U8 *a, U8 *b, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		U8 t = a[i];

		a[i] = b[i];
		b[i] = t;
	}
}

/* UDP echo: swap addresses and ports in the packet buffer, send it back. */
int echo_ph(struct spin_args *a)
{
	U8 *f = (U8 *)a->pkt_l2;
	U32 h;

	swap(f, f + 6, 6);
	swap(f + 26, f + 30, 4);
	swap(f + 34, f + 36, 2);
	f[40] = 0;
	f[41] = 0;
	h = cmd(SPIN_CMD_SEND, SPIN_SEND_CSUM_L3 | SPIN_SEND_CSUM_L4,
		a->pkt_l2, a->full_len, 0, 0, 0, 0);
	cmd_wait(h);
	amoadd(&hmem(a)[HM_COUNT], 1);
	return SPIN_DROP;
}

/*
 * Payload byte 0 decides: 'P' pass, 'C' pass after rewriting the UDP
 * destination port to 7777 (checksums refilled), else drop.
 */
int pass_ph(struct spin_args *a)
{
	U8 *f = (U8 *)a->pkt;

	amoadd(&hmem(a)[HM_COUNT], 1);
	if (a->pkt_len > 42 && f[42] == 'P')
		return SPIN_PASS;
	if (a->pkt_len > 42 && f[42] == 'C') {
		U8 *l2 = (U8 *)a->pkt_l2;

		l2[36] = 7777 >> 8;
		l2[37] = 7777 & 0xff;
		return SPIN_PASS_CSUM;
	}
	return SPIN_DROP;
}

/*
 * Host memory: DMA the 32 payload bytes to host + msg_id * 64, write
 * {msg_id, 0x5b1d} to host2 + msg_id * 8 directly, add the packet length
 * to the counter with a command-unit atomic, read 16 bytes back from the
 * host into handler memory.
 */
int dma_ph(struct spin_args *a)
{
	U32 *hm = hmem(a);
	U32 lo = hm[HM_HOST_LO] + a->msg_id * 64, h1, h2, h3, h4;
	volatile U32 *imm = &CMD[8];

	h1 = cmd(SPIN_CMD_DMA_TO_HOST, 0, a->pkt + 42, 32, lo, hm[HM_HOST_HI],
		 0, 0);
	imm[0] = a->msg_id;
	imm[1] = 0x5b1d;
	h2 = cmd(SPIN_CMD_HOST_WRITE, 0, 0, 8, hm[HM_HOST2_LO] + a->msg_id * 8,
		 hm[HM_HOST2_HI], 0, 0);
	h3 = cmd(SPIN_CMD_ATOMIC, SPIN_ATOMIC_ADD, a->hmem, 4, 0, 0,
		 a->full_len, 0);
	cmd_wait(h1);
	h4 = cmd(SPIN_CMD_DMA_FROM_HOST, 0, a->hmem + 64, 16, lo,
		 hm[HM_HOST_HI], 0, 0);
	if (CMD[SPIN_CMD_REG_STATUS / 4 + h4] != SPIN_CMD_ST_PENDING)
		return 99;	/* a host read cannot be done at once */
	cmd_wait(h2);
	cmd_wait(h3);
	cmd_wait(h4);
	hm[HM_RESULT] = CMD[SPIN_CMD_REG_RESULT / 4 + h3];
	return SPIN_DROP;
}

/* A well-behaved neighbour: counts its packets. */
int count_ph(struct spin_args *a)
{
	amoadd(&hmem(a)[HM_COUNT], 1);
	return SPIN_DROP;
}

int loop_ph(struct spin_args *a)
{
	volatile U32 *p = &hmem(a)[HM_COUNT];

	for (;;)
		(*p)++;
	return SPIN_DROP;
}

/* Busy until its watchdog: one instruction a cycle, no memory access. */
int spin_ph(struct spin_args *a)
{
	(void)a;
	for (;;)
		__asm__ volatile("");
	return SPIN_DROP;
}

int wild_ph(struct spin_args *a)
{
	(void)a;
	return *(volatile U32 *)0x50000000;
}

int illegal_ph(struct spin_args *a)
{
	(void)a;
	__asm__ volatile(".word 0xffffffff");
	return SPIN_DROP;
}

/* DMA to a host address the context did not register. */
int baddma_ph(struct spin_args *a)
{
	U32 *hm = hmem(a);

	cmd_wait(cmd(SPIN_CMD_DMA_TO_HOST, 0, a->pkt, 16, hm[HM_HOST_LO] - 4096,
		     hm[HM_HOST_HI], 0, 0));
	return SPIN_DROP;
}

/* A DMA larger than the command unit takes. */
int hugedma_ph(struct spin_args *a)
{
	U32 *hm = hmem(a);

	cmd_wait(cmd(SPIN_CMD_DMA_TO_HOST, 0, a->hmem, 0x100000,
		     hm[HM_HOST_LO], hm[HM_HOST_HI], 0, 0));
	return SPIN_DROP;
}

int badret_ph(struct spin_args *a)
{
	(void)a;
	return 42;
}

/*
 * Ordering: each handler logs {kind | hpu << 8 | pkt_idx << 24, msg,
 * start, end} in handler memory.
 */
static int log_entry(struct spin_args *a, U32 start)
{
	U32 *hm = hmem(a);
	U32 i = amoadd(&hm[HM_LOG_N], 1);
	U32 *e = &hm[HM_LOG + 4 * (i % 64)];
	U32 k;

	/* Some work so that handlers overlap in modeled time. */
	for (k = 0; k < 50; k++)
		__asm__ volatile("" : : "r"(k));
	e[0] = a->handler | a->hpu << 8 | a->pkt_idx << 24;
	e[1] = a->msg_id;
	e[2] = start;
	e[3] = rdcycle();
	return SPIN_DROP;
}

int log_hh(struct spin_args *a)
{
	return log_entry(a, rdcycle());
}

int log_ph(struct spin_args *a)
{
	return log_entry(a, rdcycle());
}

int log_ch(struct spin_args *a)
{
	return log_entry(a, rdcycle());
}

/* More hostile handlers: each must abort with a memory fault. */
int codewrite_ph(struct spin_args *a)
{
	(void)a;
	*(volatile U32 *)SPIN_CODE_BASE = 0;
	return SPIN_DROP;
}

int cmdbyte_ph(struct spin_args *a)
{
	(void)a;
	*(volatile U8 *)SPIN_CMD_BASE = 1;
	return SPIN_DROP;
}

int hmem_oob_ph(struct spin_args *a)
{
	return *(volatile U32 *)(a->hmem + a->hmem_size);
}

static U32 deep(volatile U32 *p, U32 n)
{
	volatile U32 pad[64];

	pad[0] = n;
	return n ? deep(p, n - 1) + pad[0] : *p;
}

int stack_ph(struct spin_args *a)
{
	return deep((volatile U32 *)a->hmem, 100000);
}

/*
 * The argument block, as the handler sees it: copied to hmem + 256 for
 * message msg_id (64 bytes each), with the scratch's first word (which
 * must be 0: scratch is per message) replacing the hpu field.
 */
int args_ph(struct spin_args *a)
{
	U32 *dst = (U32 *)(a->hmem + 256 + 64 * (a->msg_id % 8));
	const U32 *src = (const U32 *)a;
	U32 *scratch = (U32 *)a->scratch;
	int i;

	for (i = 0; i < 16; i++)
		dst[i] = src[i];
	dst[15] = scratch[0];
	scratch[0] = 0xabcd;
	return SPIN_DROP;
}

/*
 * Random command descriptors (seeded by the message id): opcodes, flags,
 * local addresses, lengths and host addresses around the registered
 * region at hmem words 1/2.  Most abort the handler; none may hurt the
 * device.  Returns SPIN_DROP if it got through all of them.
 */
int fuzzcmd_ph(struct spin_args *a)
{
	static const U32 locals[] = {
		SPIN_PKT_ADDR, SPIN_HMEM_BASE, SPIN_PKTBUF_BASE, SPIN_CODE_BASE,
		SPIN_SCRATCH_BASE, 0, SPIN_CMD_BASE, 0xfffffff0,
	};
	U32 *hm = hmem(a);
	U32 seed = a->msg_id * 2654435761u + 1, i, h, op, local, len;
	U32 lo = hm[HM_HOST_LO], hi = hm[HM_HOST_HI];	/* atomics may hit hm */

	for (i = 0; i < 64; i++) {
		U32 r2;

		seed = seed * 1664525u + 1013904223u;
		r2 = seed * 69069u + 1;
		/* mostly plausible, sometimes wild: each field on its own */
		op = (r2 & 0xf) ? 1 + (seed >> 24) % 5 : (seed >> 24) % 8;
		local = (r2 & 0xf00) ? locals[(seed >> 4) % 5] +
			((seed >> 12) & 0x1c) : locals[5 + (seed >> 4) % 3];
		len = (r2 & 0xf000) ? 14 + ((seed >> 7) & 0x1f) : seed >> 3;
		if (op == SPIN_CMD_ATOMIC && (r2 & 0xf00))
			local = SPIN_HMEM_BASE + 0x40 + ((seed >> 12) & 0x1c);
		if (op == SPIN_CMD_DMA_FROM_HOST && local == SPIN_CODE_BASE)
			local = SPIN_PKT_ADDR;
		if (op == SPIN_CMD_HOST_WRITE && (r2 & 0xf000))
			len = 1 + len % 32;
		CMD[0] = op;
		CMD[1] = (r2 & 0xf0) ? 0 : (r2 & 0x10000000) ?
			 (seed >> 20) % 6 : seed >> 16;
		CMD[2] = local;
		CMD[3] = len;
		CMD[4] = lo + ((r2 & 0xf0000) ? (seed >> 5) & 0xf00 :
				((seed >> 5) & 0x1fff) - 0x800);
		CMD[5] = (r2 & 0xf00000) ? hi : seed;
		CMD[6] = seed;
		CMD[7] = seed >> 1;
		h = CMD[SPIN_CMD_REG_ISSUE / 4];
		if (seed & 1)
			cmd_wait(h);
		else
			(void)CMD[SPIN_CMD_REG_STATUS / 4 + ((seed >> 9) & 7)];
	}
	return SPIN_DROP;
}

/*
 * RDMA messages (SEND / WRITE on a QP): the header handler logs; each
 * payload handler logs, adds the payload's 32-bit words into the message
 * scratch and decides the packet's fate from hmem word HM_RESULT (0: pass,
 * 1: drop, 2: drop odd packets, 3: pass after inverting every payload
 * word); the completion handler logs and host-writes {msg_id, sum,
 * msg_pkts, msg_bytes} to host + (msg_id % 64) * 16.
 */
static U32 *roce_payload(struct spin_args *a, U32 *len)
{
	U8 *f = (U8 *)a->pkt_l2;
	U32 op = f[42], off = 54, pad = (f[43] >> 4) & 3;

	if (op == 0x06 || op == 0x0a || op == 0x0b)
		off += 16;	/* RETH */
	if (op == 0x03 || op == 0x05 || op == 0x09 || op == 0x0b)
		off += 4;	/* ImmDt */
	*len = a->full_len - off - pad - 4;
	return (U32 *)(a->pkt_l2 + off);
}

int rdma_hh(struct spin_args *a)
{
	log_entry(a, rdcycle());
	return SPIN_PASS;
}

int rdma_ph(struct spin_args *a)
{
	U32 start = rdcycle(), len, i, sum = 0;
	U32 *p = roce_payload(a, &len);
	U32 mode = hmem(a)[HM_RESULT];

	for (i = 0; i < len / 4; i++)
		sum += p[i];
	amoadd((U32 *)a->scratch, sum);
	log_entry(a, start);
	if (mode == 1 || (mode == 2 && (a->pkt_idx & 1)))
		return SPIN_DROP;
	if (mode == 3)
		for (i = 0; i < len / 4; i++)
			p[i] = ~p[i];
	return SPIN_PASS;
}

int rdma_ch(struct spin_args *a)
{
	U32 *hm = hmem(a), start = rdcycle();
	volatile U32 *imm = &CMD[8];

	imm[0] = a->msg_id;
	imm[1] = *(U32 *)a->scratch;
	imm[2] = a->msg_pkts;
	imm[3] = a->msg_bytes;
	cmd_wait(cmd(SPIN_CMD_HOST_WRITE, 0, 0, 16,
		     hm[HM_HOST_LO] + (a->msg_id % 64) * 16, hm[HM_HOST_HI],
		     0, 0));
	log_entry(a, start);
	return SPIN_DROP;
}

/*
 * Custom-opcode handlers (test_snic_offload.c, docs/snic-spin.md "Offload
 * engine").  Host region 0 starts at the bus address in hmem words 1/2;
 * requests name offsets in it.
 *
 * batch_oh: request {n, len, off[n]}: the response is the n buffers of
 * len bytes at those offsets, one after another.
 */
static inline struct spin_custom *custom(void)
{
	return (struct spin_custom *)SPIN_CUSTOM_ADDR;
}

static void wait_all(void)
{
	U32 i;

	for (i = 0; i < SPIN_CMD_SLOTS; i++)
		cmd_wait(i);
}

int batch_oh(struct spin_args *a)
{
	struct spin_custom *c = custom();
	U32 *req = (U32 *)c->req, *hm = hmem(a), n, len, i;

	if (c->req_len < 8)
		return SPIN_DROP;	/* no response: the request fails */
	n = req[0];
	len = req[1];
	if (!len || n > (c->req_len - 8) / 4 || n > c->resp_len / len)
		return SPIN_DROP;
	for (i = 0; i < n; i++)
		cmd(SPIN_CMD_DMA_FROM_HOST, 0, SPIN_RESP_BASE + i * len, len,
		    hm[HM_HOST_LO] + req[2 + i], hm[HM_HOST_HI], 0, 0);
	wait_all();
	cmd(SPIN_CMD_RESP, 0, 0, n * len, 0, 0, 0, 0);
	return SPIN_DROP;
}

/*
 * walk_oh: request {head, key, depth}: follow 64-byte nodes {key, next,
 * value...} from offset head through next (~0: the end) for at most depth
 * nodes; the response is the node whose key matches, or 0 bytes.
 */
int walk_oh(struct spin_args *a)
{
	struct spin_custom *c = custom();
	U32 *req = (U32 *)c->req, *hm = hmem(a), *node = (U32 *)SPIN_RESP_BASE;
	U32 off, i;

	if (c->req_len < 12 || c->resp_len < 64)
		return SPIN_DROP;
	off = req[0];
	for (i = 0; i < req[2] && off != 0xffffffffu; i++) {
		cmd_wait(cmd(SPIN_CMD_DMA_FROM_HOST, 0, SPIN_RESP_BASE, 64,
			     hm[HM_HOST_LO] + off, hm[HM_HOST_HI], 0, 0));
		if (node[0] == req[1]) {
			cmd(SPIN_CMD_RESP, 0, 0, 64, 0, 0, 0, 0);
			return SPIN_DROP;
		}
		off = node[1];
	}
	cmd(SPIN_CMD_RESP, 0, 0, 0, 0, 0, 0, 0);
	return SPIN_DROP;
}

/* noresp_oh: returns without a response; resp2_oh: responds twice. */
int noresp_oh(struct spin_args *a)
{
	(void)a;
	return SPIN_DROP;
}

int resp2_oh(struct spin_args *a)
{
	(void)a;
	cmd(SPIN_CMD_RESP, 0, 0, 0, 0, 0, 0, 0);
	cmd(SPIN_CMD_RESP, 0, 0, 0, 0, 0, 0, 0);
	return SPIN_DROP;
}
