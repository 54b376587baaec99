/*
 * mpa_rx.c - the streaming FPDU decoder (MR §5.1, §5.2, §5.4, §7).
 *
 * The input is walked in runs that end only where something happens: a marker position, the
 * end of ULPDU_Length, the start of the CRC field or the end of the FPDU. Each run is
 * copied once into rx->body and the CRC is extended over the raw input, so there is no
 * per-octet work. A marker or a field cut by the caller's buffer boundary is collected in
 * rx (mk[], body[]), so nothing depends on where the stream was cut.
 *
 * Markers always fall at FPDU offsets that are multiples of 4 (A23): SeqStart is an FPDU
 * start and every FPDU's wire length is a multiple of 4. A marker therefore never splits
 * ULPDU_Length or the CRC field, and every marker of an FPDU lies before its CRC field.
 */
#include "mpa_rx.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "crc32c.h"
#include "iw_proto.h"
#include "mpa_fpdu.h"
#include "mpa_markers.h"

void iw_mpa_rx_init(iw_mpa_rx *rx, const iw_profile *p, bool markers, bool crc)
{
	rx->profile = p;
	/* culley-mpa-02 has no negotiation: markers and CRC always (MC §7.1, §7.2). */
	rx->markers = markers || p->markers_always;
	rx->crc = crc || p->crc_always;
	rx->failed = false;
	rx->pos = 0;
	rx->fpdu_start = 0;
	rx->body_have = 0;
	rx->body_need = IW_MPA_LEN_FIELD;
	rx->mk_have = 0;
	rx->crc_run = 0;
	rx->nmarkers = 0;
}

void iw_mpa_rx_init_at(iw_mpa_rx *rx, const iw_profile *p, bool markers, bool crc, uint64_t start)
{
	iw_mpa_rx_init(rx, p, markers, crc);
	rx->pos = start;
	rx->fpdu_start = start;
}

bool iw_mpa_rx_partial(const iw_mpa_rx *rx)
{
	return !rx->failed && (rx->body_have || rx->mk_have || rx->nmarkers);
}

static void next_fpdu(iw_mpa_rx *rx)
{
	rx->fpdu_start = rx->pos;
	rx->body_have = 0;
	rx->body_need = IW_MPA_LEN_FIELD;
	rx->crc_run = 0;
	rx->nmarkers = 0;
}

/* Marks the decoder failed and fills err (if any); the caller writes the detail. */
/* The point this FPDU's inner markers count back to: a marker that begins it is the first
 * one seen at its start. */
static uint64_t fpduptr_origin(const iw_mpa_rx *rx)
{
	bool leading = rx->nmarkers && rx->seen[0].pos == rx->fpdu_start;
	return iw_marker_fpduptr_origin(rx->profile, rx->fpdu_start, leading);
}

static iw_violation *fail(iw_mpa_rx *rx, iw_violation *err, const char *req, int ecode)
{
	rx->failed = true;
	iw_viol_list l = { .v = err, .cap = err ? 1 : 0 };
	return iw_viol_add(err ? &l : NULL, req, IW_VIOL_FATAL, IW_LAYER_LLP, IW_LLP_ET_MPA, ecode,
			   rx->fpdu_start, "%s", "");
}

/* The FPDU in rx is complete: judge it (CRC first, then markers, MR §7) and describe it. */
static enum iw_rx_status finish(iw_mpa_rx *rx, iw_fpdu *out, iw_violation *err)
{
	const uint8_t *b = rx->body;
	size_t n = rx->body_need;
	uint16_t L = (uint16_t)(b[0] << 8 | b[1]);
	unsigned pad = (unsigned)(n - IW_MPA_LEN_FIELD - L - IW_MPA_CRC_LEN);
	uint32_t crc_rx = iw_crc32c_get_wire(b + n - IW_MPA_CRC_LEN);
	uint32_t crc_calc = rx->crc_run;
	size_t n_cov = (size_t)(rx->pos - rx->fpdu_start) - IW_MPA_CRC_LEN;
	enum iw_rx_status st = IW_RX_FPDU;

