// SPDX-License-Identifier: GPL-2.0
/*
 * snic-xsk: receive or send frames through an AF_XDP socket (libxdp's xsk
 * API, its default redirect program attached in native mode), in copy or
 * zero-copy mode.  snic-xsk --help describes it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <netinet/ether.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <xdp/xsk.h>

#define NUM_FRAMES	1024
/* frames [0, RX_FRAMES) feed the fill ring, the rest are sent */
#define RX_FRAMES	(NUM_FRAMES / 2)
#define BATCH		64

static const char help[] =
"usage: snic-xsk [OPTIONS] IFNAME QUEUE COUNT SECONDS\n"
"\n"
"Bind an AF_XDP socket to queue QUEUE of IFNAME, with libxdp's redirect\n"
"program (an xskmap) attached in native mode, and receive or send.\n"
"\n"
"Receive (the default): until COUNT IPv4 ICMP frames came in or SECONDS\n"
"passed; every frame received goes back to the fill ring.  Prints\n"
"  bound copy|zerocopy\n"
"once the socket is bound (in zero-copy mode: once the driver has taken\n"
"every frame of the fill ring, so frames arriving after that line find\n"
"receive buffers), then\n"
"  rx FRAMES icmp ICMP icmp_bytes BYTES\n"
"(all frames, the IPv4 ICMP ones, and their bytes from the Ethernet\n"
"header on).\n"
"\n"
"Send (--tx): COUNT IPv4 UDP frames of --size bytes from the UMEM to\n"
"--dst-mac, then waits until the completion ring has given all of them\n"
"back or SECONDS passed.  Prints \"bound ...\", then\n"
"  tx SENT completed DONE\n"
"\n"
"Options:\n"
"  -z, --zero-copy      bind with XDP_ZEROCOPY: the NIC receives into and\n"
"                       sends from the UMEM itself.  Where the driver has\n"
"                       no zero-copy mode the bind fails (exit status 2,\n"
"                       \"Operation not supported\").\n"
"  -c, --copy           bind with XDP_COPY: the kernel copies between its\n"
"                       buffers and the UMEM (the default)\n"
"  -w, --need-wakeup    bind with XDP_USE_NEED_WAKEUP: the driver asks for\n"
"                       a wakeup (poll, sendto) only when it needs one\n"
"  -t, --tx             send instead of receiving\n"
"  -m, --dst-mac MAC    destination MAC of the frames sent (required with\n"
"                       --tx); the source MAC is IFNAME's\n"
"  -S, --src-ip ADDR    source IPv4 address (default 10.0.0.1)\n"
"  -D, --dst-ip ADDR    destination IPv4 address (default 10.0.0.2)\n"
"  -p, --dst-port PORT  UDP destination port (default 9, discard)\n"
"  -s, --size BYTES     frame size, Ethernet header on, FCS off\n"
"                       (60 to half the UMEM frame size, default 128)\n"
"  -f, --frame-size N   UMEM frame size, 2048 or 4096 (the default); the\n"
"                       kernel keeps 256 bytes of each as XDP headroom, so\n"
"                       a frame takes N - 256 bytes of packet, and a\n"
"                       zero-copy driver refuses a bind whose frames are\n"
"                       too small for the interface's MTU\n"
"  -h, --help           this text\n"
"\n"
"AF_XDP sockets need CAP_NET_RAW (and libxdp's program CAP_NET_ADMIN and\n"
"CAP_BPF): without them the first step fails with \"Operation not\n"
"permitted\".\n"
"\n"
"Exit status: 0 when COUNT frames came in (were sent and completed),\n"
"1 when SECONDS passed first or the socket failed (the error is\n"
"printed: an interface going away gives \"Network is down\"), 2 when\n"
"the socket could not be set up or the arguments are wrong.\n";

struct xsk {
	struct xsk_ring_prod fill, tx;
	struct xsk_ring_cons comp, rx;
	struct xsk_socket *sock;
	struct xsk_umem *umem;
	void *buf;
	unsigned int frame;	/* UMEM frame size */
	int fd;
	int need_wakeup;	/* bound with XDP_USE_NEED_WAKEUP */
};

