/*
 * run_reports.c - writing everything a run leaves behind, and its exit status (run_reports.h).
 */
#include "run_reports.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"

/* The ERRORs that are the DUT contradicting its configuration: how many, and the keys it
 * contradicted ("markers, rping_size") in keys. */
static size_t contradictions(const iw_run *run, char *keys, size_t cap)
{
	const char *seen[8];
	size_t n = 0, nseen = 0, used = 0;
	keys[0] = '\0';
	for (size_t i = 0; i < run->ncases; i++) {
		const char *k = run->cases[i].dut_contradicts;
		if (run->cases[i].verdict != IW_ERROR || !k[0])
			continue;
		n++;
		size_t j = 0;
		while (j < nseen && strcmp(seen[j], k))
			j++;
		if (j < nseen || nseen == sizeof seen / sizeof seen[0] || used >= cap)
			continue;
		seen[nseen++] = k;
		int w = snprintf(keys + used, cap - used, "%s%s", used ? ", " : "", k);
		used += w > 0 ? (size_t)w : 0;
	}
	return n;
}

static int failed(FILE *console, const iw_err *e)
{
	(void)console;
	fprintf(stderr, "iwspec run: %s\n", e->msg);
	return 1;
}

int iw_run_finish(const iw_run_outputs *out, iw_baseline *b, iw_run *run, FILE *console)
{
	const char *dir = out->report_dir && *out->report_dir ? out->report_dir : ".";
	char path[1200];
	iw_err e;
	int werr = 0;
	iw_run_count(run);

	/* The baseline first: report.html shows its differences. */
	char **diffs = NULL;
	size_t ndiffs = 0;
	if (b) {
		ndiffs = iw_baseline_compare(b, run, &diffs);
		if (ndiffs == (size_t)-1) {
			fprintf(stderr, "iwspec run: out of memory comparing with the baseline\n");
			ndiffs = 0;
			werr = 1;
		}
	}

	snprintf(path, sizeof path, "%s/%s", dir, IW_REPORT_JSON_NAME);
	if (iw_report_json(run, path, &e))
		werr |= failed(console, &e);
	snprintf(path, sizeof path, "%s/%s", dir, IW_REPORT_JUNIT_NAME);
	if (iw_report_junit(run, path, &e))
		werr |= failed(console, &e);
	long npcap = 0;
	if (out->pcap) {
		snprintf(path, sizeof path, "%s/%s", dir, IW_REPORT_PCAP_DIR);
		npcap = iw_report_pcaps(run, path, &e);
		if (npcap < 0)
			werr |= failed(console, &e);
	}
	if (out->html) {
		iw_html_opts ho = {.pcap_links = out->pcap, .baseline = b ? out->expect : NULL, .ndiffs = ndiffs,
				   .diffs = diffs};
		snprintf(path, sizeof path, "%s/%s", dir, IW_REPORT_HTML_NAME);
		if (iw_report_html(run, &ho, path, &e))
			werr |= failed(console, &e);
	}
	if (out->write_expect && iw_baseline_write(run, out->write_expect, &e))
		werr |= failed(console, &e);

	iw_console_summary(console, run, dir);
	if (out->html)
		fprintf(console, "  report:  %s/%s\n", dir, IW_REPORT_HTML_NAME);
	if (out->pcap && npcap >= 0)
		fprintf(console, "  pcaps:   %s/%s/ (%ld files)\n", dir, IW_REPORT_PCAP_DIR, npcap);
	if (out->write_expect)
		fprintf(console, "  baseline written: %s\n", out->write_expect);
	if (b) {
		if (ndiffs) {
			fprintf(console, "\n  %zu difference%s from the baseline %s: %zu regression%s, %zu changed behaviour, "
				"%zu not listed or not run, %zu now passing (listed in that order):\n", ndiffs,
				ndiffs == 1 ? "" : "s", out->expect, b->ndiff[IW_DIFF_REGRESSION],
				b->ndiff[IW_DIFF_REGRESSION] == 1 ? "" : "s", b->ndiff[IW_DIFF_CHANGED],
				b->ndiff[IW_DIFF_UNLISTED], b->ndiff[IW_DIFF_IMPROVED]);
			/* The lines quote DUT text: the console writer's escaping is not at hand, so keep
			 * printable ASCII and UTF-8, and show control characters as '?'. */
			for (size_t i = 0; i < ndiffs; i++) {
				fputs("    ", console);
				for (const unsigned char *p = (const unsigned char *)diffs[i]; *p; p++)
					fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, console);
				fputc('\n', console);
			}
		} else {
			fprintf(console, "\n  baseline %s: every result as expected\n", out->expect);
		}
	}
	fflush(console);
	iw_baseline_diffs_free(diffs, ndiffs);

	/* One message for a DUT that is not there, after the reports (which hold what ran). */
	if (run->stopped[0]) {
		fprintf(console, "\n  STOPPED: %s\n  %zu of the selected cases did not run. Check that the DUT is up and "
			"listening where --dut (or the configuration's dut) says (--wait-dut DURATION waits for one that "
			"starts with the run), or pass --keep-going to run every case anyway.\n", run->stopped, run->not_started);
		fflush(console);
		return IW_EXIT_ERROR;
	}
	if (!run->complete) {
		int sig = run->stop_signal ? run->stop_signal : SIGINT;
		fprintf(console, "\n  INCOMPLETE: interrupted by %s; the reports above are partial and marked so\n",
			sig == SIGTERM ? "SIGTERM" : "SIGINT");
		fflush(console);
		return IW_EXIT_SIGNAL_BASE + sig;
	}
	/* A DUT that denies what its configuration declares: said once, with what to change, and its
	 * own exit status when nothing else went wrong, so that it does not read as an outage. */
	char keys[128];
	size_t ncontra = contradictions(run, keys, sizeof keys);
	if (ncontra) {
		fprintf(console, "\n  DUT CONFIGURATION: %zu case%s not judged: the DUT contradicts its declared configuration "
			"(%s; the ERROR reasons say how). Correct the declaration (--dut-config, docs/dut-config.md) or set "
			"the DUT up as declared.\n", ncontra, ncontra == 1 ? "" : "s", keys);
		fflush(console);
	}
	size_t ran = run->ncases - run->counts[IW_SKIP];
	if (werr || ran == 0)
		return IW_EXIT_ERROR;
	if (b && out->fail_on_regressions)
		return b->ndiff[IW_DIFF_REGRESSION] + b->ndiff[IW_DIFF_CHANGED] ? IW_EXIT_FAIL : IW_EXIT_OK;
	if (b)
		return ndiffs ? IW_EXIT_FAIL : IW_EXIT_OK;
	if (run->counts[IW_ERROR])
		return ncontra == run->counts[IW_ERROR] ? IW_EXIT_CONTRADICTS : IW_EXIT_ERROR;
	return run->counts[IW_FAIL] ? IW_EXIT_FAIL : IW_EXIT_OK;
}
