/*
 * rawtcp.h - the raw segment path: a TCP connection the harness owns in user space, so a case
 * can say which octets of its stream go in which segment, and in what order (issue 16).
 *
 * The kernel's TCP never hands the peer a segment out of order, a duplicate, or a
 * retransmission cut at other boundaries than the original; MPA's markers and an offloaded
 * TCP's direct placement exist for exactly those. Here the harness is the TCP sender: it
 * keeps its own sequence numbers, processes the DUT's ACKs, respects its window, and
 * retransmits what it holds back or drops; segments leave as Ethernet frames through a link
 * (a TAP device, raw_tap below). The receive side is deliberately simple: the DUT's data is
 * taken in order, ACKed at once, and handed to the caller as a byte stream (what the engine is
 * fed today); an out-of-order segment from the DUT is dropped and re-ACKed, so the DUT's TCP
 * retransmits it.
 *
 * The setup the tests use (docs/raw-segments.md):
 *
 *     namespace iwspec-raw                        |  the harness (root namespace)
 *     kernel TCP/IP, 10.214.0.1/24 on iwraw0  <--TAP-->  fd: this module plays 10.214.0.2
 *     the DUT listens on 10.214.0.1:P             |  (its own MAC, ARP answers, TCP)
 *
 *   iw_raw_link link;
 *   iw_raw_tap_open(&link, "iwspec-raw", "iwraw0", &e);       (needs CAP_NET_ADMIN)
 *   iw_raw_opts o; iw_raw_opts_default(&o);                     (10.214.0.2 -> 10.214.0.1)
 *   o.dut_port = P; o.on_frame = my_pcap_writer; o.frame_ctx = w;
 *   iw_raw_conn *c;
 *   iw_raw_connect(&c, &link, &o, 3000, &e);                    (ARP, SYN, SYN-ACK, ACK)
 *   iw_raw_step plan[] = { {IW_RAW_SEND, 40, 20, 0}, {IW_RAW_SEND, 20, 20, 0},
 *                          {IW_RAW_SEND, 0, 20, 0} };           (60 octets, in reverse)
 *   iw_raw_send_plan(c, octets, 60, plan, 3, 3000, &e);
 *   iw_raw_recv(c, buf, sizeof buf, &got, 3000, &e);            (the DUT's reply, in order)
 *   iw_raw_close(c, 3000, &e);                                  (FIN both ways)
 *   iw_raw_free(c);                                             (closes the link too)
 *
 * Every wait has a deadline (timeout_ms of the call); nothing blocks past it. Every function
 * returns IW_OK or a negative code (iw_err.h codes, or the IW_RAW_E* below) with e naming the
 * problem. Nothing prints or exits. One connection per link: the link's frames for other
 * addresses or ports are passed to on_frame and otherwise ignored.
 */
#ifndef IW_RAWTCP_H
#define IW_RAWTCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iw_err.h"

/* Codes beyond iw_err.h's, for the outcomes of a connection. */
enum iw_raw_rc {
	IW_RAW_ETIMEDOUT = -20,     /* the deadline passed first (e says what was awaited) */
	IW_RAW_ERESET = -21,        /* the DUT reset the connection */
	IW_RAW_ESYS = -22,          /* a system call failed (e has errno's words) */
	IW_RAW_EPERM = -23,         /* no CAP_NET_ADMIN, no /dev/net/tun, no such namespace: SKIP */
	IW_RAW_ESTOPPED = -24,      /* the owner's stop callback asked to end the wait (Ctrl-C) */
};

/* ---- the link: where Ethernet frames go and come from ---- */

/* A frame link. recv waits at most timeout_ms (0 = poll) and sets *got to 0 when nothing came. */
typedef struct iw_raw_link {
	int (*send)(void *ctx, const uint8_t *frame, size_t len, iw_err *e);
	int (*recv)(void *ctx, uint8_t *buf, size_t cap, size_t *got, int timeout_ms, iw_err *e);
	void (*close)(void *ctx);
	void *ctx;
} iw_raw_link;

