/*
 * cmd_run.c - `iwspec run`: run cases against a DUT, print progress and a summary, write
 * results.json and junit.xml.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog.h"
#include "cli.h"
#include "cli_args.h"
#include "interrupt.h"
#include "iw_conn.h"
#include "provenance.h"
#include "report.h"
#include "req_check.h"
#include "run_reports.h"
#include "runner.h"

/* The live progress line on a terminal (report_console.c). */
static void print_progress(void *ctx, size_t done, size_t total, const iw_case_result *r)
{
	iw_console_progress(ctx, true, done, total, r);
}

/* The one line that says the run waits for its DUT to listen (--wait-dut). */
static void say_wait(void *ctx, const char *msg)
{
	fprintf(ctx, "iwspec run: %s\n", msg);
	fflush(ctx);
}

static void usage(FILE *f)
{
	char names[128];
	iw_profile_names(names, sizeof names);
	fprintf(f,
		"usage: iwspec run [--dut DUT] [--dut-config FILE] [--profile P|all] [--role ROLE]\n"
		"                  [--cases GLOB|FILE|DIR] [--case-dir DIR] [--report DIR]\n"
		"                  [--resegment MODE] [--markers on|off] [--crc on|off] [--seed N] [--jobs N]\n"
		"                  [--no-progress] [--html] [--pcap] [--expect FILE] [--write-expect FILE]\n"
		"                  [--keep-going] [--wait-dut DURATION]\n"
		"\n"
		"Runs conformance cases against a device under test and writes results.json and junit.xml.\n"
		"\n"
		"  --dut DUT          ref (the built-in reference DUT, default), tcp:HOST:PORT (a DUT listening\n"
		"                     there), or exec:'COMMAND' (started per case; {host} and {port} are\n"
		"                     substituted: a responder listens on {port}, an initiator connects to it)\n"
		"  --dut-config FILE  the DUT's declaration (docs/dut-config.md); flags override it\n"
		"  --profile P        spec profile: %s; 'all' runs every profile (ref DUT)\n"
		"  --role ROLE        the DUT's role, responder or initiator (default: the ref DUT takes the role\n"
		"                     each case needs; other DUTs: responder)\n"
		"  --cases SEL        cases whose id matches a glob, or a case file or directory\n"
		"  --case-dir DIR     where the case catalog lives\n"
		"  --report DIR       where reports go (default out/latest)\n"
		"  --resegment MODE   cut the harness's stream into writes: none, octet (one octet per write),\n"
		"                     random (random cuts through headers, markers and CRCs), coalesce (several\n"
		"                     FPDUs per write: the harness's octets are written together before each wait)\n"
		"  --markers on|off   cases that open connections with `startup` ask for markers both ways\n"
		"                     (the DUT is asked to want them when its configuration says markers = yes)\n"
		"  --crc on|off       off: `startup` sends C=0 and a DUT with crc = optional-off is put in its\n"
		"                     no-CRC mode, so CRCs are off where the case allows (default on)\n"
		"  --seed N           seed of the random choices: 0 to 2^64-1, decimal or 0x hex (default 1)\n"
		"  --jobs N           cases at a time, each on its own connections (default 40 against the\n"
		"                     built-in DUT, whose cases mostly wait on timers; 1 against any other DUT;\n"
		"                     docs/dut-config.md says what more means for tcp: and exec: DUTs; cases\n"
		"                     that would meet in the reflector's one buffer do not run at once)\n"
		"  --no-progress      no live progress line\n"
		"  --html             also write report.html: one self-contained file for a lab or a vendor\n"
		"  --pcap             also write pcap/<case>.pcap: each case's own connections, for Wireshark\n"
		"  --expect FILE      compare every result with a baseline (CASE-ID[@PROFILE] VERDICT\n"
		"                     [: [REQ-ID] {OUTCOME} note] per line: the verdict, the rule a FAIL or WARN\n"
		"                     rests on, what the DUT did); differences are listed regressions first\n"
		"  --expect-fail-on WHAT  which differences make the exit status 1: any (the default: every\n"
		"                     difference, a known failure now passing too) or regressions (a worse\n"
		"                     verdict, a new case that fails, the same verdict after other behaviour)\n"
		"  --write-expect FILE  write this run's verdicts as a baseline\n"
		"  --raw-link NETNS:IFNAME  connect to a tcp: DUT over the raw segment path: the harness's own TCP\n"
		"                     through the TAP device IFNAME in namespace NETNS (docs/raw-segments.md);\n"
		"                     cases with `segments` steps need it and SKIP without it\n"
		"  --keep-going       run every case even when the DUT cannot be reached; without it a tcp: DUT\n"
		"                     gets one connection attempt before the first case (a refusal stops the\n"
		"                     run at once, silence after connect_timeout), and a run whose first\n"
		"                     finished case could not connect, while none has, stops there\n"
		"  --wait-dut DURATION  a responder DUT started together with the run (e.g. 10s, 500ms): until\n"
		"                     a case has reached it, a connection it refuses (nothing listens yet) is\n"
		"                     tried again, after 100 ms doubling to 1 s, until DURATION after the run\n"
		"                     began, said once on stderr; then the run stops as without it (exit 3).\n"
		"                     Later refusals are judged as ever. Overrides the configuration's\n"
		"                     wait_dut; 0s: no wait (the default)\n"
		"\n"
		"Every argument is checked before anything runs (the report directory is created then).\n"
		"\n"
		"exit status: 0 no case failed and at least one ran, 1 a case failed (with --expect: a result\n"
		"differs from the baseline as --expect-fail-on counts), 2 bad usage or configuration (a bad\n"
		"option, a missing case file, an empty or unreadable DUT configuration, a report directory\n"
		"that cannot be written),\n"
		"3 no case selected or ran, a harness error, or the DUT could not be reached (the run stopped,\n"
		"with --wait-dut once the wait ran out; the reports hold the cases that ran, marked\n"
		"incomplete), 4 the DUT contradicts its declared configuration (every ERROR is a case that\n"
		"needs what the configuration declares and the DUT's frames deny, e.g. markers = yes and\n"
		"M=0; said once, with the key), 130/143 interrupted by SIGINT/SIGTERM (partial reports,\n"
		"marked incomplete)\n",
		names);
}

