/*
 * report_pcap.c - one pcap per case: the harness's own TCP connections, from the capture the
 * harness kept (result.h, iw_tcp_chunk), synthesized by pcap_write.h (report.h).
 *
 * Each chunk is one send() or recv() of the harness, written at its real time; within it the
 * segments end where the protocol's units end (report_pcap_cut.h: the startup frame, then each
 * FPDU), so a Reply and the FPDU received with it are two segments, as a dissector reads them
 * (docs/reports.md, "Per-case pcaps"). A chunk still ends a segment, so a resegmentation run
 * shows its cuts; a unit longer than the MSS goes in several.
 * Addresses are fixed and say who is who: the harness is 10.0.0.1, the DUT 10.0.0.2, and the
 * listening side uses port 4791; the side that connected uses 40001, 40002 ... one per
 * connection, so Wireshark tells the case's connections apart.
 */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "atomic_file.h"
#include "iw_proto.h"
#include "pcap_write.h"
#include "report_pcap_cut.h"

#define MAX_CONN_NO 64

const char *iw_report_case_slug(const iw_run *run, const iw_case_result *r, char *buf, size_t cap)
{
	if (!cap)
		return buf;
	size_t o = 0;
	for (size_t i = 0; i < sizeof r->id && r->id[i] && o + 1 < cap; i++) {
		char c = r->id[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
			  c == '-' || (c == '.' && o > 0);
		buf[o++] = ok ? c : '_';
	}
	buf[o] = '\0';
	if (!o)
		snprintf(buf, cap, "case");
	if (run && !strcmp(run->profile, "all") && r->profile[0]) {
		size_t l = strlen(buf);
		snprintf(buf + l, cap - l, "@%.*s", (int)strnlen(r->profile, sizeof r->profile), r->profile);
		for (char *p = buf + l + 1; *p; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
				*p = '_';
	}
	return buf;
}

/* One TCP connection of the capture (a connection number is used again after an RST or a new
 * open): the first octets each way, whose startup frames say which direction carries markers. */
typedef struct epoch {
	uint8_t head[2][IW_MPA_FRAME_HDR_LEN];      /* [to_dut] */
	size_t nhead[2];
} epoch;

typedef struct pcap_ctx {
	iw_pcap_writer *w;
	iw_pcap_tcp *conn[MAX_CONN_NO + 1];
	const iw_profile *p;        /* the case's profile; NULL: chunks are written uncut */
	epoch *ep;                  /* per connection of the capture, in order of opening */
	size_t *ep_of;              /* per chunk: its connection's index in ep */
	size_t cur[MAX_CONN_NO + 1];        /* each number's connection now */
	iw_unit_cut *cut[MAX_CONN_NO + 1][2];       /* each number's cutter per direction [to_dut] */
	bool cut_made[MAX_CONN_NO + 1][2];
	bool harness_client;        /* the DUT is the responder: the harness sent the SYN */
	int opened;
	uint64_t base_us;           /* the case's start */
	uint64_t last_us;           /* time of the last frame written */
} pcap_ctx;

/* The pcap direction of octets sent by the harness (to_dut true) or by the DUT. */
static enum iw_pcap_dir side(const pcap_ctx *x, bool to_dut)
{
	return to_dut == x->harness_client ? IW_PCAP_C2S : IW_PCAP_S2C;
}

static int open_conn(pcap_ctx *x, int no, iw_err *e)
{
	iw_pcap_tcp_params p;
	iw_pcap_tcp_params_default(&p);
	static const uint8_t harness[4] = {10, 0, 0, 1}, dut[4] = {10, 0, 0, 2};
	memcpy(p.client_ip, x->harness_client ? harness : dut, 4);
	memcpy(p.server_ip, x->harness_client ? dut : harness, 4);
	p.client_port = (uint16_t)(40001 + x->opened % 20000);
	p.client_isn = 1000u + 100000u * (uint32_t)x->opened;
	p.server_isn = 5000u + 100000u * (uint32_t)x->opened;
	x->opened++;
	x->conn[no] = iw_pcap_tcp_open(x->w, &p, e);
	return x->conn[no] ? 0 : -1;
}

/* The next frames get time t_us after the case's start, never earlier than the frame before
 * (each frame 1 us after the one before it). Returns the time given. */
static uint64_t stamp(pcap_ctx *x, uint64_t t)
{
	if (t <= x->last_us)
		t = x->last_us + 1;
	iw_pcap_writer_time(x->w, t, 1);
	return t;
}

/* Notes the time of the last frame written since stamp(t) began at frame `before`. */
static void stamped(pcap_ctx *x, uint64_t t, uint64_t before)
{
	uint64_t n = iw_pcap_writer_frames(x->w) - before;
	if (n)
		x->last_us = t + n - 1;
}

/* Pass one: which capture connection each chunk belongs to (the writer opens one on IW_TCP_OPEN
 * and on data for a number without one, as below), and the first octets of each direction.
 * False when memory is short: the chunks are then written uncut. */
static bool plan_cuts(pcap_ctx *x, const iw_case_result *r)
{
	x->ep = calloc(r->ntcp ? r->ntcp : 1, sizeof *x->ep);
	x->ep_of = calloc(r->ntcp ? r->ntcp : 1, sizeof *x->ep_of);
	if (!x->ep || !x->ep_of)
		return false;
	bool open[MAX_CONN_NO + 1] = {false};
	size_t cur[MAX_CONN_NO + 1] = {0}, n = 0;
	for (size_t i = 0; i < r->ntcp; i++) {
		const iw_tcp_chunk *c = &r->tcp[i];
		int no = c->conn < 0 ? 0 : c->conn > MAX_CONN_NO ? MAX_CONN_NO : c->conn;
		if (c->kind == IW_TCP_OPEN || (c->kind == IW_TCP_DATA && !open[no])) {
			cur[no] = n++;
			open[no] = true;
		}
		x->ep_of[i] = cur[no];
		if (c->kind == IW_TCP_RST)
			open[no] = false;
		if (c->kind != IW_TCP_DATA)
			continue;
		epoch *e = &x->ep[cur[no]];
		int d = c->dir != IW_FROM_DUT;
		size_t k = IW_MPA_FRAME_HDR_LEN - e->nhead[d];
		if (k > c->n)
			k = c->n;
		memcpy(e->head[d] + e->nhead[d], c->bytes, k);
		e->nhead[d] += k;
	}
	return true;
}

static void drop_cuts(pcap_ctx *x, int no)
{
	for (int d = 0; d < 2; d++) {
		iw_unit_cut_free(x->cut[no][d]);
		x->cut[no][d] = NULL;
		x->cut_made[no][d] = false;
	}
}

/* A chunk's octets, in segments that end where the protocol's units end inside it. */
static void write_data(pcap_ctx *x, int no, size_t ep, bool to_dut, const uint8_t *b, size_t n)
{
	iw_err ignore;
	int d = to_dut;
	if (x->p && !x->cut_made[no][d]) {
		/* This direction's FPDUs carry markers iff the peer's startup frame asked (M=1). */
		bool m = false;
		iw_unit_cut_frame_m(x->p, x->ep[ep].head[!d], x->ep[ep].nhead[!d], &m);
		x->cut[no][d] = iw_unit_cut_new(x->p, m);
		x->cut_made[no][d] = true;
	}
	iw_unit_cut *c = x->cut[no][d];
	while (n) {
		size_t k = c ? iw_unit_cut_piece(c, b, n) : n;
		/* Data after that side closed cannot be in a TCP stream; the log shows it. */
		iw_pcap_tcp_data(x->conn[no], side(x, to_dut), b, k, &ignore);
		b += k;
		n -= k;
	}
}

/* A case run over the raw segment path kept the frames themselves, in the order they were
 * sent and received (a held segment after the one behind it): the capture is those frames at
 * their real times, nothing synthesized. */
static int pcap_frames(const iw_case_result *r, const char *path, bool batch, iw_err *e)
{
	iw_pcap_writer *w = iw_pcap_writer_new(IW_PCAP_LINK_ETHERNET, e);
	if (!w)
		return -1;
	uint64_t base = r->start_unix_ms > 0 ? (uint64_t)r->start_unix_ms * 1000u : IW_PCAP_EPOCH_DEFAULT * 1000000u;
	uint64_t last = 0;
	for (size_t i = 0; i < r->ntcp; i++) {
		const iw_tcp_chunk *c = &r->tcp[i];
		if (c->kind != IW_TCP_FRAME)
			continue;
		uint64_t t = base + (uint64_t)(c->t_us > 0 ? c->t_us : 0);
		if (t <= last)
			t = last + 1;
		last = t;
		iw_pcap_writer_time(w, t, 1);
		if (iw_pcap_writer_frame(w, c->bytes, c->n, e)) {
			iw_pcap_writer_free(w);
			return -1;
		}
	}
	return batch ? iw_pcap_writer_commit_batch(w, path, e) : iw_pcap_writer_commit(w, path, e);
}

/* One case's capture; batch: one file of many, synced with the others (iw_sync_batch). */
static int pcap_case(const iw_case_result *r, const char *path, bool batch, iw_err *e)
{
	for (size_t i = 0; i < r->ntcp; i++)
		if (r->tcp[i].kind == IW_TCP_FRAME)
			return pcap_frames(r, path, batch, e);

	pcap_ctx x;
	memset(&x, 0, sizeof x);
	x.harness_client = strcmp(r->dut_role, "initiator") != 0;
	x.base_us = r->start_unix_ms > 0 ? (uint64_t)r->start_unix_ms * 1000u : IW_PCAP_EPOCH_DEFAULT * 1000000u;
	x.p = iw_profile_find(r->profile);
	if (x.p && !plan_cuts(&x, r))
		x.p = NULL;
	for (int no = 0; no <= MAX_CONN_NO; no++)
		x.cur[no] = SIZE_MAX;
	int rc = -1;
	x.w = iw_pcap_writer_new(IW_PCAP_LINK_ETHERNET, e);
	if (!x.w)
		goto out;
	iw_err ignore;
	for (size_t i = 0; i < r->ntcp; i++) {
		const iw_tcp_chunk *c = &r->tcp[i];
		int no = c->conn < 0 ? 0 : c->conn > MAX_CONN_NO ? MAX_CONN_NO : c->conn;
		if (x.p && x.ep_of[i] != x.cur[no]) {
			drop_cuts(&x, no);      /* a new connection on this number */
			x.cur[no] = x.ep_of[i];
		}
		uint64_t before = iw_pcap_writer_frames(x.w);
		uint64_t t = stamp(&x, x.base_us + (uint64_t)(c->t_us > 0 ? c->t_us : 0));
		bool to_dut = c->dir != IW_FROM_DUT;
		switch (c->kind) {
		case IW_TCP_OPEN:
			/* A connection number used again (the liveness probe's, say) is a new connection;
			 * the harness closed the old one when it let it go. */
			if (x.conn[no])
				iw_pcap_tcp_fin(x.conn[no], side(&x, true), &ignore);
			if (open_conn(&x, no, e)) {
				iw_pcap_writer_free(x.w);
				goto out;
			}
			break;
		case IW_TCP_DATA:
			if (!x.conn[no] && open_conn(&x, no, e)) {
				iw_pcap_writer_free(x.w);
				goto out;
			}
			write_data(&x, no, x.p ? x.ep_of[i] : 0, to_dut, c->bytes, c->n);
			break;
		case IW_TCP_FRAME:
			break; /* not reached: a case with frames is written by pcap_frames */
		case IW_TCP_FIN:
			if (x.conn[no])
				iw_pcap_tcp_fin(x.conn[no], side(&x, to_dut), &ignore);
			break;
		case IW_TCP_RST:
			if (x.conn[no])
				iw_pcap_tcp_rst(x.conn[no], side(&x, to_dut), &ignore);
			x.conn[no] = NULL;
			break;
		}
		stamped(&x, t, before);
	}
	/* The case's end closes every connection the harness still holds. */
	for (int no = 0; no <= MAX_CONN_NO; no++)
		if (x.conn[no]) {
			uint64_t before = iw_pcap_writer_frames(x.w);
			uint64_t t = stamp(&x, x.last_us + 1000);
			iw_pcap_tcp_fin(x.conn[no], side(&x, true), &ignore);
			stamped(&x, t, before);
		}
	rc = batch ? iw_pcap_writer_commit_batch(x.w, path, e) : iw_pcap_writer_commit(x.w, path, e);
out:
	for (int no = 0; no <= MAX_CONN_NO; no++)
		drop_cuts(&x, no);
	free(x.ep);
	free(x.ep_of);
	return rc;
}

int iw_report_pcap_case(const iw_case_result *r, const char *path, iw_err *e)
{
	return pcap_case(r, path, false, e);
}

long iw_report_pcaps(const iw_run *run, const char *dir, iw_err *e)
{
	if (!run || !dir)
		return iw_errf(e, -1, "cannot write captures: no run or directory");
	if (iw_mkdir_p(dir, e) != 0)
		return -1;
	long written = 0;
	int rc = 0;
	iw_err e2;
	for (size_t i = 0; i < run->ncases; i++) {
		const iw_case_result *r = &run->cases[i];
		if (!r->ntcp)
			continue;
		char slug[160], path[1200];
		iw_report_case_slug(run, r, slug, sizeof slug);
		snprintf(path, sizeof path, "%s/%s.pcap", dir, slug);
		if (pcap_case(r, path, true, rc ? &e2 : e) != 0)
			rc = -1;
		else
			written++;
	}
	/* Durable together: one sync for the directory, not two fsyncs per file. */
	if (written && iw_sync_batch(dir, rc ? &e2 : e) != 0)
		rc = -1;
	return rc ? -1 : written;
}
