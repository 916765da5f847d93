/*
 * snic: RoCEv2 wire format - Ethernet/IPv4 or IPv6/UDP encapsulation, the IB
 * transport headers (BTH, RETH, AETH, AtomicETH, AtomicAckETH, ImmDt, IETH,
 * DETH), the opcode table and the ICRC (IBA Annex A17).  Pure C (no QEMU
 * headers) so the host unit tests check it directly
 * (tests/unit/test_snic_roce.c).  docs/snic-rdma.md "Wire format".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_D2D_SNIC_ROCE_H
#define HW_D2D_SNIC_ROCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ROCE_UDP_PORT       4791
#define ROCE_IP_HLEN        20
#define ROCE_IP6_HLEN       40
#define ROCE_ETHERTYPE_IPV6 0x86dd
#define ROCE_UDP_HLEN       8
#define ROCE_BTH_LEN        12
#define ROCE_RETH_LEN       16
#define ROCE_AETH_LEN       4
#define ROCE_ATMETH_LEN     28
#define ROCE_ATMACK_LEN     8
#define ROCE_IMM_LEN        4
#define ROCE_IETH_LEN       4
#define ROCE_DETH_LEN       8
#define ROCE_XRCETH_LEN     4
#define ROCE_ICRC_LEN       4
#define ROCE_CNP_RSVD_LEN   16      /* reserved bytes after a CNP's BTH */
/* Ethernet + IPv4 + UDP before the BTH */
#define ROCE_L4_OFF         (14 + ROCE_IP_HLEN)
#define ROCE_BTH_OFF        (ROCE_L4_OFF + ROCE_UDP_HLEN)
/* Largest header stack: Ethernet, IPv6, UDP, BTH + XRCETH + AtomicETH */
#define ROCE_MAX_HDRS       (14 + ROCE_IP6_HLEN + ROCE_UDP_HLEN + \
                             ROCE_BTH_LEN + ROCE_XRCETH_LEN + ROCE_ATMETH_LEN)
#define ROCE_PKEY_DEFAULT   0xffff

/*
 * BTH opcodes: bits 7:5 the transport class (RC 0x00, UC 0x20, UD 0x60,
 * XRC 0xa0), bits 4:0 the operation.  The RC values are listed; a UC
 * opcode is ROCE_OP_UC | the RC SEND/WRITE operation (0x20..0x2b), an XRC
 * opcode ROCE_OP_XRC | any RC operation (0xa0..0xb7), its requests with
 * the XRCETH after the BTH.
 */
#define ROCE_OP_CLASS_MASK  0xe0
#define ROCE_OP_UC          0x20
#define ROCE_OP_XRC         0xa0
enum {
    ROCE_SEND_FIRST = 0x00,
    ROCE_SEND_MIDDLE = 0x01,
    ROCE_SEND_LAST = 0x02,
    ROCE_SEND_LAST_IMM = 0x03,
    ROCE_SEND_ONLY = 0x04,
    ROCE_SEND_ONLY_IMM = 0x05,
    ROCE_WRITE_FIRST = 0x06,
    ROCE_WRITE_MIDDLE = 0x07,
    ROCE_WRITE_LAST = 0x08,
    ROCE_WRITE_LAST_IMM = 0x09,
    ROCE_WRITE_ONLY = 0x0a,
    ROCE_WRITE_ONLY_IMM = 0x0b,
    ROCE_READ_REQ = 0x0c,
    ROCE_READ_RESP_FIRST = 0x0d,
    ROCE_READ_RESP_MIDDLE = 0x0e,
    ROCE_READ_RESP_LAST = 0x0f,
    ROCE_READ_RESP_ONLY = 0x10,
    ROCE_ACK = 0x11,
    ROCE_ATOMIC_ACK = 0x12,
    ROCE_CMP_SWAP = 0x13,
    ROCE_FETCH_ADD = 0x14,
    ROCE_SEND_LAST_INV = 0x16,
    ROCE_SEND_ONLY_INV = 0x17,
    ROCE_UD_SEND_ONLY = 0x64,
    ROCE_UD_SEND_ONLY_IMM = 0x65,
    /* RoCEv2 Congestion Notification Packet (IBA Annex A17.9.3) */
    ROCE_CNP = 0x81,
};

/*
 * Custom requests (FlexiNS offload, docs/snic-rdma.md "Custom opcodes"):
 * the RC opcodes the IBA leaves to manufacturers (0xc0..0xdf), each one
 * packet: BTH, RETH (dlen: the response length), request payload.  The
 * responder's handler answers with READ response packets.
 */
#define ROCE_CUSTOM_FIRST   0xc0
#define ROCE_CUSTOM_LAST    0xdf
#define ROCE_CUSTOM_NUM     (ROCE_CUSTOM_LAST - ROCE_CUSTOM_FIRST + 1)

