/*
 * test_report_cert_baseline.c - baselines (issue 8): parsing and its errors, comparing a run
 * with a baseline both ways (regressions, fixed failures, other requirements, VERDICT|VERDICT),
 * and a written baseline reading back with no difference.
 */
#include "report_cert_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"

/* ---- baselines --------------------------------------------------------------------- */

static size_t compare(iw_baseline *b, const iw_run *run, char ***d)
{
	size_t n = iw_baseline_compare(b, run, d);
	return n;
}

static bool any_diff(char **d, size_t n, const char *needle)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(d[i], needle))
			return true;
	return false;
}

TEST(reportcert_baseline_parse)
{
	iw_baseline b;
	iw_err e;
	static const char ok[] = "# comment\n\n"
				 "  mpa.a PASS\n"
				 "mpa.b FAIL : [MPA-6.1.1-06] known: firmware 2.3 answers Rev=2\r\n"
				 "mpa.b@rfc6581 SKIP : no such profile here\n"
				 "mpa.c WARN:plain note\n"
				 /* an empty reason at the very end of the text (a fuzz finding) */
				 "mpa.d INFO:";
	CHECK_EQ(iw_baseline_parse(&b, ok, sizeof ok - 1, "base.txt", &e), IW_OK);
	CHECK_EQ(b.n, 5);
	if (b.n == 5) {
		CHECK_STR(b.e[0].id, "mpa.a");
		CHECK_EQ(b.e[0].verdict, IW_PASS);
		CHECK_STR(b.e[1].req, "MPA-6.1.1-06");
		CHECK_STR(b.e[1].note, "[MPA-6.1.1-06] known: firmware 2.3 answers Rev=2");
		CHECK_STR(b.e[2].profile, "rfc6581");
		CHECK_EQ(b.e[2].line, 5);
		CHECK_STR(b.e[3].note, "plain note");
		CHECK_STR(b.e[3].req, "");
		CHECK_EQ(b.e[4].verdict, IW_INFO);
		CHECK_STR(b.e[4].note, "");
	}
	iw_baseline_free(&b);
	static const struct { const char *text, *msg; } bad[] = {
		{"mpa.a\n", "base.txt:1: 'mpa.a' has no verdict"},
		{"mpa.a pass\n", "base.txt:1: unknown verdict 'pass'"},
		{"mpa.a PASS\nmpa.a FAIL\n", "base.txt:2: mpa.a is already listed on line 1"},
		{"mpa.a PASS extra\n", "base.txt:1: expected ': reason'"},
		{"mpa.a FAIL : [MPA-6.1\n", "base.txt:1: a pinned requirement is written [REQ-ID]"},
		{"mpa.a@ PASS\n", "base.txt:1: bad profile"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(&e, 0, sizeof e);
		CHECK_EQ(iw_baseline_parse(&b, bad[i].text, strlen(bad[i].text), "base.txt", &e), IW_EINVAL);
		if (!strstr(e.msg, bad[i].msg))
			check_fail(__FILE__, __LINE__, "baseline error '%s' lacks '%s'", e.msg, bad[i].msg);
		CHECK(b.e == NULL && b.n == 0);
	}
	CHECK(iw_baseline_load(&b, "/nonexistent/base.txt", &e) != IW_OK);
	CHECK(strstr(e.msg, "cannot open the baseline") != NULL);
}

TEST(reportcert_baseline_compare_both_ways)
{
	iw_run *run = calloc(1, sizeof *run);
	if (!run)
		return;
	rc_make_run(run);
	snprintf(run->cases[1].failed_req, sizeof run->cases[1].failed_req, "MPA-6.1.1-06");
	iw_baseline b;
	iw_err e;
	char **d = NULL;
	/* As the run: no difference. */
	static const char same[] = "mpa.startup.resp.happy-path PASS\n"
				   "mpa.startup.resp.rev FAIL : [MPA-6.1.1-06] known\n"
				   "mpa.x.disabled SKIP : firmware\n";
	CHECK_EQ(iw_baseline_parse(&b, same, sizeof same - 1, "b", &e), IW_OK);
	CHECK_EQ(compare(&b, run, &d), 0);
	iw_baseline_diffs_free(d, 0);
	iw_baseline_free(&b);
	/* A known failure that now passes is a difference too. */
	run->cases[1].verdict = IW_PASS;
	CHECK_EQ(iw_baseline_parse(&b, same, sizeof same - 1, "b", &e), IW_OK);
	size_t n = compare(&b, run, &d);
	CHECK_EQ(n, 1);
	CHECK(any_diff(d, n, "mpa.startup.resp.rev: expected FAIL (b line 2), got PASS"));
	CHECK(any_diff(d, n, "no longer fails"));
	iw_baseline_diffs_free(d, n);
	iw_baseline_free(&b);
	run->cases[1].verdict = IW_FAIL;
	/* The same failure on another requirement. */
	static const char other[] = "mpa.startup.resp.happy-path PASS\n"
				    "mpa.startup.resp.rev FAIL : [MPA-6.1-R5] known\n"
				    "mpa.x.disabled SKIP\n";
	CHECK_EQ(iw_baseline_parse(&b, other, sizeof other - 1, "b", &e), IW_OK);
	n = compare(&b, run, &d);
	CHECK_EQ(n, 1);
	CHECK(any_diff(d, n, "expected FAIL on [MPA-6.1-R5] (b line 2), got FAIL on [MPA-6.1.1-06]"));
	iw_baseline_diffs_free(d, n);
	iw_baseline_free(&b);
	/* A line that allows a PASS beside its pinned WARN or FAIL: a PASS has no rule to pin. */
	static const char either[] = "mpa.startup.resp.happy-path PASS\n"
				     "mpa.startup.resp.rev WARN|PASS : [MPA-6.1-R5] two outcomes seen\n"
				     "mpa.x.disabled SKIP\n";
	run->cases[1].verdict = IW_PASS;
	run->cases[1].failed_req[0] = '\0';
	CHECK_EQ(iw_baseline_parse(&b, either, sizeof either - 1, "b", &e), IW_OK);
	CHECK_EQ(compare(&b, run, &d), 0);
	iw_baseline_diffs_free(d, 0);
	iw_baseline_free(&b);
	run->cases[1].verdict = IW_FAIL;
	snprintf(run->cases[1].failed_req, sizeof run->cases[1].failed_req, "MPA-6.1.1-06");
	/* A regression, a case missing from the baseline, a listed case that did not run. */
	static const char reg[] = "mpa.startup.resp.rev PASS\n"
				  "mpa.x.disabled SKIP\n"
				  "mpa.gone PASS\n";
	CHECK_EQ(iw_baseline_parse(&b, reg, sizeof reg - 1, "b", &e), IW_OK);
	n = compare(&b, run, &d);
	CHECK_EQ(n, 3);
	CHECK(any_diff(d, n, "mpa.startup.resp.rev: expected PASS (b line 1), got FAIL (a regression)"));
	CHECK(any_diff(d, n, "mpa.startup.resp.happy-path: got PASS, which the baseline does not list"));
	CHECK(any_diff(d, n, "mpa.gone: expected PASS (b line 3), but the case did not run"));
	iw_baseline_diffs_free(d, n);
	/* An interrupted run did not reach its later cases: not a difference of its own. */
	run->complete = false;
	n = compare(&b, run, &d);
	CHECK_EQ(n, 2);
	CHECK(!any_diff(d, n, "mpa.gone"));
	iw_baseline_diffs_free(d, n);
	iw_baseline_free(&b);
	run->complete = true;
	/* @PROFILE wins over the plain entry; an entry for another profile is not a difference. */
	static const char prof[] = "mpa.startup.resp.happy-path PASS\n"
				   "mpa.startup.resp.rev PASS\n"
				   "mpa.startup.resp.rev@rfc5044 FAIL\n"
				   "mpa.startup.resp.rev@rfc6581 PASS\n"
				   "mpa.x.disabled SKIP\n";
	CHECK_EQ(iw_baseline_parse(&b, prof, sizeof prof - 1, "b", &e), IW_OK);
	n = compare(&b, run, &d);
	CHECK_EQ(n, 0);
	iw_baseline_diffs_free(d, n);
	iw_baseline_free(&b);
	/* VERDICT|VERDICT: a race in the DUT shows on some runs only; either verdict matches, any
	 * other is a difference that names both. */
	static const char alt[] = "mpa.startup.resp.happy-path PASS\n"
				  "mpa.startup.resp.rev FAIL|PASS : F3 a race\n"
				  "mpa.x.disabled SKIP\n";
	CHECK_EQ(iw_baseline_parse(&b, alt, sizeof alt - 1, "b", &e), IW_OK);
	CHECK_EQ(b.e[1].verdict, IW_FAIL);
	CHECK_EQ(compare(&b, run, &d), 0);
	iw_baseline_diffs_free(d, 0);
	run->cases[1].verdict = IW_PASS;
	CHECK_EQ(compare(&b, run, &d), 0);
	iw_baseline_diffs_free(d, 0);
	run->cases[1].verdict = IW_ERROR;
	n = compare(&b, run, &d);
	CHECK_EQ(n, 1);
	CHECK(any_diff(d, n, "mpa.startup.resp.rev: expected FAIL|PASS (b line 2), got ERROR"));
	iw_baseline_diffs_free(d, n);
	iw_baseline_free(&b);
	run->cases[1].verdict = IW_FAIL;
	static const char badalt[] = "mpa.a FAIL|pass\n";
	CHECK_EQ(iw_baseline_parse(&b, badalt, sizeof badalt - 1, "b", &e), IW_EINVAL);
	CHECK(strstr(e.msg, "b:1: unknown verdict 'pass'") != NULL);
	iw_run_free(run);
	free(run);
}

TEST(reportcert_baseline_write_reads_back)
{
	char *dir = rp_scratch_dir();
	iw_run *run = calloc(1, sizeof *run);
	if (!dir || !run)
		return;
	rc_make_run(run);
	snprintf(run->cases[1].failed_req, sizeof run->cases[1].failed_req, "MPA-6.1.1-06");
	/* A reason that starts like a pinned requirement, with a line break and an escape. */
	iw_case_result *er = rc_add(run, "mpa.err", IW_ERROR, "[harness] cannot connect\n\x1b[31m");
	(void)er;
	char path[256];
	snprintf(path, sizeof path, "%s/base.txt", dir);
	iw_err e;
	CHECK_EQ(iw_baseline_write(run, path, &e), 0);
	char *t = rp_read_file(path, NULL);
	CHECK(rc_contains(t, "mpa.startup.resp.rev FAIL : [MPA-6.1.1-06] the DUT's Reply"));
	CHECK(rc_contains(t, "mpa.startup.resp.happy-path PASS\n"));
	CHECK(rc_contains(t, "mpa.err ERROR : reason: [harness] cannot connect"));
	CHECK(!rc_contains(t, "\x1b"));
	free(t);
	iw_baseline b;
	CHECK_EQ(iw_baseline_load(&b, path, &e), IW_OK);
	char **d = NULL;
	size_t n = iw_baseline_compare(&b, run, &d);
	CHECK_EQ(n, 0);
	iw_baseline_diffs_free(d, n);
	CHECK(b.n == 4 && !strcmp(b.e[3].req, ""));
	iw_baseline_free(&b);
	iw_run_free(run);
	free(run);
	rp_rm_rf(dir);
}

/* Issue 38: a lab's CI reads the differences top down. What got worse comes first, with its own
 * count; the same verdict on another rule (the behaviour changed under it) next; what got better
 * last; and each line carries the result's whole reason, not 200 octets of it. */
TEST(reportcert_baseline_regressions_first_reasons_whole)
{
	iw_run *run = calloc(1, sizeof *run);
	if (!run)
		return;
	char longer[900];
	memset(longer, 'x', sizeof longer - 40);
	snprintf(longer + sizeof longer - 40, 40, " [requirement MPA-5.2-14 MUST] end");
	rc_add(run, "a.fixed", IW_PASS, "");
	iw_case_result *moved = rc_add(run, "b.moved", IW_FAIL, "the DUT sent Send");
	snprintf(moved->failed_req, sizeof moved->failed_req, "MPA-5.2-14");
	rc_add(run, "c.worse", IW_FAIL, longer);
	static const char base[] = "a.fixed FAIL : [MPA-4-02] known\n"
				   "b.moved FAIL : [RFC5040-4.8-08] wrong code\n"
				   "c.worse PASS\n";
	iw_baseline b;
	iw_err e;
	CHECK_EQ(iw_baseline_parse(&b, base, sizeof base - 1, "b", &e), IW_OK);
	char **d = NULL;
	size_t n = compare(&b, run, &d);
	CHECK_EQ(n, 3);
	if (n == 3) {
		CHECK(strstr(d[0], "c.worse: expected PASS") && strstr(d[0], "(a regression)"));
		CHECK(strstr(d[0], "[requirement MPA-5.2-14 MUST] end") != NULL);   /* the whole reason */
		CHECK(strstr(d[1], "b.moved: expected FAIL on [RFC5040-4.8-08]") != NULL);
		CHECK(strstr(d[2], "a.fixed") && strstr(d[2], "no longer fails"));
	}
	CHECK_EQ(b.ndiff[IW_DIFF_REGRESSION], 1);
	CHECK_EQ(b.ndiff[IW_DIFF_CHANGED], 1);
	CHECK_EQ(b.ndiff[IW_DIFF_IMPROVED], 1);
	iw_baseline_diffs_free(d, n);
	iw_baseline_free(&b);
	iw_run_free(run);
	free(run);
}

/* Issue 38: a baseline pins what the DUT did. The same FAIL on the same rule after other
 * behaviour (corrupt data delivered, where a Terminate had the wrong code) is a difference of its
 * own kind; {A|B} pins a race; a written baseline pins the outcome and reads back; a new case
 * that fails is a regression, not "unlisted". */
TEST(reportcert_baseline_pins_the_outcome)
{
	iw_run *run = calloc(1, sizeof *run);
	char *dir = rp_scratch_dir();
	if (!run || !dir)
		return;
	iw_case_result *a = rc_add(run, "a.same-rule", IW_FAIL, "expected a Terminate, the DUT sent Send");
	snprintf(a->failed_req, sizeof a->failed_req, "RFC5040-4.8-08");
	snprintf(a->outcome, sizeof a->outcome, "Send");
	iw_case_result *r = rc_add(run, "b.race", IW_FAIL, "closed");
	snprintf(r->failed_req, sizeof r->failed_req, "RFC5040-7.1-02");
	snprintf(r->outcome, sizeof r->outcome, "FIN");
	iw_case_result *nw = rc_add(run, "c.new", IW_WARN, "new case");
	snprintf(nw->failed_req, sizeof nw->failed_req, "MPA-7-02");
	snprintf(nw->outcome, sizeof nw->outcome, "silence");
	static const char base[] = "a.same-rule FAIL : [RFC5040-4.8-08] {Terminate LLP/0x0/0x22 (unknown MPA error)} x\n"
				   "b.race FAIL : [RFC5040-7.1-02] {Terminate RDMAP/0x2/0x00|FIN} F18\n";
	iw_baseline b;
	iw_err e;
	CHECK_EQ(iw_baseline_parse(&b, base, sizeof base - 1, "b", &e), IW_OK);
	CHECK(b.n == 2 && !strcmp(b.e[0].outcomes, "Terminate LLP/0x0/0x22 (unknown MPA error)"));
	char **d = NULL;
	size_t n = compare(&b, run, &d);
	CHECK_EQ(n, 2);
	if (n == 2) {
		CHECK(strstr(d[0], "c.new: got WARN, which the baseline does not list (a regression)") != NULL);
		CHECK(strstr(d[1], "a.same-rule: expected FAIL after the DUT's {Terminate LLP/0x0/0x22 (unknown MPA "
				   "error)}") && strstr(d[1], "got FAIL after {Send}"));
	}
	CHECK_EQ(b.ndiff[IW_DIFF_REGRESSION], 1);
	CHECK_EQ(b.ndiff[IW_DIFF_CHANGED], 1);
	iw_baseline_diffs_free(d, n);
	iw_baseline_free(&b);
	/* Either rule of a race holds: [A|B]. */
	static const char two_rules[] = "b.race FAIL : [RFC5040-4.8-10|RFC5040-7.1-02] {Terminate RDMAP/0x2/0x00|FIN} F18\n";
	CHECK_EQ(iw_baseline_parse(&b, two_rules, sizeof two_rules - 1, "b", &e), IW_OK);
	n = compare(&b, run, &d);
	CHECK(!any_diff(d, n, "b.race"));
	iw_baseline_diffs_free(d, n);
	iw_baseline_free(&b);
	/* Either outcome of a race holds. */
	snprintf(r->outcome, sizeof r->outcome, "Terminate RDMAP/0x2/0x00");
	CHECK_EQ(iw_baseline_parse(&b, base, sizeof base - 1, "b", &e), IW_OK);
	n = compare(&b, run, &d);
	CHECK(!any_diff(d, n, "b.race"));
	iw_baseline_diffs_free(d, n);
	iw_baseline_free(&b);
	/* Written and read back: pinned, no difference; a bad pin is a usage error. */
	char path[256];
	snprintf(path, sizeof path, "%s/base.txt", dir);
	CHECK_EQ(iw_baseline_write(run, path, &e), 0);
	char *t = rp_read_file(path, NULL);
	CHECK(rc_contains(t, "a.same-rule FAIL : [RFC5040-4.8-08] {Send} expected a Terminate"));
	free(t);
	CHECK_EQ(iw_baseline_load(&b, path, &e), IW_OK);
	n = iw_baseline_compare(&b, run, &d);
	CHECK_EQ(n, 0);
	iw_baseline_diffs_free(d, n);
	iw_baseline_free(&b);
	static const char bad[] = "a.same-rule FAIL : [RFC5040-4.8-08] {Send\n";
	CHECK_EQ(iw_baseline_parse(&b, bad, sizeof bad - 1, "b", &e), IW_EINVAL);
	CHECK(strstr(e.msg, "b:1: a pinned outcome is written {OUTCOME}") != NULL);
	iw_run_free(run);
	free(run);
	rp_rm_rf(dir);
}
