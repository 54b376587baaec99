/*
 * test_exec_early_octets.c - a Reply that does not come (review finding F11): owed to a valid
 * Request (MPA-6.1-R2a, iwspec's reading of rule 2), but only R2f's SHOULD when the harness sent
 * octets behind its Request before any Reply, as an initiator must not: what a responder does
 * with them is unspecified (A6).
 */
#include "check.h"

#include <string.h>

#include "exec_fixture.h"

static const char *const EARLY_CASE = "id: test.exec.early-octets\n"
				      "title: octets behind the Request, then no Reply\n"
				      "requirement: MPA-6.1-R2f SHOULD\n"
				      "requirement: MPA-6.1-R2a MUST\n"
				      "role: responder\n"
				      "\n"
				      "connect\n"
				      "send request\n"
				      "send raw x\"00 04 00 00 00 04 de ad be ef 00 00 11 22 33 44\"\n"
				      "expect reply r=0\n";

static const char *const PLAIN_CASE = "id: test.exec.no-reply\n"
				      "title: a valid Request, then no Reply\n"
				      "requirement: MPA-6.1-R2f SHOULD\n"
				      "requirement: MPA-6.1-R2a MUST\n"
				      "role: responder\n"
				      "\n"
				      "connect\n"
				      "send request\n"
				      "expect reply r=0\n";

/* A DUT that reads the Request and closes without a Reply, as siw resets on early octets. */
static void no_reply_in(enum iw_profile_id profile, const char *text, const char *verdict, const char *req)
{
	scripted_dut d = {0};
	d.close_after = true;   /* reply_len 0: nothing to answer, then the close */
	dut_start(&d);
	iw_run run;
	exec_cfg cfg = {.profile = profile};
	run_against_cfg(&d, text, &cfg, &run);
	iw_case_result *r = &run.cases[0];
	CHECK_STR(iw_verdict_name(r->verdict), verdict);
	CHECK_STR(r->failed_req, req);
	iw_run_free(&run);
	dut_stop(&d);
}

static void no_reply(const char *text, const char *verdict, const char *req)
{
	no_reply_in(IW_PROFILE_RFC5044, text, verdict, req);
}

TEST(exec_no_reply_after_early_octets_is_r2f)
{
	no_reply(EARLY_CASE, "WARN", "MPA-6.1-R2f");
}

TEST(exec_no_reply_to_a_valid_request_is_r2a)
{
	no_reply(PLAIN_CASE, "FAIL", "MPA-6.1-R2a");
}

/* Private data is part of the Request, not octets behind it: all of PD_Length counts, the
 * IRD/ORD block of an enhanced frame included (rfc6581's Request carries 4 more octets than the
 * case's own private data). */
TEST(exec_no_reply_to_a_request_with_private_data_is_r2a)
{
	static const char *const text = "id: test.exec.no-reply-pd\n"
					 "title: a valid Request with private data, then no Reply\n"
					 "requirement: MPA-6.1-R2f SHOULD\n"
					 "requirement: MPA-6.1-R2a MUST\n"
					 "role: responder\n"
					 "\n"
					 "connect\n"
					 "send request pd=\"split\"\n"
					 "expect reply r=0\n";
	no_reply(text, "FAIL", "MPA-6.1-R2a");
	/* Under RFC 6581 the Request's private data begins with the IRD/ORD block: PD_Length is 4
	 * more than the case's octets, and all of them are the Request's, none early. */
	no_reply_in(IW_PROFILE_RFC6581, text, "FAIL", "MPA-6.1-R2a");
	no_reply_in(IW_PROFILE_RFC6581, PLAIN_CASE, "FAIL", "MPA-6.1-R2a");
	no_reply_in(IW_PROFILE_RFC6581, EARLY_CASE, "WARN", "MPA-6.1-R2f");
}
