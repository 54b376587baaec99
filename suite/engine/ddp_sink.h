/*
 * ddp_sink.h - the DDP data sink: validate each segment, then place it, then deliver
 * messages in order (D0/D2 §6-§9, §10.3-§10.4; RFC 5041).
 *
 * Tagged buffers are registered with an STag, a base TO, a length, the DDP stream and the
 * protection domain they belong to, and access rights. Untagged queues (QN) hold buffers
 * posted in order; the k-th posted buffer of a queue receives the message with the k-th MSN
 * from the queue's window start (the first MSN is 1, DDP-6.3-09).
 *
 * Every non-empty segment is checked before any octet is placed (DDP-10.1-01), in this order,
 * and the first failed check gives the error number of §9.2:
 *   both:     DV differs from the profile's        -> 0x1/0x04 (tagged) or 0x2/0x06 (untagged)
 *   tagged:   STag unknown or invalidated (T1, T2)  -> 0x1/0x00
 *             STag of another stream or PD (§10.3)  -> 0x1/0x02
 *             TO + length wraps 2^64 (T5)           -> 0x1/0x03
 *             TO or TO + length outside (T3, T4)    -> 0x1/0x01
 *             no access right for the operation     -> RDMAP 0x1/0x02 (DDP has no code for it)
 *   untagged: QN not valid on the stream (U1)       -> 0x2/0x01
 *             MSN below the window (completed) (U5) -> 0x2/0x03
 *             MSN past the last posted buffer (U2)  -> 0x2/0x02
 *             MO at or past the buffer end (U3)     -> 0x2/0x04
 *             MO + length past the buffer end (U4)  -> 0x2/0x05
 * (the A28 "strict" positions of requirements.md §6). The DV check applies to every segment,
 * zero-length ones included (D0 §7.2 keeps the control field of a zero-length segment valid).
 * A zero-length tagged segment gets no other check (DDP-7.2-10). A zero-length untagged
 * segment gets the QN and MSN checks (it must find the buffer it consumes) and, instead of
 * U3/U4, MO past the buffer end -> 0x2/0x04; with L it consumes its buffer and is delivered
 * with length MO (0 for a zero-length message: D2, A27). When a segment would leave more than
 * IW_SINK_MAX_RANGES disjoint placed ranges in its buffer, the sink fails with DDP local
 * catastrophic 0x0/0x00. After the first error every later segment is dropped silently
 * (DDP-9.1-03) and nothing is placed.
 *
 * Untagged messages are delivered once each, in MSN order, when their L segment has arrived
 * and every octet up to MO_last + len_last is placed (DDP-7.4-01/02); segments may arrive in
 * any MO order and may repeat.
 *
 * The sink never allocates: buffers are the caller's memory, bookkeeping is fixed-size.
 */
#ifndef IW_DDP_SINK_H
#define IW_DDP_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ddp.h"
#include "iw_err.h"
#include "profile.h"

#define IW_SINK_MAX_STAGS   16
#define IW_SINK_MAX_QUEUES  4       /* QN 0..3 can be made valid */
#define IW_SINK_MAX_POSTED  32      /* posted buffers per queue */
#define IW_SINK_MAX_RANGES  32      /* disjoint placed ranges tracked per untagged buffer */

enum iw_access { IW_ACCESS_REMOTE_READ = 1, IW_ACCESS_REMOTE_WRITE = 2 };

typedef struct iw_tagged_buf {
	uint32_t stag;
	uint64_t base_to;
	uint64_t length;
	uint32_t stream;            /* DDP stream the STag is bound to */
	uint32_t pd;                /* protection domain */
	unsigned access;            /* enum iw_access bits */
	bool valid;
	uint8_t *mem;               /* length octets, caller-owned */
} iw_tagged_buf;

typedef struct iw_untagged_buf {
	uint8_t *mem;               /* cap octets, caller-owned */
	uint32_t cap;
	uint32_t nranges;           /* placed octet ranges [lo, hi), sorted, disjoint */
	uint32_t lo[IW_SINK_MAX_RANGES], hi[IW_SINK_MAX_RANGES];
	bool last_seen;
	uint32_t msg_len;           /* MO + payload of the L segment, once seen */
	uint8_t rsvdulp[5];
} iw_untagged_buf;

