/*
 * test_mpa_rx.c - the streaming FPDU decoder (MR §5.1, §5.2, §5.4, §7).
 *
 * The property tests build random streams with iw_mpa_tx_fpdu, decode each of them whole,
 * one octet at a time and at random cut points, and require the same sequence of results
 * every time (MPA-5.4.1-01: the receiver never relies on segment alignment), equal to what
 * was sent. Fixed seeds keep every run identical.
 */
#include <stdlib.h>

#include "check.h"
#include "crc32c.h"
#include "iw_proto.h"
#include "mpa_fpdu.h"
#include "mpa_markers.h"
#include "mpa_rx.h"

static uint64_t rng_state;
static uint32_t rnd(void)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng_state >> 33);
}

static const iw_profile *p5044(void)
{
	return iw_profile_get(IW_PROFILE_RFC5044);
}

/* ---- decoding with a cut strategy, into a comparable log ---- */

#define MAX_REC 64

typedef struct rec {
	uint64_t start;
	uint64_t wire_len;
	uint32_t ulpdu_length;
	uint32_t ulpdu_crc;
	uint32_t notes;
	uint32_t nmarkers;
} rec;

typedef struct rxlog {
	int n;
	rec r[MAX_REC];
	int ecode;              /* 0: none */
	uint64_t eoffset;
	bool partial;           /* at the end of input */
} rxlog;

enum cut { CUT_WHOLE, CUT_OCTET, CUT_SMALL, CUT_MEDIUM, CUT_LARGE };

/* Expected ULPDUs, checked as they come out (NULL: not checked). */
typedef struct expect {
	int n;
	uint64_t start[MAX_REC];
	const uint8_t *ulpdu[MAX_REC];
	size_t len[MAX_REC];
	unsigned notes[MAX_REC];
	int ecode;
	uint64_t eoffset;
} expect;

static iw_mpa_rx rx_shared;

static void decode(const uint8_t *s, size_t len, bool markers, bool crc, enum cut cut, uint64_t seed,
		   rxlog *log, const expect *ex)
{
	iw_mpa_rx *rx = &rx_shared;
	iw_fpdu f;
	iw_violation v;
	uint64_t saved = rng_state;
	rng_state = seed;
	memset(log, 0, sizeof *log);
	iw_mpa_rx_init(rx, p5044(), markers, crc);
	size_t off = 0;
	while (off < len) {
		size_t chunk;
		switch (cut) {
		case CUT_WHOLE: chunk = len; break;
		case CUT_OCTET: chunk = 1; break;
		case CUT_SMALL: chunk = 1 + rnd() % 8; break;
		case CUT_MEDIUM: chunk = 1 + rnd() % 600; break;
		default: chunk = 1 + rnd() % 5000; break;
		}
		if (chunk > len - off)
			chunk = len - off;
		size_t end = off + chunk;
		while (off < end) {
			size_t used = 0;
			enum iw_rx_status st = iw_mpa_rx_push(rx, s + off, end - off, &used, &f, &v);
			if (used > end - off) {
				CHECK(!"consumed more than given");
				rng_state = saved;
				return;
			}
			off += used;
			if (st == IW_RX_FPDU) {
				if (log->n < MAX_REC) {
					rec *r = &log->r[log->n];
					r->start = f.start;
					r->wire_len = f.wire_len;
					r->ulpdu_length = f.ulpdu_length;
					r->ulpdu_crc = iw_crc32c(f.ulpdu, f.ulpdu_length);
					r->notes = f.notes;
					r->nmarkers = (uint32_t)f.nmarkers;
					if (ex && log->n < ex->n) {
						CHECK_EQ(f.start, ex->start[log->n]);
						CHECK_EQ(f.ulpdu_length, ex->len[log->n]);
						if (f.ulpdu_length == ex->len[log->n])
							CHECK(memcmp(f.ulpdu, ex->ulpdu[log->n], f.ulpdu_length) == 0);
						CHECK_EQ(f.notes, ex->notes[log->n]);
					}
				}
				log->n++;
			} else if (st == IW_RX_ERROR) {
				CHECK(log->ecode == 0);
				log->ecode = v.ecode;
				log->eoffset = v.offset;
				CHECK_EQ(v.layer, IW_LAYER_LLP);
				CHECK_EQ(v.etype, 0);
				CHECK_EQ(v.kind, IW_VIOL_FATAL);
				CHECK_STR(v.req, v.ecode == 2 ? "MPA-5.2-14" : "MPA-7-03");
			} else if (off != end) {
				CHECK(!"NEED_MORE without consuming everything");
				break;
			}
		}
		off = end;
	}
	log->partial = iw_mpa_rx_partial(rx);
	rng_state = saved;
}

