/*
 * fuzz_diff_cuts.c - a stream decoded whole must give what it gives cut anywhere (mpa_rx.h:
 * "The result does not depend on how the stream was cut"; the connection model inherits it).
 *
 * Input: [mode][profile][flags][ncuts][cuts (2 each)...][stream...]
 *   mode % 3: 0 the FPDU decoder, 1 the connection model as responder, 2 as initiator
 *   flags: decoder: 1 markers, 2 CRC; model: 1 want_markers, 2 crc_admin_off, 4 want_crc off,
 *          8 peer closes at the end, 16 p2p
 *   cuts: offsets into the stream (taken modulo its length, sorted), at most 64
 *
 * Invariants: the results of (a) one push of the whole stream, (b) pushes cut at the chosen
 * offsets and (c) for the decoder, one octet at a time, are identical: every FPDU (start,
 * wire length, ULPDU, pad, CRCs, markers, notes), the error (requirement, code, offset,
 * detail), the final position; for the model every event with its fields and data, and every
 * output octet. The model is compared only when it lost no event (IW_CONN_MAX_EVENTS).
 */
#include <string.h>

#include "connrun.h"
#include "fuzz.h"
#include "mpa_rx.h"

#define MAX_CUTS 64

static iw_mpa_rx rx;
static iw_fpdu fp;

typedef struct rx_trace {
	uint64_t h;
	size_t nfpdu;
	bool failed;
	uint64_t pos;
} rx_trace;

static void mix(uint64_t *h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		*h = (*h ^ b[i]) * 0x100000001B3ull;
}

static void mix64(uint64_t *h, uint64_t v)
{
	mix(h, &v, sizeof v);
}

/* Feeds stream in the pieces [cuts[i-1], cuts[i]); step 1 feeds single octets. */
static void rx_run(const iw_profile *p, bool markers, bool crc, const uint8_t *s, size_t len, const size_t *cuts,
		   size_t ncuts, bool step1, rx_trace *t)
{
	memset(t, 0, sizeof *t);
	t->h = 0xCBF29CE484222325ull;
	iw_mpa_rx_init(&rx, p, markers, crc);
	size_t off = 0, ci = 0;
	while (off < len) {
		size_t end = step1 ? off + 1 : ci < ncuts ? cuts[ci++] : len;
		if (end <= off)
			continue;
		while (off < end) {
			size_t used = 0;
			iw_violation err;
			memset(&err, 0, sizeof err);
			enum iw_rx_status st = iw_mpa_rx_push(&rx, s + off, end - off, &used, &fp, &err);
			FZ_CHECK(used <= end - off, "consumed %zu of %zu", used, end - off);
			off += used;
			if (st == IW_RX_FPDU) {
				t->nfpdu++;
				mix64(&t->h, fp.start);
				mix64(&t->h, fp.wire_len);
				mix64(&t->h, fp.ulpdu_length);
				mix(&t->h, fp.ulpdu, fp.ulpdu_length);
				mix64(&t->h, fp.pad_len);
				mix(&t->h, fp.pad, sizeof fp.pad);
				mix64(&t->h, (uint64_t)fp.crc_received << 32 | fp.crc_computed);
				mix64(&t->h, (uint64_t)fp.crc_checked << 1 | fp.crc_ok);
				mix64(&t->h, fp.nmarkers);
				for (size_t i = 0; i < fp.nmarkers; i++) {
					mix64(&t->h, fp.markers[i].pos);
					mix64(&t->h, (uint64_t)fp.markers[i].reserved << 16 | fp.markers[i].fpduptr);
				}
				mix64(&t->h, fp.notes);
			} else if (st == IW_RX_ERROR) {
				t->failed = true;
				mix(&t->h, err.req, strlen(err.req));
				mix64(&t->h, (uint64_t)err.ecode << 8 | (uint64_t)err.layer);
				mix64(&t->h, err.offset);
				mix(&t->h, err.detail, strlen(err.detail));
				/* The rejected FPDU as described in out. */
				mix64(&t->h, fp.start);
				mix64(&t->h, fp.wire_len);
				mix64(&t->h, (uint64_t)fp.crc_received << 32 | fp.crc_computed);
			} else {
				FZ_CHECK(off == end, "NEED_MORE %zu octets before the end of the piece", end - off);
			}
		}
	}
	t->pos = rx.pos;
	mix64(&t->h, iw_mpa_rx_partial(&rx));
}

