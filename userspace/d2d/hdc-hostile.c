// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hdc-hostile: a hostile /dev/hdc user for the security tests.
 *
 *   hdc-hostile phys FILE
 *	print the byte address of FILE's first block on its file system's
 *	device (FS_IOC_FIEMAP; the test runs it as root on the victim)
 *   hdc-hostile chattr FILE LETTERS
 *	set flags of FILE as chattr +LETTERS does: a (append only),
 *	i (immutable), j (journalled data)
 *   hdc-hostile forkwait
 *	submit a NOWAIT request with a user destination, fork; the child
 *	waits for it ("child wait: ERRNO"), then the parent ("parent wait:")
 *   hdc-hostile race SRC DST PHYS LEN ITERS
 *	ITERS times: read SRC[0, LEN) into memory and write DST[0, LEN)
 *	with 'N' bytes, while a thread writes a forged extent (PHYS) into
 *	the page the next anonymous mapping would get, where a driver that
 *	passes extents through user memory would read them back.  Exit 1
 *	with "LEAK" if an output held the canary "CANARY-ROOT".
 *   hdc-hostile uffd-stall
 *	submit an MD5 of a user buffer that is backed by userfaultfd and
 *	never filled: print "STALLED" once the driver is stuck on it, wait
 *	for SIGUSR1, fill the buffer and print the request's outcome.
 *   hdc-hostile memhog N LEN
 *	submit N NOWAIT requests, each reading LEN bytes of a user buffer
 *	into a LEN-byte user buffer, without collecting them; print
 *	"accepted A refused R errno NAME", then collect them all and submit
 *	one more (printed as "after collect: ok" or its errno).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "libd2d.h"
#include "uffd_stall.h"

#define CANARY "CANARY-ROOT"

static void die(const char *what)
{
	fprintf(stderr, "hdc-hostile: %s: %s\n", what, strerror(errno));
	exit(2);
}

static int usage(void)
{
	fprintf(stderr, "usage: hdc-hostile phys FILE | chattr FILE LETTERS | forkwait |\n"
		"       race SRC DST PHYS LEN ITERS |\n"
		"       uffd-stall | memhog N LEN\n");
	return 2;
}

static int cmd_phys(const char *path)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent fe[1];
	} m;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		die(path);
	memset(&m, 0, sizeof(m));
	m.fm.fm_length = ~0ull;
	m.fm.fm_flags = FIEMAP_FLAG_SYNC;
	m.fm.fm_extent_count = 1;
	if (ioctl(fd, FS_IOC_FIEMAP, &m.fm) || m.fm.fm_mapped_extents != 1)
		die("FS_IOC_FIEMAP");
	printf("%llu\n", (unsigned long long)m.fe[0].fe_physical);
	close(fd);
	return 0;
}

static int cmd_chattr(const char *path, const char *letters)
{
	int fd = open(path, O_RDONLY), flags;

	if (fd < 0 || ioctl(fd, FS_IOC_GETFLAGS, &flags))
		die(path);
	for (; *letters; letters++) {
		if (*letters == 'a')
			flags |= FS_APPEND_FL;
		else if (*letters == 'i')
			flags |= FS_IMMUTABLE_FL;
		else if (*letters == 'j')
			flags |= FS_JOURNAL_DATA_FL;
		else
			return usage();
	}
	if (ioctl(fd, FS_IOC_SETFLAGS, &flags))
		die("FS_IOC_SETFLAGS");
	close(fd);
	return 0;
}

static const char *errname(int ret)
{
	return ret ? strerrorname_np(-ret) : "ok";
}

static int cmd_forkwait(void)
{
	static char in[4096], out[4096];
	int hdc = d2d_open(), status, ret;
	struct hdc_req req;
	struct hdc_wait w;
	pid_t pid;

	if (hdc < 0)
		die("open /dev/hdc");
	memset(in, 'f', sizeof(in));
	d2d_req_init(&req);
	req.flags = HDC_REQ_NOWAIT;
	d2d_ep_user(&req.src, in, sizeof(in));
	d2d_ep_user(&req.dst, out, sizeof(out));
	req.length = sizeof(in);
	ret = d2d_submit(hdc, &req);
	if (ret) {
		printf("submit: %s\n", errname(ret));
		return 1;
	}
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		printf("child wait: %s\n", errname(d2d_wait(hdc, req.id, 0, &w)));
		exit(0);
	}
	waitpid(pid, &status, 0);
	ret = d2d_wait(hdc, req.id, 0, &w);
	printf("parent wait: %s\n", errname(ret));
	if (!ret && memcmp(in, out, sizeof(in)))
		printf("parent: wrong data\n");
	return 0;
}

/* The race: the page the next anonymous mmap() would get. */
static volatile uintptr_t race_target;
static volatile int race_stop;
static struct fiemap_extent race_fake;
static __thread sigjmp_buf race_jmp;

static void race_segv(int sig)
{
	(void)sig;
	siglongjmp(race_jmp, 1);
}

static void *race_thread(void *arg)
{
	(void)arg;
	sigsetjmp(race_jmp, 1);
	while (!race_stop) {
		uintptr_t t = race_target;

		if (t)
			memcpy((void *)t, &race_fake, sizeof(race_fake));
	}
	return NULL;
}

