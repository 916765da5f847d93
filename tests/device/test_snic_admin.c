/*
 * snic device tier: BAR0 registers and the admin queue, driven through
 * qtest with no guest: identity, NOP and IDENTIFY round trips with MSI-X,
 * phase wrap, and every bad-input path (doorbell beyond the ring, unaligned
 * or unmapped rings, bad depth, unknown opcode, commands in reset, a hostile
 * register fuzz).  QEMU must keep answering after each.
 */
#include <stdlib.h>
#include <unistd.h>
#include "../lib/check.h"
#include "snic_dev.h"

#define BAR_BASE	0xe0000000ull
#define RAM_BASE	0x100000ull
#define MSI_ADDR	0x200000ull
#define MSI_DATA	0xd2d00001u

static struct qt *qt;
static struct snic_dev dev;

#define SQ_ADDR		(dev.aq_sq)
#define CQ_ADDR		(dev.aq_cq)
#define BUF_ADDR	(dev.scratch)

static uint32_t rd(uint32_t reg)
{
	return snic_rd(&dev, reg);
}

static void wr(uint32_t reg, uint32_t val)
{
	snic_wr(&dev, reg, val);
}

static void dev_start(void)
{
	qt_quit(qt);
	qt = qt_start("-device snic,id=snic0,mac=52:54:00:12:34:56,serial=QTEST-0");
	if (!snic_dev_open(&dev, qt, 0, BAR_BASE, RAM_BASE)) {
		fprintf(stderr, "snic not found on bus 0\n");
		exit(1);
	}
	snic_dev_msix(&dev, 0, MSI_ADDR, MSI_DATA);
}

static void aq_config(uint64_t sq, uint64_t cq, uint32_t depth)
{
	snic_aq_config(&dev, sq, cq, depth);
}

static bool aq_ready(uint32_t depth)
{
	return snic_aq_ready(&dev, depth);
}

static void aq_post(struct snic_aq_cmd *cmd)
{
	snic_aq_post(&dev, cmd);
}

static bool aq_wait(uint32_t idx, int phase, struct snic_aq_cqe *cqe)
{
	return snic_aq_wait(&dev, idx, phase, cqe);
}

static void identity_registers(void)
{
	dev_start();
	CHECK_EQ(rd(SNIC_REG_ID), SNIC_ID_MAGIC);
	CHECK_EQ(rd(SNIC_REG_VERSION), SNIC_VERSION);
	CHECK_EQ(rd(SNIC_REG_CAPS_LO) & SNIC_CAP_ADMINQ, SNIC_CAP_ADMINQ);
	CHECK_EQ(rd(SNIC_REG_STATUS), SNIC_STATUS_READY);
	CHECK_EQ(rd(SNIC_REG_ERROR), SNIC_ERR_NONE);
}

static void nop_round_trip_with_msix(void)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_NOP, .cmd_id = 0x1234 };
	struct snic_aq_cqe cqe;

	dev_start();
	CHECK(aq_ready(8));
	qt_memset(qt, MSI_ADDR, 0, 4);
	aq_post(&cmd);
	CHECK(aq_wait(0, 1, &cqe));
	CHECK_EQ(cqe.cmd_id, 0x1234);
	CHECK_EQ(cqe.status, SNIC_AQ_OK);
	CHECK_EQ(cqe.sq_head, 1);
	CHECK_EQ(qt_readl(qt, MSI_ADDR), MSI_DATA);
	CHECK_EQ(rd(SNIC_REG_STAT_AQ_CMDS), 1);
	CHECK_EQ(rd(SNIC_REG_STAT_IRQS), 1);
	CHECK_EQ(rd(SNIC_REG_AQ_SQ_HEAD), 1);
}

