/*
 * test_exec_arrivals.c - the DUT's octets wherever they arrive (suite/run/exec_arrivals.c), and
 * the startup rules that came out of the same review: every octet the DUT sends goes through
 * the per-frame checks and into the wire log, also while `measure close` waits and after the
 * last step; an accepting Reply must have R=0 whatever `reject` says; one rule for C=0 under
 * crc = optional-off. The cases run are the catalog's own files where a finding was about one.
 */
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "crc32c.h"
#include "exec_fixture.h"
#include "mpa_frame.h"
#include "report.h"

#define CASES "cases/mpa/6.1-startup-responder/"

/* Whether r's wire log has an entry from the DUT of this kind ("reply", "fpdu", "raw"). */
static bool dut_sent(const iw_case_result *r, const char *what)
{
	for (size_t i = 0; i < r->nwire; i++)
		if (r->wire[i].dir == IW_FROM_DUT && !strcmp(r->wire[i].what, what) && r->wire[i].nbytes)
			return true;
	return false;
}

/* The catalog's case at path against a DUT that answers a Request that never completes: after
 * min_read octets, a Reply and an FPDU, then it closes (a DUT seen on the wire: 68 and 48 octets).
 * Before, `measure close` skipped them: INFO, and no DUT octet in the wire log. */
static void partial_request_answered(const char *path, size_t min_read)
{
	char *text = case_text(path);
	CHECK(text != NULL);
	if (!text)
		return;
	scripted_dut d = {0};
	d.min_read = min_read;
	d.close_after = true;
	d.reply_len = good_reply(d.reply, sizeof d.reply);
	d.reply_len += send_fpdu("early", d.reply + d.reply_len, sizeof d.reply - d.reply_len);
	dut_start(&d);
	iw_run run;
	run_against(&d, text, &run);
	dut_stop(&d);
	const iw_case_result *r = &run.cases[0];
	if (r->verdict != IW_FAIL)
		printf("  %s: %s %s\n", path, iw_verdict_name(r->verdict), r->reason);
	CHECK_STR(iw_verdict_name(r->verdict), "FAIL");
	CHECK_STR(r->failed_req, "MPA-6.1-R2a");
	CHECK(strstr(r->reason, "before the Request was complete") != NULL);
	/* Both the Reply and the FPDU behind it are in the wire log. */
	CHECK(dut_sent(r, "reply"));
	CHECK(dut_sent(r, "fpdu") || dut_sent(r, "raw"));
	iw_run_free(&run);
	free(text);
}

TEST(exec_reply_to_a_header_cut_short_fails_r2a)
{
	partial_request_answered(CASES "partial-header-timeout.iwt", 19);
}

TEST(exec_reply_to_missing_private_data_fails_r2a)
{
	partial_request_answered(CASES "pd-short-silent.iwt", 20);
}

TEST(exec_measure_without_close_is_none)
{
	/* No close within the wait: the value is unknown. The reason says "none", results.json
	 * has null (docs/reports.md), never the -1 it had. */
	static const char *text = "id: test.exec.measure\n"
				  "title: a silent DUT measured\n"
				  "requirement: MPA-6.1-R8b INFO\n"
				  "role: responder\n"
				  "\n"
				  "connect\n"
				  "measure close within=300ms\n";
	scripted_dut d = {0};
	d.mode = DUT_SILENT;
	dut_start(&d);
	iw_run run;
	run_against(&d, text, &run);
	iw_case_result *r = &run.cases[0];
	CHECK_STR(iw_verdict_name(r->verdict), "INFO");
	CHECK_EQ(r->nmeasures, 1);
	CHECK(!isfinite(r->measures[0].value));
	CHECK_STR(r->reason, "measured close_after_line_7 = none");
	char dir[] = "/tmp/iwspec-measure-XXXXXX", path[64];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/results.json", dir);
	iw_err e;
	CHECK_EQ(iw_report_json(&run, path, &e), 0);
	char *json = case_text(path);
	CHECK(json && strstr(json, "\"value\": null") != NULL);
	CHECK(json && strstr(json, "-1") == NULL);
	free(json);
	snprintf(path, sizeof path, "%s/junit.xml", dir);
	CHECK_EQ(iw_report_junit(&run, path, &e), 0);
	char *xml = case_text(path);
	CHECK(xml && strstr(xml, "close_after_line_7 = none") != NULL);
	free(xml);
	remove(path);
	snprintf(path, sizeof path, "%s/results.json", dir);
	remove(path);
	rmdir(dir);
	iw_run_free(&run);
	dut_stop(&d);
}

TEST(exec_octets_after_the_last_step_are_judged)
{
	/* The DUT's Reply and, in the same write, an FPDU: the case ends after the Reply. The FPDU
	 * was read with it and left unjudged (a PASS); it breaks rule 4. */
	static const char *text = "id: test.exec.tail\n"
				  "title: a Reply and nothing else\n"
				  "requirement: MPA-6.1.1-05 MUST\n"
				  "role: responder\n"
				  "\n"
				  "connect\n"
				  "send request\n"
				  "expect reply r=0\n";
	scripted_dut d = {0};
	d.reply_len = good_reply(d.reply, sizeof d.reply);
	d.reply_len += send_fpdu("early", d.reply + d.reply_len, sizeof d.reply - d.reply_len);
	dut_start(&d);
	iw_run run;
	run_against(&d, text, &run);
	dut_stop(&d);
	const iw_case_result *r = &run.cases[0];
	CHECK_STR(iw_verdict_name(r->verdict), "FAIL");
	CHECK_STR(r->failed_req, "MPA-6.1-R4");
	CHECK(strstr(r->reason, "judged on every frame") != NULL);
	CHECK(dut_sent(r, "fpdu"));
	iw_run_free(&run);
}

