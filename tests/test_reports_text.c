/*
 * test_reports_text.c - the text helpers every report uses (report_text.h: XML escaping,
 * console-safe and UTF-8-safe text, times) and the console: the progress line, on a TTY and
 * not, and the summary, with DUT text that tries to inject escapes.
 */
#include "report_fixture.h"

#include <stdlib.h>

#include "report.h"
#include "report_text.h"

/* ---- text helpers ------------------------------------------------------------------ */

/* A string literal and its length, NULs inside included. */
#define LIT(s) (s), (sizeof(s) - 1)

TEST(reports_xml_escape)
{
	char *t = iw_text_xml(LIT("a<b>&\"'"), false);
	CHECK_STR(t, "a&lt;b&gt;&amp;\"'");
	free(t);
	t = iw_text_xml(LIT("a<b>&\"'\t\n\r"), true);
	CHECK_STR(t, "a&lt;b&gt;&amp;&quot;&apos;&#9;&#10;&#13;");
	free(t);
	t = iw_text_xml(LIT("x\x01y\x1b\x7f"), false);
	CHECK_STR(t, "x\\x01y\\x1b\x7f");       /* DEL is a legal XML 1.0 character */
	free(t);
	t = iw_text_xml(LIT("\xff|\xef\xbf\xbe|\xc0\xaf|\xed\xa0\x80|\xe2\x82"), false);
	CHECK_STR(t, "\xEF\xBF\xBD|\xEF\xBF\xBD|\xEF\xBF\xBD\xEF\xBF\xBD|\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD|"
		     "\xEF\xBF\xBD\xEF\xBF\xBD");
	free(t);
	/* Valid multi-octet text passes unchanged: "é€😀". */
	t = iw_text_xml(LIT("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), true);
	CHECK_STR(t, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	free(t);
	/* An embedded NUL cannot reach XML either. */
	t = iw_text_xml(LIT("a\0b"), false);
	CHECK_STR(t, "a\\x00b");
	free(t);
}

TEST(reports_text_console_and_utf8)
{
	char *t = iw_text_console(LIT("id\x1b]0;pwned\x07 \xc2\x9b" "2J\n\tok"));
	CHECK_STR(t, "id\\x1b]0;pwned\\x07 \xEF\xBF\xBD" "2J\n\tok");
	free(t);
	t = iw_text_utf8(LIT("ok\xff\x01"));
	CHECK_STR(t, "ok\xEF\xBF\xBD\x01");
	free(t);
	char buf[40];
	iw_text_time(1714566896789LL, true, buf, sizeof buf);
	CHECK_STR(buf, "2024-05-01T12:34:56.789Z");
	iw_text_time(1714566896789LL, false, buf, sizeof buf);
	CHECK_STR(buf, "2024-05-01T12:34:56");
	iw_text_time(-1, true, buf, sizeof buf);
	CHECK_STR(buf, "1969-12-31T23:59:59.999Z");
}

/* ---- console -------------------------------------------------------------------------- */

TEST(reports_console_progress)
{
	iw_case_result *r = calloc(1, sizeof *r);
	if (!r)
		return;
	snprintf(r->id, sizeof r->id, "mpa.startup.req.happy-path");
	r->duration_ms = 12;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		free(r);
		return;
	}
	iw_console_progress(f, false, 37, 120, r);
	r->verdict = IW_ERROR;
	iw_console_progress(f, false, 120, 120, r);
	r->verdict = IW_PASS;
	iw_console_progress(f, false, 3, 9, r);
	fclose(f);
	CHECK_STR(buf, "[ 37/120] PASS  mpa.startup.req.happy-path  (12 ms)\n"
		       "[120/120] ERROR mpa.startup.req.happy-path  (12 ms)\n"
		       "[3/9] PASS  mpa.startup.req.happy-path  (12 ms)\n");
	free(buf);

	/* On a TTY: the line rewrites itself, stays for FAIL, and an id cannot inject escapes. */
	setenv("NO_COLOR", "1", 1);
	f = open_memstream(&buf, &len);
	if (!f) {
		free(r);
		return;
	}
	iw_console_progress(f, true, 1, 3, r);
	r->verdict = IW_FAIL;
	snprintf(r->id, sizeof r->id, "evil\x1b]0;pwned\x07");
	iw_console_progress(f, true, 2, 3, r);
	iw_console_progress_end(f, true);
	fclose(f);
	CHECK_STR(buf, "\r\033[K[1/3] PASS  mpa.startup.req.happy-path  (12 ms)"
		       "\r\033[K[2/3] FAIL  evil\\x1b]0;pwned\\x07  (12 ms)\n"
		       "\r\033[K");
	free(buf);

	unsetenv("NO_COLOR");
	f = open_memstream(&buf, &len);
	if (f) {
		iw_console_progress(f, true, 3, 3, r);
		fclose(f);
		CHECK(strstr(buf, "\033[1;31mFAIL \033[0m") != NULL);
		CHECK(buf[strlen(buf) - 1] == '\n');     /* the last case ends the live line */
		free(buf);
	}
	free(r);
}

TEST(reports_console_summary)
{
	iw_run run;
	rp_make_run(&run);
	snprintf(run.cases[2].reason, sizeof run.cases[2].reason, "first line\nsecond \x1b[2J line");
	run.complete = false;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		iw_run_free(&run);
		return;
	}
	iw_console_summary(f, &run, "out/latest");
	fclose(f);
	CHECK(strstr(buf, "iwspec 0.1.0 (abc1234) against tcp:10.0.0.2:5000\n") != NULL);
	CHECK(strstr(buf, "profile rfc5044, DUT role responder, segmentation whole, seed 42\n") != NULL);
	CHECK(strstr(buf, "6 cases in 2.500 s (interrupted: the run is incomplete)\n") != NULL);
	static const char *const rows[] = {
		"  PASS         1\n", "  FAIL         1\n", "  WARN         1\n", "  INFO         1\n",
		"  SKIP         1\n", "  ERROR        1\n", "  total        6\n",
	};
	for (size_t k = 0; k < 7; k++)
		CHECK(strstr(buf, rows[k]) != NULL);
	const char *fl = strstr(buf, "  FAIL  mpa.startup.req.bad-key  [MPA-6.1-R5: MUST, 004 §6.1 rule 5]\n"
				     "        expected close within 1000 ms, saw FPDU ULPDU_Length=20\n");
	const char *er = strstr(buf, "  ERROR ddp.tagged.bounds.write\n        connect: Connection refused\n");
	const char *wr = strstr(buf, "  WARN  mpa.startup.reply.rst-after-reject  [MPA-6.1-R2e: MUST, 004 §6.1 rule 2]\n"
				     "        first line\n        second \\x1b[2J line\n");
	CHECK(fl != NULL);
	CHECK(er != NULL);
	CHECK(wr != NULL);
	CHECK(fl && er && wr && fl < er && er < wr);      /* most serious first */
	CHECK(strstr(buf, "happy-path") == NULL);         /* PASS cases are not listed */
	CHECK(strstr(buf, "needs markers") == NULL);      /* nor SKIP */
	CHECK(strstr(buf, "  ddp.tagged.bounds.write: killed by signal 11\n    stderr: boom\n") != NULL);
	CHECK(strstr(buf, "  reports: out/latest/results.json, out/latest/junit.xml\n") != NULL);
	CHECK(memchr(buf, 0x1b, len) == NULL);
	free(buf);

	f = open_memstream(&buf, &len);
	if (f) {
		iw_console_summary(f, &run, NULL);
		fclose(f);
		CHECK(strstr(buf, "reports: none written") != NULL);
		free(buf);
	}
	iw_run_free(&run);
}
