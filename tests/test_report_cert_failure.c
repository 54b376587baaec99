/*
 * test_report_cert_failure.c - what the certification report (issue 8) shows of a failure: the
 * wire entry and field it points at, the expectations in words, the TCP capture, and the
 * per-case pcaps, read back through libpcap.
 */
#include "report_cert_fixture.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "report.h"

/* ---- what a failure points at ------------------------------------------------------ */

TEST(reportcert_blame_entry_and_field)
{
	iw_case_result *r = calloc(1, sizeof *r);
	if (!r)
		return;
	iw_result_wire(r, IW_TO_DUT, 1, 1, "request", RC_REQUEST, 20, "Request key=Req M=1 C=1 R=0 Res=0x00 Rev=1");
	iw_result_wire(r, IW_FROM_DUT, 1, 2, "reply", RC_REPLY, 20, "Reply key=Rep M=0 C=1 R=0 Res=0x00 Rev=2 PD_Length=0");
	iw_result_wire(r, IW_NOTE, 1, 3, "note", NULL, 0, "full operation");
	/* The harness's pattern wording names the key; the "(seen: ...)" echo does not count. */
	snprintf(r->reason, sizeof r->reason, "Reply: m=1 expected, 0 seen (seen: key=Rep M=0 C=1 Rev=2)");
	iw_result_blame(r, "MPA-6.1.1-M1");
	CHECK_EQ(r->fail_wire, 2);
	CHECK_STR(r->fail_field, "M");
	snprintf(r->reason, sizeof r->reason, "the DUT's Reply is not one a conforming responder sends: Rev 2, profile "
					     "rfc5044 accepts 1..1 (seen: key=Rep M=0 Rev=2)");
	iw_result_blame(r, NULL);
	CHECK_STR(r->fail_field, "Rev");
	/* Nothing in the reason: the requirement says which field. */
	snprintf(r->reason, sizeof r->reason, "the DUT's FPDU at 0 has non-zero pad octets");
	iw_result_blame(r, "MPA-4-02");
	CHECK_STR(r->fail_field, "PAD");
	iw_result_blame(r, "MPA-9.9-99");
	CHECK_STR(r->fail_field, "");
	CHECK_EQ(r->fail_wire, 2);
	CHECK_STR(iw_blame_field_for_req("DDP-6.3-11"), "MSN");
	CHECK(iw_blame_field_for_req(NULL) == NULL);
	iw_result_clear_wire(r);
	/* Only notes, or nothing: no entry to point at. */
	iw_result_wire(r, IW_NOTE, 1, 3, "note", NULL, 0, "a note");
	iw_result_blame(r, NULL);
	CHECK_EQ(r->fail_wire, 0);
	iw_result_clear_wire(r);
	free(r);
}

/* Issue 38: the outcome a baseline pins is what the DUT did, not the FIN behind it, nor the
 * harness's own stimulus; nothing after the stimulus is "silence"; a PASS has none. */
TEST(reportcert_outcome_is_what_the_dut_did)
{
	iw_case_result *r = calloc(1, sizeof *r);
	if (!r)
		return;
	iw_result_wire(r, IW_TO_DUT, 1, 1, "fpdu", NULL, 0, "FPDU send: CRC defect");
	iw_result_wire(r, IW_FROM_DUT, 1, 2, "fpdu", NULL, 0, "Terminate");
	snprintf(r->wire[1].act, sizeof r->wire[1].act, "Terminate LLP/0x0/0x22 (unknown MPA error)");
	iw_result_wire(r, IW_FROM_DUT, 1, 3, "fin", NULL, 0, "DUT closed its half (FIN)");
	CHECK_STR(r->wire[2].act, "FIN");
	r->verdict = IW_FAIL;
	r->fail_wire = 3;
	iw_result_outcome(r);
	CHECK_STR(r->outcome, "Terminate LLP/0x0/0x22 (unknown MPA error)");
	r->fail_wire = 2;
	iw_result_outcome(r);
	CHECK_STR(r->outcome, "Terminate LLP/0x0/0x22 (unknown MPA error)");
	/* Another connection's events are not this one's answer. */
	iw_result_wire(r, IW_TO_DUT, 2, 4, "connect", NULL, 0, "connect");
	iw_result_wire(r, IW_FROM_DUT, 2, 5, "rst", NULL, 0, "RST");
	r->fail_wire = 5;
	iw_result_outcome(r);
	CHECK_STR(r->outcome, "RST");
	/* The harness's stimulus, and nothing after it. */
	iw_result_wire(r, IW_TO_DUT, 1, 6, "fpdu", NULL, 0, "FPDU send");
	r->fail_wire = 6;
	iw_result_outcome(r);
	CHECK_STR(r->outcome, "silence");
	r->verdict = IW_PASS;
	iw_result_outcome(r);
	CHECK_STR(r->outcome, "");
	iw_result_clear_wire(r);
	free(r);
}

/* ---- the expectations in words ----------------------------------------------------- */

