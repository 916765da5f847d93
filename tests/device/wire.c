/*
 * The wire of the device tests (see wire.h).
 */
#include <sys/socket.h>
#include <unistd.h>
#include "qtest.h"
#include "wire.h"

int inj = -1;

bool inj_open(int *qemu_fd, int rcvbuf)
{
	inj_close();
	return qt_udp_pair(qemu_fd, &inj, rcvbuf);
}

void inj_close(void)
{
	if (inj >= 0)
		close(inj);
	inj = -1;
}

bool inj_send(const void *f, size_t len)
{
	return send(inj, f, len, 0) == (ssize_t)len;
}

int cap_recv(void *buf, size_t len, int ms)
{
	return qt_udp_recv(inj, buf, len, ms);
}
