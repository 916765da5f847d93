/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A user buffer whose first touch stalls on userfaultfd, for the tests that
 * check a driver holds no lock of its own while it copies user memory
 * (spin-ioctl-test --uffd-stall, hdc-hostile uffd-stall).
 *
 * uffd_stall_run(len, fn) maps @len bytes registered with a userfaultfd,
 * starts fn(buf) in a thread, waits until the thread faults on the buffer,
 * prints "STALLED", waits for SIGUSR1 (the test's cue), resolves the fault
 * with zero pages and joins the thread.  Any failure exits with status 1.
 */
#ifndef D2D_UFFD_STALL_H
#define D2D_UFFD_STALL_H

#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline void uffd_stall_die(const char *what)
{
	perror(what);
	exit(1);
}

static inline void uffd_stall_run(size_t len, void *(*fn)(void *))
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct uffdio_zeropage zp;
	struct uffd_msg msg;
	sigset_t set;
	pthread_t th;
	int uffd, sig;
	void *buf;

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
		uffd_stall_die("userfaultfd");
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		uffd_stall_die("mmap");
	reg.range.start = (uintptr_t)buf;
	reg.range.len = len;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		uffd_stall_die("UFFDIO_REGISTER");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&th, NULL, fn, buf))
		uffd_stall_die("pthread_create");
	if (read(uffd, &msg, sizeof(msg)) != sizeof(msg))
		uffd_stall_die("read userfaultfd");
	printf("STALLED\n");
	fflush(stdout);
	sigwait(&set, &sig);
	zp.range.start = (uintptr_t)buf;
	zp.range.len = len;
	zp.mode = 0;
	if (ioctl(uffd, UFFDIO_ZEROPAGE, &zp))
		uffd_stall_die("UFFDIO_ZEROPAGE");
	pthread_join(th, NULL);
	close(uffd);
}

#endif
