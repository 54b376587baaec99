/*
 * report_pcap_cut.h - where one direction of a case's connection ends a protocol unit, so the
 * per-case pcap (report_pcap.c) carries each startup frame and each FPDU in segments of its own.
 *
 * The harness records its connections one send() or recv() at a time, and one recv() may hold a
 * Reply and the FPDU behind it. Wireshark's MPA dissector recognises a startup frame only at the
 * start of a segment and, with markers, takes one FPDU per segment (rfc-and-interop.md §2.1): it
 * would see the Reply alone. So the pcap writer cuts each chunk where a unit ends inside it. The
 * cutter follows the direction's octets through the engine's decoders: the startup frame when
 * the direction starts with one (20 octets and PD_Length, mpa_frame.h; "starts with one" is
 * decode's rule, iw_decode_looks_like_frame), then the FPDUs as mpa_rx.h delimits them, markers
 * placed from SeqStart. A unit still incomplete at the end of a chunk leaves the rest of that
 * chunk as one piece, as it was received.
 *
 * Nothing is judged here: the CRC is not checked, an FPDU the decoder refuses (a marker that
 * disagrees) still ends where its length says and the decoder starts again after it, and a
 * direction that does not start with a startup frame (under a profile that has them) is not cut.
 */
#ifndef IW_REPORT_PCAP_CUT_H
#define IW_REPORT_PCAP_CUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

typedef struct iw_unit_cut iw_unit_cut;

/* A cutter for one direction under profile p; markers: the direction's FPDUs carry markers (the
 * peer's startup frame had M=1; a profile without frames has them always). NULL when memory is
 * short: the caller then writes the chunks uncut. */
iw_unit_cut *iw_unit_cut_new(const iw_profile *p, bool markers);

void iw_unit_cut_free(iw_unit_cut *c);

/* The length of the next piece of buf[0..len): up to the end of the next unit that ends inside
 * it, or len when none does. Call again with the rest. len 0 returns 0. */
size_t iw_unit_cut_piece(iw_unit_cut *c, const uint8_t *buf, size_t len);

/* Whether the first octets of a direction, head[0..n) (n up to IW_MPA_FRAME_HDR_LEN), are a
 * startup frame's complete header under p; *m then receives its M bit (the peer sends markers). */
bool iw_unit_cut_frame_m(const iw_profile *p, const uint8_t *head, size_t n, bool *m);

#endif