/* Opens the TAP device ifname (IFF_TAP | IFF_NO_PI) inside the named network namespace
 * (`ip netns add NAME`; NULL = the caller's own). An existing persistent device (`ip tuntap add
 * dev IF mode tap`, addressed and up) is attached; otherwise a device is created that vanishes
 * when the link is closed (the caller then gives it an address and brings it up). Only the
 * calling thread enters the namespace, and only for the open. IW_RAW_EPERM, naming what is
 * missing, without CAP_NET_ADMIN, /dev/net/tun or the namespace. */
int iw_raw_tap_open(iw_raw_link *link, const char *netns, const char *ifname, iw_err *e);

/* ---- the connection ---- */

enum iw_raw_dir { IW_RAW_TX, IW_RAW_RX };

/* Called with every frame sent or received on the link, in that order (ARP included), for
 * the case's pcap: it shows the segments in the order they were sent. usec is the wall time. */
typedef void (*iw_raw_frame_fn)(void *ctx, enum iw_raw_dir dir, const uint8_t *frame, size_t len,
				uint64_t usec);

typedef struct iw_raw_opts {
	uint8_t local_ip[4];        /* the harness's address on the link (default 10.214.0.2) */
	uint8_t local_mac[6];       /* default 02:69:77:72:61:02 (locally administered) */
	uint16_t local_port;        /* 0 = one from 40000-59999, chosen at random */
	uint8_t dut_ip[4];          /* default 10.214.0.1 */
	uint16_t dut_port;          /* required */
	uint16_t mss;               /* MSS option of our SYN: the most the DUT may send per segment
	                             * (0 = 1460) */
	uint16_t window;            /* receive window we advertise (0 = 65535; no window scaling) */
	uint32_t rto_ms;            /* first retransmission timeout of sent, unacknowledged data
	                             * (0 = 200 ms; doubles on each expiry, at most 2 s) */
	iw_raw_frame_fn on_frame;   /* may be NULL */
	void *frame_ctx;
	/* May be NULL. Asked at least every 100 ms of every wait (a signal may wake another thread,
	 * not the waiting one); true ends the wait with IW_RAW_ESTOPPED, the connection kept. */
	bool (*stop)(void *ctx);
	void *stop_ctx;
} iw_raw_opts;

void iw_raw_opts_default(iw_raw_opts *o);

typedef struct iw_raw_conn iw_raw_conn;

/* Resolves the DUT's MAC (ARP), sends SYN with the MSS option, takes the SYN-ACK, ACKs it.
 * The connection owns link from here on, whatever the outcome (*out is NULL on error, the link
 * closed). IW_RAW_ERESET when the DUT answers RST (nothing listens on the port). */
int iw_raw_connect(iw_raw_conn **out, const iw_raw_link *link, const iw_raw_opts *o, int timeout_ms,
		   iw_err *e);

/* ---- segment plans ---- */

enum iw_raw_step_op {
	IW_RAW_SEND,                /* send octets [off, off+len) of this plan as one segment now */
	IW_RAW_HOLD,                /* build that segment but keep it back; a RELEASE sends it */
	IW_RAW_RELEASE,             /* send the oldest held segment (held by this plan or an earlier one) */
	IW_RAW_DROP,                /* "lose" that segment: it is sent only once the DUT's ACK stands
	                             * inside it and `dupacks` duplicate ACKs of that point have come,
	                             * as a TCP sender's fast retransmit would (RFC 5681 §3.2) */
	IW_RAW_WAIT_DUPACKS,        /* wait until `dupacks` duplicate ACKs stand at the DUT's ACK point
	                             * (then send a retransmission with any cut, as SEND steps) */
};

typedef struct iw_raw_step {
	enum iw_raw_step_op op;
	size_t off, len;            /* SEND, HOLD, DROP: octets of this plan's stream */
	unsigned dupacks;           /* DROP (0 = 3), WAIT_DUPACKS (at least 1) */
} iw_raw_step;