typedef struct iw_untagged_queue {
	bool valid;
	uint32_t next_msn;          /* MSN of the oldest buffer not yet delivered */
	unsigned head, count;       /* ring of posted buffers */
	iw_untagged_buf bufs[IW_SINK_MAX_POSTED];
} iw_untagged_queue;

enum iw_sink_status {
	IW_SINK_PLACED,             /* validated and placed (or a valid zero-length segment) */
	IW_SINK_ERROR,              /* rejected: nothing placed, the sink is now failed */
	IW_SINK_DROPPED,            /* the sink had already failed: dropped silently */
};

typedef struct iw_sink_result {
	enum iw_sink_status status;
	int layer, etype, ecode;    /* on IW_SINK_ERROR: the Terminate fields (layer DDP unless access) */
	const char *req;            /* requirement ID of the failed check */
	char detail[160];
	bool tagged_last;           /* a tagged segment with L was placed: its message is complete */
} iw_sink_result;

typedef struct iw_sink_delivery {
	uint32_t qn, msn;
	const uint8_t *data;        /* the buffer's memory */
	uint32_t len;
	uint8_t rsvdulp[5];         /* of the L segment */
} iw_sink_delivery;

typedef struct iw_ddp_sink {
	const iw_profile *profile;
	uint32_t stream, pd;        /* this stream's identity */
	bool failed;
	size_t nstags;
	iw_tagged_buf stags[IW_SINK_MAX_STAGS];
	iw_untagged_queue queues[IW_SINK_MAX_QUEUES];
} iw_ddp_sink;

void iw_sink_init(iw_ddp_sink *s, const iw_profile *p, uint32_t stream, uint32_t pd);

/* Makes QN valid on this stream (queues start invalid; RDMAP uses 0, 1, 2). */
int iw_sink_enable_queue(iw_ddp_sink *s, uint32_t qn, iw_err *e);

/* Posts a receive buffer at the tail of queue qn. */
int iw_sink_post(iw_ddp_sink *s, uint32_t qn, uint8_t *mem, uint32_t cap, iw_err *e);

/* Registers a tagged buffer (b is copied, and valid set: a registered STag is valid until
 * iw_sink_invalidate). Registering a known STag again replaces its entry. IW_ENOSPC when the
 * table is full; IW_EINVAL when base_to + length passes 2^64 - 1 or mem is NULL with a length. */
int iw_sink_register(iw_ddp_sink *s, const iw_tagged_buf *b, iw_err *e);

/* Invalidates an STag (it stays known, so later use gives 0x1/0x00). IW_EINVAL when the STag is
 * unknown, or of another stream or PD (RFC 5040 §7.2 item 5: this stream cannot invalidate it). */
int iw_sink_invalidate(iw_ddp_sink *s, uint32_t stag, iw_err *e);

/* The registered buffer with this STag, or NULL. */
const iw_tagged_buf *iw_sink_find(const iw_ddp_sink *s, uint32_t stag);

/* Validates and places one segment (payload holds len octets). access is the right the
 * operation needs (IW_ACCESS_REMOTE_WRITE for RDMA Write, 0 to skip the check). r->req names
 * the failed check on IW_SINK_ERROR, and the rule applied otherwise. */
void iw_sink_segment(iw_ddp_sink *s, const iw_ddp_hdr *h, const uint8_t *payload, size_t len,
		     unsigned access, iw_sink_result *r);

/* Takes the next deliverable untagged message of queue qn, in MSN order, and frees its buffer
 * slot. The data stays valid until the caller reposts or reuses the memory. Once the sink has
 * failed nothing more is delivered. */
bool iw_sink_deliver(iw_ddp_sink *s, uint32_t qn, iw_sink_delivery *d);

/* Checks a tagged range for an RDMA Read (source side), in the order of the tagged sink checks:
 * STag registered and valid (0x00), of this stream and PD (0x03), [to, to + len) not wrapping
 * 2^64 (0x04) and inside the buffer (0x01), remote read access (0x02). Fills r like
 * iw_sink_segment does, with RDMAP layer codes (RFC 5040: remote protection, etype 0x1). A
 * zero-length Read is not checked. Does not fail the sink. */
bool iw_sink_check_read(const iw_ddp_sink *s, uint32_t stag, uint64_t to, uint32_t len, iw_sink_result *r);

#endif
