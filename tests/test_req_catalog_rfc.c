/*
 * test_req_catalog_rfc.c - the RFC-era rows of spec/rfc-rows.md in the generated catalog, and the
 * check that refuses a case citing an ID that is not a row (suite/run/req_check.h).
 */
#include "check.h"

#include <string.h>

#include "case.h"
#include "catalog.h"
#include "req_catalog.h"
#include "req_check.h"
#include "req_level.h"

/* The counts of spec/rfc-rows.md §2: a row added there without its count fails here. */
TEST(req_catalog_rfc_rows_counted)
{
	static const struct { const char *prefix; size_t rows, wire_musts; } rfc[] = {
		{"RFC5040-", 224, 116}, {"RFC5041-", 9, 8}, {"RFC5044-", 22, 17}, {"RFC6581-", 44, 32},
	};
	size_t total = 0, must = 0, must_not = 0, should = 0, should_not = 0, may = 0, fact = 0;
	for (size_t k = 0; k < sizeof rfc / sizeof rfc[0]; k++) {
		size_t rows = 0, wm = 0;
		for (size_t i = 0; i < iw_req_catalog_n; i++) {
			const iw_req_info *q = &iw_req_catalog[i];
			if (strncmp(q->id, rfc[k].prefix, strlen(rfc[k].prefix)))
				continue;
			CHECK(q->rfc);
			rows++;
			wm += q->must && q->wire;
		}
		CHECK_EQ(rows, rfc[k].rows);
		CHECK_EQ(wm, rfc[k].wire_musts);
		total += rows;
	}
	for (size_t i = 0; i < iw_req_catalog_n; i++) {
		const iw_req_info *q = &iw_req_catalog[i];
		CHECK_EQ(q->rfc, !strncmp(q->id, "RFC", 3));
		if (!q->rfc)
			continue;
		must += !strcmp(q->kw, "MUST");
		must_not += !strcmp(q->kw, "MUST NOT");
		should += !strcmp(q->kw, "SHOULD");
		should_not += !strcmp(q->kw, "SHOULD NOT");
		may += !strcmp(q->kw, "MAY");
		/* Every RFC row quotes the sentence it rests on, and says where it stands. */
		CHECK(q->quote[0] && !strncmp(q->source, "RFC ", 4));
		fact += !strcmp(q->kw, "FACT");
	}
	CHECK_EQ(total, 299);
	CHECK_EQ(must, 193);
	CHECK_EQ(must_not, 18);
	CHECK_EQ(should, 16);
	CHECK_EQ(should_not, 2);
	CHECK_EQ(may, 31);
	CHECK_EQ(fact, 39);
	/* RFC 5040 §4.8: the M, D and R bits "SHOULD be set" as Figure 10 says, so a Terminate
	 * without the DDP header is a WARN, not a FAIL. */
	const iw_req_info *t = iw_req_find("RFC5040-4.8-03");
	CHECK(t && !t->must && t->wire && !strcmp(t->kw, "SHOULD") && strstr(t->quote, "SHOULD be set") != NULL);
	CHECK(t && strstr(t->source, "4.8") != NULL);
	enum iw_level l;
	CHECK(iw_req_level("RFC5040-4.8-03", &l, NULL) && l == IW_LEVEL_SHOULD);
	CHECK(iw_req_level("RFC5040-5.4-03", &l, NULL) && l == IW_LEVEL_MAY);
	/* A row that stood for no sentence of the RFC is retired, never a row again. */
	CHECK(!iw_req_find("RFC5044-7.1.1-03") && iw_req_find_retired("RFC5044-7.1.1-03"));
	CHECK(!iw_req_find("RFC5040-5.4-04") && iw_req_find_retired("RFC5040-5.4-04"));
	const iw_req_retired_info *old = iw_req_find_retired("RFC5040-7.1-03");
	CHECK(old && strstr(old->replaced_by, "RFC5040-6.2-02") != NULL);
	for (size_t i = 0; i < iw_req_retired_n; i++)
		CHECK(!iw_req_find(iw_req_retired[i].id) && iw_req_retired[i].why[0] && iw_req_retired[i].replaced_by[0]);
	char w[200];
	CHECK(!strncmp(iw_req_where("RFC5040-4.8-03", w, sizeof w), "SHOULD, RFC 5040 §4.8", 22));
	CHECK_STR(iw_req_where("RFC5040-9.9-99", w, sizeof w), "");
	CHECK(strstr(iw_req_catalog_source, "rfc-rows.md sha256") != NULL);
	char f[40];
	CHECK_STR(iw_req_family("RFC5040-4.8-03", f, sizeof f), "RFC5040-4.8");
}

