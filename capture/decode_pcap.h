/*
 * decode_pcap.h - `iwspec decode CAPTURE`: judging the iWARP traffic of a capture file.
 *
 * For every TCP connection of the capture, both directions are reassembled (pcap_read.h); the
 * direction that starts with a Request is the initiator's, the other the responder's. The
 * profile is the one given, or the one the Request's Rev speaks (0 rddp-mpa-01, 1 rfc5044,
 * 2 rfc6581). Markers are on what a side sends iff the peer's frame had M=1, CRC iff either
 * frame had C=1. Both frames and every FPDU are decoded and printed by decode_stream.h, with
 * each violation's requirement ID, stream offset and capture frame; across the two directions
 * the startup rules are checked too: no FPDU from the initiator before the Reply (MPA-6.1-R3a),
 * none from the responder before a valid FPDU arrived (MPA-6.1-R4), none after a reject
 * (MPA-6.1-R2e, R3c), no Reply to an invalid Request (MPA-6.1-R2b). Octets the capture lacks
 * are reported where the hole is, and nothing past it is judged.
 */
#ifndef IW_DECODE_PCAP_H
#define IW_DECODE_PCAP_H

#include <stdbool.h>

#include "profile.h"

/* What a capture came to; the values are `iwspec decode`'s exit statuses. */
enum iw_decode_status {
	IW_DECODE_CONFORMS = 0,   /* every MPA connection conforms */
	IW_DECODE_VIOLATIONS = 1, /* at least one violation */
	IW_DECODE_UNREADABLE = 2, /* the file cannot be read as a capture */
	IW_DECODE_NO_MPA = 3,     /* no MPA connection in it */
};

/* Decodes and prints the capture at path. profile NULL: from each Request's Rev. */
enum iw_decode_status iw_decode_capture(const char *path, const iw_profile *profile, bool json);

#endif
