/*
 * hdc device tier: the HDC engine driven through qtest with no guest, next
 * to a real QEMU NVMe controller whose namespace is a temporary raw image.
 * The engine brings the controller up by itself over peer-to-peer MMIO;
 * the test plays the driver (host command queue in guest RAM) and checks
 * every result byte for byte against the image file, zlib and nettle:
 * copies in every direction with skips and holes, digests and AES-256-CTR
 * known answers, deflate round trips, multi-chunk transfers, 63 commands in
 * flight completing in order, and every bad-input path (rings, doorbells,
 * opcodes, functions, endpoints, extents, unreachable memory, bad NVMe
 * BARs, a controller that never becomes ready, resets mid-transfer) with
 * QEMU still answering afterwards.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <nettle/aes.h>
#include <nettle/ctr.h>
#include <nettle/md5.h>
#include <nettle/sha1.h>
#include <nettle/sha2.h>
#include "../lib/check.h"
#include "qtest.h"
#include "d2d/hdc_ifc.h"
#include "d2d/snic_ifc.h"

#define IMG_SIZE	(16u << 20)

#define BAR2_BASE	0xc0000000ull	/* 64 MiB buffer */
#define BAR0_BASE	0xe0000000ull
#define BAR4_BASE	0xe0080000ull	/* 512 KiB, naturally aligned */
#define NVME_BASE	0xe0100000ull

/* Guest RAM the test uses (256 MiB machine). */
#define CMDQ		0x100000ull
#define CPLQ		0x101000ull
#define MSI_ADDR	0x102000ull
#define AUX		0x103000ull
#define FAKE_CTRL	0x104000ull
#define EXT_SRC		0x110000ull	/* 64 KiB of extents */
#define EXT_DST		0x120000ull
#define EXT_MANY	0x130000ull
#define HSRC		0x1000000ull	/* 8 MiB */
#define HDST		0x2000000ull	/* 8 MiB */
#define HMANY		0x3000000ull	/* 64 x 128 KiB */
#define UNMAPPED	0x7000000000ull
#define MSI_DATA	0xd2d00003u

#define DEVFN_NVME	(0x10 << 3)

static struct qt *qt;
static int hdc_devfn;
static uint8_t *img;		/* the image as the test expects it */
static char img_path[64];
static uint32_t sq_tail, cq_head;
static int cq_phase;
static uint16_t next_id;
static uint32_t lba_shift = 9;
static bool ready;		/* QEMU up, NVMe running, queue on */
/* The SSD's -drive options with "%s" for the image; NULL: a raw file. */
static const char *drive_spec;

/* ---- helpers ---- */

static uint32_t rd(uint32_t reg)
{
	return qt_readl(qt, BAR0_BASE + reg);
}

static void wr(uint32_t reg, uint32_t val)
{
	qt_writel(qt, BAR0_BASE + reg, val);
}

static void mem_write(uint64_t addr, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		size_t n = len < 32768 ? len : 32768;

		qt_memwrite(qt, addr, p, n);
		addr += n;
		p += n;
		len -= n;
	}
}

static void mem_read(uint64_t addr, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		size_t n = len < 32768 ? len : 32768;

		qt_memread(qt, addr, p, n);
		addr += n;
		p += n;
		len -= n;
	}
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static void fill_random(uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = rng() >> 56;
}

static void img_create(void)
{
	uint64_t s = 12345;
	size_t i;
	int fd;

	for (i = 0; i < IMG_SIZE; i += 8) {
		s ^= s >> 12;
		s ^= s << 25;
		s ^= s >> 27;
		*(uint64_t *)(img + i) = s * 0x2545f4914f6cdd1dull;
	}
	fd = open(img_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || pwrite(fd, img, IMG_SIZE, 0) != IMG_SIZE) {
		perror(img_path);
		exit(1);
	}
	close(fd);
}

/* The image file as QEMU left it. */
static void img_file(uint8_t *buf, uint64_t off, size_t len)
{
	int fd = open(img_path, O_RDONLY);

	if (fd < 0 || pread(fd, buf, len, off) != (ssize_t)len)
		memset(buf, 0xee, len);
	if (fd >= 0)
		close(fd);
}

/*
 * Start QEMU with the platform of docs/hdc.md: an NVMe subsystem, the
 * engine's controller at 0x10 and the engine at 0x11.
 */
/* Program the BARs of hdc and its NVMe controller, enable them, MSI-X 0. */
static void map_devices(void)
{
	qt_pci_map_bar(qt, hdc_devfn, HDC_BAR_REGS, BAR0_BASE);
	qt_pci_map_bar(qt, hdc_devfn, HDC_BAR_BUF, BAR2_BASE);
	qt_pci_map_bar(qt, hdc_devfn, HDC_BAR_NVMEQ, BAR4_BASE);
	qt_pci_map_bar(qt, DEVFN_NVME, 0, NVME_BASE);
	qt_pci_enable(qt, hdc_devfn);
	qt_pci_enable(qt, DEVFN_NVME);
	qt_pci_msix_setup(qt, hdc_devfn, BAR0_BASE + HDC_MSIX_OFFSET, 0,
			  MSI_ADDR, MSI_DATA);
}

static bool start(const char *nvme_opts, const char *ns_opts,
		  const char *hdc_opts)
{
	static bool broken;
	char args[1024], drive[256];

	qt_quit(qt);
	qt = NULL;
	ready = false;
	if (broken)
		return false;	/* QEMU did not start once: do not wait again */
	img_create();
	snprintf(drive, sizeof(drive),
		 drive_spec ? drive_spec : "file=%s,if=none,id=ssd,format=raw",
		 img_path);
	snprintf(args, sizeof(args),
		 "-device nvme-subsys,id=ss0,nqn=d2d "
		 "-device nvme,serial=d2dssd,subsys=ss0,id=n0,addr=0x10%s "
		 "-drive %s "
		 "-device nvme-ns,drive=ssd,nsid=1,shared=on%s "
		 "-device hdc,addr=0x11,id=hdc0%s",
		 nvme_opts, drive, ns_opts, hdc_opts);
	qt = qt_start(args);
	if (!qt_alive(qt)) {
		broken = true;
		return false;
	}
	hdc_devfn = qt_pci_find(qt, HDC_PCI_VENDOR_ID, HDC_PCI_DEVICE_ID, 0);
	if (hdc_devfn < 0 ||
	    qt_pci_cfg_read(qt, DEVFN_NVME, 0, 4) != 0x00101b36)
		return false;
	map_devices();
	return true;
}

static bool start_default(void)
{
	return start("", "", "");
}

/* Program NVME_BAR, bring the controller up, wait (virtual clock). */
static uint32_t bringup_at(uint64_t bar)
{
	uint32_t st = HDC_NVME_INIT;
	int i;

	wr(HDC_REG_NVME_BAR_LO, (uint32_t)bar);
	wr(HDC_REG_NVME_BAR_HI, bar >> 32);
	wr(HDC_REG_NVME_CTRL, HDC_NVME_BRINGUP);
	for (i = 0; i < 2000; i++) {
		st = rd(HDC_REG_NVME_STATUS);
		if (st != HDC_NVME_INIT)
			break;
		if (i > 20)
			qt_clock_step(qt, 1000000);
	}
	if (st == HDC_NVME_RUNNING)
		lba_shift = rd(HDC_REG_NVME_LBA_SHIFT);
	return st;
}

static bool q_enable(void)
{
	qt_memset(qt, CMDQ, 0, HDC_QUEUE_DEPTH * sizeof(struct hdc_cmd));
	qt_memset(qt, CPLQ, 0, HDC_QUEUE_DEPTH * sizeof(struct hdc_cpl));
	wr(HDC_REG_CTRL, 0);
	wr(HDC_REG_CMDQ_BASE_LO, (uint32_t)CMDQ);
	wr(HDC_REG_CMDQ_BASE_HI, CMDQ >> 32);
	wr(HDC_REG_CPLQ_BASE_LO, (uint32_t)CPLQ);
	wr(HDC_REG_CPLQ_BASE_HI, CPLQ >> 32);
	wr(HDC_REG_MSIX, 0);
	wr(HDC_REG_CTRL, HDC_CTRL_ENABLE);
	sq_tail = cq_head = 0;
	cq_phase = 1;
	return (rd(HDC_REG_STATUS) & HDC_STATUS_ENABLED) != 0;
}

/* A fresh QEMU with the controller running and the queue on. */
static bool setup(void)
{
	if (ready && qt_alive(qt))
		return true;
	if (!start_default() || bringup_at(NVME_BASE) != HDC_NVME_RUNNING ||
	    !q_enable())
		return false;
	ready = true;
	return true;
}

static void post_nodb(struct hdc_cmd *c)
{
	c->cmd_id = next_id++;
	qt_memwrite(qt, CMDQ + (uint64_t)sq_tail * sizeof(*c), c, sizeof(*c));
	sq_tail = (sq_tail + 1) % HDC_QUEUE_DEPTH;
}

static void post(struct hdc_cmd *c)
{
	post_nodb(c);
	wr(HDC_REG_CMDQ_TAIL, sq_tail);
}

static bool peek_cpl(struct hdc_cpl *c)
{
	qt_memread(qt, CPLQ + (uint64_t)cq_head * sizeof(*c), c, sizeof(*c));
	return (int)(c->flags & HDC_CPL_PHASE) == cq_phase &&
	       !(c->cmd_id == 0xffff && c->status == 0xffff);
}

static void consume_cpl(void)
{
	cq_head = (cq_head + 1) % HDC_QUEUE_DEPTH;
	if (!cq_head)
		cq_phase ^= 1;
	wr(HDC_REG_CPLQ_HEAD, cq_head);
}

static bool wait_cpl(struct hdc_cpl *c)
{
	struct timespec t0, t;
	long i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0;; i++) {
		if (peek_cpl(c)) {
			consume_cpl();
			return true;
		}
		if (i % 256 == 255) {
			if (!qt_alive(qt))
				return false;
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec > 20)
				return false;
		}
	}
}

/* Post, wait; the completion's status, or -1 (none) / -2 (wrong id). */
static int run(struct hdc_cmd *c, struct hdc_cpl *out)
{
	struct hdc_cpl cpl;

	post(c);
	if (!wait_cpl(&cpl))
		return -1;
	if (cpl.cmd_id != c->cmd_id)
		return -2;
	if (out)
		*out = cpl;
	return cpl.status;
}

static struct hdc_endpoint ep_host(uint64_t addr, uint32_t cap)
{
	struct hdc_endpoint e = { .type = HDC_EP_HOST, .count = cap,
				  .addr = addr };
	return e;
}

static struct hdc_endpoint ep_nvme(uint64_t list, uint32_t n)
{
	struct hdc_endpoint e = { .type = HDC_EP_NVME, .count = n,
				  .addr = list };
	return e;
}

static struct hdc_endpoint ep_devbuf(uint64_t off, uint32_t cap)
{
	struct hdc_endpoint e = { .type = HDC_EP_DEVBUF, .count = cap,
				  .addr = off };
	return e;
}

static struct hdc_endpoint ep_none(void)
{
	struct hdc_endpoint e = { .type = HDC_EP_NONE };
	return e;
}

static struct hdc_cmd xfer(uint64_t len, struct hdc_endpoint src,
			   struct hdc_endpoint dst)
{
	struct hdc_cmd c = { .opcode = HDC_OP_TRANSFER, .length = len,
			     .src = src, .dst = dst };
	return c;
}

static void with_funcs(struct hdc_cmd *c, const uint8_t *f, int n)
{
	c->nfuncs = n;
	memcpy(c->funcs, f, n);
	c->aux_addr = AUX;
}

static void put_extents(uint64_t addr, const struct hdc_extent *x, int n)
{
	mem_write(addr, x, n * sizeof(*x));
}

/* The bytes a list of extents stands for, from the expected image. */
static void stream_of(const struct hdc_extent *x, int n, uint8_t *out,
		      uint64_t len)
{
	uint64_t got = 0;
	int i;

	for (i = 0; i < n && got < len; i++) {
		uint64_t bytes = ((uint64_t)x[i].nlb << lba_shift) - x[i].skip;
		uint64_t take = bytes < len - got ? bytes : len - got;

		if (x[i].flags & HDC_EXT_ZERO)
			memset(out + got, 0, take);
		else
			memcpy(out + got,
			       img + (x[i].lba << lba_shift) + x[i].skip, take);
		got += take;
	}
}

static uint32_t crc32c_ref(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xffffffff;
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78 & -(crc & 1));
	}
	return ~crc;
}

static void aes_ctr_ref(const uint8_t *key, const uint8_t *iv,
			const uint8_t *in, uint8_t *out, size_t len)
{
	struct aes256_ctx ctx;
	uint8_t ctr[16];

	memcpy(ctr, iv, 16);
	aes256_set_encrypt_key(&ctx, key);
	ctr_crypt(&ctx, (nettle_cipher_func *)aes256_encrypt, AES_BLOCK_SIZE,
		  ctr, len, out, in);
}

static void hex2bin(const char *hex, uint8_t *out)
{
	while (hex[0] && hex[1]) {
		if (hex[0] == ' ') {
			hex++;
			continue;
		}
		sscanf(hex, "%2hhx", out++);
		hex += 2;
	}
}

static bool qom_u64(const char *prop, uint64_t *v)
{
	return qt_qom_get_u64(qt, "/machine/peripheral/hdc0", prop, v);
}

/* ---- tests ---- */

static void identity_registers(void)
{
	char dump[4096];
	uint64_t v;

	CHECK(start_default());
	CHECK_EQ(rd(HDC_REG_ID), HDC_ID_MAGIC);
	CHECK_EQ(rd(HDC_REG_VERSION), HDC_VERSION);
	CHECK_EQ(rd(HDC_REG_CAPS), HDC_CAP_NVME | HDC_CAP_CRC32C |
		 HDC_CAP_MD5 | HDC_CAP_SHA256 | HDC_CAP_AES256_CTR |
		 HDC_CAP_DEFLATE | HDC_CAP_SHA1 | HDC_CAP_CRC32 |
		 HDC_CAP_GZIP | HDC_CAP_NIC | HDC_CAP_NIC_RX | HDC_CAP_TCP);
	CHECK_EQ(rd(HDC_REG_STATUS), HDC_STATUS_READY);
	CHECK_EQ(rd(HDC_REG_QUEUE_DEPTH), HDC_QUEUE_DEPTH);
	CHECK_EQ(rd(HDC_REG_BUF_SIZE), HDC_BUF_SIZE_DEFAULT);
	CHECK_EQ(rd(HDC_REG_NVME_STATUS), HDC_NVME_OFF);
	CHECK_EQ(rd(HDC_REG_NVME_NSID), 1);
	CHECK_EQ(rd(HDC_REG_DEVBUF_SIZE), 0);
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_NONE);
	CHECK(qom_u64("pcie-mmio_reads", &v) && v >= 9);
	CHECK(qt_qom_get_str(qt, "/machine/peripheral/hdc0", "scoreboard",
			     dump, sizeof(dump)));
	CHECK(!strncmp(dump, "jobs=0 chunks_free=1024/1024 nvme=off", 37));
}

static void nvme_endpoint_before_bringup(void)
{
	struct hdc_extent x = { .lba = 0, .nlb = 1 };
	struct hdc_cmd c;

	CHECK(start_default());
	CHECK(q_enable());
	put_extents(EXT_SRC, &x, 1);
	c = xfer(512, ep_nvme(EXT_SRC, 1), ep_host(HDST, 512));
	CHECK_EQ(run(&c, NULL), HDC_ST_ENODEV);
	CHECK_EQ(rd(HDC_REG_STAT_ERRS), 1);
}

static void bringup_over_p2p(void)
{
	uint64_t writes, reads;

	CHECK(start_default());
	CHECK_EQ(bringup_at(NVME_BASE), HDC_NVME_RUNNING);
	CHECK_EQ(rd(HDC_REG_NVME_LBA_SHIFT), 9);
	CHECK_EQ(rd(HDC_REG_NVME_NSZE_LO), IMG_SIZE / 512);
	CHECK_EQ(rd(HDC_REG_NVME_NSZE_HI), 0);
	CHECK(rd(HDC_REG_STATUS) & HDC_STATUS_NVME_READY);
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_NONE);
	/* The controller is enabled (CSTS.RDY), its pin interrupts masked. */
	CHECK_EQ(qt_readl(qt, NVME_BASE + 0x1c) & 1, 1);
	CHECK_EQ(qt_readl(qt, NVME_BASE + 0x0c), 0xffffffff);
	/* Register accesses and doorbells were the engine's own DMA. */
	CHECK(qom_u64("pcie-dma_writes", &writes) && writes >= 8);
	CHECK(qom_u64("pcie-dma_reads", &reads) && reads >= 3);
	/* ... and the controller wrote its completions into BAR4. */
	CHECK(qom_u64("pcie-mmio_writes", &writes) && writes >= 8);
	CHECK(q_enable());
	ready = true;
}

static void nop_round_trip_with_msix(void)
{
	struct hdc_cmd c = { .opcode = HDC_OP_NOP };
	struct hdc_cpl cpl;

	CHECK(setup());
	qt_memset(qt, MSI_ADDR, 0, 4);
	CHECK_EQ(run(&c, &cpl), HDC_ST_OK);
	CHECK_EQ(cpl.flags, HDC_CPL_PHASE);
	CHECK_EQ(cpl.cmdq_head, sq_tail);
	CHECK_EQ(cpl.result, 0);
	CHECK_EQ(qt_readl(qt, MSI_ADDR), MSI_DATA);
	CHECK_EQ(rd(HDC_REG_CMDQ_HEAD), sq_tail);
}

