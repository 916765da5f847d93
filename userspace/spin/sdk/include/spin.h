/*
 * spin.h: the sPIN handler API.
 *
 * A handler is a C function
 *
 *	int my_handler(const struct spin_args *args);
 *
 * named to the context by one of SPIN_HEADER_HANDLER(), SPIN_PAYLOAD_HANDLER()
 * and SPIN_COMPLETION_HANDLER(), and returns SPIN_DROP, SPIN_PASS or
 * SPIN_PASS_CSUM.  It runs on an HPU of the snic with the address map of
 * <d2d/snic_spin_hpu.h>: its packet (the first copy_bytes in L1 at
 * args->pkt, the whole frame in the L2 packet buffer at args->pkt_l2), the
 * message's scratch, and its context's handler memory.
 *
 * Everything that leaves the HPU goes through the command unit: DMA to and
 * from host memory inside the regions the host registered, sending a frame,
 * host-direct writes of up to 32 bytes, and handler-memory atomics.  The
 * calls issue a command and return its handle at once; spin_wait() and
 * spin_test() complete it.  The RV32A instructions (spin_amo_*) are the
 * cheap alternative for handler-memory atomics.
 */
#ifndef SPIN_H
#define SPIN_H

#include <stdint.h>
#include <stddef.h>
#include <d2d/snic_spin_hpu.h>

typedef int spin_handle_t;

/* ---- entry points ---- */

/*
 * Make @fn the context's header / payload / completion handler.  crt0.S
 * jumps to these symbols; spinctl finds them in the ELF.
 */
