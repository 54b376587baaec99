/*
 * decode_pcap.h - `iwspec decode CAPTURE`: judging every iWARP connection of a capture file.
 *
 * The capture is read as a stream (pcap_read.h iw_pcap_each_conn): each TCP connection is
 * judged when it ends (decode_conn.h) and then freed, so memory follows the connections open at
 * once, never the size of the capture, and stays under the reader's limits whatever the file.
 * Connections are listed as they end, numbered in the order they started.
 *
 * By default each connection gets one line: its endpoints, frames, FPDUs each way, profile and
 * verdict, with the first violation and its requirement ID; details prints every field of
 * every frame and FPDU instead (the output of one connection, decode_conn.h), and json one JSON
 * document with the details. A summary ends the output: the connections, how many conform,
 * have violations, sent a Request no Reply answered, could not be judged to their end, and the
 * violations of each side (initiator, responder).
 *
 * A capture of a suite run holds the harness's deliberate faults beside the DUT's octets: side
 * (--side) or dut (--dut) judges one side alone (decode_dut.h). The other side's violations are
 * then listed as not judged (with details or JSON), counted apart, said once in the summary, and
 * left out of the verdict and the exit status.
 */
#ifndef IW_DECODE_PCAP_H
#define IW_DECODE_PCAP_H

#include <stdbool.h>

#include "decode_dut.h"
#include "pcap_read.h"
#include "profile.h"

/* What a capture came to; the values are `iwspec decode`'s exit statuses. */
enum iw_decode_status {
	IW_DECODE_CONFORMS = 0,   /* every MPA connection conforms (on the sides judged: iw_decode_opts) */
	IW_DECODE_VIOLATIONS = 1, /* at least one violation on a side judged */
	IW_DECODE_UNREADABLE = 2, /* the file cannot be read as a capture */
	IW_DECODE_NO_MPA = 3,     /* nothing to judge: no MPA connection in it (no TCP, or no packet at
				   * all: an empty capture is a capture, not bad input), or none with
				   * the DUT (--dut) as an endpoint */
};

/* Whose violations are judged by role (--side); the other side's are listed as not judged. */
enum iw_decode_side { IW_DECODE_SIDE_BOTH = 0, IW_DECODE_SIDE_INITIATOR, IW_DECODE_SIDE_RESPONDER };

typedef struct iw_decode_opts {
	const iw_profile *profile;  /* NULL: from each Request's Rev */
	bool json;                  /* one JSON document, every field included */
	bool details;               /* text: every field of every connection instead of one line each */
	iw_pcap_limits limits;      /* the reader's bounds (iw_pcap_limits_default) */
	enum iw_decode_side side;   /* --side: judge that role's violations only */
	iw_decode_dut dut;          /* --dut: judge the violations of the side with this endpoint only;
				     * a connection without it is not judged at all */
} iw_decode_opts;

/* No profile, text, one line per connection, the reader's default limits. */
void iw_decode_opts_default(iw_decode_opts *o);

/* Decodes and prints the capture at path. */
enum iw_decode_status iw_decode_capture(const char *path, const iw_decode_opts *o);

#endif