static void identify_dma(void)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_IDENTIFY, .cmd_id = 7 };
	struct snic_identify_data id;
	struct snic_aq_cqe cqe;
	static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

	dev_start();
	CHECK(aq_ready(8));
	qt_memset(qt, BUF_ADDR, 0xee, 512);
	cmd.identify.buf_addr = BUF_ADDR;
	cmd.identify.buf_len = sizeof(id);
	aq_post(&cmd);
	CHECK(aq_wait(0, 1, &cqe));
	CHECK_EQ(cqe.status, SNIC_AQ_OK);
	qt_memread(qt, BUF_ADDR, &id, sizeof(id));
	CHECK_EQ(id.magic, SNIC_ID_MAGIC);
	CHECK_EQ(id.version, SNIC_VERSION);
	CHECK_STR(id.fw_version, "d2d-snic 0.1.0");
	CHECK_STR(id.serial, "QTEST-0");
	CHECK(!memcmp(id.mac, mac, 6));
	CHECK_EQ(id.num_msix, SNIC_NUM_MSIX);
	CHECK_EQ(id.max_mtu, 9000);
	/* The device wrote exactly sizeof(id) bytes. */
	CHECK_EQ(qt_readl(qt, BUF_ADDR + sizeof(id)), 0xeeeeeeee);
}

static void identify_short_buffer(void)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_IDENTIFY };
	struct snic_aq_cqe cqe;

	dev_start();
	CHECK(aq_ready(8));
	qt_memset(qt, BUF_ADDR, 0xee, 64);
	cmd.identify.buf_addr = BUF_ADDR;
	cmd.identify.buf_len = 8;
	aq_post(&cmd);
	CHECK(aq_wait(0, 1, &cqe));
	CHECK_EQ(cqe.status, SNIC_AQ_OK);
	CHECK_EQ(qt_readl(qt, BUF_ADDR), SNIC_ID_MAGIC);
	CHECK_EQ(qt_readl(qt, BUF_ADDR + 8), 0xeeeeeeee);
}

static void phase_wraps_over_ring(void)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_NOP };
	struct snic_aq_cqe cqe;
	const uint32_t depth = 4;
	uint32_t i, head = 0;
	int phase = 1;

	dev_start();
	CHECK(aq_ready(depth));
	for (i = 0; i < 11; i++) {
		cmd.cmd_id = 100 + i;
		aq_post(&cmd);
		CHECK(aq_wait(head, phase, &cqe));
		CHECK_EQ(cqe.cmd_id, 100 + i);
		head = (head + 1) % depth;
		if (head == 0)
			phase ^= 1;
		wr(SNIC_REG_AQ_CQ_HEAD, head);
	}
	CHECK_EQ(rd(SNIC_REG_STAT_AQ_CMDS), 11);
	CHECK_EQ(rd(SNIC_REG_ERROR), SNIC_ERR_NONE);
}

static void unknown_opcode(void)
{
	struct snic_aq_cmd cmd = { .opcode = 0xee, .cmd_id = 9 };
	struct snic_aq_cqe cqe;

	dev_start();
	CHECK(aq_ready(8));
	aq_post(&cmd);
	CHECK(aq_wait(0, 1, &cqe));
	CHECK_EQ(cqe.status, SNIC_AQ_EINVAL_OPCODE);
	CHECK_EQ(rd(SNIC_REG_STAT_AQ_ERRS), 1);
	/* The queue keeps working afterwards. */
	cmd.opcode = SNIC_AQ_NOP;
	aq_post(&cmd);
	CHECK(aq_wait(1, 1, &cqe));
	CHECK_EQ(cqe.status, SNIC_AQ_OK);
}

/*
 * Fault injection for the host's admin timeout path: with aq-drop-opcode
 * set (at run time, through QOM) the commands of that opcode still run and
 * are consumed, but post no completion; aq-dropped counts them, the next
 * command completes in the slot the dropped one would have used, and 0
 * turns it off.
 */
