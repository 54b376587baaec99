/*
 * test_reports.c - result bookkeeping, results.json, junit.xml, the console, atomic writes.
 *
 * The reports are what a lab hands out, so the tests read them back the way their users do:
 * results.json through jansson, junit.xml through xmllint when it is installed and always
 * through a strict structural check of our own, with hostile DUT text in every field.
 */
#include "check.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "report.h"
#include "report_text.h"
#include "result.h"

/* ---- scratch files ---------------------------------------------------------------- */

static char *scratch_dir(void)
{
	static char tmpl[64];
	snprintf(tmpl, sizeof tmpl, "/tmp/iwspec-reports-XXXXXX");
	return mkdtemp(tmpl);
}

static void rm_rf(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		chmod(path, 0700);
		DIR *d = opendir(path);
		if (d) {
			struct dirent *de;
			while ((de = readdir(d))) {
				if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
					continue;
				char sub[1024];
				snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
				rm_rf(sub);
			}
			closedir(d);
		}
		rmdir(path);
	} else {
		unlink(path);
	}
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *b = malloc(cap + 1);
	size_t got;
	while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *nb = realloc(b, cap * 2 + 1);
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (b)
		b[n] = '\0';
	if (len)
		*len = n;
	return b;
}

/* Entries of dir other than . and .., and how many of them look like our temp files. */
static int count_entries(const char *dir, int *ntmp)
{
	int n = 0;
	*ntmp = 0;
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		size_t l = strlen(de->d_name);
		if (de->d_name[0] == '.' && l > 4 && !strcmp(de->d_name + l - 4, ".tmp"))
			(*ntmp)++;
	}
	closedir(d);
	return n;
}

static bool have_xmllint(void)
{
	return system("command -v xmllint >/dev/null 2>&1") == 0;
}

static bool xmllint_ok(const char *path)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "xmllint --noout '%s' 2>/dev/null", path);
	return system(cmd) == 0;
}

/* ---- a strict structural XML check -------------------------------------------------
 * Not a full parser: it accepts exactly the subset junit.xml uses (a declaration, elements,
 * attributes in double quotes, text, the five entities and numeric references) and rejects
 * anything else, so it fails on the mistakes an escaping bug would make. */

static bool xml_entity(const char **pp)
{
	const char *p = *pp;    /* at '&' */
	static const char *const ents[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&apos;" };
	for (size_t i = 0; i < 5; i++)
		if (!strncmp(p, ents[i], strlen(ents[i]))) {
			*pp = p + strlen(ents[i]);
			return true;
		}
	if (p[1] != '#')
		return false;
	p += 2;
	unsigned long v = 0;
	bool hex = *p == 'x';
	if (hex)
		p++;
	const char *start = p;
	while (hex ? strchr("0123456789abcdefABCDEF", *p) && *p : (*p >= '0' && *p <= '9'))
		v = v * (hex ? 16 : 10) + (unsigned long)(*p <= '9' ? *p - '0' : (*p | 32) - 'a' + 10), p++;
	if (p == start || *p != ';')
		return false;
	/* References may not name what XML 1.0 forbids either. */
	if (v < 0x20 && v != 9 && v != 10 && v != 13)
		return false;
	*pp = p + 1;
	return true;
}

static bool xml_name(const char **pp, char *out, size_t cap)
{
	const char *p = *pp;
	size_t n = 0;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
	       *p == '_' || *p == '.' || *p == ':') {
		if (n + 1 < cap)
			out[n++] = *p;
		p++;
	}
	out[n] = '\0';
	*pp = p;
	return n > 0;
}

static bool xml_chars_ok(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		bool ok;
		size_t k = iw_utf8_next(u + i, n - i, &cp, &ok);
		if (!ok || (cp < 0x20 && cp != 9 && cp != 10 && cp != 13) || cp == 0xFFFE || cp == 0xFFFF)
			return false;
		i += k;
	}
	return true;
}

