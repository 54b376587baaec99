/*
 * report_cert_fixture.h - what the certification-report tests share (tests/test_report_cert_*.c,
 * defined in report_cert_fixture.c): scratch directories and files, and a small run to report
 * on, with one failure that has a wire log, a blamed entry and a TCP capture.
 */
#ifndef IW_TEST_REPORT_CERT_FIXTURE_H
#define IW_TEST_REPORT_CERT_FIXTURE_H

#include "check.h"

#include <stdbool.h>
#include <stdint.h>

#include "result.h"

/* ---- scratch directories and files: report_fixture.h (rp_scratch_dir, rp_read_file, rp_rm_rf) ---- */

#include "report_fixture.h"

/* Whether hay (NULL: no) contains needle. */
bool rc_contains(const char *hay, const char *needle);

/* ---- a run to report on ---- */

/* Appends a case of id with verdict v and reason (rfc5044, DUT responder, MPA-6.1.1-06 MUST). */
iw_case_result *rc_add(iw_run *run, const char *id, enum iw_verdict v, const char *reason);

/* An RFC 5044 Reply with Rev 2, and a default Request (20 octets each). */
extern const uint8_t RC_REPLY[20];
extern const uint8_t RC_REQUEST[20];

/* A complete run of three cases: a PASS, a FAIL on the Reply's Rev (wire log, blame, TCP
 * capture, expectations) and a SKIP disabled by the DUT configuration. */
void rc_make_run(iw_run *run);

#endif