TEST(reportcert_expected_text)
{
	static const char text[] = "id: t.expected\n"
				   "title: t\n"
				   "requirement: MPA-6.1-R5 MUST\n"
				   "role: responder\n"
				   "\n"
				   "connect\n"
				   "send request key_octet=3\n"
				   "expect reply r=0 rev=*\n"
				   "expect one-of\n"
				   "  - close\n"
				   "  - terminate layer=llp etype=0 ecode=2 ; close\n"
				   "end\n"
				   "expect silence for=1500ms\n";
	iw_case *c = NULL;
	iw_err e;
	int rc = iw_case_parse(text, sizeof text - 1, "t.iwt", &c, &e);
	CHECK_EQ(rc, IW_OK);
	if (rc != IW_OK) {
		fprintf(stderr, "  %s\n", e.msg);
		return;
	}
	iw_case_result *r = calloc(1, sizeof *r);
	if (r) {
		iw_result_set_expected(r, c);
		CHECK(strstr(r->expected, "8: expect reply r=0 rev=*\n") != NULL);
		CHECK(strstr(r->expected, "9: expect one-of\n") != NULL);
		CHECK(strstr(r->expected, "      - close\n") != NULL);
		CHECK(strstr(r->expected, "      - terminate layer=llp etype=0 ecode=2 ; close\n    end\n") != NULL);
		CHECK(strstr(r->expected, "13: expect silence for=1500ms") != NULL);
		/* Actions are not expectations. */
		CHECK(strstr(r->expected, "send request") == NULL);
		free(r);
	}
	iw_case_free(c);
}

/* ---- the TCP capture --------------------------------------------------------------- */

TEST(reportcert_tcp_capture)
{
	iw_case_result *r = calloc(1, sizeof *r);
	if (!r)
		return;
	/* The wire log's connect, fin and rst events are connection events of the capture too. */
	iw_result_wire(r, IW_NOTE, 1, 1, "connect", NULL, 0, "connection 1 opened");
	iw_result_tcp(r, IW_TCP_DATA, IW_TO_DUT, 1, 2, RC_REQUEST, 20);
	iw_result_tcp(r, IW_TCP_DATA, IW_TO_DUT, 1, 2, NULL, 0); /* nothing: not kept */
	iw_result_wire(r, IW_FROM_DUT, 1, 3, "fin", NULL, 0, "DUT closed");
	iw_result_wire(r, IW_NOTE, 1, 4, "note", NULL, 0, "a note is no TCP event");
	CHECK_EQ(r->ntcp, 3);
	CHECK_EQ(r->tcp_octets, 20);
	if (r->ntcp == 3) {
		CHECK_EQ(r->tcp[0].kind, IW_TCP_OPEN);
		CHECK_EQ(r->tcp[1].kind, IW_TCP_DATA);
		CHECK_MEM(r->tcp[1].bytes, RC_REQUEST, 20);
		CHECK_EQ(r->tcp[2].kind, IW_TCP_FIN);
		CHECK_EQ(r->tcp[2].dir, IW_FROM_DUT);
	}
	/* Past the octet limit the capture stops and says so; the verdict does not depend on it. */
	uint8_t *big = calloc(1, IW_RESULT_MAX_TCP_OCTETS);
	if (big) {
		iw_result_tcp(r, IW_TCP_DATA, IW_FROM_DUT, 1, 5, big, IW_RESULT_MAX_TCP_OCTETS);
		CHECK(r->tcp_cut);
		CHECK_EQ(r->tcp_octets, 20);
		free(big);
	}
	iw_result_clear_wire(r);
	CHECK_EQ(r->ntcp, 0);
	CHECK(r->tcp == NULL && !r->tcp_cut);
	free(r);
}

/* ---- per-case pcap ----------------------------------------------------------------- */

typedef struct pcap_read {
	int packets, syns;
	uint8_t c2s[256], s2c[256];     /* payload octets by direction (client = SYN sender) */
	size_t nc2s, ns2c;
	uint8_t client_ip_last;         /* last octet of the SYN sender's address */
	uint16_t ports[8];
	int nports;
} pcap_read;

static void read_pcap(const char *path, pcap_read *pr)
{
	memset(pr, 0, sizeof *pr);
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(path, err);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_EQ(pcap_datalink(p), DLT_EN10MB);
	struct pcap_pkthdr *h;
	const u_char *d;
	uint32_t client_ip = 0;
	while (pcap_next_ex(p, &h, &d) == 1) {
		pr->packets++;
		if (h->caplen < 54)
			continue;
		const u_char *ip = d + 14, *tcp = ip + (ip[0] & 15) * 4;
		size_t iplen = (size_t)ip[2] << 8 | ip[3];
		size_t thl = (size_t)(tcp[12] >> 4) * 4;
		size_t plen = iplen - (size_t)(ip[0] & 15) * 4 - thl;
		uint32_t src = (uint32_t)ip[12] << 24 | (uint32_t)ip[13] << 16 | (uint32_t)ip[14] << 8 | ip[15];
		if ((tcp[13] & 0x12) == 0x02) {
			pr->syns++;
			client_ip = src;
			pr->client_ip_last = ip[15];
			if (pr->nports < 8)
				pr->ports[pr->nports++] = (uint16_t)(tcp[0] << 8 | tcp[1]);
		}
		const u_char *pl = tcp + thl;
		for (size_t i = 0; i < plen; i++) {
			if (src == client_ip && pr->nc2s < sizeof pr->c2s)
				pr->c2s[pr->nc2s++] = pl[i];
			else if (src != client_ip && pr->ns2c < sizeof pr->s2c)
				pr->s2c[pr->ns2c++] = pl[i];
		}
	}
	pcap_close(p);
}