static uint8_t bufa[4 << 20], bufb[4 << 20], bufc[4 << 20];

static void nvme_to_host_exact(void)
{
	/* A skip, a hole, a run over a chunk boundary, a partial block. */
	static const struct hdc_extent x[] = {
		{ .lba = 100, .nlb = 8 },
		{ .lba = 5000, .nlb = 3, .skip = 100 },
		{ .lba = 0, .nlb = 2, .flags = HDC_EXT_ZERO },
		{ .lba = 200, .nlb = 300 },
		{ .lba = 31000, .nlb = 1, .skip = 511 },
		{ .lba = 7, .nlb = 4 },
	};
	uint64_t len = 4096 + 1436 + 1024 + 153600 + 1 + 2000;
	struct hdc_cmd c;
	struct hdc_cpl cpl;

	CHECK(setup());
	put_extents(EXT_SRC, x, 6);
	qt_memset(qt, HDST, 0xaa, len + 64);
	c = xfer(len, ep_nvme(EXT_SRC, 6), ep_host(HDST, len + 64));
	CHECK_EQ(run(&c, &cpl), HDC_ST_OK);
	CHECK_EQ(cpl.result, len);
	stream_of(x, 6, bufa, len);
	mem_read(HDST, bufb, len + 64);
	CHECK(!memcmp(bufa, bufb, len));
	CHECK_EQ(bufb[len], 0xaa);
	CHECK(rd(HDC_REG_STAT_NVME_CMDS) >= 5);
	CHECK(rd(HDC_REG_STAT_RD_KIB) >= len / 1024);
}

static void host_to_nvme_write(void)
{
	static const struct hdc_extent x[] = {
		{ .lba = 20000, .nlb = 50 },
		{ .lba = 21000, .nlb = 200 },
	};
	const uint32_t len = 100000;
	struct hdc_cmd c;
	struct hdc_cpl cpl;
	uint32_t wr_before;

	CHECK(setup());
	wr_before = rd(HDC_REG_STAT_WR_KIB);
	fill_random(bufa, len);
	mem_write(HSRC, bufa, len);
	put_extents(EXT_DST, x, 2);
	c = xfer(len, ep_host(HSRC, len), ep_nvme(EXT_DST, 2));
	CHECK_EQ(run(&c, &cpl), HDC_ST_OK);
	CHECK_EQ(cpl.result, len);
	/* 25600 bytes in the first extent, the rest in the second. */
	img_file(bufb, 20000 * 512, 25600);
	CHECK(!memcmp(bufb, bufa, 25600));
	img_file(bufb, 21000 * 512, 200 * 512);
	CHECK(!memcmp(bufb, bufa + 25600, len - 25600));
	/* The rest of the last block written is zeros, the next untouched. */
	CHECK(bufb[len - 25600] == 0 && bufb[146 * 512 - 1] == 0);
	CHECK(!memcmp(bufb + 146 * 512, img + (21000 + 146) * 512, 512));
	memcpy(img + 20000 * 512, bufa, 25600);
	memcpy(img + 21000 * 512, bufa + 25600, len - 25600);
	memset(img + 21000 * 512 + len - 25600, 0, 146 * 512 - (len - 25600));
	CHECK(rd(HDC_REG_STAT_WR_KIB) - wr_before >= 97);
}

static void nvme_to_nvme_holes_and_skip(void)
{
	static const struct hdc_extent src[] = {
		{ .lba = 3000, .nlb = 10, .skip = 300 },
		{ .lba = 0, .nlb = 3, .flags = HDC_EXT_ZERO },
		{ .lba = 4000, .nlb = 150 },
	};
	static const struct hdc_extent dst[] = {
		{ .lba = 25000, .nlb = 7 },
		{ .lba = 26000, .nlb = 300 },
	};
	const uint64_t len = 4820 + 1536 + 76800;
	struct hdc_cmd c;
	struct hdc_cpl cpl;

	CHECK(setup());
	put_extents(EXT_SRC, src, 3);
	put_extents(EXT_DST, dst, 2);
	stream_of(src, 3, bufa, len);
	c = xfer(len, ep_nvme(EXT_SRC, 3), ep_nvme(EXT_DST, 2));
	CHECK_EQ(run(&c, &cpl), HDC_ST_OK);
	CHECK_EQ(cpl.result, len);
	img_file(bufb, 25000 * 512, 7 * 512);
	CHECK(!memcmp(bufb, bufa, 7 * 512));
	img_file(bufb, 26000 * 512, 300 * 512);
	CHECK(!memcmp(bufb, bufa + 7 * 512, len - 7 * 512));
	memcpy(img + 25000 * 512, bufa, 7 * 512);
	memcpy(img + 26000 * 512, bufb, 300 * 512);
}

static void digest_known_answers(void)
{
	static const uint8_t md5_sha[] = { HDC_FN_MD5, HDC_FN_SHA256 };
	static const uint8_t crc[] = { HDC_FN_CRC32C };
	static const uint8_t sha[] = { HDC_FN_SHA256 };
	uint8_t want[32], got[HDC_MAX_FUNCS][32];
	struct hdc_cmd c;
	struct hdc_cpl cpl;

	CHECK(setup());
	mem_write(HSRC, "abc", 3);
	c = xfer(3, ep_host(HSRC, 3), ep_none());
	with_funcs(&c, md5_sha, 2);
	CHECK_EQ(run(&c, &cpl), HDC_ST_OK);
	CHECK_EQ(cpl.result, 3);
	mem_read(AUX + 48, got, sizeof(got));
	hex2bin("900150983cd24fb0d6963f7d28e17f72", want);
	CHECK(!memcmp(got[0], want, 16));
	hex2bin("ba7816bf8f01cfea414140de5dae2223"
		"b00361a396177a9cb410ff61f20015ad", want);
	CHECK(!memcmp(got[1], want, 32));

	mem_write(HSRC, "123456789", 9);
	c = xfer(9, ep_host(HSRC, 9), ep_none());
	with_funcs(&c, crc, 1);
	CHECK_EQ(run(&c, NULL), HDC_ST_OK);
	CHECK_EQ(qt_readl(qt, AUX + 48), 0xe3069283);

	/* The digest of nothing. */
	c = xfer(0, ep_host(HSRC, 0), ep_none());
	with_funcs(&c, sha, 1);
	CHECK_EQ(run(&c, &cpl), HDC_ST_OK);
	CHECK_EQ(cpl.result, 0);
	mem_read(AUX + 48, got, 32);
	hex2bin("e3b0c44298fc1c149afbf4c8996fb924"
		"27ae41e4649b934ca495991b7852b855", want);
	CHECK(!memcmp(got[0], want, 32));
}

static void aes256_ctr_nist_vector(void)
{
	static const uint8_t aes[] = { HDC_FN_AES256_CTR };
	uint8_t key_iv[48], pt[64], ct[64], got[64];
	struct hdc_cmd c;

	CHECK(setup());
	/* NIST SP 800-38A F.5.5 CTR-AES256.Encrypt */
	hex2bin("603deb1015ca71be2b73aef0857d7781"
		"1f352c073b6108d72d9810a30914dff4"
		"f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", key_iv);
	hex2bin("6bc1bee22e409f96e93d7e117393172a"
		"ae2d8a571e03ac9c9eb76fac45af8e51"
		"30c81c46a35ce411e5fbc1191a0a52ef"
		"f69f2445df4f9b17ad2b417be66c3710", pt);
	hex2bin("601ec313775789a5b7a7f504bbf3d228"
		"f443e3ca4d62b59aca84e990cacaf5c5"
		"2b0930daa23de94ce87017ba2d84988d"
		"dfc9c58db67aada613c2dd08457941a6", ct);
	mem_write(AUX, key_iv, 48);
	mem_write(HSRC, pt, 64);
	c = xfer(64, ep_host(HSRC, 64), ep_host(HDST, 64));
	with_funcs(&c, aes, 1);
	CHECK_EQ(run(&c, NULL), HDC_ST_OK);
	mem_read(HDST, got, 64);
	CHECK(!memcmp(got, ct, 64));
	/* F.5.6: decryption is the same operation. */
	mem_write(HSRC, ct, 64);
	CHECK_EQ(run(&c, NULL), HDC_ST_OK);
	mem_read(HDST, got, 64);
	CHECK(!memcmp(got, pt, 64));
}

static void deflate_round_trip(void)
{
	static const uint8_t defl[] = { HDC_FN_DEFLATE };
	static const struct hdc_extent x = { .lba = 8192, .nlb = 2048 };
	const uint32_t len = 1 << 20;
	struct hdc_cmd c;
	struct hdc_cpl cpl;
	uLongf out;
	size_t i;

	CHECK(setup());
	/* Compressible text from the host ... */
	for (i = 0; i < len; i++)
		bufa[i] = "the quick brown fox jumps over the lazy dog\n"
			[(i + i / 4096) % 44];
	mem_write(HSRC, bufa, len);
	c = xfer(len, ep_host(HSRC, len), ep_host(HDST, len));
	with_funcs(&c, defl, 1);
	CHECK_EQ(run(&c, &cpl), HDC_ST_OK);
	CHECK(cpl.result > 16 && cpl.result < len / 8);
	mem_read(HDST, bufb, cpl.result);
	out = len + 1;
	CHECK_EQ(uncompress(bufc, &out, bufb, cpl.result), Z_OK);
	CHECK_EQ(out, len);
	CHECK(!memcmp(bufa, bufc, len));
	/* ... and random data from the SSD, which deflate makes larger. */
	put_extents(EXT_SRC, &x, 1);
	c = xfer(len, ep_nvme(EXT_SRC, 1), ep_host(HDST, len + 4096));
	with_funcs(&c, defl, 1);
	CHECK_EQ(run(&c, &cpl), HDC_ST_OK);
	CHECK(cpl.result > len && cpl.result < len + 4096);
	mem_read(HDST, bufb, cpl.result);
	out = len + 1;
	CHECK_EQ(uncompress(bufc, &out, bufb, cpl.result), Z_OK);
	CHECK_EQ(out, len);
	CHECK(!memcmp(img + 8192 * 512, bufc, len));
	/* The same stream written to the SSD, padded to whole blocks. */
	{
		struct hdc_extent d = { .lba = 12288, .nlb = 2100 };
		uint64_t r = cpl.result;

		put_extents(EXT_DST, &d, 1);
		c = xfer(len, ep_nvme(EXT_SRC, 1), ep_nvme(EXT_DST, 1));
		with_funcs(&c, defl, 1);
		CHECK_EQ(run(&c, &cpl), HDC_ST_OK);
		CHECK_EQ(cpl.result, r);
		img_file(bufc, 12288 * 512, 2100 * 512);
		CHECK(!memcmp(bufb, bufc, r));
		for (i = r; i % 512; i++)
			CHECK_EQ(bufc[i], 0);
		memcpy(img + 12288 * 512, bufc, 2100 * 512);
	}
}

static void multichunk_1mib_digests(void)
{
	static const uint8_t f[] = { HDC_FN_SHA256, HDC_FN_CRC32C, HDC_FN_MD5 };
	/* A skip: every chunk boundary falls inside a block. */
	static const struct hdc_extent x[] = {
		{ .lba = 1000, .nlb = 1200, .skip = 77 },
		{ .lba = 10000, .nlb = 1000 },
	};
	const uint32_t len = 1 << 20;
	uint8_t got[HDC_MAX_FUNCS][32], want[32];
	struct sha256_ctx sha;
	struct md5_ctx md5;
	struct hdc_cmd c;
	struct hdc_cpl cpl;

	CHECK(setup());
	put_extents(EXT_SRC, x, 2);
	qt_memset(qt, AUX + 48, 0, 128);
	c = xfer(len, ep_nvme(EXT_SRC, 2), ep_host(HDST, len));
	with_funcs(&c, f, 3);
	CHECK_EQ(run(&c, &cpl), HDC_ST_OK);
	CHECK_EQ(cpl.result, len);
	stream_of(x, 2, bufa, len);
	mem_read(HDST, bufb, len);
	CHECK(!memcmp(bufa, bufb, len));
	mem_read(AUX + 48, got, sizeof(got));
	sha256_init(&sha);
	sha256_update(&sha, len, bufa);
	sha256_digest(&sha, 32, want);
	CHECK(!memcmp(got[0], want, 32));
	CHECK_EQ(*(uint32_t *)got[1], crc32c_ref(bufa, len));
	md5_init(&md5);
	md5_update(&md5, len, bufa);
	md5_digest(&md5, 16, want);
	CHECK(!memcmp(got[2], want, 16));
	CHECK(rd(HDC_REG_STAT_FN_KIB) >= 1024);
}

/*
 * SHA-1, IEEE CRC32 and gzip framing: known answers, a multi-chunk stream
 * from the SSD whose chunks end inside blocks, and a gzip member that
 * zlib's gzip decoder (inflateInit2 with 16 + MAX_WBITS) takes back,
 * checking its CRC32 and ISIZE trailer.
 */
static void sha1_crc32_gzip(void)
{
	static const uint8_t sha1[] = { HDC_FN_SHA1 };
	static const uint8_t crc[] = { HDC_FN_CRC32 };
	static const uint8_t f[] = { HDC_FN_SHA1, HDC_FN_CRC32, HDC_FN_GZIP,
				     HDC_FN_CRC32 };
	static const struct hdc_extent x[] = {
		{ .lba = 1000, .nlb = 1200, .skip = 77 },
		{ .lba = 10000, .nlb = 1000 },
	};
	const uint32_t len = 1 << 20;
	uint8_t got[HDC_MAX_FUNCS][32], want[32];
	struct sha1_ctx sha;
	struct hdc_cmd c;
	struct hdc_cpl cpl;
	z_stream zs = { 0 };

	CHECK(setup());
	CHECK_EQ(rd(HDC_REG_CAPS) & (HDC_CAP_SHA1 | HDC_CAP_CRC32 |
				     HDC_CAP_GZIP),
		 HDC_CAP_SHA1 | HDC_CAP_CRC32 | HDC_CAP_GZIP);
	mem_write(HSRC, "abc", 3);
	c = xfer(3, ep_host(HSRC, 3), ep_none());
	with_funcs(&c, sha1, 1);
	CHECK_EQ(run(&c, &cpl), HDC_ST_OK);
	mem_read(AUX + 48, got, sizeof(got));
	hex2bin("a9993e364706816aba3e25717850c26c9cd0d89d", want);
	CHECK(!memcmp(got[0], want, 20));

	mem_write(HSRC, "123456789", 9);
	c = xfer(9, ep_host(HSRC, 9), ep_none());
	with_funcs(&c, crc, 1);
	CHECK_EQ(run(&c, NULL), HDC_ST_OK);
	CHECK_EQ(qt_readl(qt, AUX + 48), 0xcbf43926);

	/* SHA-1 and CRC32 of the stream, gzip, CRC32 of the gzip member. */
	put_extents(EXT_SRC, x, 2);
	qt_memset(qt, AUX + 48, 0, 128);
	c = xfer(len, ep_nvme(EXT_SRC, 2), ep_host(HDST, len + 4096));
	with_funcs(&c, f, 4);
	CHECK_EQ(run(&c, &cpl), HDC_ST_OK);
	CHECK(cpl.result > len && cpl.result < len + 4096);
	stream_of(x, 2, bufa, len);
	mem_read(AUX + 48, got, sizeof(got));
	sha1_init(&sha);
	sha1_update(&sha, len, bufa);
	sha1_digest(&sha, 20, want);
	CHECK(!memcmp(got[0], want, 20));
	CHECK_EQ(*(uint32_t *)got[1], (uint32_t)crc32(0, bufa, len));
	mem_read(HDST, bufb, cpl.result);
	CHECK(bufb[0] == 0x1f && bufb[1] == 0x8b && bufb[2] == 8);
	CHECK_EQ(*(uint32_t *)got[3], (uint32_t)crc32(0, bufb, cpl.result));
	CHECK_EQ(inflateInit2(&zs, 16 + MAX_WBITS), Z_OK);
	zs.next_in = bufb;
	zs.avail_in = cpl.result;
	zs.next_out = bufc;
	zs.avail_out = len + 1;
	CHECK_EQ(inflate(&zs, Z_FINISH), Z_STREAM_END);
	CHECK_EQ(zs.total_out, len);
	CHECK_EQ(zs.avail_in, 0);
	inflateEnd(&zs);
	CHECK(!memcmp(bufa, bufc, len));
}

/*
 * sha256 -> deflate -> aes -> crc32c over an SSD source whose chunks are
 * not multiples of 16 bytes: the CTR keystream must carry across chunks.
 */