/* ---- random streams ---- */

#define STREAM_CAP (200 * 1024)

typedef struct stream {
	uint8_t *s;
	size_t len;
	bool markers, crc;
	expect ex;
	uint8_t *data;          /* ULPDU octets, back to back */
} stream;

enum defect { D_NONE, D_CRC_FLIP, D_FPDUPTR_OFF4, D_RESERVED, D_PAD, D_LOWBITS };

/* Builds a stream of nf FPDUs. When defect_at >= 0 that FPDU carries `defect`; a benign
 * sender deviation is sprinkled on some others. Fills s->ex with what a conforming decoder
 * must deliver. */
static void make_stream(stream *st, int nf, int defect_at, enum defect defect)
{
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p5044(), st->markers, st->crc);
	size_t dpos = 0;
	st->len = 0;
	memset(&st->ex, 0, sizeof st->ex);
	for (int i = 0; i < nf; i++) {
		size_t L = rnd() % 4 == 0 ? rnd() % 8 : rnd() % 3001;
		uint8_t *u = st->data + dpos;
		for (size_t k = 0; k < L; k++)
			u[k] = (uint8_t)rnd();
		dpos += L;
		iw_fpdu_mods m = { 0 };
		enum defect d = i == defect_at ? defect : D_NONE;
		if (d == D_NONE && rnd() % 8 == 0)
			d = (enum defect)(D_RESERVED + rnd() % 3);
		switch (d) {
		case D_CRC_FLIP: m.crc_xor = 1u << (rnd() % 32); break;
		case D_FPDUPTR_OFF4: m.fpduptr_delta = rnd() & 1 ? 4 : -4; break;
		case D_RESERVED: m.marker_reserved = (uint16_t)(1 + rnd() % 0xFFFF); break;
		case D_PAD: m.pad_fill = (uint8_t)(1 + rnd() % 255); break;
		case D_LOWBITS: m.fpduptr_or = (uint16_t)(1 + rnd() % 3); break;
		default: break;
		}
		size_t body = 2 + L + iw_mpa_pad_len(L) + 4;
		size_t nmk = st->markers ? iw_markers_in_fpdu(tx.pos, body) : 0;
		uint64_t start = tx.pos;
		size_t h = L ? rnd() % (L + 1) : 0, n = 0;
		int rc = iw_mpa_tx_fpdu(&tx, u, h, u + h, L - h, &m, st->s + st->len, STREAM_CAP - st->len, &n, NULL);
		CHECK_EQ(rc, IW_OK);
		st->len += n;
		if (st->ex.ecode)
			continue;
		/* What a conforming decoder makes of it (MR §7, MPA-4-04, A22). */
		if (d == D_CRC_FLIP && st->crc) {
			st->ex.ecode = 2;
			st->ex.eoffset = start;
			continue;
		}
		if (d == D_FPDUPTR_OFF4 && nmk) {
			st->ex.ecode = 3;
			st->ex.eoffset = start;
			continue;
		}
		unsigned notes = 0;
		if (d == D_RESERVED && nmk)
			notes = IW_NOTE_MARKER_RESERVED;
		if (d == D_PAD && iw_mpa_pad_len(L))
			notes = IW_NOTE_PAD_NONZERO;
		if (d == D_LOWBITS && nmk)
			notes = IW_NOTE_FPDUPTR_LOWBITS;
		int k = st->ex.n++;
		st->ex.start[k] = start;
		st->ex.ulpdu[k] = u;
		st->ex.len[k] = L;
		st->ex.notes[k] = notes;
	}
}

static stream *stream_new(void)
{
	stream *st = calloc(1, sizeof *st);
	st->s = malloc(STREAM_CAP + 70000);
	st->data = malloc(64 * 3001);
	return st;
}

static void stream_free(stream *st)
{
	free(st->s);
	free(st->data);
	free(st);
}

