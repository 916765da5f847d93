/*
 * FLD compressed transmit state: the 4-bank cuckoo table
 * (qemu-devices/fld/fld-cuckoo.c) and the shared descriptor pool on top of
 * it (fld-pool.c): load factor 1/2 holds every key, the stash absorbs
 * failed walks, a full stash stalls without losing or changing anything.
 */
#include <stdlib.h>
#include "../lib/check.h"
#include "fld/fld-pool.h"

/* Fill to capacity (load 1/2) with (queue, index) keys; all retrievable. */
static void cuckoo_fills_to_capacity(void)
{
	FldCuckoo t;
	unsigned i, n = 2048;
	uint32_t v;

	CHECK(fld_ck_init(&t, n));
	CHECK_EQ(fld_ck_slots(&t), 2 * n);
	for (i = 0; i < n; i++)
		CHECK_EQ(fld_ck_insert(&t, (i % 512) << 16 | (i / 512) * 37, i),
			 FLD_CK_OK);
	CHECK_EQ(t.count, n);
	for (i = 0; i < n; i++) {
		CHECK(fld_ck_lookup(&t, (i % 512) << 16 | (i / 512) * 37, &v));
		CHECK_EQ(v, i);
	}
	CHECK(!fld_ck_lookup(&t, 0xdead0000, &v));
	fld_ck_destroy(&t);
}

static void cuckoo_update_and_remove(void)
{
	FldCuckoo t;
	uint32_t v;

	CHECK(fld_ck_init(&t, 16));
	CHECK_EQ(fld_ck_insert(&t, 5, 1), FLD_CK_OK);
	CHECK_EQ(fld_ck_insert(&t, 5, 2), FLD_CK_OK);
	CHECK_EQ(t.count, 1);
	CHECK(fld_ck_lookup(&t, 5, &v));
	CHECK_EQ(v, 2);
	CHECK(fld_ck_remove(&t, 5));
	CHECK(!fld_ck_remove(&t, 5));
	CHECK(!fld_ck_lookup(&t, 5, &v));
	CHECK_EQ(t.count, 0);
	fld_ck_destroy(&t);
}

/*
 * Overfill a small table far past load 1/2: the stash takes 4 homeless
 * keys, then inserts stall; every key stored before is still there with
 * its value, and after removals the stalled key goes in.
 */
static void cuckoo_stash_then_stall(void)
{
	FldCuckoo t;
	uint32_t keys[64], v;
	unsigned n = 0, i, stalled_at = 0;

	CHECK(fld_ck_init(&t, 4));      /* 4 banks x 2 entries */
	for (i = 0; i < 64; i++) {
		uint32_t k = 0x10000 + i * 7919;

		if (fld_ck_insert(&t, k, i) == FLD_CK_STALL) {
			stalled_at = k;
			break;
		}
		keys[n++] = k;
	}
	CHECK(stalled_at != 0);
	CHECK_EQ(t.stash_used, FLD_CK_STASH);
	CHECK(t.stalls >= 1);
	CHECK_EQ(t.count, n);
	CHECK(n >= 8 + FLD_CK_STASH - 1);
	for (i = 0; i < n; i++) {
		CHECK(fld_ck_lookup(&t, keys[i], &v));
		CHECK_EQ(v, (keys[i] - 0x10000) / 7919);
	}
	CHECK(!fld_ck_lookup(&t, stalled_at, &v));
	/* The stall is not a failure: free room and the same insert succeeds. */
	for (i = 0; i < n && fld_ck_insert(&t, stalled_at, 99) == FLD_CK_STALL; i++)
		CHECK(fld_ck_remove(&t, keys[i]));
	CHECK(fld_ck_lookup(&t, stalled_at, &v));
	CHECK_EQ(v, 99);
	fld_ck_destroy(&t);
}

static void pool_post_get_release(void)
{
	FldDescPool p;
	uint64_t d;

	CHECK(fld_pool_init(&p, 8));
	CHECK_EQ(fld_pool_post(&p, 3, 100, 0x1122334455667788ull), FLD_POOL_OK);
	CHECK_EQ(fld_pool_post(&p, 4, 100, 0xabcdull), FLD_POOL_OK);
	CHECK_EQ(fld_pool_post(&p, 3, 100, 1), FLD_POOL_DUP);
	CHECK(fld_pool_get(&p, 3, 100, &d));
	CHECK_EQ(d, 0x1122334455667788ull);
	CHECK(fld_pool_get(&p, 4, 100, &d));
	CHECK_EQ(d, 0xabcd);
	CHECK(!fld_pool_get(&p, 3, 101, &d));
	CHECK_EQ(p.misses, 1);
	CHECK_EQ(fld_pool_in_use(&p), 2);
	CHECK(fld_pool_release(&p, 3, 100));
	CHECK(!fld_pool_release(&p, 3, 100));
	CHECK_EQ(fld_pool_in_use(&p), 1);
	fld_pool_destroy(&p);
}

/*
 * Many queues share a pool sized for the traffic, not queues x rings:
 * 512 queues x 4 descriptors in a 2048-slot pool; one more stalls until a
 * completion releases a slot.
 */
static void pool_shared_by_queues_stalls_when_full(void)
{
	FldDescPool p;
	unsigned q, i;
	uint64_t d;

	CHECK(fld_pool_init(&p, 2048));
	for (q = 0; q < 512; q++)
		for (i = 0; i < 4; i++)
			CHECK_EQ(fld_pool_post(&p, q, 0xfffe + i, q * 16 + i),
				 FLD_POOL_OK);
	CHECK_EQ(fld_pool_in_use(&p), 2048);
	CHECK_EQ(fld_pool_post(&p, 7, 9, 1), FLD_POOL_STALL);
	CHECK_EQ(p.stalls, 1);
	for (q = 0; q < 512; q++)
		for (i = 0; i < 4; i++) {
			CHECK(fld_pool_get(&p, q, 0xfffe + i, &d));
			CHECK_EQ(d, q * 16 + i);
		}
	CHECK(fld_pool_release(&p, 200, 0xffff));
	CHECK_EQ(fld_pool_post(&p, 7, 9, 1), FLD_POOL_OK);
	/* 2048 x 8 B descriptors + 4 banks of 1024 map entries */
	CHECK(fld_pool_bytes(&p) >= 2048 * 8);
	fld_pool_destroy(&p);
}

static void pool_bad_sizes_refused(void)
{
	FldDescPool p;

	CHECK(!fld_pool_init(&p, 0));
	CHECK(!fld_pool_init(&p, 1u << 21));
}

int main(void)
{
	RUN("unit/fld_pool", cuckoo_fills_to_capacity);
	RUN("unit/fld_pool", cuckoo_update_and_remove);
	RUN("unit/fld_pool", cuckoo_stash_then_stall);
	RUN("unit/fld_pool", pool_post_get_release);
	RUN("unit/fld_pool", pool_shared_by_queues_stalls_when_full);
	RUN("unit/fld_pool", pool_bad_sizes_refused);
	return check_failures ? 1 : 0;
}
