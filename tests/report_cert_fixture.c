/* Helpers of the certification-report tests (report_cert_fixture.h). */
#include "report_cert_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

iw_case_result *rc_add(iw_run *run, const char *id, enum iw_verdict v, const char *reason)
{
	/* report_fixture's case, with what these tests assert on: one MUST, a DUT role, a short path. */
	iw_case_result *r = rp_add_case(run, id, v, reason);
	if (!r)
		return NULL;
	snprintf(r->file, sizeof r->file, "cases/%s.iwt", id);
	snprintf(r->dut_role, sizeof r->dut_role, "responder");
	r->nreqs = 1;
	snprintf(r->reqs[0].id, sizeof r->reqs[0].id, "MPA-6.1.1-06");
	r->duration_ms = 3;
	return r;
}

const uint8_t RC_REPLY[20] = {'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'p', ' ', 'F', 'r', 'a', 'm', 'e',
			      0x40, 0x02, 0x00, 0x00};
const uint8_t RC_REQUEST[20] = {'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'q', ' ', 'F', 'r', 'a', 'm', 'e',
				0x40, 0x01, 0x00, 0x00};

void rc_make_run(iw_run *run)
{
	memset(run, 0, sizeof *run);
	snprintf(run->tool_version, sizeof run->tool_version, "0.1.0");
	snprintf(run->git_rev, sizeof run->git_rev, "abc1234");
	snprintf(run->dut, sizeof run->dut, "ref");
	snprintf(run->profile, sizeof run->profile, "rfc5044");
	snprintf(run->role, sizeof run->role, "per case");
	snprintf(run->host, sizeof run->host, "lab-7");
	snprintf(run->seg_mode, sizeof run->seg_mode, "none");
	snprintf(run->vectors_sha256, sizeof run->vectors_sha256, "none");
	snprintf(run->dut_settings, sizeof run->dut_settings, "dut = ref\nmarkers = yes");
	snprintf(run->disabled[run->ndisabled++], sizeof run->disabled[0], "mpa.x.* : firmware 2 lacks it");
	snprintf(run->maps[run->nmaps++], sizeof run->maps[0], "0/0/0x02 -> 3/0/0x02 : LLP type 3");
	run->seed = 7;
	run->start_unix_ms = 1714566896000LL;
	run->end_unix_ms = 1714566898500LL;
	run->complete = true;
	rc_add(run, "mpa.startup.resp.happy-path", IW_PASS, "");
	iw_case_result *f = rc_add(run, "mpa.startup.resp.rev", IW_FAIL,
				   "the DUT's Reply is not one a conforming responder sends: Rev 2, profile rfc5044 accepts 1..1 "
				   "(seen: key=Rep M=0 C=1 R=0 Res=0x00 Rev=2 PD_Length=0)");
	if (f) {
		iw_result_wire(f, IW_NOTE, 1, 10, "connect", NULL, 0, "connection 1 opened to the DUT");
		iw_result_wire(f, IW_TO_DUT, 1, 20, "request", RC_REQUEST, sizeof RC_REQUEST, "Request key=Req M=0 C=1 Rev=1");
		iw_result_wire(f, IW_FROM_DUT, 1, 30, "reply", RC_REPLY, sizeof RC_REPLY,
			       "Reply key=Rep M=0 C=1 R=0 Res=0x00 Rev=2 PD_Length=0 (20 octets)");
		iw_result_wire(f, IW_NOTE, 1, 40, "note", NULL, 0, "a note after the failure");
		snprintf(f->failed_req, sizeof f->failed_req, "MPA-6.1.1-06");
		iw_result_blame(f, "MPA-6.1.1-06");
		iw_result_tcp(f, IW_TCP_DATA, IW_TO_DUT, 1, 20, RC_REQUEST, sizeof RC_REQUEST);
		iw_result_tcp(f, IW_TCP_DATA, IW_FROM_DUT, 1, 30, RC_REPLY, sizeof RC_REPLY);
		snprintf(f->expected, sizeof f->expected, "14: expect reply r=0\n15: expect silence for=1000ms");
	}
	rc_add(run, "mpa.x.disabled", IW_SKIP, "disabled by the DUT configuration: firmware 2 lacks it");
}

bool rc_contains(const char *hay, const char *needle) { return hay && strstr(hay, needle) != NULL; }
