/*
 * decode_stream.h - decoding one direction of an MPA byte stream layer by layer, printing
 * every field and every violation with its requirement ID and error code (text or JSON), or
 * quietly, only counting the violations and keeping the first (a capture's summary line).
 *
 * `iwspec decode` uses it for a stream given as hex or a file, and for each direction of each
 * TCP connection of a capture. Everything is decoded by the engine and judged by the verifiers
 * the runner judges a DUT's octets with (suite/verify/verify.h: one judgment, the same
 * requirement IDs and words); this module prints. In a capture, offsets are also given as the
 * frame that carried the octet.
 */
#ifndef IW_DECODE_STREAM_H
#define IW_DECODE_STREAM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iw_violation.h"
#include "mpa_frame.h"
#include "pcap_read.h"
#include "profile.h"
#include "verify.h"

#define IW_DECODE_LINE_MAX 400

/* A direction's Read Responses against the other's Read Requests (decode_reads.h). */
typedef struct iw_decode_reads iw_decode_reads;

/* The first violation of a decoding, as one line of text. */
typedef struct iw_decode_first {
	bool set;
	char text[IW_DECODE_LINE_MAX];  /* "VIOLATION REQ at offset N (frame F): kind: detail [code]" */
} iw_decode_first;

typedef struct iw_decode_ctx {
	bool json;
	bool quiet;                 /* text mode only: print nothing, just count (and note the first) */
	json_t *items, *viols;      /* JSON: where decoded items and violations are appended */
	iw_viol_list *viol;         /* every violation reported, for the count */
	/* Capture mode: the direction's reassembled stream, and the stream octet that offset 0 of
	 * the current phase is (0 for the startup frame, the frame's length for the FPDUs). */
	const iw_pcap_stream *cap;
	uint64_t cap_base;
	bool mpa_failed;            /* set by iw_decode_fpdus when it stopped at an MPA error */
	/* The octets given stop where the capture (a hole) or its reader (a limit) stopped, not where
	 * the sender did: ending inside a startup frame or an FPDU is then no violation. */
	bool stops_early;
	/* The octets may begin mid-conversation (a dump without its startup frame, or from a later
	 * offset): the sender's first MSNs and a message under way are taken as they come. */
	bool mid_stream;
	iw_decode_reads *reads;     /* when not NULL, holds Read Responses to the other side's Requests */
	size_t *terminates;         /* when not NULL, counts the Terminate messages decoded */
	/* The sender is not the side judged (decode --side, --dut): its violations are listed and
	 * counted as not judged ("not judged: VIOLATION ...", JSON "judged": false). */
	bool unjudged;
	iw_decode_first *first;     /* when not NULL and not yet set: receives the first violation */
} iw_decode_ctx;

/* Reports a violation (printed or appended to viols) and counts it in o->viol. */
void iw_decode_violation(iw_decode_ctx *o, const char *req, enum iw_viol_kind kind, int layer, int etype, int ecode,
			 uint64_t off, const char *detail);

/* The capture frame that carried offset off of the current phase, 0 outside captures. */
uint64_t iw_decode_frame_of(const iw_decode_ctx *o, uint64_t off);

/* Reports what a verifier found broken (verify.h), the first rule and any more, at offset off. */
void iw_decode_check(iw_decode_ctx *o, const iw_check *c, uint64_t off);

/* True when buf starts like a startup frame: 12 or more of its first 16 octets are those of
 * the Request or the Reply key (a damaged key is still judged as a frame). */
bool iw_decode_looks_like_frame(const uint8_t *buf, size_t len);

/* Decodes and checks the startup frame at buf. expect: the kind the receiver waits for, or -1
 * to take it from the key (octet 9: 'p' Reply, else Request). force: decode even when buf does
 * not start with "MPA ID Re". Returns the frame's length, 0 when there is none (not forced,
 * no key, or a profile without frames), -1 when the stream ends inside it (reported). f, when
 * not NULL, receives the decoded fields. */
long iw_decode_frame(iw_decode_ctx *o, const iw_profile *p, const uint8_t *buf, size_t len, int expect, bool force,
		     iw_mpa_frame *f);

/* Decodes FPDUs from stream offset start (from SeqStart; it places the markers) and reports
 * every violation; stops at the first MPA error (MPA-7-08). Returns the FPDUs decoded;
 * *first_end (may be NULL) is the offset just past the first FPDU, 0 without one. */
size_t iw_decode_fpdus(iw_decode_ctx *o, const iw_profile *p, bool markers, bool crc, uint64_t start,
		       const uint8_t *buf, size_t len, uint64_t *first_end);

#endif
