/*
 * test_reports_junit.c - junit.xml, read back the way its users do: through xmllint when it is
 * installed and always through a strict structural check of our own (which must be able to
 * fail, and is tested for that), with one case of every verdict and hostile DUT text in every
 * field.
 */
#include "report_fixture.h"

#include <stdlib.h>

#include "report.h"
#include "report_text.h"

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
	char *dir = rp_scratch_dir();
	if (!dir)
		return;
	iw_run run;
	rp_make_run(&run);
	char path[256];
	snprintf(path, sizeof path, "%s/junit.xml", dir);
	iw_err e = {{0}};
	CHECK_EQ(iw_report_junit(&run, path, &e), 0);
	char *x = rp_read_file(path, NULL);
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
	rp_rm_rf(dir);
}

TEST(reports_junit_hostile_strings)
{
	char *dir = rp_scratch_dir();
	if (!dir)
		return;
	iw_run run;
	rp_make_run(&run);
	snprintf(run.host, sizeof run.host, "%s", RP_HOSTILE);
	snprintf(run.dut, sizeof run.dut, "%s", RP_HOSTILE);
	for (size_t k = 0; k < run.ncases; k++) {
		iw_case_result *r = &run.cases[k];
		snprintf(r->id, sizeof r->id, "a\"b.c<d.%s", RP_HOSTILE);
		snprintf(r->title, sizeof r->title, "%s", RP_HOSTILE);
		snprintf(r->reason, sizeof r->reason, "%s\n\tline two", RP_HOSTILE);
		snprintf(r->failed_req, sizeof r->failed_req, "R&D<1>");
		r->nmeasures = 1;
		snprintf(r->measures[0].name, sizeof r->measures[0].name, "%s", RP_HOSTILE);
		snprintf(r->measures[0].unit, sizeof r->measures[0].unit, "<&>");
		iw_result_wire(r, IW_FROM_DUT, 1, 5, "<raw>", (const uint8_t *)"\x00", 1, "%s", RP_HOSTILE);
		r->dut_finding = true;
		snprintf(r->dut_finding_text, sizeof r->dut_finding_text, "%s", RP_HOSTILE);
	}
	char path[256];
	snprintf(path, sizeof path, "%s/junit.xml", dir);
	iw_err e = {{0}};
	CHECK_EQ(iw_report_junit(&run, path, &e), 0);
	size_t n = 0;
	char *x = rp_read_file(path, &n);
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
	rp_rm_rf(dir);
}
