/*
 * kvstore: a set-associative cache in handler memory in front of a host
 * key-value server, on a text protocol over UDP:
 *
 *	"SET <key> <value>"  -> passed to the host (the authority), and the
 *	                        pair is written into the cache (write-through)
 *	"GET <key>"          -> hit: answered by the NIC with
 *	                        "VALUE <key> <value>", dropped;
 *	                        miss: passed to the host, which answers the same
 *
 * KV_SETS sets of KV_WAYS ways; a set is locked with an atomic swap while
 * it changes; the victim is the least recently used way.
 */
#include <spin.h>
#include <spin_net.h>

#define KV_SETS		64
#define KV_WAYS		4
#define KV_KEY_MAX	16
#define KV_VAL_MAX	32

struct kv_way {
	uint32_t hash;
	uint32_t used;		/* last use stamp, 0: empty */
	uint8_t klen;
	uint8_t vlen;
	uint8_t key[KV_KEY_MAX];
	uint8_t val[KV_VAL_MAX];
};

struct kv_set {
	uint32_t lock;
	struct kv_way way[KV_WAYS];
};

struct kv_set kv_cache[KV_SETS];
uint32_t kv_clock;

struct kv_stats {
	uint32_t hits, misses, sets, bad;
} kv_stats;

static uint32_t kv_hash(const uint8_t *k, uint32_t n)
{
	uint32_t h = 2166136261u, i;

	for (i = 0; i < n; i++)
		h = (h ^ k[i]) * 16777619u;
	return h;
}

/* Next space-separated token in [*p, end): its start and length. */
static uint32_t kv_token(const uint8_t **p, const uint8_t *end,
			 const uint8_t **tok)
{
	const uint8_t *s = *p;

	while (s < end && *s == ' ')
		s++;
	*tok = s;
	while (s < end && *s != ' ' && *s != '\n')
		s++;
	*p = s;
	return s - *tok;
}

static void kv_lock(struct kv_set *s)
{
	while (spin_amo_swap(&s->lock, 1))
		;
}

static void kv_unlock(struct kv_set *s)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	s->lock = 0;
}

static struct kv_way *kv_find(struct kv_set *s, uint32_t h, const uint8_t *k,
			      uint32_t kl)
{
	int i;

	for (i = 0; i < KV_WAYS; i++) {
		struct kv_way *w = &s->way[i];

		if (w->used && w->hash == h && w->klen == kl &&
		    !memcmp(w->key, k, kl))
			return w;
	}
	return 0;
}

static void kv_set(uint32_t h, const uint8_t *k, uint32_t kl,
		   const uint8_t *v, uint32_t vl)
{
	struct kv_set *s = &kv_cache[h % KV_SETS];
	struct kv_way *w;
	int i;

	kv_lock(s);
	w = kv_find(s, h, k, kl);
	if (!w) {
		w = &s->way[0];
		for (i = 1; i < KV_WAYS; i++)
			if (s->way[i].used < w->used)
				w = &s->way[i];
	}
	w->hash = h;
	w->klen = kl;
	w->vlen = vl;
	memcpy(w->key, k, kl);
	memcpy(w->val, v, vl);
	w->used = spin_amo_add(&kv_clock, 1) + 1;
	kv_unlock(s);
}

/* Answer a GET hit in place: "VALUE <key> <value>" back to the sender. */
static void kv_reply(struct spin_udp_pkt *u, const uint8_t *k, uint32_t kl,
		     const struct kv_way *w)
{
	uint8_t *p = (uint8_t *)u + SPIN_UDP_HLEN;
	uint32_t n;

	memcpy(p, "VALUE ", 6);
	memcpy(p + 6, k, kl);
	p[6 + kl] = ' ';
	memcpy(p + 7 + kl, w->val, w->vlen);
	n = 7 + kl + w->vlen;
	spin_udp_swap(u);
	u->ip.tot_len = spin_htons(sizeof(struct spin_ip) +
				   sizeof(struct spin_udp) + n);
	u->ip.check = 0;
	u->udp.len = spin_htons(sizeof(struct spin_udp) + n);
	u->udp.check = 0;
	spin_send(u, SPIN_UDP_HLEN + n, SPIN_SEND_CSUM_L3 | SPIN_SEND_CSUM_L4);
}

static int kvstore(const struct spin_args *a)
{
	struct spin_udp_pkt *u = spin_udp_parse((void *)a->pkt, a->pkt_len);
	const uint8_t *p, *end, *op, *k, *v;
	uint32_t ol, kl, vl, h;
	struct kv_way *w, copy;
	struct kv_set *s;

	if (!u || a->pkt_len != a->full_len)
		goto bad;
	p = (const uint8_t *)u + SPIN_UDP_HLEN;
	end = p + spin_udp_payload_len(u);
	if (end > (const uint8_t *)u + a->pkt_len)
		goto bad;
	ol = kv_token(&p, end, &op);
	kl = kv_token(&p, end, &k);
	if (ol != 3 || !kl || kl > KV_KEY_MAX)
		goto bad;
	h = kv_hash(k, kl);
	if (!memcmp(op, "SET", 3)) {
		vl = kv_token(&p, end, &v);
		if (vl && vl <= KV_VAL_MAX)
			kv_set(h, k, kl, v, vl);
		spin_amo_add(&kv_stats.sets, 1);
		return SPIN_PASS;
	}
	if (memcmp(op, "GET", 3))
		goto bad;
	s = &kv_cache[h % KV_SETS];
	kv_lock(s);
	w = kv_find(s, h, k, kl);
	if (w) {
		copy = *w;
		w->used = spin_amo_add(&kv_clock, 1) + 1;
	}
	kv_unlock(s);
	if (!w) {
		spin_amo_add(&kv_stats.misses, 1);
		return SPIN_PASS;
	}
	/* The key is inside the packet the reply overwrites: use the copy. */
	kv_reply(u, copy.key, kl, &copy);
	spin_amo_add(&kv_stats.hits, 1);
	return SPIN_DROP;
bad:
	spin_amo_add(&kv_stats.bad, 1);
	return SPIN_PASS;
}
SPIN_HEADER_HANDLER(kvstore);
