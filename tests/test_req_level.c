/*
 * test_req_level.c - one source for a requirement's level (suite/run/req_level.h): the catalog's
 * keywords fold into the verdict levels, and no case holds a requirement stronger than the
 * catalog does.
 */
#include "check.h"

#include <string.h>

#include "catalog.h"
#include "req_catalog.h"
#include "req_level.h"

TEST(req_level_folds_catalog_keywords)
{
	static const struct { const char *id; enum iw_level lvl; const char *kw; } t[] = {
		{"MPA-6.1-R2a", IW_LEVEL_MUST, "MUST"},
		{"MPA-6.1-R2f", IW_LEVEL_SHOULD, "SHOULD"},
		{"MPA-6.1-R2c", IW_LEVEL_SHOULD, "SHOULD"},
		{"MPA-6.1.1-03", IW_LEVEL_MUST, "must(lc)"},
		{"MPA-6.1.1-M1", IW_LEVEL_MUST, "MUST NOT"},
		{"MPA-6.1-R7", IW_LEVEL_MUST, "FACT (normative)"},
		{"MPA-6.1-R1b", IW_LEVEL_MAY, "MAY"},
		{"MPA-6.1.1-F1", IW_LEVEL_INFO, "FACT"},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		enum iw_level l = IW_LEVEL_INFO;
		const char *kw = NULL;
		CHECK(iw_req_level(t[i].id, &l, &kw));
		CHECK_EQ(l, t[i].lvl);
		CHECK_STR(kw ? kw : "", t[i].kw);
	}
	enum iw_level l = IW_LEVEL_MAY;
	CHECK(!iw_req_level("RFC5040-4.8", &l, NULL));
	CHECK_EQ(l, IW_LEVEL_MAY); /* untouched */
	CHECK_EQ(iw_req_level_of_keyword("SHOULD NOT"), IW_LEVEL_SHOULD);
	CHECK_EQ(iw_req_level_of_keyword("OPTIONAL"), IW_LEVEL_MAY);
	CHECK_EQ(iw_req_level_of_keyword("MAY / MUST"), IW_LEVEL_MUST);
}

TEST(req_level_no_case_cites_stronger_than_the_catalog)
{
	/* A case may hold a requirement weaker (a §6 position: R2e as SHOULD under A10), never
	 * stronger: its verdict would not be the catalog's. */
	iw_catalog cat;
	iw_err e;
	CHECK_EQ(iw_catalog_load(&cat, "cases", NULL, "build/run_tests", &e), IW_OK);
	CHECK(cat.n > 100);
	size_t checked = 0;
	for (size_t i = 0; i < cat.n; i++)
		for (size_t k = 0; k < cat.cases[i]->nreqs; k++) {
			const iw_case_req *q = &cat.cases[i]->reqs[k];
			enum iw_level l;
			if (!iw_req_level(q->id, &l, NULL))
				continue;
			checked++;
			if (q->level < l)
				printf("  %s cites %s %s; the catalog says %s\n", cat.cases[i]->id, q->id,
				       iw_level_name(q->level), iw_req_find(q->id)->kw);
			CHECK(q->level >= l);
		}
	CHECK(checked > 300);
	iw_catalog_free(&cat);
}