static void aq_drop_injection(void)
{
	struct snic_aq_cmd cmd = { .opcode = 0xee, .cmd_id = 9 };
	const char *path = "/machine/peripheral/snic0";
	struct snic_aq_cqe cqe;
	uint64_t v = ~0ull;

	dev_start();
	CHECK(aq_ready(8));
	CHECK(qt_qom_get_u64(qt, path, "aq-dropped", &v));
	CHECK_EQ(v, 0);
	CHECK(qt_qom_set_u64(qt, path, "aq-drop-opcode", 0xee));
	aq_post(&cmd);
	cmd.opcode = SNIC_AQ_NOP;
	cmd.cmd_id = 10;
	aq_post(&cmd);
	CHECK(aq_wait(0, 1, &cqe));
	CHECK_EQ(cqe.cmd_id, 10);
	CHECK_EQ(cqe.status, SNIC_AQ_OK);
	CHECK_EQ(cqe.sq_head, 2);
	CHECK_EQ(rd(SNIC_REG_STAT_AQ_CMDS), 2);
	CHECK(qt_qom_get_u64(qt, path, "aq-dropped", &v));
	CHECK_EQ(v, 1);
	/* off again: the same command completes */
	CHECK(qt_qom_set_u64(qt, path, "aq-drop-opcode", 0));
	cmd.opcode = 0xee;
	cmd.cmd_id = 11;
	aq_post(&cmd);
	CHECK(aq_wait(1, 1, &cqe));
	CHECK_EQ(cqe.cmd_id, 11);
	CHECK_EQ(cqe.status, SNIC_AQ_EINVAL_OPCODE);
	CHECK(qt_qom_get_u64(qt, path, "aq-dropped", &v));
	CHECK_EQ(v, 1);
}

/*
 * Trace events (hw/d2d/trace-events) with the log backend writing to a
 * file (-D): the admin doorbell, each command with its status, and a guest
 * error leave their lines while QEMU handles the access.
 */
static void trace_events_logged(void)
{
	struct snic_aq_cmd cmd = { .opcode = 0xee, .cmd_id = 9 };
	struct snic_aq_cqe cqe;
	char path[64], args[256];

	snprintf(path, sizeof(path), "/tmp/d2d-snic-trace-%d.log", getpid());
	unlink(path);
	snprintf(args, sizeof(args),
		 "-device snic,mac=52:54:00:12:34:56,serial=QTEST-0 -D %s "
		 "-trace snic_aq_doorbell -trace snic_aq_cmd -trace snic_error",
		 path);
	qt_quit(qt);
	qt = qt_start(args);
	CHECK(snic_dev_open(&dev, qt, 0, BAR_BASE, RAM_BASE));
	snic_dev_msix(&dev, 0, MSI_ADDR, MSI_DATA);
	CHECK(aq_ready(8));
	aq_post(&cmd);
	CHECK(aq_wait(0, 1, &cqe));
	CHECK_EQ(cqe.status, SNIC_AQ_EINVAL_OPCODE);
	CHECK(qt_file_has(path, "snic_aq_doorbell admin queue tail 1"));
	CHECK(qt_file_has(path, "snic_aq_cmd opcode 0xee cmd_id 0x9"));
	wr(SNIC_REG_AQ_SQ_TAIL, 100);	/* beyond the ring: a guest error */
	CHECK(qt_file_has(path, "snic_error"));
	qt_quit(qt);
	qt = NULL;
	unlink(path);
}

static void doorbell_beyond_ring(void)
{
	dev_start();
	CHECK(aq_ready(8));
	wr(SNIC_REG_AQ_SQ_TAIL, 8);
	CHECK_EQ(rd(SNIC_REG_ERROR), SNIC_ERR_DB_RANGE);
	CHECK_EQ(rd(SNIC_REG_STAT_BAD_DB), 1);
	wr(SNIC_REG_AQ_SQ_TAIL, 0xffffffff);
	CHECK_EQ(rd(SNIC_REG_STAT_BAD_DB), 2);
	CHECK_EQ(rd(SNIC_REG_AQ_SQ_HEAD), 0);
	CHECK_EQ(rd(SNIC_REG_STAT_AQ_CMDS), 0);
	CHECK(qt_alive(qt));
}

