/*
 * fuzz_mpa_rx.c - the streaming FPDU decoder (suite/engine/mpa_rx.h, MR §5.4, §7) against the
 * reference walker (refwalk.h), with and without markers and CRC.
 *
 * Input: [profile][flags][start (4)][seed][stream...]
 *   flags bit 0 markers, bit 1 CRC, bits 2-3 chunk mode (1 octet, up to 7, 300, 5000 octets
 *   per push), bit 4 keep the start offset as given (otherwise rounded down to a multiple of
 *   4, as every conforming stream has it: A23). start is the stream offset of the first
 *   octet from SeqStart, as `iwspec decode --start` sets it (it places the markers).
 *
 * Invariants, for every push:
 *  - consumed <= len; NEED_MORE consumes everything; an FPDU ends exactly where the reference
 *    FPDU ends; after an error every call consumes all and returns NEED_MORE (MPA-7-08).
 *  - a delivered FPDU equals the reference reading: start, wire length, ULPDU_Length, the
 *    ULPDU without markers, pad, CRC received and computed, every marker; its CRC is valid
 *    when CRC is on and its markers agree with the length chain; notes match pad and markers.
 *  - an error is code 2 exactly when CRC is on and the CRC differs, else code 3 with a
 *    disagreeing marker; layer LLP, offset the FPDU start.
 *  - at the end, iw_mpa_rx_partial says whether octets of an incomplete FPDU remain.
 */
#include <string.h>

#include "fuzz.h"
#include "iw_proto.h"
#include "mpa_fpdu.h"
#include "mpa_rx.h"
#include "refwalk.h"

static iw_mpa_rx rx;
static iw_fpdu fp;
static fz_ref_fpdu ref;
static uint8_t ref_ulpdu[65536];

static void check_fpdu(const iw_fpdu *d, const fz_ref_fpdu *r, bool crc, bool markers)
{
	FZ_CHECK(d->start == r->start, "FPDU start %llu, reference %llu", (unsigned long long)d->start,
		 (unsigned long long)r->start);
	FZ_CHECK(d->wire_len == r->wire_len, "wire length %zu, reference %zu", d->wire_len, r->wire_len);
	FZ_CHECK(d->ulpdu_length == r->ulpdu_length, "ULPDU_Length %u, reference %u", d->ulpdu_length,
		 r->ulpdu_length);
	FZ_CHECK(memcmp(d->ulpdu, ref_ulpdu, d->ulpdu_length) == 0, "ULPDU octets differ from the reference");
	FZ_CHECK(d->pad_len == r->pad_len && memcmp(d->pad, r->pad, 3) == 0, "pad differs");
	FZ_CHECK(d->crc_received == r->crc_received, "CRC field 0x%08x, reference 0x%08x", d->crc_received,
		 r->crc_received);
	FZ_CHECK(d->crc_computed == r->crc_computed || (d->start % 4 && d->nmarkers),
		 "computed CRC 0x%08x, reference 0x%08x (FPDU at %llu)", d->crc_computed, r->crc_computed,
		 (unsigned long long)d->start);
	FZ_CHECK(d->crc_checked == crc, "crc_checked %d with CRC %d", d->crc_checked, crc);
	FZ_CHECK(d->crc_ok == (d->crc_received == d->crc_computed), "crc_ok inconsistent");
	FZ_CHECK(!crc || d->crc_ok, "FPDU with a bad CRC delivered with CRC on");
	FZ_CHECK(d->nmarkers == (markers ? r->nmarkers : 0), "%zu markers, reference %zu", d->nmarkers,
		 r->nmarkers);
	unsigned notes = 0;
	for (unsigned i = 0; i < d->pad_len; i++)
		if (d->pad[i])
			notes |= IW_NOTE_PAD_NONZERO;
	for (size_t i = 0; i < d->nmarkers; i++) {
		FZ_CHECK(d->markers[i].pos == r->mpos[i] && d->markers[i].reserved == r->mres[i] &&
				 d->markers[i].fpduptr == r->mptr[i], "marker %zu differs from the reference", i);
		if (r->mres[i])
			notes |= IW_NOTE_MARKER_RESERVED;
		if (r->mptr[i] & 3)
			notes |= IW_NOTE_FPDUPTR_LOWBITS;
	}
	FZ_CHECK(r->markers_agree, "FPDU delivered although a marker disagrees with the length chain");
	FZ_CHECK(d->notes == notes, "notes 0x%x, expected 0x%x", d->notes, notes);
}