static bool same_log(const rxlog *a, const rxlog *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

/* MPA-5.4-04, MPA-5.4.1-01, MPA-5.1-09/10, MPA-5.2-14, MPA-7-03, MPA-7-08, MPA-4-02/03,
 * MPA-4.1-02, MPA-5.1-05: 400 random streams, each decoded whole, octet by octet and at
 * three kinds of random cuts; all five logs are identical and equal to what was sent. */
TEST(mpa_rx_property_cuts)
{
	stream *st = stream_new();
	rng_state = 0xC0FFEE01;
	int errors_seen[4] = { 0 };
	size_t total = 0;
	for (int iter = 0; iter < 400; iter++) {
		st->markers = rnd() & 1;
		st->crc = rnd() % 4 != 0;
		int nf = 1 + (int)(rnd() % 24);
		int defect_at = -1;
		enum defect d = D_NONE;
		if (rnd() % 2) {
			defect_at = (int)(rnd() % (unsigned)nf);
			d = (enum defect)(D_CRC_FLIP + rnd() % 5);
		}
		make_stream(st, nf, defect_at, d);
		rxlog logs[5];
		for (int c = 0; c < 5; c++)
			decode(st->s, st->len, st->markers, st->crc, (enum cut)c, 1000 + (uint64_t)iter, &logs[c], &st->ex);
		CHECK_EQ(logs[0].n, st->ex.n);
		CHECK_EQ(logs[0].ecode, st->ex.ecode);
		CHECK_EQ(logs[0].eoffset, st->ex.eoffset);
		CHECK(!logs[0].partial);
		for (int c = 1; c < 5; c++)
			if (!same_log(&logs[0], &logs[c])) {
				check_fail(__FILE__, __LINE__, "stream %d: cut %d differs from whole", iter, c);
				break;
			}
		total += st->len;
		if (st->ex.ecode < 4)
			errors_seen[st->ex.ecode]++;
	}
	/* The generator did exercise both error codes and clean streams. */
	CHECK(total > 4000000);
	CHECK(errors_seen[0] > 100);
	CHECK(errors_seen[2] > 20);
	CHECK(errors_seen[3] > 10);
	stream_free(st);
}

/* MPA-5.2-14, MPA-5.4-01: with CRC on, one flipped bit anywhere in a valid stream is found as
 * code 2 at the start of the FPDU holding it, and everything before it is delivered intact.
 * A flipped ULPDU_Length misframes its FPDU; the zero tail lets any misframed FPDU complete. */
TEST(mpa_rx_bit_flips_are_code2)
{
	stream *st = stream_new();
	rng_state = 0xB17F11B5;
	for (int iter = 0; iter < 300; iter++) {
		st->markers = rnd() & 1;
		st->crc = true;
		make_stream(st, 1 + (int)(rnd() % 12), -1, D_NONE);
		/* The FPDU starts before the flip, from what was sent. */
		size_t bit = rnd() % (st->len * 8);
		size_t at = bit / 8;
		int k = 0;
		while (k + 1 < st->ex.n && st->ex.start[k + 1] <= at)
			k++;
		uint64_t fstart = st->ex.start[k];
		st->s[at] ^= (uint8_t)(1u << (bit % 8));
		memset(st->s + st->len, 0, 70000);
		expect ex = st->ex;
		ex.n = k;
		rxlog a, b;
		decode(st->s, st->len + 70000, st->markers, true, CUT_WHOLE, 1, &a, &ex);
		decode(st->s, st->len + 70000, st->markers, true, CUT_MEDIUM, 2 + (uint64_t)iter, &b, &ex);
		CHECK_EQ(a.n, k);
		CHECK_EQ(a.ecode, 2);
		CHECK_EQ(a.eoffset, fstart);
		CHECK(same_log(&a, &b));
		if (a.ecode != 2 || a.eoffset != fstart) {
			check_fail(__FILE__, __LINE__, "iter %d: flip at %zu bit %zu", iter, at, bit % 8);
			break;
		}
	}
	stream_free(st);
}

/* MPA-5.4-02 robustness: garbage never crashes (run under ASan/UBSan), never reads or
 * reports out of range, and the result still does not depend on the cuts. */
TEST(mpa_rx_garbage_input)
{
	static uint8_t g[40000];
	rng_state = 0x6A7BA6E5;
	for (int iter = 0; iter < 200; iter++) {
		size_t len = 1 + rnd() % sizeof g;
		int kind = (int)(rnd() % 3);
		for (size_t i = 0; i < len; i++) {
			uint32_t r = rnd();
			/* Uniform, mostly zero, or small length fields every few octets. */
			g[i] = kind == 0 ? (uint8_t)r : kind == 1 ? (r % 16 == 0 ? (uint8_t)(r >> 8) : 0)
								 : (uint8_t)(r % 4 == 0 ? r >> 8 & 0x0F : r >> 8);
		}
		bool markers = rnd() & 1, crc = rnd() & 1;
		rxlog a, b, c;
		decode(g, len, markers, crc, CUT_WHOLE, 1, &a, NULL);
		decode(g, len, markers, crc, CUT_SMALL, 7 + (uint64_t)iter, &b, NULL);
		decode(g, len, markers, crc, CUT_LARGE, 9 + (uint64_t)iter, &c, NULL);
		CHECK(same_log(&a, &b));
		CHECK(same_log(&a, &c));
		for (int k = 0; k < a.n && k < MAX_REC; k++)
			CHECK(a.r[k].start + a.r[k].wire_len <= len);
		if (a.ecode)
			CHECK(a.eoffset < len);
	}
}

/* ---- single cases ---- */

typedef struct one {
	enum iw_rx_status st[8];
	iw_fpdu f[4];
	iw_violation v;
	int nf;
	int nst;
} one;

static iw_fpdu fbuf;

/* Pushes the whole buffer; records statuses and up to 4 FPDUs (without their ulpdu). */
static void push_all(iw_mpa_rx *rx, const uint8_t *s, size_t len, one *o)
{
	memset(o, 0, sizeof *o);
	size_t off = 0;
	while (off < len && o->nst < 8) {
		size_t used = 0;
		enum iw_rx_status st = iw_mpa_rx_push(rx, s + off, len - off, &used, &fbuf, &o->v);
		off += used;
		o->st[o->nst++] = st;
		if (st == IW_RX_FPDU && o->nf < 4)
			o->f[o->nf++] = fbuf;
	}
}

static size_t tx_one(iw_mpa_tx *tx, size_t L, const iw_fpdu_mods *m, uint8_t *out, size_t cap)
{
	static uint8_t u[70000];
	for (size_t i = 0; i < L && i < sizeof u; i++)
		u[i] = (uint8_t)(i * 7 + 1);
	size_t n = 0;
	CHECK_EQ(iw_mpa_tx_fpdu(tx, u, L, NULL, 0, m, out, cap, &n, NULL), IW_OK);
	return n;
}

/* MPA-4-04, MPA-5.2-08: with CRC off the field may hold anything and is not checked; the
 * decoder still reports whether it was valid. */
TEST(mpa_rx_crc_off_not_checked)
{
	static iw_mpa_rx rx;
	iw_mpa_tx tx;
	uint8_t s[256];
	iw_fpdu_mods m = { .set_crc = true, .crc_value = 0xEFBEADDE };
	iw_mpa_tx_init(&tx, p5044(), false, false);
	size_t n = tx_one(&tx, 30, &m, s, sizeof s);
	CHECK_MEM(s + n - 4, "\xDE\xAD\xBE\xEF", 4);
	one o;
	iw_mpa_rx_init(&rx, p5044(), false, false);
	push_all(&rx, s, n, &o);
	CHECK_EQ(o.st[0], IW_RX_FPDU);
	CHECK(!o.f[0].crc_checked);
	CHECK(!o.f[0].crc_ok);
	CHECK_EQ(o.f[0].crc_received, 0xEFBEADDE);
	CHECK_EQ(o.f[0].crc_computed, iw_crc32c(s, n - 4));

	iw_mpa_rx_init(&rx, p5044(), false, true);
	push_all(&rx, s, n, &o);
	CHECK_EQ(o.st[0], IW_RX_ERROR);
	CHECK_EQ(o.v.ecode, 2);
	CHECK(strstr(o.v.detail, "CRC field 0xdeadbeef,") != NULL);   /* the field as sent, as tshark shows it */
}

/* MPA-7-03 (A21): a valid-CRC FPDU whose marker inside is off by 4 is code 3 at the FPDU
 * start; so is a marker at the FPDU start whose FPDUPTR is not 0 (MPA-5.1-04). With CRC off
 * the marker check still applies. */
TEST(mpa_rx_marker_mismatch_code3)
{
	static iw_mpa_rx rx;
	static uint8_t s[4096];
	for (int crc = 0; crc < 2; crc++) {
		iw_mpa_tx tx;
		iw_mpa_tx_init(&tx, p5044(), true, crc);
		size_t n1 = tx_one(&tx, 400, NULL, s, sizeof s);
		iw_fpdu_mods m = { .fpduptr_delta = -4 };
		size_t n2 = tx_one(&tx, 400, &m, s + n1, sizeof s - n1);
		one o;
		iw_mpa_rx_init(&rx, p5044(), true, crc);
		push_all(&rx, s, n1 + n2, &o);
		CHECK_EQ(o.st[0], IW_RX_FPDU);
		CHECK_EQ(o.st[1], IW_RX_ERROR);
		CHECK_EQ(o.v.ecode, 3);
		CHECK_EQ(o.v.offset, n1);
		CHECK_STR(o.v.req, "MPA-7-03");
		CHECK(strstr(o.v.detail, "512") != NULL);

		/* First FPDU: its leading marker says 4 instead of 0. */
		iw_mpa_tx_init(&tx, p5044(), true, crc);
		m.fpduptr_delta = 4;
		n1 = tx_one(&tx, 40, &m, s, sizeof s);
		CHECK_MEM(s, "\x00\x00\x00\x04", 4);
		iw_mpa_rx_init(&rx, p5044(), true, crc);
		push_all(&rx, s, n1, &o);
		CHECK_EQ(o.st[0], IW_RX_ERROR);
		CHECK_EQ(o.v.ecode, 3);
		CHECK_EQ(o.v.offset, 0);
	}
}

/* MR §7: code 3 needs a valid CRC, so an FPDU with both defects is code 2. */
TEST(mpa_rx_crc_error_before_marker_error)
{
	static iw_mpa_rx rx;
	uint8_t s[256];
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p5044(), true, true);
	iw_fpdu_mods m = { .fpduptr_delta = 8, .crc_xor = 1 };
	size_t n = tx_one(&tx, 40, &m, s, sizeof s);
	one o;
	iw_mpa_rx_init(&rx, p5044(), true, true);
	push_all(&rx, s, n, &o);
	CHECK_EQ(o.st[0], IW_RX_ERROR);
	CHECK_EQ(o.v.ecode, 2);
	CHECK_EQ(o.v.layer, IW_LAYER_LLP);
	/* out describes the rejected FPDU too. */
	CHECK_EQ(fbuf.crc_received ^ fbuf.crc_computed, 1);
	CHECK_EQ(fbuf.start, 0);
}