	if (out) {
		out->start = rx->fpdu_start;
		out->wire_len = (size_t)(rx->pos - rx->fpdu_start);
		out->ulpdu_length = L;
		out->ulpdu = b + IW_MPA_LEN_FIELD;
		out->pad_len = pad;
		memset(out->pad, 0, sizeof out->pad);
		memcpy(out->pad, b + IW_MPA_LEN_FIELD + L, pad);
		out->crc_received = crc_rx;
		out->crc_computed = crc_calc;
		out->crc_checked = rx->crc;
		out->crc_ok = crc_rx == crc_calc;
		out->nmarkers = rx->nmarkers;
		out->fpduptr_origin = fpduptr_origin(rx);
		out->fpduptr_from_length = rx->profile->fpduptr_from_length;
		memcpy(out->markers, rx->seen, rx->nmarkers * sizeof rx->seen[0]);
		out->notes = 0;
	}

	if (rx->crc && crc_rx != crc_calc) {
		/* MPA-5.2-14; with CRC off the field is present but never checked (MPA-4-04). */
		iw_violation *v = fail(rx, err, "MPA-5.2-14", IW_MPA_E_CRC);
		if (v)
			snprintf(v->detail, sizeof v->detail,
				 "CRC field 0x%08" PRIx32 ", should be 0x%08" PRIx32 " (both in wire order) over %zu octets",
				 iw_crc32c_wire_order(crc_rx), iw_crc32c_wire_order(crc_calc), n_cov);
		st = IW_RX_ERROR;
	} else {
		/* With a trusted CRC, every marker must agree with the length chain: FPDUPTR 0 at the
		 * FPDU start, the distance back to it inside (MPA-5.1-03/07, MPA-7-03), or under RFC
		 * 5044 back to the ULPDU Length field, past a marker that begins the FPDU
		 * (RFC5044-4-02/-05). The low two bits do not count (A22) and distances compare
		 * modulo 2^16 like FPDUPTR itself. */
		uint64_t origin = fpduptr_origin(rx);
		for (size_t i = 0; i < rx->nmarkers; i++) {
			const iw_marker_seen *m = &rx->seen[i];
			uint16_t want = iw_marker_fpduptr_due(rx->fpdu_start, origin, m->pos);
			if ((m->fpduptr & IW_MPA_FPDUPTR_MASK) != want) {
				iw_violation *v = fail(rx, err, "MPA-7-03", IW_MPA_E_MARKER);
				if (v)
					snprintf(v->detail, sizeof v->detail,
						 "marker at stream offset %" PRIu64 " has FPDUPTR 0x%04x; the "
						 "FPDU's %s is %u octets before it", m->pos, (unsigned)m->fpduptr,
						 origin != rx->fpdu_start ? "ULPDU Length field" : "start", (unsigned)want);
				st = IW_RX_ERROR;
				break;
			}
		}
	}

	if (out && st == IW_RX_FPDU) {
		for (unsigned i = 0; i < pad; i++)
			if (out->pad[i])
				out->notes |= IW_NOTE_PAD_NONZERO;
		for (size_t i = 0; i < rx->nmarkers; i++) {
			if (rx->seen[i].reserved)
				out->notes |= IW_NOTE_MARKER_RESERVED;
			if (rx->seen[i].fpduptr & ~IW_MPA_FPDUPTR_MASK & 0xFFFF)
				out->notes |= IW_NOTE_FPDUPTR_LOWBITS;
		}
	}
	next_fpdu(rx);
	return st;
}

/* The CRC covers the raw input from the FPDU's first octet to its CRC field, markers
 * included (MPA-5.2-12/13), so it runs over whole spans of input however many markers they
 * hold; only the copy into body[] stops at markers. Spans are closed at RUN_MAX octets so the
 * second read of the input (copy, then CRC) still hits L1. */
#define RUN_MAX 4096

/* GCC can bound a run's length (RUN_MAX, or 512 between markers) and then inlines memcpy as
 * `rep movsq`, which copied these few-hundred-octet unaligned runs at about half the speed of
 * the C library's vector copy on the benchmark machine (AMD EPYC), so the marker path fell
 * well below the no-marker one. A call through a volatile pointer is never inlined. */
static void *(*volatile copy_run)(void *, const void *, size_t) = memcpy;

