/*
 * mpa_markers.h - where markers fall and what they hold (MR §5.1, MC §7.1).
 *
 * A marker is 4 octets, RESERVED (16 bits, zero on send) then FPDUPTR (16 bits): the
 * number of octets from the start of the FPDU that contains the marker back to the marker's
 * first octet. Markers sit every 512 octets of the direction's stream, counted from
 * SeqStart (the first full-operation octet), so the first octet of full operation is a
 * marker. A marker that falls exactly between two FPDUs belongs to the next one and has
 * FPDUPTR 0 (MPA-5.1-04); all markers inside one FPDU point to its start (MPA-5.1-07). RFC 5044
 * moves that point to the FPDU's ULPDU Length field (§4.3, RFC5044-4-02/-05), which differs from
 * the start by the 4 octets of a marker that begins the FPDU (profile.h, fpduptr_from_length).
 *
 * Positions here are stream offsets relative to SeqStart (64-bit, never wrap); a TCP
 * sequence number maps to (seq - SeqStart) mod 2^32 (MPA-5.1-F1).
 */
#ifndef IW_MPA_MARKERS_H
#define IW_MPA_MARKERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iw_octets.h"
#include "iw_proto.h"
#include "profile.h"

/* True when a marker starts at stream offset pos. */
static inline bool iw_marker_at(uint64_t pos) { return pos % IW_MPA_MARKER_INTERVAL == 0; }

/* Offset of the first marker at or after pos. */
static inline uint64_t iw_marker_next(uint64_t pos)
{
	return (pos + IW_MPA_MARKER_INTERVAL - 1) / IW_MPA_MARKER_INTERVAL * IW_MPA_MARKER_INTERVAL;
}

/* Number of markers in the wire image of an FPDU that starts at stream offset start and has
 * body octets (length field + ULPDU + pad + CRC, markers excluded). A marker exactly at
 * start counts (it belongs to this FPDU); one exactly after the last octet does not. */
size_t iw_markers_in_fpdu(uint64_t start, size_t body);

/* Wire octets of such an FPDU: body + 4 per marker. */
static inline size_t iw_fpdu_wire_len(uint64_t start, size_t body)
{
	return body + 4 * iw_markers_in_fpdu(start, body);
}

/* Where the markers of such an FPDU fall, as offsets into its body (the octet of the body
 * that follows each marker): at most cap of them into at[], the count returned (it may exceed
 * cap). *ends_on_boundary says whether the FPDU's last octet ends just before a marker
 * position, so that the next FPDU starts with one. */
size_t iw_markers_offsets(uint64_t start, size_t body, size_t *at, size_t cap, bool *ends_on_boundary);

/* The point the inner markers of an FPDU that begins at stream offset fpdu_start count back to:
 * its first octet (the drafts), or its ULPDU Length field (RFC 5044), 4 octets on when a marker
 * begins the FPDU (leading). */
static inline uint64_t iw_marker_fpduptr_origin(const iw_profile *p, uint64_t fpdu_start, bool leading)
{
	return fpdu_start + (p->fpduptr_from_length && leading ? IW_MPA_MARKER_LEN : 0);
}

/* The FPDUPTR due in the marker at marker_pos of the FPDU that begins at fpdu_start, inner
 * markers counting back to origin: 0 for a marker that begins the FPDU, else the distance,
 * modulo 2^16 as FPDUPTR itself (the low two bits always clear, A23). */
static inline uint16_t iw_marker_fpduptr_due(uint64_t fpdu_start, uint64_t origin, uint64_t marker_pos)
{
	return marker_pos == fpdu_start ? 0 : (uint16_t)(marker_pos - origin);
}

/* Encodes a marker: RESERVED then FPDUPTR, both big-endian. */
static inline void iw_marker_put(uint8_t out[4], uint16_t reserved, uint16_t fpduptr)
{
	iw_put_be16(out, reserved);
	iw_put_be16(out + 2, fpduptr);
}

#endif