TEST(exec_octets_a_close_allows_are_judged)
{
	/* `expect close allow_data=1` let any octets through unread; an FPDU with a non-zero pad
	 * octet among them breaks MPA-4-02 like anywhere else. */
	static const char *text = "id: test.exec.allow\n"
				  "title: a close that tolerates data\n"
				  "requirement: MPA-6.1-R2a MUST\n"
				  "role: responder\n"
				  "\n"
				  "connect\n"
				  "send request\n"
				  "expect reply\n"
				  "send send data=\"go\"\n"
				  "expect close allow_data=1 within=3s\n";
	scripted_dut d = {0};
	d.reply_len = good_reply(d.reply, sizeof d.reply);
	d.after_len = send_fpdu("abcde", d.after, sizeof d.after);
	d.after[2 + 23] = 0x5a; /* a pad octet; the CRC made over it */
	uint32_t crc = iw_crc32c(d.after, d.after_len - 4);
	for (int k = 0; k < 4; k++)
		d.after[d.after_len - 4 + (size_t)k] = (uint8_t)(crc >> (8 * k));
	dut_start(&d);
	iw_run run;
	run_against(&d, text, &run);
	dut_stop(&d);
	const iw_case_result *r = &run.cases[0];
	CHECK_STR(iw_verdict_name(r->verdict), "FAIL");
	CHECK_STR(r->failed_req, "MPA-4-02");
	CHECK(dut_sent(r, "fpdu"));
	iw_run_free(&run);
}

/* ---- the R bit of an accepting Reply (finding 1) ---- */

TEST(exec_reply_echoing_the_requests_r_fails_whatever_reject_says)
{
	/* Linux siw sends the Request's header back with the key swapped: R=1 to a Request with
	 * R=1. `expect as-model` skipped R for a DUT with reject = yes (siw's configuration): PASS. */
	char *text = case_text(CASES "r-bit-in-request.iwt");
	CHECK(text != NULL);
	if (!text)
		return;
	for (int reject = 0; reject < 2; reject++) {
		scripted_dut d = {0};
		d.reply_len = good_reply(d.reply, sizeof d.reply);
		iw_mpa_frame_set_flags(d.reply, iw_mpa_frame_flags(d.reply) | IW_MPA_FLAG_R);
		dut_start(&d);
		exec_cfg cfg = {.reject = reject};
		iw_run run;
		run_against_cfg(&d, text, &cfg, &run);
		dut_stop(&d);
		const iw_case_result *r = &run.cases[0];
		CHECK_STR(iw_verdict_name(r->verdict), "FAIL");
		CHECK_STR(r->failed_req, "MPA-6.1.1-R1");
		iw_run_free(&run);
	}
	free(text);
}

/* ---- C=0 under crc = optional-off (finding 7) ---- */

/* happy-path's `expect reply c=1` and model-happy-path's `expect as-model` against one DUT that
 * answers C=0: the same verdict, from the same rule (ex_c0_held). */
static void both_happy_paths(const exec_cfg *cfg, const char *verdict)
{
	static const char *const files[] = {CASES "happy-path.iwt", CASES "as-model-happy-path.iwt"};
	for (size_t i = 0; i < 2; i++) {
		char *text = case_text(files[i]);
		CHECK(text != NULL);
		if (!text)
			continue;
		scripted_dut d = {0};
		d.reply_len = good_reply(d.reply, sizeof d.reply);
		iw_mpa_frame_set_flags(d.reply, iw_mpa_frame_flags(d.reply) & (uint8_t)~IW_MPA_FLAG_C);
		dut_start(&d);
		iw_run run;
		run_against_cfg(&d, text, cfg, &run);
		dut_stop(&d);
		const iw_case_result *r = &run.cases[0];
		if (strcmp(iw_verdict_name(r->verdict), verdict))
			printf("  %s (crc_off_mode %d, --crc off %d): %s %s\n", files[i], cfg->crc_off_mode,
			       cfg->frame_no_crc, iw_verdict_name(r->verdict), r->reason);
		CHECK_STR(iw_verdict_name(r->verdict), verdict);
		CHECK_STR(r->failed_req, strcmp(verdict, "FAIL") ? "" : "MPA-5.2-03");
		iw_run_free(&run);
		free(text);
	}
}

TEST(exec_c0_reply_one_rule_for_both_happy_paths)
{
	/* optional-off declares the mode exists; the case did not ask for it: the DUT is in its
	 * default configuration, where a C=0 Reply breaks MPA-5.2-03 (both cases FAIL; before,
	 * happy-path FAILed and model-happy-path PASSed). */
	exec_cfg opt = {.crc_off_mode = true};
	both_happy_paths(&opt, "FAIL");
	exec_cfg req = {.crc_off_mode = false};
	both_happy_paths(&req, "FAIL");
	/* --crc off with a DUT the harness cannot instruct: its administrator put it in the mode
	 * for the run, so the C=0 Reply is not held against it (both PASS). */
	exec_cfg run_off = {.crc_off_mode = true, .frame_no_crc = true};
	both_happy_paths(&run_off, "PASS");
}