/* Whether ring @r (fill or TX) wants a kick: always, without need_wakeup. */
static int kick_due(const struct xsk *x, const struct xsk_ring_prod *r)
{
	return !x->need_wakeup || xsk_ring_prod__needs_wakeup(r);
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

/*
 * A pending socket error: the interface went away (the socket is unbound,
 * poll() then reports nothing, SO_ERROR says ENETDOWN).  Printed, true.
 */
static int sock_failed(struct xsk *x)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(x->fd, SOL_SOCKET, SO_ERROR, &err, &len))
		err = errno;
	if (!err)
		return 0;
	fprintf(stderr, "AF_XDP socket: %s\n", strerror(err));
	return 1;
}

/*
 * Wait for the socket up to 100 ms (a zero-copy wakeup, if one is due);
 * true if it failed.
 */
static int wait_sock(struct xsk *x, short events)
{
	struct pollfd pfd = { .fd = x->fd, .events = events };
	int n = poll(&pfd, 1, 100);

	if (n < 0 && errno != EINTR) {
		perror("poll");
		return 1;
	}
	return n <= 0 || (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) ?
	       sock_failed(x) : 0;
}

/* The UMEM frame at @addr back to the fill ring. */
static void refill(struct xsk *x, __u64 addr)
{
	__u32 idx;

	while (xsk_ring_prod__reserve(&x->fill, 1, &idx) != 1)
		;
	*xsk_ring_prod__fill_addr(&x->fill, idx) = addr;
	xsk_ring_prod__submit(&x->fill, 1);
}

/*
 * Zero-copy: until the driver took every frame of the fill ring for its
 * receive queue (the consumer caught up with the producer).
 */