/* What an opcode carries and means (snic_roce_opflags). */
#define ROCE_F_RETH     (1u << 0)
#define ROCE_F_AETH     (1u << 1)
#define ROCE_F_ATMETH   (1u << 2)
#define ROCE_F_ATMACK   (1u << 3)
#define ROCE_F_IMM      (1u << 4)
#define ROCE_F_IETH     (1u << 5)
#define ROCE_F_DETH     (1u << 6)
#define ROCE_F_PAYLOAD  (1u << 7)   /* may carry payload */
#define ROCE_F_REQ      (1u << 8)   /* requester -> responder */
#define ROCE_F_RESP     (1u << 9)   /* responder -> requester */
#define ROCE_F_SEND     (1u << 10)
#define ROCE_F_WRITE    (1u << 11)
#define ROCE_F_READ     (1u << 12)
#define ROCE_F_ATOMIC   (1u << 13)
#define ROCE_F_FIRST    (1u << 14)
#define ROCE_F_MIDDLE   (1u << 15)
#define ROCE_F_LAST     (1u << 16)
#define ROCE_F_ONLY     (ROCE_F_FIRST | ROCE_F_LAST)
#define ROCE_F_UD       (1u << 17)
#define ROCE_F_ACK      (1u << 18)  /* ACK or atomic ACK */
#define ROCE_F_CUSTOM   (1u << 19)  /* custom request (ROCE_CUSTOM_*) */
#define ROCE_F_CNP      (1u << 20)  /* congestion notification */
#define ROCE_F_UC       (1u << 21)  /* unreliable connected (class 0x20) */
#define ROCE_F_XRC      (1u << 22)  /* extended reliable connected (0xa0) */
#define ROCE_F_XRCETH   (1u << 23)  /* XRC request: XRCETH after the BTH */

/* AETH syndrome */
#define AETH_ACK            0x00
#define AETH_RNR_NAK        0x20
#define AETH_NAK            0x60
#define AETH_TYPE_MASK      0xe0
#define AETH_NAK_PSN_SEQ    0
#define AETH_NAK_INV_REQ    1
#define AETH_NAK_REM_ACCESS 2
#define AETH_NAK_REM_OP     3
#define AETH_ACK_UNLIMITED  0x1f

#define ROCE_PSN_MASK       0xffffffu

/* Every field of one RoCEv2 packet, host order. */
typedef struct SnicRoceHdr {
    /* Ethernet / IPv4 or IPv6 / UDP */
    uint8_t dmac[6], smac[6];
    bool v6;                        /* IPv6: sip6, dip6, flow */
    uint32_t sip, dip;              /* IPv4 */
    uint8_t sip6[16], dip6[16];     /* IPv6, network order */
    uint32_t flow;                  /* IPv6 flow label (20 bits) */
    uint8_t ttl, tos;               /* IPv6: hop limit, traffic class */
    uint16_t sport;
    bool vlan;                      /* 802.1Q: sent or received tagged */
    uint16_t vlan_tci;              /* its TCI (PCP, VID) */
    /* BTH */
    uint8_t opcode;
    bool se, mig, ackreq;
    uint8_t pad;
    uint8_t tver;
    uint16_t pkey;
    uint32_t dqpn, psn;
    /* extension headers, by opcode */
    uint64_t va;
    uint32_t rkey, dlen;            /* RETH, AtomicETH (va, rkey) */
    uint8_t syndrome;
    uint32_t msn;                   /* AETH */
    uint64_t swap_add, compare;     /* AtomicETH */
    uint64_t orig;                  /* AtomicAckETH */
    uint32_t imm;                   /* ImmDt, value as on the wire (BE) */
    uint32_t ieth;                  /* IETH rkey */
    uint32_t qkey, sqpn;            /* DETH */
    uint32_t xrc_srqn;              /* XRCETH: the XRC SRQ (24 bits) */
    /* parse results */
    const uint8_t *ip;              /* received IPv4 or IPv6 header */
    const uint8_t *payload;
    size_t paylen;
    /* the whole frame (set by the receive dispatch, for sPIN) */
    const uint8_t *frame;
    size_t frame_len;
} SnicRoceHdr;

typedef enum SnicRoceParse {
    ROCE_OK,
    ROCE_NOT_ROCE,          /* not IPv4/UDP to port 4791: Ethernet path */
    ROCE_MALFORMED,
    ROCE_BAD_ICRC,
} SnicRoceParse;

/* ROCE_F_* of @opcode, 0 if the device does not know it. */
uint32_t snic_roce_opflags(uint8_t opcode);
/* Transport header bytes (BTH included) of an opcode. */
size_t snic_roce_hdr_len(uint32_t opflags);

/*
 * Write the headers of @h for a packet of @paylen payload bytes at @f and
 * return the payload offset; the caller puts the payload there and calls
 * snic_roce_finish() for pad and ICRC, which returns the frame length.
 */
size_t snic_roce_build(uint8_t *f, SnicRoceHdr *h, size_t paylen);
size_t snic_roce_finish(uint8_t *f, const SnicRoceHdr *h, size_t paylen);

/* Parse and validate a received frame (ICRC included). */
SnicRoceParse snic_roce_parse(const uint8_t *f, size_t len, SnicRoceHdr *h);

/*
 * ICRC of a RoCEv2 packet: @ip points at the IPv4 or IPv6 header (its
 * version field says which), @len bytes up to (not including) the ICRC.
 */
uint32_t snic_roce_icrc(const uint8_t *ip, size_t len);

/* Signed distance a - b of two 24-bit PSNs. */
static inline int32_t snic_psn_diff(uint32_t a, uint32_t b)
{
    return (int32_t)((a - b) << 8) >> 8;
}

#endif