static void function_chain_misaligned(void)
{
	static const uint8_t f[] = { HDC_FN_SHA256, HDC_FN_DEFLATE,
				     HDC_FN_AES256_CTR, HDC_FN_CRC32C };
	static const uint8_t aes[] = { HDC_FN_AES256_CTR };
	static const struct hdc_extent x[] = {
		{ .lba = 600, .nlb = 700, .skip = 13 },
		{ .lba = 9000, .nlb = 5, .skip = 3 },
		{ .lba = 0, .nlb = 1, .flags = HDC_EXT_ZERO },
		{ .lba = 9100, .nlb = 200, .skip = 250 },
	};
	const uint32_t len = 358387 + 2557 + 512 + 50000;
	uint8_t key_iv[48], got[HDC_MAX_FUNCS][32], want[32];
	struct sha256_ctx sha;
	struct hdc_cmd c;
	struct hdc_cpl cpl;
	uLongf out;

	CHECK(setup());
	fill_random(key_iv, 48);
	key_iv[47] = 0xfe;	/* the counter's low bytes wrap early */
	key_iv[46] = 0xff;
	mem_write(AUX, key_iv, 48);
	put_extents(EXT_SRC, x, 4);
	stream_of(x, 4, bufa, len);

	/* AES alone: byte-exact against nettle. */
	c = xfer(len, ep_nvme(EXT_SRC, 4), ep_host(HDST, len));
	with_funcs(&c, aes, 1);
	CHECK_EQ(run(&c, &cpl), HDC_ST_OK);
	mem_read(HDST, bufb, len);
	aes_ctr_ref(key_iv, key_iv + 32, bufa, bufc, len);
	CHECK(!memcmp(bufb, bufc, len));

	/* The whole chain. */
	c = xfer(len, ep_nvme(EXT_SRC, 4), ep_host(HDST, 2 * len));
	with_funcs(&c, f, 4);
	CHECK_EQ(run(&c, &cpl), HDC_ST_OK);
	CHECK(cpl.result > len / 2 && cpl.result < len + 1024);
	mem_read(HDST, bufb, cpl.result);
	mem_read(AUX + 48, got, sizeof(got));
	sha256_init(&sha);
	sha256_update(&sha, len, bufa);
	sha256_digest(&sha, 32, want);
	CHECK(!memcmp(got[0], want, 32));
	CHECK_EQ(*(uint32_t *)got[3], crc32c_ref(bufb, cpl.result));
	aes_ctr_ref(key_iv, key_iv + 32, bufb, bufc, cpl.result);
	out = len + 1;
	CHECK_EQ(uncompress(bufb, &out, bufc, cpl.result), Z_OK);
	CHECK_EQ(out, len);
	CHECK(!memcmp(bufa, bufb, len));
}

/*
 * 63 commands at once (a full ring) held in the scoreboard by a full
 * completion ring, then released: completions in submission order.
 */
/* Post @n commands with one doorbell; true if each completed OK in order. */
/* ---- the engine's NIC queues, the test playing the snic ---- */

#define NIC_FLOW	0x105000ull	/* struct hdc_net_flow */
#define NIC_DB		0x106000ull	/* where the engine's doorbell lands */
#define NIC_SQN		5

static struct hdc_endpoint ep_nic(uint64_t flow)
{
	struct hdc_endpoint e = { .type = HDC_EP_NIC, .addr = flow };
	return e;
}

/* A UDP flow, mss bytes per datagram, IPv4 id 0x1234 first. */
static void put_flow(uint16_t mss, uint8_t proto, uint8_t hdr_len)
{
	struct hdc_net_flow f = { .proto = proto, .hdr_len = hdr_len,
				  .l3_off = 14, .l4_off = 34, .mss = mss };
	unsigned int i;

	for (i = 0; i < HDC_NET_HDR_MAX; i++)
		f.hdr[i] = 0x40 + i;
	f.hdr[12] = 0x08;
	f.hdr[13] = 0x00;
	f.hdr[14] = 0x45;
	f.hdr[18] = 0x12;	/* id */
	f.hdr[19] = 0x34;
	qt_memwrite(qt, NIC_FLOW, &f, sizeof(f));
}

/* Until the engine rang the doorbell with producer counter @pi. */
static bool nic_db_is(uint16_t pi)
{
	int i;

	for (i = 0; i < 100000; i++) {
		if (qt_readl(qt, NIC_DB) == ((uint32_t)NIC_SQN << 16 | pi))
			return true;
		if (i % 256 == 255 && !qt_alive(qt))
			return false;
	}
	return false;
}

/* The NIC's CQE number @n for the WQE at basic block @bb. */
static void nic_cqe(uint16_t n, uint16_t bb, uint8_t opcode)
{
	struct snic_cqe q = { .wqe_counter = bb, .qn = NIC_SQN,
			      .opcode = opcode };

	q.op_own = !((n >> HDC_NIC_CQ_LOG) & 1);
	qt_memwrite(qt, BAR4_BASE + HDC_NVMEQ_NIC_CQ +
		    (uint64_t)(n % (1u << HDC_NIC_CQ_LOG)) * 64, &q, sizeof(q));
}

/*
 * The WQEs the engine posts for a 3000-byte stream at mss 1000: one
 * signaled ETH_SEND of two basic blocks per datagram, checksum offloads
 * asked for, the template inlined with IPv4 total length and id and UDP
 * length filled in, the payload in a BAR2 chunk; TX CQEs complete the
 * command, an error CQE fails one with HDC_ST_ENET, disabling the queues
 * fails what is at the NIC; bad flows are EINVAL, a NIC source with the
 * receive queues off ENODEV (nic_rx_as_seen_by_the_nic), a NIC
 * destination before the queues are enabled ENODEV.
 */
static void nic_queues_as_seen_by_the_nic(void)
{
	uint8_t wqe[128], tmpl[42], want[42];
	struct hdc_cmd c;
	struct hdc_cpl cpl;
	uint32_t i, err0;

	CHECK(setup());
	fill_random(bufa, 3000);
	mem_write(HSRC, bufa, 3000);
	put_flow(1000, HDC_NET_UDP, 42);
	qt_memread(qt, NIC_FLOW + 32, tmpl, sizeof(tmpl));
	c = xfer(3000, ep_host(HSRC, 3000), ep_nic(NIC_FLOW));
	CHECK_EQ(rd(HDC_REG_NIC_STATUS), 0);
	CHECK_EQ(run(&c, NULL), HDC_ST_ENODEV);

	/* Enable needs the doorbell address first. */
	err0 = rd(HDC_REG_ERROR_COUNT);
	wr(HDC_REG_NIC_CTRL, HDC_NIC_ENABLE);
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_BAD_REG);
	CHECK_EQ(rd(HDC_REG_ERROR_COUNT), err0 + 1);
	wr(HDC_REG_ERROR, 0);
	wr(HDC_REG_NIC_SQN, NIC_SQN);
	wr(HDC_REG_NIC_DB_LO, NIC_DB);
	wr(HDC_REG_NIC_DB_HI, 0);
	wr(HDC_REG_NIC_CTRL, HDC_NIC_ENABLE);
	CHECK_EQ(rd(HDC_REG_NIC_STATUS), 1);
	wr(HDC_REG_NIC_SQN, 6);		/* refused while in use */
	CHECK_EQ(rd(HDC_REG_NIC_SQN), NIC_SQN);
	wr(HDC_REG_ERROR, 0);

	post(&c);
	CHECK(nic_db_is(6));
	CHECK_EQ(qt_readl(qt, BAR4_BASE + HDC_NVMEQ_NIC_DBR), 6);
	for (i = 0; i < 3; i++) {
		struct snic_wqe_ctrl *wc = (void *)wqe;
		struct snic_wqe_eth *we = (void *)(wqe + 16);
		struct snic_wqe_data *wd = (void *)(wqe + 64);
		uint8_t *hdr = wqe + 22;	/* eth inline_hdr, then segments */

		qt_memread(qt, BAR4_BASE + HDC_NVMEQ_NIC_SQ + i * 128, wqe, 128);
		CHECK_EQ(wc->opcode, SNIC_WQE_ETH_SEND);
		CHECK_EQ(wc->flags, SNIC_WQE_F_SIGNAL);
		CHECK_EQ(wc->wqe_idx, 2 * i);
		CHECK_EQ(wc->ds_cnt, 5);
		CHECK_EQ(we->cs_flags, SNIC_ETH_CS_L3 | SNIC_ETH_CS_L4);
		CHECK_EQ(we->inline_hdr_sz, 42);
		memcpy(want, tmpl, 42);
		want[16] = 1028 >> 8;	/* IPv4 total length */
		want[17] = 1028 & 0xff;
		want[19] = 0x34 + i;	/* id */
		want[38] = 1008 >> 8;	/* UDP length */
		want[39] = 1008 & 0xff;
		want[40] = 0;		/* UDP checksum: the NIC's */
		want[41] = 0;
		CHECK(!memcmp(hdr, want, 10));
		CHECK(!memcmp(wqe + 32, want + 10, 32));
		CHECK_EQ(wd->byte_count, 1000);
		CHECK_EQ(wd->lkey, 0);
		CHECK(wd->addr >= BAR2_BASE && wd->addr < BAR2_BASE + (64u << 20));
		mem_read(wd->addr, bufb, 1000);
		CHECK(!memcmp(bufb, bufa + i * 1000, 1000));
	}
	CHECK(!peek_cpl(&cpl));		/* not before the NIC's CQEs */
	for (i = 0; i < 3; i++)
		nic_cqe(i, 2 * i, SNIC_CQE_TX);
	CHECK(wait_cpl(&cpl));
	CHECK_EQ(cpl.status, HDC_ST_OK);
	CHECK_EQ(cpl.result, 3000);
	CHECK_EQ(qt_readl(qt, BAR4_BASE + HDC_NVMEQ_NIC_DBR + 4), 3);
	CHECK_EQ(rd(HDC_REG_STAT_NIC_TX), 3);

	/* An error CQE fails the command. */
	c = xfer(1000, ep_host(HSRC, 1000), ep_nic(NIC_FLOW));
	post(&c);
	CHECK(nic_db_is(8));
	nic_cqe(3, 6, SNIC_CQE_TX_ERR);
	CHECK(wait_cpl(&cpl));
	CHECK_EQ(cpl.status, HDC_ST_ENET);
	CHECK_EQ(rd(HDC_REG_STAT_NIC_ERRS), 1);

	/* Bad flows and a NIC source. */
	put_flow(1000, 6, 42);
	CHECK_EQ(run(&c, NULL), HDC_ST_EINVAL);
	put_flow(1000, HDC_NET_UDP, 41);
	CHECK_EQ(run(&c, NULL), HDC_ST_EINVAL);
	put_flow(0, HDC_NET_UDP, 42);
	CHECK_EQ(run(&c, NULL), HDC_ST_EINVAL);
	put_flow(HDC_NET_MSS_MAX + 1, HDC_NET_UDP, 42);
	CHECK_EQ(run(&c, NULL), HDC_ST_EINVAL);
	put_flow(1000, HDC_NET_UDP, 42);
	c = xfer(1000, ep_nic(NIC_FLOW), ep_host(HDST, 1000));
	CHECK_EQ(run(&c, NULL), HDC_ST_ENODEV);	/* receive queues off */

	/* Disabling the queues fails what is at the NIC. */
	c = xfer(1000, ep_host(HSRC, 1000), ep_nic(NIC_FLOW));
	post(&c);
	CHECK(nic_db_is(10));
	wr(HDC_REG_NIC_CTRL, HDC_NIC_DISABLE);
	CHECK(wait_cpl(&cpl));
	CHECK_EQ(cpl.status, HDC_ST_ENET);
	CHECK_EQ(rd(HDC_REG_NIC_STATUS), 0);
	CHECK_EQ(run(&c, NULL), HDC_ST_ENODEV);
}

/* ---- the engine's receive queues, the test playing the snic ---- */

static void rx_put(const uint8_t *f, uint32_t len, uint16_t flags);

#define NIC_RX		0x107000ull	/* struct hdc_net_rx */
#define RX_PORT		9100
#define RX_IP		0x0a000001	/* 10.0.0.1 */

static uint16_t rx_cqe_n;		/* the next receive CQE */
static uint16_t rx_desc, rx_stride;	/* where the next frame lands */

static void put_rx(uint16_t port)
{
	struct hdc_net_rx r = { .proto = HDC_NET_UDP, .dst_port = htons(port),
				.dst_ip = htonl(RX_IP) };

	qt_memwrite(qt, NIC_RX, &r, sizeof(r));
}

/* Descriptor @d's buffer, as the engine posted it in BAR4. */
static uint64_t rx_buf(uint16_t d)
{
	return qt_readq(qt, BAR4_BASE + HDC_NVMEQ_NIC_RQ +
			(d % (1u << HDC_NIC_RQ_LOG)) * 16 + 8);
}

/*
 * A frame as the snic delivers it: Ethernet, IPv4, UDP to @port, @magic
 * header saying @hlen bytes at @off, @plen payload bytes of @data, into
 * the next strides, then its CQE (@flags added).
 */
static void rx_frame(uint16_t port, uint32_t magic, uint32_t hlen,
		     uint64_t off, const uint8_t *data, uint32_t plen,
		     uint16_t flags)
{
	uint8_t f[2048] = { 0 };
	uint32_t len = 14 + 20 + 8 + 16 + plen, m = htonl(magic);
	uint32_t hl = htonl(hlen), dip = htonl(RX_IP);
	uint64_t o = htobe64(off);
	uint16_t v;

	f[12] = 0x08;
	f[14] = 0x45;
	v = htons(len - 14);
	memcpy(f + 16, &v, 2);
	f[23] = 17;
	memcpy(f + 30, &dip, 4);
	v = htons(4000);
	memcpy(f + 34, &v, 2);
	v = htons(port);
	memcpy(f + 36, &v, 2);
	v = htons(len - 34);
	memcpy(f + 38, &v, 2);
	memcpy(f + 42, &m, 4);
	memcpy(f + 46, &hl, 4);
	memcpy(f + 50, &o, 8);
	memcpy(f + 58, data, plen);
	rx_put(f, len, SNIC_CQE_F_UDP | flags);
}

/* Frame @f of @len bytes into the next stride, then its CQE (@flags). */
static void rx_put(const uint8_t *f, uint32_t len, uint16_t flags)
{
	struct snic_cqe q = { .opcode = SNIC_CQE_RX, .qn = 7 };

	mem_write(rx_buf(rx_desc) + rx_stride * 2048u, f, len);
	q.byte_cnt = len;
	q.wqe_counter = rx_desc;
	q.stride_idx = rx_stride;
	q.num_strides = 1;
	q.flags = SNIC_CQE_F_L3_OK | SNIC_CQE_F_L4_OK | SNIC_CQE_F_IPV4 |
		  flags;
	if (++rx_stride == 1u << HDC_NIC_RX_LOG_NSTR) {
		q.flags |= SNIC_CQE_F_MPW_LAST;
		rx_stride = 0;
		rx_desc++;
	}
	q.op_own = !((rx_cqe_n >> HDC_NIC_RCQ_LOG) & 1);
	qt_memwrite(qt, BAR4_BASE + HDC_NVMEQ_NIC_RCQ +
		    (uint64_t)(rx_cqe_n % (1u << HDC_NIC_RCQ_LOG)) * 64, &q,
		    sizeof(q));
	rx_cqe_n++;
}

/* A good datagram of @len bytes of bufa at @off. */
static void rx_data(uint64_t off, uint32_t len)
{
	rx_frame(RX_PORT, HDC_RX_MAGIC, len, off, bufa + off, len, 0);
}

static struct hdc_net_rx rx_report(void)
{
	struct hdc_net_rx r;

	qt_memread(qt, NIC_RX, &r, sizeof(r));
	return r;
}

/*
 * The receive side with the test as the snic: HDC_NIC_RX_ENABLE posts
 * 2^HDC_NIC_RQ_LOG descriptors of one BAR2 chunk each and the producer
 * record; datagrams (struct hdc_rx_hdr after UDP) land in 2 KiB strides,
 * the engine places their payloads by offset into the command's output
 * (here host memory, through crc32c: the CRC of the bytes received) and
 * reports what it got; malformed frames, other ports, duplicates and
 * offsets past the end are dropped and counted; a skipped offset ends the
 * command with HDC_ST_EGAP naming the missing bytes; a descriptor whose
 * last stride was consumed is posted again; HDC_NIC_RX_ABORT fails a
 * receive with HDC_ST_EABORT, HDC_NIC_RX_DISABLE with HDC_ST_ENET.
 */
