/*
 * The wire of the device tests: a port of QEMU's hub 0 that is a datagram
 * socket (-netdev dgram over qt_udp_pair) whose other end the test holds,
 * to capture every frame on the hub and inject frames no queue can
 * produce.  One per QEMU, in the global inj.
 */
#ifndef D2D_WIRE_H
#define D2D_WIRE_H

#include <stdbool.h>
#include <stddef.h>

/* QEMU arguments of the wire port, for the qemu_fd of inj_open (%d). */
#define WIRE_QEMU_ARGS	"-netdev dgram,id=inj,local.type=fd,local.str=%d " \
			"-netdev hubport,id=p2,hubid=0,netdev=inj "

extern int inj;			/* the test's end, -1 when closed */

/* Close any previous wire, open a new one (SO_RCVBUF @rcvbuf, 0 = default). */
bool inj_open(int *qemu_fd, int rcvbuf);
void inj_close(void);
bool inj_send(const void *f, size_t len);
/* Next captured frame (its length) within @ms, or -1. */
int cap_recv(void *buf, size_t len, int ms);

#endif