/* MPA-4-03, MPA-4.1-02, MPA-5.1-05 (A22, TR-14): non-zero PAD, RESERVED FF FF and FPDUPTR
 * 0x0017 for 0x0014 are accepted, noted, and the ULPDU is intact. */
TEST(mpa_rx_sender_deviations_noted)
{
	static iw_mpa_rx rx;
	static uint8_t s[2048];
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p5044(), true, true);
	size_t n1 = tx_one(&tx, 482, NULL, s, sizeof s);
	CHECK_EQ(n1, 0x1EC);
	iw_fpdu_mods m = { .fpduptr_or = 3, .marker_reserved = 0xFFFF, .pad_fill = 0xFF };
	size_t n2 = tx_one(&tx, 41, &m, s + n1, sizeof s - n1);
	CHECK_MEM(s + 0x200, "\xFF\xFF\x00\x17", 4);
	one o;
	iw_mpa_rx_init(&rx, p5044(), true, true);
	push_all(&rx, s, n1 + n2, &o);
	CHECK_EQ(o.nf, 2);
	CHECK_EQ(o.f[0].notes, 0);
	CHECK_EQ(o.f[1].notes, IW_NOTE_PAD_NONZERO | IW_NOTE_MARKER_RESERVED | IW_NOTE_FPDUPTR_LOWBITS);
	CHECK_EQ(o.f[1].pad_len, 1);
	CHECK_EQ(o.f[1].pad[0], 0xFF);
	CHECK_EQ(o.f[1].nmarkers, 1);
	CHECK_EQ(o.f[1].markers[0].pos, 0x200);
	CHECK_EQ(o.f[1].markers[0].reserved, 0xFFFF);
	CHECK_EQ(o.f[1].markers[0].fpduptr, 0x17);
	CHECK(o.f[1].crc_checked && o.f[1].crc_ok);
	CHECK_EQ(o.f[1].ulpdu_length, 41);
	/* The ULPDU is in rx, markers removed (MPA-5.1-10); the last FPDU's is still valid. */
	CHECK_EQ(fbuf.ulpdu[20], (uint8_t)(20 * 7 + 1));
	CHECK_EQ(fbuf.ulpdu[40], (uint8_t)(40 * 7 + 1));
}

