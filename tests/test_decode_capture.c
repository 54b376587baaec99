/*
 * test_decode_capture.c - `iwspec decode CAPTURE` as a stream: one connection judged
 * (decode_conn.h), above all a Request no Reply answers (MPA-6.1-R2a) however the connection
 * ended, and the notes of a connection the reader could not keep whole; then whole captures of
 * many connections written with the pcap writer: one line per connection, the summary's
 * counts, the exit status, the JSON document.
 */
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "decode_conn.h"
#include "decode_pcap.h"
#include "mpa_fpdu.h"
#include "mpa_frame.h"
#include "pcap_fixture.h"
#include "pcap_write.h"

static uint8_t req[64], rep[64], badreq[64];
static size_t reql, repl;

static void frames(void)
{
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	iw_mpa_frame_encode(&f, req, sizeof req, &reql, NULL);
	iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
	iw_mpa_frame_encode(&f, rep, sizeof rep, &repl, NULL);
	memcpy(badreq, req, reql);
	badreq[0] ^= 0x20;          /* 'm': the key is wrong (MPA-6.1-R5) */
}

static iw_pcap_piece pieces[2][1];

/* A connection whose client sent d0 (in frame 4) and whose server sent d1 (in frame 5). */
static void conn_of(iw_pcap_conn *c, const uint8_t *d0, size_t n0, const uint8_t *d1, size_t n1)
{
	memset(c, 0, sizeof *c);
	c->number = 7;
	c->family = 4;
	c->addr[0][0] = 10;
	c->addr[0][3] = 1;
	c->addr[1][0] = 10;
	c->addr[1][3] = 2;
	c->port[0] = 40001;
	c->port[1] = 4791;
	c->handshake = true;
	c->first_frame = 1;
	const uint8_t *d[2] = {d0, d1};
	size_t n[2] = {n0, n1};
	for (int k = 0; k < 2; k++) {
		iw_pcap_stream *s = &c->dir[k];
		s->data = (uint8_t *)d[k];
		s->len = n[k];
		s->syn = true;
		s->first_frame = 1 + (uint64_t)k;
		s->last_frame = 8;
		pieces[k][0] = (iw_pcap_piece){0, 4 + (uint64_t)k};
		s->pieces = pieces[k];
		s->npieces = n[k] ? 1 : 0;
	}
}

static void judge(const iw_pcap_conn *c, enum iw_pcap_why why, uint64_t frame, iw_conn_verdict *v)
{
	static iw_violation store[64];
	iw_viol_list l = {.v = store, .cap = 64};
	iw_decode_conn_opts o = {.out = IW_DECODE_OUT_QUIET, .viol = &l};
	iw_pcap_end end = {.why = why, .frame = frame, .limit = 100};
	iw_decode_conn(c, &end, &o, v);
}

