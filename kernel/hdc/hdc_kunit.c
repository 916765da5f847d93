// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of hdc's pure helpers (built into hdc.ko when the kernel has
 * CONFIG_KUNIT; runs when the module loads): merging a file's mapped
 * segments and the cap on their number, the output bound of a chain with
 * deflate units (and its overflow), and slicing a byte range out of an
 * extent list (as the NIC side cuts a file into datagrams).
 */
#include <kunit/test.h>
#include "hdc.h"

static void hdc_kunit_seg_merge(struct kunit *test)
{
	struct hdc_segs sg = {};

	/* contiguous on disk and in the file: one segment */
	KUNIT_EXPECT_EQ(test, hdc_seg_add(&sg, 0, 4096, 1 << 20, HDC_SEG_DATA), 0);
	KUNIT_EXPECT_EQ(test, hdc_seg_add(&sg, 4096, 4096, (1 << 20) + 4096,
					  HDC_SEG_DATA), 0);
	KUNIT_EXPECT_EQ(test, sg.n, 1U);
	KUNIT_EXPECT_EQ(test, sg.s[0].len, 8192ULL);
	/* a jump on disk starts a new one */
	KUNIT_EXPECT_EQ(test, hdc_seg_add(&sg, 8192, 4096, 3 << 20,
					  HDC_SEG_DATA), 0);
	KUNIT_EXPECT_EQ(test, sg.n, 2U);
	/* holes merge whatever their address; a hole never merges into data */
	KUNIT_EXPECT_EQ(test, hdc_seg_add(&sg, 12288, 4096, 0, HDC_SEG_HOLE), 0);
	KUNIT_EXPECT_EQ(test, hdc_seg_add(&sg, 16384, 4096, 77, HDC_SEG_HOLE), 0);
	KUNIT_EXPECT_EQ(test, sg.n, 3U);
	KUNIT_EXPECT_EQ(test, sg.s[2].len, 8192ULL);
	/* a gap in the file offsets starts a new one; empty adds nothing */
	KUNIT_EXPECT_EQ(test, hdc_seg_add(&sg, 40960, 4096, 0, HDC_SEG_HOLE), 0);
	KUNIT_EXPECT_EQ(test, hdc_seg_add(&sg, 45056, 0, 0, HDC_SEG_DATA), 0);
	KUNIT_EXPECT_EQ(test, sg.n, 4U);
	hdc_segs_free(&sg);
	KUNIT_EXPECT_EQ(test, sg.n, 0U);
}

/* A fragmented file: at most HDC_MAX_EXTENTS segments, then -E2BIG. */
static void hdc_kunit_seg_cap(struct kunit *test)
{
	struct hdc_segs sg = {};
	int ret = 0;
	u64 i;

	for (i = 0; i < HDC_MAX_EXTENTS + 1 && !ret; i++)
		ret = hdc_seg_add(&sg, i * 4096, 4096, i * 8192, HDC_SEG_DATA);
	KUNIT_EXPECT_EQ(test, ret, -E2BIG);
	KUNIT_EXPECT_EQ(test, sg.n, (u32)HDC_MAX_EXTENTS);
	hdc_segs_free(&sg);
}

static void hdc_kunit_out_bound(struct kunit *test)
{
	u64 b = 0;

	KUNIT_EXPECT_EQ(test, hdc_out_bound(1 << 20, 0, &b), 0);
	KUNIT_EXPECT_EQ(test, b, 1ULL << 20);
	KUNIT_EXPECT_EQ(test, hdc_out_bound(1 << 20, 1, &b), 0);
	KUNIT_EXPECT_EQ(test, b, (1ULL << 20) + (1 << 12) + 4096);
	KUNIT_EXPECT_EQ(test, hdc_out_bound(0, 2, &b), 0);
	KUNIT_EXPECT_EQ(test, b, 4096ULL + 16 + 4096);
	/* a length near 2^64 overflows: refused, never wrapped */
	KUNIT_EXPECT_EQ(test, hdc_out_bound(U64_MAX - 4096, 1, &b), -EFBIG);
}

static struct hdc_extent hdc_kunit_ext(u64 lba, u32 nlb, u16 skip)
{
	return (struct hdc_extent) {
		.lba = cpu_to_le64(lba), .nlb = cpu_to_le32(nlb),
		.skip = cpu_to_le16(skip),
	};
}

static void hdc_kunit_ext_slice(struct kunit *test)
{
	/* 512-byte blocks: [100, 104) less 10 bytes, then [200, 202) */
	struct hdc_extent x[2] = { hdc_kunit_ext(100, 4, 10),
				   hdc_kunit_ext(200, 2, 0) };
	struct hdc_extent out[2];

	/* bytes 0..99: inside the first extent, from its skip */
	KUNIT_EXPECT_EQ(test, hdc_ext_slice(x, 2, 9, 0, 100, out, 2), 1);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(out[0].lba), 100ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out[0].nlb), 1U);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(out[0].skip), 10);
	/* bytes 2000..2199 cross into the second extent (the first has 2038) */
	KUNIT_EXPECT_EQ(test, hdc_ext_slice(x, 2, 9, 2000, 200, out, 2), 2);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(out[0].lba), 103ULL);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(out[0].skip), 2010 - 3 * 512);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out[0].nlb), 1U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(out[1].lba), 200ULL);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(out[1].skip), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out[1].nlb), 1U);
	/* no room for the second piece */
	KUNIT_EXPECT_EQ(test, hdc_ext_slice(x, 2, 9, 2000, 200, out, 1), -E2BIG);
	/* past the end: nothing */
	KUNIT_EXPECT_EQ(test, hdc_ext_slice(x, 2, 9, 5000, 10, out, 2), 0);
}

static struct kunit_case hdc_kunit_cases[] = {
	KUNIT_CASE(hdc_kunit_seg_merge),
	KUNIT_CASE(hdc_kunit_seg_cap),
	KUNIT_CASE(hdc_kunit_out_bound),
	KUNIT_CASE(hdc_kunit_ext_slice),
	{}
};

static struct kunit_suite hdc_kunit_suite = {
	.name = "hdc_extents",
	.test_cases = hdc_kunit_cases,
};

kunit_test_suite(hdc_kunit_suite);
