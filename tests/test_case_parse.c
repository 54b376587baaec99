/*
 * Tests of the case-language parser (case/case_parse.c, case/case_schema.c): a case using
 * every step kind parses to the expected structure, every class of error names the line and
 * the problem, the examples of docs/case-language.md parse, and prefixes and random mutations
 * of a valid case never crash (run under ASan/UBSan by `make test-san`).
 */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"

static const char full_case[] =
	"# Every step kind of the language, with every value syntax.\n"
	"id: test.full-case_1\n"
	"title: Every step kind   # a comment after the title\n"
	"requirement: MPA-6.1-R5 MUST\n"
	"requirement: MPAc-8.1-04 SHOULD\n"
	"requirement: RFC5040-4.8 INFO\n"
	"requirement: DDP-9.1-T4 SHOULD NOT\n"
	"role: responder   # the DUT\n"
	"needs: markers crc-off reflector\n"
	"profiles: rddp-mpa-01 rfc5044\n"
	"timeout: 2m\n"
	"\n"
	"connect\n"                                                             /* 13 */
	"split at=3,7,19 delay=10ms\n"
	"send request key=\"MPA ID Rep Frame\" m=1 c=0 r=1 res=0x1f rev=1 pd=\"hi\\n\\x00\\\"\" "
	"irdord=1 ird=16 ord=0x3fff p2p=1 rtr=write enhanced=1\n"               /* 15 */
	"send reply key_octet=9 key_xor=0x01 pd_length=65535 pd_size=512   # comment\n"
	"split none\n"
	"send write data=x\"de ad be ef\" stag=0x1234 to=0xffffffffffffffff last=1 crc_order=be "
	"corrupt=3 fpduptr_delta=-4 order=2,0,1\n"                              /* 18 */
	"send terminate layer=llp etype=0 ecode=2 qn=2\n"
	"send ddp tagged=0 dv=0 rsvd=15 rsvdulp=x\"0102030405\" length=0 crc=0 crc_xor=0xffffffff "
	"pad_fill=255 marker_reserved=1 fpduptr_or=3 no_markers=1\n"            /* 20 */
	"send read_req sink_stag=1 sink_to=0x1000 src_stag=2 src_to=0 rsize=4096 mulpdu=128 opcode=1 rv=1\n"
	"send raw x\"00 2a\"\n"
	"send raw data=\"abc\"\n"
	"split every=1\n"
	"\tsleep 500ms\n"                                                       /* 25 */
	"expect request within=5s key=request m=* rev=1 pd=x\"\" rtr=none\n"
	"expect reply key=\"MPA ID Rep Frame\" pd_length=*\n"
	"expect send within=1s data=\"hello\" msn=1 marker_first=1\n"
	"expect any size=* opcode=*\n"
	"expect fpdu\n"                                                         /* 30 */
	"expect terminate within=5s layer=2 etype=0 ecode=2 m=0 d=* r=0\n"
	"expect close within=5s how=rst allow_data=1\n"
	"expect close\n"
	"expect silence 2s\n"
	"expect alive within=30s\n"                                             /* 35 */
	"measure close within=1m\n"
	"expect as-model within=5s\n"
	"expect one-of\n"
	"  # a comment inside the block\n"
	"  - terminate layer=llp etype=0 ecode=2 ; close within=5s\n"           /* 40 */
	"  - close within=5s;silence 1s\n"
	"  -read_req within=1s\n"
	"end\n"
	"close\n"
	"reset";                                                                /* 45, no newline */

static iw_case *parse_ok(const char *text)
{
	iw_case *c = NULL;
	iw_err e = { "" };
	int rc = iw_case_parse(text, strlen(text), "t.iwt", &c, &e);
	if (rc != 0)
		check_fail(__FILE__, __LINE__, "parse failed: %s", e.msg);
	return c;
}

static const iw_step *step(const iw_case *c, size_t i)
{
	static const iw_step none;
	return c && i < c->nsteps ? &c->steps[i] : &none;
}

/* The argument of a step that must be there; a dummy when missing, so checks fail cleanly. */
static const iw_arg *arg(const iw_step *s, const char *name)
{
	static const iw_arg none;
	const iw_arg *a = iw_step_arg(s, name);
	if (!a) {
		check_fail(__FILE__, __LINE__, "step at line %d has no argument '%s'", s->line, name);
		return &none;
	}
	return a;
}

TEST(case_parse_full_header)
{
	iw_case *c = parse_ok(full_case);
	if (!c)
		return;
	CHECK_STR(c->id, "test.full-case_1");
	CHECK_STR(c->title, "Every step kind");
	CHECK_STR(c->file, "t.iwt");
	CHECK_EQ(c->nreqs, 4);
	CHECK_STR(c->reqs[0].id, "MPA-6.1-R5");
	CHECK_EQ(c->reqs[0].level, IW_LEVEL_MUST);
	CHECK_STR(c->reqs[1].id, "MPAc-8.1-04");
	CHECK_EQ(c->reqs[1].level, IW_LEVEL_SHOULD);
	CHECK_STR(c->reqs[2].id, "RFC5040-4.8");
	CHECK_EQ(c->reqs[2].level, IW_LEVEL_INFO);
	CHECK_STR(c->reqs[3].id, "DDP-9.1-T4");
	CHECK_EQ(c->reqs[3].level, IW_LEVEL_SHOULD);
	CHECK_EQ(c->level, IW_LEVEL_MUST);
	CHECK_EQ(c->dut_role, 1);
	CHECK_EQ(c->needs, IW_CAP_MARKERS | IW_CAP_CRC_OFF | IW_CAP_REFLECTOR);
	CHECK_EQ(c->nprofiles, 2);
	CHECK_STR(c->profiles[0], "rddp-mpa-01");
	CHECK_STR(c->profiles[1], "rfc5044");
	CHECK_EQ(c->timeout_ms, 120000);
	CHECK_EQ(c->nsteps, 28);
	iw_case_free(c);
}