TEST(decode_conn_request_without_reply)
{
	frames();
	iw_pcap_conn c;
	iw_conn_verdict v;

	conn_of(&c, req, reql, NULL, 0);
	c.dir[0].fin = c.dir[1].fin = true;
	judge(&c, IW_PCAP_END_CLOSED, 9, &v);
	CHECK(v.mpa);
	CHECK(v.no_reply);
	CHECK_EQ(v.violations, 1);
	CHECK(strstr(v.first.text, "VIOLATION MPA-6.1-R2a at offset 0: error: no Reply to the Request (frame 4)") != NULL);
	CHECK(strstr(v.first.text, "FIN both ways, the last at frame 9") != NULL);
	CHECK_STR(v.first_role, "responder");
	CHECK(!v.incomplete);

	c.dir[0].fin = c.dir[1].fin = false;
	c.dir[1].rst = true;
	c.dir[1].rst_frame = 6;
	judge(&c, IW_PCAP_END_CLOSED, 6, &v);
	CHECK(v.no_reply);
	CHECK(strstr(v.first.text, "reset (RST at frame 6)") != NULL);

	c.dir[1].rst = false;
	judge(&c, IW_PCAP_END_CAPTURE, 12, &v);
	CHECK(v.no_reply);
	CHECK(strstr(v.first.text, "the capture ended (frame 12) with the connection still open") != NULL);

	judge(&c, IW_PCAP_END_REUSED, 20, &v);
	CHECK(v.no_reply);
	CHECK(strstr(v.first.text, "a new connection took its ports (SYN at frame 20)") != NULL);

	/* Evicted: its end was not seen, so no missing Reply is claimed; a note says why. */
	judge(&c, IW_PCAP_END_EVICTED, 15, &v);
	CHECK(!v.no_reply);
	CHECK_EQ(v.violations, 0);
	CHECK(v.incomplete);
	CHECK(strstr(v.note, "evicted at frame 15, when more than 100 connections were open at once") != NULL);

	/* The Reply's octets missing from the capture: the hole is the finding, not the Reply. */
	c.dir[1].hole = true;
	c.dir[1].hole_len = 20;
	c.dir[1].hole_frame = 5;
	judge(&c, IW_PCAP_END_CAPTURE, 12, &v);
	CHECK(!v.no_reply);
	CHECK_EQ(v.violations, 1);
	CHECK(strstr(v.first.text, "VIOLATION capture") != NULL);

	/* A Reply: nothing to say. */
	conn_of(&c, req, reql, rep, repl);
	judge(&c, IW_PCAP_END_CLOSED, 9, &v);
	CHECK(!v.no_reply);
	CHECK_EQ(v.violations, 0);
	CHECK_STR(v.profile, "rfc5044");

	/* An invalid Request must go unanswered (R2b): that is the Request's violation only. */
	conn_of(&c, badreq, reql, NULL, 0);
	judge(&c, IW_PCAP_END_CLOSED, 9, &v);
	CHECK(!v.no_reply);
	CHECK(strstr(v.first.text, "VIOLATION MPA-6.1.1-01") != NULL); /* the sender's rule (R5 is the receiver's) */
	CHECK_STR(v.first_role, "initiator");

	/* Neither side speaks MPA. */
	conn_of(&c, (const uint8_t *)"GET / HTTP/1.0\r\n\r\n", 18, NULL, 0);
	judge(&c, IW_PCAP_END_CLOSED, 9, &v);
	CHECK(!v.mpa);
	CHECK(strstr(v.why_not, "neither direction") != NULL);
}

/* A stream the reader stopped keeping ends inside an FPDU: that is no violation of the sender
 * (MPA-5.4-04 is for a stream that really ends there), only a note. */
TEST(decode_conn_cut_stream_is_noted_not_judged)
{
	frames();
	const iw_profile *p = iw_profile_get(IW_PROFILE_RFC5044);
	uint8_t a[256];
	memcpy(a, req, reql);
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p, false, true);
	uint8_t h[18] = {0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
	size_t fl = 0;
	uint8_t msg[64] = {0};
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, h, sizeof h, msg, sizeof msg, NULL, a + reql, sizeof a - reql, &fl, NULL), IW_OK);
	iw_pcap_conn c;
	iw_conn_verdict v;
	/* The Request in frame 4, the Reply in 5, the FPDU in 6. */
	iw_pcap_piece two[2] = {{0, 4}, {reql, 6}};
	conn_of(&c, a, reql + fl - 10, rep, repl);
	c.dir[0].pieces = two;
	c.dir[0].npieces = 2;
	c.dir[0].fin = true;        /* the initiator itself ended its stream there */
	judge(&c, IW_PCAP_END_CLOSED, 9, &v);
	CHECK_EQ(v.violations, 1);
	CHECK(strstr(v.first.text, "MPA-5.4-04") != NULL);
	c.dir[0].cut = IW_PCAP_CUT_BUDGET;
	c.dir[0].beyond = 10;
	judge(&c, IW_PCAP_END_CLOSED, 9, &v);
	CHECK_EQ(v.violations, 0);
	CHECK(v.incomplete);
	CHECK(strstr(v.note, "the initiator's stream is judged up to octet") != NULL);
	CHECK(strstr(v.note, "--max-buffer") != NULL);
	conn_of(&c, a, reql + fl, rep, repl);
	c.dir[0].pieces = two;
	c.dir[0].npieces = 2;
	judge(&c, IW_PCAP_END_CLOSED, 9, &v);
	CHECK_EQ(v.violations, 0);
	CHECK_EQ(v.fpdus[0], 1);
}