TEST(reportcert_pcap_per_case)
{
	char *dir = rp_scratch_dir();
	if (!dir)
		return;
	iw_case_result *r = calloc(1, sizeof *r);
	if (!r)
		return;
	snprintf(r->id, sizeof r->id, "mpa.startup.resp.x");
	snprintf(r->dut_role, sizeof r->dut_role, "responder");
	r->start_unix_ms = 1714566896789LL;
	iw_result_tcp(r, IW_TCP_OPEN, IW_TO_DUT, 1, 10, NULL, 0);
	iw_result_tcp(r, IW_TCP_DATA, IW_TO_DUT, 1, 20, RC_REQUEST, 10); /* the harness's writes as they were */
	iw_result_tcp(r, IW_TCP_DATA, IW_TO_DUT, 1, 21, RC_REQUEST + 10, 10);
	iw_result_tcp(r, IW_TCP_DATA, IW_FROM_DUT, 1, 30, RC_REPLY, 20);
	iw_result_tcp(r, IW_TCP_FIN, IW_FROM_DUT, 1, 40, NULL, 0);
	/* The liveness probe reuses a connection number: a second TCP connection. */
	iw_result_tcp(r, IW_TCP_OPEN, IW_TO_DUT, 1, 50, NULL, 0);
	iw_result_tcp(r, IW_TCP_DATA, IW_TO_DUT, 1, 60, (const uint8_t *)"abcd", 4);
	char path[512];
	snprintf(path, sizeof path, "%s/x.pcap", dir);
	iw_err e;
	CHECK_EQ(iw_report_pcap_case(r, path, &e), 0);
	pcap_read pr;
	read_pcap(path, &pr);
	CHECK_EQ(pr.syns, 2);
	CHECK_EQ(pr.client_ip_last, 1);     /* the harness (10.0.0.1) connected */
	CHECK_EQ(pr.nc2s, 24);
	CHECK_MEM(pr.c2s, RC_REQUEST, 20);
	CHECK_MEM(pr.c2s + 20, "abcd", 4);
	CHECK_EQ(pr.ns2c, 20);
	CHECK_MEM(pr.s2c, RC_REPLY, 20);
	CHECK(pr.nports == 2 && pr.ports[0] != pr.ports[1]);
	/* Two data segments for the two writes, each connection's handshake, FINs. */
	CHECK(pr.packets >= 12);

	/* A DUT initiator opened the connections: the DUT (10.0.0.2) sends the SYN. */
	snprintf(r->dut_role, sizeof r->dut_role, "initiator");
	CHECK_EQ(iw_report_pcap_case(r, path, &e), 0);
	read_pcap(path, &pr);
	CHECK_EQ(pr.client_ip_last, 2);
	CHECK_EQ(pr.ns2c, 24); /* the harness's octets now flow server to client */
	iw_result_clear_wire(r);
	free(r);

	/* The run's writer: one file per case that opened a connection, named by the case. */
	iw_run *run = calloc(1, sizeof *run);
	if (run) {
		rc_make_run(run);
		char pdir[200];
		snprintf(pdir, sizeof pdir, "%s/pcap", dir);
		CHECK_EQ(iw_report_pcaps(run, pdir, &e), 1);
		snprintf(path, sizeof path, "%s/mpa.startup.resp.rev.pcap", pdir);
		read_pcap(path, &pr);
		CHECK_EQ(pr.syns, 1);
		CHECK_EQ(pr.nc2s, 20);
		int ntmp = -1;
		CHECK(rp_count_entries(pdir, &ntmp) > 0 && ntmp == 0);
		/* Several profiles: the profile joins the name. */
		snprintf(run->profile, sizeof run->profile, "all");
		char slug[160];
		CHECK_STR(iw_report_case_slug(run, &run->cases[1], slug, sizeof slug), "mpa.startup.resp.rev@rfc5044");
		snprintf(run->cases[0].id, sizeof run->cases[0].id, "../e<vil>/x");
		CHECK_STR(iw_report_case_slug(run, &run->cases[0], slug, sizeof slug), "_._e_vil__x@rfc5044");
		iw_run_free(run);
		free(run);
	}
	rp_rm_rf(dir);
}