TEST(case_parse_full_actions)
{
	iw_case *c = parse_ok(full_case);
	if (!c)
		return;
	const iw_step *s;
	const iw_arg *a;

	s = step(c, 0);
	CHECK_EQ(s->kind, IW_STEP_CONNECT);
	CHECK_EQ(s->line, 13);
	CHECK_EQ(s->nargs, 0);
	CHECK_STR(s->word, "");

	s = step(c, 1);
	CHECK_EQ(s->kind, IW_STEP_SPLIT);
	a = arg(s, "at");
	CHECK_EQ(a->type, IW_ARG_LIST);
	CHECK_EQ(a->nlist, 3);
	CHECK_EQ(a->list[0], 3);
	CHECK_EQ(a->list[1], 7);
	CHECK_EQ(a->list[2], 19);
	a = arg(s, "delay");
	CHECK_EQ(a->type, IW_ARG_DURATION);
	CHECK_EQ(a->i, 10);

	s = step(c, 2);
	CHECK_EQ(s->kind, IW_STEP_SEND_REQUEST);
	CHECK_EQ(s->line, 15);
	CHECK_STR(s->word, "request");
	CHECK_EQ(s->nargs, 13);
	a = arg(s, "key");
	CHECK_EQ(a->type, IW_ARG_BYTES);        /* a string where bytes are accepted */
	CHECK_EQ(a->nbytes, 16);
	CHECK_MEM(a->bytes, "MPA ID Rep Frame", 16);
	CHECK_STR(a->s, "MPA ID Rep Frame");
	CHECK_EQ(arg(s, "m")->i, 1);
	CHECK_EQ(arg(s, "c")->i, 0);
	CHECK_EQ(arg(s, "res")->i, 0x1f);
	CHECK_EQ(arg(s, "ord")->i, 0x3fff);
	a = arg(s, "pd");
	CHECK_EQ(a->nbytes, 5);
	CHECK_MEM(a->bytes, "hi\n\0\"", 5);
	a = arg(s, "rtr");
	CHECK_EQ(a->type, IW_ARG_WORD);
	CHECK_STR(a->s, "write");
	CHECK(!a->is_pattern_any);

	s = step(c, 3);
	CHECK_EQ(s->kind, IW_STEP_SEND_REPLY);
	CHECK_STR(s->word, "reply");
	CHECK_EQ(arg(s, "key_octet")->i, 9);
	CHECK_EQ(arg(s, "key_xor")->i, 1);
	CHECK_EQ(arg(s, "pd_length")->i, 65535);
	CHECK_EQ(arg(s, "pd_size")->i, 512);

	s = step(c, 4);
	CHECK_EQ(s->kind, IW_STEP_SPLIT);
	CHECK_STR(s->word, "none");
	CHECK_EQ(s->nargs, 0);

	s = step(c, 5);
	CHECK_EQ(s->kind, IW_STEP_SEND_FPDU);
	CHECK_STR(s->word, "write");
	CHECK_EQ(s->line, 18);
	a = arg(s, "data");
	CHECK_EQ(a->type, IW_ARG_BYTES);
	CHECK_EQ(a->nbytes, 4);
	CHECK_MEM(a->bytes, "\xde\xad\xbe\xef", 4);
	CHECK(a->s == NULL);
	CHECK_EQ(arg(s, "stag")->i, 0x1234);
	CHECK(arg(s, "to")->i == -1);           /* 2^64-1 as its bit pattern */
	CHECK_EQ((uint64_t)arg(s, "to")->i, UINT64_MAX);
	CHECK_STR(arg(s, "crc_order")->s, "be");
	CHECK_EQ(arg(s, "fpduptr_delta")->i, -4);
	a = arg(s, "order");
	CHECK_EQ(a->nlist, 3);
	CHECK_EQ(a->list[0], 2);

	s = step(c, 6);
	CHECK_EQ(s->kind, IW_STEP_SEND_FPDU);
	CHECK_STR(s->word, "terminate");
	a = arg(s, "layer");
	CHECK_EQ(a->type, IW_ARG_WORD);
	CHECK_STR(a->s, "llp");
	CHECK_EQ(arg(s, "ecode")->i, 2);

	s = step(c, 7);
	CHECK_STR(s->word, "ddp");
	CHECK_EQ(s->nargs, 11);
	a = arg(s, "rsvdulp");
	CHECK_EQ(a->nbytes, 5);
	CHECK_MEM(a->bytes, "\x01\x02\x03\x04\x05", 5);
	CHECK_EQ(arg(s, "crc_xor")->i, 0xffffffffLL);
	CHECK_EQ(arg(s, "no_markers")->i, 1);

	s = step(c, 8);
	CHECK_STR(s->word, "read_req");
	CHECK_EQ(arg(s, "sink_to")->i, 0x1000);
	CHECK_EQ(arg(s, "rsize")->i, 4096);
	CHECK_EQ(arg(s, "mulpdu")->i, 128);

	s = step(c, 9);
	CHECK_EQ(s->kind, IW_STEP_SEND_RAW);
	a = arg(s, "data");                     /* the positional value */
	CHECK_EQ(a->nbytes, 2);
	CHECK_MEM(a->bytes, "\x00\x2a", 2);
	s = step(c, 10);
	a = arg(s, "data");
	CHECK_EQ(a->nbytes, 3);
	CHECK_STR(a->s, "abc");

	s = step(c, 11);
	CHECK_EQ(s->kind, IW_STEP_SPLIT);
	a = arg(s, "every");
	CHECK_EQ(a->type, IW_ARG_INT);
	CHECK_EQ(a->i, 1);

	s = step(c, 12);
	CHECK_EQ(s->kind, IW_STEP_SLEEP);
	CHECK_EQ(s->line, 25);
	a = arg(s, "for");
	CHECK_EQ(a->type, IW_ARG_DURATION);
	CHECK_EQ(a->i, 500);

	s = step(c, 26);
	CHECK_EQ(s->kind, IW_STEP_CLOSE);
	CHECK_EQ(s->line, 44);
	s = step(c, 27);
	CHECK_EQ(s->kind, IW_STEP_RESET);
	CHECK_EQ(s->line, 45);
	iw_case_free(c);
}