static void unaligned_ring_base(void)
{
	dev_start();
	aq_config(SQ_ADDR + 8, CQ_ADDR, 8);
	CHECK_EQ(rd(SNIC_REG_STATUS) & SNIC_STATUS_AQ_ENABLED, 0);
	CHECK_EQ(rd(SNIC_REG_ERROR), SNIC_ERR_AQ_ALIGN);
	CHECK_EQ(rd(SNIC_REG_ERROR_COUNT), 1);
	aq_config(SQ_ADDR, CQ_ADDR + 4, 8);
	CHECK_EQ(rd(SNIC_REG_ERROR), SNIC_ERR_AQ_ALIGN);
	/* A doorbell now is refused, not executed. */
	wr(SNIC_REG_AQ_SQ_TAIL, 1);
	CHECK_EQ(rd(SNIC_REG_ERROR), SNIC_ERR_AQ_DISABLED);
	CHECK(qt_alive(qt));
}

static void unmapped_ring_base(void)
{
	dev_start();
	aq_config(0x4000000000ull, CQ_ADDR, 8);
	CHECK_EQ(rd(SNIC_REG_STATUS) & SNIC_STATUS_AQ_ENABLED, 0);
	CHECK_EQ(rd(SNIC_REG_ERROR), SNIC_ERR_AQ_UNMAPPED);
	CHECK(rd(SNIC_REG_STAT_DMA_ERRS) >= 1);
	aq_config(SQ_ADDR, 0xfffffffffff000ull, 8);
	CHECK_EQ(rd(SNIC_REG_ERROR), SNIC_ERR_AQ_UNMAPPED);
	CHECK(qt_alive(qt));
}

static void bad_depth(void)
{
	static const uint32_t depths[] = { 0, 1, 3, 100, 8192, 0xffffffff };
	unsigned int i;

	dev_start();
	for (i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
		wr(SNIC_REG_ERROR, 0);
		aq_config(SQ_ADDR, CQ_ADDR, depths[i]);
		CHECK_EQ(rd(SNIC_REG_STATUS) & SNIC_STATUS_AQ_ENABLED, 0);
		CHECK_EQ(rd(SNIC_REG_ERROR), SNIC_ERR_AQ_DEPTH);
	}
	CHECK(qt_alive(qt));
}

static void command_in_reset(void)
{
	struct snic_aq_cqe cqe;

	dev_start();
	CHECK(aq_ready(8));
	wr(SNIC_REG_CTRL, SNIC_CTRL_RESET);
	CHECK_EQ(rd(SNIC_REG_STATUS), 0);
	wr(SNIC_REG_AQ_SQ_TAIL, 1);
	CHECK_EQ(rd(SNIC_REG_ERROR), SNIC_ERR_IN_RESET);
	CHECK_EQ(rd(SNIC_REG_STAT_BAD_DB), 1);
	/* Enabling the queue while held in reset is refused too. */
	wr(SNIC_REG_CTRL, SNIC_CTRL_RESET | SNIC_CTRL_AQ_ENABLE);
	CHECK_EQ(rd(SNIC_REG_STATUS) & SNIC_STATUS_AQ_ENABLED, 0);
	/* Out of reset the device works again. */
	wr(SNIC_REG_CTRL, 0);
	CHECK_EQ(rd(SNIC_REG_STATUS), SNIC_STATUS_READY);
	CHECK(aq_ready(8));
	{
		struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_NOP, .cmd_id = 3 };

		aq_post(&cmd);
	}
	CHECK(aq_wait(0, 1, &cqe));
	CHECK_EQ(cqe.cmd_id, 3);
}

