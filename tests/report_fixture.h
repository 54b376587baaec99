/*
 * report_fixture.h - what the report tests share (tests/test_reports_*.c, defined in
 * report_fixture.c): scratch directories and files, hostile DUT text, and a run with one case
 * of every verdict.
 */
#ifndef IW_TEST_REPORT_FIXTURE_H
#define IW_TEST_REPORT_FIXTURE_H

#include "check.h"

#include "result.h"

/* ---- scratch files ---- */

/* A new directory under /tmp (a static buffer, rewritten by the next call), or NULL. */
char *rp_scratch_dir(void);

/* Removes path and, for a directory, everything under it (made writable first). */
void rp_rm_rf(const char *path);

/* The whole file, NUL-terminated, to free(), its length in *len (len may be NULL); NULL if it
 * cannot be read. */
char *rp_read_file(const char *path, size_t *len);

/* Entries of dir other than . and .., and how many of them look like our temp files. */
int rp_count_entries(const char *dir, int *ntmp);

/* ---- a run with one case of every verdict ---- */

/* DUT text with quotes, markup, an entity, controls, an escape sequence, invalid UTF-8 and a
 * CDATA end: what every report field must survive. */
#define RP_HOSTILE "q\"uo'te <tag> & amp; \x01\x1b[31m \xff\xfe bad \xc0\xaf ]]> end"

/* Appends a case of id with verdict v and reason (rfc5044, two requirements, MUST and SHOULD). */
iw_case_result *rp_add_case(iw_run *run, const char *id, enum iw_verdict v, const char *reason);

/* A complete run of six cases, PASS, FAIL (with a wire log), WARN, INFO (with a measure), SKIP
 * and ERROR (with a DUT finding and a mapping), in that order. */
void rp_make_run(iw_run *run);

#endif