TEST(case_parse_full_expectations)
{
	iw_case *c = parse_ok(full_case);
	if (!c)
		return;
	const iw_step *s;
	const iw_arg *a;

	s = step(c, 13);
	CHECK_EQ(s->kind, IW_EXPECT_REQUEST);
	CHECK_EQ(arg(s, "within")->i, 5000);
	a = arg(s, "key");
	CHECK_EQ(a->type, IW_ARG_WORD);
	CHECK_STR(a->s, "request");
	a = arg(s, "m");
	CHECK(a->is_pattern_any);
	CHECK_EQ(a->type, IW_ARG_INT);
	a = arg(s, "pd");
	CHECK_EQ(a->type, IW_ARG_BYTES);
	CHECK_EQ(a->nbytes, 0);
	CHECK(!a->is_pattern_any);

	s = step(c, 14);
	CHECK_EQ(s->kind, IW_EXPECT_REPLY);
	CHECK_EQ(arg(s, "key")->type, IW_ARG_BYTES);
	CHECK(arg(s, "pd_length")->is_pattern_any);

	s = step(c, 15);
	CHECK_EQ(s->kind, IW_EXPECT_FPDU);
	CHECK_STR(s->word, "send");
	CHECK_EQ(arg(s, "within")->i, 1000);
	CHECK_STR(arg(s, "data")->s, "hello");
	CHECK_EQ(arg(s, "marker_first")->i, 1);

	s = step(c, 16);
	CHECK_EQ(s->kind, IW_EXPECT_FPDU);
	CHECK_STR(s->word, "any");
	CHECK(arg(s, "size")->is_pattern_any);

	s = step(c, 17);
	CHECK_EQ(s->kind, IW_EXPECT_FPDU);
	CHECK_STR(s->word, "fpdu");
	CHECK_EQ(s->nargs, 0);

	s = step(c, 18);
	CHECK_EQ(s->kind, IW_EXPECT_TERMINATE);
	a = arg(s, "layer");
	CHECK_EQ(a->type, IW_ARG_INT);
	CHECK_EQ(a->i, 2);
	CHECK(arg(s, "d")->is_pattern_any);

	s = step(c, 19);
	CHECK_EQ(s->kind, IW_EXPECT_CLOSE);
	CHECK_STR(s->word, "rst");
	CHECK_EQ(arg(s, "allow_data")->i, 1);
	s = step(c, 20);
	CHECK_EQ(s->kind, IW_EXPECT_CLOSE);
	CHECK_STR(s->word, "any");
	CHECK_EQ(s->nargs, 0);

	s = step(c, 21);
	CHECK_EQ(s->kind, IW_EXPECT_SILENCE);
	CHECK_EQ(arg(s, "for")->i, 2000);
	s = step(c, 22);
	CHECK_EQ(s->kind, IW_EXPECT_ALIVE);
	CHECK_EQ(arg(s, "within")->i, 30000);
	s = step(c, 23);
	CHECK_EQ(s->kind, IW_EXPECT_MEASURE);
	CHECK_STR(s->word, "close");
	CHECK_EQ(arg(s, "within")->i, 60000);
	s = step(c, 24);
	CHECK_EQ(s->kind, IW_EXPECT_AS_MODEL);

	s = step(c, 25);
	CHECK_EQ(s->kind, IW_EXPECT_ONE_OF);
	CHECK_EQ(s->line, 38);
	CHECK_EQ(s->nalts, 3);
	CHECK_EQ(s->alts[0].nseq, 2);
	CHECK_EQ(s->alts[1].nseq, 2);
	CHECK_EQ(s->alts[2].nseq, 1);
	if (s->nalts == 3 && s->alts[0].nseq == 2 && s->alts[1].nseq == 2 && s->alts[2].nseq == 1) {
		const iw_step *t = s->alts[0].seq[0];
		CHECK_EQ(t->kind, IW_EXPECT_TERMINATE);
		CHECK_EQ(t->line, 40);
		CHECK_STR(arg(t, "layer")->s, "llp");
		CHECK_EQ(arg(t, "etype")->i, 0);
		CHECK_EQ(arg(t, "ecode")->i, 2);
		t = s->alts[0].seq[1];
		CHECK_EQ(t->kind, IW_EXPECT_CLOSE);
		CHECK_EQ(arg(t, "within")->i, 5000);
		t = s->alts[1].seq[0];
		CHECK_EQ(t->kind, IW_EXPECT_CLOSE);
		CHECK_EQ(t->line, 41);
		t = s->alts[1].seq[1];
		CHECK_EQ(t->kind, IW_EXPECT_SILENCE);
		CHECK_EQ(arg(t, "for")->i, 1000);
		t = s->alts[2].seq[0];
		CHECK_EQ(t->kind, IW_EXPECT_FPDU);
		CHECK_STR(t->word, "read_req");
		CHECK_EQ(t->line, 42);
	}
	iw_case_free(c);
}

/* The initiator role, where the harness accepts: it cannot share a case with `connect`. */
TEST(case_parse_initiator_accept)
{
	iw_case *c = parse_ok("id: init.x\ntitle: \"Quoted # title\"\nrequirement: MPA-6.1.1-02 MAY\n"
			      "requirement: ARCH-2.2-F1 INFO\nrole: initiator\n"
			      "accept within=5s\nexpect request\nsend reply\n");
	if (!c)
		return;
	CHECK_EQ(c->dut_role, 0);
	CHECK_STR(c->title, "Quoted # title");
	CHECK_EQ(c->level, IW_LEVEL_MAY);
	CHECK_EQ(c->nprofiles, 0);
	CHECK_EQ(c->timeout_ms, 10000);
	CHECK_EQ(c->needs, 0);
	CHECK_EQ(c->nsteps, 3);
	CHECK_EQ(step(c, 0)->kind, IW_STEP_ACCEPT);
	CHECK_EQ(arg(step(c, 0), "within")->i, 5000);
	CHECK_EQ(step(c, 1)->kind, IW_EXPECT_REQUEST);
	CHECK_EQ(step(c, 2)->kind, IW_STEP_SEND_REPLY);
	iw_case_free(c);
}