/* MPA-7-08: after an error nothing more is passed; input is consumed and dropped. */
TEST(mpa_rx_sticky_failure)
{
	static iw_mpa_rx rx;
	static uint8_t s[1024];
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p5044(), false, true);
	iw_fpdu_mods bad = { .corrupt = true, .corrupt_at = 3 };
	size_t n = tx_one(&tx, 20, NULL, s, sizeof s);
	n += tx_one(&tx, 20, &bad, s + n, sizeof s - n);
	size_t good_at = n;
	for (int i = 0; i < 3; i++)
		n += tx_one(&tx, 20, NULL, s + n, sizeof s - n);
	one o;
	iw_mpa_rx_init(&rx, p5044(), false, true);
	push_all(&rx, s, n, &o);
	CHECK_EQ(o.nst, 3);
	CHECK_EQ(o.st[0], IW_RX_FPDU);
	CHECK_EQ(o.st[1], IW_RX_ERROR);
	CHECK_EQ(o.st[2], IW_RX_NEED_MORE);
	CHECK(rx.failed);
	CHECK(!iw_mpa_rx_partial(&rx));
	size_t used = 0;
	CHECK_EQ(iw_mpa_rx_push(&rx, s + good_at, n - good_at, &used, NULL, NULL), IW_RX_NEED_MORE);
	CHECK_EQ(used, n - good_at);
}

