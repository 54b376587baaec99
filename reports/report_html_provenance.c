/*
 * report_html_provenance.c - the #provenance section of report.html: what was run, where, when,
 * against which DUT and configuration (disabled cases and error-code mappings with the cases
 * they touched), with which seed, vectors and requirements catalog: what a reader needs to make
 * the run again.
 */
#include <stdio.h>
#include <string.h>

#include "report_html_int.h"
#include "req_catalog.h"

void html_section_provenance(hctx *h)
{
	const iw_run *run = h->run;
	char buf[256];
	html_out(h, "<section id=\"provenance\"><h2>Provenance</h2>\n<table class=\"kv\">\n");
	const char *version = run->tool_version[0] ? run->tool_version : "?";
	snprintf(buf, sizeof buf, "iwspec %.31s, commit %.47s", version, run->git_rev[0] ? run->git_rev : "unknown");
	html_kv(h, "tool", buf, strlen(buf), false);
	if (run->command[0])
		html_kv(h, "command", FIELD(run->command), false);
	html_kv(h, "host", FIELD(run->host), false);
	char t0[40], t1[40];
	html_time_text(run->start_unix_ms, t0, sizeof t0);
	html_time_text(run->end_unix_ms, t1, sizeof t1);
	html_kv(h, "start", t0, strlen(t0), false);
	html_kv(h, "end", t1, strlen(t1), false);
	if (run->end_unix_ms >= run->start_unix_ms && run->start_unix_ms > 0) {
		snprintf(buf, sizeof buf, "%.3f s", (double)(run->end_unix_ms - run->start_unix_ms) / 1000.0);
		html_kv(h, "duration", buf, strlen(buf), false);
	}
	if (run->complete) {
		html_kv(h, "complete", "yes", 3, false);
	} else {
		char why[600] = "NO: ";
		iw_run_incomplete_text(run, why + 4, sizeof why - 4);
		html_kv(h, "complete", why, strlen(why), false);
	}
	html_kv(h, "DUT", FIELD(run->dut), false);
	if (run->dut_config_source[0])
		html_kv(h, "DUT configuration file", FIELD(run->dut_config_source), false);
	else
		html_kv(h, "DUT configuration file", "(none: defaults and flags)", strlen("(none: defaults and flags)"), false);
	if (run->dut_settings[0])
		html_kv(h, "DUT configuration in effect", FIELD(run->dut_settings), true);
	html_kv(h, "profile", FIELD(run->profile), false);
	html_kv(h, "DUT role", FIELD(run->role), false);
	html_kv(h, "resegmentation", FIELD(run->seg_mode), false);
	snprintf(buf, sizeof buf, "%llu (each case's random choices derive from it and the case id)",
		 (unsigned long long)run->seed);
	html_kv(h, "seed", buf, strlen(buf), false);
	snprintf(buf, sizeof buf, "%d", run->jobs > 0 ? run->jobs : 1);
	html_kv(h, "cases at a time", buf, strlen(buf), false);
	if (run->selection[0])
		html_kv(h, "case selection", FIELD(run->selection), false);
	if (run->vectors_sha256[0]) {
		snprintf(buf, sizeof buf, "%.71s", run->vectors_sha256);
		if (run->nvectors)
			snprintf(buf + strlen(buf), sizeof buf - strlen(buf), " (sha256 over %zu vector files)", run->nvectors);
		html_kv(h, "vector set", buf, strlen(buf), false);
		if (run->vectors_dir[0])
			html_kv(h, "vector directory", FIELD(run->vectors_dir), false);
	}
	html_kv(h, "requirements catalog", iw_req_catalog_source, strlen(iw_req_catalog_source), false);

	/* Disabled cases of the configuration, and the cases they disabled. */
	html_out(h, "<tr><th>disabled cases</th><td>");
	if (!run->ndisabled)
		html_out(h, "none");
	for (size_t i = 0; i < run->ndisabled && i < IW_RUN_MAX_DISABLED; i++) {
		html_out(h, i ? "<br>" : "");
		html_out(h, "<code>disable = ");
		html_esc(h, FIELD(run->disabled[i]));
		html_out(h, "</code>");
	}
	bool any = false;
	for (size_t i = 0; i < run->ncases; i++) {
		const iw_case_result *r = &run->cases[i];
		if (html_verdict_of(r) != IW_SKIP || strncmp(r->reason, "disabled by the DUT configuration", 33))
			continue;
		html_out(h, any ? ", " : "<br>applied to: ");
		any = true;
		html_case_link(h, r, false);
	}
	html_out(h, "</td></tr>\n<tr><th>error-code mappings</th><td>");
	if (!run->nmaps)
		html_out(h, "none configured");
	for (size_t i = 0; i < run->nmaps && i < IW_RUN_MAX_MAPS; i++) {
		html_out(h, i ? "<br>" : "");
		html_out(h, "<code>map = ");
		html_esc(h, FIELD(run->maps[i]));
		html_out(h, "</code>");
	}
	any = false;
	for (size_t i = 0; i < run->ncases; i++) {
		const iw_case_result *r = &run->cases[i];
		size_t nmap = r->nmappings < 4 ? r->nmappings : 4;
		for (size_t k = 0; k < nmap; k++) {
			html_out(h, any ? "<br>" : "<br>applied:<br>");
			any = true;
			html_case_link(h, r, false);
			html_out(h, ": ");
			html_esc(h, FIELD(r->mappings[k]));
		}
	}
	html_out(h, "</td></tr>\n</table>\n</section>\n");
}