static bool xml_wellformed(const char *s, char *why, size_t wcap)
{
#define BAD(msg) do { snprintf(why, wcap, "%s at offset %ld", msg, (long)(p - s)); return false; } while (0)
	const char *p = s;
	char stack[32][64];
	int depth = 0, roots = 0;
	if (!xml_chars_ok(s, strlen(s)))
		BAD("invalid character (control or bad UTF-8)");
	if (strncmp(p, "<?xml ", 6))
		BAD("no declaration");
	p = strstr(p, "?>");
	if (!p)
		BAD("unterminated declaration");
	p += 2;
	while (*p) {
		if (*p == '<' && p[1] == '/') {
			char name[64];
			p += 2;
			if (!xml_name(&p, name, sizeof name) || *p != '>')
				BAD("bad end tag");
			p++;
			if (depth == 0 || strcmp(stack[depth - 1], name))
				BAD("mismatched end tag");
			depth--;
		} else if (*p == '<') {
			char name[64], attrs[32][64];
			int nattrs = 0;
			p++;
			if (!xml_name(&p, name, sizeof name))
				BAD("bad start tag");
			if (depth == 0 && ++roots > 1)
				BAD("second root element");
			for (;;) {
				bool space = false;
				while (*p == ' ' || *p == '\n' || *p == '\t')
					p++, space = true;
				if (*p == '>' || (*p == '/' && p[1] == '>'))
					break;
				if (!space || !xml_name(&p, attrs[nattrs], sizeof attrs[0]))
					BAD("bad attribute name");
				for (int k = 0; k < nattrs; k++)
					if (!strcmp(attrs[k], attrs[nattrs]))
						BAD("duplicate attribute");
				if (nattrs < 31)
					nattrs++;
				if (p[0] != '=' || p[1] != '"')
					BAD("attribute value not in double quotes");
				p += 2;
				while (*p != '"') {
					if (!*p || *p == '<' || *p == '>')
						BAD("raw < or > in attribute or unterminated value");
					if (*p == '&') {
						if (!xml_entity(&p))
							BAD("bad entity in attribute");
					} else if (*p == '\n' || *p == '\t' || *p == '\r') {
						BAD("raw whitespace control in attribute (would be normalised)");
					} else {
						p++;
					}
				}
				p++;
			}
			if (*p == '/') {
				p += 2;
			} else {
				p++;
				if (depth == 32)
					BAD("too deep");
				snprintf(stack[depth++], sizeof stack[0], "%s", name);
			}
		} else if (*p == '&') {
			if (!xml_entity(&p))
				BAD("bad entity in text");
		} else if (*p == '>') {
			BAD("raw > in text");
		} else {
			if (depth == 0 && *p != '\n' && *p != ' ')
				BAD("text outside the root element");
			p++;
		}
	}
	if (depth != 0)
		BAD("unclosed element");
	if (roots != 1)
		BAD("no root element");
	return true;
#undef BAD
}

/* ---- a run with one case of every verdict ---------------------------------------- */

#define HOSTILE "q\"uo'te <tag> & amp; \x01\x1b[31m \xff\xfe bad \xc0\xaf ]]> end"

static iw_case_result *add_case(iw_run *run, const char *id, enum iw_verdict v, const char *reason)
{
	iw_case_result *r = iw_run_add(run);
	if (!r)
		return NULL;
	snprintf(r->id, sizeof r->id, "%s", id);
	snprintf(r->title, sizeof r->title, "title of %s", id);
	snprintf(r->file, sizeof r->file, "cases/mpa/6.1/%s.iwt", id);
	snprintf(r->profile, sizeof r->profile, "rfc5044");
	r->nreqs = 2;
	snprintf(r->reqs[0].id, sizeof r->reqs[0].id, "MPA-6.1-R5");
	r->reqs[0].level = IW_LEVEL_MUST;
	snprintf(r->reqs[1].id, sizeof r->reqs[1].id, "MPA-6.1.1-02");
	r->reqs[1].level = IW_LEVEL_SHOULD;
	r->verdict = v;
	snprintf(r->reason, sizeof r->reason, "%s", reason);
	r->start_unix_ms = 1714566896789LL;     /* 2024-05-01T12:34:56.789Z */
	r->duration_ms = 12;
	return r;
}

