/*
 * iw_field_span.h - where a named field sits in the octets of a startup frame or an FPDU, for
 * tools that point at a field (the HTML report highlights the one a failure blames) without
 * knowing the layouts themselves. Field names are the decoder's (mpa_frame.h, ddp.h, rdmap.h):
 *
 *   startup frame: Key M C R Res Rev PD_Length
 *   FPDU:          ULPDU_Length T L DV Rsvd RV opcode RsvdULP STag TO (tagged) QN MSN MO
 *                  (untagged) PAD CRC
 *
 * Names match case-insensitively. An FPDU is spanned only when its octets are exactly one FPDU
 * without markers (a marker moves every field after it), as its ULPDU_Length makes it.
 */
#ifndef IW_FIELD_SPAN_H
#define IW_FIELD_SPAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* [*b, *e) of field in a startup frame's n octets; false when the frame has no such field or is
 * too short to hold it. */
bool iw_field_span_frame(const uint8_t *octets, size_t n, const char *field, size_t *b, size_t *e);

/* The same for an FPDU's n octets on the wire; false also when the FPDU carries markers. */
bool iw_field_span_fpdu(const uint8_t *octets, size_t n, const char *field, size_t *b, size_t *e);

#endif