TEST(req_closest_names_the_rows_of_a_section)
{
	char near[200];
	/* The rows of the section, in the catalog's (the RFC's reading) order. */
	CHECK(!strncmp(iw_req_closest("RFC5040-4.8", 3, near, sizeof near), "RFC5040-4.8-", 12));
	CHECK(!strncmp(iw_req_closest("RFC5040-4.8-3", 2, near, sizeof near), "RFC5040-4.8-03", 14));
	CHECK(!strncmp(iw_req_closest("MPA-6.1-R55", 1, near, sizeof near), "MPA-6.1-R5", 10));
	CHECK_STR(iw_req_closest("ZZZZZZZZZZZZZZZZZZZZZZZZ", 3, near, sizeof near), "");
	CHECK_STR(iw_req_closest("RFC5040-4.8", 0, near, sizeof near), "");
	char tiny[10];
	iw_req_closest("RFC5040-4.8", 3, tiny, sizeof tiny);
	CHECK(strlen(tiny) < sizeof tiny);
}

static const char *const CASE_TEXT =
	"id: x.y\n"
	"title: t\n"
	"requirement: MPA-6.1-R5 MUST\n"
	"requirement: RFC5040-4.8 MUST\n"
	"role: responder\n"
	"needs: echo\n"
	"\n"
	"startup\n";

TEST(req_check_refuses_a_section_with_file_line_and_rows)
{
	iw_case *c = NULL;
	iw_err e;
	CHECK_EQ(iw_case_parse(CASE_TEXT, strlen(CASE_TEXT), "cases/x.iwt", &c, &e), IW_OK);
	if (!c)
		return;
	CHECK_EQ(c->reqs[1].line, 4);
	CHECK_EQ(iw_case_check_reqs(c, &e), IW_EINVAL);
	CHECK(strstr(e.msg, "cases/x.iwt:4: requirement: 'RFC5040-4.8' is not a row") != NULL);
	CHECK(strstr(e.msg, "closest: RFC5040-4.8-") != NULL);
	snprintf(c->reqs[1].id, sizeof c->reqs[1].id, "RFC5040-4.8-10");
	CHECK_EQ(iw_case_check_reqs(c, &e), IW_OK);
	/* A SHOULD row cited as MUST: the case would FAIL where the RFC asks only a WARN. */
	snprintf(c->reqs[1].id, sizeof c->reqs[1].id, "RFC5040-4.8-03");
	CHECK_EQ(iw_case_check_reqs(c, &e), IW_EINVAL);
	CHECK(strstr(e.msg, "cases/x.iwt:4: requirement: RFC5040-4.8-03 is cited as MUST, but the catalog's keyword is "
			    "SHOULD") != NULL);
	c->reqs[1].level = IW_LEVEL_SHOULD;
	CHECK_EQ(iw_case_check_reqs(c, &e), IW_OK);
	/* A retired row: refused with why and what replaced it. */
	snprintf(c->reqs[1].id, sizeof c->reqs[1].id, "RFC5040-5.4-04");
	CHECK_EQ(iw_case_check_reqs(c, &e), IW_EINVAL);
	CHECK(strstr(e.msg, "'RFC5040-5.4-04' was retired from spec/rfc-rows.md") != NULL);
	CHECK(strstr(e.msg, "cite RFC5040-5.4-03") != NULL);
	iw_case_free(c);
}

TEST(req_check_parser_takes_the_rfc_row_shape)
{
	static const struct { const char *id; bool ok; } t[] = {
		{"RFC5040-4.8-03", true}, {"RFC6581-9.3-F1", true}, {"RFC5044-7.1.1-07", true},
		{"RFC5040-4.8", true}, {"RFC5040-4.8-", false}, {"RFC5040-4.8-x", false}, {"RFC5040-4.8-03-1", false},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		char text[256];
		snprintf(text, sizeof text, "id: x.y\ntitle: t\nrequirement: %s MUST\nrole: responder\nneeds: echo\n\nstartup\n", t[i].id);
		iw_case *c = NULL;
		iw_err e;
		int rc = iw_case_parse(text, strlen(text), "x.iwt", &c, &e);
		if ((rc == IW_OK) != t[i].ok)
			check_fail(__FILE__, __LINE__, "%s: parse %s: %s", t[i].id, rc ? "failed" : "passed", rc ? e.msg : "");
		iw_case_free(c);
	}
}

/* The bar: no case cites an ID outside the catalog. */
TEST(req_check_every_case_cites_rows)
{
	iw_catalog cat;
	iw_err e;
	CHECK_EQ(iw_catalog_load(&cat, "cases", NULL, "build/run_tests", &e), IW_OK);
	int rc = iw_catalog_check_reqs(&cat, &e);
	if (rc)
		check_fail(__FILE__, __LINE__, "%s", e.msg);
	size_t rfc = 0;
	for (size_t i = 0; i < cat.n; i++)
		for (size_t k = 0; k < cat.cases[i]->nreqs; k++)
			rfc += !strncmp(cat.cases[i]->reqs[k].id, "RFC", 3);
	CHECK(rfc >= 62);
	iw_catalog_free(&cat);
}
