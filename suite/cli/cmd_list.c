/*
 * cmd_list.c - `iwspec list`: the cases, their ids, titles and requirement IDs.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "cli.h"
#include "req_catalog.h"
#include "req_check.h"
#include "ulp_table.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iwspec list [--cases GLOB|FILE|DIR] [--case-dir DIR] [--ulp | --row ID]\n"
		"\n"
		"Lists the conformance cases: id, DUT role, title and the requirement IDs they cite\n"
		"(spec/requirements.md) with their level.\n"
		"\n"
		"  --ulp           instead, which cases each ULP profile (the DUT's application: the\n"
		"                  reflector, rping, perftest, none) runs, as the Markdown tables of\n"
		"                  docs/ulp-profiles.md\n"
		"  --row ID        instead, one requirement row (e.g. RFC5040-4.8-03): its level, where it\n"
		"                  stands in the RFC or draft, the RFC's own sentence, the paraphrase and\n"
		"                  test idea, then the cases that cite it and the level each holds it at\n"
		"  --cases GLOB    only cases whose id matches GLOB (e.g. 'mpa.startup.*'), or the cases\n"
		"                  in a file or directory\n"
		"  --case-dir DIR  where the case catalog lives (default: ./cases, or next to the binary)\n");
}

/* One row and the cases citing it: what a lab reads next to a FAIL. */
static int list_row(const iw_catalog *cat, const char *id)
{
	const iw_req_info *q = iw_req_find(id);
	if (!q) {
		const iw_req_retired_info *old = iw_req_find_retired(id);
		char near[160];
		if (old)
			fprintf(stderr, "iwspec list: %s was retired from spec/rfc-rows.md: %s; replaced by %s\n", id,
				old->why, old->replaced_by);
		else
			fprintf(stderr, "iwspec list: '%s' is not a row of the requirements catalog; %s%s\n", id,
				iw_req_closest(id, 3, near, sizeof near)[0] ? "closest: " : "no row is close to it", near);
		return IW_EXIT_USAGE;
	}
	printf("%s  %s  (T = %s)\n", q->id, q->kw, q->t);
	printf("  where:       %s\n", q->source[0] ? q->source : "-");
	if (q->quote[0])
		printf("  RFC text:    %s\n", q->quote);
	printf("  requirement: %s\n", q->text);
	printf("  test idea:   %s\n", q->idea);
	size_t n = 0;
	for (size_t i = 0; i < cat->n; i++) {
		const iw_case *k = cat->cases[i];
		for (size_t r = 0; r < k->nreqs; r++) {
			if (strcmp(k->reqs[r].id, q->id))
				continue;
			if (!n++)
				printf("  cited by:\n");
			printf("    %-48s %s\n", k->id, iw_level_name(k->reqs[r].level));
		}
	}
	printf("%zu case%s cite%s %s\n", n, n == 1 ? "" : "s", n == 1 ? "s" : "", q->id);
	return IW_EXIT_OK;
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{"cases", required_argument, 0, 'c'},
		{"case-dir", required_argument, 0, 'd'},
		{"ulp", no_argument, 0, 'u'},
		{"row", required_argument, 0, 'r'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	const char *select = NULL, *dir = NULL, *row = NULL;
	bool ulp = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': select = optarg; break;
		case 'd': dir = optarg; break;
		case 'u': ulp = true; break;
		case 'r': row = optarg; break;
		case 'h': usage(stdout); return IW_EXIT_OK;
		default:
			fprintf(stderr, "iwspec list: unknown or incomplete option '%s'; see 'iwspec list --help'\n",
				argv[optind - 1]);
			return IW_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "iwspec list: unexpected argument '%s'; see 'iwspec list --help'\n", argv[optind]);
		return IW_EXIT_USAGE;
	}
	iw_catalog cat;
	iw_err e;
	if (iw_catalog_load(&cat, dir, select, argv[0], &e)) {
		fprintf(stderr, "iwspec list: %s\n", e.msg);
		return IW_EXIT_USAGE;
	}
	/* A requirement that is not a catalog row has no level and no words in any report. */
	if (iw_catalog_check_reqs(&cat, &e)) {
		fprintf(stderr, "iwspec list: %s\n", e.msg);
		iw_catalog_free(&cat);
		return IW_EXIT_USAGE;
	}
	if (row) {
		int rc = list_row(&cat, row);
		iw_catalog_free(&cat);
		return rc;
	}
	if (ulp) {
		iw_ulp_table_write(stdout, &cat);
		int rc = cat.n ? IW_EXIT_OK : IW_EXIT_ERROR;
		iw_catalog_free(&cat);
		return rc;
	}
	for (size_t i = 0; i < cat.n; i++) {
		const iw_case *k = cat.cases[i];
		printf("%-48s %-9s %s\n", k->id, k->dut_role ? "responder" : "initiator", k->title);
		printf("%-48s %-9s", "", "");
		for (size_t r = 0; r < k->nreqs; r++)
			printf(" %s(%s)", k->reqs[r].id, iw_level_name(k->reqs[r].level));
		printf("\n");
	}
	printf("%zu case%s\n", cat.n, cat.n == 1 ? "" : "s");
	int rc = cat.n ? IW_EXIT_OK : IW_EXIT_ERROR;
	iw_catalog_free(&cat);
	return rc;
}