static void nic_rx_as_seen_by_the_nic(void)
{
	const uint8_t crc[] = { HDC_FN_CRC32C };
	struct hdc_cmd c;
	struct hdc_cpl cpl;
	struct hdc_net_rx r;
	uint32_t i, drop0;

	CHECK(setup());
	fill_random(bufa, 70000);
	put_rx(RX_PORT);
	c = xfer(3000, ep_nic(NIC_RX), ep_host(HDST, 3000));
	with_funcs(&c, crc, 1);
	CHECK_EQ(rd(HDC_REG_NIC_RX_STATUS), 0);
	CHECK_EQ(run(&c, NULL), HDC_ST_ENODEV);

	wr(HDC_REG_NIC_RX_CTRL, HDC_NIC_RX_ENABLE);
	CHECK_EQ(rd(HDC_REG_NIC_RX_STATUS), 1);
	CHECK_EQ(qt_readl(qt, BAR4_BASE + HDC_NVMEQ_NIC_DBR + 8),
		 1u << HDC_NIC_RQ_LOG);
	for (i = 0; i < 1u << HDC_NIC_RQ_LOG; i++) {
		uint64_t a = rx_buf(i);

		CHECK_EQ(qt_readl(qt, BAR4_BASE + HDC_NVMEQ_NIC_RQ + i * 16),
			 HDC_CHUNK_SIZE);
		CHECK(a >= BAR2_BASE && a < BAR2_BASE + (64u << 20));
		CHECK_EQ(a % HDC_CHUNK_SIZE, 0);
		CHECK(!i || a != rx_buf(i - 1));
	}
	rx_cqe_n = rx_desc = rx_stride = 0;

	/* 3000 bytes in three datagrams, hostile ones among them. */
	drop0 = rd(HDC_REG_STAT_NIC_RX_DROP);
	post(&c);
	rx_frame(RX_PORT, HDC_RX_MAGIC ^ 1, 100, 0, bufa, 100, 0);
	rx_frame(RX_PORT, HDC_RX_MAGIC, 101, 0, bufa, 100, 0);
	rx_frame(RX_PORT + 1, HDC_RX_MAGIC, 100, 0, bufa, 100, 0);
	rx_frame(RX_PORT, HDC_RX_MAGIC, 100, 0, bufa, 100,
		 SNIC_CQE_F_L4_BAD);
	rx_frame(RX_PORT, HDC_RX_MAGIC, 100, 2950, bufa, 100, 0);
	rx_data(0, 1000);
	rx_data(0, 1000);			/* duplicate */
	rx_data(1000, 1000);
	CHECK(!peek_cpl(&cpl));			/* not before the last byte */
	rx_data(2000, 1000);
	CHECK(wait_cpl(&cpl));
	CHECK_EQ(cpl.status, HDC_ST_OK);
	CHECK_EQ(cpl.result, 3000);
	mem_read(HDST, bufb, 3000);
	CHECK(!memcmp(bufa, bufb, 3000));
	CHECK_EQ(qt_readl(qt, AUX + 48), crc32c_ref(bufa, 3000));
	r = rx_report();
	CHECK_EQ(r.received, 3000);
	CHECK_EQ(r.datagrams, 3);
	CHECK_EQ(r.dropped, 6);
	CHECK_EQ(r.gap_hi, 0);
	CHECK_EQ(rd(HDC_REG_STAT_NIC_RX), 3);
	CHECK_EQ(rd(HDC_REG_STAT_NIC_RX_DROP) - drop0, 6);
	CHECK_EQ(qt_readl(qt, BAR4_BASE + HDC_NVMEQ_NIC_DBR + 12), rx_cqe_n);

	/* 70000 bytes across two chunks and a descriptor's last stride. */
	c = xfer(70000, ep_nic(NIC_RX), ep_host(HDST, 70000));
	with_funcs(&c, crc, 1);
	post(&c);
	for (i = 0; i < 70000; i += 1400)
		rx_data(i, 1400);
	CHECK(wait_cpl(&cpl));
	CHECK_EQ(cpl.status, HDC_ST_OK);
	mem_read(HDST, bufb, 70000);
	CHECK(!memcmp(bufa, bufb, 70000));
	CHECK_EQ(qt_readl(qt, AUX + 48), crc32c_ref(bufa, 70000));
	CHECK_EQ(qt_readl(qt, BAR4_BASE + HDC_NVMEQ_NIC_DBR + 8),
		 (1u << HDC_NIC_RQ_LOG) + rx_desc);
	CHECK(rx_desc >= 1);

	/* A lost datagram: HDC_ST_EGAP, the missing bytes reported. */
	c = xfer(3000, ep_nic(NIC_RX), ep_host(HDST, 3000));
	post(&c);
	rx_data(0, 1000);
	rx_data(2000, 1000);
	CHECK(wait_cpl(&cpl));
	CHECK_EQ(cpl.status, HDC_ST_EGAP);
	r = rx_report();
	CHECK_EQ(r.received, 1000);
	CHECK_EQ(r.gap_lo, 1000);
	CHECK_EQ(r.gap_hi, 2000);

	/* Abort (the driver's timeout), then disable. */
	post(&c);
	rx_data(0, 1000);
	wr(HDC_REG_NIC_RX_CTRL, HDC_NIC_RX_ABORT);
	CHECK(wait_cpl(&cpl));
	CHECK_EQ(cpl.status, HDC_ST_EABORT);
	CHECK_EQ(rx_report().received, 1000);
	post(&c);
	wr(HDC_REG_NIC_RX_CTRL, HDC_NIC_RX_DISABLE);
	CHECK(wait_cpl(&cpl));
	CHECK_EQ(cpl.status, HDC_ST_ENET);
	CHECK_EQ(rd(HDC_REG_NIC_RX_STATUS), 0);
	CHECK_EQ(run(&c, NULL), HDC_ST_ENODEV);

	/* A bad hdc_net_rx. */
	wr(HDC_REG_NIC_RX_CTRL, HDC_NIC_RX_ENABLE);
	put_rx(0);
	CHECK_EQ(run(&c, NULL), HDC_ST_EINVAL);
	wr(HDC_REG_NIC_RX_CTRL, HDC_NIC_RX_DISABLE);
}

/* ---- the engine's TCP sender, the test playing the snic and the peer ---- */

#define NIC_RQDB	0x106100ull	/* where the engine's RQ doorbell lands */
#define NIC_RQN		7
#define TCP_ISS		0x10000000u
#define TCP_ACK		0x20000000u
#define TCP_TSVAL	0xaaaa0001u
#define TCP_HL		66		/* Ethernet, IPv4, TCP, NOP NOP TS */

