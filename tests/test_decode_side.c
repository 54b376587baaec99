/*
 * test_decode_side.c - `iwspec decode --side` and `--dut` (decode_dut.h): one side of each
 * connection judged, the other's violations listed as not judged, counted apart and kept out of
 * the verdict and the exit status. Issue 38: a lab's capture of a suite run against a conforming
 * DUT "had violations" on 70 of 152 case captures, every one the harness's deliberate fault.
 */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "decode_conn.h"
#include "decode_dut.h"
#include "decode_pcap.h"
#include "exec_fixture.h"
#include "mpa_frame.h"
#include "pcap_fixture.h"
#include "pcap_write.h"

static uint8_t req[64], rep[64], fpdu[96];
static size_t reql, repl, fpdul;

/* A Request, a Reply, and a Send whose CRC is wrong (MPA-5.2-11 for its sender). */
static void frames(void)
{
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, iw_profile_get(IW_PROFILE_RFC5044), IW_MPA_REQUEST);
	f.c = true;
	iw_mpa_frame_encode(&f, req, sizeof req, &reql, NULL);
	repl = good_reply(rep, sizeof rep);
	fpdul = send_fpdu("fault", fpdu, sizeof fpdu);
	fpdu[fpdul - 1] ^= 0x01;
}

/* A capture of n connections 10.0.0.1:P -> 10.0.0.2:4791: each a Request and a Reply, then the
 * initiator's bad Send (ini_fault) or no Reply at all (the responder's fault), then FINs. */
static void write_capture(const char *path, int n, bool ini_fault)
{
	iw_err e;
	iw_pcap_writer *w = iw_pcap_writer_new(IW_PCAP_LINK_RAW, &e);
	CHECK(w != NULL);
	if (!w)
		return;
	for (int i = 0; i < n; i++) {
		iw_pcap_tcp_params pr;
		iw_pcap_tcp_params_default(&pr);
		pr.client_port = (uint16_t)(41000 + i);
		iw_pcap_tcp *t = iw_pcap_tcp_open(w, &pr, &e);
		CHECK(t && !iw_pcap_tcp_data(t, IW_PCAP_C2S, req, reql, &e));
		if (ini_fault) {
			CHECK(!iw_pcap_tcp_data(t, IW_PCAP_S2C, rep, repl, &e));
			CHECK(!iw_pcap_tcp_data(t, IW_PCAP_C2S, fpdu, fpdul, &e));
		}
		CHECK(!iw_pcap_tcp_fin(t, IW_PCAP_C2S, &e));
		CHECK(!iw_pcap_tcp_fin(t, IW_PCAP_S2C, &e));
	}
	CHECK_EQ(iw_pcap_writer_commit(w, path, &e), 0);
}

static int decode(const char *path, enum iw_decode_side side, const char *dut, char **out)
{
	iw_decode_opts o;
	iw_decode_opts_default(&o);
	o.side = side;
	char msg[256];
	if (dut)
		CHECK_EQ(iw_decode_dut_parse(dut, &o.dut, msg, sizeof msg), 0);
	return pf_decode_stdout(path, &o, out);
}

TEST(decode_side_judges_the_responder_alone)
{
	frames();
	char path[256];
	snprintf(path, sizeof path, "%s", pf_tmp_path("side-ini-fault.pcap")); /* its buffers rotate */
	write_capture(path, 5, true);
	char *out;
	/* Both sides judged: the initiator's faults are the capture's violations. */
	CHECK_EQ(decode(path, IW_DECODE_SIDE_BOTH, NULL, &out), IW_DECODE_VIOLATIONS);
	CHECK(strstr(out, "violations by side: initiator 5 in 5 connections, responder 0 in 0 connections") != NULL);
	free(out);
	/* The responder judged: it conforms, and the initiator's five are said once, not judged. */
	CHECK_EQ(decode(path, IW_DECODE_SIDE_RESPONDER, NULL, &out), IW_DECODE_CONFORMS);
	CHECK(strstr(out, "the initiator's 5 violations are listed as not judged") != NULL);
	CHECK(strstr(out, "the capture conforms on the side judged: 5 MPA connections") != NULL);
	CHECK(strstr(out, "VIOLATION") == NULL);
	free(out);
	CHECK_EQ(decode(path, IW_DECODE_SIDE_INITIATOR, NULL, &out), IW_DECODE_VIOLATIONS);
	free(out);
	/* The DUT by its endpoint: the server here, the responder. */
	CHECK_EQ(decode(path, IW_DECODE_SIDE_BOTH, "10.0.0.2:4791", &out), IW_DECODE_CONFORMS);
	free(out);
	CHECK_EQ(decode(path, IW_DECODE_SIDE_BOTH, "10.0.0.1", &out), IW_DECODE_VIOLATIONS);
	free(out);
	/* The DUT given, and the role it never has: nothing judged, said so. */
	CHECK_EQ(decode(path, IW_DECODE_SIDE_INITIATOR, "10.0.0.2", &out), IW_DECODE_NO_MPA);
	CHECK(strstr(out, "in none of its 5 MPA connections is the DUT the initiator (--side)") != NULL);
	free(out);
	CHECK_EQ(decode(path, IW_DECODE_SIDE_BOTH, "192.0.2.1", &out), IW_DECODE_NO_MPA);
	free(out);
	unlink(path);
}