/* Where the next page-sized anonymous mapping will be put. */
static uintptr_t next_mmap(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	munmap(p, 4096);
	return (uintptr_t)p;
}

static int cmd_race(char **argv)
{
	uint64_t phys = strtoull(argv[2], NULL, 0);
	uint64_t len = strtoull(argv[3], NULL, 0);
	long iters = atol(argv[4]), i;
	int hdc = d2d_open(), src, dst, errs = 0, leaks = 0;
	struct sigaction sa = { .sa_handler = race_segv };
	struct hdc_req req;
	pthread_t th;
	char *in, *out;

	src = open(argv[0], O_RDONLY);
	dst = open(argv[1], O_RDWR);
	if (hdc < 0 || src < 0 || dst < 0)
		die("open");
	in = malloc(len);
	out = malloc(len);
	if (!in || !out)
		die("malloc");
	memset(in, 'N', len);
	race_fake.fe_logical = 0;
	race_fake.fe_physical = phys;
	race_fake.fe_length = (len + 4095) & ~4095ull;
	race_fake.fe_flags = FIEMAP_EXTENT_LAST;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_NODEFER;
	if (sigaction(SIGSEGV, &sa, NULL))
		die("sigaction");
	if (pthread_create(&th, NULL, race_thread, NULL))
		die("pthread_create");
	for (i = 0; i < iters; i++) {
		race_target = next_mmap();
		d2d_req_init(&req);
		d2d_ep_fd(&req.src, src, 0);
		d2d_ep_user(&req.dst, out, len);
		req.length = len;
		memset(out, 0, len);
		if (d2d_submit(hdc, &req))
			errs++;
		else if (memmem(out, len, CANARY, strlen(CANARY)))
			leaks++;
		race_target = next_mmap();
		d2d_req_init(&req);
		d2d_ep_user(&req.src, in, len);
		d2d_ep_fd(&req.dst, dst, 0);
		req.length = len;
		if (d2d_submit(hdc, &req))
			errs++;
	}
	race_stop = 1;
	pthread_join(th, NULL);
	if (leaks) {
		printf("LEAK: the canary in %d of %ld outputs\n", leaks, iters);
		return 1;
	}
	printf("no leak in %ld requests (%d failed)\n", 2 * iters, errs);
	return 0;
}

/* uffd-stall */
static int stall_hdc;
static int stall_ret;

static void *stall_submit(void *buf)
{
	struct hdc_req req;

	d2d_req_init(&req);
	d2d_ep_user(&req.src, buf, 65536);
	req.length = 65536;
	req.nfuncs = 1;
	req.funcs[0] = HDC_FN_MD5;
	stall_ret = d2d_submit(stall_hdc, &req);
	return NULL;
}

static int cmd_uffd_stall(void)
{
	stall_hdc = d2d_open();
	if (stall_hdc < 0)
		die("open /dev/hdc");
	uffd_stall_run(65536, stall_submit);
	printf("submit: %s\n", errname(stall_ret));
	return 0;
}

static int cmd_memhog(char **argv)
{
	long n = atol(argv[0]), i, ok = 0, bad = 0;
	uint64_t len = strtoull(argv[1], NULL, 0);
	int hdc = d2d_open(), err = 0, ret;
	struct hdc_req req;
	struct hdc_wait w;
	uint64_t *ids;
	char *in, *out;

	if (hdc < 0)
		die("open /dev/hdc");
	ids = calloc(n, sizeof(*ids));
	in = malloc(len);
	out = malloc(len);
	if (!ids || !in || !out)
		die("malloc");
	memset(in, 'm', len);
	for (i = 0; i < n; i++) {
		d2d_req_init(&req);
		req.flags = HDC_REQ_NOWAIT;
		d2d_ep_user(&req.src, in, len);
		d2d_ep_user(&req.dst, out, len);
		req.length = len;
		ret = d2d_submit(hdc, &req);
		if (ret) {
			bad++;
			err = -ret;
		} else {
			ids[ok++] = req.id;
		}
	}
	printf("accepted %ld refused %ld errno %s\n", ok, bad,
	       err ? errname(-err) : "none");
	for (i = 0; i < ok; i++)
		if (d2d_wait(hdc, ids[i], 0, &w))
			printf("wait %llu failed\n", (unsigned long long)ids[i]);
	d2d_req_init(&req);
	d2d_ep_user(&req.src, in, len);
	d2d_ep_user(&req.dst, out, len);
	req.length = len;
	ret = d2d_submit(hdc, &req);
	printf("after collect: %s\n", errname(ret));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "phys"))
		return cmd_phys(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "chattr"))
		return cmd_chattr(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "forkwait"))
		return cmd_forkwait();
	if (argc == 7 && !strcmp(argv[1], "race"))
		return cmd_race(argv + 2);
	if (argc == 2 && !strcmp(argv[1], "uffd-stall"))
		return cmd_uffd_stall();
	if (argc == 4 && !strcmp(argv[1], "memhog"))
		return cmd_memhog(argv + 2);
	return usage();
}
