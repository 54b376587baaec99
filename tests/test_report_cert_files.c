/*
 * test_report_cert_files.c - the certification report's files (issue 8): report.html (its
 * sections, the blamed entry, self-contained, hostile text escaped), and results.json and
 * junit.xml carrying the provenance and the incompleteness. HTML is read by looking for what a
 * browser would fetch or run, JSON through jansson.
 */
#include "report_cert_fixture.h"

#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "report.h"

/* ---- report.html ------------------------------------------------------------------- */

TEST(reportcert_html_sections_and_blame)
{
	char *dir = rp_scratch_dir();
	iw_run *run = calloc(1, sizeof *run);
	if (!dir || !run)
		return;
	rc_make_run(run);
	char path[256];
	snprintf(path, sizeof path, "%s/report.html", dir);
	iw_html_opts o = {.pcap_links = true};
	iw_err e;
	CHECK_EQ(iw_report_html(run, &o, path, &e), 0);
	char *h = rp_read_file(path, NULL);
	CHECK(h != NULL);
	CHECK(rc_contains(h, "<!DOCTYPE html>"));
	CHECK(rc_contains(h, "default-src 'none'"));
	for (const char *const *id = (const char *const[]){"id=\"summary\"", "id=\"provenance\"", "id=\"coverage\"",
							    "id=\"cases\"", "id=\"case-mpa.startup.resp.rev\"", NULL};
	     *id; id++)
		CHECK(rc_contains(h, *id));
	CHECK(!rc_contains(h, "id=\"incomplete\""));
	CHECK(!rc_contains(h, "id=\"baseline\""));
	/* Self-contained: nothing a browser would fetch. */
	CHECK(!rc_contains(h, "http://") && !rc_contains(h, "https://") && !rc_contains(h, "src=") && !rc_contains(h, "<script") &&
	      !rc_contains(h, "url("));
	/* Provenance. */
	CHECK(rc_contains(h, "iwspec 0.1.0, commit abc1234"));
	CHECK(rc_contains(h, "lab-7") && rc_contains(h, "dut = ref") && rc_contains(h, "markers = yes"));
	CHECK(rc_contains(h, "disable = mpa.x.* : firmware 2 lacks it"));
	CHECK(rc_contains(h, "map = 0/0/0x02 -&gt; 3/0/0x02 : LLP type 3"));
	CHECK(rc_contains(h, "applied to: <a href=\"#case-mpa.x.disabled\">"));
	CHECK(rc_contains(h, "requirements.md sha256"));
	/* The coverage table cites the case, with the catalog's words. */
	CHECK(rc_contains(h, "<tr id=\"req-MPA-6.1.1-06\">"));
	CHECK(rc_contains(h, "<tr id=\"req-MPA-6.1-R5\">"));
	CHECK(rc_contains(h, "not yet written") || rc_contains(h, "needs control of TCP"));
	/* The failure: its requirement's text, the expectation, the blamed entry and field, the pcap. */
	CHECK(rc_contains(h, "<tr class=\"req-failed\"><td class=\"mono\">MPA-6.1.1-06</td>"));
	CHECK(rc_contains(h, "14: expect reply r=0"));
	CHECK(rc_contains(h, "<tr class=\"blame\" id=\"case-mpa.startup.resp.rev-blame\">"));
	CHECK(rc_contains(h, "<mark>Rev=2</mark>"));
	CHECK(rc_contains(h, "Rev: octets 17..17"));
	CHECK(rc_contains(h, "<mark>02</mark>"));
	CHECK(rc_contains(h, "<a href=\"pcap/mpa.startup.resp.rev.pcap\">"));
	/* Only the failing case has a blamed row. */
	int nblame = 0;
	for (const char *q = h; q && (q = strstr(q, "class=\"blame\"")); q++)
		nblame++;
	CHECK_EQ(nblame, 1);
	free(h);

	/* Interrupted, with a baseline: the banner and the differences. */
	run->complete = false;
	run->stop_signal = SIGINT;
	char *diffs[] = {"mpa.startup.resp.rev: expected PASS, got FAIL <b>"};
	iw_html_opts o2 = {.pcap_links = false, .baseline = "ci/base.txt", .ndiffs = 1, .diffs = diffs};
	CHECK_EQ(iw_report_html(run, &o2, path, &e), 0);
	h = rp_read_file(path, NULL);
	CHECK(rc_contains(h, "<div id=\"incomplete\" class=\"banner\">INCOMPLETE: the run was interrupted by SIGINT"));
	CHECK(rc_contains(h, "(INCOMPLETE)</title>"));
	CHECK(rc_contains(h, "id=\"baseline\""));
	CHECK(rc_contains(h, "got FAIL &lt;b&gt;"));
	CHECK(rc_contains(h, "not written (run with --pcap)"));
	int ntmp = -1;
	CHECK(rp_count_entries(dir, &ntmp) > 0 && ntmp == 0);
	free(h);
	iw_run_free(run);
	free(run);
	rp_rm_rf(dir);
}

