/*
 * Tests of the case language's raw segment steps (`segments fpdus=N` and `segment <op>`,
 * docs/case-language.md): what a good plan parses into, and the precise error of each way to
 * get one wrong (the line, what is wrong, what to write instead).
 */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"

static const char hdr[] = "id: t.x\ntitle: T\nrequirement: MPA-5.4-03 MUST\nrole: responder\nneeds: echo\n"
			  "startup\n";  /* 6 lines */

static char *with_hdr(const char *steps)
{
	static char buf[8192];
	snprintf(buf, sizeof buf, "%s%s", hdr, steps);
	return buf;
}

static void fails_(const char *file, int line, const char *steps, const char *w1, const char *w2)
{
	iw_case *c = NULL;
	iw_err e = { "" };
	const char *text = with_hdr(steps);
	if (iw_case_parse(text, strlen(text), "t.iwt", &c, &e) == 0) {
		check_fail(file, line, "parse succeeded, wanted an error with \"%s\"", w1);
		iw_case_free(c);
		return;
	}
	if (w1 && !strstr(e.msg, w1))
		check_fail(file, line, "message \"%s\" lacks \"%s\"", e.msg, w1);
	if (w2 && !strstr(e.msg, w2))
		check_fail(file, line, "message \"%s\" lacks \"%s\"", e.msg, w2);
}
#define FAILS(steps, w1, w2) fails_(__FILE__, __LINE__, steps, w1, w2)

TEST(case_segments_parse_plan)
{
	const char *steps = "segments fpdus=2\n"
			    "send send size=700\n"
			    "send send size=700\n"
			    "segment send fpdu=1\n"
			    "segment hold fpdu=0 off=0 len=100\n"
			    "segment drop off=100 len=300 dupacks=2\n"
			    "segment send off=400 len=100\n"
			    "segment send off=500 len=100\n"
			    "segment wait-dupacks 1\n"
			    "segment release\n"
			    "expect send size=700\n";
	const char *text = with_hdr(steps);
	iw_case *c = NULL;
	iw_err e;
	CHECK_EQ(iw_case_parse(text, strlen(text), "t.iwt", &c, &e), 0);
	if (!c)
		return;
	CHECK_EQ(c->nsteps, (size_t)12);
	CHECK_EQ(c->steps[1].kind, IW_STEP_SEGMENTS);
	CHECK_EQ(iw_step_arg(&c->steps[1], "fpdus")->i, 2);
	CHECK_EQ(c->steps[4].kind, IW_STEP_SEGMENT);
	CHECK(!strcmp(c->steps[4].word, "send"));
	CHECK_EQ(iw_step_arg(&c->steps[4], "fpdu")->i, 1);
	CHECK(!strcmp(c->steps[5].word, "hold"));
	CHECK(!strcmp(c->steps[6].word, "drop"));
	CHECK_EQ(iw_step_arg(&c->steps[6], "dupacks")->i, 2);
	CHECK(!strcmp(c->steps[9].word, "wait-dupacks"));
	CHECK_EQ(iw_step_arg(&c->steps[9], "dupacks")->i, 1); /* the bare value */
	CHECK(!strcmp(c->steps[10].word, "release"));
	CHECK_EQ(c->steps[10].nargs, (size_t)0);
	char b[64];
	CHECK(!strcmp(iw_step_label(&c->steps[9], b, sizeof b), "segment wait-dupacks"));
	CHECK(!strcmp(iw_step_name(IW_STEP_SEGMENTS), "segments"));
	iw_case_free(c);
}

TEST(case_segments_err_step_words)
{
	FAILS("segment\n", "t.iwt:7: ", "missing what to do (send hold release drop wait-dupacks)");
	FAILS("segment fpdu=0\n", "t.iwt:7: ", "e.g. `segment send fpdu=1`");
	FAILS("segment resend fpdu=0\n", "t.iwt:7: ", "unknown step 'segment resend' (segment takes: send hold");
	FAILS("segments\n", "t.iwt:7: ", "missing required argument 'fpdus'");
	FAILS("segments fpdus=0\n", "t.iwt:7: ", "fpdus");
	FAILS("segments fpdus=17\n", "t.iwt:7: ", "fpdus");
	FAILS("segmnt send fpdu=0\n", "t.iwt:7: ", "segments, segment ...");
}