static void make_run(iw_run *run)
{
	memset(run, 0, sizeof *run);
	snprintf(run->tool_version, sizeof run->tool_version, "0.1.0");
	snprintf(run->git_rev, sizeof run->git_rev, "abc1234");
	snprintf(run->dut, sizeof run->dut, "tcp:10.0.0.2:5000");
	snprintf(run->dut_config_source, sizeof run->dut_config_source, "duts/lab.conf");
	snprintf(run->profile, sizeof run->profile, "rfc5044");
	snprintf(run->role, sizeof run->role, "responder");
	snprintf(run->host, sizeof run->host, "lab-7");
	snprintf(run->seg_mode, sizeof run->seg_mode, "whole");
	run->seed = 42;
	run->start_unix_ms = 1714566896000LL;
	run->end_unix_ms = 1714566898500LL;
	run->complete = true;

	add_case(run, "mpa.startup.req.happy-path", IW_PASS, "");
	iw_case_result *f = add_case(run, "mpa.startup.req.bad-key", IW_FAIL,
				     "expected close within 1000 ms, saw FPDU ULPDU_Length=20");
	snprintf(f->failed_req, sizeof f->failed_req, "MPA-6.1-R5");
	static const uint8_t req[] = { 0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52 };
	iw_result_wire(f, IW_TO_DUT, 1, 150, "request", req, sizeof req, "Request key=bad M=0 C=1 Rev=%d", 1);
	iw_result_wire(f, IW_FROM_DUT, 1, 2300, "fpdu", (const uint8_t *)"\x00\x14\xab", 3, "FPDU len=20");
	iw_result_wire(f, IW_NOTE, 1, 2400, "note", NULL, 0, "oracle: no close seen");
	iw_case_result *w = add_case(run, "mpa.startup.reply.rst-after-reject", IW_WARN,
				     "RST 3 ms after R=1 (A10: warning)");
	snprintf(w->failed_req, sizeof w->failed_req, "MPA-6.1-R2e");
	iw_case_result *i = add_case(run, "mpa.startup.timeout.reply", IW_INFO, "closed after 1500 ms");
	i->nmeasures = 1;
	snprintf(i->measures[0].name, sizeof i->measures[0].name, "close_after_bad_request_ms");
	i->measures[0].value = 1500.5;
	snprintf(i->measures[0].unit, sizeof i->measures[0].unit, "ms");
	add_case(run, "mpa.markers.recv.basic", IW_SKIP, "needs markers");
	iw_case_result *er = add_case(run, "ddp.tagged.bounds.write", IW_ERROR, "connect: Connection refused");
	er->dut_finding = true;
	snprintf(er->dut_finding_text, sizeof er->dut_finding_text, "killed by signal 11\nstderr: boom");
	er->nmappings = 1;
	snprintf(er->mappings[0], sizeof er->mappings[0], "LLP error type 3 read as 0");
}

/* ---- results bookkeeping --------------------------------------------------------- */

TEST(reports_verdict_names)
{
	CHECK_STR(iw_verdict_name(IW_PASS), "PASS");
	CHECK_STR(iw_verdict_name(IW_FAIL), "FAIL");
	CHECK_STR(iw_verdict_name(IW_WARN), "WARN");
	CHECK_STR(iw_verdict_name(IW_INFO), "INFO");
	CHECK_STR(iw_verdict_name(IW_SKIP), "SKIP");
	CHECK_STR(iw_verdict_name(IW_ERROR), "ERROR");
	CHECK_STR(iw_verdict_name(IW_VERDICT_COUNT), "?");
	CHECK_STR(iw_verdict_name((enum iw_verdict)-1), "?");
}

TEST(reports_run_add_and_count)
{
	iw_run run;
	memset(&run, 0, sizeof run);
	for (int k = 0; k < 100; k++) {
		iw_case_result *r = iw_run_add(&run);
		CHECK(r != NULL);
		if (!r)
			return;
		CHECK_EQ(r->nwire, 0);
		CHECK_EQ(r->id[0], 0);
		r->verdict = (enum iw_verdict)(k % IW_VERDICT_COUNT);
		snprintf(r->id, sizeof r->id, "case.%d", k);
	}
	CHECK_EQ(run.ncases, 100);
	CHECK_STR(run.cases[99].id, "case.99");
	iw_run_count(&run);
	CHECK_EQ(run.counts[IW_PASS], 17);
	CHECK_EQ(run.counts[IW_FAIL], 17);
	CHECK_EQ(run.counts[IW_WARN], 17);
	CHECK_EQ(run.counts[IW_INFO], 17);
	CHECK_EQ(run.counts[IW_SKIP], 16);
	CHECK_EQ(run.counts[IW_ERROR], 16);
	/* A corrupt verdict is shown and counted as ERROR, never lost. */
	run.cases[0].verdict = (enum iw_verdict)77;
	iw_run_count(&run);
	CHECK_EQ(run.counts[IW_PASS], 16);
	CHECK_EQ(run.counts[IW_ERROR], 17);
	iw_result_wire(&run.cases[3], IW_TO_DUT, 1, 0, "raw", (const uint8_t *)"ab", 2, "x");
	iw_run_free(&run);
	CHECK_EQ(run.ncases, 0);
	CHECK(run.cases == NULL);
	CHECK_EQ(run.counts[IW_ERROR], 0);
}

