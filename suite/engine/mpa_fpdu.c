/*
 * mpa_fpdu.c - framing ULPDUs into FPDUs (MR §4, §5.1-§5.3).
 *
 * The FPDU is written straight into the caller's buffer in one pass: each piece (length,
 * header, payload, pad, CRC) is copied in runs that stop at the next marker position, and
 * the CRC is extended over what was written every 2 KiB, while it is still in L1. Nothing
 * is allocated.
 */
#include "mpa_fpdu.h"

#include <string.h>

#include "crc32c.h"
#include "iw_proto.h"
#include "mpa_markers.h"

/* Copies are cut into runs of at most RUN_MAX octets and the CRC is extended once at least
 * CRC_FLUSH octets are pending: the octets are still in L1 when the CRC reads them, and
 * large copies stay ordinary cached stores (one 64 KiB memcpy followed by the CRC ran at a
 * fifth of the speed), while small pieces and markers do not each pay a CRC call. */
#define RUN_MAX 2048
#define CRC_FLUSH 2048

/* GCC can bound a run's length (RUN_MAX, or 512 between markers) and then inlines memcpy as
 * `rep movsq`, which copied these few-hundred-octet unaligned runs at about half the speed of
 * the C library's vector copy on the benchmark machine (AMD EPYC), so the marker path fell
 * well below the no-marker one. A call through a volatile pointer is never inlined. */
static void *(*volatile copy_run)(void *, const void *, size_t) = memcpy;

typedef struct fpdu_writer {
	uint8_t *o;             /* next output octet */
	uint8_t *crc_from;      /* first written octet not yet in crc */
	uint32_t crc;
	uint64_t s;             /* stream offset of *o */
	uint64_t start;         /* stream offset of the FPDU */
	uint64_t next_marker;   /* UINT64_MAX when this FPDU carries no markers */
	uint16_t reserved;
	uint16_t fpduptr_or;
	int32_t fpduptr_delta;
	bool swapped;
	const iw_profile *profile;  /* the origin of FPDUPTR (iw_marker_fpduptr_origin) */
	uint64_t len_at;            /* stream offset of the ULPDU Length field, once written */
} fpdu_writer;

static void crc_flush(fpdu_writer *w)
{
	w->crc = iw_crc32c_extend(w->crc, w->crc_from, (size_t)(w->o - w->crc_from));
	w->crc_from = w->o;
}

static void put_marker(fpdu_writer *w)
{
	/* FPDUPTR counts back to the FPDU's first octet, which is 0 for a marker at the FPDU
	 * start (MPA-5.1-03/04); RFC 5044 counts back to the ULPDU Length field, 4 octets past a
	 * marker that begins the FPDU (RFC5044-4-02/-05). Distances past 16 bits wrap, as
	 * sequence numbers do. */
	uint64_t origin = iw_marker_fpduptr_origin(w->profile, w->start, w->len_at != w->start);
	uint16_t ptr = (uint16_t)(iw_marker_fpduptr_due(w->start, origin, w->s) + (uint16_t)w->fpduptr_delta);
	if (w->swapped)
		iw_marker_put(w->o, (uint16_t)(ptr | w->fpduptr_or), w->reserved);
	else
		iw_marker_put(w->o, w->reserved, (uint16_t)(ptr | w->fpduptr_or));
	w->o += IW_MPA_MARKER_LEN;
	w->s += IW_MPA_MARKER_LEN;
	w->next_marker += IW_MPA_MARKER_INTERVAL;
}

/* Writes n body octets. A marker goes in front of any body octet that falls on a marker
 * position, so a marker after the last body octet is left to the next FPDU. */
static void put(fpdu_writer *w, const uint8_t *src, size_t n)
{
	while (n) {
		if (w->s == w->next_marker)
			put_marker(w);
		if (w->len_at == UINT64_MAX)
			w->len_at = w->s;
		uint64_t room = w->next_marker - w->s;
		size_t k = n < room ? n : (size_t)room;
		if (k > RUN_MAX)
			k = RUN_MAX;
		copy_run(w->o, src, k);
		w->o += k;
		w->s += k;
		src += k;
		n -= k;
		if ((size_t)(w->o - w->crc_from) >= CRC_FLUSH)
			crc_flush(w);
	}
}

void iw_mpa_tx_init(iw_mpa_tx *tx, const iw_profile *p, bool markers, bool crc)
{
	tx->profile = p;
	/* culley-mpa-02 has no negotiation: markers and a valid CRC always (MC §7.1, §7.2). */
	tx->markers = markers || p->markers_always;
	tx->crc = crc || p->crc_always;
	tx->pos = 0;
}

static size_t body_len(size_t ulpdu_len)
{
	return IW_MPA_LEN_FIELD + ulpdu_len + iw_mpa_pad_len(ulpdu_len) + IW_MPA_CRC_LEN;
}