static void identify_unmapped_buffer(void)
{
	struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_IDENTIFY };
	struct snic_aq_cqe cqe;

	dev_start();
	CHECK(aq_ready(8));
	cmd.identify.buf_addr = 0x7000000000ull;
	cmd.identify.buf_len = 256;
	aq_post(&cmd);
	CHECK(aq_wait(0, 1, &cqe));
	CHECK_EQ(cqe.status, SNIC_AQ_EDMA);
	CHECK(rd(SNIC_REG_STAT_DMA_ERRS) >= 1);
	CHECK(qt_alive(qt));
}

static void undefined_register(void)
{
	dev_start();
	CHECK_EQ(rd(0xffc), 0);
	CHECK_EQ(rd(SNIC_REG_STAT_BAD_REG), 1);
	wr(SNIC_REG_ID, 0x1234);
	CHECK_EQ(rd(SNIC_REG_ID), SNIC_ID_MAGIC);
	CHECK_EQ(rd(SNIC_REG_STAT_BAD_REG), 2);
	CHECK_EQ(rd(SNIC_REG_ERROR), SNIC_ERR_BAD_REG);
}

static void hostile_register_fuzz(void)
{
	unsigned int i;

	dev_start();
	srand(1234);
	for (i = 0; i < 3000; i++) {
		uint32_t reg = (rand() % (SNIC_REGS_SIZE / 4)) * 4;
		uint32_t val = ((uint32_t)rand() << 16) ^ rand();

		/* Bias towards the registers that do something. */
		if (i % 2)
			reg = (rand() % 0x12) * 4;
		wr(reg, val);
	}
	CHECK(qt_alive(qt));
	CHECK_EQ(rd(SNIC_REG_ID), SNIC_ID_MAGIC);
	/* After a reset the device is fully usable. */
	wr(SNIC_REG_CTRL, SNIC_CTRL_RESET);
	wr(SNIC_REG_CTRL, 0);
	CHECK(aq_ready(8));
	{
		struct snic_aq_cmd cmd = { .opcode = SNIC_AQ_NOP, .cmd_id = 5 };
		struct snic_aq_cqe cqe;

		aq_post(&cmd);
		CHECK(aq_wait(0, 1, &cqe));
		CHECK_EQ(cqe.status, SNIC_AQ_OK);
	}
}

/* snic has no vmstate: migration and savevm must be refused, not lossy. */
static void migration_refused(void)
{
	const char *r;

	dev_start();
	r = qt_qmp(qt, "{\"execute\": \"migrate\", \"arguments\": "
		   "{\"uri\": \"exec:cat >/dev/null\"}}");
	CHECK(r && strstr(r, "\"error\"") && strstr(r, "snic"));
	r = qt_qmp(qt, "{\"execute\": \"human-monitor-command\", "
		   "\"arguments\": {\"command-line\": \"savevm s0\"}}");
	CHECK(r && strstr(r, "snic"));
	CHECK(qt_alive(qt));
	CHECK_EQ(rd(SNIC_REG_ID), SNIC_ID_MAGIC);
}

int main(void)
{
	RUN("device/snic", identity_registers);
	RUN("device/snic", nop_round_trip_with_msix);
	RUN("device/snic", identify_dma);
	RUN("device/snic", identify_short_buffer);
	RUN("device/snic", phase_wraps_over_ring);
	RUN("device/snic", unknown_opcode);
	RUN("device/snic", aq_drop_injection);
	RUN("device/snic", doorbell_beyond_ring);
	RUN("device/snic", unaligned_ring_base);
	RUN("device/snic", unmapped_ring_base);
	RUN("device/snic", bad_depth);
	RUN("device/snic", command_in_reset);
	RUN("device/snic", identify_unmapped_buffer);
	RUN("device/snic", undefined_register);
	RUN("device/snic", hostile_register_fuzz);
	RUN("device/snic", migration_refused);
	RUN("device/snic", trace_events_logged);
	qt_quit(qt);
	return check_failures ? 1 : 0;
}