TEST(case_parse_values)
{
	iw_case *c = parse_ok("id: v\ntitle: t\nrequirement: MPA-6.1-R1a MUST\nrole: responder\r\n"
			      "connect\r\n"
			      "send send size=0 qn=4294967295 mo=0xFFFFFFFF msn=0 to=9223372036854775807\n"
			      "split at=-1,0x10 delay=0s\n"
			      "split at=5\n"
			      "send raw \"\\t\\\\\\x7f\\xFF\"\n");
	if (!c)
		return;
	const iw_step *s = step(c, 1);
	CHECK_EQ(arg(s, "qn")->i, 4294967295LL);
	CHECK_EQ(arg(s, "mo")->i, 0xFFFFFFFFLL);
	CHECK_EQ(arg(s, "to")->i, INT64_MAX);
	CHECK_EQ(arg(s, "size")->i, 0);
	s = step(c, 2);
	CHECK_EQ(arg(s, "at")->nlist, 2);
	CHECK_EQ(arg(s, "at")->list[0], -1);
	CHECK_EQ(arg(s, "at")->list[1], 16);
	CHECK_EQ(arg(s, "delay")->i, 0);
	s = step(c, 3);
	CHECK_EQ(arg(s, "at")->type, IW_ARG_LIST);     /* an integer where a list is wanted */
	CHECK_EQ(arg(s, "at")->nlist, 1);
	CHECK_EQ(arg(s, "at")->list[0], 5);
	s = step(c, 4);
	CHECK_EQ(arg(s, "data")->nbytes, 4);
	CHECK_MEM(arg(s, "data")->bytes, "\t\\\x7f\xff", 4);
	iw_case_free(c);
}

TEST(case_parse_names)
{
	for (int k = 0; k < IW_STEP_KIND_COUNT; k++)
		CHECK(strcmp(iw_step_name((enum iw_step_kind)k), "unknown step") != 0);
	CHECK_STR(iw_step_name(IW_EXPECT_AS_MODEL), "expect as-model");
	CHECK_STR(iw_step_name(IW_EXPECT_MEASURE), "measure close");
	CHECK_STR(iw_level_name(IW_LEVEL_MUST), "MUST");
	CHECK_STR(iw_level_name(IW_LEVEL_SHOULD), "SHOULD");
	CHECK_STR(iw_level_name(IW_LEVEL_MAY), "MAY");
	CHECK_STR(iw_level_name(IW_LEVEL_INFO), "INFO");
	iw_case *c = parse_ok(full_case);
	if (!c)
		return;
	char buf[40];
	CHECK_STR(iw_step_label(step(c, 5), buf, sizeof buf), "send write");
	CHECK_STR(iw_step_label(step(c, 4), buf, sizeof buf), "split none");
	CHECK_STR(iw_step_label(step(c, 16), buf, sizeof buf), "expect any");
	CHECK_STR(iw_step_label(step(c, 19), buf, sizeof buf), "expect close");
	CHECK(iw_step_arg(step(c, 0), "m") == NULL);
	CHECK(iw_step_arg(NULL, "m") == NULL);
	iw_case_free(c);
}

/* ---- errors ---- */

static const char hdr[] = "id: t.x\ntitle: T\nrequirement: MPA-6.1-R5 MUST\nrole: responder\n";  /* 4 lines */

/* Parses text, which must fail, and checks that the message holds each of the wanted parts. */
static void fails_(const char *file, int line, const char *text, size_t len, const char *w1, const char *w2)
{
	iw_case *c = (iw_case *)(uintptr_t)1;
	iw_err e = { "" };
	int rc = iw_case_parse(text, len, "t.iwt", &c, &e);
	if (rc == 0) {
		check_fail(file, line, "parse succeeded, wanted an error with \"%s\"", w1);
		iw_case_free(c);
		return;
	}
	if (c != NULL)
		check_fail(file, line, "*out not NULL after an error");
	if (w1 && !strstr(e.msg, w1))
		check_fail(file, line, "message \"%s\" lacks \"%s\"", e.msg, w1);
	if (w2 && !strstr(e.msg, w2))
		check_fail(file, line, "message \"%s\" lacks \"%s\"", e.msg, w2);
}
#define FAILS(text, w1, w2) fails_(__FILE__, __LINE__, text, strlen(text), w1, w2)

static char *with_hdr(const char *steps)
{
	static char buf[8192];
	snprintf(buf, sizeof buf, "%s%s", hdr, steps);
	return buf;
}

TEST(case_parse_err_unknown_header)
{
	FAILS("id: a\nfoo: bar\n", "t.iwt:2: ", "unknown header 'foo:'");
	FAILS("id: a\nID: b\n", "t.iwt:2: ", "unknown header 'ID:'");
	FAILS("id: a\ntitle: x\nid: b\n", "t.iwt:3: ", "header 'id:' given twice");
	FAILS(with_hdr("connect\ntimeout: 5s\n"), "t.iwt:6: ", "after the first step");
}

