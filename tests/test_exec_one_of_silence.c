/*
 * test_exec_one_of_silence.c - the alternatives of `expect one-of` judge one stream of the DUT's
 * (issue 39): the silence one alternative waited out is not waited out again by the next, so a
 * frame that comes after the bound is late for every alternative, not matched by whichever one
 * was waiting when it came. Against siw, three alternatives wanting a Terminate that never came
 * took three bounds (25 s a case), and a Terminate a little late matched the second or third
 * alternative on some runs and no alternative on others: one verdict, two answers.
 */
#include "check.h"

#include <string.h>

#include "exec_fixture.h"

static const char *LATE_CASE = "id: test.exec.one-of-late\n"
			       "title: a one-of whose answer comes after its bound\n"
			       "requirement: MPA-4-02 MUST\n"
			       "role: responder\n"
			       "\n"
			       "connect\n"
			       "send request\n"
			       "expect reply\n"
			       "send send data=\"abcde\"\n"
			       "expect one-of\n"
			       "  - send data=\"other\" within=500ms\n"
			       "  - send data=\"abcde\" within=500ms\n"
			       "  - close within=500ms\n"
			       "end\n";

/* Runs text against a DUT that answers the Request with a Reply and the harness's next octets
 * with the echo of a Send of "abcde", delay_ms after they came. */
static void run_echo_after(const char *text, int delay_ms, iw_run *run)
{
	scripted_dut d = {0};
	d.reply_len = good_reply(d.reply, sizeof d.reply);
	d.after_len = send_fpdu("abcde", d.after, sizeof d.after);
	d.after_delay_ms = delay_ms;
	dut_start(&d);
	run_against(&d, text, run);
	dut_stop(&d);
}

TEST(exec_one_of_counts_the_silence_once)
{
	/* The echo comes 800 ms after the Send: after the bound of 500 ms of every alternative, and
	 * before the second alternative's bound ended when each waited on its own (it matched). */
	iw_run run;
	run_echo_after(LATE_CASE, 800, &run);
	const iw_case_result *r = &run.cases[0];
	CHECK_STR(iw_verdict_name(r->verdict), "FAIL");
	/* Nothing was read for any alternative, and each says the bound it had, not what was left
	 * of it. */
	CHECK(strstr(r->reason, "(1) send: expected an FPDU, nothing arrived in time") != NULL);
	CHECK(strstr(r->reason, "(2) send: expected an FPDU, nothing arrived in time") != NULL);
	CHECK(strstr(r->reason, "within 500 ms") != NULL);
	iw_run_free(&run);
}

TEST(exec_one_of_still_matches_an_answer_in_time)
{
	/* The same case with the echo at once: the second alternative reads it, after the first
	 * failed on its data, without waiting. */
	iw_run run;
	run_echo_after(LATE_CASE, 0, &run);
	CHECK_STR(iw_verdict_name(run.cases[0].verdict), "PASS");
	iw_run_free(&run);
}

TEST(exec_one_of_silence_counts_the_silence_waited_before_it)
{
	/* A close that does not come within 500 ms is a silence of 500 ms: `silence 500ms` after it
	 * holds at once, and the DUT's Send 800 ms after the harness's is outside both. */
	static const char *text = "id: test.exec.one-of-silence\n"
				  "title: a silence after a close waited out\n"
				  "requirement: MPA-4-02 MUST\n"
				  "role: responder\n"
				  "\n"
				  "connect\n"
				  "send request\n"
				  "expect reply\n"
				  "send send data=\"abcde\"\n"
				  "expect one-of\n"
				  "  - close within=500ms\n"
				  "  - silence 500ms\n"
				  "end\n";
	iw_run run;
	run_echo_after(text, 800, &run);
	CHECK_STR(iw_verdict_name(run.cases[0].verdict), "PASS");
	iw_run_free(&run);
}