TEST(decode_side_judges_the_initiator_alone)
{
	frames();
	char path[256];
	snprintf(path, sizeof path, "%s", pf_tmp_path("side-rsp-fault.pcap"));
	write_capture(path, 3, false);
	char *out;
	CHECK_EQ(decode(path, IW_DECODE_SIDE_BOTH, NULL, &out), IW_DECODE_VIOLATIONS);
	free(out);
	CHECK_EQ(decode(path, IW_DECODE_SIDE_INITIATOR, NULL, &out), IW_DECODE_CONFORMS);
	CHECK(strstr(out, "the responder's 3 violations are listed as not judged") != NULL);
	free(out);
	CHECK_EQ(decode(path, IW_DECODE_SIDE_RESPONDER, NULL, &out), IW_DECODE_VIOLATIONS);
	CHECK(strstr(out, "responder: 1 violation: VIOLATION MPA-6.1-R2a") != NULL);
	free(out);
	unlink(path);
}

/* One connection: per side counts, and the masks that leave a side unjudged. */
TEST(decode_conn_counts_each_side)
{
	frames();
	static uint8_t ini[160];
	memcpy(ini, req, reql);
	memcpy(ini + reql, fpdu, fpdul);
	static iw_pcap_piece pieces[2][2];
	iw_pcap_conn c;
	memset(&c, 0, sizeof c);
	c.number = 1;
	c.family = 4;
	c.handshake = true;
	const uint8_t *d[2] = {ini, rep};
	size_t n[2] = {reql + fpdul, repl};
	for (int k = 0; k < 2; k++) {
		c.dir[k].data = (uint8_t *)d[k];
		c.dir[k].len = n[k];
		c.dir[k].syn = c.dir[k].fin = true;
		c.dir[k].first_frame = 1 + (uint64_t)k;
		c.dir[k].last_frame = 9;
		pieces[k][0] = (iw_pcap_piece){0, 4 + (uint64_t)k};
		pieces[k][1] = (iw_pcap_piece){reql, 6};
		c.dir[k].pieces = pieces[k];
		c.dir[k].npieces = k ? 1 : 2;
	}
	static iw_violation store[16];
	iw_viol_list l = {.v = store, .cap = 16};
	iw_pcap_end end = {.why = IW_PCAP_END_CLOSED, .frame = 9};
	iw_conn_verdict v;
	iw_decode_conn_opts o = {.out = IW_DECODE_OUT_QUIET, .viol = &l};
	iw_decode_conn(&c, &end, &o, &v);
	CHECK_EQ(v.viols_by[IW_DECODE_INI], 1);
	CHECK_EQ(v.viols_by[IW_DECODE_RSP], 0);
	CHECK_EQ(v.judged_violations, 1);
	CHECK(v.judged[IW_DECODE_INI] && v.judged[IW_DECODE_RSP]);
	CHECK_EQ(v.ini_dir, 0);
	CHECK(strstr(v.first_by[IW_DECODE_INI].text, "VIOLATION MPA-5.2-11") != NULL);
	o.unjudged_roles = 1u << IW_DECODE_INI;
	iw_decode_conn(&c, &end, &o, &v);
	CHECK_EQ(v.violations, 1);          /* still found and listed */
	CHECK_EQ(v.judged_violations, 0);   /* not judged */
	CHECK(!v.judged[IW_DECODE_INI] && v.judged[IW_DECODE_RSP]);
	o.unjudged_roles = 0;
	o.unjudged_dirs = 1u << 1;          /* the server's direction: the responder's */
	iw_decode_conn(&c, &end, &o, &v);
	CHECK_EQ(v.judged_violations, 1);
	CHECK(v.judged[IW_DECODE_INI] && !v.judged[IW_DECODE_RSP]);
}

TEST(decode_dut_parses_endpoints)
{
	iw_decode_dut d;
	char msg[256];
	CHECK_EQ(iw_decode_dut_parse("10.0.0.2", &d, msg, sizeof msg), 0);
	CHECK(d.set && d.family == 4 && d.port == 0 && d.addr[0] == 10 && d.addr[3] == 2);
	CHECK_EQ(iw_decode_dut_parse("10.0.0.2:4791", &d, msg, sizeof msg), 0);
	CHECK_EQ(d.port, 4791);
	CHECK_EQ(iw_decode_dut_parse("fe80::1", &d, msg, sizeof msg), 0);
	CHECK(d.family == 6 && d.port == 0 && d.addr[15] == 1);
	CHECK_EQ(iw_decode_dut_parse("[fe80::1]:4791", &d, msg, sizeof msg), 0);
	CHECK(d.family == 6 && d.port == 4791);
	CHECK_STR(d.text, "[fe80::1]:4791");
	static const char *const bad[] = {"", "dut.example", "10.0.0.2:", "10.0.0.2:0", "10.0.0.2:65536",
					  "[fe80::1", "[fe80::1]4791", "10.0.0.2:-1", "10.0.0.256"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK_EQ(iw_decode_dut_parse(bad[i], &d, msg, sizeof msg), -1);
		CHECK(strstr(msg, "give the DUT's numeric address") != NULL);
	}
	iw_pcap_conn c;
	memset(&c, 0, sizeof c);
	c.family = 4;
	memcpy(c.addr[0], (const uint8_t[]){10, 0, 0, 1}, 4);
	memcpy(c.addr[1], (const uint8_t[]){10, 0, 0, 2}, 4);
	c.port[0] = 40001;
	c.port[1] = 4791;
	CHECK_EQ(iw_decode_dut_parse("10.0.0.2:4791", &d, msg, sizeof msg), 0);
	CHECK(!iw_decode_dut_is(&d, &c, 0) && iw_decode_dut_is(&d, &c, 1));
	CHECK_EQ(iw_decode_dut_parse("10.0.0.2:4792", &d, msg, sizeof msg), 0);
	CHECK(!iw_decode_dut_is(&d, &c, 1));
	CHECK_EQ(iw_decode_dut_parse("10.0.0.1", &d, msg, sizeof msg), 0);
	CHECK(iw_decode_dut_is(&d, &c, 0) && !iw_decode_dut_is(&d, &c, 1));
}
