/*
 * test_reports_coverage.c - the coverage counts of report.html and results.json
 * (reports/report_html_coverage.c): the untestable list found at the root of the run's case
 * tree, its `ID: reason` lines taken and its prose left, and a wire MUST counted as cited,
 * judged on the wire, listed untestable or uncovered.
 */
#include "report_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "report_html_int.h"

TEST(reports_coverage_reads_untestable_list_and_counts_rows)
{
	char *tmp = rp_scratch_dir();
	CHECK(tmp != NULL);
	if (!tmp)
		return;
	char dir[512], path[600];
	snprintf(dir, sizeof dir, "%s", tmp);
	snprintf(path, sizeof path, "%s/cases", dir);
	CHECK_EQ(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/cases/ddp", dir);
	CHECK_EQ(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/cases/ddp/6.1", dir);
	CHECK_EQ(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/cases/untestable.md", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("# Heading: not a row\n\nProse: ignored.\nDDP-10.4-01: inside the DUT\nNOT-A-REQ-1: unknown id\n", f);
	fclose(f);

	static iw_run run;
	memset(&run, 0, sizeof run);
	iw_case_result *r = iw_run_add(&run);
	CHECK(r != NULL);
	if (!r)
		return;
	snprintf(r->file, sizeof r->file, "%.200s/cases/ddp/6.1/x.iwt", dir);
	r->nreqs = 1;
	snprintf(r->reqs[0].id, sizeof r->reqs[0].id, "MPA-6.1-R5");
	const char *rules[] = {"DDP-6.1-09", "MPA-6.1-R5"};
	iw_result_judged(r, rules, 2);
	iw_result_judged(r, rules, 1);

	static iw_untestable u;
	iw_untestable_load(&run, &u);
	CHECK(u.found);
	CHECK_EQ(u.n, 1);
	CHECK_STR(iw_untestable_reason(&u, "DDP-10.4-01"), "inside the DUT");
	CHECK(iw_untestable_reason(&u, "DDP-6.1-09") == NULL);
	size_t jc, jf;
	iw_judged_of(&run, "DDP-6.1-09", &jc, &jf);
	CHECK_EQ(jc, 1);
	CHECK_EQ(jf, 2);

	iw_coverage cv;
	iw_coverage_count(&run, &u, &cv);
	CHECK(cv.wire > 3);
	CHECK_EQ(cv.cited, 1);
	CHECK_EQ(cv.judged, 2);
	CHECK_EQ(cv.untestable, 1);
	/* MPA-6.1-R5 is both cited and judged: counted once among the covered rows. */
	CHECK_EQ(cv.uncovered, cv.wire - 3);

	/* No list at the root of the tree: nothing listed, every other row uncovered. */
	snprintf(r->file, sizeof r->file, "x.iwt");
	iw_untestable_load(&run, &u);
	CHECK(!u.found);
	iw_coverage_count(&run, &u, &cv);
	CHECK_EQ(cv.untestable, 0);
	CHECK_EQ(cv.uncovered, cv.wire - 2);
	iw_run_free(&run);
	rp_rm_rf(dir);
}
