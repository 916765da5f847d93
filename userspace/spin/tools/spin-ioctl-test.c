/*
 * spin-ioctl-test PREFIX [DEV]: the /dev/snic-spinN ioctl interface under
 * bad arguments and two owners, run in a guest by tests/guest/spin_ioctl.sh.
 * Prints one "PASS PREFIX/name" or "FAIL PREFIX/name: why" line per check
 * and exits 1 if any failed.  Each check states the errno the interface
 * documents (docs/snic-spin.md, "Host interface").
 *
 * spin-ioctl-test --uffd-stall DEV: SNIC_SPIN_IOC_MEM_WRITE from a user
 * buffer that is backed by userfaultfd and never filled; print "STALLED"
 * once the driver is stuck on it, wait for SIGUSR1, fill the buffer and
 * print "write: ERRNO" (or "write: ok"), for tests/guest/spin_sec_stall.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <d2d/snic_spin_ifc.h>	/* device limits the checks expect */
#include <d2d/snic_spin_ioctl.h>
#include "uffd_stall.h"

static const char *prefix;
static int failed;

static void result(const char *name, int ok, const char *fmt, long a, long b)
{
	if (ok) {
		printf("PASS %s/%s\n", prefix, name);
		return;
	}
	printf("FAIL %s/%s: ", prefix, name);
	printf(fmt, a, b);
	printf("\n");
	failed = 1;
}

/* The ioctl fails with errno @want (0: succeeds). */
static void expect_errno(const char *name, int fd, unsigned long req,
			 void *arg, int want)
{
	int r = ioctl(fd, req, arg), got = r ? errno : 0;

	result(name, got == want, "errno %ld, want %ld", got, want);
}

static int do_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? errno : 0;
}

/* --uffd-stall */
static int stall_fd, stall_err;
static struct snic_spin_mem_rw stall_rw;

static void *stall_write(void *buf)
{
	stall_rw.data = (uintptr_t)buf;
	stall_err = do_ioctl(stall_fd, SNIC_SPIN_IOC_MEM_WRITE, &stall_rw);
	return NULL;
}

static void die(const char *what)
{
	fprintf(stderr, "spin-ioctl-test: %s: %s\n", what, strerror(errno));
	exit(2);
}