TEST(case_parse_err_missing_headers)
{
	FAILS("title: T\nrequirement: MPA-6.1-R5 MUST\nrole: responder\nconnect\n", "t.iwt: ", "missing header 'id:'");
	FAILS("id: a\nrequirement: MPA-6.1-R5 MUST\nrole: responder\nconnect\n", "t.iwt: ", "missing header 'title:'");
	FAILS("id: a\ntitle: T\nrole: responder\nconnect\n", "t.iwt: ", "missing header 'requirement:'");
	FAILS("id: a\ntitle: T\nrequirement: MPA-6.1-R5 MUST\nconnect\n", "t.iwt: ", "missing header 'role:'");
	FAILS(hdr, "t.iwt: ", "no steps");
	FAILS("", "t.iwt: ", "missing header 'id:'");
	FAILS("id:\n", "t.iwt:1: ", "id: missing value");
	FAILS("id: Bad.Id\n", "t.iwt:1: ", "may hold only");
	FAILS("id: a234567890123456789012345678901234567890123456789012345678901234\n", "t.iwt:1: ",
	      "id: longer than 63 characters");
}

TEST(case_parse_err_requirement)
{
	FAILS("id: a\nrequirement: MPA6.1 MUST\n", "t.iwt:2: ", "'MPA6.1' is not a requirement ID");
	FAILS("id: a\nrequirement: MPA-6.1 MUST\n", "t.iwt:2: ", "not a requirement ID");
	FAILS("id: a\nrequirement: mpa-6.1-R5 MUST\n", "t.iwt:2: ", "not a requirement ID");
	FAILS("id: a\nrequirement: MPA-6.1-R5x1 MUST\n", "t.iwt:2: ", "not a requirement ID");
	FAILS("id: a\nrequirement: RFC50-4.8 MUST\n", "t.iwt:2: ", "not a requirement ID");
	FAILS("id: a\nrequirement: MPA-6.1-R5\n", "t.iwt:2: ", "missing level");
	FAILS("id: a\nrequirement: MPA-6.1-R5 must\n", "t.iwt:2: ", "level must be MUST, SHOULD, MAY or INFO");
	FAILS("id: a\nrequirement: MPA-6.1-R5 MAY NOT\n", "t.iwt:2: ", "unexpected text after the level");
	FAILS("id: a\nrequirement: MPA-6.1-R5 MUST NOT really\n", "t.iwt:2: ", "unexpected text after the level");
	FAILS("id: a\nrequirement: MPA-6.1-R5 MUST MUST\n", "t.iwt:2: ", "unexpected text after the level");
	FAILS("id: a\nrequirement: MPA-6.1-R5 MUST\nrequirement: MPA-6.1-R5 SHOULD\n", "t.iwt:3: ", "cited twice");
	char buf[2048] = "id: a\n";
	for (int i = 0; i <= IW_CASE_MAX_REQS; i++)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "requirement: MPA-6.1-%d MUST\n", i);
	FAILS(buf, "t.iwt:14: ", "too many requirements (limit 12)");
}

TEST(case_parse_err_other_headers)
{
	FAILS("role: server\n", "t.iwt:1: ", "not responder or initiator");
	FAILS("needs: markers wings\n", "t.iwt:1: ", "unknown capability 'wings'");
	FAILS("profiles: rfc5044 rfc9999\n", "t.iwt:1: ", "unknown profile 'rfc9999' (known: ");
	FAILS("profiles: rfc5044 rfc5044\n", "t.iwt:1: ", "named twice");
	FAILS("timeout: 10\n", "t.iwt:1: ", "not a positive duration");
	FAILS("timeout: 0s\n", "t.iwt:1: ", "not a positive duration");
	FAILS("timeout: 25h\n", "t.iwt:1: ", "not a positive duration");
	FAILS("timeout: 999999999m\n", "t.iwt:1: ", "24 h limit");
	FAILS("title: \"abc\" def\n", "t.iwt:1: ", "after the closing");
}

TEST(case_parse_err_unknown_step)
{
	FAILS(with_hdr("connect\nfrobnicate now\n"), "t.iwt:6: ", "unknown step 'frobnicate'");
	FAILS(with_hdr("send fpdux\n"), "t.iwt:5: ", "unknown step 'send fpdux' (send takes: request reply raw");
	FAILS(with_hdr("expect requst\n"), "t.iwt:5: ", "unknown step 'expect requst'");
	FAILS(with_hdr("measure open\n"), "t.iwt:5: ", "unknown step 'measure open'");
	FAILS(with_hdr("send\n"), "t.iwt:5: ", "send: missing what to send");
	FAILS(with_hdr("expect within=5s\n"), "t.iwt:5: ", "expect: missing what to expect");
	FAILS(with_hdr("- close\n"), "t.iwt:5: ", "outside an `expect one-of` block");
	FAILS(with_hdr("end\n"), "t.iwt:5: ", "'end' without an open");
}

TEST(case_parse_err_unknown_argument)
{
	FAILS(with_hdr("send request foo=1\n"), "t.iwt:5: send request: ",
	      "unknown argument 'foo' (expected one of: key, key_octet, key_xor, m, c, r, res");
	FAILS(with_hdr("send write crc_xr=1\n"), "t.iwt:5: send write: ", "did you mean 'crc_xor'?");
	FAILS(with_hdr("connect foo=5s\n"), "t.iwt:5: connect: ", "unknown argument 'foo' (expected one of: within, mss)");
	FAILS(with_hdr("close now=1\n"), "t.iwt:5: close: ", "unknown argument 'now' (takes no arguments)");
	FAILS(with_hdr("expect close M=1\n"), "t.iwt:5: expect close: ", "unknown argument 'M'");
	FAILS(with_hdr("connect now\n"), "t.iwt:5: connect: ", "unexpected value 'now'");
	FAILS(with_hdr("send request =1\n"), "t.iwt:5: ", "missing argument name");
	FAILS(with_hdr("send request m=\n"), "t.iwt:5: ", "argument 'm' has no value");
}

