/* Helpers of the report tests (report_fixture.h). */
#include "report_fixture.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

char *rp_scratch_dir(void)
{
	static char tmpl[64];
	snprintf(tmpl, sizeof tmpl, "/tmp/iwspec-reports-XXXXXX");
	return mkdtemp(tmpl);
}

void rp_rm_rf(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		chmod(path, 0700);
		DIR *d = opendir(path);
		if (d) {
			struct dirent *de;
			while ((de = readdir(d))) {
				if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
					continue;
				char sub[1024];
				snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
				rp_rm_rf(sub);
			}
			closedir(d);
		}
		rmdir(path);
	} else {
		unlink(path);
	}
}

char *rp_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *b = malloc(cap + 1);
	size_t got;
	while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *nb = realloc(b, cap * 2 + 1);
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (b)
		b[n] = '\0';
	if (len)
		*len = n;
	return b;
}

int rp_count_entries(const char *dir, int *ntmp)
{
	int n = 0;
	*ntmp = 0;
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		size_t l = strlen(de->d_name);
		if (de->d_name[0] == '.' && l > 4 && !strcmp(de->d_name + l - 4, ".tmp"))
			(*ntmp)++;
	}
	closedir(d);
	return n;
}

iw_case_result *rp_add_case(iw_run *run, const char *id, enum iw_verdict v, const char *reason)
{
	iw_case_result *r = iw_run_add(run);
	if (!r)
		return NULL;
	snprintf(r->id, sizeof r->id, "%s", id);
	snprintf(r->title, sizeof r->title, "title of %s", id);
	snprintf(r->file, sizeof r->file, "cases/mpa/6.1/%s.iwt", id);
	snprintf(r->profile, sizeof r->profile, "rfc5044");
	r->nreqs = 2;
	snprintf(r->reqs[0].id, sizeof r->reqs[0].id, "MPA-6.1-R5");
	r->reqs[0].level = IW_LEVEL_MUST;
	snprintf(r->reqs[1].id, sizeof r->reqs[1].id, "MPA-6.1.1-02");
	r->reqs[1].level = IW_LEVEL_SHOULD;
	r->verdict = v;
	snprintf(r->reason, sizeof r->reason, "%s", reason);
	r->start_unix_ms = 1714566896789LL;     /* 2024-05-01T12:34:56.789Z */
	r->duration_ms = 12;
	return r;
}

void rp_make_run(iw_run *run)
{
	memset(run, 0, sizeof *run);
	snprintf(run->tool_version, sizeof run->tool_version, "0.1.0");
	snprintf(run->git_rev, sizeof run->git_rev, "abc1234");
	snprintf(run->dut, sizeof run->dut, "tcp:10.0.0.2:5000");
	snprintf(run->dut_config_source, sizeof run->dut_config_source, "duts/lab.conf");
	snprintf(run->profile, sizeof run->profile, "rfc5044");
	snprintf(run->role, sizeof run->role, "responder");
	snprintf(run->host, sizeof run->host, "lab-7");
	snprintf(run->seg_mode, sizeof run->seg_mode, "whole");
	run->seed = 42;
	run->start_unix_ms = 1714566896000LL;
	run->end_unix_ms = 1714566898500LL;
	run->complete = true;

	rp_add_case(run, "mpa.startup.req.happy-path", IW_PASS, "");
	iw_case_result *f = rp_add_case(run, "mpa.startup.req.bad-key", IW_FAIL,
					"expected close within 1000 ms, saw FPDU ULPDU_Length=20");
	snprintf(f->failed_req, sizeof f->failed_req, "MPA-6.1-R5");
	static const uint8_t req[] = { 0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52 };
	iw_result_wire(f, IW_TO_DUT, 1, 150, "request", req, sizeof req, "Request key=bad M=0 C=1 Rev=%d", 1);
	iw_result_wire(f, IW_FROM_DUT, 1, 2300, "fpdu", (const uint8_t *)"\x00\x14\xab", 3, "FPDU len=20");
	iw_result_wire(f, IW_NOTE, 1, 2400, "note", NULL, 0, "oracle: no close seen");
	iw_case_result *w = rp_add_case(run, "mpa.startup.reply.rst-after-reject", IW_WARN,
					"RST 3 ms after R=1 (A10: warning)");
	snprintf(w->failed_req, sizeof w->failed_req, "MPA-6.1-R2e");
	iw_case_result *i = rp_add_case(run, "mpa.startup.timeout.reply", IW_INFO, "closed after 1500 ms");
	i->nmeasures = 1;
	snprintf(i->measures[0].name, sizeof i->measures[0].name, "close_after_bad_request_ms");
	i->measures[0].value = 1500.5;
	snprintf(i->measures[0].unit, sizeof i->measures[0].unit, "ms");
	rp_add_case(run, "mpa.markers.recv.basic", IW_SKIP, "needs markers");
	iw_case_result *er = rp_add_case(run, "ddp.tagged.bounds.write", IW_ERROR, "connect: Connection refused");
	er->dut_finding = true;
	snprintf(er->dut_finding_text, sizeof er->dut_finding_text, "killed by signal 11\nstderr: boom");
	er->nmappings = 1;
	snprintf(er->mappings[0], sizeof er->mappings[0], "LLP error type 3 read as 0");
}
