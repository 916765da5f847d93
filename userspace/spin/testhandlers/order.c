/*
 * order: records when each handler of a message runs, to prove the
 * engine's ordering: header before payload before completion.  Each
 * handler takes a ticket from a global counter in handler memory (atomic,
 * so tickets give the order in which handlers ran) and reads the HPU's
 * cycle CSR (the modeled time) at its start and end.  The completion
 * handler writes the message's record to host region 0 at 32 * (msg_id %
 * slots):
 *
 *	{ msg_id + 1, hdr_tk_start, hdr_tk_end, pay_tk_start, pay_tk_end,
 *	  cpl_tk_start, bad, hdr_cyc_end <= pay_cyc_start && pay_cyc_end <=
 *	  cpl_cyc_start ? 1 : 0 }
 *
 * bad counts violations the handlers see themselves (a payload handler
 * without its header's mark, a completion handler before every payload
 * handler ended).
 */
#include <spin.h>

struct order_msg {			/* per-message scratch */
	uint32_t h_start, h_end, p_start, p_end;
	uint32_t hc_end, pc_start, pc_end;
	uint32_t hdr_done, payloads_done, bad;
};

uint32_t order_ticket;
uint32_t order_violations;

static uint32_t cycles(void)
{
	uint32_t c;

	__asm__ volatile("csrr %0, cycle" : "=r"(c));
	return c;
}

static uint32_t ticket(void)
{
	return spin_amo_add(&order_ticket, 1);
}

/* A little work so that handlers have a duration. */
static void busy(uint32_t n)
{
	while (n--)
		__asm__ volatile("" ::: "memory");
}

static int order_header(const struct spin_args *a)
{
	struct order_msg *m = (struct order_msg *)a->scratch;

	m->h_start = ticket();
	busy(20);
	m->hc_end = cycles();
	m->hdr_done = 1;
	m->h_end = ticket();
	return SPIN_DROP;
}
SPIN_HEADER_HANDLER(order_header);

static int order_payload(const struct spin_args *a)
{
	struct order_msg *m = (struct order_msg *)a->scratch;
	uint32_t t = ticket(), c = cycles();

	if (!m->hdr_done)
		spin_amo_add(&m->bad, 1);
	m->p_start = t;
	m->pc_start = c;
	busy(20);
	m->pc_end = cycles();
	m->p_end = ticket();
	spin_amo_add(&m->payloads_done, 1);
	return SPIN_DROP;
}
SPIN_PAYLOAD_HANDLER(order_payload);

static int order_completion(const struct spin_args *a)
{
	struct order_msg *m = (struct order_msg *)a->scratch;
	uint32_t rec[8], slots = spin_region_size(0) / sizeof(rec);

	rec[5] = ticket();
	if (m->payloads_done != a->msg_pkts || !m->hdr_done)
		spin_amo_add(&m->bad, 1);
	if (m->bad)
		spin_amo_add(&order_violations, m->bad);
	if (!slots)
		return SPIN_DROP;
	rec[0] = a->msg_id + 1;
	rec[1] = m->h_start;
	rec[2] = m->h_end;
	rec[3] = m->p_start;
	rec[4] = m->p_end;
	rec[6] = m->bad;
	rec[7] = m->hc_end <= m->pc_start && m->pc_end <= cycles();
	spin_wait(spin_host_write(0, (a->msg_id % slots) * sizeof(rec), rec,
				  sizeof(rec)));
	return SPIN_DROP;
}
SPIN_COMPLETION_HANDLER(order_completion);