TEST(case_parse_err_wrong_type)
{
	FAILS(with_hdr("send request m=\"x\"\n"), "t.iwt:5: send request: ", "argument 'm' wants an integer, got a string");
	FAILS(with_hdr("expect close within=5\n"), "t.iwt:5: expect close: ", "a duration needs a unit");
	FAILS(with_hdr("send request rtr=1\n"), "t.iwt:5: ", "argument 'rtr' wants a word (none send write read)");
	FAILS(with_hdr("send request rtr=all\n"), "t.iwt:5: ", "rtr=all: expected one of: none send write read");
	FAILS(with_hdr("expect close how=fn\n"), "t.iwt:5: ", "expected one of: fin rst any");
	FAILS(with_hdr("send request m=2\n"), "t.iwt:5: ", "m=2 is out of range (0..1)");
	FAILS(with_hdr("send write qn=-1\n"), "t.iwt:5: ", "out of range (0..4294967295)");
	FAILS(with_hdr("send write qn=0x100000000\n"), "t.iwt:5: ", "out of range");
	FAILS(with_hdr("send write qn=0xffffffffffffffff\n"), "t.iwt:5: ", "out of range");
	FAILS(with_hdr("send write to=-1\n"), "t.iwt:5: ", "to=-1 is out of range (0..0xffffffffffffffff)");
	FAILS(with_hdr("send write to=0x1ffffffffffffffff\n"), "t.iwt:5: ", "does not fit in 64 bits");
	FAILS(with_hdr("send write to=-0x8000000000000001\n"), "t.iwt:5: ", "does not fit in 64 bits");
	FAILS(with_hdr("send request key=\"MPA ID Req\"\n"), "t.iwt:5: ", "key must be 16 octets (got 10)");
	FAILS(with_hdr("send request m=1,2\n"), "t.iwt:5: ", "wants an integer, got a list");
	FAILS(with_hdr("split at=3,,7\n"), "t.iwt:5: ", "bad list");
	FAILS(with_hdr("split at=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17\n"), "t.iwt:5: ", "more than 16 items");
	FAILS(with_hdr("sleep -5s\n"), "t.iwt:5: ", "negative");
	FAILS(with_hdr("sleep 5h\n"), "t.iwt:5: ", "bad number '5h'");
	FAILS(with_hdr("sleep 11s\n"), "t.iwt:5: sleep: ", "for=11s is longer than the case timeout (10s)");
	FAILS(with_hdr("sleep Five\n"), "t.iwt:5: ", "bad value 'Five'");
	FAILS(with_hdr("send raw 5\n"), "t.iwt:5: send raw: ", "wants bytes");
}

TEST(case_parse_err_duplicate_argument)
{
	FAILS(with_hdr("connect\nsend request m=1 c=1 m=0\n"), "t.iwt:6: send request: ", "duplicate argument 'm'");
	FAILS(with_hdr("expect silence 1s for=2s\n"), "t.iwt:5: ", "duplicate argument 'for'");
	FAILS(with_hdr("sleep 1s 2s\n"), "t.iwt:5: ", "'for' given twice");
	FAILS(with_hdr("split none none\n"), "t.iwt:5: ", "'none' given twice");
}

TEST(case_parse_err_strings)
{
	FAILS(with_hdr("send raw \"abc\n"), "t.iwt:5: send raw: ", "unterminated string");
	FAILS(with_hdr("send raw \"abc\\\"\n"), "t.iwt:5: ", "unterminated string");
	FAILS(with_hdr("send raw \"a\\q\"\n"), "t.iwt:5: ", "bad escape '\\q'");
	FAILS(with_hdr("send raw \"\\x4\"\n"), "t.iwt:5: ", "\\x needs two hex digits");
	FAILS(with_hdr("send raw \"ab\"cd\n"), "t.iwt:5: ", "right after a quoted value");
	FAILS(with_hdr("send raw x\"0g\"\n"), "t.iwt:5: send raw: ", "bad hex: 'g' is not a hex digit");
	FAILS(with_hdr("send raw x\"012\"\n"), "t.iwt:5: ", "bad hex: odd number of digits");
	FAILS(with_hdr("send raw x\"0 12\"\n"), "t.iwt:5: ", "bad hex: a lone digit");
	FAILS(with_hdr("send raw x\"00\n"), "t.iwt:5: ", "unterminated hex string");
}

TEST(case_parse_err_any_in_action)
{
	FAILS(with_hdr("send request m=*\n"), "t.iwt:5: send request: ", "'*' (any) is only allowed in expectations");
	FAILS(with_hdr("split at=*\n"), "t.iwt:5: ", "only allowed in expectations");
	FAILS(with_hdr("expect close within=*\n"), "t.iwt:5: ", "cannot stand for a duration");
}

TEST(case_parse_err_one_of)
{
	FAILS(with_hdr("connect\nexpect one-of\n - close within=5s\n - silence 1s\n"), "t.iwt:6: expect one-of: ",
	      "unterminated block: missing 'end'");
	FAILS(with_hdr("expect one-of\n - close\nend\n"), "t.iwt:5: ", "at least two alternatives");
	FAILS(with_hdr("expect one-of\n - close\n connect\nend\n"), "t.iwt:7: ", "expected an alternative");
	FAILS(with_hdr("expect one-of\n - close\n - expect close\nend\n"), "t.iwt:7: ", "without 'expect'");
	FAILS(with_hdr("expect one-of\n - close\n - one-of\nend\n"), "t.iwt:7: ", "do not nest");
	FAILS(with_hdr("expect one-of\n - close\n - connect\nend\n"), "t.iwt:7: ", "unknown expectation 'connect'");
	FAILS(with_hdr("expect one-of\n - close\n - close ;\nend\n"), "t.iwt:7: ", "empty expectation after ';'");
	FAILS(with_hdr("expect one-of\n - close\n -\nend\n"), "t.iwt:7: ", "empty alternative");
	FAILS(with_hdr("expect one-of\n - close\n - close how=up\nend\n"),
	      "t.iwt:7: expect one-of, alternative 2: close: ", "how=up");
	FAILS(with_hdr("expect one-of within=5s\n"), "t.iwt:5: ", "nothing may follow");
	FAILS(with_hdr("expect one-of\n - close\n - close\nend now\n"), "t.iwt:8: ", "nothing may follow 'end'");
	FAILS(with_hdr("expect close ; expect alive\n"), "t.iwt:5: ", "';' only separates");
	FAILS(with_hdr("expect one-of\n - close\n - close m=*\nend\n"), "t.iwt:7: ", "unknown argument 'm'");
}