size_t iw_mpa_tx_size(const iw_mpa_tx *tx, size_t ulpdu_len)
{
	size_t body = body_len(ulpdu_len);
	return tx->markers ? iw_fpdu_wire_len(tx->pos, body) : body;
}

int iw_mpa_tx_fpdu(iw_mpa_tx *tx, const uint8_t *hdr, size_t hdr_len, const uint8_t *payload,
		   size_t payload_len, const iw_fpdu_mods *mods, uint8_t *out, size_t cap, size_t *out_len,
		   iw_err *e)
{
	static const iw_fpdu_mods none;
	if (!mods)
		mods = &none;
	size_t ulpdu_len = hdr_len + payload_len;
	if (ulpdu_len > IW_MPA_ULPDU_LEN_MAX)
		return iw_errf(e, IW_EINVAL, "ULPDU of %zu octets exceeds ULPDU_Length's 65535", ulpdu_len);
	if (mods->corrupt && mods->corrupt_at >= ulpdu_len)
		return iw_errf(e, IW_EINVAL, "corrupt_at %zu is outside the %zu-octet ULPDU", mods->corrupt_at,
			       ulpdu_len);
	bool markers = tx->markers && !mods->no_markers;
	size_t body = body_len(ulpdu_len);
	size_t wire = markers ? iw_fpdu_wire_len(tx->pos, body) : body;
	if (cap < wire)
		return iw_errf(e, IW_ENOSPC, "FPDU needs %zu octets, buffer has %zu", wire, cap);

	fpdu_writer w = {
		.o = out, .crc_from = out, .crc = 0, .s = tx->pos, .start = tx->pos,
		.next_marker = markers ? iw_marker_next(tx->pos) : UINT64_MAX,
		.reserved = mods->marker_reserved, .fpduptr_or = mods->fpduptr_or,
		.fpduptr_delta = mods->fpduptr_delta, .swapped = mods->marker_swapped,
		.profile = tx->profile, .len_at = UINT64_MAX,
	};
	uint16_t len_field = mods->set_length ? mods->ulpdu_length : (uint16_t)ulpdu_len;
	uint8_t lb[2] = { (uint8_t)(len_field >> 8), (uint8_t)len_field };
	put(&w, lb, sizeof lb);
	if (hdr_len)
		put(&w, hdr, hdr_len);
	if (payload_len)
		put(&w, payload, payload_len);
	unsigned pad = iw_mpa_pad_len(ulpdu_len);
	if (pad) {
		uint8_t pb[3] = { mods->pad_fill, mods->pad_fill, mods->pad_fill };
		put(&w, pb, pad);
	}
	/* A marker between PAD and CRC belongs to this FPDU and is covered (MPA-5.2-12): write
	 * it before closing the CRC. */
	if (w.s == w.next_marker)
		put_marker(&w);
	crc_flush(&w);

	uint32_t crc = tx->crc ? w.crc : 0;
	if (mods->set_crc)
		crc = mods->crc_value;
	crc ^= mods->crc_xor;
	uint8_t cb[4];
	if (mods->crc_big_endian) {
		cb[0] = (uint8_t)(crc >> 24);
		cb[1] = (uint8_t)(crc >> 16);
		cb[2] = (uint8_t)(crc >> 8);
		cb[3] = (uint8_t)crc;
	} else {
		iw_crc32c_put_wire(cb, crc);   /* LS octet first (A1) */
	}
	put(&w, cb, sizeof cb);

	if (mods->corrupt) {
		/* Body octet b sits behind every marker that precedes it. */
		size_t b = IW_MPA_LEN_FIELD + mods->corrupt_at;
		size_t at = b + (markers ? 4 * iw_markers_in_fpdu(tx->pos, b + 1) : 0);
		out[at] ^= 0xFF;
	}
	tx->pos += wire;
	if (out_len)
		*out_len = wire;
	iw_err_clear(e);
	return IW_OK;
}

long iw_mulpdu_formula(uint32_t emss, bool markers)
{
	long m = (long)emss;
	long overhead = 6 + (long)(emss % 4);
	if (markers)
		overhead += 4 * (long)(((uint64_t)emss + IW_MPA_MARKER_INTERVAL - 1) / IW_MPA_MARKER_INTERVAL);
	return m - overhead;
}

uint32_t iw_mulpdu(uint32_t emss, bool markers)
{
	long m = iw_mulpdu_formula(emss, markers);
	if (m < IW_MPA_MULPDU_MIN)
		return IW_MPA_MULPDU_MIN;
	if (m > IW_MPA_MULPDU_MAX)
		return IW_MPA_MULPDU_MAX;
	return (uint32_t)m;
}