TEST(reports_result_wire_copies)
{
	iw_case_result *r = calloc(1, sizeof *r);
	if (!r)
		return;
	uint8_t b[4] = { 1, 2, 3, 4 };
	iw_result_wire(r, IW_FROM_DUT, 2, -5, "a-what-name-longer-than-24-octets", b, sizeof b, "PD_Length=%u", 7u);
	b[0] = 9;       /* the log keeps its own copy */
	iw_result_wire(r, IW_NOTE, 0, 10, NULL, NULL, 5, NULL);
	CHECK_EQ(r->nwire, 2);
	CHECK_EQ(r->wire[0].dir, IW_FROM_DUT);
	CHECK_EQ(r->wire[0].conn, 2);
	CHECK_EQ(r->wire[0].t_us, -5);
	CHECK_EQ(strlen(r->wire[0].what), sizeof r->wire[0].what - 1);
	CHECK_STR(r->wire[0].summary, "PD_Length=7");
	CHECK_EQ(r->wire[0].nbytes, 4);
	CHECK_MEM(r->wire[0].bytes, "\x01\x02\x03\x04", 4);
	CHECK(r->wire[1].bytes == NULL);
	CHECK_EQ(r->wire[1].nbytes, 0);
	CHECK_STR(r->wire[1].what, "");
	CHECK_EQ(r->wire_dropped, 0);
	iw_result_clear_wire(r);
	CHECK_EQ(r->nwire, 0);
	CHECK(r->wire == NULL);
	free(r);
}

TEST(reports_result_wire_truncates_past_4096)
{
	iw_case_result *r = calloc(1, sizeof *r);
	if (!r)
		return;
	for (int k = 0; k < 5000; k++)
		iw_result_wire(r, k & 1 ? IW_FROM_DUT : IW_TO_DUT, 1, k, "raw", (const uint8_t *)&k, sizeof k,
			       "event %d", k);
	CHECK_EQ(r->nwire, IW_RESULT_MAX_WIRE + 1);
	CHECK_EQ(r->wire_dropped, 5000 - IW_RESULT_MAX_WIRE);
	CHECK_STR(r->wire[IW_RESULT_MAX_WIRE - 1].summary, "event 4095");
	const iw_wire_entry *note = &r->wire[IW_RESULT_MAX_WIRE];
	CHECK_EQ(note->dir, IW_NOTE);
	CHECK(strstr(note->summary, "truncated") != NULL);
	CHECK_EQ(note->t_us, 4096);
	int notes = 0;
	for (size_t k = 0; k < r->nwire; k++)
		notes += r->wire[k].dir == IW_NOTE;
	CHECK_EQ(notes, 1);
	iw_result_clear_wire(r);
	free(r);
}

TEST(reports_result_set_case)
{
	iw_case *c = calloc(1, sizeof *c);
	iw_case_result *r = calloc(1, sizeof *r);
	if (c && r) {
		snprintf(c->id, sizeof c->id, "ddp.untagged.dv.zero");
		snprintf(c->title, sizeof c->title, "DV 0 is refused");
		snprintf(c->file, sizeof c->file, "cases/ddp/6.1/dv.iwt");
		c->nreqs = 1;
		snprintf(c->reqs[0].id, sizeof c->reqs[0].id, "DDP-6.1-08");
		c->reqs[0].level = IW_LEVEL_MUST;
		iw_result_set_case(r, c);
		CHECK_STR(r->id, "ddp.untagged.dv.zero");
		CHECK_STR(r->title, "DV 0 is refused");
		CHECK_STR(r->file, "cases/ddp/6.1/dv.iwt");
		CHECK_EQ(r->nreqs, 1);
		CHECK_STR(r->reqs[0].id, "DDP-6.1-08");
	}
	free(c);
	free(r);
}

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

TEST(reports_xml_checker_rejects_bad_xml)
{
	/* The structural check must be able to fail, or the JUnit tests prove nothing. */
	char why[128];
	CHECK(xml_wellformed("<?xml version=\"1.0\"?>\n<a x=\"1\"><b/>t &amp; &#10;</a>\n", why, sizeof why));
	CHECK(!xml_wellformed("<?xml version=\"1.0\"?>\n<a><b></a></b>\n", why, sizeof why));
	CHECK(!xml_wellformed("<?xml version=\"1.0\"?>\n<a x=\"1\" x=\"2\"/>\n", why, sizeof why));
	CHECK(!xml_wellformed("<?xml version=\"1.0\"?>\n<a>R&D</a>\n", why, sizeof why));
	CHECK(!xml_wellformed("<?xml version=\"1.0\"?>\n<a x=\"<\"/>\n", why, sizeof why));
	CHECK(!xml_wellformed("<?xml version=\"1.0\"?>\n<a x=\"\"\"/>\n", why, sizeof why));
	CHECK(!xml_wellformed("<?xml version=\"1.0\"?>\n<a>\x01</a>\n", why, sizeof why));
	CHECK(!xml_wellformed("<?xml version=\"1.0\"?>\n<a>\xff</a>\n", why, sizeof why));
	CHECK(!xml_wellformed("<?xml version=\"1.0\"?>\n<a>&#1;</a>\n", why, sizeof why));
	CHECK(!xml_wellformed("<?xml version=\"1.0\"?>\n<a></a><b/>\n", why, sizeof why));
	CHECK(!xml_wellformed("<?xml version=\"1.0\"?>\n<a>\n", why, sizeof why));
}

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
	char *dir = scratch_dir();
	CHECK(dir != NULL);
	if (!dir)
		return;
	iw_run run;
	make_run(&run);
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
	CHECK_EQ(count_entries(path, &ntmp), 1);
	CHECK_EQ(ntmp, 0);