/* MPA-5.4-04: nothing comes out before the last CRC octet; iw_mpa_rx_partial tells whether
 * the stream ended inside an FPDU (a lone leading marker counts). */
TEST(mpa_rx_partial_and_completion)
{
	static iw_mpa_rx rx;
	uint8_t s[64];
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p5044(), true, true);
	size_t n = tx_one(&tx, 10, NULL, s, sizeof s);
	CHECK_EQ(n, 20);
	iw_mpa_rx_init(&rx, p5044(), true, true);
	CHECK(!iw_mpa_rx_partial(&rx));
	for (size_t i = 0; i < n; i++) {
		size_t used = 0;
		enum iw_rx_status st = iw_mpa_rx_push(&rx, s + i, 1, &used, NULL, NULL);
		CHECK_EQ(used, 1);
		CHECK_EQ(st, i + 1 == n ? IW_RX_FPDU : IW_RX_NEED_MORE);
		CHECK_EQ(iw_mpa_rx_partial(&rx), i + 1 < n);
	}
	CHECK_EQ(rx.pos, 20);
	size_t used = 9;
	CHECK_EQ(iw_mpa_rx_push(&rx, s, 0, &used, NULL, NULL), IW_RX_NEED_MORE);
	CHECK_EQ(used, 0);
}

/* A8: the largest ULPDU (65535) with markers; every marker recorded and pointing home. */
TEST(mpa_rx_largest_fpdu_with_markers)
{
	static iw_mpa_rx rx;
	static uint8_t s[70000];
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p5044(), true, true);
	iw_mpa_tx_skip(&tx, 508);   /* a start just before a marker: the most markers */
	size_t n = tx_one(&tx, 65535, NULL, s, sizeof s);
	size_t nm = iw_markers_in_fpdu(508, 2 + 65535 + 3 + 4);
	CHECK(nm <= IW_FPDU_MAX_MARKERS);
	/* Feed it after 508 octets of a first FPDU so the stream positions line up. */
	static uint8_t all[70600];
	iw_mpa_tx t0;
	iw_mpa_tx_init(&t0, p5044(), true, true);
	size_t n0 = tx_one(&t0, 498, NULL, all, sizeof all);
	CHECK_EQ(n0, 508);
	memcpy(all + n0, s, n);
	one o;
	iw_mpa_rx_init(&rx, p5044(), true, true);
	push_all(&rx, all, n0 + n, &o);
	CHECK_EQ(o.nf, 2);
	CHECK_EQ(o.f[1].ulpdu_length, 65535);
	CHECK_EQ(o.f[1].pad_len, 3);
	CHECK_EQ(o.f[1].nmarkers, nm);
	CHECK_EQ(o.f[1].wire_len, n);
	for (size_t k = 0; k < o.f[1].nmarkers; k++)
		CHECK_EQ(o.f[1].markers[k].fpduptr, (uint16_t)(o.f[1].markers[k].pos - 508));
	CHECK_EQ(fbuf.ulpdu[65534], (uint8_t)(65534 * 7 + 1));
}

/* culley-mpa-02: markers and CRC always, whatever is passed. */
TEST(mpa_rx_culley_forces_markers_and_crc)
{
	static iw_mpa_rx rx;
	iw_mpa_rx_init(&rx, iw_profile_get(IW_PROFILE_CULLEY_MPA_02), false, false);
	CHECK(rx.markers && rx.crc);
}