/* Checks a plan for n new octets before anything is sent: each segment inside [0, n), not
 * empty and at most mss octets; a RELEASE with something held (held_before segments are
 * still held from earlier plans); a WAIT_DUPACKS of at least one; every octet of [0, n) in
 * at least one SEND, HOLD or DROP (else the DUT waits for a hole forever). Duplicates,
 * overlaps and any order are allowed: that is what plans are for. */
int iw_raw_plan_check(const iw_raw_step *steps, size_t nsteps, size_t n, size_t mss, size_t held_before,
		      iw_err *e);

/* Plans that come up often, written into steps (cap entries); *nsteps is set. IW_ENOSPC when
 * cap is too small, IW_EINVAL for seg 0. */
int iw_raw_plan_in_order(iw_raw_step *steps, size_t cap, size_t *nsteps, size_t n, size_t seg, iw_err *e);
int iw_raw_plan_reverse(iw_raw_step *steps, size_t cap, size_t *nsteps, size_t n, size_t seg, iw_err *e);

/* Appends n octets to the stream and sends them as the plan says. Before each segment the
 * DUT's window must admit it (the call waits for ACKs that open it). Returns once every step
 * ran and every DROP was retransmitted; it does not wait for the DUT to ACK everything (see
 * iw_raw_wait_acked). Segments still held stay held for a later plan's RELEASE. */
int iw_raw_send_plan(iw_raw_conn *c, const uint8_t *octets, size_t n, const iw_raw_step *steps, size_t nsteps,
		     int timeout_ms, iw_err *e);

/* n octets in order, in segments of the DUT's MSS: the plain path, for the octets around a
 * crafted part. */
int iw_raw_send(iw_raw_conn *c, const uint8_t *octets, size_t n, int timeout_ms, iw_err *e);

/* Waits until the DUT has acknowledged every octet sent, retransmitting on timeout what was
 * sent and not acknowledged. IW_ESTATE when segments are still held (they would never be). */
int iw_raw_wait_acked(iw_raw_conn *c, int timeout_ms, iw_err *e);

/* ---- the DUT's side ---- */

/* Up to cap octets of the DUT's stream, in order. Waits for at least one; *got = 0 means the
 * DUT closed its side (FIN) and everything before it was read. IW_RAW_ERESET after a RST. */
int iw_raw_recv(iw_raw_conn *c, uint8_t *buf, size_t cap, size_t *got, int timeout_ms, iw_err *e);

/* ---- the end ---- */

/* Sends FIN after the last octet (IW_ESTATE when segments are still held), and waits until
 * the DUT has acknowledged it and sent its own FIN (which is ACKed). Data the DUT sends
 * meanwhile stays readable with iw_raw_recv. */
int iw_raw_close(iw_raw_conn *c, int timeout_ms, iw_err *e);

/* Sends RST (the harness aborts); the connection is dead afterwards. */
int iw_raw_reset(iw_raw_conn *c, iw_err *e);

/* Closes the link and frees c (NULL is fine). Sends nothing: call close or reset first. */
void iw_raw_free(iw_raw_conn *c);

/* What happened, for reports and tests. */
typedef struct iw_raw_stats {
	uint64_t segs_sent;         /* data segments sent, each retransmission and duplicate counted */
	uint64_t octets_sent;       /* payload octets in them */
	uint64_t retransmits;       /* segments resent on the retransmission timer */
	uint64_t drops_resent;      /* DROP steps sent after their duplicate ACKs */
	uint64_t dupacks;           /* duplicate ACKs seen from the DUT */
	uint64_t bad_frames;        /* frames failing a checksum or malformed: dropped */
	uint64_t ooo_dropped;       /* the DUT's out-of-order segments dropped and re-ACKed */
	uint64_t octets_received;   /* the DUT's stream octets taken in order */
	uint16_t dut_mss;           /* from the DUT's SYN-ACK (536 without the option) */
	uint16_t local_port;
} iw_raw_stats;

void iw_raw_stats_get(const iw_raw_conn *c, iw_raw_stats *s);

#endif