out:
	iw_run_free(&run);
	rm_rf(dir);
}

TEST(reports_json_hex_cap_and_hostile_text)
{
	char *dir = scratch_dir();
	if (!dir)
		return;
	iw_run run;
	memset(&run, 0, sizeof run);
	run.seed = UINT64_MAX;
	snprintf(run.dut, sizeof run.dut, "exec:'%s'", HOSTILE);
	iw_case_result *r = add_case(&run, "fuzz.mpa.big", IW_FAIL, HOSTILE);
	uint8_t *big = malloc(40000);
	if (!r || !big) {
		free(big);
		iw_run_free(&run);
		rm_rf(dir);
		return;
	}
	for (size_t k = 0; k < 40000; k++)
		big[k] = (uint8_t)(k * 7);
	iw_result_wire(r, IW_FROM_DUT, 1, 1, "raw", big, 40000, "%s", HOSTILE);
	iw_result_wire(r, IW_FROM_DUT, 1, 2, "raw", big, IW_REPORT_HEX_MAX / 2, "exactly the cap");
	free(big);
	r->nmeasures = 2;
	snprintf(r->measures[0].name, sizeof r->measures[0].name, "nan");
	r->measures[0].value = NAN;
	snprintf(r->measures[1].name, sizeof r->measures[1].name, "inf");
	r->measures[1].value = INFINITY;
	r->dut_finding = true;
	snprintf(r->dut_finding_text, sizeof r->dut_finding_text, "%s", HOSTILE);

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
	rm_rf(dir);
}

TEST(reports_json_wire_truncation_and_empty_run)
{
	char *dir = scratch_dir();
	if (!dir)
		return;
	iw_run run;
	memset(&run, 0, sizeof run);
	iw_case_result *r = add_case(&run, "fuzz.mpa.flood", IW_FAIL, "flood");
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
	rm_rf(dir);
}

/* ---- junit.xml ------------------------------------------------------------------------ */

