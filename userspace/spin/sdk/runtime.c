/*
 * The handler runtime: the out-of-line part of spin.h.  Commands are built
 * field by field straight in the HPU's command unit (SPIN_CMD_BASE) and
 * issued by a load; nothing is buffered on the HPU.  The small commands
 * (DMA, send, 32-bit host write) are inline in spin.h.
 */
#include <spin.h>

/* Placed first in handler memory by spin.ld; spinctl fills it in. */
volatile struct spin_region spin_regions[SPIN_MAX_REGIONS]
	__attribute__((section(".spin_regions")));

spin_handle_t spin_issue(const struct spin_cmd *c)
{
	volatile struct spin_cmd *d = SPIN_DESC;
	int i;

	d->op = c->op;
	d->flags = c->flags;
	d->local = c->local;
	d->len = c->len;
	d->host_lo = c->host_lo;
	d->host_hi = c->host_hi;
	d->arg0 = c->arg0;
	d->arg1 = c->arg1;
	/* The unit takes 32-bit accesses only. */
	if (c->op == SPIN_CMD_HOST_WRITE)
		for (i = 0; i < (int)c->len && i < SPIN_HOST_WRITE_MAX; i += 4)
			*(volatile uint32_t *)&d->imm[i] =
				*(const uint32_t *)&c->imm[i];
	return spin_issue_desc();
}

spin_handle_t spin_host_write(unsigned int region, uint32_t off,
			      const void *data, uint32_t len)
{
	volatile struct spin_cmd *d = SPIN_DESC;
	const uint8_t *s = data;
	uint32_t i = 0;

	d->op = SPIN_CMD_HOST_WRITE;
	d->flags = 0;
	d->local = 0;
	d->len = len;
	spin_desc_host(region, off);
	/* The unit takes 32-bit accesses only: whole words, tail merged. */
	for (; i < len && i < SPIN_HOST_WRITE_MAX; i += 4) {
		uint32_t w = 0, k;

		if (!((uintptr_t)(s + i) & 3) && i + 4 <= len) {
			w = *(const uint32_t *)(s + i);
		} else {
			for (k = 0; i + k < len && k < 4; k++)
				w |= (uint32_t)s[i + k] << (8 * k);
		}
		*(volatile uint32_t *)&d->imm[i] = w;
	}
	return spin_issue_desc();
}

uint32_t spin_cmd_atomic(volatile uint32_t *p, uint32_t op, uint32_t arg0,
			 uint32_t arg1)
{
	volatile struct spin_cmd *d = SPIN_DESC;
	spin_handle_t h;

	d->op = SPIN_CMD_ATOMIC;
	d->flags = op;
	d->local = (uint32_t)(uintptr_t)p;
	d->len = 4;
	d->arg0 = arg0;
	d->arg1 = arg1;
	h = spin_issue_desc();
	spin_wait(h);
	return SPIN_CMD_REG(SPIN_CMD_REG_RESULT + 4 * (uint32_t)h);
}
