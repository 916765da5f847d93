/*
 * filtering: a hash table in handler memory keyed on the IPv4 source
 * address decides each datagram's fate: FILTER_DROP drops it on the NIC,
 * FILTER_REWRITE rewrites its UDP destination port (in the packet buffer,
 * so the host gets the change) and passes it with the checksums refilled
 * by the NIC; addresses not in the table pass unchanged.
 *
 * The host writes the rules into filter_rules / filter_nrules (spinctl
 * --poke); the first handler builds the hash table from them, the others
 * wait for it (an atomic state word).
 */
#include <spin.h>
#include <spin_net.h>

#define FILTER_DROP	1
#define FILTER_REWRITE	2
#define FILTER_MAX_RULES	64
#define FILTER_BUCKETS	1024	/* power of 2, open addressing */

struct filter_rule {
	uint32_t saddr;		/* network order, as in the packet */
	uint32_t action;	/* FILTER_* */
	uint32_t port;		/* FILTER_REWRITE: new destination port */
};

struct filter_entry {
	uint32_t saddr;
	uint16_t action;	/* 0: empty */
	uint16_t port;		/* network order */
};

struct filter_rule filter_rules[FILTER_MAX_RULES];
uint32_t filter_nrules;

struct filter_entry filter_table[FILTER_BUCKETS];
uint32_t filter_state;		/* 0 empty, 1 being built, 2 built */

struct filter_stats {
	uint32_t dropped, rewritten, unknown, not_udp;
} filter_stats;

static uint32_t filter_hash(uint32_t ip)
{
	return (ip * 2654435761u) >> 22;	/* 10 bits: FILTER_BUCKETS */
}

static void filter_build(void)
{
	uint32_t i, n = filter_nrules, h;

	if (n > FILTER_MAX_RULES)
		n = FILTER_MAX_RULES;
	for (i = 0; i < n; i++) {
		const struct filter_rule *r = &filter_rules[i];

		if (r->action != FILTER_DROP && r->action != FILTER_REWRITE)
			continue;
		h = filter_hash(r->saddr);
		while (filter_table[h].action && filter_table[h].saddr != r->saddr)
			h = (h + 1) & (FILTER_BUCKETS - 1);
		filter_table[h].saddr = r->saddr;
		filter_table[h].port = spin_htons(r->port);
		filter_table[h].action = r->action;
	}
}

static const struct filter_entry *filter_lookup(uint32_t ip)
{
	uint32_t h = filter_hash(ip), i;

	for (i = 0; i < FILTER_BUCKETS; i++) {
		const struct filter_entry *e = &filter_table[h];

		if (!e->action)
			return 0;
		if (e->saddr == ip)
			return e;
		h = (h + 1) & (FILTER_BUCKETS - 1);
	}
	return 0;
}

static int filtering(const struct spin_args *a)
{
	struct spin_udp_pkt *u = spin_udp_parse((void *)a->pkt, a->pkt_len);
	struct spin_udp_pkt *l2 = (struct spin_udp_pkt *)a->pkt_l2;
	const struct filter_entry *e;

	if (filter_state != 2) {
		if (spin_cas(&filter_state, 0, 1) == 0) {
			filter_build();
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			filter_state = 2;
		} else {
			while (*(volatile uint32_t *)&filter_state != 2)
				;
		}
	}
	if (!u) {
		spin_amo_add(&filter_stats.not_udp, 1);
		return SPIN_PASS;
	}
	e = filter_lookup(u->ip.saddr);
	if (!e) {
		spin_amo_add(&filter_stats.unknown, 1);
		return SPIN_PASS;
	}
	if (e->action == FILTER_DROP) {
		spin_amo_add(&filter_stats.dropped, 1);
		return SPIN_DROP;
	}
	/* PASS delivers the packet buffer's copy: change it there. */
	l2->udp.dest = e->port;
	spin_amo_add(&filter_stats.rewritten, 1);
	return SPIN_PASS_CSUM;
}
SPIN_HEADER_HANDLER(filtering);
