/*
 * test_reports_findings.c - the findings view (reports/findings.h): reasons reduced to the
 * DUT's behaviour, FAILs and WARNs grouped by it, and the groups in results.json, the console
 * summary and report.html.
 */
#include "report_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "findings.h"
#include "report.h"

static void sig_of(const char *reason, char *buf, size_t cap)
{
	iw_finding_signature(reason, strlen(reason), buf, cap);
}

TEST(findings_signature_takes_out_the_particulars)
{
	char s[256];
	/* The step context and the requirement suffix go; numbers, octets and quotes become '#'. */
	sig_of("startup (line 12) did not reach full operation with the reflector: the DUT's FPDU at 40 has non-zero "
	       "pad octets [requirement MPA-4-02 MUST, judged on every frame]", s, sizeof s);
	CHECK_STR(s, "the DUT's FPDU at # has non-zero pad octets");
	sig_of("the pad is 63 20 73 after 'plain' at 0x1c", s, sizeof s);
	CHECK_STR(s, "the pad is # after # at #");
	/* Two-letter words are not octets, nor is a single hex-looking token. */
	sig_of("it can be ad hoc: ab", s, sizeof s);
	CHECK_STR(s, "it can be ad hoc: ab");
	sig_of("expected Terminate DDP/0x2/0x01 (invalid QN), seen DDP/0x2/0x21 (unknown DDP error)", s, sizeof s);
	CHECK_STR(s, "expected Terminate DDP/#/# (...), seen DDP/#/# (...)");
	/* An expect one-of whose outcomes all failed the same way is that one way. */
	sig_of("none of the 2 allowed outcomes happened: (1) terminate: expected an FPDU, the DUT closed the "
	       "connection (FIN); (2) terminate: expected an FPDU, the DUT closed the connection (FIN) "
	       "[requirement RFC5040-4.2 MUST]", s, sizeof s);
	CHECK_STR(s, "terminate: expected an FPDU, the DUT closed the connection (...)");
	sig_of("none of the 2 allowed outcomes happened: (1) close: saw data; (2) terminate: saw a close", s, sizeof s);
	CHECK_STR(s, "none of the # allowed outcomes happened: (...) close: saw data; (...) terminate: saw a close");
	/* Spaces are folded and a small buffer still ends in a NUL. */
	sig_of("  a \n\t b  ", s, sizeof s);
	CHECK_STR(s, "a b");
	char tiny[5];
	sig_of("abcdefgh", tiny, sizeof tiny);
	CHECK_STR(tiny, "abcd");
}

/* Seven FAIL or WARN cases: three FAILs share one behaviour under three requirements, two another,
 * one a third; and a WARN whose behaviour is the first one's. */
static void make_findings_run(iw_run *run)
{
	memset(run, 0, sizeof *run);
	snprintf(run->profile, sizeof run->profile, "rfc5044");
	static const struct {
		const char *id, *req, *reason;
		enum iw_verdict v;
	} c[] = {
		{ "rdmap.read.bounds", "RFC5040-4.8", "terminate: expected an FPDU, the DUT closed the connection (FIN)", IW_FAIL },
		{ "ddp.tagged.to-wrap", "DDP-9.1-T5", "terminate: expected an FPDU, the DUT closed the connection (RST)", IW_FAIL },
		{ "mpa.pass", "", "", IW_PASS },
		{ "rdmap.opcode.unknown", "RFC5040-4.2", "none of the 2 allowed outcomes happened: (1) terminate: expected "
		  "an FPDU, the DUT closed the connection (FIN); (2) terminate: expected an FPDU, the DUT closed the "
		  "connection (FIN)", IW_FAIL },
		{ "rdmap.send.round-trip", "MPA-4-02", "startup (line 8) did not reach full operation with the reflector: "
		  "the DUT's FPDU at 40 has non-zero pad octets [requirement MPA-4-02 MUST, judged on every frame]", IW_FAIL },
		{ "rdmap.write.round-trip", "MPA-4-02", "startup (line 12) did not reach full operation with the reflector: "
		  "the DUT's FPDU at 112 has non-zero pad octets [requirement MPA-4-02 MUST, judged on every frame]", IW_FAIL },
		{ "ddp.errors.terminate-before-close", "DDP-8.2-01", "terminate: expected an FPDU, the DUT closed the "
		  "connection (FIN)", IW_WARN },
		{ "mpa.startup.resp.rev-01", "MPA-6.1.1-05", "the Reply's Res bits are 0x10", IW_FAIL },
		{ "mpa.skip", "", "needs a reflector", IW_SKIP },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		iw_case_result *r = rp_add_case(run, c[i].id, c[i].v, c[i].reason);
		if (!r)
			return;
		snprintf(r->failed_req, sizeof r->failed_req, "%s", c[i].req);
	}
}