TEST(case_segments_err_arguments)
{
	const char *pre = "segments fpdus=1\nsend send size=10\n";
	char buf[512];
	snprintf(buf, sizeof buf, "%ssegment send\n", pre);
	FAILS(buf, "t.iwt:9: segment send: ", "which octets? write fpdu=K");
	snprintf(buf, sizeof buf, "%ssegment send off=3\n", pre);
	FAILS(buf, "t.iwt:9: ", "which octets?");
	snprintf(buf, sizeof buf, "%ssegment send fpdu=0 dupacks=3\n", pre);
	FAILS(buf, "t.iwt:9: ", "dupacks goes with `segment drop` and `segment wait-dupacks`, not `segment send`");
	snprintf(buf, sizeof buf, "%ssegment send fpdu=0\nsegment release fpdu=0\n", pre);
	FAILS(buf, "t.iwt:10: ", "`segment release` names no octets");
	snprintf(buf, sizeof buf, "%ssegment send fpdu=0\nsegment release 2\n", pre);
	FAILS(buf, "t.iwt:10: ", "`segment release` takes no arguments");
	snprintf(buf, sizeof buf, "%ssegment send fpdu=0\nsegment wait-dupacks\n", pre);
	FAILS(buf, "t.iwt:10: ", "write `segment wait-dupacks 2`");
	snprintf(buf, sizeof buf, "%ssegment send fpdu=0\nsegment wait-dupacks 0\n", pre);
	FAILS(buf, "t.iwt:10: ", "dupacks");
	snprintf(buf, sizeof buf, "%ssegment send fpdu=0 len=0\n", pre);
	FAILS(buf, "t.iwt:9: ", "len");
	snprintf(buf, sizeof buf, "%ssegment send fpdu=1\n", pre);
	FAILS(buf, "t.iwt:9: ", "fpdu=1, but `segments` (line 7) collects 1 FPDU(s): fpdu=0..0");
	snprintf(buf, sizeof buf, "%ssegment send fpdu=0 colour=red\n", pre);
	FAILS(buf, "t.iwt:9: ", "colour");
}

TEST(case_segments_err_order)
{
	FAILS("segment send fpdu=0\n", "t.iwt:7: segment send: ", "no `segments fpdus=N` before it: write `segments fpdus=1`");
	FAILS("segments fpdus=2\nsend send size=10\nsegment send fpdu=0\n", "t.iwt:9: ",
	      "`segments fpdus=2` (line 7) collects 2 FPDUs, but this step comes after 1");
	FAILS("segments fpdus=2\nsend send size=10\n", "t.iwt:7: ", "but the end of the case comes after 1");
	FAILS("segments fpdus=1\nsend send size=10\nexpect send size=10\n", "t.iwt:9: ",
	      "the octets `segments` (line 7) collects are never sent: add `segment` steps");
	FAILS("segments fpdus=1\nsend send size=10\n", "t.iwt:7: ", "are never sent");
	FAILS("segments fpdus=1\nsegments fpdus=1\n", "t.iwt:8: ", "collects 1 FPDUs, but this step comes after 0");
	/* a plan ends at the first other step: a later `segment` needs its own `segments` */
	FAILS("segments fpdus=1\nsend send size=10\nsegment send fpdu=0\nexpect send size=10\nsegment send fpdu=0\n",
	      "t.iwt:11: ", "no `segments fpdus=N` before it");
	/* a message cut by mulpdu= makes several FPDUs: fewer send steps are fine (the run counts) */
	const char *multi = "segments fpdus=3\nsend write to=0 size=1500 mulpdu=514\nsegment send fpdu=2\n"
			    "segment send off=0 len=600\n";
	const char *mt = with_hdr(multi);
	iw_case *mc = NULL;
	iw_err me;
	CHECK_EQ(iw_case_parse(mt, strlen(mt), "t.iwt", &mc, &me), 0);
	iw_case_free(mc);
	FAILS("segments fpdus=3\nsend write to=0 size=1500 mulpdu=514\nsend send size=1\nsend send size=1\n"
	      "send send size=1\n", "t.iwt:11: ", "are never sent");
	/* two plans one after the other are fine */
	const char *ok = "segments fpdus=1\nsend send size=10\nsegment send fpdu=0\n"
			 "segments fpdus=1\nsend raw x\"00\"\nsegment send off=0 len=1\n";
	const char *text = with_hdr(ok);
	iw_case *c = NULL;
	iw_err e;
	CHECK_EQ(iw_case_parse(text, strlen(text), "t.iwt", &c, &e), 0);
	iw_case_free(c);
}
