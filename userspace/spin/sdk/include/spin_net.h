/*
 * spin_net.h: Ethernet / IPv4 / UDP headers as handlers see them in the
 * packet area, and the byte-order and checksum helpers they need.
 *
 * The packet starts with its Ethernet header, so the IPv4 header is only
 * 2-byte aligned: the structs are packed with 2-byte alignment and the
 * compiler splits wider loads accordingly.
 */
#ifndef SPIN_NET_H
#define SPIN_NET_H

#include <stdint.h>

#define SPIN_ETH_HLEN		14
#define SPIN_ETH_P_IP		0x0800
#define SPIN_IPPROTO_UDP	17

struct spin_eth {
	uint8_t dst[6];
	uint8_t src[6];
	uint16_t type;		/* big endian */
} __attribute__((packed, aligned(2)));

struct spin_ip {
	uint8_t ver_ihl;
	uint8_t tos;
	uint16_t tot_len;
	uint16_t id;
	uint16_t frag;
	uint8_t ttl;
	uint8_t proto;
	uint16_t check;
	uint32_t saddr;
	uint32_t daddr;
} __attribute__((packed, aligned(2)));

struct spin_udp {
	uint16_t source;
	uint16_t dest;
	uint16_t len;
	uint16_t check;
} __attribute__((packed, aligned(2)));

/* Ethernet + IPv4 without options + UDP: what every example expects. */
struct spin_udp_pkt {
	struct spin_eth eth;
	struct spin_ip ip;
	struct spin_udp udp;
} __attribute__((packed, aligned(2)));

#define SPIN_UDP_HLEN	((uint32_t)sizeof(struct spin_udp_pkt))	/* 42 */

static inline uint16_t spin_htons(uint16_t x)
{
	return __builtin_bswap16(x);
}

static inline uint32_t spin_htonl(uint32_t x)
{
	return __builtin_bswap32(x);
}

#define spin_ntohs spin_htons
#define spin_ntohl spin_htonl

/*
 * The UDP packet at @p of @len bytes: NULL unless it is Ethernet + IPv4
 * (no options, not a fragment) + UDP and the headers fit in @len.
 */
static inline struct spin_udp_pkt *spin_udp_parse(void *p, uint32_t len)
{
	struct spin_udp_pkt *u = p;

	if (len < SPIN_UDP_HLEN || u->eth.type != spin_htons(SPIN_ETH_P_IP) ||
	    u->ip.ver_ihl != 0x45 || u->ip.proto != SPIN_IPPROTO_UDP ||
	    (u->ip.frag & spin_htons(0x3fff)))
		return 0;
	return u;
}

/* Payload bytes the UDP header announces (0 if inconsistent). */
static inline uint32_t spin_udp_payload_len(const struct spin_udp_pkt *u)
{
	uint32_t l = spin_ntohs(u->udp.len);

	return l >= sizeof(struct spin_udp) ? l - sizeof(struct spin_udp) : 0;
}

/*
 * The payload of the UDP packet @u (from spin_udp_parse() on @pkt_len
 * bytes): its start, and in @len what the header announces clipped to
 * what the handler has of the packet.
 */
static inline const uint8_t *spin_udp_payload(const struct spin_udp_pkt *u,
					      uint32_t pkt_len, uint32_t *len)
{
	uint32_t l = spin_udp_payload_len(u);

	if (l > pkt_len - SPIN_UDP_HLEN)
		l = pkt_len - SPIN_UDP_HLEN;
	*len = l;
	return (const uint8_t *)u + SPIN_UDP_HLEN;
}

/*
 * 32-bit load / store at any address.  The HPU does misaligned accesses in
 * one instruction (docs/snic-spin.md), which C cannot express without
 * undefined behaviour: hence the inline assembly.
 */
static inline uint32_t spin_ld32u(const void *p)
{
	uint32_t v;

	__asm__ volatile("lw %0, 0(%1)" : "=r"(v) : "r"(p) : "memory");
	return v;
}

static inline void spin_st32u(void *p, uint32_t v)
{
	__asm__ volatile("sw %0, 0(%1)" : : "r"(v), "r"(p) : "memory");
}

/* The same at a constant byte offset from p (one instruction each). */
#define SPIN_LD32U(p, off) ({ \
	uint32_t v_; \
	__asm__ volatile("lw %0, %2(%1)" : "=r"(v_) : "r"(p), "i"(off) : "memory"); \
	v_; })
#define SPIN_ST32U(p, off, v) \
	__asm__ volatile("sw %0, %2(%1)" : : "r"(v), "r"(p), "i"(off) : "memory")

/*
 * Turn a received UDP packet around in place: swap MAC and IP addresses
 * and UDP ports.  The checksums stay valid (the sums are unchanged), so
 * the packet can be sent as is, or with checksum offload after changes.
 */
static inline void spin_udp_swap(struct spin_udp_pkt *u)
{
	uint8_t *p = (uint8_t *)u;
	uint32_t d0 = SPIN_LD32U(p, 0), s0 = SPIN_LD32U(p, 6);
	uint16_t d1 = *(uint16_t *)(p + 4), s1 = *(uint16_t *)(p + 10);
	uint32_t sa = SPIN_LD32U(p, 26), da = SPIN_LD32U(p, 30);
	uint16_t sp = u->udp.source, dp = u->udp.dest;

	SPIN_ST32U(p, 0, s0);
	*(uint16_t *)(p + 4) = s1;
	SPIN_ST32U(p, 6, d0);
	*(uint16_t *)(p + 10) = d1;
	SPIN_ST32U(p, 26, da);
	SPIN_ST32U(p, 30, sa);
	u->udp.source = dp;
	u->udp.dest = sp;
}

/* Incremental checksum update (RFC 1624) when a 16-bit field changes. */
static inline uint16_t spin_csum_replace2(uint16_t check, uint16_t old,
					  uint16_t new)
{
	uint32_t s = (uint16_t)~check + (uint16_t)~old + new;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

#endif /* SPIN_NET_H */