TEST(case_parse_err_step_rules)
{
	FAILS(with_hdr("send request key_xor=1\n"), "t.iwt:5: send request: ", "key_xor needs key_octet");
	FAILS(with_hdr("send request pd=\"a\" pd_size=3\n"), "t.iwt:5: ", "use one");
	FAILS(with_hdr("send send data=\"a\" size=3\n"), "t.iwt:5: send send: ", "use one");
	FAILS(with_hdr("split\n"), "t.iwt:5: split: ", "needs at=");
	FAILS(with_hdr("split at=1 every=2\n"), "t.iwt:5: ", "use one");
	FAILS(with_hdr("split none delay=1s\n"), "t.iwt:5: ", "takes no arguments");
	FAILS(with_hdr("split all\n"), "t.iwt:5: ", "the only bare word is 'none'");
	FAILS(with_hdr("sleep\n"), "t.iwt:5: sleep: ", "missing for");
	FAILS(with_hdr("expect silence\n"), "t.iwt:5: expect silence: ", "missing for");
	FAILS(with_hdr("send raw\n"), "t.iwt:5: send raw: ", "missing data");
	FAILS(with_hdr("accept\n"), "t.iwt:5: accept: ", "role: initiator");
	FAILS("id: a\ntitle: T\nrequirement: MPA-6.1-R5 MUST\nrole: initiator\naccept\nconnect\n", "t.iwt:6: connect: ",
	      "role: responder");
	/* TR-17: the MSS rides on the harness's SYN, and Linux's TCP takes no less than 88. */
	FAILS(with_hdr("connect mss=64\n"), "t.iwt:5: ", "mss=64 is out of range (88..65535)");
	FAILS("id: a\ntitle: T\nrequirement: MPA-6.1-R5 MUST\nrole: initiator\nneeds: reflector\nstartup mss=536\n",
	      "t.iwt:6: ", "startup mss=: the harness advertises an MSS only on connections it opens");
}

TEST(case_parse_err_limits)
{
	static char buf[1 << 16];
	/* IW_CASE_MAX_STEPS + 1 steps: the line of the 97th is named. */
	snprintf(buf, sizeof buf, "%s", hdr);
	for (int i = 0; i <= IW_CASE_MAX_STEPS; i++)
		strcat(buf, "close\n");
	FAILS(buf, "t.iwt:101: ", "too many steps (limit 96)");

	/* 17 arguments on one step */
	FAILS(with_hdr("send write qn=0 msn=0 mo=0 stag=0 to=0 last=0 tagged=0 dv=0 rsvd=0 rv=0 opcode=0 "
		       "sink_stag=0 sink_to=0 src_stag=0 src_to=0 rsize=0 etype=0\n"),
	      "t.iwt:5: send write: ", "too many arguments (limit 16)");

	snprintf(buf, sizeof buf, "%sexpect one-of\n", hdr);
	for (int i = 0; i <= IW_CASE_MAX_ALTS; i++)
		strcat(buf, " - close\n");
	strcat(buf, "end\n");
	FAILS(buf, "t.iwt:12: ", "too many alternatives in one-of (limit 6)");

	FAILS(with_hdr("expect one-of\n - close;close;close;close;close;close;close\n - close\nend\n"), "t.iwt:6: ",
	      "too many expectations in one alternative (limit 6)");

	/* a line of 4097 characters; 4096 is fine */
	snprintf(buf, sizeof buf, "%s", hdr);
	size_t o = strlen(buf);
	memset(buf + o, ' ', 4096);
	memcpy(buf + o + 4096 - 5, "close", 5);
	buf[o + 4096] = '\n';
	buf[o + 4097] = '\0';
	iw_case *c = parse_ok(buf);
	iw_case_free(c);
	memmove(buf + o + 1, buf + o, 4097);
	buf[o] = ' ';
	FAILS(buf, "t.iwt:5: ", "line is longer than 4096 characters");


	char big_title[300] = "id: a\ntitle: ";
	memset(big_title + strlen(big_title), 'x', 200);
	FAILS(big_title, "t.iwt:2: ", "title: longer than 159 characters");

	/* one octet over 1 MiB, without reading it as lines */
	size_t n = IW_CASE_MAX_FILE + 1;
	char *huge = malloc(n);
	if (huge) {
		memset(huge, '\n', n);
		fails_(__FILE__, __LINE__, huge, n, "t.iwt: ", "over the 1048576-octet (1 MiB) limit");
		memcpy(huge, hdr, strlen(hdr));
		memcpy(huge + strlen(hdr), "close\n", 6);
		iw_case *ok = NULL;
		iw_err e;
		CHECK_EQ(iw_case_parse(huge, n - 1, "t.iwt", &ok, &e), 0);     /* exactly 1 MiB parses */
		iw_case_free(ok);
		free(huge);
	}

	static const char nul[] = "id: a\ntitle: x\0y\n";
	fails_(__FILE__, __LINE__, nul, sizeof nul - 1, "t.iwt:2: ", "NUL octet");
}

TEST(case_parse_err_message_fits)
{
	/* The longest messages (argument lists) are cut with "..." inside iw_err, never overflow. */
	iw_case *c = NULL;
	iw_err e;
	const char *t = with_hdr("send write zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz=1\n");
	CHECK(iw_case_parse(t, strlen(t), "a/rather/long/path/to/some/case/file/in/the/cases/tree.iwt", &c,
			    &e) != 0);
	CHECK(strlen(e.msg) < sizeof e.msg);
	CHECK(strstr(e.msg, "unknown argument 'zzzzzzzz") != NULL);
	CHECK(strcmp(e.msg + strlen(e.msg) - 3, "...") == 0);
}