#define SPIN_HEADER_HANDLER(fn) SPIN_ALIAS_(spin_header_handler, fn)
#define SPIN_PAYLOAD_HANDLER(fn) SPIN_ALIAS_(spin_payload_handler, fn)
#define SPIN_COMPLETION_HANDLER(fn) SPIN_ALIAS_(spin_completion_handler, fn)
#define SPIN_ALIAS_(name, fn) \
	int name(const struct spin_args *) __attribute__((alias(#fn)))

/* Trivial handlers from crt0.c, usable in the macros above. */
int spin_handler_pass(const struct spin_args *a);
int spin_handler_drop(const struct spin_args *a);

/* ---- host memory regions ---- */

#define SPIN_MAX_REGIONS	8

/*
 * The host regions the context may DMA to, filled in by spinctl after it
 * registered them (bus addresses are only known then).  It sits at the
 * start of handler memory (SPIN_HMEM_BASE), see spin.ld.
 */
struct spin_region {
	uint32_t addr_lo;
	uint32_t addr_hi;
	uint32_t size;		/* 0: no region */
	uint32_t rsvd;
};

extern volatile struct spin_region spin_regions[SPIN_MAX_REGIONS];

static inline uint32_t spin_region_size(unsigned int r)
{
	return r < SPIN_MAX_REGIONS ? spin_regions[r].size : 0;
}

/* ---- command unit ---- */

#define SPIN_CMD_REG(off) \
	(*(volatile uint32_t *)(uintptr_t)(SPIN_CMD_BASE + (off)))

#define SPIN_DESC ((volatile struct spin_cmd *)(uintptr_t)(SPIN_CMD_BASE + \
							  SPIN_CMD_REG_DESC))

/* Issue a whole descriptor (the helpers below write only what they use). */
spin_handle_t spin_issue(const struct spin_cmd *c);

static inline spin_handle_t spin_issue_desc(void)
{
	return (spin_handle_t)SPIN_CMD_REG(SPIN_CMD_REG_ISSUE);
}

/* Wait for @h; returns SPIN_CMD_ST_DONE (or SPIN_CMD_ST_IDLE if unused). */
static inline uint32_t spin_wait(spin_handle_t h)
{
	return SPIN_CMD_REG(SPIN_CMD_REG_WAIT + 4 * (uint32_t)h);
}

/* Non-blocking: 1 if @h has completed. */
static inline int spin_test(spin_handle_t h)
{
	return SPIN_CMD_REG(SPIN_CMD_REG_STATUS + 4 * (uint32_t)h) !=
	       SPIN_CMD_ST_PENDING;
}

/* Wait for every handle in @h[0..n). */
static inline void spin_wait_all(const spin_handle_t *h, int n)
{
	int i;

	for (i = 0; i < n; i++)
		spin_wait(h[i]);
}

/* Host bus address of @off in region @r into the descriptor. */
static inline void spin_desc_host(unsigned int r, uint32_t off)
{
	volatile struct spin_cmd *d = SPIN_DESC;
	uint32_t lo = 0, hi = 0;

	/* Unchecked on purpose: the device enforces the regions. */
	if (r < SPIN_MAX_REGIONS) {
		lo = spin_regions[r].addr_lo;
		hi = spin_regions[r].addr_hi;
	}
	d->host_lo = lo + off;
	d->host_hi = hi + (lo + off < lo);
}

static inline spin_handle_t spin_dma_(uint32_t op, unsigned int r,
				      uint32_t off, uint32_t local,
				      uint32_t len)
{
	volatile struct spin_cmd *d = SPIN_DESC;

	d->op = op;
	d->flags = 0;
	d->local = local;
	d->len = len;
	spin_desc_host(r, off);
	return spin_issue_desc();
}

/*
 * DMA @len bytes from the HPU address @local to offset @off of host region
 * @region (and back).  The device aborts the handler if the range is not
 * inside a registered region or @local is outside its windows.
 */
static inline spin_handle_t spin_dma_to_host(unsigned int region,
					     uint32_t off, const void *local,
					     uint32_t len)
{
	return spin_dma_(SPIN_CMD_DMA_TO_HOST, region, off,
			 (uint32_t)(uintptr_t)local, len);
}

static inline spin_handle_t spin_dma_from_host(unsigned int region,
					       uint32_t off, void *local,
					       uint32_t len)
{
	return spin_dma_(SPIN_CMD_DMA_FROM_HOST, region, off,
			 (uint32_t)(uintptr_t)local, len);
}

/* Write up to SPIN_HOST_WRITE_MAX bytes of immediate data to the host. */
spin_handle_t spin_host_write(unsigned int region, uint32_t off,
			      const void *data, uint32_t len);

/* The same for one or two 32-bit words (no copy loop). */
static inline spin_handle_t spin_host_write32(unsigned int region,
					      uint32_t off, uint32_t v)
{
	volatile struct spin_cmd *d = SPIN_DESC;

	d->op = SPIN_CMD_HOST_WRITE;
	d->flags = 0;
	d->len = 4;
	*(volatile uint32_t *)&d->imm[0] = v;
	spin_desc_host(region, off);
	return spin_issue_desc();
}

/*
 * Send the frame at @frame (L1 or the packet buffer), SPIN_SEND_CSUM_* in
 * @csum: the NIC fills those checksums.
 */
static inline spin_handle_t spin_send(const void *frame, uint32_t len,
				      uint32_t csum)
{
	volatile struct spin_cmd *d = SPIN_DESC;

	d->op = SPIN_CMD_SEND;
	d->flags = csum;
	d->local = (uint32_t)(uintptr_t)frame;
	d->len = len;
	return spin_issue_desc();
}

/*
 * Command-unit atomic on the handler-memory word @p: SPIN_ATOMIC_* @op;
 * returns the old value (waits for the command).
 */
uint32_t spin_cmd_atomic(volatile uint32_t *p, uint32_t op, uint32_t arg0,
			 uint32_t arg1);

/* ---- offload engine: custom RoCE opcodes (docs/snic-spin.md) ---- */

/*
 * Make @fn the handler spinctl registers for its --opcode(s) on the QP the
 * context is attached to (--qp).  It runs once per custom request and
 * answers it: spin_alloc_resp(), spin_submit_dma() into the response,
 * spin_wait_dma_finish(), spin_submit_resp().  Its return code is ignored;
 * returning without spin_submit_resp() fails the request (the requester
 * gets a remote operational error).
 *
 * register_dma_region is the host's side: the regions spinctl --region
 * adds (SNIC_SPIN_IOC_REGION_ADD) are the only host memory the handler can
 * reach, by region index and offset; spin_region_size() gives their size.
 */
#define SPIN_CUSTOM_HANDLER(fn) SPIN_ALIAS_(spin_custom_handler, fn)

/* The request of a custom handler (NULL in any other handler). */
static inline const volatile struct spin_custom *
spin_custom_req(const struct spin_args *a)
{
	if (a->handler != SPIN_HANDLER_CUSTOM)
		return NULL;
	return (const volatile struct spin_custom *)(uintptr_t)SPIN_CUSTOM_ADDR;
}

/*
 * The response buffer for @len bytes (zeroed; at most the requester's
 * response length, resp_len), or NULL if it does not fit.
 */
static inline void *spin_alloc_resp(const struct spin_args *a, uint32_t len)
{
	const volatile struct spin_custom *c = spin_custom_req(a);

	if (!c || len > c->resp_len)
		return NULL;
	return (void *)(uintptr_t)SPIN_RESP_BASE;
}

/* DMA @len bytes at offset @off of host region @region into @local. */
static inline spin_handle_t spin_submit_dma(unsigned int region, uint32_t off,
					    void *local, uint32_t len)
{
	return spin_dma_from_host(region, off, local, len);
}

/* Wait for every command this handler issued. */
static inline void spin_wait_dma_finish(void)
{
	spin_handle_t h;

	for (h = 0; h < SPIN_CMD_SLOTS; h++)
		spin_wait(h);
}

/*
 * Send the response: its first @len bytes count, the rest of resp_len is
 * zeros.  Once per request.
 */
static inline spin_handle_t spin_submit_resp(uint32_t len)
{
	volatile struct spin_cmd *d = SPIN_DESC;

	d->op = SPIN_CMD_RESP;
	d->flags = 0;
	d->local = SPIN_RESP_BASE;
	d->len = len;
	return spin_issue_desc();
}

/* ---- RV32A atomics on handler memory or scratch ---- */

/*
 * spin_amo_add, spin_amo_swap, spin_amo_or, spin_amo_maxu(p, v): the
 * amo<op>.w instruction on *p with v; each returns the value *p held.
 */
#define SPIN_AMO_W(op)							\
static inline uint32_t spin_amo_##op(volatile uint32_t *p, uint32_t v)	\
{									\
	uint32_t old;							\
									\
	__asm__ volatile("amo" #op ".w %0, %2, (%1)"			\
			 : "=r"(old) : "r"(p), "r"(v) : "memory");	\
	return old;							\
}
SPIN_AMO_W(add)
SPIN_AMO_W(swap)
SPIN_AMO_W(or)
SPIN_AMO_W(maxu)
#undef SPIN_AMO_W

/* Compare-and-swap with lr/sc: returns the value seen at *p. */
static inline uint32_t spin_cas(volatile uint32_t *p, uint32_t expect,
				uint32_t desired)
{
	uint32_t old, fail;

	__asm__ volatile("1: lr.w %0, (%2)\n"
			 "   bne %0, %3, 2f\n"
			 "   sc.w %1, %4, (%2)\n"
			 "   bnez %1, 1b\n"
			 "2:"
			 : "=&r"(old), "=&r"(fail)
			 : "r"(p), "r"(expect), "r"(desired)
			 : "memory");
	return old;
}

/* ---- freestanding helpers (the compiler may call these) ---- */

void *memcpy(void *d, const void *s, size_t n);
void *memmove(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

#endif /* SPIN_H */
