/*
 * mpa_rx.h - the streaming FPDU decoder (MR §5.4, §7).
 *
 * Bytes go in as they arrive, cut anywhere (one octet at a time included); whole FPDUs come
 * out, markers stripped, each checked for CRC (when on) and marker/length agreement (when
 * markers are on). The result does not depend on how the stream was cut: the decoder keeps
 * every partial field in its own state and re-derives nothing from the cut points.
 *
 * Errors follow MR §7: code 2 when the received CRC differs from the computed one, code 3
 * when the CRC is valid but a marker's FPDUPTR (low two bits ignored, MPA-5.1-05) does not
 * point at the FPDU start the length chain gives. After the first error the decoder passes
 * nothing more (MPA-7-08): it consumes and drops all later input.
 *
 * Sender deviations a receiver must ignore (non-zero pad, marker RESERVED set, FPDUPTR low
 * bits set) are reported as notes on the FPDU, so a harness judging a DUT's output sees them.
 *
 * The decoder owns a fixed buffer for the largest FPDU; it never allocates.
 */
#ifndef IW_MPA_RX_H
#define IW_MPA_RX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iw_violation.h"
#include "profile.h"

#define IW_FPDU_BODY_MAX (2 + 65535 + 3 + 4)    /* length field + ULPDU + pad + CRC */
#define IW_FPDU_MAX_MARKERS 132                 /* ceil((IW_FPDU_BODY_MAX + 4*131) / 512) + 1 */

/* Notes: sender deviations found in an otherwise accepted FPDU. */
enum iw_fpdu_note {
	IW_NOTE_PAD_NONZERO = 1u << 0,      /* MPA-4-02 */
	IW_NOTE_MARKER_RESERVED = 1u << 1,  /* MPA-4.1-02 */
	IW_NOTE_FPDUPTR_LOWBITS = 1u << 2,  /* MPA-5.1-05 */
};

typedef struct iw_marker_seen {
	uint64_t pos;           /* stream offset of the marker's first octet */
	uint16_t reserved;
	uint16_t fpduptr;       /* as received */
} iw_marker_seen;

typedef struct iw_fpdu {
	uint64_t start;         /* stream offset of the FPDU's first octet (its leading marker, if any) */
	size_t wire_len;        /* octets on the wire, markers included */
	uint16_t ulpdu_length;
	const uint8_t *ulpdu;   /* the ULPDU, markers removed; valid until the next push */
	unsigned pad_len;
	uint8_t pad[3];
	uint32_t crc_received;  /* the value, read LS octet first (iw_crc32c_wire_order shows it as sent) */
	uint32_t crc_computed;
	bool crc_checked;       /* false when CRC is off by agreement */
	bool crc_ok;
	size_t nmarkers;
	iw_marker_seen markers[IW_FPDU_MAX_MARKERS];
	uint64_t fpduptr_origin; /* where its inner markers' FPDUPTR counts back to (mpa_markers.h) */
	bool fpduptr_from_length; /* by RFC 5044's rule (RFC5044-4-02/-05), not the drafts' (MPA-5.1-03/07) */
	unsigned notes;         /* enum iw_fpdu_note bits */
} iw_fpdu;

enum iw_rx_status {
	IW_RX_NEED_MORE = 0,    /* everything given was consumed; no FPDU completed */
	IW_RX_FPDU = 1,         /* *out holds a valid FPDU; input may remain */
	IW_RX_ERROR = 2,        /* *err holds the MPA error; the decoder is now failed */
};

typedef struct iw_mpa_rx {
	const iw_profile *profile;
	bool markers;
	bool crc;
	bool failed;
	uint64_t pos;           /* octets consumed since SeqStart */
	/* current FPDU */
	uint64_t fpdu_start;
	size_t body_have;       /* body octets (markers excluded) received so far */
	size_t body_need;       /* 2 until ULPDU_Length is known, then the whole body */
	uint8_t mk[4];          /* a marker being received */
	unsigned mk_have;
	uint32_t crc_run;       /* CRC over the octets received so far (markers included) */
	size_t nmarkers;
	iw_marker_seen seen[IW_FPDU_MAX_MARKERS];  /* markers of the current FPDU (not `markers`:
						    * that name is the flag above) */
	uint8_t body[IW_FPDU_BODY_MAX];
} iw_mpa_rx;

/* Starts a direction at SeqStart (stream offset 0). A profile with markers_always/crc_always
 * (culley-mpa-02) turns markers/CRC on whatever is passed. */
void iw_mpa_rx_init(iw_mpa_rx *rx, const iw_profile *p, bool markers, bool crc);

/* Consumes input up to the end of the next complete FPDU (or all of it). *consumed tells how
 * much; call again with the rest. On IW_RX_FPDU, out describes the FPDU (its ulpdu points into
 * rx). On IW_RX_ERROR, err describes it (requirement, layer LLP, etype 0, MPA code, offset = the
 * FPDU start) and out, when not NULL, the rejected FPDU (notes left 0). Once failed, every call
 * consumes all input and returns IW_RX_NEED_MORE. crc_computed/crc_ok are filled even when CRC
 * is off (crc_checked false), so a harness can see whether a peer still sends valid CRCs. */
enum iw_rx_status iw_mpa_rx_push(iw_mpa_rx *rx, const uint8_t *data, size_t len, size_t *consumed,
				 iw_fpdu *out, iw_violation *err);

/* Starts a direction whose first octet given will be at stream offset start from SeqStart
 * (a capture or hex dump that begins mid-stream). FPDUs start at multiples of 4 (A23), so
 * start should be one; otherwise FPDUPTR cannot point at them. */
void iw_mpa_rx_init_at(iw_mpa_rx *rx, const iw_profile *p, bool markers, bool crc, uint64_t start);

/* True when the decoder holds part of an FPDU (the stream ended mid-FPDU if it ends now). */
bool iw_mpa_rx_partial(const iw_mpa_rx *rx);

#endif
