/*
 * report_dir.c - both report files into one directory, as `iwspec run --report DIR` wants.
 */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int iw_report_write_all(const iw_run *run, const char *dir, iw_err *e)
{
	if (!dir || !*dir)
		dir = ".";
	size_t n = strlen(dir) + sizeof IW_REPORT_JUNIT_NAME + sizeof IW_REPORT_JSON_NAME + 2;
	char *p = malloc(n);
	if (!p)
		return iw_errf(e, -1, "cannot write reports into '%s': out of memory", dir);
	iw_err e2 = {{0}};
	snprintf(p, n, "%s/%s", dir, IW_REPORT_JSON_NAME);
	int rc = iw_report_json(run, p, e);
	snprintf(p, n, "%s/%s", dir, IW_REPORT_JUNIT_NAME);
	if (iw_report_junit(run, p, rc ? &e2 : e) != 0)
		rc = -1;
	free(p);
	return rc;
}