static int wait_filled(struct xsk *x, double deadline)
{
	while (xsk_prod_nb_free(&x->fill, x->fill.size) < x->fill.size) {
		if (now() >= deadline) {
			fprintf(stderr, "the driver did not take the fill ring\n");
			return 1;
		}
		if (kick_due(x, &x->fill))
			recvfrom(x->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
		if (wait_sock(x, POLLIN))
			return 1;
	}
	return 0;
}

struct rx_count {
	unsigned long rx, icmp, bytes;
};

/* Take what the RX ring holds, the frames back to the fill ring. */
static void rx_take(struct xsk *x, struct rx_count *c)
{
	__u32 n, k, idx;

	n = xsk_ring_cons__peek(&x->rx, BATCH, &idx);
	for (k = 0; k < n; k++) {
		const struct xdp_desc *d =
			xsk_ring_cons__rx_desc(&x->rx, idx + k);

		c->rx++;
		if (is_icmp(xsk_umem__get_data(x->buf, d->addr), d->len)) {
			c->icmp++;
			c->bytes += d->len;
		}
		refill(x, xsk_umem__extract_addr(d->addr));
	}
	if (n)
		xsk_ring_cons__release(&x->rx, n);
}

static int do_rx(struct xsk *x, unsigned long want, double deadline)
{
	struct rx_count c = { };
	int ret = 0;

	while (c.icmp < want && now() < deadline) {
		if (wait_sock(x, POLLIN)) {
			ret = 1;
			break;
		}
		rx_take(x, &c);
	}
	printf("rx %lu icmp %lu icmp_bytes %lu\n", c.rx, c.icmp, c.bytes);
	return ret || c.icmp < want;
}

/* One IPv4 UDP frame of @size bytes at @p. */
static void build_frame(unsigned char *p, unsigned int size,
			const unsigned char *dst, const unsigned char *src,
			struct in_addr sip, struct in_addr dip,
			unsigned int dport)
{
	struct ethhdr *eth = (void *)p;
	struct iphdr *ip = (void *)(eth + 1);
	struct udphdr *udp = (void *)(ip + 1);
	unsigned int sum = 0, i;

	memset(p, 0, size);
	memcpy(eth->h_dest, dst, ETH_ALEN);
	memcpy(eth->h_source, src, ETH_ALEN);
	eth->h_proto = htons(ETH_P_IP);
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons(size - sizeof(*eth));
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->saddr = sip.s_addr;
	ip->daddr = dip.s_addr;
	for (i = 0; i < sizeof(*ip) / 2; i++)
		sum += ((const __u16 *)ip)[i];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip->check = ~sum;
	udp->source = htons(9999);
	udp->dest = htons(dport);
	udp->len = htons(size - sizeof(*eth) - sizeof(*ip));
	/* checksum 0: none */
	for (i = sizeof(*eth) + sizeof(*ip) + sizeof(*udp); i < size; i++)
		p[i] = i;
}

static int do_tx(struct xsk *x, unsigned long want, double deadline,
		 unsigned int size)
{
	unsigned long sent = 0, done = 0;
	__u64 free_frames[NUM_FRAMES - RX_FRAMES];
	struct rx_count c = { };
	unsigned int nfree = 0, f;
	int ret = 0;

	for (f = RX_FRAMES; f < NUM_FRAMES; f++)
		free_frames[nfree++] = (__u64)f * x->frame;
	while (done < want && now() < deadline) {
		__u32 n, k, idx;

		n = want - sent < nfree ? want - sent : nfree;
		if (n > BATCH)
			n = BATCH;
		if (n && xsk_ring_prod__reserve(&x->tx, n, &idx) == n) {
			for (k = 0; k < n; k++) {
				struct xdp_desc *d =
					xsk_ring_prod__tx_desc(&x->tx, idx + k);

				d->addr = free_frames[--nfree];
				d->len = size;
			}
			xsk_ring_prod__submit(&x->tx, n);
			sent += n;
		}
		/* Copy mode sends in sendto(); zero-copy when asked to. */
		if (kick_due(x, &x->tx) &&
		    sendto(x->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
		    errno != EAGAIN && errno != EBUSY && errno != ENOBUFS) {
			fprintf(stderr, "sendto: %s\n", strerror(errno));
			ret = 1;
			break;
		}
		/* Frames that come in meanwhile go back to the fill ring. */
		rx_take(x, &c);
		n = xsk_ring_cons__peek(&x->comp, BATCH, &idx);
		for (k = 0; k < n; k++)
			free_frames[nfree++] =
				*xsk_ring_cons__comp_addr(&x->comp, idx + k);
		if (n) {
			xsk_ring_cons__release(&x->comp, n);
			done += n;
		} else if (wait_sock(x, POLLOUT)) {
			ret = 1;
			break;
		}
	}
	printf("tx %lu completed %lu\n", sent, done);
	return ret || done < want;
}

static int if_mac(const char *ifname, unsigned char *mac)
{
	struct ifreq ifr = { };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ret;

	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ret = ioctl(fd, SIOCGIFHWADDR, &ifr);
	close(fd);
	if (!ret)
		memcpy(mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "zero-copy", no_argument, NULL, 'z' },
		{ "copy", no_argument, NULL, 'c' },
		{ "need-wakeup", no_argument, NULL, 'w' },
		{ "tx", no_argument, NULL, 't' },
		{ "dst-mac", required_argument, NULL, 'm' },
		{ "src-ip", required_argument, NULL, 'S' },
		{ "dst-ip", required_argument, NULL, 'D' },
		{ "dst-port", required_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 's' },
		{ "frame-size", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct xsk_socket_config cfg = {
		.rx_size = XSK_RING_CONS__DEFAULT_NUM_DESCS,
		.tx_size = XSK_RING_PROD__DEFAULT_NUM_DESCS,
		.xdp_flags = XDP_FLAGS_DRV_MODE,
		.bind_flags = XDP_COPY,
	};
	unsigned char dst[ETH_ALEN], src[ETH_ALEN];
	struct in_addr sip = { htonl(0x0a000001) }, dip = { htonl(0x0a000002) };
	unsigned int size = 128, dport = 9, queue, f;
	int zc = 0, tx = 0, have_dst = 0, opt, ret;
	unsigned long want;
	struct xsk_umem_config umem_cfg = {
		.fill_size = XSK_RING_PROD__DEFAULT_NUM_DESCS,
		.comp_size = XSK_RING_CONS__DEFAULT_NUM_DESCS,
		.frame_headroom = XSK_UMEM__DEFAULT_FRAME_HEADROOM,
	};
	struct xsk x = { .frame = XSK_UMEM__DEFAULT_FRAME_SIZE };
	double deadline;
	__u32 idx;

	while ((opt = getopt_long(argc, argv, "zcwtm:S:D:p:s:f:h", opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'z':
			zc = 1;
			break;
		case 'c':
			zc = 0;
			break;
		case 'w':
			cfg.bind_flags |= XDP_USE_NEED_WAKEUP;
			break;
		case 't':
			tx = 1;
			break;
		case 'm':
			if (!ether_aton_r(optarg, (struct ether_addr *)dst)) {
				fprintf(stderr, "bad MAC '%s'\n", optarg);
				return 2;
			}
			have_dst = 1;
			break;
		case 'S':
		case 'D':
			if (!inet_aton(optarg, opt == 'S' ? &sip : &dip)) {
				fprintf(stderr, "bad IPv4 address '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'p':
			dport = strtoul(optarg, NULL, 0);
			break;
		case 's':
			size = strtoul(optarg, NULL, 0);
			break;
		case 'f':
			x.frame = strtoul(optarg, NULL, 0);
			break;
		case 'h':
			fputs(help, stdout);
			return 0;
		default:
			fputs(help, stderr);
			return 2;
		}
	}
	if (argc - optind != 4 || (tx && !have_dst) || size < 60 ||
	    (x.frame != 2048 && x.frame != 4096) || size > x.frame / 2) {
		fputs(help, stderr);
		return 2;
	}
	cfg.bind_flags = (cfg.bind_flags & ~XDP_COPY) |
			 (zc ? XDP_ZEROCOPY : XDP_COPY);
	queue = strtoul(argv[optind + 1], NULL, 0);
	want = strtoul(argv[optind + 2], NULL, 0);
	deadline = now() + strtod(argv[optind + 3], NULL);
	if (tx && if_mac(argv[optind], src)) {
		fprintf(stderr, "%s: %s\n", argv[optind], strerror(errno));
		return 2;
	}

	umem_cfg.frame_size = x.frame;
	x.buf = mmap(NULL, NUM_FRAMES * x.frame, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (x.buf == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	ret = xsk_umem__create(&x.umem, x.buf, NUM_FRAMES * x.frame,
			       &x.fill, &x.comp, &umem_cfg);
	if (ret) {
		fprintf(stderr, "xsk_umem__create: %s\n", strerror(-ret));
		return 2;
	}
	ret = xsk_socket__create(&x.sock, argv[optind], queue, x.umem, &x.rx,
				 &x.tx, &cfg);
	if (ret) {
		fprintf(stderr, "xsk_socket__create %s queue %u (%s): %s\n",
			argv[optind], queue, zc ? "zerocopy" : "copy",
			strerror(-ret));
		xsk_umem__delete(x.umem);
		return 2;
	}
	x.fd = xsk_socket__fd(x.sock);
	x.need_wakeup = !!(cfg.bind_flags & XDP_USE_NEED_WAKEUP);

	/* Half the frames to the fill ring, the other half to send. */
	if (xsk_ring_prod__reserve(&x.fill, RX_FRAMES, &idx) != RX_FRAMES) {
		fprintf(stderr, "cannot fill the fill ring\n");
		return 2;
	}
	for (f = 0; f < RX_FRAMES; f++)
		*xsk_ring_prod__fill_addr(&x.fill, idx + f) =
			(__u64)f * x.frame;
	xsk_ring_prod__submit(&x.fill, RX_FRAMES);
	for (f = RX_FRAMES; tx && f < NUM_FRAMES; f++)
		build_frame(xsk_umem__get_data(x.buf, (__u64)f * x.frame),
			    size, dst, src, sip, dip, dport);
	if (zc && wait_filled(&x, deadline)) {
		ret = 1;
		goto out;
	}
	printf("bound %s\n", zc ? "zerocopy" : "copy");
	fflush(stdout);

	ret = tx ? do_tx(&x, want, deadline, size) : do_rx(&x, want, deadline);
out:
	xsk_socket__delete(x.sock);
	xsk_umem__delete(x.umem);
	return ret;
}