TEST(reportcert_html_hostile_text)
{
	char *dir = rp_scratch_dir();
	iw_run *run = calloc(1, sizeof *run);
	if (!dir || !run)
		return;
	rc_make_run(run);
	iw_case_result *r = rc_add(run, "evil.<script>", IW_FAIL,
				   "<script>alert(1)</script> <img src=\"http://evil/x\"> \x1b[2J \xff\xfe \"q\" 'a' & done");
	if (r) {
		snprintf(r->failed_req, sizeof r->failed_req, "MPA-6.1.1-06");
		iw_result_wire(r, IW_FROM_DUT, 1, 5, "raw<", (const uint8_t *)"<>", 2, "Rev=<b>2</b> onload=\"x\"");
		iw_result_blame(r, "MPA-6.1.1-06");
		snprintf(r->dut_finding_text, sizeof r->dut_finding_text, "stderr: </pre><iframe src=https://x>");
		r->dut_finding = true;
	}
	snprintf(run->dut, sizeof run->dut, "exec:./dut \"<x>\"");
	char path[256];
	snprintf(path, sizeof path, "%s/report.html", dir);
	iw_err e;
	CHECK_EQ(iw_report_html(run, NULL, path, &e), 0);
	char *h = rp_read_file(path, NULL);
	CHECK(h != NULL);
	CHECK(!rc_contains(h, "<script"));
	CHECK(!rc_contains(h, "<img"));
	CHECK(!rc_contains(h, "<iframe"));
	CHECK(!rc_contains(h, "Rev=<b>"));
	CHECK(!rc_contains(h, "\x1b"));
	CHECK(rc_contains(h, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	CHECK(rc_contains(h, "\\x1B[2J") || rc_contains(h, "\\x1b[2J"));
	CHECK(rc_contains(h, "\xef\xbf\xbd")); /* invalid UTF-8 shown as U+FFFD */
	CHECK(rc_contains(h, "&quot;q&quot;"));
	/* The DUT's text still shows, escaped, highlighted where the failure points. */
	CHECK(rc_contains(h, "<mark>Rev=&lt;b&gt;2&lt;/b&gt;</mark>"));
	CHECK(rc_contains(h, "id=\"case-evil._script_\""));
	free(h);
	iw_run_free(run);
	free(run);
	rp_rm_rf(dir);
}

/* ---- results.json and junit.xml carry the provenance and the incompleteness --------- */

TEST(reportcert_json_junit_provenance)
{
	char *dir = rp_scratch_dir();
	iw_run *run = calloc(1, sizeof *run);
	if (!dir || !run)
		return;
	rc_make_run(run);
	run->complete = false;
	run->stop_signal = SIGTERM;
	snprintf(run->command, sizeof run->command, "iwspec run --html");
	char path[256];
	snprintf(path, sizeof path, "%s/results.json", dir);
	iw_err e;
	CHECK_EQ(iw_report_json(run, path, &e), 0);
	json_t *root = json_load_file(path, 0, NULL);
	CHECK(root != NULL);
	if (root) {
		json_t *jr = json_object_get(root, "run");
		CHECK(json_is_false(json_object_get(jr, "complete")));
		CHECK_STR(json_string_value(json_object_get(jr, "interrupted_by")), "SIGTERM");
		CHECK_STR(json_string_value(json_object_get(jr, "command")), "iwspec run --html");
		CHECK_STR(json_string_value(json_object_get(json_object_get(jr, "vectors"), "sha256")), "none");
		CHECK_EQ(json_array_size(json_object_get(jr, "disabled")), 1);
		CHECK_EQ(json_array_size(json_object_get(jr, "maps")), 1);
		CHECK(strstr(json_string_value(json_object_get(jr, "requirements_catalog")), "sha256") != NULL);
		json_t *c = json_array_get(json_object_get(root, "cases"), 1);
		CHECK_EQ(json_integer_value(json_object_get(c, "failed_wire")), 2);
		CHECK_STR(json_string_value(json_object_get(c, "failed_field")), "Rev");
		CHECK_STR(json_string_value(json_object_get(c, "dut_role")), "responder");
		CHECK_EQ(json_integer_value(json_object_get(json_object_get(c, "capture"), "octets")), 40);
		CHECK(json_is_null(json_object_get(json_array_get(json_object_get(root, "cases"), 0), "failed_wire")));
		json_decref(root);
	}
	snprintf(path, sizeof path, "%s/junit.xml", dir);
	CHECK_EQ(iw_report_junit(run, path, &e), 0);
	char *x = rp_read_file(path, NULL);
	CHECK(rc_contains(x, "name=\"run-complete\""));
	CHECK(rc_contains(x, "type=\"INCOMPLETE\""));
	CHECK(rc_contains(x, "interrupted by SIGTERM after 3 cases"));
	CHECK(rc_contains(x, "<property name=\"complete\" value=\"false\"/>"));
	CHECK(rc_contains(x, "<property name=\"interrupted_by\" value=\"SIGTERM\"/>"));
	CHECK(rc_contains(x, "tests=\"4\"") && rc_contains(x, "errors=\"1\""));
	free(x);
	iw_run_free(run);
	free(run);
	rp_rm_rf(dir);
}

/* A run the runner stopped (the DUT cannot be reached) says why in every report, in the same
 * words; before, the HTML, JUnit and baseline files called it "interrupted" and dropped the reason. */
TEST(reportcert_stopped_run_says_why)
{
	char *dir = rp_scratch_dir();
	iw_run *run = calloc(1, sizeof *run);
	if (!dir || !run)
		return;
	rc_make_run(run);
	run->complete = false;
	snprintf(run->stopped, sizeof run->stopped, "the DUT tcp:192.0.2.1:1 cannot be reached: connection refused");
	const char *why = "stopped after 3 cases: the DUT tcp:192.0.2.1:1 cannot be reached: connection refused";
	char path[256];
	iw_err e;
	snprintf(path, sizeof path, "%s/report.html", dir);
	CHECK_EQ(iw_report_html(run, NULL, path, &e), 0);
	char *x = rp_read_file(path, NULL);
	CHECK(rc_contains(x, "INCOMPLETE: the run was stopped after 3 cases: the DUT tcp:192.0.2.1:1 cannot be reached"));
	CHECK(rc_contains(x, "NO: stopped after 3 cases"));
	CHECK(!rc_contains(x, "interrupted"));
	free(x);
	snprintf(path, sizeof path, "%s/junit.xml", dir);
	CHECK_EQ(iw_report_junit(run, path, &e), 0);
	x = rp_read_file(path, NULL);
	CHECK(rc_contains(x, why));
	CHECK(!rc_contains(x, "interrupted"));
	free(x);
	snprintf(path, sizeof path, "%s/baseline.expect", dir);
	CHECK_EQ(iw_baseline_write(run, path, &e), 0);
	x = rp_read_file(path, NULL);
	CHECK(rc_contains(x, "# WARNING: the run was stopped after 3 cases: the DUT"));
	free(x);
	snprintf(path, sizeof path, "%s/results.json", dir);
	CHECK_EQ(iw_report_json(run, path, &e), 0);
	json_t *root = json_load_file(path, 0, NULL);
	CHECK(root != NULL);
	if (root) {
		json_t *jr = json_object_get(root, "run");
		CHECK_STR(json_string_value(json_object_get(jr, "stopped")), run->stopped);
		CHECK(json_is_null(json_object_get(jr, "interrupted_by")));
		json_decref(root);
	}
	iw_run_free(run);
	free(run);
	rp_rm_rf(dir);
}