int iw_fuzz_mpa_rx(const uint8_t *data, size_t size)
{
	fz f = fz_init(data, size);
	const iw_profile *p = fz_profile(&f);
	uint8_t flags = fz_u8(&f);
	uint32_t start = fz_u32(&f);
	uint32_t seed = fz_u8(&f) + 1u;
	size_t len;
	const uint8_t *s = fz_rest(&f, &len);
	if (!(flags & 0x10))
		start &= ~3u;

	iw_mpa_rx_init(&rx, p, flags & 1, flags & 2);
	/* iw_mpa_rx_init starts at offset 0; a later start moves both the position and the start
	 * of the first FPDU (setting pos alone would misplace it). */
	rx.pos = start;
	rx.fpdu_start = start;
	bool markers = rx.markers, crc = rx.crc;
	size_t off = 0;         /* octets given to the decoder */
	size_t ref_off = 0;     /* where the reference's next FPDU starts */
	bool failed = false;
	while (off < len) {
		size_t k = fz_chunk(&seed, flags >> 2, len - off);
		size_t end = off + k;
		while (off < end) {
			size_t used = 0;
			iw_violation err;
			memset(&err, 0, sizeof err);
			enum iw_rx_status st = iw_mpa_rx_push(&rx, s + off, end - off, &used, &fp, &err);
			FZ_CHECK(used <= end - off, "consumed %zu of %zu", used, end - off);
			if (failed) {
				FZ_CHECK(st == IW_RX_NEED_MORE && used == end - off, "failed decoder returned %d, used %zu",
					 st, used);
				off += used;
				continue;
			}
			if (st == IW_RX_NEED_MORE) {
				FZ_CHECK(used == end - off, "NEED_MORE after %zu of %zu octets", used, end - off);
				off += used;
				continue;
			}
			off += used;
			fz_ref_fpdu_read(s + ref_off, len - ref_off, start + ref_off, markers, p->fpduptr_from_length, true, &ref,
					 ref_ulpdu);
			FZ_CHECK(ref.complete, "decoder completed an FPDU the reference finds incomplete");
			FZ_CHECK(off == ref_off + ref.wire_len, "FPDU ends at %zu, reference at %zu", off,
				 ref_off + ref.wire_len);
			if (st == IW_RX_FPDU) {
				check_fpdu(&fp, &ref, crc, markers);
			} else {
				FZ_CHECK(st == IW_RX_ERROR, "status %d", st);
				FZ_CHECK(err.layer == IW_LAYER_LLP && err.etype == IW_LLP_ET_MPA && err.kind == IW_VIOL_FATAL,
					 "error %d/%d", err.layer, err.etype);
				FZ_CHECK(err.offset == ref.start, "error at %llu, FPDU at %llu",
					 (unsigned long long)err.offset, (unsigned long long)ref.start);
				bool bad_crc = ref.crc_received != ref.crc_computed;
				if (start % 4)
					/* Off A23's alignment a marker can split the CRC field, where the drafts
					 * do not say whether the CRC covers it; either code, never delivery. */
					FZ_CHECK(err.ecode == IW_MPA_E_CRC || err.ecode == IW_MPA_E_MARKER, "code %d", err.ecode);
				else if (crc && bad_crc)
					FZ_CHECK(err.ecode == IW_MPA_E_CRC, "bad CRC reported as code %d", err.ecode);
				else
					FZ_CHECK(err.ecode == IW_MPA_E_MARKER && markers && !ref.markers_agree,
						 "code %d for an FPDU the reference accepts (crc %d ok %d markers agree %d)",
						 err.ecode, crc, !bad_crc, ref.markers_agree);
				FZ_CHECK(err.req && err.detail[0], "error without requirement or detail");
				FZ_CHECK(!iw_mpa_rx_partial(&rx), "failed decoder reports a partial FPDU");
				failed = true;
			}
			ref_off += ref.wire_len;
		}
	}
	if (!failed) {
		bool left = ref_off < len;
		FZ_CHECK(iw_mpa_rx_partial(&rx) == left, "partial %d with %zu octets after the last FPDU",
			 iw_mpa_rx_partial(&rx), len - ref_off);
		if (left) {
			fz_ref_fpdu_read(s + ref_off, len - ref_off, start + ref_off, markers, p->fpduptr_from_length, true, &ref,
					 NULL);
			FZ_CHECK(!ref.complete, "the reference completes an FPDU the decoder did not deliver");
		}
		FZ_CHECK(rx.pos == (uint64_t)start + len, "decoder position %llu after %zu octets from %u",
			 (unsigned long long)rx.pos, len, start);
	}
	return 0;
}
