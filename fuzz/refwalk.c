/*
 * refwalk.c - the reference FPDU walker of refwalk.h: one octet at a time (the ULPDU's octets
 * between two markers as one run), no state kept between calls, nothing shared with
 * suite/engine/mpa_rx.c.
 */
#include "refwalk.h"

#include <string.h>

static uint32_t crc_table[256];
static bool crc_ready;

static void crc_init(void)
{
	/* Reflected polynomial 0x82F63B78 (Castagnoli), requirements.md §5. */
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
		crc_table[i] = c;
	}
	crc_ready = true;
}

uint32_t fz_ref_crc32c(uint32_t crc, const uint8_t *p, size_t n)
{
	if (!crc_ready)
		crc_init();
	crc = ~crc;
	for (size_t i = 0; i < n; i++)
		crc = crc_table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
	return ~crc;
}

size_t fz_ref_fpdu_read(const uint8_t *s, size_t len, uint64_t pos, bool markers, bool from_length, bool crc,
			fz_ref_fpdu *out, uint8_t *ulpdu)
{
	memset(out, 0, sizeof *out);
	out->start = pos;
	out->markers_agree = true;
	size_t i = 0;
	size_t body = 0, need = 2;     /* body octets (markers excluded) seen / needed */
	uint8_t lenf[2] = { 0, 0 };
	uint8_t crcf[4] = { 0, 0, 0, 0 };
	size_t crc_to = 0;              /* octets of s covered by the CRC: [0, crc_to) */
	bool crc_started = false;
	while (body < need) {
		uint64_t at = pos + i;
		if (markers && at % 512 == 0) {
			/* A marker precedes the body octet at this position. */
			if (len - i < 4) {
				out->wire_len = len;
				return len;
			}
			if (out->nmarkers < sizeof out->mpos / sizeof out->mpos[0]) {
				size_t k = out->nmarkers++;
				out->mpos[k] = at;
				out->mres[k] = (uint16_t)(s[i] << 8 | s[i + 1]);
				out->mptr[k] = (uint16_t)(s[i + 2] << 8 | s[i + 3]);
				/* The origin: the FPDU's first octet, or (RFC 5044) its ULPDU Length
				 * field, 4 octets on when a marker begins the FPDU. */
				uint64_t origin = pos + (from_length && at != pos && out->mpos[0] == pos ? 4 : 0);
				uint16_t want = at == pos ? 0 : (uint16_t)(at - origin);
				if ((out->mptr[k] & 0xFFFCu) != want)
					out->markers_agree = false;
			}
			i += 4;
			continue;
		}
		if (i >= len) {
			out->wire_len = len;
			return len;
		}
		if (body >= 2 && body < 2 + (size_t)out->ulpdu_length) {
			/* Inside the ULPDU every octet up to the next marker, the end of the input or the
			 * end of the ULPDU is copied alike: taken as one run (the same reading, without a
			 * trip round the loop for each octet). */
			size_t run = 2 + (size_t)out->ulpdu_length - body;
			if (len - i < run)
				run = len - i;
			if (markers) {
				uint64_t to_marker = 512 - at % 512;
				if (to_marker < run)
					run = (size_t)to_marker;
			}
			if (ulpdu)
				memcpy(ulpdu + out->ulpdu_have, s + i, run);
			out->ulpdu_have += run;
			i += run;
			body += run;
			continue;
		}
		uint8_t o = s[i++];
		if (body < 2) {
			lenf[body] = o;
			if (body == 1) {
				out->ulpdu_length = (uint16_t)(lenf[0] << 8 | lenf[1]);
				out->pad_len = (4 - (2 + out->ulpdu_length) % 4) % 4;
				need = 2 + (size_t)out->ulpdu_length + out->pad_len + 4;
			}
		} else if (body < 2 + (size_t)out->ulpdu_length + out->pad_len) {
			out->pad[body - 2 - out->ulpdu_length] = o;
		} else {
			size_t k = body - (need - 4);
			if (k == 0 && !crc_started) {
				crc_started = true;
				crc_to = i - 1;
			}
			crcf[k] = o;
		}
		body++;
	}
	out->complete = true;
	out->wire_len = i;
	out->crc_received = (uint32_t)crcf[0] | (uint32_t)crcf[1] << 8 | (uint32_t)crcf[2] << 16 |
			    (uint32_t)crcf[3] << 24;
	out->crc_computed = crc ? fz_ref_crc32c(0, s, crc_to) : 0;
	return i;
}
