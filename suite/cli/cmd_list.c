/*
 * cmd_list.c - `iwspec list`: the cases, their ids, titles and requirement IDs.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "cli.h"
#include "req_check.h"
#include "ulp_table.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iwspec list [--cases GLOB|FILE|DIR] [--case-dir DIR] [--ulp]\n"
		"\n"
		"Lists the conformance cases: id, DUT role, title and the requirement IDs they cite\n"
		"(spec/requirements.md) with their level.\n"
		"\n"
		"  --ulp           instead, which cases each ULP profile (the DUT's application: the\n"
		"                  reflector, rping, perftest, none) runs, as the Markdown tables of\n"
		"                  docs/ulp-profiles.md\n"
		"  --cases GLOB    only cases whose id matches GLOB (e.g. 'mpa.startup.*'), or the cases\n"
		"                  in a file or directory\n"
		"  --case-dir DIR  where the case catalog lives (default: ./cases, or next to the binary)\n");
}

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{"cases", required_argument, 0, 'c'},
		{"case-dir", required_argument, 0, 'd'},
		{"ulp", no_argument, 0, 'u'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	const char *select = NULL, *dir = NULL;
	bool ulp = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': select = optarg; break;
		case 'd': dir = optarg; break;
		case 'u': ulp = true; break;
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
