/*
 * pcap_read.h - TCP byte streams out of a capture file (pcap or pcapng, through libpcap).
 *
 * A lab captures traffic between two iWARP stacks; judging it needs each direction of each
 * TCP connection as the receiver saw it: one ordered byte stream. This reader parses the
 * link layers captures come in (Ethernet with VLAN tags, raw IP, Linux cooked SLL and SLL2,
 * BSD loopback), IPv4 and IPv6, and TCP; groups segments by connection (the 4-tuple, a new
 * SYN after the end of one starts the next); and reassembles each direction in sequence order.
 *
 * Reassembly takes every octet once: retransmissions and overlaps add nothing (an overlap whose
 * octets differ from the first copy is counted, since a receiver may keep either), segments out
 * of order are put in place. A hole (octets never captured, or cut by the snap length) is not
 * guessed across: the stream ends at the hole and the hole is reported, so a decoder can say
 * "not judged past here" instead of misframing. FIN and RST are noted with their frames.
 *
 * Frame numbers count from 1, as Wireshark shows them, over every record of the file.
 */
#ifndef IW_PCAP_READ_H
#define IW_PCAP_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where the octets from a stream offset on came from. */
typedef struct iw_pcap_piece {
	uint64_t off;           /* stream offset of the first octet this frame added */
	uint64_t frame;
} iw_pcap_piece;

typedef struct iw_pcap_stream {
	uint8_t *data;          /* the reassembled octets, up to the first hole */
	size_t len;
	iw_pcap_piece *pieces;  /* sorted by off */
	size_t npieces;
	bool syn;               /* the SYN was captured: offset 0 is the first data octet */
	uint32_t isn;           /* its sequence number (without a SYN: that of the lowest octet seen) */
	uint64_t first_frame, last_frame;   /* of the segments of this direction (0: none) */
	/* The stream stops at a hole of hole_len octets at offset len (when hole). */
	bool hole;
	uint64_t hole_len;      /* 0 when its size is unknown (the snap length cut the last frame) */
	uint64_t hole_frame;    /* the frame after the hole (or the cut frame) */
	uint64_t beyond;        /* octets captured after the hole, not in data */
	bool fin, rst;
	uint64_t fin_frame, rst_frame;
	uint64_t fin_off;       /* stream offset the FIN follows */
	size_t segments;        /* segments with data */
	size_t retransmitted;   /* segments that added no new octet */
	size_t out_of_order;    /* segments that arrived before an octet preceding them */
	size_t conflicts;       /* overlapping segments whose octets differ from the first copy */
	uint64_t conflict_off;  /* the first differing octet's offset and frame */
	uint64_t conflict_frame;
} iw_pcap_stream;

typedef struct iw_pcap_conn {
	int family;             /* 4 or 6 */
	uint8_t addr[2][16];    /* [0] the client (the SYN's sender, or the first sender seen) */
	uint16_t port[2];
	bool handshake;         /* the client's SYN was captured */
	uint64_t first_frame;
	iw_pcap_stream dir[2];  /* [0] client to server, [1] server to client */
} iw_pcap_conn;

typedef struct iw_pcap_capture {
	int linktype;           /* DLT_ value */
	const char *linkname;
	uint64_t frames;        /* records read */
	uint64_t non_tcp;       /* frames that were not TCP over IPv4/IPv6 (ARP, UDP, fragments, ...) */
	iw_pcap_conn *conns;
	size_t nconns;
	char warning[256];      /* a problem that did not stop reading (a truncated last record), or "" */
} iw_pcap_capture;

/* True when the first octets are a pcap or pcapng magic number (either byte order). */
bool iw_pcap_magic(const uint8_t *buf, size_t len);

/* Reads a capture file. On error returns -1 with msg naming the file and the problem (not a
 * capture, an unsupported link type, ...); *out is then NULL. A record cut short at the end
 * of the file is not an error: reading stops there and warning says so. */
int iw_pcap_read(const char *path, iw_pcap_capture **out, char *msg, size_t msgcap);

void iw_pcap_capture_free(iw_pcap_capture *c);

/* The frame that carried stream octet off (0 when none did). */
uint64_t iw_pcap_frame_of(const iw_pcap_stream *s, uint64_t off);

/* "10.0.0.1:40001" or "[fe80::1]:4791" for side 0 or 1 of a connection. */
void iw_pcap_endpoint(const iw_pcap_conn *c, int side, char *buf, size_t cap);

#endif
