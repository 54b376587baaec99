/*
 * test_reports_results.c - result bookkeeping (suite/run/result.h): verdict names, adding and counting
 * cases (a corrupt verdict counts as ERROR), the wire log's own copies and its truncation past
 * 4096 entries, and a result taking its case's identity.
 */
#include "check.h"

#include <stdlib.h>

#include "result.h"

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

/* The requirements judged during a case: one entry per ID with its count of frames, in the order
 * first seen; past IW_RESULT_MAX_JUDGED distinct IDs the record says it was cut. */
TEST(reports_result_judged_counts_frames_per_requirement)
{
	static iw_case_result r;
	memset(&r, 0, sizeof r);
	const char *a[] = {"MPA-5.2-11", "MPA-4-02"}, *b[] = {"MPA-5.2-11"};
	iw_result_judged(&r, a, 2);
	iw_result_judged(&r, b, 1);
	iw_result_judged(&r, NULL, 0);
	CHECK_EQ(r.njudged, 2);
	CHECK_STR(r.judged[0].req, "MPA-5.2-11");
	CHECK_EQ(r.judged[0].frames, 2);
	CHECK_STR(r.judged[1].req, "MPA-4-02");
	CHECK_EQ(r.judged[1].frames, 1);
	CHECK(!r.judged_cut);
	char ids[IW_RESULT_MAX_JUDGED + 1][16];
	for (int k = 0; k < IW_RESULT_MAX_JUDGED + 1; k++) {
		snprintf(ids[k], sizeof ids[k], "X-%d", k);
		const char *one = ids[k];
		iw_result_judged(&r, &one, 1);
	}
	CHECK_EQ(r.njudged, IW_RESULT_MAX_JUDGED);
	CHECK(r.judged_cut);
}
