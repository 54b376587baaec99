/*
 * tcp_reasm.h - one direction of a TCP connection put back in order while the capture is read.
 *
 * Segments come in capture order. The octets from the stream's start up to the first gap are
 * kept in one buffer, written in place: each octet once, from the first segment that carried
 * it, as a receiving TCP keeps the first copy (a later copy that differs is counted as a
 * conflict). A segment past a gap waits, trimmed to the octets no earlier segment carried,
 * until the gap fills; then it is appended. So a direction holds its stream, its frame map
 * (one piece per frame that added octets) and what waits past a gap: nothing per segment.
 *
 * Without a SYN, offset 0 is the lowest sequence number seen: a segment below the first one
 * moves the stream while the direction holds at most IW_REASM_REBASE_MAX octets (later, such
 * a segment is dropped as before the stream's start; with a SYN, so is one before it).
 * Sequence numbers are unwrapped around the highest end so far, so a stream may pass 4 GiB.
 *
 * Every buffer is charged to a budget that all directions share (iw_reasm_budget). When the
 * budget refuses room, or more than IW_REASM_PIECES_MAX pieces wait past a gap, the direction
 * stops at the first octet it could not keep: nothing from there is kept, later octets are only
 * counted (beyond), and when the stream reaches that point iw_reasm_finish() reports the cut, so
 * a decoder says "not judged past here" instead of judging a stream with octets missing. (If a
 * gap before it never fills, that gap is the hole reported instead.)
 */
#ifndef IW_TCP_REASM_H
#define IW_TCP_REASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcap_read.h"

#define IW_REASM_PIECES_MAX 16384u
#define IW_REASM_REBASE_MAX (1u << 20)

/* The octets of memory every direction together may hold. */
typedef struct iw_reasm_budget {
	size_t held;
	size_t limit;           /* 0: no limit */
	size_t peak;
	/* Called when held + n would pass limit: may free room (elsewhere, never in the direction
	 * asking) and returns true when held + n now fits. NULL: the budget cannot grow. */
	bool (*make_room)(void *ctx, size_t n);
	void *ctx;
} iw_reasm_budget;

/* A segment's octets that wait past a gap. */
typedef struct iw_reasm_frag {
	uint64_t off;
	uint64_t frame;
	uint32_t len;
	uint8_t *data;
} iw_reasm_frag;

typedef struct iw_tcp_reasm {
	iw_pcap_stream s;       /* data/len is the kept prefix; the rest is final after finish */
	iw_reasm_budget *budget;        /* NULL: nothing is charged */
	size_t held;            /* octets this direction charged */
	size_t data_cap, pieces_cap;
	bool have_base;
	uint32_t base;          /* the sequence number of offset 0 */
	uint64_t hi;            /* the highest segment end so far (octets cut by the snap length included) */
	uint64_t expect_end, expect_frame;  /* the furthest end a segment announced, and its frame */
	uint32_t fin_seq;
	iw_reasm_frag *frag;    /* sorted by off, disjoint, all past s.len */
	size_t nfrag, frag_cap;
	uint64_t stop;          /* nothing from this offset on is kept (UINT64_MAX: no stop) */
	uint64_t stop_frame;    /* the frame whose octets at stop were not kept */
} iw_tcp_reasm;

void iw_reasm_init(iw_tcp_reasm *r, iw_reasm_budget *budget);

/* One segment: TCP flags (FIN 0x01, SYN 0x02, RST 0x04, ACK 0x10), its sequence number, the
 * payload octets captured and those the snap length cut off. */
void iw_reasm_add(iw_tcp_reasm *r, uint8_t flags, uint32_t seq, const uint8_t *payload, uint32_t len,
		  uint32_t missing, uint64_t frame);

/* True once the direction carried a payload octet. */
bool iw_reasm_has_data(const iw_tcp_reasm *r);

/* True when a SYN was seen and the sequence number differs from its ISN. */
bool iw_reasm_syn_differs(const iw_tcp_reasm *r, uint32_t seq);

/* Completes r->s: the hole past the kept octets (or the cut), the FIN's offset. Octets that
 * still wait past a hole are freed. */
void iw_reasm_finish(iw_tcp_reasm *r);

/* Frees everything r holds (data and pieces too, unless taken: set to NULL) and gives the
 * octets back to the budget. */
void iw_reasm_free(iw_tcp_reasm *r);

#endif