static void stl_be(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t ldl_le(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t ldq_le(const uint8_t *p)
{
	return ldl_le(p) | (uint64_t)ldl_le(p + 4) << 32;
}

static uint16_t tcp_cqe_n;		/* TX CQEs written */
static uint16_t tcp_bb;			/* basic blocks completed */
static uint16_t tcp_rx_n;		/* RX CQEs written */

static void put_tcp_flow_at(uint64_t at, uint32_t wnd, uint8_t retries);

/* A TCP flow at mss 1000: the peer's window @wnd, first RTO 200 ms. */
static void put_tcp_flow(uint32_t wnd, uint8_t retries)
{
	put_tcp_flow_at(NIC_FLOW, wnd, retries);
}

/* The same flow at @at: 10.0.0.1:0x1111 to 10.0.0.2:0x2222. */
static void put_tcp_flow_at(uint64_t at, uint32_t wnd, uint8_t retries)
{
	struct hdc_net_flow f = { .proto = HDC_NET_TCP, .hdr_len = TCP_HL,
				  .l3_off = 14, .l4_off = 34, .mss = 1000,
				  .rto_ms = 200, .flags = HDC_NET_F_TS,
				  .snd_wnd = wnd, .max_retries = retries };
	static const uint8_t h[TCP_HL] = {
		2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00,
		0x45, 0, 0, 0, 0x12, 0x34, 0x40, 0, 64, 6, 0, 0,
		10, 0, 0, 1, 10, 0, 0, 2,
		0x11, 0x11, 0x22, 0x22, 0x10, 0, 0, 0, 0x20, 0, 0, 0,
		0x80, 0x18, 0x04, 0x00, 0, 0, 0, 0,
		1, 1, 8, 10, 0xaa, 0xaa, 0, 1, 0xbb, 0xbb, 0, 1,
	};

	memcpy(f.hdr, h, sizeof(h));
	qt_memwrite(qt, at, &f, sizeof(f));
}

/* The header of the frame at basic block @bb (into @hdr); its WQE. */
static void tcp_wqe(uint16_t bb, uint8_t *hdr, uint8_t *wqe)
{
	qt_memread(qt, BAR4_BASE + HDC_NVMEQ_NIC_SQ + (uint64_t)bb * 64, wqe,
		   128);
	memcpy(hdr, wqe + 22, 10);
	memcpy(hdr + 10, wqe + 32, TCP_HL - 10);
}

/* The segment at basic block @bb: its sequence number, flags, payload. */
static void tcp_seg(uint16_t bb, uint32_t *seq, uint8_t *flags,
		    uint32_t *plen, uint64_t *addr)
{
	uint8_t wqe[128], hdr[TCP_HL];
	struct snic_wqe_ctrl *wc = (void *)wqe;
	struct snic_wqe_data *wd = (void *)(wqe + 16 * 6);

	tcp_wqe(bb, hdr, wqe);
	*seq = (uint32_t)hdr[38] << 24 | hdr[39] << 16 | hdr[40] << 8 | hdr[41];
	*flags = hdr[47];
	*plen = wc->ds_cnt == 7 ? wd->byte_count : 0;
	*addr = wd->addr;
}

/* The NIC sent every WQE up to producer counter @pi. */
static void tcp_tx_done(uint16_t pi)
{
	while (tcp_bb != pi) {
		nic_cqe(tcp_cqe_n++, tcp_bb, SNIC_CQE_TX);
		tcp_bb += 2;
	}
}

/* The peer's segment to the engine's RQ: ack @ack, window @wnd, @flags. */
static void tcp_rx(uint32_t seq, uint32_t ack, uint16_t wnd, uint8_t flags,
		   uint32_t tsval)
{
	uint8_t f[66] = {
		2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00,
		0x45, 0, 0, 52, 0, 0, 0x40, 0, 64, 6, 0, 0,
		10, 0, 0, 2, 10, 0, 0, 1,
		0x22, 0x22, 0x11, 0x11, 0, 0, 0, 0, 0, 0, 0, 0,
		0x80, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 8, 10, 0, 0, 0, 0, 0xaa, 0xaa, 0, 1,
	};
	struct snic_cqe q = { .wqe_counter = tcp_rx_n, .qn = NIC_RQN,
			      .opcode = SNIC_CQE_RX, .byte_cnt = sizeof(f) };
	unsigned int i = tcp_rx_n % (1u << HDC_NIC_ARQ_LOG);

	stl_be(f + 38, seq);
	stl_be(f + 42, ack);
	f[47] = flags;
	f[48] = wnd >> 8;
	f[49] = wnd & 0xff;
	stl_be(f + 58, tsval);
	qt_memwrite(qt, BAR4_BASE + HDC_NVMEQ_NIC_ARXBUF +
		    (uint64_t)i * HDC_NIC_ARXBUF_SIZE, f, sizeof(f));
	q.op_own = !((tcp_rx_n >> HDC_NIC_ARQ_LOG) & 1);
	qt_memwrite(qt, BAR4_BASE + HDC_NVMEQ_NIC_ARCQ + (uint64_t)i * 64, &q,
		    sizeof(q));
	tcp_rx_n++;
}

/* Until the RX CQ's consumer record says @n. */
static bool tcp_rx_consumed(uint16_t n)
{
	int i;

	for (i = 0; i < 100000; i++) {
		if (qt_readl(qt, BAR4_BASE + HDC_NVMEQ_NIC_DBR + 20) == n)
			return true;
		if (i % 256 == 255 && !qt_alive(qt))
			return false;
	}
	return false;
}

/*
 * The TCP sender: segments with the sequence numbers, ack, window and
 * timestamps of the template, as many as the peer's window allows; no
 * completion before the last byte is acked; an ACK opens the window,
 * three duplicate ACKs retransmit the first unacked segment; the state
 * goes back into the flow.  The retransmission timer resends, then
 * fails the command with ETIMEDOUT and an RST; a peer RST is ECONNRESET.
 * No receive queue: ENODEV.
 */
static void tcp_sender_as_seen_by_the_nic(void)
{
	struct hdc_net_flow out;
	struct hdc_cmd c;
	struct hdc_cpl cpl;
	uint32_t i, seq, plen, ack;
	uint64_t addr;
	uint8_t fl;
	uint8_t rqd[16];

	CHECK(setup());
	tcp_cqe_n = tcp_bb = tcp_rx_n = 0;
	fill_random(bufa, 5000);
	mem_write(HSRC, bufa, 5000);
	CHECK(rd(HDC_REG_CAPS) & HDC_CAP_TCP);
	wr(HDC_REG_NIC_SQN, NIC_SQN);
	wr(HDC_REG_NIC_DB_LO, NIC_DB);
	wr(HDC_REG_NIC_DB_HI, 0);
	wr(HDC_REG_NIC_CTRL, HDC_NIC_ENABLE);
	put_tcp_flow(3000, 2);
	c = xfer(5000, ep_host(HSRC, 5000), ep_nic(NIC_FLOW));
	CHECK_EQ(run(&c, NULL), HDC_ST_ENODEV);	/* no receive queue */
	wr(HDC_REG_NIC_CTRL, HDC_NIC_DISABLE);
	CHECK_EQ(run(&c, NULL), HDC_ST_ENODEV);

	wr(HDC_REG_NIC_SQN, NIC_SQN);		/* the disable forgot them */
	wr(HDC_REG_NIC_DB_LO, NIC_DB);
	wr(HDC_REG_NIC_ARQN, NIC_RQN);
	wr(HDC_REG_NIC_ARQ_DB_LO, NIC_RQDB);
	wr(HDC_REG_NIC_ARQ_DB_HI, 0);
	wr(HDC_REG_NIC_CTRL, HDC_NIC_ENABLE);
	CHECK_EQ(qt_readl(qt, NIC_RQDB), (uint32_t)NIC_RQN << 16 | 16);
	qt_memread(qt, BAR4_BASE + HDC_NVMEQ_NIC_ARQ + 5 * 16, rqd, 16);
	CHECK_EQ(ldl_le(rqd), HDC_NIC_ARXBUF_SIZE);
	CHECK_EQ(ldq_le(rqd + 8), BAR4_BASE + HDC_NVMEQ_NIC_ARXBUF + 5 * 2048);

	/* Three segments fit the window of 3000 bytes. */
	post(&c);
	CHECK(nic_db_is(6));
	for (i = 0; i < 3; i++) {
		tcp_seg(2 * i, &seq, &fl, &plen, &addr);
		CHECK_EQ(seq, TCP_ISS + 1000 * i);
		CHECK_EQ(fl, 0x18);
		CHECK_EQ(plen, 1000);
		mem_read(addr, bufb, 1000);
		CHECK(!memcmp(bufb, bufa + i * 1000, 1000));
	}
	tcp_tx_done(6);
	CHECK(!peek_cpl(&cpl));		/* sent is not acked */

	/* An ACK of two segments: two more go. */
	tcp_rx(TCP_ACK, TCP_ISS + 2000, 3000, 0x10, 0xcc000001);
	CHECK(nic_db_is(10));
	tcp_seg(6, &seq, &fl, &plen, &addr);
	CHECK_EQ(seq, TCP_ISS + 3000);
	tcp_seg(8, &seq, &fl, &plen, &addr);
	CHECK_EQ(seq, TCP_ISS + 4000);
	tcp_tx_done(10);

	/* Three duplicate ACKs: the segment at 2000 again. */
	for (i = 0; i < 3; i++)
		tcp_rx(TCP_ACK, TCP_ISS + 2000, 3000, 0x10, 0xcc000002);
	CHECK(nic_db_is(12));
	tcp_seg(10, &seq, &fl, &plen, &addr);
	CHECK_EQ(seq, TCP_ISS + 2000);
	CHECK_EQ(plen, 1000);
	CHECK_EQ(rd(HDC_REG_STAT_TCP_REXMIT), 1);
	tcp_tx_done(12);
	CHECK(!peek_cpl(&cpl));

	/* All acked: done, the state back in the flow. */
	tcp_rx(TCP_ACK, TCP_ISS + 5000, 2000, 0x10, 0xcc000003);
	CHECK(wait_cpl(&cpl));
	CHECK_EQ(cpl.status, HDC_ST_OK);
	CHECK_EQ(cpl.result, 5000);
	qt_memread(qt, NIC_FLOW, &out, sizeof(out));
	CHECK_EQ(out.snd_una, TCP_ISS + 5000);
	CHECK_EQ(out.snd_max, TCP_ISS + 5000);
	CHECK_EQ(out.snd_wnd, 2000);
	CHECK_EQ(out.ts_recent, 0xcc000003);
	CHECK(out.out_flags & HDC_NET_OUT_STATE);
	CHECK_EQ(rd(HDC_REG_STAT_TCP_ACKS), 5);
	CHECK(tcp_rx_consumed(5));

	/* An ACK of bytes never sent is ignored. */
	put_tcp_flow(3000, 2);
	c = xfer(1000, ep_host(HSRC, 1000), ep_nic(NIC_FLOW));
	post(&c);
	CHECK(nic_db_is(14));
	tcp_tx_done(14);
	tcp_rx(TCP_ACK, TCP_ISS + 9000, 3000, 0x10, 0xcc000004);
	CHECK(tcp_rx_consumed(6));
	CHECK(!peek_cpl(&cpl));

	/* No ACK: the timer resends, then gives up with an RST. */
	qt_clock_step(qt, 200 * 1000 * 1000);
	CHECK(nic_db_is(16));
	tcp_seg(14, &seq, &fl, &plen, &addr);
	CHECK_EQ(seq, TCP_ISS);
	CHECK_EQ(plen, 1000);
	CHECK_EQ(rd(HDC_REG_STAT_TCP_RTO), 1);
	tcp_tx_done(16);
	qt_clock_step(qt, 400 * 1000 * 1000);
	CHECK(nic_db_is(18));
	tcp_tx_done(18);
	qt_clock_step(qt, 800 * 1000 * 1000);
	CHECK(wait_cpl(&cpl));
	CHECK_EQ(cpl.status, HDC_ST_ETIMEDOUT);
	CHECK(nic_db_is(20));
	tcp_seg(18, &seq, &fl, &plen, &addr);
	CHECK_EQ(fl, 0x14);			/* RST ACK */
	CHECK_EQ(seq, TCP_ISS + 1000);
	CHECK_EQ(plen, 0);
	tcp_tx_done(20);
	qt_memread(qt, NIC_FLOW, &out, sizeof(out));
	CHECK_EQ(out.snd_una, TCP_ISS);
	CHECK_EQ(out.snd_max, TCP_ISS + 1000);

	/* The peer resets: ECONNRESET, no RST of ours. */
	put_tcp_flow(3000, 2);
	post(&c);
	CHECK(nic_db_is(22));
	tcp_tx_done(22);
	ack = TCP_ISS;
	tcp_rx(TCP_ACK + 1, ack, 0, 0x04, 0);	/* not at rcv_nxt: ignored */
	CHECK(tcp_rx_consumed(7));
	CHECK(!peek_cpl(&cpl));
	tcp_rx(TCP_ACK, ack, 0, 0x04, 0);
	CHECK(wait_cpl(&cpl));
	CHECK_EQ(cpl.status, HDC_ST_ECONNRESET);
	CHECK_EQ(qt_readl(qt, BAR4_BASE + HDC_NVMEQ_NIC_DBR), 22);
	wr(HDC_REG_NIC_CTRL, HDC_NIC_DISABLE);
}

/* The ACK queue's record and its 16 descriptors, as HDC_NIC_ENABLE posts them. */
static void check_ack_queue(void)
{
	uint8_t rqd[16];
	uint32_t i;

	CHECK_EQ(qt_readl(qt, BAR4_BASE + HDC_NVMEQ_NIC_DBR + 16),
		 1u << HDC_NIC_ARQ_LOG);
	for (i = 0; i < 1u << HDC_NIC_ARQ_LOG; i++) {
		qt_memread(qt, BAR4_BASE + HDC_NVMEQ_NIC_ARQ + i * 16, rqd, 16);
		CHECK_EQ(ldl_le(rqd), HDC_NIC_ARXBUF_SIZE);
		CHECK_EQ(ldq_le(rqd + 8), BAR4_BASE + HDC_NVMEQ_NIC_ARXBUF +
			 i * HDC_NIC_ARXBUF_SIZE);
	}
}

/* The receive queues' record and descriptors, descriptor i on chunk @buf[i]. */
/* ---- the engine's TCP receiver, the test playing the snic and the peer ---- */

static uint32_t ldl_be(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

/*
 * A TCP receive of the flow of put_tcp_flow_at() at NIC_RX + 64 (ack
 * number TCP_ACK: the stream's byte @prefix), offering @wnd bytes; its
 * first @prefix bytes at HSRC, @flags.
 */
static void put_tcp_rx(uint32_t wnd, uint32_t prefix, uint32_t flags)
{
	struct hdc_net_rx r = { .proto = HDC_NET_TCP, .flags = flags,
				.prefix_lo = (uint32_t)HSRC,
				.prefix_hi = HSRC >> 32,
				.prefix_len = prefix,
				.dst_ip = htonl(RX_IP),
				.src_ip = htonl(RX_IP + 1),
				.dst_port = htons(0x1111),
				.src_port = htons(0x2222) };

	qt_memwrite(qt, NIC_RX, &r, sizeof(r));
	put_tcp_flow_at(NIC_RX + sizeof(r), wnd, 0);
}

/* The peer's segment @seq (@flags, TSval @tsval): @plen bytes of @data. */
static void tcp_data(uint32_t seq, uint8_t flags, const uint8_t *data,
		     uint32_t plen, uint32_t tsval)
{
	uint8_t f[2048] = {
		2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00,
		0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 6, 0, 0,
		10, 0, 0, 2, 10, 0, 0, 1,
		0x22, 0x22, 0x11, 0x11, 0, 0, 0, 0, 0x10, 0, 0, 0,
		0x80, 0, 0x10, 0, 0, 0, 0, 0,
		1, 1, 8, 10, 0, 0, 0, 0, 0xaa, 0xaa, 0, 1,
	};

	f[16] = (52 + plen) >> 8;
	f[17] = (52 + plen) & 0xff;
	stl_be(f + 38, seq);
	f[47] = flags;
	stl_be(f + 58, tsval);
	memcpy(f + 66, data, plen);
	rx_put(f, 66 + plen, SNIC_CQE_F_TCP);
}

/* The ACK at basic block @bb: ack number, window field, TSecr. */
static void tcp_ack(uint16_t bb, uint32_t *ack, uint16_t *wnd,
		    uint32_t *tsecr)
{
	uint8_t wqe[128], hdr[TCP_HL];
	struct snic_wqe_ctrl *wc = (void *)wqe;

	tcp_wqe(bb, hdr, wqe);
	CHECK_EQ(hdr[47], 0x10);		/* ACK only */
	CHECK_EQ(wc->ds_cnt, 6);		/* no payload */
	*ack = ldl_be(hdr + 42);
	*wnd = hdr[48] << 8 | hdr[49];
	*tsecr = ldl_be(hdr + 62);
}

/* The ack number of the engine's latest ACK. */
static uint32_t tcp_last_ack(void)
{
	uint16_t pi = qt_readl(qt, BAR4_BASE + HDC_NVMEQ_NIC_DBR);
	uint32_t ack, tsecr;
	uint16_t wnd;

	tcp_ack(pi - 2, &ack, &wnd, &tsecr);
	return ack;
}

static struct hdc_net_flow tcp_rx_out(void)
{
	struct hdc_net_flow f;

	qt_memread(qt, NIC_RX + sizeof(struct hdc_net_rx), &f, sizeof(f));
	return f;
}

/*
 * The TCP receiver: segments of the handed-over flow arrive on the
 * striding RQ; in-order bytes are placed (here into host memory through
 * crc32c), each pass ends with one cumulative ACK from the template
 * (TSecr the peer's TSval, a window offered); an out-of-order segment is
 * dropped and answered by a duplicate ACK, as is one of old bytes; an
 * overlapping one gives its new bytes only, bytes past the length are
 * not taken.  Bytes the socket had taken in (the prefix) come first.  The state goes back into the flow.  A FIN after the last
 * byte ends the stream short (the FIN not acked); an RST at the next
 * byte fails with ECONNRESET (further in the window it gets a challenge
 * ACK, before it is ignored); a bad template
 * or a receive without the peer's address is EINVAL.
 */
static void tcp_receiver_as_seen_by_the_nic(void)
{
	const uint8_t crc[] = { HDC_FN_CRC32C };
	struct hdc_net_flow out;
	struct hdc_net_rx r;
	struct hdc_cmd c;
	struct hdc_cpl cpl;
	uint32_t ack, tsecr, ooo0, ack0;
	uint16_t wnd;

	CHECK(setup());
	rx_cqe_n = rx_desc = rx_stride = 0;
	fill_random(bufa, 8000);
	wr(HDC_REG_NIC_SQN, NIC_SQN);
	wr(HDC_REG_NIC_DB_LO, NIC_DB);
	wr(HDC_REG_NIC_DB_HI, 0);
	wr(HDC_REG_NIC_CTRL, HDC_NIC_ENABLE);
	wr(HDC_REG_NIC_RX_CTRL, HDC_NIC_RX_ENABLE);
	ooo0 = rd(HDC_REG_STAT_TCP_RX_OOO);
	ack0 = rd(HDC_REG_STAT_TCP_RX_ACK);

	put_tcp_rx(5000, 0, 0);
	c = xfer(3000, ep_nic(NIC_RX), ep_host(HDST, 3000));
	with_funcs(&c, crc, 1);
	post(&c);
	tcp_data(TCP_ACK, 0x18, bufa, 1000, 0xcc000001);
	CHECK(nic_db_is(2));
	tcp_ack(0, &ack, &wnd, &tsecr);
	CHECK_EQ(ack, TCP_ACK + 1000);
	CHECK_EQ(tsecr, 0xcc000001);
	CHECK(wnd >= 5000 - 1000);		/* the offered edge kept */
	/* Out of order: dropped, a duplicate ACK. */
	tcp_data(TCP_ACK + 2000, 0x18, bufa + 2000, 1000, 0xcc000002);
	CHECK(nic_db_is(4));
	tcp_ack(2, &ack, &wnd, &tsecr);
	CHECK_EQ(ack, TCP_ACK + 1000);
	CHECK_EQ(tsecr, 0xcc000001);		/* not from out of order */
	/* Old bytes again: acked again. */
	tcp_data(TCP_ACK, 0x18, bufa, 1000, 0xcc000003);
	CHECK(nic_db_is(6));
	tcp_ack(4, &ack, &wnd, &tsecr);
	CHECK_EQ(ack, TCP_ACK + 1000);
	CHECK(!peek_cpl(&cpl));
	/* Overlapping (500 old bytes), then past the length. */
	tcp_data(TCP_ACK + 500, 0x18, bufa + 500, 1500, 0xcc000004);
	tcp_data(TCP_ACK + 2000, 0x18, bufa + 2000, 1500, 0xcc000005);
	CHECK(wait_cpl(&cpl));
	CHECK_EQ(cpl.status, HDC_ST_OK);
	CHECK_EQ(cpl.result, 3000);
	mem_read(HDST, bufb, 3000);
	CHECK(!memcmp(bufa, bufb, 3000));
	CHECK_EQ(qt_readl(qt, AUX + 48), crc32c_ref(bufa, 3000));
	CHECK_EQ(tcp_last_ack(), TCP_ACK + 3000);
	r = rx_report();
	CHECK_EQ(r.received, 3000);
	CHECK_EQ(r.datagrams, 3);
	CHECK_EQ(r.dropped, 2);
	out = tcp_rx_out();
	CHECK_EQ(out.snd_una, TCP_ACK + 3000);
	CHECK_EQ(out.out_flags, HDC_NET_OUT_STATE);
	CHECK_EQ(out.ts_recent, 0xcc000005);
	CHECK(out.snd_wnd >= 2000);
	CHECK_EQ(rd(HDC_REG_STAT_TCP_RX), 3);
	CHECK_EQ(rd(HDC_REG_STAT_TCP_RX_OOO) - ooo0, 2);
	CHECK(rd(HDC_REG_STAT_TCP_RX_ACK) - ack0 >= 4);

	/* The socket's unread 700 bytes first, then the segments. */
	mem_write(HSRC, bufa, 700);
	put_tcp_rx(5000, 700, 0);
	c = xfer(2000, ep_nic(NIC_RX), ep_host(HDST, 2000));
	with_funcs(&c, crc, 1);
	post(&c);
	tcp_data(TCP_ACK, 0x18, bufa + 700, 1000, 0xcc000009);
	tcp_data(TCP_ACK + 1000, 0x18, bufa + 1700, 300, 0xcc00000a);
	CHECK(wait_cpl(&cpl));
	CHECK_EQ(cpl.status, HDC_ST_OK);
	CHECK_EQ(cpl.result, 2000);
	mem_read(HDST, bufb, 2000);
	CHECK(!memcmp(bufa, bufb, 2000));
	CHECK_EQ(qt_readl(qt, AUX + 48), crc32c_ref(bufa, 2000));
	CHECK_EQ(tcp_last_ack(), TCP_ACK + 1300);
	CHECK_EQ(tcp_rx_out().snd_una, TCP_ACK + 1300);
	/* Only a prefix, the FIN already taken by the socket. */
	put_tcp_rx(5000, 500, HDC_NET_RX_F_FIN);
	c = xfer(3000, ep_nic(NIC_RX), ep_host(HDST, 3000));
	CHECK_EQ(run(&c, &cpl), HDC_ST_OK);
	CHECK_EQ(cpl.result, 500);
	mem_read(HDST, bufb, 500);
	CHECK(!memcmp(bufa, bufb, 500));
	CHECK_EQ(tcp_rx_out().out_flags, HDC_NET_OUT_STATE | HDC_NET_OUT_FIN);

	/* The peer's FIN after 1500 bytes of 5000: the stream ends there. */
	put_tcp_rx(5000, 0, 0);
	c = xfer(5000, ep_nic(NIC_RX), ep_host(HDST, 5000));
	with_funcs(&c, crc, 1);
	post(&c);
	tcp_data(TCP_ACK, 0x19, bufa + 4000, 1500, 0xcc000006);
	CHECK(wait_cpl(&cpl));
	CHECK_EQ(cpl.status, HDC_ST_OK);
	CHECK_EQ(cpl.result, 1500);
	mem_read(HDST, bufb, 1500);
	CHECK(!memcmp(bufa + 4000, bufb, 1500));
	CHECK_EQ(qt_readl(qt, AUX + 48), crc32c_ref(bufa + 4000, 1500));
	CHECK_EQ(tcp_last_ack(), TCP_ACK + 1500);	/* not the FIN */
	out = tcp_rx_out();
	CHECK_EQ(out.out_flags, HDC_NET_OUT_STATE | HDC_NET_OUT_FIN);
	CHECK_EQ(out.snd_una, TCP_ACK + 1500);

	/* A FIN on a chunk boundary: 65536 of 70000 bytes. */
	put_tcp_rx(1u << 20, 0, 0);
	c = xfer(70000, ep_nic(NIC_RX), ep_host(HDST, 70000));
	post(&c);
	for (ack = 0; ack < 65536; ack += 1024)
		tcp_data(TCP_ACK + ack, ack + 1024 == 65536 ? 0x19 : 0x10,
			 bufa + (ack & 4095), 1024, 0xcc000007);
	CHECK(wait_cpl(&cpl));
	CHECK_EQ(cpl.status, HDC_ST_OK);
	CHECK_EQ(cpl.result, 65536);
	CHECK_EQ(tcp_rx_out().out_flags, HDC_NET_OUT_STATE | HDC_NET_OUT_FIN);

	/* RST: only at the next byte. */
	put_tcp_rx(5000, 0, 0);
	c = xfer(3000, ep_nic(NIC_RX), ep_host(HDST, 3000));
	post(&c);
	ack = qt_readl(qt, BAR4_BASE + HDC_NVMEQ_NIC_DBR);
	tcp_data(TCP_ACK, 0x10, bufa, 1000, 0xcc000008);
	CHECK(nic_db_is(ack + 2));
	tcp_data(TCP_ACK + 999, 0x04, NULL, 0, 0);	/* old: ignored */
	tcp_data(TCP_ACK + 1500, 0x04, NULL, 0, 0);	/* a challenge ACK */
	CHECK(nic_db_is(ack + 4));
	CHECK_EQ(tcp_last_ack(), TCP_ACK + 1000);
	CHECK(!peek_cpl(&cpl));
	tcp_data(TCP_ACK + 1000, 0x04, NULL, 0, 0);
	CHECK(wait_cpl(&cpl));
	CHECK_EQ(cpl.status, HDC_ST_ECONNRESET);
	CHECK_EQ(rx_report().received, 1000);

	/* Bad: a UDP template, no peer address. */
	put_tcp_rx(5000, 0, 0);
	qt_memwrite(qt, NIC_RX + sizeof(r), &(uint8_t){ HDC_NET_UDP }, 1);
	CHECK_EQ(run(&c, NULL), HDC_ST_EINVAL);
	put_tcp_rx(5000, 0, 0);
	qt_memwrite(qt, NIC_RX + 8 + 4, &(uint32_t){ 0 }, 4);	/* src_ip */
	CHECK_EQ(run(&c, NULL), HDC_ST_EINVAL);
	wr(HDC_REG_NIC_RX_CTRL, HDC_NIC_RX_DISABLE);
	wr(HDC_REG_NIC_CTRL, HDC_NIC_DISABLE);
}

static void check_rx_queues(const uint64_t *buf)
{
	uint32_t i;

	CHECK_EQ(rd(HDC_REG_NIC_RX_STATUS), 1);
	CHECK_EQ(qt_readl(qt, BAR4_BASE + HDC_NVMEQ_NIC_DBR + 8),
		 1u << HDC_NIC_RQ_LOG);
	for (i = 0; i < 1u << HDC_NIC_RQ_LOG; i++) {
		CHECK_EQ(qt_readl(qt, BAR4_BASE + HDC_NVMEQ_NIC_RQ + i * 16),
			 HDC_CHUNK_SIZE);
		CHECK_EQ(rx_buf(i), buf[i]);
	}
}

/*
 * Both of the engine's receive paths at once: the TCP sender's ACK queue
 * and the striding receive queues have their own registers, records,
 * rings and buffers; enabling either leaves the other's as it was.
 */
static void ack_queue_beside_rx_queues(void)
{
	uint64_t buf[1u << HDC_NIC_RQ_LOG];
	uint32_t i, bad0;

	CHECK(setup());
	bad0 = rd(HDC_REG_STAT_BAD_REG);
	wr(HDC_REG_NIC_RX_CTRL, HDC_NIC_RX_ENABLE);
	for (i = 0; i < 1u << HDC_NIC_RQ_LOG; i++)
		buf[i] = rx_buf(i);
	check_rx_queues(buf);

	wr(HDC_REG_NIC_SQN, NIC_SQN);
	wr(HDC_REG_NIC_DB_LO, NIC_DB);
	wr(HDC_REG_NIC_DB_HI, 0);
	wr(HDC_REG_NIC_ARQN, NIC_RQN);
	wr(HDC_REG_NIC_ARQ_DB_LO, NIC_RQDB);
	wr(HDC_REG_NIC_ARQ_DB_HI, 0);
	CHECK_EQ(rd(HDC_REG_NIC_ARQN), NIC_RQN);
	CHECK_EQ(rd(HDC_REG_NIC_ARQ_DB_LO), NIC_RQDB);
	wr(HDC_REG_NIC_CTRL, HDC_NIC_ENABLE);
	CHECK_EQ(rd(HDC_REG_NIC_STATUS), 1);
	CHECK_EQ(qt_readl(qt, NIC_RQDB), (uint32_t)NIC_RQN << 16 | 16);
	check_ack_queue();
	check_rx_queues(buf);

	/* The receive queues again, under the ACK queue in use. */
	wr(HDC_REG_NIC_RX_CTRL, HDC_NIC_RX_DISABLE);
	CHECK_EQ(rd(HDC_REG_NIC_RX_STATUS), 0);
	wr(HDC_REG_NIC_RX_CTRL, HDC_NIC_RX_ENABLE);
	for (i = 0; i < 1u << HDC_NIC_RQ_LOG; i++)
		buf[i] = rx_buf(i);
	check_rx_queues(buf);
	check_ack_queue();
	wr(HDC_REG_NIC_CTRL, HDC_NIC_DISABLE);
	wr(HDC_REG_NIC_RX_CTRL, HDC_NIC_RX_DISABLE);
	CHECK_EQ(rd(HDC_REG_STAT_BAD_REG), bad0);
}

/* The scoreboard's count of commands that waited for an older one. */
static bool hazard_waits(unsigned int *n)
{
	char *dump = (char *)bufc, *p;

	if (!qt_qom_get_str(qt, "/machine/peripheral/hdc0", "scoreboard",
			    dump, sizeof(bufc)))
		return false;
	p = strstr(dump, " hazard_waits=");
	return p && sscanf(p, " hazard_waits=%u", n) == 1;
}

static bool run_batch(struct hdc_cmd *c, int n)
{
	struct hdc_cpl cpl;
	int i;

	for (i = 0; i < n; i++)
		post_nodb(&c[i]);
	wr(HDC_REG_CMDQ_TAIL, sq_tail);
	for (i = 0; i < n; i++)
		if (!wait_cpl(&cpl) || cpl.cmd_id != c[i].cmd_id ||
		    cpl.status != HDC_ST_OK)
			return false;
	return true;
}

/*
 * Hazards between commands in flight: one that reads what an older one
 * writes, or writes what an older one reads or writes, waits for it.
 * Without the check each case below sees the wrong data: the younger
 * command's SSD reads (or host copy) go out before the older one's
 * writes, or its writes before the older one's second half of reads.
 */
static void hazards_keep_order(void)
{
	static const struct hdc_extent s = { .lba = 14400, .nlb = 2048 };
	static const struct hdc_extent x = { .lba = 16500, .nlb = 2048 };
		const uint32_t len = 2048 * 512;
	struct hdc_cmd c[2];
		unsigned int waits0 = 0, n = 0;

	CHECK(setup());
	CHECK(hazard_waits(&waits0));
	put_extents(EXT_SRC, &s, 1);
	put_extents(EXT_DST, &x, 1);
	CHECK(memcmp(img + 14400 * 512, img + 16500 * 512, len));

	/* Read after write, SSD: copy S to X, then read X to the host. */
	c[0] = xfer(len, ep_nvme(EXT_SRC, 1), ep_nvme(EXT_DST, 1));
	c[1] = xfer(len, ep_nvme(EXT_DST, 1), ep_host(HDST, len));
	CHECK(run_batch(c, 2));
	memcpy(img + 16500 * 512, img + 14400 * 512, len);
	mem_read(HDST, bufb, len);
	CHECK(!memcmp(bufb, img + 16500 * 512, len));

	/* Write after read, SSD: read X to the host, then overwrite X. */
	fill_random(bufa, len);
	mem_write(HSRC, bufa, len);
	qt_memset(qt, HDST, 0, len);
	c[0] = xfer(len, ep_nvme(EXT_DST, 1), ep_host(HDST, len));
	c[1] = xfer(len, ep_host(HSRC, len), ep_nvme(EXT_DST, 1));
	CHECK(run_batch(c, 2));
	mem_read(HDST, bufb, len);
	CHECK(!memcmp(bufb, img + 16500 * 512, len));
	memcpy(img + 16500 * 512, bufa, len);
	img_file(bufb, 16500 * 512, len);
	CHECK(!memcmp(bufb, bufa, len));

	/* Read after write, host memory: SSD to HDST, then HDST to HSRC. */
	qt_memset(qt, HDST, 0, len);
	c[0] = xfer(len, ep_nvme(EXT_SRC, 1), ep_host(HDST, len));
	c[1] = xfer(len, ep_host(HDST, len), ep_host(HSRC, len));
	CHECK(run_batch(c, 2));
	mem_read(HSRC, bufb, len);
	CHECK(!memcmp(bufb, img + 14400 * 512, len));

		/* Each younger command waited, as the scoreboard counts. */
	CHECK(hazard_waits(&n));
	CHECK_EQ(n - waits0, 3);
}

static void many_in_flight_in_order(void)
{
	static const uint8_t crc[] = { HDC_FN_CRC32C };
	struct hdc_cmd c = { .opcode = HDC_OP_NOP };
	struct hdc_cpl cpl;
	uint16_t ids[63];
	uint64_t v = 0;
	uint32_t rd_kib;
	char *dump = (char *)bufc, *p;
	int i, n, jobs = -1;

	CHECK(setup());
	/* 63 NOPs fill the completion ring; nobody consumes them yet. */
	for (i = 0; i < 63; i++)
		post_nodb(&c);
	wr(HDC_REG_CMDQ_TAIL, sq_tail);
	for (i = 0; i < 1000 && rd(HDC_REG_CMDQ_HEAD) != sq_tail; i++)
		continue;
	/* 63 transfers: SSD -> host (two chunks each), host -> host, NOP. */
	fill_random(bufa, 63 * 5000);
	mem_write(HSRC, bufa, 63 * 5000);
	for (i = 0; i < 63; i++) {
		struct hdc_extent x = { .lba = 1000 + i * 200, .nlb = 130 };

		put_extents(EXT_MANY + i * 16, &x, 1);
		if (i % 3 == 0) {
			c = xfer(66000, ep_nvme(EXT_MANY + i * 16, 1),
				 ep_host(HMANY + i * 0x20000, 66000));
		} else if (i % 3 == 1) {
			c = xfer(5000, ep_host(HSRC + i * 5000, 5000),
				 ep_host(HMANY + i * 0x20000, 5000));
		} else {
			c = xfer(66000, ep_nvme(EXT_MANY + i * 16, 1),
				 ep_none());
			with_funcs(&c, crc, 1);
			c.aux_addr = AUX + 0x400 + i * 256;
		}
		post_nodb(&c);
		ids[i] = c.cmd_id;
	}
	rd_kib = rd(HDC_REG_STAT_RD_KIB);
	wr(HDC_REG_CMDQ_TAIL, sq_tail);
	/*
	 * All 63 run to completion (the last SSD read is the last thing
	 * that can happen) and wait for room in the completion ring.
	 */
	for (i = 0; i < 20000; i++) {
		if (rd(HDC_REG_STAT_INFLIGHT) == 63 &&
		    rd(HDC_REG_STAT_RD_KIB) - rd_kib >= 42 * 66560 / 1024)
			break;
		usleep(100);
	}
	for (i = 0; i < 100; i++)
		rd(HDC_REG_STATUS);
	CHECK(qt_qom_get_str(qt, "/machine/peripheral/hdc0", "scoreboard",
			     dump, sizeof(bufc)));
	CHECK(!strstr(dump, "done=0"));
	CHECK_EQ(rd(HDC_REG_STAT_INFLIGHT), 63);
	if (getenv("HDC_DUMP"))
		fprintf(stderr, "%s\n", dump);
	CHECK(sscanf(dump, "jobs=%d", &jobs) == 1 && jobs == 63);
	for (n = 0, p = dump; (p = strstr(p, "\njob seq=")); p++)
		n++;
	CHECK_EQ(n, 63);
	CHECK(qom_u64("pcie-msix", &v) && v >= 1);
	/* Consume the NOPs: the transfers complete, in order. */
	for (i = 0; i < 63; i++) {
		CHECK(wait_cpl(&cpl));
		CHECK_EQ(cpl.status, HDC_ST_OK);
	}
	for (i = 0; i < 63; i++) {
		CHECK(wait_cpl(&cpl));
		CHECK_EQ(cpl.cmd_id, ids[i]);
		CHECK_EQ(cpl.status, HDC_ST_OK);
		CHECK_EQ(cpl.result, i % 3 == 1 ? 5000 : 66000);
	}
	CHECK_EQ(rd(HDC_REG_STAT_INFLIGHT), 0);
	for (i = 0; i < 63; i++) {
		mem_read(HMANY + i * 0x20000, bufb, i % 3 == 1 ? 5000 : 66000);
		if (i % 3 == 0)
			CHECK(!memcmp(bufb, img + (1000 + i * 200) * 512,
				      66000));
		else if (i % 3 == 1)
			CHECK(!memcmp(bufb, bufa + i * 5000, 5000));
		else
			CHECK_EQ(qt_readl(qt, AUX + 0x400 + i * 256 + 48),
				 crc32c_ref(img + (1000 + i * 200) * 512,
					    66000));
	}
}

static void devbuf_round_trip(void)
{
	const uint32_t len = 200000;
	struct hdc_cmd c;
	struct hdc_cpl cpl;

	CHECK(setup());
	/* The area may only change with the queue off. */
	wr(HDC_REG_DEVBUF_SIZE, 1 << 20);
	CHECK_EQ(rd(HDC_REG_DEVBUF_SIZE), 0);
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_BAD_REG);
	wr(HDC_REG_ERROR, 0);
	wr(HDC_REG_CTRL, 0);
	wr(HDC_REG_DEVBUF_SIZE, 12345);
	CHECK_EQ(rd(HDC_REG_DEVBUF_SIZE), 0);
	wr(HDC_REG_DEVBUF_SIZE, 1 << 20);
	CHECK_EQ(rd(HDC_REG_DEVBUF_SIZE), 1 << 20);
	CHECK(q_enable());
	fill_random(bufa, len);
	mem_write(HSRC, bufa, len);
	c = xfer(len, ep_host(HSRC, len), ep_devbuf(4096, len));
	CHECK_EQ(run(&c, &cpl), HDC_ST_OK);
	/* The data is in BAR2 where the host can see it. */
	mem_read(BAR2_BASE + 4096, bufb, len);
	CHECK(!memcmp(bufa, bufb, len));
	qt_memset(qt, HDST, 0, len);
	c = xfer(len, ep_devbuf(4096, len), ep_host(HDST, len));
	CHECK_EQ(run(&c, &cpl), HDC_ST_OK);
	mem_read(HDST, bufb, len);
	CHECK(!memcmp(bufa, bufb, len));
	/* Beyond the area. */
	c = xfer(len, ep_host(HSRC, len), ep_devbuf((1 << 20) - 100, len));
	CHECK_EQ(run(&c, NULL), HDC_ST_EINVAL);
}

static int expected_errors;

static void expect_status(struct hdc_cmd *c, int want, int *failed_at,
			  int line)
{
	int st = run(c, NULL);

	if (want != HDC_ST_OK)
		expected_errors++;
	if (st != want && !*failed_at) {
		*failed_at = line;
		fprintf(stderr, "line %d: status %d, want %d\n", line, st,
			want);
	}
}

#define EXPECT(c, want) expect_status(&(c), (want), &failed_at, __LINE__)

static void bad_commands(void)
{
	static const uint8_t sha[] = { HDC_FN_SHA256 };
	static const uint8_t defl[] = { HDC_FN_DEFLATE };
	struct hdc_extent x[2] = { { .lba = 100, .nlb = 10 } };
	struct hdc_cmd c, ok;
	uint32_t errs;
	int failed_at = 0;

	CHECK(setup());
	errs = rd(HDC_REG_STAT_ERRS);
	expected_errors = 0;
	put_extents(EXT_SRC, x, 1);
	ok = xfer(5120, ep_nvme(EXT_SRC, 1), ep_host(HDST, 5120));

	c = ok;
	c.opcode = 7;
	EXPECT(c, HDC_ST_EINVAL);		/* unknown opcode */
	c = ok;
	c.nfuncs = 5;
	EXPECT(c, HDC_ST_EINVAL);		/* too many functions */
	c = ok;
	c.nfuncs = 1;
	c.funcs[0] = 9;
	c.aux_addr = AUX;
	EXPECT(c, HDC_ST_EINVAL);		/* unknown function */
	c = ok;
	c.nfuncs = 1;
	c.funcs[0] = HDC_FN_NONE;
	EXPECT(c, HDC_ST_EINVAL);
	c = ok;
	c.flags = 1;
	EXPECT(c, HDC_ST_EINVAL);		/* unknown flags */
	c = ok;
	c.src.type = 9;
	EXPECT(c, HDC_ST_EINVAL);		/* unknown endpoint type */
	c = ok;
	c.dst.type = 0x80;
	EXPECT(c, HDC_ST_EINVAL);
	c = ok;
	c.src = ep_none();
	EXPECT(c, HDC_ST_EINVAL);		/* nothing to read */
	c = ok;
	with_funcs(&c, sha, 1);
	c.aux_addr = 0;
	EXPECT(c, HDC_ST_EINVAL);		/* a digest needs aux */
	c = ok;
	with_funcs(&c, sha, 1);
	c.aux_addr = UNMAPPED;
	EXPECT(c, HDC_ST_EDMA);			/* aux unreachable */
	c = ok;
	c.src.addr = UNMAPPED;
	EXPECT(c, HDC_ST_EDMA);			/* extents unreachable */
	c = ok;
	c.src.count = HDC_MAX_EXTENTS + 1;
	EXPECT(c, HDC_ST_EINVAL);		/* too many extents */
	c = ok;
	c.dst = ep_host(UNMAPPED, 5120);
	EXPECT(c, HDC_ST_EDMA);			/* host buffer unreachable */
	c = xfer(5120, ep_host(UNMAPPED, 5120), ep_host(HDST, 5120));
	EXPECT(c, HDC_ST_EDMA);
	c = xfer(5120, ep_host(~0ull - 100, 5120), ep_host(HDST, 5120));
	EXPECT(c, HDC_ST_EINVAL);		/* wraps */
	c = ok;
	c.length = 5121;
	EXPECT(c, HDC_ST_EINVAL);		/* source too short */
	c = ok;
	c.length = ~0ull;
	EXPECT(c, HDC_ST_EINVAL);		/* huge */
	c = xfer(1ull << 62, ep_host(HSRC, ~0u), ep_host(HDST, ~0u));
	EXPECT(c, HDC_ST_EINVAL);
	c = ok;
	c.dst.count = 5119;
	EXPECT(c, HDC_ST_ENOSPC);		/* destination too small */
	c = ok;
	with_funcs(&c, defl, 1);		/* random data grows */
	EXPECT(c, HDC_ST_ENOSPC);
	c = ok;
	c.length = 0;
	EXPECT(c, HDC_ST_OK);			/* zero length */

	x[0].lba = IMG_SIZE / 512 - 1;
	x[0].nlb = 2;
	put_extents(EXT_SRC, x, 1);
	EXPECT(ok, HDC_ST_ERANGE);		/* beyond the namespace */
	x[0].lba = ~0ull - 1;
	put_extents(EXT_SRC, x, 1);
	EXPECT(ok, HDC_ST_ERANGE);
	x[0].lba = 100;
	x[0].nlb = 0;
	put_extents(EXT_SRC, x, 1);
	EXPECT(ok, HDC_ST_EINVAL);		/* empty extent */
	x[0].nlb = 10;
	x[0].skip = 512;
	put_extents(EXT_SRC, x, 1);
	EXPECT(ok, HDC_ST_EINVAL);		/* skip beyond the block */
	x[0].skip = 0;
	x[0].flags = 2;
	put_extents(EXT_SRC, x, 1);
	EXPECT(ok, HDC_ST_EINVAL);		/* unknown extent flag */
	x[0].flags = 0;
	x[0].skip = 1;
	put_extents(EXT_DST, x, 1);
	c = xfer(512, ep_host(HSRC, 512), ep_nvme(EXT_DST, 1));
	EXPECT(c, HDC_ST_EINVAL);		/* skip in a destination */
	x[0].skip = 0;
	x[0].flags = HDC_EXT_ZERO;
	put_extents(EXT_DST, x, 1);
	EXPECT(c, HDC_ST_EINVAL);		/* hole as a destination */
	x[0].flags = 0;
	x[0].nlb = 1;
	put_extents(EXT_DST, x, 1);
	c = xfer(513, ep_host(HSRC, 513), ep_nvme(EXT_DST, 1));
	EXPECT(c, HDC_ST_ENOSPC);
	CHECK(!failed_at);
	CHECK(qt_alive(qt));
	CHECK_EQ(rd(HDC_REG_STAT_ERRS) - errs, expected_errors);
	CHECK(rd(HDC_REG_STAT_DMA_ERRS) >= 4);
	/* The engine is fine afterwards. */
	x[0].lba = 100;
	x[0].nlb = 10;
	put_extents(EXT_SRC, x, 1);
	CHECK_EQ(run(&ok, NULL), HDC_ST_OK);
	mem_read(HDST, bufb, 5120);
	CHECK(!memcmp(bufb, img + 100 * 512, 5120));
}

static void bad_queue_setup(void)
{
	CHECK(start_default());
	/* Unaligned rings. */
	wr(HDC_REG_CMDQ_BASE_LO, (uint32_t)CMDQ + 8);
	wr(HDC_REG_CPLQ_BASE_LO, (uint32_t)CPLQ);
	wr(HDC_REG_CTRL, HDC_CTRL_ENABLE);
	CHECK_EQ(rd(HDC_REG_STATUS) & HDC_STATUS_ENABLED, 0);
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_ALIGN);
	/* Unmapped rings. */
	wr(HDC_REG_CMDQ_BASE_LO, 0);
	wr(HDC_REG_CMDQ_BASE_HI, UNMAPPED >> 32);
	wr(HDC_REG_CTRL, HDC_CTRL_ENABLE);
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_UNMAPPED);
	/* A ring in the engine's own BAR4 does not answer its DMA. */
	wr(HDC_REG_CMDQ_BASE_LO, (uint32_t)BAR4_BASE);
	wr(HDC_REG_CMDQ_BASE_HI, 0);
	wr(HDC_REG_CTRL, HDC_CTRL_ENABLE);
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_UNMAPPED);
	/* Doorbells with the queue off, beyond the ring. */
	wr(HDC_REG_CMDQ_TAIL, 1);
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_DISABLED);
	CHECK(q_enable());
	wr(HDC_REG_CMDQ_TAIL, HDC_QUEUE_DEPTH);
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_DB_RANGE);
	wr(HDC_REG_CMDQ_TAIL, 0xffffffff);
	wr(HDC_REG_CPLQ_HEAD, 64);
	CHECK_EQ(rd(HDC_REG_STAT_BAD_DB), 4);
	CHECK_EQ(rd(HDC_REG_CMDQ_HEAD), 0);
	/* Geometry is fixed while enabled; MSI-X vector in range. */
	wr(HDC_REG_CMDQ_BASE_LO, 0x5000);
	CHECK_EQ(rd(HDC_REG_CMDQ_BASE_LO), (uint32_t)CMDQ);
	wr(HDC_REG_CTRL, 0);
	wr(HDC_REG_MSIX, HDC_NUM_MSIX);
	CHECK_EQ(rd(HDC_REG_MSIX), 0);
	/* Undefined and read-only registers. */
	CHECK_EQ(rd(0xffc), 0);
	wr(HDC_REG_ID, 1);
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_BAD_REG);
	CHECK(rd(HDC_REG_STAT_BAD_REG) >= 4);
	/* A doorbell in reset. */
	wr(HDC_REG_CTRL, HDC_CTRL_RESET);
	CHECK_EQ(rd(HDC_REG_STATUS), 0);
	wr(HDC_REG_CMDQ_TAIL, 1);
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_IN_RESET);
	wr(HDC_REG_NVME_CTRL, HDC_NVME_BRINGUP);
	CHECK_EQ(rd(HDC_REG_NVME_STATUS), HDC_NVME_OFF);
	wr(HDC_REG_CTRL, 0);
	CHECK_EQ(rd(HDC_REG_STATUS), HDC_STATUS_READY);
	/* The queue works after all that. */
	CHECK(q_enable());
	{
		struct hdc_cmd c = { .opcode = HDC_OP_NOP };

		CHECK_EQ(run(&c, NULL), HDC_ST_OK);
	}
	CHECK(qt_alive(qt));
}