typedef struct crc_span {
	size_t from, to;        /* pending input [from, to), not yet in rx->crc_run */
} crc_span;

static void crc_flush(iw_mpa_rx *rx, const uint8_t *data, crc_span *c)
{
	if (c->to > c->from)
		rx->crc_run = iw_crc32c_extend(rx->crc_run, data + c->from, c->to - c->from);
	c->from = c->to;
}

static void crc_add(iw_mpa_rx *rx, const uint8_t *data, crc_span *c, size_t at, size_t n)
{
	if (at != c->to) {
		crc_flush(rx, data, c);
		c->from = c->to = at;
	}
	c->to += n;
	if (c->to - c->from >= RUN_MAX)
		crc_flush(rx, data, c);
}

enum iw_rx_status iw_mpa_rx_push(iw_mpa_rx *rx, const uint8_t *data, size_t len, size_t *consumed,
				 iw_fpdu *out, iw_violation *err)
{
	size_t i = 0;
	crc_span c = { 0, 0 };
	if (rx->failed) {
		/* MPA-7-08: nothing is passed after an error. */
		*consumed = len;
		return IW_RX_NEED_MORE;
	}
	while (i < len) {
		if (rx->markers && (rx->mk_have || rx->pos % IW_MPA_MARKER_INTERVAL == 0)) {
			/* A whole marker in the input is read in place; one cut by the caller's
			 * buffer is collected in mk[]. */
			const uint8_t *mk = data + i;
			size_t k = IW_MPA_MARKER_LEN;
			if (rx->mk_have || len - i < IW_MPA_MARKER_LEN) {
				k = IW_MPA_MARKER_LEN - rx->mk_have;
				if (k > len - i)
					k = len - i;
				memcpy(rx->mk + rx->mk_have, data + i, k);
				rx->mk_have += (unsigned)k;
				mk = rx->mk;
			}
			/* Every marker of an FPDU precedes its CRC field (A23), so it is covered. */
			crc_add(rx, data, &c, i, k);
			rx->pos += k;
			i += k;
			if (mk == rx->mk) {
				if (rx->mk_have < IW_MPA_MARKER_LEN)
					continue;
				rx->mk_have = 0;
			}
			if (rx->nmarkers < IW_FPDU_MAX_MARKERS) {
				iw_marker_seen *m = &rx->seen[rx->nmarkers++];
				m->pos = rx->pos - IW_MPA_MARKER_LEN;
				m->reserved = (uint16_t)(mk[0] << 8 | mk[1]);
				m->fpduptr = (uint16_t)(mk[2] << 8 | mk[3]);
			}
			if (i == len)
				break;
		}

		size_t n = len - i;
		if (rx->markers) {
			size_t room = IW_MPA_MARKER_INTERVAL - (size_t)(rx->pos % IW_MPA_MARKER_INTERVAL);
			if (n > room)
				n = room;
		}
		size_t need = rx->body_need - rx->body_have;
		if (n > need)
			n = need;
		if (n > RUN_MAX)
			n = RUN_MAX;
		/* CRC coverage ends where the CRC field begins; until ULPDU_Length is known the
		 * octets are the length field, which is covered. */
		size_t crc_end = rx->body_need == IW_MPA_LEN_FIELD ? IW_MPA_LEN_FIELD
								     : rx->body_need - IW_MPA_CRC_LEN;
		if (rx->body_have < crc_end) {
			size_t k = crc_end - rx->body_have;
			crc_add(rx, data, &c, i, k < n ? k : n);
		}
		copy_run(rx->body + rx->body_have, data + i, n);
		rx->body_have += n;
		rx->pos += n;
		i += n;
		if (rx->body_have < rx->body_need)
			continue;
		if (rx->body_need == IW_MPA_LEN_FIELD) {
			size_t L = (size_t)(rx->body[0] << 8 | rx->body[1]);
			rx->body_need = IW_MPA_LEN_FIELD + L + (size_t)iw_mpa_pad_len(L) + IW_MPA_CRC_LEN;
			continue;
		}
		crc_flush(rx, data, &c);
		*consumed = i;
		return finish(rx, out, err);
	}
	crc_flush(rx, data, &c);
	*consumed = i;
	return IW_RX_NEED_MORE;
}
