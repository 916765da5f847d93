// SPDX-License-Identifier: GPL-2.0
/*
 * snic-xsk: receive frames through an AF_XDP socket (libxdp's xsk API,
 * its default redirect program attached in native mode).
 *
 *   snic-xsk [-z] IFNAME QUEUE COUNT SECONDS
 *
 * Binds in copy mode (-z: zero-copy), receives until COUNT IPv4 ICMP
 * frames came in or SECONDS passed, and prints
 *   "bound copy|zerocopy", then "rx FRAMES icmp ICMP".
 * Exit status 0 if COUNT ICMP frames came, 1 otherwise, 2 if the socket
 * could not be set up (the error is printed).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <xdp/xsk.h>

#define NUM_FRAMES	1024
#define FRAME_SIZE	XSK_UMEM__DEFAULT_FRAME_SIZE

static int usage(void)
{
	fprintf(stderr, "usage: snic-xsk [-z] IFNAME QUEUE COUNT SECONDS\n");
	return 2;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int is_icmp(const unsigned char *p, unsigned int len)
{
	const struct ethhdr *eth = (const void *)p;
	const struct iphdr *ip = (const void *)(p + sizeof(*eth));

	return len >= sizeof(*eth) + sizeof(*ip) &&
	       eth->h_proto == htons(ETH_P_IP) && ip->protocol == IPPROTO_ICMP;
}

int main(int argc, char **argv)
{
	struct xsk_socket_config cfg = {
		.rx_size = XSK_RING_CONS__DEFAULT_NUM_DESCS,
		.tx_size = XSK_RING_PROD__DEFAULT_NUM_DESCS,
		.xdp_flags = XDP_FLAGS_DRV_MODE,
		.bind_flags = XDP_COPY,
	};
	unsigned long rx = 0, icmp = 0, want;
	struct xsk_ring_prod fill, tx;
	struct xsk_ring_cons comp, rxr;
	struct xsk_socket *xsk;
	struct xsk_umem *umem;
	double deadline;
	int ret, i = 1;
	unsigned int queue;
	__u32 idx;
	void *buf;

	if (argc > 1 && !strcmp(argv[1], "-z")) {
		cfg.bind_flags = XDP_ZEROCOPY;
		i++;
	}
	if (argc - i != 4)
		return usage();
	queue = strtoul(argv[i + 1], NULL, 0);
	want = strtoul(argv[i + 2], NULL, 0);
	deadline = now() + strtod(argv[i + 3], NULL);

	buf = mmap(NULL, NUM_FRAMES * FRAME_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	ret = xsk_umem__create(&umem, buf, NUM_FRAMES * FRAME_SIZE, &fill,
			       &comp, NULL);
	if (ret) {
		fprintf(stderr, "xsk_umem__create: %s\n", strerror(-ret));
		return 2;
	}
	ret = xsk_socket__create(&xsk, argv[i], queue, umem, &rxr, &tx, &cfg);
	if (ret) {
		fprintf(stderr, "xsk_socket__create %s queue %u (%s): %s\n",
			argv[i], queue,
			cfg.bind_flags == XDP_ZEROCOPY ? "zerocopy" : "copy",
			strerror(-ret));
		xsk_umem__delete(umem);
		return 2;
	}
	printf("bound %s\n", cfg.bind_flags == XDP_ZEROCOPY ? "zerocopy" :
							      "copy");
	fflush(stdout);

	/* All frames to the fill ring. */
	if (xsk_ring_prod__reserve(&fill, XSK_RING_PROD__DEFAULT_NUM_DESCS,
				   &idx) != XSK_RING_PROD__DEFAULT_NUM_DESCS) {
		fprintf(stderr, "cannot fill the fill ring\n");
		return 2;
	}
	for (__u32 f = 0; f < XSK_RING_PROD__DEFAULT_NUM_DESCS; f++)
		*xsk_ring_prod__fill_addr(&fill, idx + f) = f * FRAME_SIZE;
	xsk_ring_prod__submit(&fill, XSK_RING_PROD__DEFAULT_NUM_DESCS);

	while (icmp < want && now() < deadline) {
		struct pollfd pfd = { .fd = xsk_socket__fd(xsk),
				      .events = POLLIN };
		__u32 n, k;

		if (poll(&pfd, 1, 100) < 0 && errno != EINTR) {
			perror("poll");
			break;
		}
		n = xsk_ring_cons__peek(&rxr, 64, &idx);
		if (!n)
			continue;
		for (k = 0; k < n; k++) {
			const struct xdp_desc *d =
				xsk_ring_cons__rx_desc(&rxr, idx + k);
			__u32 fidx;

			rx++;
			icmp += is_icmp(xsk_umem__get_data(buf, d->addr),
					d->len);
			/* The frame goes back to the fill ring. */
			while (xsk_ring_prod__reserve(&fill, 1, &fidx) != 1)
				;
			*xsk_ring_prod__fill_addr(&fill, fidx) =
				xsk_umem__extract_addr(d->addr);
			xsk_ring_prod__submit(&fill, 1);
		}
		xsk_ring_cons__release(&rxr, n);
	}
	printf("rx %lu icmp %lu\n", rx, icmp);
	xsk_socket__delete(xsk);
	xsk_umem__delete(umem);
	return icmp >= want ? 0 : 1;
}
