/*
 * test_report_pcap_cut.c - the per-case pcap in segments cut where the protocol's units end
 * (reports/report_pcap_cut.h): a recv() that holds a Reply and FPDUs becomes one segment per unit,
 * markers included; a unit the chunk ends inside stays as received; every octet, its direction and
 * the sequence numbers are kept; a stream that is not MPA is not cut.
 */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "mpa_fpdu.h"
#include "mpa_frame.h"
#include "pcap_fixture.h"
#include "pcap_read.h"
#include "profile.h"
#include "report.h"
#include "report_pcap_cut.h"

/* A startup frame of kind k with the M bit given, into out; returns its length. */
static size_t frame(enum iw_mpa_kind k, bool m, uint8_t *out, size_t cap)
{
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, iw_profile_get(IW_PROFILE_RFC5044), k);
	f.m = m;
	size_t n = 0;
	iw_err e;
	CHECK_EQ(iw_mpa_frame_encode(&f, out, cap, &n, &e), IW_OK);
	return n;
}

/* One FPDU of a ULPDU of len pattern octets, at tx's position; returns its wire length. */
static size_t fpdu(iw_mpa_tx *tx, size_t len, uint8_t *out, size_t cap)
{
	uint8_t *u = pf_pattern(len, (uint8_t)len);
	size_t n = 0;
	iw_err e;
	CHECK_EQ(iw_mpa_tx_fpdu(tx, u, len, NULL, 0, NULL, out, cap, &n, &e), IW_OK);
	free(u);
	return n;
}

/* The offsets at which the frames of a direction began, from the capture reader. */
static size_t starts(const iw_pcap_stream *s, uint64_t *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < s->npieces && n < cap; i++)
		out[n++] = s->pieces[i].off;
	return n;
}

TEST(report_pcap_cut_at_units_markers)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	/* The Request asks for markers (M=1): the DUT's FPDUs carry them; the Reply does not. */
	uint8_t req[64], dut[4096];
	size_t nreq = frame(IW_MPA_REQUEST, true, req, sizeof req);
	size_t at[8], n = 0;
	at[n++] = 0;
	size_t len = frame(IW_MPA_REPLY, false, dut, sizeof dut);
	at[n++] = len;
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p, true, true);
	len += fpdu(&tx, 600, dut + len, sizeof dut - len);    /* crosses the marker at 512 */
	at[n++] = len;
	len += fpdu(&tx, 30, dut + len, sizeof dut - len);
	at[n++] = len;
	size_t c_end = len + fpdu(&tx, 100, dut + len, sizeof dut - len);
	size_t split = len + 10;                                /* the recv() ends inside the last */
	at[n++] = split;

	iw_case_result *r = calloc(1, sizeof *r);
	snprintf(r->id, sizeof r->id, "mpa.cut");
	snprintf(r->dut_role, sizeof r->dut_role, "responder");
	snprintf(r->profile, sizeof r->profile, "rfc5044");
	r->start_unix_ms = 1714566896789LL;
	iw_result_tcp(r, IW_TCP_OPEN, IW_TO_DUT, 1, 10, NULL, 0);
	iw_result_tcp(r, IW_TCP_DATA, IW_TO_DUT, 1, 20, req, nreq);
	iw_result_tcp(r, IW_TCP_DATA, IW_FROM_DUT, 1, 30, dut, split);
	iw_result_tcp(r, IW_TCP_DATA, IW_FROM_DUT, 1, 40, dut + split, c_end - split);
	const char *path = pf_tmp_path("cut.pcap");
	iw_err e;
	CHECK_EQ(iw_report_pcap_case(r, path, &e), 0);

	iw_pcap_capture *cap = NULL;
	char msg[256];
	CHECK_EQ(iw_pcap_read(path, &cap, msg, sizeof msg), 0);
	if (cap && cap->nconns == 1) {
		const iw_pcap_stream *s = &cap->conns[0].dir[1];       /* the DUT is the server */
		CHECK_EQ(s->len, c_end);
		CHECK(s->data && !memcmp(s->data, dut, c_end));         /* every octet, in order */
		CHECK(!s->hole && !s->retransmitted && !s->out_of_order); /* sequence numbers follow */
		uint64_t got[16];
		size_t ng = starts(s, got, 16);
		/* Reply, three FPDUs, and the rest of the last as its own recv() had it. */
		CHECK_EQ(ng, n);
		for (size_t i = 0; i < n && i < ng; i++)
			CHECK_EQ(got[i], at[i]);
		CHECK_EQ(cap->conns[0].dir[0].len, nreq);
	} else {
		CHECK(cap && cap->nconns == 1);
	}
	iw_pcap_capture_free(cap);
	unlink(path);
	iw_result_clear_wire(r);
	free(r);
}

TEST(report_pcap_cut_piece_by_piece)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	uint8_t b[2048];
	size_t len = frame(IW_MPA_REPLY, false, b, sizeof b);
	size_t f1 = len;
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p, false, true);
	len += fpdu(&tx, 40, b + len, sizeof b - len);
	size_t f2 = len;
	len += fpdu(&tx, 41, b + len, sizeof b - len);
	/* Octet by octet: each call ends a piece where a unit ends, never elsewhere. */
	iw_unit_cut *c = iw_unit_cut_new(p, false);
	CHECK(c != NULL);
	size_t ends = 0;
	for (size_t i = 0; c && i < len; i++) {
		CHECK_EQ(iw_unit_cut_piece(c, b + i, 1), 1);
		ends += i + 1 == f1 || i + 1 == f2;
	}
	CHECK_EQ(ends, 2);
	iw_unit_cut_free(c);
	/* All at once: the frame, then each FPDU. */
	c = iw_unit_cut_new(p, false);
	if (c) {
		CHECK_EQ(iw_unit_cut_piece(c, b, len), f1);
		CHECK_EQ(iw_unit_cut_piece(c, b + f1, len - f1), f2 - f1);
		CHECK_EQ(iw_unit_cut_piece(c, b + f2, len - f2), len - f2);
	}
	iw_unit_cut_free(c);
	/* Octets that are no startup frame are not cut at all. */
	uint8_t junk[200];
	memset(junk, 0x41, sizeof junk);
	c = iw_unit_cut_new(p, false);
	if (c) {
		CHECK_EQ(iw_unit_cut_piece(c, junk, 10), 10);
		CHECK_EQ(iw_unit_cut_piece(c, junk + 10, sizeof junk - 10), sizeof junk - 10);
	}
	iw_unit_cut_free(c);
	/* A marker the length chain disagrees with does not stop the cutting: the FPDU still ends
	 * where its length says. */
	iw_mpa_tx_init(&tx, p, true, true);
	iw_fpdu_mods mods;
	memset(&mods, 0, sizeof mods);
	mods.fpduptr_delta = 8;
	uint8_t *u = pf_pattern(20, 1);
	size_t n1 = 0, n2 = 0;
	iw_err e;
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, u, 20, NULL, 0, &mods, b, sizeof b, &n1, &e), IW_OK);
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, u, 20, NULL, 0, NULL, b + n1, sizeof b - n1, &n2, &e), IW_OK);
	free(u);
	iw_unit_cut *m = iw_unit_cut_new(iw_profile_get(IW_PROFILE_CULLEY_MPA_02), true);
	if (m) {
		CHECK_EQ(iw_unit_cut_piece(m, b, n1 + n2), n1);
		CHECK_EQ(iw_unit_cut_piece(m, b + n1, n2), n2);
	}
	iw_unit_cut_free(m);
}