TEST(case_parse_load)
{
	iw_case *c = (iw_case *)(uintptr_t)1;
	iw_err e = { "" };
	CHECK(iw_case_load("/nonexistent/dir/x.iwt", &c, &e) != 0);
	CHECK(c == NULL);
	CHECK(strstr(e.msg, "/nonexistent/dir/x.iwt: cannot open: No such file or directory") != NULL);

	char path[] = "/tmp/iwspec-case-parse-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	FILE *f = fdopen(fd, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(full_case, f);
	fclose(f);
	CHECK_EQ(iw_case_load(path, &c, &e), 0);
	if (c) {
		CHECK_STR(c->file, path);
		CHECK_EQ(c->nsteps, 28);
		iw_case_free(c);
	}
	f = fopen(path, "w");
	if (f) {
		fputs("id: a\nbogus: 1\n", f);
		fclose(f);
	}
	CHECK(iw_case_load(path, &c, &e) != 0);
	char want[64];
	snprintf(want, sizeof want, "%s:2: unknown header", path);
	CHECK(strstr(e.msg, want) != NULL);
	/* a file one octet over the limit is refused before it is parsed */
	f = fopen(path, "w");
	if (f) {
		for (unsigned i = 0; i <= IW_CASE_MAX_FILE; i++)
			fputc('#', f);
		fclose(f);
	}
	CHECK_EQ(iw_case_load(path, &c, &e), IW_ENOSPC);
	CHECK(strstr(e.msg, "over the 1048576-octet (1 MiB) limit") != NULL);
	remove(path);
}

/* The complete examples of the user's guide must stay valid cases. */
TEST(case_parse_docs_examples)
{
	FILE *f = fopen("docs/case-language.md", "rb");
	if (!f)
		f = fopen("../docs/case-language.md", "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	static char doc[1 << 17];
	size_t n = fread(doc, 1, sizeof doc - 1, f);
	fclose(f);
	doc[n] = '\0';
	int examples = 0;
	const char *p = doc;
	while ((p = strstr(p, "```iwt\n")) != NULL) {
		p += 7;
		const char *end = strstr(p, "```");
		CHECK(end != NULL);
		if (!end)
			break;
		iw_case *c = NULL;
		iw_err e = { "" };
		int rc = iw_case_parse(p, (size_t)(end - p), "doc-example.iwt", &c, &e);
		if (rc)
			check_fail(__FILE__, __LINE__, "docs example %d: %s", examples + 1, e.msg);
		iw_case_free(c);
		examples++;
		p = end + 3;
	}
	CHECK(examples >= 3);
}

/* ---- robustness ---- */

static void parse_any(const char *text, size_t len)
{
	iw_case *c = NULL;
	iw_err e;
	memset(&e, 0x55, sizeof e);     /* a message must always be written, never left as garbage */
	int rc = iw_case_parse(text, len, "fuzz.iwt", &c, &e);
	if (rc == 0) {
		if (!c)
			check_fail(__FILE__, __LINE__, "success without a case");
		iw_case_free(c);
	} else {
		if (c)
			check_fail(__FILE__, __LINE__, "error with a case");
		if (memchr(e.msg, '\0', sizeof e.msg) == NULL || strncmp(e.msg, "fuzz.iwt", 8) != 0)
			check_fail(__FILE__, __LINE__, "bad error message for input of %zu octets", len);
	}
}

TEST(case_parse_prefixes)
{
	size_t n = strlen(full_case);
	int ok = 0;
	for (size_t i = 0; i <= n; i++) {
		/* an exact-size copy so ASan sees any read past the given length */
		char *t = malloc(i ? i : 1);
		if (!t)
			return;
		memcpy(t, full_case, i);
		iw_case *c = NULL;
		iw_err e;
		if (iw_case_parse(t, i, "fuzz.iwt", &c, &e) == 0)
			ok++;
		iw_case_free(c);
		parse_any(t, i);
		free(t);
	}
	CHECK(ok > 0);          /* prefixes ending after a complete step are valid cases */
}

static uint32_t rng_state = 12345;
static uint32_t rnd(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 8;
}

TEST(case_parse_mutations)
{
	static const char alphabet[] = "\n\r\t \"\\#;=*,-x0123456789abcdefms:.AZ\x00\x7f\xff";
	size_t n = strlen(full_case);
	int errors = 0;
	for (int iter = 0; iter < 3000; iter++) {
		size_t len = n;
		char *t = malloc(n + 16);
		if (!t)
			return;
		memcpy(t, full_case, n);
		int edits = 1 + (int)(rnd() % 8);
		for (int k = 0; k < edits; k++) {
			size_t at = rnd() % (len + 1);
			char ch = (rnd() & 1) ? alphabet[rnd() % (sizeof alphabet - 1)] : (char)(rnd() & 0xFF);
			switch (rnd() % 3) {
			case 0:         /* replace */
				if (at < len)
					t[at] = ch;
				break;
			case 1:         /* insert */
				if (len < n + 15) {
					memmove(t + at + 1, t + at, len - at);
					t[at] = ch;
					len++;
				}
				break;
			default:        /* delete */
				if (at < len) {
					memmove(t + at, t + at + 1, len - at - 1);
					len--;
				}
				break;
			}
		}
		char *exact = malloc(len ? len : 1);
		if (exact) {
			memcpy(exact, t, len);
			iw_case *c = NULL;
			iw_err e;
			if (iw_case_parse(exact, len, "fuzz.iwt", &c, &e) != 0)
				errors++;
			iw_case_free(c);
			parse_any(exact, len);
			free(exact);
		}
		free(t);
	}
	CHECK(errors > 0);      /* the mutations do reach the error paths */
}
