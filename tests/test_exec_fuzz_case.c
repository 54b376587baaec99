/*
 * test_exec_fuzz_case.c - what the case of a fuzz finding needs from the executor
 * (docs/case-language.md): `resegment: coalesce` sends the octets of consecutive steps in the one
 * write the fuzz run made, whatever the run's --resegment, and `expect <msg> len=N` judges a
 * message's length alone (a Read Response of a buffer whose contents a case cannot know).
 */
#include "check.h"

#include <string.h>

#include "exec_fixture.h"

/* A Request and a Send at once, then the FIN, as a fuzz run sends them. */
static const char *FIN_CASE_HDR = "id: test.exec.fuzz\n"
				  "title: octets in the writes a fuzz run made\n"
				  "requirement: MPA-6.1-R2a MUST\n"
				  "role: responder\n";

static const char *FIN_CASE_STEPS = "\n"
				    "connect\n"
				    "send request\n"
				    "send send data=\"abc\"\n"
				    "close\n"
				    "expect reply\n"
				    "expect close within=2s\n";

/* The harness's data chunks to the DUT (one per write) in the case's capture. */
static size_t writes_to_dut(const iw_case_result *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->ntcp; i++)
		n += r->tcp[i].kind == IW_TCP_DATA && r->tcp[i].dir == IW_TO_DUT;
	return n;
}

static size_t writes_of(const char *extra_header)
{
	char text[1024];
	snprintf(text, sizeof text, "%s%s%s", FIN_CASE_HDR, extra_header, FIN_CASE_STEPS);
	scripted_dut d = {0};
	d.reply_len = good_reply(d.reply, sizeof d.reply);
	d.close_after = true;
	dut_start(&d);
	iw_run run;
	run_against(&d, text, &run);
	dut_stop(&d);
	CHECK_STR(iw_verdict_name(run.cases[0].verdict), "PASS");
	size_t n = writes_to_dut(&run.cases[0]);
	iw_run_free(&run);
	return n;
}

TEST(exec_resegment_coalesce_sends_the_steps_in_one_write)
{
	/* Without it each step is a write of its own; with it the Request and the Send go out
	 * together, before the FIN, as the fuzz run wrote them. */
	CHECK_EQ(writes_of(""), 2);
	CHECK_EQ(writes_of("resegment: coalesce\n"), 1);
}

static const char *LEN_CASE = "id: test.exec.len\n"
			      "title: a message's length alone\n"
			      "requirement: DDP-7.2-03 MUST\n"
			      "role: responder\n"
			      "\n"
			      "connect\n"
			      "send request\n"
			      "expect reply\n"
			      "send send data=\"x\"\n"
			      "expect send len=%d\n";

static void run_len(int len, iw_run *run)
{
	char text[512];
	snprintf(text, sizeof text, LEN_CASE, len);
	scripted_dut d = {0};
	d.reply_len = good_reply(d.reply, sizeof d.reply);
	d.after_len = send_fpdu("hello", d.after, sizeof d.after);
	dut_start(&d);
	run_against(&d, text, run);
	dut_stop(&d);
}

TEST(exec_expect_len_judges_the_length_alone)
{
	iw_run run;
	run_len(5, &run); /* "hello": five octets, whatever they are */
	CHECK_STR(iw_verdict_name(run.cases[0].verdict), "PASS");
	iw_run_free(&run);
	run_len(4, &run);
	CHECK_STR(iw_verdict_name(run.cases[0].verdict), "FAIL");
	CHECK_STR(run.cases[0].failed_req, "DDP-7.2-03");
	CHECK(strstr(run.cases[0].reason, "expected 4 payload octets, seen 5") != NULL);
	iw_run_free(&run);
}
