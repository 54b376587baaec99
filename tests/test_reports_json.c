/*
 * test_reports_json.c - results.json, read back through jansson: every field of a run with one
 * case of every verdict, the hex cap, NaN and infinite measures, hostile DUT text, a truncated
 * wire log and a run with no case.
 */
#include "report_fixture.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "report.h"

/* ---- results.json --------------------------------------------------------------------- */

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static long long jint(json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

TEST(reports_json_roundtrip_every_verdict)
{
	char *dir = rp_scratch_dir();
	CHECK(dir != NULL);
	if (!dir)
		return;
	iw_run run;
	rp_make_run(&run);
	char path[256];
	snprintf(path, sizeof path, "%s/out/results.json", dir);
	iw_err e = {{0}};
	CHECK_EQ(iw_report_json(&run, path, &e), 0);
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	CHECK(root != NULL);
	if (!root) {
		fprintf(stderr, "  json: %s line %d\n", je.text, je.line);
		goto out;
	}
	json_t *tool = json_object_get(root, "tool");
	CHECK_STR(jstr(tool, "name"), "iwspec");
	CHECK_STR(jstr(tool, "version"), "0.1.0");
	CHECK_STR(jstr(tool, "git_rev"), "abc1234");
	json_t *jr = json_object_get(root, "run");
	CHECK_STR(jstr(jr, "dut"), "tcp:10.0.0.2:5000");
	CHECK_STR(jstr(jr, "dut_config_source"), "duts/lab.conf");
	CHECK_STR(jstr(jr, "profile"), "rfc5044");
	CHECK_STR(jstr(jr, "role"), "responder");
	CHECK_STR(jstr(jr, "host"), "lab-7");
	CHECK_STR(jstr(jr, "seg_mode"), "whole");
	CHECK_STR(jstr(jr, "seed"), "42");
	CHECK_STR(jstr(jr, "start"), "2024-05-01T12:34:56.000Z");
	CHECK_STR(jstr(jr, "end"), "2024-05-01T12:34:58.500Z");
	CHECK(json_is_true(json_object_get(jr, "complete")));
	json_t *sum = json_object_get(root, "summary");
	static const char *const keys[] = { "pass", "fail", "warn", "info", "skip", "error" };
	for (size_t k = 0; k < 6; k++)
		CHECK_EQ(jint(sum, keys[k]), 1);
	CHECK_EQ(jint(sum, "total"), 6);

	json_t *cases = json_object_get(root, "cases");
	CHECK_EQ(json_array_size(cases), 6);
	static const char *const verdicts[] = { "PASS", "FAIL", "WARN", "INFO", "SKIP", "ERROR" };
	for (size_t k = 0; k < 6 && k < json_array_size(cases); k++) {
		json_t *c = json_array_get(cases, k);
		CHECK_STR(jstr(c, "verdict"), verdicts[k]);
		CHECK_STR(jstr(c, "id"), run.cases[k].id);
		CHECK_STR(jstr(c, "title"), run.cases[k].title);
		CHECK_STR(jstr(c, "file"), run.cases[k].file);
		CHECK_STR(jstr(c, "profile"), "rfc5044");
		CHECK_STR(jstr(c, "reason"), run.cases[k].reason);
		CHECK_STR(jstr(c, "start"), "2024-05-01T12:34:56.789Z");
		CHECK_EQ(jint(c, "duration_ms"), 12);
		json_t *reqs = json_object_get(c, "requirements");
		CHECK_EQ(json_array_size(reqs), 2);
		CHECK_STR(jstr(json_array_get(reqs, 0), "id"), "MPA-6.1-R5");
		CHECK_STR(jstr(json_array_get(reqs, 0), "level"), "MUST");
		CHECK_STR(jstr(json_array_get(reqs, 1), "level"), "SHOULD");
		CHECK(json_is_array(json_object_get(c, "measures")));
		CHECK(json_is_array(json_object_get(c, "mappings")));
		CHECK(json_is_array(json_object_get(c, "wire")));
		CHECK_EQ(jint(c, "wire_dropped"), 0);
	}
	json_t *pass = json_array_get(cases, 0), *fail = json_array_get(cases, 1);
	CHECK(json_is_null(json_object_get(pass, "failed_requirement")));
	CHECK(json_is_null(json_object_get(pass, "dut_finding")));
	CHECK_STR(jstr(fail, "failed_requirement"), "MPA-6.1-R5");
	json_t *wire = json_object_get(fail, "wire");
	CHECK_EQ(json_array_size(wire), 3);
	json_t *w0 = json_array_get(wire, 0), *w1 = json_array_get(wire, 1), *w2 = json_array_get(wire, 2);
	CHECK_STR(jstr(w0, "dir"), "to_dut");
	CHECK_STR(jstr(w1, "dir"), "from_dut");
	CHECK_STR(jstr(w2, "dir"), "note");
	CHECK_EQ(jint(w0, "conn"), 1);
	CHECK_EQ(jint(w0, "t_us"), 150);
	CHECK_STR(jstr(w0, "what"), "request");
	CHECK_STR(jstr(w0, "summary"), "Request key=bad M=0 C=1 Rev=1");
	CHECK_STR(jstr(w0, "hex"), "4d50412049442052");
	CHECK_STR(jstr(w1, "hex"), "0014ab");
	CHECK_STR(jstr(w2, "hex"), "");
	CHECK_EQ(jint(w1, "nbytes"), 3);
	CHECK(json_object_get(w0, "truncated") == NULL);
	json_t *info = json_array_get(cases, 3);
	json_t *m = json_array_get(json_object_get(info, "measures"), 0);
	CHECK_STR(jstr(m, "name"), "close_after_bad_request_ms");
	double mv = json_real_value(json_object_get(m, "value"));
	CHECK(mv > 1500.5 - 1e-9 && mv < 1500.5 + 1e-9);
	CHECK_STR(jstr(m, "unit"), "ms");
	json_t *err = json_array_get(cases, 5);
	CHECK_STR(jstr(err, "dut_finding"), "killed by signal 11\nstderr: boom");
	CHECK_STR(json_string_value(json_array_get(json_object_get(err, "mappings"), 0)), "LLP error type 3 read as 0");
	json_decref(root);
	int ntmp;
	snprintf(path, sizeof path, "%s/out", dir);
	CHECK_EQ(rp_count_entries(path, &ntmp), 1);
	CHECK_EQ(ntmp, 0);
out:
	iw_run_free(&run);
	rp_rm_rf(dir);
}

TEST(reports_json_hex_cap_and_hostile_text)
{
	char *dir = rp_scratch_dir();
	if (!dir)
		return;
	iw_run run;
	memset(&run, 0, sizeof run);
	run.seed = UINT64_MAX;
	snprintf(run.dut, sizeof run.dut, "exec:'%s'", RP_HOSTILE);
	iw_case_result *r = rp_add_case(&run, "fuzz.mpa.big", IW_FAIL, RP_HOSTILE);
	uint8_t *big = malloc(40000);
	if (!r || !big) {
		free(big);
		iw_run_free(&run);
		rp_rm_rf(dir);
		return;
	}
	for (size_t k = 0; k < 40000; k++)
		big[k] = (uint8_t)(k * 7);
	iw_result_wire(r, IW_FROM_DUT, 1, 1, "raw", big, 40000, "%s", RP_HOSTILE);
	iw_result_wire(r, IW_FROM_DUT, 1, 2, "raw", big, IW_REPORT_HEX_MAX / 2, "exactly the cap");
	free(big);
	r->nmeasures = 2;
	snprintf(r->measures[0].name, sizeof r->measures[0].name, "nan");
	r->measures[0].value = NAN;
	snprintf(r->measures[1].name, sizeof r->measures[1].name, "inf");
	r->measures[1].value = INFINITY;
	r->dut_finding = true;
	snprintf(r->dut_finding_text, sizeof r->dut_finding_text, "%s", RP_HOSTILE);

	char path[256];
	snprintf(path, sizeof path, "%s/results.json", dir);
	iw_err e = {{0}};
	CHECK_EQ(iw_report_json(&run, path, &e), 0);
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	CHECK(root != NULL);
	if (root) {
		CHECK_STR(jstr(json_object_get(root, "run"), "seed"), "18446744073709551615");
		json_t *c = json_array_get(json_object_get(root, "cases"), 0);
		/* Invalid UTF-8 became U+FFFD; controls survive as JSON escapes. */
		const char *want = "q\"uo'te <tag> & amp; \x01\x1b[31m \xEF\xBF\xBD\xEF\xBF\xBD bad "
				   "\xEF\xBF\xBD\xEF\xBF\xBD ]]> end";
		CHECK_STR(jstr(c, "reason"), want);
		CHECK_STR(jstr(c, "dut_finding"), want);
		CHECK_STR(jstr(json_object_get(root, "run"), "dut"), "exec:'q\"uo'te <tag> & amp; \x01\x1b[31m "
			  "\xEF\xBF\xBD\xEF\xBF\xBD bad \xEF\xBF\xBD\xEF\xBF\xBD ]]> end'");
		json_t *ms = json_object_get(c, "measures");
		CHECK(json_is_null(json_object_get(json_array_get(ms, 0), "value")));
		CHECK(json_is_null(json_object_get(json_array_get(ms, 1), "value")));
		json_t *w = json_object_get(c, "wire");
		json_t *w0 = json_array_get(w, 0), *w1 = json_array_get(w, 1);
		CHECK_EQ(strlen(jstr(w0, "hex") ? jstr(w0, "hex") : ""), IW_REPORT_HEX_MAX);
		CHECK(json_is_true(json_object_get(w0, "truncated")));
		CHECK_EQ(jint(w0, "nbytes"), 40000);
		CHECK_STR(jstr(w0, "summary"), want);
		const char *h = jstr(w0, "hex");
		CHECK(h && !strncmp(h, "00070e151c23", 12));
		CHECK_EQ(strlen(jstr(w1, "hex") ? jstr(w1, "hex") : ""), IW_REPORT_HEX_MAX);
		CHECK(json_object_get(w1, "truncated") == NULL);
		json_decref(root);
	} else {
		fprintf(stderr, "  json: %s line %d\n", je.text, je.line);
	}
	iw_run_free(&run);
	rp_rm_rf(dir);
}

TEST(reports_json_wire_truncation_and_empty_run)
{
	char *dir = rp_scratch_dir();
	if (!dir)
		return;
	iw_run run;
	memset(&run, 0, sizeof run);
	iw_case_result *r = rp_add_case(&run, "fuzz.mpa.flood", IW_FAIL, "flood");
	for (int k = 0; r && k < 5000; k++)
		iw_result_wire(r, IW_FROM_DUT, 1, k, "fpdu", (const uint8_t *)"\x00\x01", 2, "fpdu %d", k);
	char path[256];
	snprintf(path, sizeof path, "%s/results.json", dir);
	iw_err e = {{0}};
	CHECK_EQ(iw_report_json(&run, path, &e), 0);
	json_t *root = json_load_file(path, 0, NULL);
	CHECK(root != NULL);
	if (root) {
		json_t *c = json_array_get(json_object_get(root, "cases"), 0);
		json_t *w = json_object_get(c, "wire");
		CHECK_EQ(json_array_size(w), IW_RESULT_MAX_WIRE + 1);
		CHECK_EQ(jint(c, "wire_dropped"), 5000 - IW_RESULT_MAX_WIRE);
		CHECK_STR(jstr(json_array_get(w, IW_RESULT_MAX_WIRE), "dir"), "note");
		CHECK_STR(jstr(json_array_get(w, 4095), "summary"), "fpdu 4095");
		json_decref(root);
	}
	iw_run_free(&run);

	/* A run with no case (all filtered, or interrupted at once) still gives valid JSON. */
	memset(&run, 0, sizeof run);
	CHECK_EQ(iw_report_json(&run, path, &e), 0);
	root = json_load_file(path, 0, NULL);
	CHECK(root != NULL);
	if (root) {
		CHECK_EQ(json_array_size(json_object_get(root, "cases")), 0);
		CHECK_EQ(jint(json_object_get(root, "summary"), "total"), 0);
		CHECK(json_is_false(json_object_get(json_object_get(root, "run"), "complete")));
		json_decref(root);
	}
	rp_rm_rf(dir);
}