static void bad_nvme_bar(void)
{
	uint8_t fake[64] = { 0 };
	uint64_t cap = 63 | 1ull << 24 | 1ull << 37;	/* MQES, TO 0.5 s, NVM */
	int i;

	CHECK(start_default());
	CHECK_EQ(bringup_at(0), HDC_NVME_FAILED);
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_NVME_BAR);
	CHECK_EQ(bringup_at(UNMAPPED), HDC_NVME_FAILED);	/* nothing */
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_NVME_BAR);
	qt_memset(qt, FAKE_CTRL, 0, 4096);
	CHECK_EQ(bringup_at(FAKE_CTRL), HDC_NVME_FAILED);	/* RAM */
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_NVME_BAR);
	CHECK_EQ(bringup_at(BAR0_BASE), HDC_NVME_FAILED);	/* itself */
	CHECK_EQ(bringup_at(NVME_BASE + 0x100), HDC_NVME_FAILED);
	/* With bus mastering off the engine reaches nothing. */
	qt_pci_cfg_write(qt, hdc_devfn, 0x04, 2, 0x0002);
	CHECK_EQ(bringup_at(NVME_BASE), HDC_NVME_FAILED);
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_NVME_BAR);
	qt_pci_enable(qt, hdc_devfn);

	/* RAM that looks like a controller but never becomes ready. */
	memcpy(fake, &cap, 8);
	mem_write(FAKE_CTRL, fake, sizeof(fake));
	wr(HDC_REG_NVME_BAR_LO, (uint32_t)FAKE_CTRL);
	wr(HDC_REG_NVME_BAR_HI, 0);
	wr(HDC_REG_NVME_CTRL, HDC_NVME_BRINGUP);
	for (i = 0; i < 50; i++)
		CHECK_EQ(rd(HDC_REG_NVME_STATUS), HDC_NVME_INIT);
	/* It wrote CC.EN into "the controller" and waits for RDY. */
	CHECK_EQ(qt_readl(qt, FAKE_CTRL + 0x14) & 1, 1);
	CHECK_EQ(qt_readl(qt, FAKE_CTRL + 0x28), (uint32_t)BAR4_BASE);
	for (i = 0; i < 10 && rd(HDC_REG_NVME_STATUS) == HDC_NVME_INIT; i++)
		qt_clock_step(qt, 100000000);
	CHECK_EQ(rd(HDC_REG_NVME_STATUS), HDC_NVME_FAILED);
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_NVME_TIMEOUT);
	CHECK(i >= 4);
	/* ... and the engine let go of it. */
	for (i = 0; i < 20; i++)
		rd(HDC_REG_STATUS);
	CHECK_EQ(qt_readl(qt, FAKE_CTRL + 0x14), 0);
	CHECK(rd(HDC_REG_ERROR_COUNT) >= 7);
	/* A bad namespace id fails the IDENTIFY of the real one. */
	wr(HDC_REG_NVME_NSID, 7);
	CHECK_EQ(bringup_at(NVME_BASE), HDC_NVME_FAILED);
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_NVME_CMD);
	/* The real one, after all that. */
	wr(HDC_REG_NVME_NSID, 1);
	CHECK_EQ(bringup_at(NVME_BASE), HDC_NVME_RUNNING);
	CHECK(q_enable());
	wr(HDC_REG_NVME_BAR_LO, 0);	/* refused while running */
	CHECK_EQ(rd(HDC_REG_NVME_BAR_LO), (uint32_t)NVME_BASE);
	wr(HDC_REG_NVME_CTRL, HDC_NVME_BRINGUP);
	CHECK_EQ(rd(HDC_REG_NVME_STATUS), HDC_NVME_RUNNING);
	ready = true;
}