static int uffd_stall(const char *dev)
{
	struct snic_spin_mem_alloc pm = { .mem = SNIC_SPIN_MEM_PROG,
					  .size = 4096 };

	stall_fd = open(dev, O_RDWR);
	if (stall_fd < 0)
		die(dev);
	if (ioctl(stall_fd, SNIC_SPIN_IOC_MEM_ALLOC, &pm))
		die("SNIC_SPIN_IOC_MEM_ALLOC");
	stall_rw = (struct snic_spin_mem_rw){ .id = pm.id, .len = 4096 };
	uffd_stall_run(4096, stall_write);
	printf("write: %s\n", stall_err ? strerrorname_np(stall_err) : "ok");
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = argc > 2 ? argv[2] : "/dev/snic-spin0";
	/* li a0, 0; ret: a handler that drops */
	static const uint32_t code[2] = { 0x00000513, 0x00008067 };
	struct snic_spin_mem_alloc pm = { .mem = SNIC_SPIN_MEM_PROG, .size = 4096 };
	struct snic_spin_mem_alloc hm = { .mem = SNIC_SPIN_MEM_L2H, .size = 4096 };
	struct snic_spin_mem_alloc a;
	struct snic_spin_mem_rw rw;
	struct snic_spin_ctx_create cc, cc2;
	struct snic_spin_ctx_ref ref;
	struct snic_spin_attach at;
	struct snic_spin_region_add rg;
	struct snic_spin_events ev;
	struct snic_spin_event evbuf[4];
	struct snic_spin_stats st;
	struct snic_spin_ctx_stats cs;
	struct snic_spin_info info, info2;
	uint32_t back[2], code1, hmem1;
	int fd1, fd2, i, r;
	void *map;

	if (argc < 2) {
		fprintf(stderr, "usage: spin-ioctl-test PREFIX [DEV] | --uffd-stall DEV\n");
		return 2;
	}
	if (!strcmp(argv[1], "--uffd-stall"))
		return uffd_stall(dev);
	prefix = argv[1];
	fd1 = open(dev, O_RDWR);
	fd2 = open(dev, O_RDWR);
	if (fd1 < 0 || fd2 < 0) {
		printf("FAIL %s/open: %s: %s\n", prefix, dev, strerror(errno));
		return 1;
	}
	expect_errno("info", fd1, SNIC_SPIN_IOC_INFO, &info, 0);
	result("info_values", info.clusters * info.hpus_per_cluster > 0 &&
	       info.pmem_size == SNIC_SPIN_PMEM_SIZE &&
	       info.l2h_size == SNIC_SPIN_L2H_SIZE, "clusters %ld hpus %ld",
	       info.clusters, info.hpus_per_cluster);
	expect_errno("unknown_ioctl", fd1, _IO(SNIC_SPIN_IOC_MAGIC, 0x7f), NULL,
		     ENOTTY);

	/* Memory */
	a = (struct snic_spin_mem_alloc){ .mem = 7, .size = 64 };
	expect_errno("alloc_bad_mem", fd1, SNIC_SPIN_IOC_MEM_ALLOC, &a, EINVAL);
	a = (struct snic_spin_mem_alloc){ .mem = SNIC_SPIN_MEM_L2H };
	expect_errno("alloc_size_0", fd1, SNIC_SPIN_IOC_MEM_ALLOC, &a, EINVAL);
	a.size = SNIC_SPIN_L2H_SIZE + 1;
	expect_errno("alloc_too_big", fd1, SNIC_SPIN_IOC_MEM_ALLOC, &a, EINVAL);
	expect_errno("alloc_prog", fd1, SNIC_SPIN_IOC_MEM_ALLOC, &pm, 0);
	expect_errno("alloc_l2h", fd1, SNIC_SPIN_IOC_MEM_ALLOC, &hm, 0);
	code1 = pm.id;
	hmem1 = hm.id;
	expect_errno("info_after_alloc", fd1, SNIC_SPIN_IOC_INFO, &info2, 0);
	result("free_bytes_drop", info2.pmem_free == info.pmem_free - 4096 &&
	       info2.l2h_free == info.l2h_free - 4096, "pmem_free %ld -> %ld",
	       info.pmem_free, info2.pmem_free);

	rw = (struct snic_spin_mem_rw){ .id = pm.id, .offset = 4000,
					.data = (uintptr_t)code, .len = 200 };
	expect_errno("write_past_alloc", fd1, SNIC_SPIN_IOC_MEM_WRITE, &rw, EINVAL);
	rw.offset = 0;
	rw.len = 0;
	expect_errno("write_len_0", fd1, SNIC_SPIN_IOC_MEM_WRITE, &rw, EINVAL);
	rw.len = 8;
	rw.data = 16;	/* not a user address */
	expect_errno("write_bad_pointer", fd1, SNIC_SPIN_IOC_MEM_WRITE, &rw, EFAULT);
	rw.data = (uintptr_t)code;
	expect_errno("write_other_file", fd2, SNIC_SPIN_IOC_MEM_WRITE, &rw, ENOENT);
	expect_errno("write_code", fd1, SNIC_SPIN_IOC_MEM_WRITE, &rw, 0);
	memset(back, 0, sizeof(back));
	rw.data = (uintptr_t)back;
	expect_errno("read_code", fd1, SNIC_SPIN_IOC_MEM_READ, &rw, 0);
	result("read_back_equal", !memcmp(back, code, 8), "%#lx %#lx",
	       back[0], back[1]);
	rw.offset = 8;
	expect_errno("read_zeroed", fd1, SNIC_SPIN_IOC_MEM_READ, &rw, 0);
	result("alloc_is_zeroed", !back[0] && !back[1], "%#lx %#lx", back[0],
	       back[1]);

	/* Contexts */
	memset(&cc, 0, sizeof(cc));
	cc.entry[SPIN_HANDLER_HEADER] = SPIN_CODE_BASE;
	cc.code_id = pm.id;
	cc.hmem_id = hm.id;
	cc.copy_bytes = 128;
	cc.rsvd[1] = 1;
	expect_errno("create_rsvd", fd1, SNIC_SPIN_IOC_CTX_CREATE, &cc, EINVAL);
	cc.rsvd[1] = 0;
	cc.ev_log_size = SNIC_SPIN_MAX_LOG_EV + 1;
	expect_errno("create_ev_log", fd1, SNIC_SPIN_IOC_CTX_CREATE, &cc, EINVAL);
	cc.ev_log_size = 0;
	cc.code_id = hm.id;
	expect_errno("create_code_in_l2h", fd1, SNIC_SPIN_IOC_CTX_CREATE, &cc, EINVAL);
	cc.code_id = pm.id;
	cc.entry[SPIN_HANDLER_HEADER] = SPIN_CODE_BASE + 0x10000;
	expect_errno("create_entry_outside", fd1, SNIC_SPIN_IOC_CTX_CREATE, &cc,
		     EINVAL);
	cc.entry[SPIN_HANDLER_HEADER] = SPIN_CODE_BASE;
	cc.watchdog = SNIC_SPIN_WATCHDOG_MAX + 1;
	expect_errno("create_watchdog", fd1, SNIC_SPIN_IOC_CTX_CREATE, &cc, EINVAL);
	cc.watchdog = 0;
	cc.code_id = 999;
	expect_errno("create_no_alloc", fd1, SNIC_SPIN_IOC_CTX_CREATE, &cc, ENOENT);
	cc.code_id = pm.id;
	expect_errno("create", fd1, SNIC_SPIN_IOC_CTX_CREATE, &cc, 0);
	a = (struct snic_spin_mem_alloc){ .id = pm.id };
	expect_errno("free_in_use", fd1, SNIC_SPIN_IOC_MEM_FREE, &a, EBUSY);

	/* Another file may read the statistics, not change the context. */
	ref = (struct snic_spin_ctx_ref){ .ctx = cc.ctx };
	expect_errno("destroy_not_owner", fd2, SNIC_SPIN_IOC_CTX_DESTROY, &ref, EPERM);
	at = (struct snic_spin_attach){ .ctx = cc.ctx, .port = 9999 };
	expect_errno("attach_not_owner", fd2, SNIC_SPIN_IOC_ATTACH, &at, EPERM);
	ev = (struct snic_spin_events){ .ctx = cc.ctx, .max = 4,
					.buf = (uintptr_t)evbuf };
	expect_errno("events_not_owner", fd2, SNIC_SPIN_IOC_EVENTS, &ev, EPERM);
	rg = (struct snic_spin_region_add){ .ctx = cc.ctx, .size = 4096,
		.flags = SNIC_SPIN_REGION_WRITE };
	expect_errno("region_not_owner", fd2, SNIC_SPIN_IOC_REGION_ADD, &rg, EPERM);
	st = (struct snic_spin_stats){ .ctx = cc.ctx, .len = sizeof(cs),
				       .buf = (uintptr_t)&cs };
	expect_errno("stats_other_file", fd2, SNIC_SPIN_IOC_STATS, &st, 0);
	st.len = 0;
	expect_errno("stats_len_0", fd1, SNIC_SPIN_IOC_STATS, &st, EINVAL);
	st.len = sizeof(cs) + 1;
	expect_errno("stats_len_big", fd1, SNIC_SPIN_IOC_STATS, &st, EINVAL);
	st.len = sizeof(cs);
	st.ctx = SNIC_SPIN_MAX_CTXS;
	expect_errno("stats_bad_ctx", fd1, SNIC_SPIN_IOC_STATS, &st, EINVAL);
	ref.ctx = 12345;
	expect_errno("destroy_unknown", fd1, SNIC_SPIN_IOC_CTX_DESTROY, &ref, ENOENT);

	/* Attachments */
	at = (struct snic_spin_attach){ .ctx = cc.ctx, .port = 0 };
	expect_errno("attach_port_0", fd1, SNIC_SPIN_IOC_ATTACH, &at, EINVAL);
	at.port = 70000;
	expect_errno("attach_port_big", fd1, SNIC_SPIN_IOC_ATTACH, &at, EINVAL);
	at.port = 9999;
	at.type = SNIC_SPIN_ATTACH_QP;	/* no QP 9999 on this snic */
	expect_errno("attach_qp_unknown", fd1, SNIC_SPIN_IOC_ATTACH, &at, ENOENT);
	at.port = SNIC_SPIN_QPN_NONE;
	expect_errno("attach_qp_none", fd1, SNIC_SPIN_IOC_ATTACH, &at, EINVAL);
	at.port = 9999;
	at.type = 9;
	expect_errno("attach_bad_type", fd1, SNIC_SPIN_IOC_ATTACH, &at, EINVAL);
	at.type = SNIC_SPIN_ATTACH_UDP;
	expect_errno("attach", fd1, SNIC_SPIN_IOC_ATTACH, &at, 0);
	expect_errno("attach_same_port", fd1, SNIC_SPIN_IOC_ATTACH, &at, EBUSY);
	for (i = 1, r = 0; i < SNIC_SPIN_MAX_ATTACH && !r; i++) {
		at.port = 9999 - i;
		r = do_ioctl(fd1, SNIC_SPIN_IOC_ATTACH, &at);
	}
	result("attach_max", !r, "errno %ld at attachment %ld", r, i);
	at.port = 9000;
	expect_errno("attach_past_max", fd1, SNIC_SPIN_IOC_ATTACH, &at, ENOSPC);
	at.id = 1;
	expect_errno("detach", fd1, SNIC_SPIN_IOC_DETACH, &at, 0);
	expect_errno("detach_twice", fd1, SNIC_SPIN_IOC_DETACH, &at, ENOENT);

	/* A second owner's context cannot take the first one's port. */
	expect_errno("alloc_prog_2", fd2, SNIC_SPIN_IOC_MEM_ALLOC, &pm, 0);
	expect_errno("alloc_l2h_2", fd2, SNIC_SPIN_IOC_MEM_ALLOC, &hm, 0);
	rw = (struct snic_spin_mem_rw){ .id = pm.id, .data = (uintptr_t)code,
					.len = 8 };
	expect_errno("write_code_2", fd2, SNIC_SPIN_IOC_MEM_WRITE, &rw, 0);
	cc2 = cc;
	cc2.code_id = pm.id;
	cc2.hmem_id = hm.id;
	expect_errno("create_2", fd2, SNIC_SPIN_IOC_CTX_CREATE, &cc2, 0);
	at = (struct snic_spin_attach){ .ctx = cc2.ctx, .port = 9999 };
	expect_errno("attach_taken_port", fd2, SNIC_SPIN_IOC_ATTACH, &at, EBUSY);

	/* Host regions */
	rg = (struct snic_spin_region_add){ .ctx = cc.ctx, .size = 0,
		.flags = SNIC_SPIN_REGION_WRITE };
	expect_errno("region_size_0", fd1, SNIC_SPIN_IOC_REGION_ADD, &rg, EINVAL);
	rg.size = 64ull << 20;
	expect_errno("region_too_big", fd1, SNIC_SPIN_IOC_REGION_ADD, &rg, EINVAL);
	rg.size = 8192;
	rg.flags = 0;
	expect_errno("region_no_flags", fd1, SNIC_SPIN_IOC_REGION_ADD, &rg, EINVAL);
	rg.flags = 8;
	expect_errno("region_bad_flags", fd1, SNIC_SPIN_IOC_REGION_ADD, &rg, EINVAL);
	rg.flags = SNIC_SPIN_REGION_READ | SNIC_SPIN_REGION_WRITE;
	expect_errno("region_add", fd1, SNIC_SPIN_IOC_REGION_ADD, &rg, 0);
	result("region_bus_addr", rg.bus_addr && rg.size == 8192 &&
	       rg.index < SNIC_SPIN_MAX_REGIONS, "bus %#lx size %ld",
	       (long)rg.bus_addr, (long)rg.size);
	map = mmap(NULL, 16384, PROT_READ | PROT_WRITE, MAP_SHARED, fd1,
		   rg.mmap_offset);
	result("mmap_too_long", map == MAP_FAILED, "mapped %#lx%.0ld", (long)map, 0L);
	map = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd2,
		   rg.mmap_offset);
	result("mmap_other_file", map == MAP_FAILED, "mapped %#lx%.0ld", (long)map, 0L);
	map = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd1,
		   rg.mmap_offset);
	result("mmap", map != MAP_FAILED, "errno %ld%.0ld", errno, 0L);
	if (map != MAP_FAILED) {
		result("region_zeroed", !((uint32_t *)map)[100], "word %#lx%.0ld",
		       ((uint32_t *)map)[100], 0);
		((uint32_t *)map)[100] = 0x5a5a;
	}

	/* Events: none yet */
	ev = (struct snic_spin_events){ .ctx = cc.ctx, .max = 4,
					.buf = (uintptr_t)evbuf };
	expect_errno("events_empty", fd1, SNIC_SPIN_IOC_EVENTS, &ev, 0);
	result("events_none", ev.count == 0, "count %ld%.0ld", ev.count, 0L);
	result("events_notifies_0", ev.notifies == 0, "notifies %ld%.0ld",
	       ev.notifies, 0L);
	{
		/* Nothing on any ring: poll() times out, POLLIN not set. */
		struct pollfd pfd = { .fd = fd1, .events = POLLIN };
		int r = poll(&pfd, 1, 100);

		result("poll_no_events", r == 0, "poll %ld revents %#lx", r,
		       pfd.revents);
	}

	/* Destroying a context leaves its mapped region readable. */
	ref = (struct snic_spin_ctx_ref){ .ctx = cc.ctx };
	expect_errno("destroy", fd1, SNIC_SPIN_IOC_CTX_DESTROY, &ref, 0);
	st = (struct snic_spin_stats){ .ctx = cc.ctx, .len = sizeof(cs),
				       .buf = (uintptr_t)&cs };
	expect_errno("stats_destroyed", fd2, SNIC_SPIN_IOC_STATS, &st, ENOENT);
	if (map != MAP_FAILED) {
		result("mapping_outlives_context", ((uint32_t *)map)[100] == 0x5a5a,
		       "word %#lx%.0ld", ((uint32_t *)map)[100], 0L);
		munmap(map, 8192);
	}
	expect_errno("attach_destroyed_port", fd2, SNIC_SPIN_IOC_ATTACH, &at, 0);

	/* Closing the owner destroys its contexts and frees their ports. */
	cc.code_id = code1;
	cc.hmem_id = hmem1;
	expect_errno("create_3", fd1, SNIC_SPIN_IOC_CTX_CREATE, &cc, 0);
	at = (struct snic_spin_attach){ .ctx = cc.ctx, .port = 9990 };
	expect_errno("attach_3", fd1, SNIC_SPIN_IOC_ATTACH, &at, 0);
	close(fd1);
	st.ctx = cc.ctx;
	expect_errno("context_gone_after_close", fd2, SNIC_SPIN_IOC_STATS, &st,
		     ENOENT);
	at = (struct snic_spin_attach){ .ctx = cc2.ctx, .port = 9990 };
	expect_errno("attach_freed_port", fd2, SNIC_SPIN_IOC_ATTACH, &at, 0);
	close(fd2);
	fd1 = open(dev, O_RDWR);
	expect_errno("info_after_close", fd1, SNIC_SPIN_IOC_INFO, &info2, 0);
	result("memory_returned", info2.pmem_free == info.pmem_free &&
	       info2.l2h_free == info.l2h_free, "pmem_free %ld, was %ld",
	       info2.pmem_free, info.pmem_free);
	close(fd1);
	return failed;
}