TEST(findings_group_by_behaviour)
{
	iw_run run;
	make_findings_run(&run);
	CHECK_EQ(run.ncases, 9);
	iw_findings fs;
	iw_err e = { "" };
	CHECK_EQ(iw_findings_group(&run, &fs, &e), 0);
	CHECK_EQ(fs.n, 4);
	if (fs.n == 4) {
		/* FAIL before WARN, the largest first, then by signature. */
		CHECK_EQ(fs.g[0].verdict, IW_FAIL);
		CHECK_EQ(fs.g[0].ncases, 3);
		CHECK_STR(fs.g[0].signature, "terminate: expected an FPDU, the DUT closed the connection (...)");
		CHECK_EQ(fs.g[0].nreqs, 3);
		CHECK_STR(fs.g[0].reqs[0], "RFC5040-4.8");
		CHECK_STR(fs.g[0].reqs[2], "RFC5040-4.2");
		CHECK_EQ(fs.g[0].cases[0], 0);
		CHECK_EQ(fs.g[0].cases[2], 3);
		CHECK_EQ(fs.g[0].pcap_case, 0);         /* no case of the fixture has a capture */
		CHECK_EQ(fs.g[1].ncases, 2);
		CHECK_STR(fs.g[1].signature, "the DUT's FPDU at # has non-zero pad octets");
		CHECK_EQ(fs.g[1].nreqs, 1);
		CHECK_EQ(fs.g[2].ncases, 1);
		CHECK_STR(fs.g[2].reqs[0], "MPA-6.1.1-05");
		/* The same behaviour as a WARN is a group of its own: the verdict is part of the finding. */
		CHECK_EQ(fs.g[3].verdict, IW_WARN);
		CHECK_STR(fs.g[3].reqs[0], "DDP-8.2-01");
	}
	iw_findings_free(&fs);
	CHECK_EQ(fs.n, 0);
	iw_run_free(&run);
}

TEST(findings_in_json_console_and_html)
{
	iw_run run;
	make_findings_run(&run);
	run.complete = true;
	char *dir = rp_scratch_dir();
	CHECK(dir != NULL);
	if (!dir) {
		iw_run_free(&run);
		return;
	}
	char d[512], json[600], html[600];
	snprintf(d, sizeof d, "%s", dir);
	snprintf(json, sizeof json, "%s/results.json", d);
	snprintf(html, sizeof html, "%s/report.html", d);
	iw_err e = { "" };
	CHECK_EQ(iw_report_json(&run, json, &e), 0);
	iw_html_opts o = { 0 };
	CHECK_EQ(iw_report_html(&run, &o, html, &e), 0);
	char *j = rp_read_file(json, NULL), *h = rp_read_file(html, NULL);
	CHECK(j && strstr(j, "\"findings\": [{\"verdict\": \"FAIL\", \"requirements\": [{\"id\": \"RFC5040-4.8\""));
	CHECK(j && strstr(j, "\"signature\": \"the DUT's FPDU at # has non-zero pad octets\", \"count\": 2, "
			     "\"cases\": [\"rdmap.send.round-trip\", \"rdmap.write.round-trip\"], \"pcap\": null"));
	CHECK(h && strstr(h, "<section id=\"findings\"><h2>Findings</h2>"));
	CHECK(h && strstr(h, "7 cases FAIL or WARN, in 4 groups"));
	CHECK(h && strstr(h, "the DUT&apos;s FPDU at # has non-zero pad octets") != NULL);
	free(j);
	free(h);

	char con[600];
	snprintf(con, sizeof con, "%s/console.txt", d);
	FILE *f = fopen(con, "w");
	CHECK(f != NULL);
	if (f) {
		iw_console_summary(f, &run, d);
		fclose(f);
		char *c = rp_read_file(con, NULL);
		CHECK(c && strstr(c, "findings: 7 cases FAIL or WARN in 4 groups"));
		CHECK(c && strstr(c, "     3 FAIL terminate: expected an FPDU, the DUT closed the connection (...)\n"
				     "        [RFC5040-4.8, DDP-9.1-T5, RFC5040-4.2] rdmap.read.bounds, ddp.tagged.to-wrap, "
				     "rdmap.opcode.unknown\n"));
		free(c);
	}
	rp_rm_rf(d);
	iw_run_free(&run);
}