static void post_big_reads(int n)
{
	struct hdc_extent x = { .lba = 0, .nlb = 2048 };
	struct hdc_cmd c;
	int i;

	put_extents(EXT_SRC, &x, 1);
	for (i = 0; i < n; i++) {
		c = xfer(1 << 20, ep_nvme(EXT_SRC, 1),
			 ep_host(HDST + ((i % 4) << 20), 1 << 20));
		post_nodb(&c);
	}
	wr(HDC_REG_CMDQ_TAIL, sq_tail);
}

static bool copy_works(void)
{
	struct hdc_extent x = { .lba = 4321, .nlb = 300, .skip = 5 };
	struct hdc_cmd c;

	put_extents(EXT_SRC, &x, 1);
	qt_memset(qt, HDST, 0, 150000);
	c = xfer(150000, ep_nvme(EXT_SRC, 1), ep_host(HDST, 150000));
	if (run(&c, NULL) != HDC_ST_OK)
		return false;
	mem_read(HDST, bufb, 150000);
	return !memcmp(bufb, img + 4321 * 512 + 5, 150000);
}

static void reset_drops_in_flight(void)
{
	char dump[512];
	int i;

	CHECK(setup());
	post_big_reads(12);
	for (i = 0; i < 3; i++)
		rd(HDC_REG_STAT_INFLIGHT);
	wr(HDC_REG_CTRL, HDC_CTRL_RESET);
	CHECK_EQ(rd(HDC_REG_STAT_INFLIGHT), 0);
	CHECK_EQ(rd(HDC_REG_NVME_STATUS), HDC_NVME_OFF);
	wr(HDC_REG_CTRL, 0);
	for (i = 0; i < 200; i++)
		rd(HDC_REG_STATUS);
	CHECK(qt_alive(qt));
	/* Nothing left: no job, every chunk back, no command slot held. */
	CHECK(qt_qom_get_str(qt, "/machine/peripheral/hdc0", "scoreboard",
			     dump, sizeof(dump)));
	CHECK(!strncmp(dump, "jobs=0 chunks_free=1024/1024 nvme=off slots=0/63",
		       48));
	/* The controller was disabled behind the reset. */
	CHECK_EQ(qt_readl(qt, NVME_BASE + 0x1c) & 1, 0);
	CHECK_EQ(bringup_at(NVME_BASE), HDC_NVME_RUNNING);
	CHECK(q_enable());
	CHECK(copy_works());
	/* Disabling the queue mid-flight drops the work too. */
	post_big_reads(8);
	wr(HDC_REG_CTRL, 0);
	CHECK_EQ(rd(HDC_REG_STAT_INFLIGHT), 0);
	CHECK(q_enable());
	for (i = 0; i < 200; i++)
		rd(HDC_REG_STATUS);
	CHECK(copy_works());
	CHECK_EQ(rd(HDC_REG_NVME_STATUS), HDC_NVME_RUNNING);
}

static void system_reset_in_flight(void)
{
	const char *r;
	int i;

	CHECK(setup());
	post_big_reads(12);
	r = qt_qmp(qt, "{\"execute\": \"system_reset\"}");
	CHECK(r && strstr(r, "return"));
	for (i = 0; i < 1000; i++)
		if (qt_pci_cfg_read(qt, hdc_devfn, 0x04, 2) == 0)
			break;
	CHECK(i < 1000);
	ready = false;
	map_devices();
	CHECK_EQ(rd(HDC_REG_STATUS), HDC_STATUS_READY);
	CHECK_EQ(rd(HDC_REG_STAT_INFLIGHT), 0);
	CHECK_EQ(rd(HDC_REG_NVME_STATUS), HDC_NVME_OFF);
	CHECK_EQ(bringup_at(NVME_BASE), HDC_NVME_RUNNING);
	CHECK(q_enable());
	CHECK(copy_works());
	ready = true;
}

static bool wait_nvme_off(void)
{
	int i;

	for (i = 0; i < 1000; i++)
		if (rd(HDC_REG_NVME_STATUS) == HDC_NVME_OFF)
			return true;
	return false;
}

static void shutdown_and_bringup_again(void)
{
	struct hdc_extent x = { .lba = 0, .nlb = 1 };
	struct hdc_cmd c;

	CHECK(setup());
	wr(HDC_REG_NVME_CTRL, HDC_NVME_SHUTDOWN);
	CHECK(wait_nvme_off());
	CHECK_EQ(rd(HDC_REG_STATUS) & HDC_STATUS_NVME_READY, 0);
	CHECK_EQ(rd(HDC_REG_NVME_LBA_SHIFT), 0);
	put_extents(EXT_SRC, &x, 1);
	c = xfer(512, ep_nvme(EXT_SRC, 1), ep_host(HDST, 512));
	CHECK_EQ(run(&c, NULL), HDC_ST_ENODEV);
	CHECK_EQ(qt_readl(qt, NVME_BASE + 0x1c) & 1, 0);
	wr(HDC_REG_NVME_CTRL, 3);
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_BAD_REG);
	CHECK_EQ(bringup_at(NVME_BASE), HDC_NVME_RUNNING);
	CHECK(copy_works());
	/* Shut down with reads in flight: they fail, nothing hangs. */
	post_big_reads(4);
	wr(HDC_REG_NVME_CTRL, HDC_NVME_SHUTDOWN);
	{
		struct hdc_cpl cpl;
		int i;

		for (i = 0; i < 4; i++) {
			CHECK(wait_cpl(&cpl));
			CHECK(cpl.status == HDC_ST_OK ||
			      cpl.status == HDC_ST_ENVME ||
			      cpl.status == HDC_ST_ENODEV);
		}
	}
	CHECK_EQ(rd(HDC_REG_STAT_INFLIGHT), 0);
	CHECK(wait_nvme_off());
	CHECK_EQ(bringup_at(NVME_BASE), HDC_NVME_RUNNING);
	CHECK(copy_works());
}

/* The engine's BARs moved after bring-up: the controller cannot reach. */
static void bars_moved_under_controller(void)
{
	struct hdc_extent x = { .lba = 10, .nlb = 4 };
	struct hdc_cmd c;

	CHECK(setup());
	ready = false;
	qt_pci_map_bar(qt, hdc_devfn, HDC_BAR_BUF, BAR2_BASE + (64 << 20));
	put_extents(EXT_SRC, &x, 1);
	c = xfer(2048, ep_nvme(EXT_SRC, 1), ep_host(HDST, 2048));
	CHECK_EQ(run(&c, NULL), HDC_ST_ENVME);
	CHECK_EQ(rd(HDC_REG_NVME_STATUS), HDC_NVME_FAILED);
	CHECK_EQ(rd(HDC_REG_ERROR), HDC_ERR_UNMAPPED);
	qt_pci_map_bar(qt, hdc_devfn, HDC_BAR_BUF, BAR2_BASE);
	CHECK_EQ(bringup_at(NVME_BASE), HDC_NVME_RUNNING);
	CHECK(copy_works());
	ready = true;
}

/* A completion for no command (a stray write into BAR4) is ignored. */
static void stale_completion_ignored(void)
{
	uint8_t cqe[16] = { 0 };

	CHECK(setup());
	/* Fresh queues: entries [0, head) carry phase 1, the rest 0. */
	wr(HDC_REG_NVME_CTRL, HDC_NVME_SHUTDOWN);
	CHECK(wait_nvme_off());
	CHECK_EQ(bringup_at(NVME_BASE), HDC_NVME_RUNNING);
	CHECK(copy_works());
	CHECK_EQ(rd(HDC_REG_STAT_STALE_CPL), 0);
	/* Slot 40 of the I/O CQ, phase 1, a command id never used. */
	cqe[12] = 50;
	cqe[14] = 1;
	mem_write(BAR4_BASE + HDC_NVMEQ_IOCQ + 40 * 16, cqe, 16);
	CHECK_EQ(rd(HDC_REG_STAT_STALE_CPL), 0);
	/* ... and at the head, where the engine looks next. */
	{
		uint32_t i, head;

		for (head = 0; head < 64; head++) {
			uint8_t b[16];

			mem_read(BAR4_BASE + HDC_NVMEQ_IOCQ + head * 16, b, 16);
			if (!(b[14] & 1))
				break;
		}
		CHECK(head < 64);
		mem_write(BAR4_BASE + HDC_NVMEQ_IOCQ + head * 16, cqe, 16);
		for (i = 0; i < 100 && !rd(HDC_REG_STAT_STALE_CPL); i++)
			continue;
	}
	CHECK_EQ(rd(HDC_REG_STAT_STALE_CPL), 1);
	CHECK(qt_alive(qt));
	/* The controller's queue is out of step now: start it over. */
	wr(HDC_REG_NVME_CTRL, HDC_NVME_SHUTDOWN);
	CHECK(wait_nvme_off());
	CHECK_EQ(bringup_at(NVME_BASE), HDC_NVME_RUNNING);
	CHECK(copy_works());
}

/* 4 KiB LBAs and a controller whose MDTS is 16 KiB: commands split. */
static void lba4k_small_mdts(void)
{
	static const struct hdc_extent src[] = {
		{ .lba = 10, .nlb = 40, .skip = 1000 },
		{ .lba = 100, .nlb = 3 },
	};
	static const struct hdc_extent dst[] = { { .lba = 2000, .nlb = 50 } };
	const uint32_t len = 40 * 4096 - 1000 + 5000;
	struct hdc_cmd c;
	uint32_t cmds;

	CHECK(start(",mdts=2", ",logical_block_size=4096,"
		    "physical_block_size=4096", ""));
	CHECK_EQ(bringup_at(NVME_BASE), HDC_NVME_RUNNING);
	CHECK_EQ(rd(HDC_REG_NVME_LBA_SHIFT), 12);
	CHECK_EQ(rd(HDC_REG_NVME_NSZE_LO), IMG_SIZE / 4096);
	CHECK(q_enable());
	put_extents(EXT_SRC, src, 2);
	put_extents(EXT_DST, dst, 1);
	cmds = rd(HDC_REG_STAT_NVME_CMDS);
	c = xfer(len, ep_nvme(EXT_SRC, 2), ep_host(HDST, len));
	CHECK_EQ(run(&c, NULL), HDC_ST_OK);
	stream_of(src, 2, bufa, len);
	mem_read(HDST, bufb, len);
	CHECK(!memcmp(bufa, bufb, len));
	/* 43 blocks of 4 KiB in commands of at most 4 blocks. */
	CHECK(rd(HDC_REG_STAT_NVME_CMDS) - cmds >= 11);
	c = xfer(len, ep_nvme(EXT_SRC, 2), ep_nvme(EXT_DST, 1));
	CHECK_EQ(run(&c, NULL), HDC_ST_OK);
	img_file(bufb, 2000 * 4096, 50 * 4096);
	CHECK(!memcmp(bufa, bufb, len));
	CHECK_EQ(bufb[len], 0);
	lba_shift = 9;
}

/*
 * A 1 MiB buffer (16 chunks) shared by six 1 MiB commands, half of them
 * deflating random data (more output than input: extra WRITEs need
 * chunks of their own): everything completes, in order, byte-exact.
 */
