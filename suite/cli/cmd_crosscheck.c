/*
 * cmd_crosscheck.c - `iwspec crosscheck DIR...`: each report directory's verdicts held against
 * `iwspec decode` of its case captures (reports/crosscheck.h does the work).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "crosscheck.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iwspec crosscheck [--quiet] [--skip CASE]... DIR...\n"
		"\n"
		"One judgment, read twice: for each report directory (results.json and pcap/, as\n"
		"`iwspec run --report DIR --pcap` writes them), decodes every case's capture as\n"
		"`iwspec decode --profile <the case's profile>` does and compares what it finds in the\n"
		"DUT's octets with the case's verdict:\n"
		"  - a violation decode finds must be the requirement the case's FAIL, WARN or INFO rests\n"
		"    on, or (when the case failed) one of its per-frame rules, results.json \"judged\";\n"
		"  - a FAIL or WARN judged on every frame must be found by decode in that capture.\n"
		"The run judges nothing after its first failure: a violation decode finds in a frame\n"
		"captured after it is counted, not compared.\n"
		"Prints one DISAGREE line per disagreement (case, requirement, what decode and the run\n"
		"said) and a summary per directory. Cases the run did not judge (SKIP), with an ERROR or\n"
		"with a capture cut at its limits are not compared, and counted.\n"
		"\n"
		"  --quiet, -q   no summary line, only disagreements\n"
		"  --skip CASE   leave this case out (its id, or CASE@PROFILE): a capture known to show\n"
		"                something else than its verdict, such as a race the run repeated\n"
		"\n"
		"exit status: 0 they agree, 1 a disagreement, 2 bad usage or a directory that cannot be\n"
		"             read (no results.json, a case's capture missing)\n");
}

int cmd_crosscheck(int argc, char **argv)
{
	static const struct option opts[] = {
		{"quiet", no_argument, 0, 'q'},
		{"skip", required_argument, 0, 's'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	bool quiet = false;
	/* At most every argument is a --skip: argv holds them as long as this runs. */
	const char **skip = calloc((size_t)argc + 1, sizeof *skip);
	size_t nskip = 0;
	if (!skip)
		return IW_EXIT_ERROR;
	int c, status = IW_EXIT_USAGE;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "qhs:", opts, NULL)) != -1) {
		switch (c) {
		case 'q': quiet = true; break;
		case 's': skip[nskip++] = optarg; break;
		case 'h': usage(stdout); status = IW_EXIT_OK; goto out;
		default:
			fprintf(stderr, "iwspec crosscheck: unknown or incomplete option '%s'; see 'iwspec crosscheck --help'\n",
				argv[optind - 1]);
			goto out;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "iwspec crosscheck: give one or more report directories (iwspec run --report DIR --pcap)\n");
		goto out;
	}
	size_t disagreements = 0;
	for (int i = optind; i < argc; i++) {
		iw_xcheck_totals t;
		memset(&t, 0, sizeof t);
		iw_err e;
		if (iw_xcheck_dir(argv[i], skip, nskip, stdout, &t, &e) != 0) {
			fflush(stdout);
			fprintf(stderr, "iwspec crosscheck: %s\n", e.msg);
			goto out;
		}
		disagreements += t.disagreements;
		/* Only a run with perftest's comm connections says so: the line stays as it was for the others. */
		char comm[64] = "";
		if (t.comm_violations)
			snprintf(comm, sizeof comm, ", %zu on perftest's comm connections", t.comm_violations);
		if (!quiet)
			printf("crosscheck %s: %zu cases, %zu captures decoded (%zu FPDUs of the DUT, %zu violations of the "
			       "DUT, %zu of them after the run's failure, %zu in the octets it failed on and not judged there, %zu on "
			       "the probe before a case%s), "
			       "%zu failures judged on every frame looked for, "
			       "%zu cases not compared (SKIP, ERROR or a cut capture), %zu left out (--skip): %zu disagreement%s\n",
			       argv[i], t.cases, t.captures, t.dut_fpdus, t.dut_violations, t.after_failure, t.at_failure, t.probe_violations, comm,
			       t.per_frame_failures, t.not_compared, t.skipped, t.disagreements,
			       t.disagreements == 1 ? "" : "s");
	}
	status = disagreements ? IW_EXIT_FAIL : IW_EXIT_OK;
out:
	free(skip);
	return status;
}