static size_t read_cuts(fz *f, size_t len, size_t *cuts)
{
	size_t n = fz_u8(f) % (MAX_CUTS + 1);
	for (size_t i = 0; i < n; i++) {
		uint16_t v = fz_u16(f);
		cuts[i] = len ? v % len : 0;
	}
	/* Insertion sort: n is small. */
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && cuts[k - 1] > cuts[k]; k--) {
			size_t t = cuts[k];
			cuts[k] = cuts[k - 1];
			cuts[k - 1] = t;
		}
	return n;
}

int iw_fuzz_diff_cuts(const uint8_t *data, size_t size)
{
	fz f = fz_init(data, size);
	unsigned mode = fz_u8(&f) % 3;
	const iw_profile *p = fz_profile(&f);
	uint8_t flags = fz_u8(&f);
	/* The cuts come before the stream, so the stream length is what is left after them. */
	size_t ncut_raw = f.n ? f.p[0] % (MAX_CUTS + 1) : 0;
	size_t len = f.n > 1 + 2 * ncut_raw ? f.n - 1 - 2 * ncut_raw : 0;
	size_t cuts[MAX_CUTS];
	size_t ncuts = read_cuts(&f, len, cuts);
	size_t slen;
	const uint8_t *s = fz_rest(&f, &slen);
	FZ_CHECK(slen == len, "stream length %zu, expected %zu", slen, len);

	if (mode == 0) {
		rx_trace whole, cut, one;
		rx_run(p, flags & 1, flags & 2, s, len, NULL, 0, false, &whole);
		rx_run(p, flags & 1, flags & 2, s, len, cuts, ncuts, false, &cut);
		FZ_CHECK(whole.h == cut.h && whole.nfpdu == cut.nfpdu && whole.failed == cut.failed &&
				 whole.pos == cut.pos, "whole stream and cut stream differ (%zu/%zu FPDUs, failed %d/%d)",
			 whole.nfpdu, cut.nfpdu, whole.failed, cut.failed);
		if (len <= 8192) {
			rx_run(p, flags & 1, flags & 2, s, len, NULL, 0, true, &one);
			FZ_CHECK(whole.h == one.h && whole.nfpdu == one.nfpdu,
				 "whole stream and octet-by-octet stream differ (%zu/%zu FPDUs)", whole.nfpdu, one.nfpdu);
		}
		return 0;
	}

	fz_conn_setup st;
	memset(&st, 0, sizeof st);
	iw_conn_config_default(&st.cfg, p, mode == 1 ? IW_ROLE_RESPONDER : IW_ROLE_INITIATOR);
	st.cfg.want_markers = flags & 1;
	st.cfg.crc_admin_off = flags & 2;
	st.cfg.want_crc = !(flags & 4);
	st.peer_close = flags & 8;
	st.cfg.p2p = flags & 16;
	st.register_bufs = true;
	/* Send data of one input stays in the arena only while it fits: keep it larger than any
	 * stream (iw_conn.h: ev.data is valid until the next input). */
	st.cfg.recv_buffers = 8;
	st.cfg.recv_buffer_size = 8192;
	st.cfg.out_cap = (size_t)256 << 10;
	fz_conn_trace whole, cut;
	size_t one_cut[1] = { len };
	fz_conn_run(&st, s, len, one_cut, 1, &whole);
	fz_conn_run(&st, s, len, cuts, ncuts, &cut);
	if (whole.lost || cut.lost)
		return 0;
	FZ_CHECK(whole.nev == cut.nev && whole.ev_hash == cut.ev_hash, "events differ: %zu whole, %zu cut", whole.nev,
		 cut.nev);
	FZ_CHECK(whole.out_len == cut.out_len && whole.out_hash == cut.out_hash, "output differs: %zu whole, %zu cut",
		 whole.out_len, cut.out_len);
	FZ_CHECK(whole.consumed == cut.consumed && whole.final_state == cut.final_state,
		 "consumed %zu/%zu, state %d/%d", whole.consumed, cut.consumed, whole.final_state, cut.final_state);
	return 0;
}
