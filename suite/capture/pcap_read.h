/*
 * pcap_read.h - TCP byte streams out of a capture file (pcap or pcapng, through libpcap).
 *
 * A lab captures traffic between two iWARP stacks; judging it needs each direction of each
 * TCP connection as the receiver saw it: one ordered byte stream. This reader parses the
 * link layers captures come in (Ethernet with VLAN tags, raw IP, Linux cooked SLL and SLL2,
 * BSD loopback), IPv4 and IPv6, and TCP; groups segments by connection (the 4-tuple, a new
 * SYN after the end of one starts the next); and reassembles each direction in sequence order
 * (tcp_reasm.h).
 *
 * Reassembly takes every octet once: retransmissions and overlaps add nothing (an overlap whose
 * octets differ from the first copy is counted, since a receiver may keep either), segments out
 * of order are put in place. A hole (octets never captured, or cut by the snap length) is not
 * guessed across: the stream ends at the hole and the hole is reported, so a decoder can say
 * "not judged past here" instead of misframing. FIN and RST are noted with their frames.
 *
 * Two ways to read (tcp_conns.h holds the connections in between):
 *  - iw_pcap_each_conn() streams: a connection is handed to the caller when it ends (an RST
 *    from either side, or a FIN from each, then IW_PCAP_LINGER_FRAMES more frames for the last
 *    ACKs and retransmissions), when a new SYN reuses its ports, or when the capture ends, and
 *    is freed after the call. Memory is bounded by the connections open at once, never by the
 *    capture: at most max_conns are held (past that the least recently active one is closed
 *    early, "evicted"), and the octets held by all of them stay under max_held (past that the
 *    least recently active others are evicted, and a direction that alone fills the budget
 *    stops there: its stream says so with cut). Segments that arrive for a connection already
 *    handed out are counted as late, not made into a new connection.
 *  - iw_pcap_read() reads the whole capture into memory with no limits, for the callers that
 *    want every connection at once (vectors, tests, the fuzz target).
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

/* Why a direction stopped being kept before its end (iw_pcap_stream.cut). */
enum iw_pcap_cut {
	IW_PCAP_CUT_NONE = 0,
	IW_PCAP_CUT_BUDGET,     /* the octets held by all connections reached max_held */
	IW_PCAP_CUT_PIECES,     /* more out-of-order pieces waited for a gap than one direction holds */
	IW_PCAP_CUT_NOMEM,      /* an allocation failed */
};

typedef struct iw_pcap_stream {
	uint8_t *data;          /* the reassembled octets, up to the first hole (NULL when len is 0) */
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
	uint64_t beyond;        /* octets captured after the hole (or the cut), not in data */
	/* The reader stopped keeping octets at offset len for the reason given (not a hole of the
	 * capture: its limits, pcap_read.h); beyond counts what came after. */
	enum iw_pcap_cut cut;
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
	uint64_t number;        /* 1 for the first connection the capture shows, and so on */
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
	iw_pcap_conn *conns;    /* in the order they started */
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

/* ---- streaming ---- */

#define IW_PCAP_MAX_CONNS_DEFAULT 65536u
#define IW_PCAP_MAX_HELD_DEFAULT (1024u << 20)      /* 1 GiB of octets */
/* An ended connection is handed out this many frames after its end: the last ACK and late
 * retransmissions still belong to it. */
#define IW_PCAP_LINGER_FRAMES 256u

typedef struct iw_pcap_limits {
	size_t max_conns;       /* connections held at once (0: unlimited) */
	size_t max_held;        /* octets held by all of them, buffers included (0: unlimited) */
	uint64_t linger;        /* frames an ended connection waits (UINT64_MAX: until the capture ends) */
} iw_pcap_limits;

/* IW_PCAP_MAX_CONNS_DEFAULT, IW_PCAP_MAX_HELD_DEFAULT, IW_PCAP_LINGER_FRAMES. */
void iw_pcap_limits_default(iw_pcap_limits *l);

/* Why a connection was handed out. */
enum iw_pcap_why {
	IW_PCAP_END_CLOSED,     /* it ended: an RST, or a FIN each way */
	IW_PCAP_END_REUSED,     /* a new SYN took its ports before it ended */
	IW_PCAP_END_CAPTURE,    /* the capture ended while it was open */
	IW_PCAP_END_EVICTED,    /* more than max_conns were open: it was the least recently active */
	IW_PCAP_END_OVER_HELD,  /* the octets held reached max_held: it was the least recently active */
};

typedef struct iw_pcap_end {
	enum iw_pcap_why why;
	uint64_t frame;         /* the frame that ended it (CLOSED), else the last frame read then */
	size_t limit;           /* EVICTED: max_conns; OVER_HELD: max_held */
} iw_pcap_end;

/* What the file is and what reading it took. */
typedef struct iw_pcap_info {
	int linktype;
	const char *linkname;
	uint64_t frames;
	uint64_t non_tcp;
	uint64_t conns;         /* connections seen */
	uint64_t evicted;       /* handed out early for max_conns or max_held */
	uint64_t late;          /* segments of connections already handed out, not judged */
	size_t peak_open;       /* most connections held at once */
	size_t peak_held;       /* most octets held at once */
	char warning[256];
} iw_pcap_info;

typedef struct iw_pcap_sink {
	void *ctx;
	/* Once, after the file header was read (info has the link type). May be NULL. */
	void (*start)(void *ctx, const iw_pcap_info *info);
	/* Each connection as it is handed out. c is freed after the call, except the data and
	 * pieces of a stream the callee takes (setting the pointers to NULL). */
	void (*conn)(void *ctx, iw_pcap_conn *c, const iw_pcap_end *end);
} iw_pcap_sink;

/* Reads the capture at path, handing out every connection (open ones at the end, in the order
 * they started). Returns 0, or -1 with msg (the file cannot be read as a capture, or reading
 * failed partway: the connections handed out so far stay handed out). info (may be NULL) is
 * filled either way. */
int iw_pcap_each_conn(const char *path, const iw_pcap_limits *lim, const iw_pcap_sink *sink, iw_pcap_info *info,
		      char *msg, size_t msgcap);

/* ---- records ---- */

/* One record of a capture file, as libpcap hands it out. */
typedef struct iw_pcap_record {
	uint64_t frame;         /* from 1, as Wireshark numbers them */
	uint64_t ts_usec;       /* microseconds since the Unix epoch */
	const uint8_t *data;    /* caplen octets, valid during the call only */
	size_t caplen, len;     /* captured, and on the wire */
	int family;             /* 4 or 6 when the record is a TCP segment over IP, else 0 */
	size_t ip_off, tcp_off; /* where its IP and TCP headers begin in data (when family) */
} iw_pcap_record;

/* Hands every record of the capture at path to fn, in file order, after the link type is known
 * (*linktype, a DLT_ value). For callers that copy records, not streams: a file that ends inside
 * a record is an error here, not a warning, so no caller copies part of a capture as if it were
 * whole. Returns 0; -1 with msg (the file cannot be read, a link iwspec does not parse, or a
 * record cut by the file's end); or the first nonzero value fn returns (fn fills msg then). */
int iw_pcap_each_record(const char *path, int *linktype, int (*fn)(void *ctx, const iw_pcap_record *r),
			void *ctx, char *msg, size_t msgcap);

#endif
