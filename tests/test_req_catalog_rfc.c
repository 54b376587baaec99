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
		{"RFC5040-", 89, 73}, {"RFC5041-", 5, 5}, {"RFC5044-", 9, 7}, {"RFC6581-", 12, 9},
	};
	size_t total = 0, must = 0, must_not = 0, may = 0, fact = 0;
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
		may += !strcmp(q->kw, "MAY");
		fact += !strcmp(q->kw, "FACT");
	}
	CHECK_EQ(total, 115);
	CHECK_EQ(must, 97);
	CHECK_EQ(must_not, 11);
	CHECK_EQ(may, 3);
	CHECK_EQ(fact, 3);
	const iw_req_info *t = iw_req_find("RFC5040-4.8-03");
	CHECK(t && t->must && t->wire && strstr(t->text, "DDP header") != NULL);
	enum iw_level l;
	CHECK(iw_req_level("RFC5040-4.8-16", &l, NULL) && l == IW_LEVEL_MAY);
	CHECK(iw_req_level("RFC5044-7.1.1-03", &l, NULL) && l == IW_LEVEL_SHOULD);
	CHECK(strstr(iw_req_catalog_source, "rfc-rows.md sha256") != NULL);
	char f[40];
	CHECK_STR(iw_req_family("RFC5040-4.8-03", f, sizeof f), "RFC5040-4.8");
}

TEST(req_closest_names_the_rows_of_a_section)
{
	char near[200];
	CHECK_STR(iw_req_closest("RFC5040-4.8", 3, near, sizeof near), "RFC5040-4.8-01, RFC5040-4.8-02, RFC5040-4.8-03");
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
	CHECK(strstr(e.msg, "closest: RFC5040-4.8-01") != NULL);
	snprintf(c->reqs[1].id, sizeof c->reqs[1].id, "RFC5040-4.8-03");
	CHECK_EQ(iw_case_check_reqs(c, &e), IW_OK);
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