static int count_str(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void check_xml_file(const char *path, const char *xml)
{
	char why[160] = "";
	bool ok = xml_wellformed(xml, why, sizeof why);
	CHECK(ok);
	if (!ok)
		fprintf(stderr, "  %s: %s\n", path, why);
	if (have_xmllint())
		CHECK(xmllint_ok(path));
}

TEST(reports_junit_every_verdict)
{
	char *dir = scratch_dir();
	if (!dir)
		return;
	iw_run run;
	make_run(&run);
	char path[256];
	snprintf(path, sizeof path, "%s/junit.xml", dir);
	iw_err e = {{0}};
	CHECK_EQ(iw_report_junit(&run, path, &e), 0);
	char *x = read_file(path, NULL);
	CHECK(x != NULL);
	if (x) {
		check_xml_file(path, x);
		CHECK(strstr(x, "<testsuites name=\"iwspec\" tests=\"6\" failures=\"1\" errors=\"1\" skipped=\"1\""
				" time=\"2.500\">") != NULL);
		CHECK(strstr(x, "<testsuite name=\"iwspec\" tests=\"6\" failures=\"1\" errors=\"1\" skipped=\"1\""
				" time=\"2.500\" timestamp=\"2024-05-01T12:34:56\" hostname=\"lab-7\">") != NULL);
		CHECK(strstr(x, "<property name=\"dut\" value=\"tcp:10.0.0.2:5000\"/>") != NULL);
		CHECK(strstr(x, "<property name=\"seed\" value=\"42\"/>") != NULL);
		CHECK(strstr(x, "<property name=\"count.warn\" value=\"1\"/>") != NULL);
		CHECK(strstr(x, "<testcase classname=\"iwspec.mpa.startup\" name=\"mpa.startup.req.happy-path\""
				" time=\"0.012\"") != NULL);
		CHECK(strstr(x, "classname=\"iwspec.ddp.tagged\" name=\"ddp.tagged.bounds.write\"") != NULL);
		CHECK(strstr(x, "<failure message=\"expected close within 1000 ms, saw FPDU ULPDU_Length=20\""
				" type=\"FAIL\">") != NULL);
		CHECK(strstr(x, "requirement: MPA-6.1-R5\n") != NULL);
		CHECK(strstr(x, "c1 -&gt; request  Request key=bad M=0 C=1 Rev=1 [8 octets]") != NULL);
		CHECK(strstr(x, "c1 &lt;- fpdu     FPDU len=20") != NULL);
		CHECK(strstr(x, "<error message=\"connect: Connection refused\" type=\"ERROR\">") != NULL);
		CHECK(strstr(x, "<skipped message=\"needs markers\"/>") != NULL);
		CHECK(strstr(x, "<system-out>verdict: WARN\n") != NULL);
		CHECK(strstr(x, "reason: RST 3 ms after R=1 (A10: warning)\n") != NULL);
		CHECK(strstr(x, "<system-out>verdict: INFO\n") != NULL);
		CHECK(strstr(x, "measure: close_after_bad_request_ms = 1500.5 ms\n") != NULL);
		CHECK(strstr(x, "<system-err>DUT finding: killed by signal 11\nstderr: boom\n</system-err>") != NULL);
		/* Exactly one failure, one error and one skipped element; PASS has no system-out. */
		CHECK_EQ(count_str(x, "<failure "), 1);
		CHECK_EQ(count_str(x, "<error "), 1);
		CHECK_EQ(count_str(x, "<skipped "), 1);
		CHECK_EQ(count_str(x, "<testcase "), 6);
		CHECK_EQ(count_str(x, "</testcase>"), 5);     /* a plain PASS closes itself */
		CHECK_EQ(count_str(x, "<system-out>"), 2);
		CHECK(strstr(x, "name=\"mpa.startup.req.happy-path\" time=\"0.012\""
				" file=\"cases/mpa/6.1/mpa.startup.req.happy-path.iwt\"/>\n") != NULL);
	}
	free(x);
	iw_run_free(&run);
	rm_rf(dir);
}

TEST(reports_junit_hostile_strings)
{
	char *dir = scratch_dir();
	if (!dir)
		return;
	iw_run run;
	make_run(&run);
	snprintf(run.host, sizeof run.host, "%s", HOSTILE);
	snprintf(run.dut, sizeof run.dut, "%s", HOSTILE);
	for (size_t k = 0; k < run.ncases; k++) {
		iw_case_result *r = &run.cases[k];
		snprintf(r->id, sizeof r->id, "a\"b.c<d.%s", HOSTILE);
		snprintf(r->title, sizeof r->title, "%s", HOSTILE);
		snprintf(r->reason, sizeof r->reason, "%s\n\tline two", HOSTILE);
		snprintf(r->failed_req, sizeof r->failed_req, "R&D<1>");
		r->nmeasures = 1;
		snprintf(r->measures[0].name, sizeof r->measures[0].name, "%s", HOSTILE);
		snprintf(r->measures[0].unit, sizeof r->measures[0].unit, "<&>");
		iw_result_wire(r, IW_FROM_DUT, 1, 5, "<raw>", (const uint8_t *)"\x00", 1, "%s", HOSTILE);
		r->dut_finding = true;
		snprintf(r->dut_finding_text, sizeof r->dut_finding_text, "%s", HOSTILE);
	}
	char path[256];
	snprintf(path, sizeof path, "%s/junit.xml", dir);
	iw_err e = {{0}};
	CHECK_EQ(iw_report_junit(&run, path, &e), 0);
	size_t n = 0;
	char *x = read_file(path, &n);
	CHECK(x != NULL);
	if (x) {
		check_xml_file(path, x);
		CHECK_EQ(strlen(x), n);         /* no NUL octet */
		CHECK(memchr(x, 0x01, n) == NULL);
		CHECK(memchr(x, 0x1b, n) == NULL);
		CHECK(memchr(x, 0xff, n) == NULL);
		CHECK(strstr(x, "classname=\"iwspec.a&quot;b.c&lt;d\"") != NULL);
		CHECK(strstr(x, "message=\"q&quot;uo&apos;te &lt;tag&gt; &amp; amp; \\x01\\x1b[31m "
				"\xEF\xBF\xBD\xEF\xBF\xBD bad \xEF\xBF\xBD\xEF\xBF\xBD ]]&gt; end&#10;&#9;line two\"") != NULL);
		CHECK(strstr(x, "reason: q\"uo'te &lt;tag&gt; &amp; amp; \\x01\\x1b[31m") != NULL);
		CHECK(strstr(x, "requirement: R&amp;D&lt;1&gt;") != NULL);
		CHECK(strstr(x, "hostname=\"q&quot;uo&apos;te") != NULL);
		CHECK(strstr(x, "]]>") == NULL);
	}
	free(x);
	iw_run_free(&run);
	rm_rf(dir);
}

/* ---- atomic writes ---------------------------------------------------------------------- */

TEST(reports_atomic_creates_missing_dirs)
{
	char *dir = scratch_dir();
	if (!dir)
		return;
	char sub[256], path[320];
	snprintf(sub, sizeof sub, "%s/a/b//c", dir);
	snprintf(path, sizeof path, "%s/out.txt", sub);
	iw_err e = {{0}};
	CHECK_EQ(iw_write_atomic(path, "hello\n", 6, &e), 0);
	size_t n;
	char *got = read_file(path, &n);
	CHECK(got && n == 6 && !memcmp(got, "hello\n", 6));
	free(got);
	int ntmp;
	CHECK_EQ(count_entries(sub, &ntmp), 1);
	CHECK_EQ(ntmp, 0);
	/* Replacing keeps one file with the new content, nothing else. */
	CHECK_EQ(iw_write_atomic(path, "new content", 11, &e), 0);
	got = read_file(path, &n);
	CHECK(got && n == 11 && !memcmp(got, "new content", 11));
	free(got);
	CHECK_EQ(count_entries(sub, &ntmp), 1);
	CHECK_EQ(ntmp, 0);
	/* An empty file is a file too. */
	CHECK_EQ(iw_write_atomic(path, NULL, 0, &e), 0);
	got = read_file(path, &n);
	CHECK(got && n == 0);
	free(got);
	rm_rf(dir);
}

TEST(reports_atomic_unwritable_location)
{
	char *dir = scratch_dir();
	if (!dir)
		return;
	char file[256], path[300];
	snprintf(file, sizeof file, "%s/plain", dir);
	CHECK_EQ(iw_write_atomic(file, "x", 1, NULL), 0);
	snprintf(path, sizeof path, "%s/sub/results.json", file);
	iw_err e = {{0}};
	CHECK(iw_write_atomic(path, "data", 4, &e) != 0);
	CHECK(strstr(e.msg, file) != NULL);
	CHECK(strstr(e.msg, strerror(ENOTDIR)) != NULL);

	/* The target is a directory: the rename fails, the temp file goes, the directory stays. */
	char d2[256];
	snprintf(d2, sizeof d2, "%s/isdir", dir);
	CHECK_EQ(mkdir(d2, 0755), 0);
	memset(&e, 0, sizeof e);
	CHECK(iw_write_atomic(d2, "data", 4, &e) != 0);
	CHECK(strstr(e.msg, d2) != NULL);
	CHECK(strstr(e.msg, strerror(EISDIR)) != NULL);
	struct stat st;
	CHECK(stat(d2, &st) == 0 && S_ISDIR(st.st_mode));
	int ntmp;
	CHECK_EQ(count_entries(dir, &ntmp), 2);
	CHECK_EQ(ntmp, 0);

	/* A directory we may not write into (permissions do not stop root). */
	if (geteuid() != 0) {
		char ro[256], p2[300];
		snprintf(ro, sizeof ro, "%s/ro", dir);
		CHECK_EQ(mkdir(ro, 0500), 0);
		snprintf(p2, sizeof p2, "%s/junit.xml", ro);
		memset(&e, 0, sizeof e);
		CHECK(iw_write_atomic(p2, "x", 1, &e) != 0);
		CHECK(strstr(e.msg, p2) != NULL);
		CHECK(strstr(e.msg, strerror(EACCES)) != NULL);
		CHECK_EQ(count_entries(ro, &ntmp), 0);
	}
	/* /proc takes no new files, for root either. */
	memset(&e, 0, sizeof e);
	CHECK(iw_write_atomic("/proc/iwspec-reports-test.json", "x", 1, &e) != 0);
	CHECK(strstr(e.msg, "/proc/iwspec-reports-test.json") != NULL);
	CHECK(strstr(e.msg, strerror(ENOENT)) || strstr(e.msg, strerror(EACCES)) || strstr(e.msg, strerror(EROFS)));
	memset(&e, 0, sizeof e);
	CHECK(iw_write_atomic("", "x", 1, &e) != 0);
	CHECK(e.msg[0] != '\0');
	memset(&e, 0, sizeof e);
	CHECK(iw_write_atomic("out/", "x", 1, &e) != 0);
	CHECK(strstr(e.msg, "'out/'") != NULL);
	rm_rf(dir);
}

TEST(reports_atomic_streaming_abort_and_fail)
{
	char *dir = scratch_dir();
	if (!dir)
		return;
	char path[256];
	snprintf(path, sizeof path, "%s/report.json", dir);
	iw_err e = {{0}};
	CHECK_EQ(iw_write_atomic(path, "old", 3, &e), 0);

	/* Until commit the target keeps its old content; abort leaves it so. */
	iw_atomic_file *af = iw_atomic_open(path, &e);
	CHECK(af != NULL);
	if (af) {
		iw_atomic_puts(af, "half a rep");
		char *mid = read_file(path, NULL);
		CHECK_STR(mid, "old");
		free(mid);
		iw_atomic_abort(af);
	}
	char *got = read_file(path, NULL);
	CHECK_STR(got, "old");
	free(got);

	/* A caller's failure: commit reports it, removes the temp file, keeps the old target. */
	af = iw_atomic_open(path, &e);
	if (af) {
		iw_atomic_puts(af, "partial");
		iw_atomic_fail(af, "out of memory while building the JSON");
		CHECK(!iw_atomic_ok(af));
		CHECK(iw_atomic_puts(af, "more") != 0);
		memset(&e, 0, sizeof e);
		CHECK(iw_atomic_commit(af, &e) != 0);
		CHECK(strstr(e.msg, path) != NULL);
		CHECK(strstr(e.msg, "out of memory") != NULL);
	}
	got = read_file(path, NULL);
	CHECK_STR(got, "old");
	free(got);

	/* Many writes of odd sizes, across and beyond the buffer, arrive in order. */
	size_t total = 300000;
	uint8_t *want = malloc(total);
	af = iw_atomic_open(path, &e);
	CHECK(af != NULL);
	if (af && want) {
		for (size_t k = 0; k < total; k++)
			want[k] = (uint8_t)(k * 31 + (k >> 8));
		size_t off = 0, step = 1;
		while (off < total) {
			size_t n = step < total - off ? step : total - off;
			CHECK_EQ(iw_atomic_write(af, want + off, n), 0);
			off += n;
			step = step * 3 + 1;
			if (step > 100000)
				step = 7;
		}
		iw_atomic_printf(af, "%s-%d", "tail", 7);
		CHECK_EQ(iw_atomic_commit(af, &e), 0);
		size_t n;
		got = read_file(path, &n);
		CHECK_EQ(n, total + 6);
		if (got && n == total + 6) {
			CHECK(memcmp(got, want, total) == 0);
			CHECK_MEM(got + total, "tail-7", 6);
		}
		free(got);
	} else if (af) {
		iw_atomic_abort(af);
	}
	free(want);
	int ntmp;
	CHECK_EQ(count_entries(dir, &ntmp), 1);
	CHECK_EQ(ntmp, 0);
	rm_rf(dir);
}

TEST(reports_write_all_into_new_dir)
{
	char *dir = scratch_dir();
	if (!dir)
		return;
	iw_run run;
	make_run(&run);
	char out[256], p[300];
	snprintf(out, sizeof out, "%s/out/latest", dir);
	iw_err e = {{0}};
	CHECK_EQ(iw_report_write_all(&run, out, &e), 0);
	struct stat st;
	snprintf(p, sizeof p, "%s/results.json", out);
	CHECK(stat(p, &st) == 0 && st.st_size > 100);
	snprintf(p, sizeof p, "%s/junit.xml", out);
	CHECK(stat(p, &st) == 0 && st.st_size > 100);
	int ntmp;
	CHECK_EQ(count_entries(out, &ntmp), 2);
	CHECK_EQ(ntmp, 0);
	iw_run_free(&run);
	rm_rf(dir);
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
	make_run(&run);
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
	const char *fl = strstr(buf, "  FAIL  mpa.startup.req.bad-key  [MPA-6.1-R5]\n"
				     "        expected close within 1000 ms, saw FPDU ULPDU_Length=20\n");
	const char *er = strstr(buf, "  ERROR ddp.tagged.bounds.write\n        connect: Connection refused\n");
	const char *wr = strstr(buf, "  WARN  mpa.startup.reply.rst-after-reject  [MPA-6.1-R2e]\n"
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