static void small_buffer_pool(void)
{
	static const uint8_t defl[] = { HDC_FN_DEFLATE };
	const uint32_t len = 1 << 20;
	struct hdc_cmd c;
	struct hdc_cpl cpl;
	uint16_t ids[6];
	uLongf out;
	int i;

	CHECK(start("", "", ",buf-mib=1"));
	CHECK_EQ(rd(HDC_REG_BUF_SIZE), 1 << 20);
	CHECK_EQ(bringup_at(NVME_BASE), HDC_NVME_RUNNING);
	CHECK(q_enable());
	for (i = 0; i < 6; i++) {
		struct hdc_extent x = { .lba = i * 4096 + 7, .nlb = 2049,
					.skip = 11 };

		put_extents(EXT_MANY + i * 16, &x, 1);
		c = xfer(len, ep_nvme(EXT_MANY + i * 16, 1),
			 ep_host(HDST + i * 0x120000, 0x120000));
		if (i % 2)
			with_funcs(&c, defl, 1);
		post_nodb(&c);
		ids[i] = c.cmd_id;
	}
	wr(HDC_REG_CMDQ_TAIL, sq_tail);
	for (i = 0; i < 6; i++) {
		const uint8_t *want = img + ((uint64_t)i * 4096 + 7) * 512 + 11;

		CHECK(wait_cpl(&cpl));
		CHECK_EQ(cpl.cmd_id, ids[i]);
		CHECK_EQ(cpl.status, HDC_ST_OK);
		mem_read(HDST + i * 0x120000, bufb, cpl.result);
		if (i % 2) {
			CHECK(cpl.result > len);
			out = len + 1;
			CHECK_EQ(uncompress(bufc, &out, bufb, cpl.result), Z_OK);
			CHECK_EQ(out, len);
			CHECK(!memcmp(bufc, want, len));
		} else {
			CHECK_EQ(cpl.result, len);
			CHECK(!memcmp(bufb, want, len));
		}
	}
	CHECK(qt_qom_get_str(qt, "/machine/peripheral/hdc0", "scoreboard",
			     (char *)bufc, 4096));
	CHECK(!strncmp((char *)bufc, "jobs=0 chunks_free=16/16", 24));
}

static void hostile_register_fuzz(void)
{
	unsigned int i;

	CHECK(start_default());
	srand(4321);
	for (i = 0; i < 4000; i++) {
		uint32_t reg = (rand() % 0x50) * 4;
		uint32_t val = ((uint32_t)rand() << 16) ^ rand();

		if (i % 3 == 0)
			val &= 0x7f;
		if (reg == HDC_REG_CMDQ_BASE_HI || reg == HDC_REG_CPLQ_BASE_HI)
			val &= 1;
		wr(reg, val);
		if (i % 500 == 0)
			qt_clock_step(qt, 10000000);
	}
	CHECK(qt_alive(qt));
	CHECK_EQ(rd(HDC_REG_ID), HDC_ID_MAGIC);
	wr(HDC_REG_CTRL, HDC_CTRL_RESET);
	wr(HDC_REG_CTRL, 0);
	for (i = 0; i < 100; i++)
		rd(HDC_REG_STATUS);
	CHECK_EQ(bringup_at(NVME_BASE), HDC_NVME_RUNNING);
	CHECK(q_enable());
	{
		struct hdc_cmd c;

		fill_random(bufa, 70000);
		mem_write(HSRC, bufa, 70000);
		c = xfer(70000, ep_host(HSRC, 70000), ep_host(HDST, 70000));
		CHECK_EQ(run(&c, NULL), HDC_ST_OK);
		mem_read(HDST, bufb, 70000);
		CHECK(!memcmp(bufa, bufb, 70000));
	}
}

/*
 * Trace events (hw/d2d/trace-events), enabled on the command line with
 * the log backend writing to a file (-D): a doorbell, the NVMe
 * controller's state changes and a guest error each leave their line.
 * The trace is written while QEMU handles the access, before it answers.
 */
static void trace_events_logged(void)
{
	char path[64], opts[256];

	snprintf(path, sizeof(path), "/tmp/d2d-hdc-trace-%d.log", getpid());
	unlink(path);
	snprintf(opts, sizeof(opts),
		 " -D %s -trace hdc_cmdq_doorbell -trace hdc_nvme_state"
		 " -trace hdc_error", path);
	CHECK(start("", "", opts));
	CHECK_EQ(bringup_at(NVME_BASE), HDC_NVME_RUNNING);
	wr(HDC_REG_CMDQ_TAIL, 5);	/* queue disabled: a guest error */
	CHECK(qt_file_has(path, "hdc_nvme_state off -> init"));
	CHECK(qt_file_has(path, "hdc_nvme_state init -> running"));
	CHECK(qt_file_has(path, "hdc_cmdq_doorbell command queue tail 5"));
	CHECK(qt_file_has(path, "doorbell with queue disabled"));
	qt_quit(qt);
	qt = NULL;
	ready = false;
	unlink(path);
}

/*
 * Run @c with the clock stepped 10 us at a time: the virtual ns from the
 * doorbell to its completion, 0 if none came or it failed.
 */
static uint64_t timed_run(struct hdc_cmd *c)
{
	struct hdc_cpl cpl;
	uint64_t t0, t;
	int i;

	t = t0 = qt_clock_now(qt);
	post(c);
	for (i = 0; i < 1000000; i++) {
		if (peek_cpl(&cpl)) {
			consume_cpl();
			return cpl.status == HDC_ST_OK ? t - t0 : 0;
		}
		/*
		 * What is due now (bottom halves, the request reaching the
		 * block layer) runs before time moves, by 10 us at a time.
		 */
		if (i % 64 == 63) {
			qt_clock_step(qt, 10000);
			t += 10000;
		}
	}
	return 0;
}

/* A 64 KiB transfer from the SSD to host memory: timed_run's time. */
static uint64_t timed_nvme_read(void)
{
	struct hdc_extent x = { .lba = 64, .nlb = 65536 >> lba_shift };
	struct hdc_cmd c;

	put_extents(EXT_SRC, &x, 1);
	c = xfer(65536, ep_nvme(EXT_SRC, 1), ep_host(HDST, 65536));
	return timed_run(&c);
}

/*
 * In a fresh QEMU with the hdc properties @opts: 1 MiB from host memory
 * to host memory through a crc32c function: timed_run's time.  No SSD on
 * the path, so the virtual time does not depend on how fast the host's
 * block layer is.
 */
static uint64_t timed_fn_xfer(const char *opts)
{
	static const uint8_t f[] = { HDC_FN_CRC32C };
	struct hdc_cmd c;
	uint64_t t;

	ready = false;
	if (!start("", "", opts) || !q_enable())
		return 0;
	c = xfer(1 << 20, ep_host(HSRC, 1 << 20), ep_host(HDST, 1 << 20));
	with_funcs(&c, f, 1);
	t = timed_run(&c);
	ready = false;
	return t;
}

/*
 * Timing mode (docs/timing.md): the near-data unit processes a function
 * chain's bytes at timing-ndp-mbps, so 1 MiB through crc32c takes at
 * least 1 MiB at that rate, four times as long at a quarter the rate.
 */
static void ndp_timed(void)
{
	uint64_t fast, slow;

	fast = timed_fn_xfer(",timing=on");
	slow = timed_fn_xfer(",timing=on,timing-ndp-mbps=1000");
	fprintf(stderr, "hdc: 1 MiB crc32c: %llu ns at 4000 MB/s, %llu ns at "
		"1000 MB/s\n", (unsigned long long)fast,
		(unsigned long long)slow);
	/* 1048576 B at 4000 MB/s: 262 us; at 1000 MB/s: 1049 us */
	CHECK(fast >= 262144);
	CHECK(slow >= 1048576);
	CHECK(slow >= fast + 786432 * 95 / 100);
}

/*
 * Timing mode (docs/timing.md, "Effects happen at their time"): the
 * engine's writes into host memory are deferred to their modeled time.
 * Once a command's completion is in the ring, or the queue has been
 * turned off or the engine reset with the command in flight, nothing may
 * land in its buffers any more: the driver frees or reuses them then.
 * Each check scribbles a pattern over the buffers at that moment, runs
 * the virtual clock 100 ms on and counts the bytes that changed.
 */
#define LATE_N		16		/* commands of late_after_completion */
#define LATE_LEN	(128u << 10)	/* bytes each */
#define LATE_AUX	0x3900000ull	/* their struct hdc_aux, one each */
#define LATE_STEP_NS	100000000ull	/* the clock run on afterwards */

/* Bytes of [addr, addr + len) that are not @pat. */
static size_t late_changed(uint64_t addr, size_t len, uint8_t pat)
{
	size_t i, n = 0;

	mem_read(addr, bufc, len);
	for (i = 0; i < len; i++)
		n += bufc[i] != pat;
	return n;
}

/* A fresh QEMU, hdc in timing mode with @opts, the controller up. */
static bool late_start(const char *opts)
{
	char hdc_opts[128];

	ready = false;
	snprintf(hdc_opts, sizeof(hdc_opts), ",timing=on%s", opts);
	return start("", "", hdc_opts) &&
	       bringup_at(NVME_BASE) == HDC_NVME_RUNNING && q_enable();
}

/*
 * 16 commands in flight, SSD to host and host to host through crc32c
 * with digests: as each completion appears its buffer and digest are
 * scribbled over; none changes afterwards.
 */
static void late_after_completion(void)
{
	static const uint8_t f[] = { HDC_FN_CRC32C };
	struct hdc_extent x = { .lba = 0, .nlb = LATE_LEN >> 9 };
	uint16_t first;
	size_t bad = 0;
	int done = 0, i;

	CHECK(late_start(""));
	x.nlb = LATE_LEN >> lba_shift;
	put_extents(EXT_SRC, &x, 1);
	fill_random(bufa, LATE_LEN);
	mem_write(HSRC, bufa, LATE_LEN);
	first = next_id;
	for (i = 0; i < LATE_N; i++) {
		uint64_t dst = HMANY + (uint64_t)i * LATE_LEN;
		struct hdc_cmd c;

		if (i & 1) {
			c = xfer(LATE_LEN, ep_host(HSRC, LATE_LEN),
				 ep_host(dst, LATE_LEN));
			with_funcs(&c, f, 1);
			c.aux_addr = LATE_AUX + i * sizeof(struct hdc_aux);
		} else {
			c = xfer(LATE_LEN, ep_nvme(EXT_SRC, 1),
				 ep_host(dst, LATE_LEN));
		}
		post_nodb(&c);
	}
	wr(HDC_REG_CMDQ_TAIL, sq_tail);
	for (i = 0; done < LATE_N && i < 4000000; i++) {
		struct hdc_cpl cpl;
		unsigned int k;

		if (!peek_cpl(&cpl)) {
			if (i % 64 == 63)
				qt_clock_step(qt, 1000);
			continue;
		}
		consume_cpl();
		CHECK_EQ(cpl.status, HDC_ST_OK);
		k = (uint16_t)(cpl.cmd_id - first);
		CHECK(k < LATE_N);
		if (k >= LATE_N)
			break;
		qt_memset(qt, HMANY + (uint64_t)k * LATE_LEN, 0xa0 + k,
			  LATE_LEN);
		qt_memset(qt, LATE_AUX + k * sizeof(struct hdc_aux), 0xa0 + k,
			  sizeof(struct hdc_aux));
		done++;
	}
	CHECK_EQ(done, LATE_N);
	qt_clock_step(qt, LATE_STEP_NS);
	for (i = 0; i < done; i++) {
		bad += late_changed(HMANY + (uint64_t)i * LATE_LEN, LATE_LEN,
				    0xa0 + i);
		bad += late_changed(LATE_AUX + i * sizeof(struct hdc_aux),
				    sizeof(struct hdc_aux), 0xa0 + i);
	}
	if (bad)
		fprintf(stderr, "hdc: %zu bytes written after their completion\n",
			bad);
	CHECK_EQ(bad, 0);
	ready = false;
}

/*
 * 4 MiB in flight, host to host through crc32c with the near-data unit
 * at 100 MB/s: the engine has made its writes, to land over 40 ms.  Then
 * @ctrl is written (0: the queue off; HDC_CTRL_RESET), the destination
 * and the completion ring are scribbled over; none of them changes and
 * no MSI-X message arrives.
 */
static void late_after_ctrl(uint32_t ctrl)
{
	static const uint8_t f[] = { HDC_FN_CRC32C };
	uint64_t deferred = 0;
	struct hdc_cmd c;
	size_t bad;
	int i;

	CHECK(late_start(",timing-ndp-mbps=100"));
	fill_random(bufa, 4 << 20);
	mem_write(HSRC, bufa, 4 << 20);
	c = xfer(4 << 20, ep_host(HSRC, 4 << 20), ep_host(HDST, 4 << 20));
	with_funcs(&c, f, 1);
	post(&c);
	for (i = 0; i < 1000 && !deferred; i++) {
		qt_clock_step(qt, 1000);
		CHECK(qom_u64("timing-deferred", &deferred));
	}
	CHECK(deferred > 0);
	wr(HDC_REG_CTRL, ctrl);
	qt_memset(qt, HDST, 0x5a, 4 << 20);
	qt_memset(qt, CPLQ, 0x5a, HDC_QUEUE_DEPTH * sizeof(struct hdc_cpl));
	qt_memset(qt, MSI_ADDR, 0x5a, 4);
	qt_clock_step(qt, LATE_STEP_NS);
	bad = late_changed(HDST, 4 << 20, 0x5a) +
	      late_changed(CPLQ, HDC_QUEUE_DEPTH * sizeof(struct hdc_cpl),
			   0x5a) +
	      late_changed(MSI_ADDR, 4, 0x5a);
	if (bad)
		fprintf(stderr, "hdc: %zu bytes written after CTRL=%u\n", bad,
			ctrl);
	CHECK(qt_alive(qt));
	ready = false;
	CHECK_EQ(bad, 0);
}

static void late_after_disable(void)
{
	late_after_ctrl(0);
}

static void late_after_reset(void)
{
	late_after_ctrl(HDC_CTRL_RESET);
}

/* timed_nvme_read behind d2d-delay with @opts; 0 if QEMU did not start. */
static uint64_t delayed_read(const char *opts)
{
	char spec[256];
	uint64_t t;

	snprintf(spec, sizeof(spec), "if=none,id=ssd,driver=d2d-delay,"
		 "file.driver=file,file.filename=%%s,%s", opts);
	ready = false;
	drive_spec = spec;
	t = setup() ? timed_nvme_read() : 0;
	drive_spec = NULL;
	ready = false;
	return t;
}

/*
 * Timing mode's NVMe delay filter (docs/timing.md): behind d2d-delay a
 * read completes on the virtual clock after the modeled media time
 * (latency + bytes at the media's bandwidth); without it, at once.
 */
static void nvme_delay_filter(void)
{
	char args[256];
	struct qt *bad;
	bool alive;
	uint64_t t;

	/* bandwidth only: 65536 B at 100 MB/s = 655.36 us (+ one step) */
	t = delayed_read("read-latency-ns=0,read-mbps=100");
	fprintf(stderr, "hdc: 64 KiB at 100 MB/s: %llu ns\n",
		(unsigned long long)t);
	CHECK(t >= 655360 && t <= 655360 + 10000);
	/* latency only: at least 2 ms */
	t = delayed_read("read-latency-ns=2000000,read-mbps=1000000");
	CHECK(t >= 2000000);
	/* no filter: no wait */
	CHECK(setup());
	CHECK(timed_nvme_read() < 2000000);
	ready = false;
	/* a bandwidth of 0 is refused: QEMU does not start */
	snprintf(args, sizeof(args), "-drive if=none,id=ssd,driver=d2d-delay,"
		 "file.driver=file,file.filename=%s,read-mbps=0", img_path);
	bad = qt_start(args);
	alive = qt_alive(bad);
	qt_quit(bad);
	CHECK(!alive);
}

int main(void)
{
	img = malloc(IMG_SIZE);
	snprintf(img_path, sizeof(img_path), "/tmp/d2d-hdc-%d.img", getpid());

	RUN("device/hdc", identity_registers);
	RUN("device/hdc", nvme_endpoint_before_bringup);
	RUN("device/hdc", bringup_over_p2p);
	RUN("device/hdc", nop_round_trip_with_msix);
	RUN("device/hdc", nvme_to_host_exact);
	RUN("device/hdc", host_to_nvme_write);
	RUN("device/hdc", nvme_to_nvme_holes_and_skip);
	RUN("device/hdc", digest_known_answers);
	RUN("device/hdc", aes256_ctr_nist_vector);
	RUN("device/hdc", deflate_round_trip);
	RUN("device/hdc", multichunk_1mib_digests);
	RUN("device/hdc", sha1_crc32_gzip);
	RUN("device/hdc", function_chain_misaligned);
		RUN("device/hdc", many_in_flight_in_order);
	RUN("device/hdc", hazards_keep_order);
	RUN("device/hdc", nic_queues_as_seen_by_the_nic);
	RUN("device/hdc", nic_rx_as_seen_by_the_nic);
	RUN("device/hdc", tcp_sender_as_seen_by_the_nic);
	RUN("device/hdc", tcp_receiver_as_seen_by_the_nic);
	RUN("device/hdc", ack_queue_beside_rx_queues);
	RUN("device/hdc", devbuf_round_trip);
	RUN("device/hdc", bad_commands);
	RUN("device/hdc", reset_drops_in_flight);
	RUN("device/hdc", system_reset_in_flight);
	RUN("device/hdc", shutdown_and_bringup_again);
	RUN("device/hdc", stale_completion_ignored);
	RUN("device/hdc", bars_moved_under_controller);
	RUN("device/hdc", bad_queue_setup);
	RUN("device/hdc", bad_nvme_bar);
	RUN("device/hdc", lba4k_small_mdts);
	RUN("device/hdc", nvme_delay_filter);
	RUN("device/hdc", ndp_timed);
	RUN("device/hdc", late_after_completion);
	RUN("device/hdc", late_after_disable);
	RUN("device/hdc", late_after_reset);
	RUN("device/hdc", small_buffer_pool);
	RUN("device/hdc", hostile_register_fuzz);
	RUN("device/hdc", trace_events_logged);
	qt_quit(qt);
	unlink(img_path);
	free(img);
	return check_failures ? 1 : 0;
}