static int bad(const char *fmt, const char *a)
{
	fprintf(stderr, "iwspec run: ");
	fprintf(stderr, fmt, a);
	fprintf(stderr, "\n");
	return IW_EXIT_USAGE;
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"dut", required_argument, 0, 'D'},     {"dut-config", required_argument, 0, 'C'},
		{"profile", required_argument, 0, 'p'}, {"role", required_argument, 0, 'r'},
		{"cases", required_argument, 0, 'c'},   {"case-dir", required_argument, 0, 'd'},
		{"report", required_argument, 0, 'o'},  {"resegment", required_argument, 0, 's'},
		{"seed", required_argument, 0, 'S'},    {"no-progress", no_argument, 0, 'n'},
		{"markers", required_argument, 0, 'M'}, {"crc", required_argument, 0, 'K'},
		{"html", no_argument, 0, 'H'},          {"pcap", no_argument, 0, 'P'},
		{"expect", required_argument, 0, 'E'},  {"write-expect", required_argument, 0, 'W'},
		{"jobs", required_argument, 0, 'j'},    {"help", no_argument, 0, 'h'},
		{"keep-going", no_argument, 0, 'k'},    {"raw-link", required_argument, 0, 'R'},
		{"wait-dut", required_argument, 0, 'w'},  {"expect-fail-on", required_argument, 0, 'F'},
		{0, 0, 0, 0},
	};
	const char *raw_link = NULL;
	const char *wait = NULL;
	const char *fail_on = NULL;
	int64_t wait_ms = 0;
	char wait_how[80];
	const char *dut = NULL, *config = NULL, *profile = NULL, *role = NULL, *select = NULL, *case_dir = NULL;
	const char *report = "out/latest";
	iw_run_outputs outs = {0};
	iw_run_opts o;
	memset(&o, 0, sizeof o);
	o.seed = 1;
	bool progress = isatty(STDOUT_FILENO);
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'D': dut = optarg; break;
		case 'C': config = optarg; break;
		case 'p': profile = optarg; break;
		case 'r': role = optarg; break;
		case 'c': select = optarg; break;
		case 'd': case_dir = optarg; break;
		case 'o': report = optarg; break;
		case 's':
			if (iw_seg_mode_parse(optarg, &o.seg))
				return bad("--resegment '%s' is not a mode; use none, octet, random or coalesce", optarg);
			break;
		case 'S': {
			iw_err se;
			if (iw_cli_parse_seed("--seed", optarg, &o.seed, &se))
				return bad("%s", se.msg);
			break;
		}
		case 'M':
		case 'K': {
			bool on = !strcmp(optarg, "on"), off = !strcmp(optarg, "off");
			if (!on && !off)
				return bad(c == 'M' ? "--markers '%s': use on or off" : "--crc '%s': use on or off", optarg);
			if (c == 'M')
				o.frame_markers = on;
			else
				o.frame_no_crc = off;
			break;
		}
		case 'j': {
			char *end;
			long j = strtol(optarg, &end, 10);
			if (*end || j < 1 || j > IW_RUNNER_MAX_JOBS)
				return bad("--jobs '%s': use a number of cases at a time from 1 to 64",
					   optarg);
			o.jobs = (int)j;
			break;
		}
		case 'n': progress = false; break;
		case 'k': o.keep_going = true; break;
		case 'R': raw_link = optarg; break;
		case 'w': {
			iw_err we;
			if (iw_cli_parse_wait("--wait-dut", optarg, &wait_ms, &we))
				return bad("%s", we.msg);
			wait = optarg;
			break;
		}
		case 'H': outs.html = true; break;
		case 'P': outs.pcap = true; break;
		case 'E': outs.expect = optarg; break;
		case 'F':
			if (strcmp(optarg, "any") && strcmp(optarg, "regressions"))
				return bad("--expect-fail-on takes any or regressions, not '%s'", optarg);
			outs.fail_on_regressions = !strcmp(optarg, "regressions");
			fail_on = optarg;
			break;
		case 'W': outs.write_expect = optarg; break;
		case 'h': usage(stdout); return IW_EXIT_OK;
		default:
			if (optopt == 'w') {
				iw_err we;
				iw_cli_parse_wait("--wait-dut", "", NULL, &we);
				return bad("%s", we.msg);
			}
			return bad("unknown or incomplete option '%s'; see 'iwspec run --help'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad("unexpected argument '%s'; see 'iwspec run --help'", argv[optind]);
	if (fail_on && !outs.expect)
		return bad("--expect-fail-on %s needs --expect FILE: it says which differences from a baseline fail "
			   "the run", fail_on);
	iw_dut_config_default(&o.dut);
	iw_err e;
	if (config && iw_cli_check_dut_config(config, &e))
		return bad("%s", e.msg);
	if (select && iw_cli_check_case_path(select, &e))
		return bad("%s", e.msg);
	if (config && iw_dut_config_load(&o.dut, config, &e)) {
		fprintf(stderr, "iwspec run: %s\n", e.msg);
		return IW_EXIT_USAGE;
	}
	if (dut && iw_dut_config_set(&o.dut, "dut", dut, &e))
		return bad("%s", e.msg);
	if (profile && !strcmp(profile, "all")) {
		o.all_profiles = true;
	} else if (profile && iw_dut_config_set(&o.dut, "profile", profile, &e)) {
		return bad("%s", e.msg);
	}
	if (role && iw_dut_config_set(&o.dut, "role", role, &e))
		return bad("%s", e.msg);
	/* The command line wins over the configuration's wait_dut. */
	if (wait) {
		o.dut.wait_dut_ms = wait_ms;
		snprintf(wait_how, sizeof wait_how, "--wait-dut %.60s", wait);
		o.wait_dut_how = wait_how;
	}
	if (raw_link && iw_dut_config_set(&o.dut, "raw_link", raw_link, &e))
		return bad("--raw-link: %s", e.msg);
	if (o.dut.raw_ifname[0] && strncmp(o.dut.dut, "tcp:", 4))
		return bad("the raw segment path (raw_link) needs a DUT given as tcp:A.B.C.D:PORT, not '%s'", o.dut.dut);
	if (iw_dut_config_check(&o.dut, &e))
		return bad("%s", e.msg);
	/* The built-in DUT plays whichever role a case needs unless a role was declared. */
	o.role_fixed = o.dut.role_set || strncmp(o.dut.dut, "ref", 3) != 0;
	iw_catalog cat;
	if (iw_catalog_load(&cat, case_dir, select, argv[0], &e)) {
		fprintf(stderr, "iwspec run: %s\n", e.msg);
		return IW_EXIT_USAGE;
	}
	/* A requirement that is not a catalog row would reach the reports with no level or words. */
	if (iw_catalog_check_reqs(&cat, &e)) {
		fprintf(stderr, "iwspec run: %s\n", e.msg);
		iw_catalog_free(&cat);
		return IW_EXIT_USAGE;
	}
	if (cat.n == 0) {
		fprintf(stderr, "iwspec run: no case matches '%s'; 'iwspec list' shows the ids\n", select ? select : "*");
		iw_catalog_free(&cat);
		return IW_EXIT_ERROR;
	}
	/* A bad baseline is a usage error before anything runs. */
	iw_baseline base;
	memset(&base, 0, sizeof base);
	if (outs.expect && iw_baseline_load(&base, outs.expect, &e)) {
		fprintf(stderr, "iwspec run: %s\n", e.msg);
		iw_catalog_free(&cat);
		return IW_EXIT_USAGE;
	}
	/* The outputs last: creating the report directory is the first thing the run leaves behind. */
	if ((outs.write_expect && iw_cli_check_out_file("--write-expect", outs.write_expect, &e)) ||
	    iw_cli_check_report_dir(*report ? report : ".", &e)) {
		fprintf(stderr, "iwspec run: %s\n", e.msg);
		iw_baseline_free(&base);
		iw_catalog_free(&cat);
		return IW_EXIT_USAGE;
	}
	outs.report_dir = report;
	iw_run run;
	memset(&run, 0, sizeof run);
	iw_provenance_command(&run, argc, argv);
	snprintf(run.selection, sizeof run.selection, "%s", select ? select : "*");
	iw_provenance_dut(&run, &o.dut);
	iw_vectors_locate(cat.dir, run.vectors_dir, sizeof run.vectors_dir);
	run.nvectors = iw_vectors_hash(run.vectors_dir, run.vectors_sha256, sizeof run.vectors_sha256);
	int status;
	if (progress) {
		o.on_result = print_progress;
		o.on_result_ctx = stdout;
	}
	o.on_wait = say_wait;
	o.on_wait_ctx = stderr;
	iw_interrupt_install();
	int rrc = iw_runner_run(&o, cat.cases, cat.n, &run, &e);
	if (rrc) {
		fprintf(stderr, "iwspec run: %s\n", e.msg);
		status = IW_EXIT_ERROR;
	} else {
		status = iw_run_finish(&outs, outs.expect ? &base : NULL, &run, stdout);
	}
	iw_interrupt_uninstall();
	iw_baseline_free(&base);
	iw_run_free(&run);
	iw_catalog_free(&cat);
	return status;
}