/* ---- whole captures ---- */

static void tmp_path(char *buf, size_t cap, const char *name)
{
	snprintf(buf, cap, "/tmp/iwspec-test-decode-%d-%s", (int)getpid(), name);
}

/* n connections from distinct ports; connection i answers its Request when i % 3 == 0,
 * resets when i % 3 == 1, and is left open (no Reply) when i % 3 == 2 and it is the last. */
static void write_capture(const char *path, int n)
{
	iw_err e;
	iw_pcap_writer *w = iw_pcap_writer_new(IW_PCAP_LINK_ETHERNET, &e);
	CHECK(w != NULL);
	if (!w)
		return;
	for (int i = 0; i < n; i++) {
		iw_pcap_tcp_params pr;
		iw_pcap_tcp_params_default(&pr);
		pr.client_port = (uint16_t)(40000 + i);
		iw_pcap_tcp *t = iw_pcap_tcp_open(w, &pr, &e);
		CHECK(t && !iw_pcap_tcp_data(t, IW_PCAP_C2S, req, reql, &e));
		if (i % 3 == 0)
			CHECK(!iw_pcap_tcp_data(t, IW_PCAP_S2C, rep, repl, &e));
		if (i % 3 == 1)
			CHECK(!iw_pcap_tcp_rst(t, IW_PCAP_S2C, &e));
		else if (i % 3 == 0 || i + 1 < n) {
			CHECK(!iw_pcap_tcp_fin(t, IW_PCAP_C2S, &e));
			CHECK(!iw_pcap_tcp_fin(t, IW_PCAP_S2C, &e));
		}
	}
	CHECK_EQ(iw_pcap_writer_commit(w, path, &e), 0);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

TEST(decode_capture_one_line_per_connection_and_summary)
{
	frames();
	char path[256];
	tmp_path(path, sizeof path, "many.pcap");
	write_capture(path, 30);
	iw_decode_opts o;
	iw_decode_opts_default(&o);
	char *out;
	CHECK_EQ(pf_decode_stdout(path, &o, &out), IW_DECODE_VIOLATIONS);
	CHECK_EQ(count(out, "\n"), 30 + 6);         /* the lines, a blank line, five of summary */
	CHECK(strstr(out, "\nviolations by side: initiator 0 in 0 connections, responder 20 in 20 connections\n") != NULL);
	CHECK_EQ(count(out, "\nconnection ") + (strncmp(out, "connection ", 11) == 0), 30);
	CHECK_EQ(count(out, ": conforms\n"), 10);
	CHECK_EQ(count(out, "1 violation, responder: VIOLATION MPA-6.1-R2a"), 20);
	CHECK_EQ(count(out, "the connection was reset (RST at frame"), 10);
	CHECK_EQ(count(out, "the capture ended (frame"), 1);
	CHECK(strstr(out, "30 MPA connections: 10 conform, 20 with violations (20 Requests without a Reply, "
			  "MPA-6.1-R2a)") != NULL);
	CHECK(strstr(out, "20 violations in 30 MPA connections") != NULL);
	CHECK(strstr(out, "the capture conforms") == NULL);
	free(out);

	/* The details: every frame, and the same verdicts. */
	o.details = true;
	CHECK_EQ(pf_decode_stdout(path, &o, &out), IW_DECODE_VIOLATIONS);
	CHECK_EQ(count(out, "MPA Request frame"), 30);
	CHECK_EQ(count(out, "MPA Reply frame"), 10);
	CHECK_EQ(count(out, "  VIOLATION MPA-6.1-R2a at offset 0: error: no Reply"), 20);
	free(out);

	/* JSON: one document, a connection object each, with its summary; the totals. */
	o.details = false;
	o.json = true;
	CHECK_EQ(pf_decode_stdout(path, &o, &out), IW_DECODE_VIOLATIONS);
	json_error_t je;
	json_t *j = json_loads(out, 0, &je);
	CHECK(j != NULL);
	if (j) {
		json_t *conns = json_object_get(j, "connections");
		CHECK_EQ(json_array_size(conns), 30);
		CHECK(json_is_false(json_object_get(j, "conforms")));
		CHECK_EQ(json_integer_value(json_object_get(j, "violation_count")), 20);
		json_t *s = json_object_get(j, "summary");
		CHECK_EQ(json_integer_value(json_object_get(s, "requests_without_reply")), 20);
		CHECK_EQ(json_integer_value(json_object_get(s, "conforming")), 10);
		json_t *c1 = json_array_get(conns, 1);
		json_t *cs = json_object_get(c1, "summary");
		CHECK(json_is_true(json_object_get(cs, "no_reply")));
		CHECK_STR(json_string_value(json_object_get(cs, "end")), "closed");
		json_t *v = json_array_get(json_object_get(json_array_get(json_object_get(c1, "directions"), 1), "violations"), 0);
		CHECK_STR(json_string_value(json_object_get(v, "requirement")), "MPA-6.1-R2a");
		json_decref(j);
	} else {
		fprintf(stderr, "    %s at line %d\n", je.text, je.line);
	}
	free(out);

	/* At most 4 connections held: every connection is still judged, in bounded memory. */
	o.json = false;
	o.limits.max_conns = 4;
	CHECK_EQ(pf_decode_stdout(path, &o, &out), IW_DECODE_VIOLATIONS);
	CHECK(strstr(out, "at most 4 open at once") != NULL || strstr(out, "at most 1 open at once") != NULL);
	CHECK(strstr(out, "20 Requests without a Reply") != NULL);
	free(out);
	unlink(path);
}

/* Connections open at once past --max-conns: the least recently active is evicted, judged as
 * far as it went, and said to be so; the capture is not claimed to conform whole. */
TEST(decode_capture_evicts_and_says_so)
{
	frames();
	char path[256];
	tmp_path(path, sizeof path, "open.pcap");
	iw_err e;
	iw_pcap_writer *w = iw_pcap_writer_new(IW_PCAP_LINK_RAW, &e);
	for (int i = 0; i < 10; i++) {
		iw_pcap_tcp_params pr;
		iw_pcap_tcp_params_default(&pr);
		pr.client_port = (uint16_t)(30000 + i);
		iw_pcap_tcp *t = iw_pcap_tcp_open(w, &pr, &e);
		CHECK(t && !iw_pcap_tcp_data(t, IW_PCAP_C2S, req, reql, &e));
		CHECK(!iw_pcap_tcp_data(t, IW_PCAP_S2C, rep, repl, &e));
	}
	CHECK_EQ(iw_pcap_writer_commit(w, path, &e), 0);
	iw_decode_opts o;
	iw_decode_opts_default(&o);
	o.limits.max_conns = 3;
	char *out;
	CHECK_EQ(pf_decode_stdout(path, &o, &out), IW_DECODE_CONFORMS);
	CHECK_EQ(count(out, "conforms; NOTE (not judged to its end): evicted at frame"), 7);
	CHECK(strstr(out, "10 TCP connections, at most 3 open at once") != NULL);
	CHECK(strstr(out, "7 not judged to their end") != NULL);
	CHECK(strstr(out, "the capture conforms as far as it was judged: 10 MPA connections, 7 not to their end") != NULL);
	free(out);
	o.limits.max_conns = 10;
	CHECK_EQ(pf_decode_stdout(path, &o, &out), IW_DECODE_CONFORMS);
	CHECK(strstr(out, "the capture conforms: 10 MPA connections") != NULL);
	CHECK(strstr(out, "NOTE") == NULL);
	free(out);
	unlink(path);
}

/* Finding 14: a capture with nothing in it is a valid capture, not bad input. Whatever form it
 * takes (a pcap header alone, of any link type; a pcapng file whose only block is its Section
 * Header, which libpcap refuses and tshark reads), decode says plainly that there is nothing to
 * judge and exits 3, the status --help gives for a capture without an MPA connection; so does a
 * capture whose TCP connections are not iWARP, saying that. */
TEST(decode_capture_with_nothing_in_it)
{
	static const uint8_t pcap_ppp[24] = {0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					     0xff, 0xff, 0, 0, 9, 0, 0, 0};
	static const uint8_t shb[28] = {0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 0x4d, 0x3c, 0x2b, 0x1a, 1, 0, 0, 0,
					0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 28, 0, 0, 0};
	char path[256];
	iw_decode_opts o;
	iw_decode_opts_default(&o);
	char *out;
	iw_err e;
	tmp_path(path, sizeof path, "empty.pcap");
	iw_pcap_writer *w = iw_pcap_writer_new(IW_PCAP_LINK_ETHERNET, &e);
	CHECK(w != NULL);
	CHECK_EQ(iw_pcap_writer_commit(w, path, &e), 0);
	CHECK_EQ(pf_decode_stdout(path, &o, &out), IW_DECODE_NO_MPA);
	CHECK(strstr(out, "0 frames (EN10MB), 0 TCP connections") != NULL);
	CHECK(strstr(out, "nothing to judge: the capture holds no packets\n") != NULL);
	CHECK(strstr(out, "conforms") == NULL);
	free(out);

	const struct { const char *name; const uint8_t *b; size_t n; const char *say; } forms[] = {
		{"ppp.pcap", pcap_ppp, sizeof pcap_ppp, "0 frames (PPP)"},
		{"shb.pcapng", shb, sizeof shb, "(a pcapng file without an interface)"},
	};
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		tmp_path(path, sizeof path, forms[i].name);
		FILE *f = fopen(path, "wb");
		CHECK(f && fwrite(forms[i].b, 1, forms[i].n, f) == forms[i].n);
		if (f)
			fclose(f);
		CHECK_EQ(pf_decode_stdout(path, &o, &out), IW_DECODE_NO_MPA);
		CHECK(strstr(out, "nothing to judge: the capture holds no packets") != NULL);
		CHECK(strstr(out, forms[i].say) != NULL);
		free(out);
	}
	/* Half a block is not a capture with nothing in it: unreadable. */
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(shb, 1, 20, f) == 20);
	if (f)
		fclose(f);
	CHECK_EQ(pf_decode_stdout(path, &o, &out), IW_DECODE_UNREADABLE);
	free(out);

	/* JSON: the document says why there is nothing to judge. */
	o.json = true;
	tmp_path(path, sizeof path, "shb.pcapng");
	f = fopen(path, "wb");
	CHECK(f && fwrite(shb, 1, sizeof shb, f) == sizeof shb);
	if (f)
		fclose(f);
	CHECK_EQ(pf_decode_stdout(path, &o, &out), IW_DECODE_NO_MPA);
	json_t *j = json_loads(out, 0, NULL);
	CHECK(j != NULL);
	CHECK(json_is_false(json_object_get(j, "conforms")));
	const char *why = json_string_value(json_object_get(j, "nothing_to_judge"));
	CHECK(why && strstr(why, "no packets") != NULL);
	json_decref(j);
	free(out);
	o.json = false;

	/* TCP, but not iWARP: said so. */
	frames();
	tmp_path(path, sizeof path, "http.pcap");
	iw_pcap_chunk http[] = {{IW_PCAP_C2S, (const uint8_t *)"GET / HTTP/1.0\r\n\r\n", 18}};
	CHECK_EQ(iw_pcap_write_conn(path, IW_PCAP_LINK_ETHERNET, NULL, http, 1, &e), 0);
	CHECK_EQ(pf_decode_stdout(path, &o, &out), IW_DECODE_NO_MPA);
	CHECK(strstr(out, "nothing to judge: no iWARP (MPA) connection: none of its 1 TCP connection starts with an MPA "
			  "Request or Reply") != NULL);
	free(out);
	unlink(path);
	tmp_path(path, sizeof path, "empty.pcap");
	unlink(path);
	tmp_path(path, sizeof path, "ppp.pcap");
	unlink(path);
	tmp_path(path, sizeof path, "shb.pcapng");
	unlink(path);
}
