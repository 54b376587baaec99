/*
 * Tests of the case-language parser (suite/case/case_*.c, suite/case/case_schema.c): a case using every
 * step kind parses to the expected structure, values of every syntax are read exactly,
 * steps and levels are named, a case loads from a file, and the examples of
 * docs/case-language.md parse. Errors are tested in test_case_parse_errors.c, robustness in
 * test_case_parse_robust.c.
 */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "case_fixture.h"

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
	CHECK_EQ(c->needs, IW_CAP_MARKERS | IW_CAP_CRC_OFF | IW_CAP_ECHO);
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
	CHECK(!c->coalesce);
	CHECK_EQ(c->nsteps, 3);
	CHECK_EQ(step(c, 0)->kind, IW_STEP_ACCEPT);
	CHECK_EQ(arg(step(c, 0), "within")->i, 5000);
	CHECK_EQ(step(c, 1)->kind, IW_EXPECT_REQUEST);
	CHECK_EQ(step(c, 2)->kind, IW_STEP_SEND_REPLY);
	iw_case_free(c);
}

/* A fuzz finding's case: its octets in the writes its run made, and a Read Response whose length
 * alone is known. */
TEST(case_parse_resegment_and_len)
{
	iw_case *c = parse_ok("id: f\ntitle: t\nrequirement: RFC5040-5.2-03 MUST\nrole: responder\n"
			      "resegment: coalesce   # the run's writes\n"
			      "connect\nsend request\nsend raw x\"00\"\nclose\nexpect reply\n"
			      "expect read_resp stag=0x10 to=0x20 len=8\nexpect close\n");
	if (!c)
		return;
	CHECK(c->coalesce);
	CHECK_EQ(step(c, 5)->kind, IW_EXPECT_FPDU);
	CHECK_EQ(arg(step(c, 5), "len")->i, 8);
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

/* `to=end-N`: N octets back from the end of the advertised buffer, which the runner reads with
 * that buffer's length; a number stays a number. */
TEST(case_parse_offset_from_end)
{
	iw_case *c = parse_ok("id: v\ntitle: t\nrequirement: DDP-9.1-T3 MUST\nrole: responder\n"
			      "startup\n"
			      "send write to=end data=\"x\"\n"
			      "send read_req src_to=end-0x10 rsize=17 sink_to=16\n"
			      "send write to=end-4294967295 size=1 stag_of=1\n"
			      "send write to=16 size=1\n");
	if (!c)
		return;
	const iw_step *s = step(c, 1);
	CHECK(arg(s, "to")->from_end);
	CHECK_EQ(arg(s, "to")->type, IW_ARG_INT);
	CHECK_EQ(arg(s, "to")->i, 0);
	s = step(c, 2);
	CHECK(arg(s, "src_to")->from_end);
	CHECK_EQ(arg(s, "src_to")->i, 16);
	CHECK(!arg(s, "sink_to")->from_end);
	s = step(c, 3);
	CHECK_EQ(arg(s, "to")->i, 0xffffffffLL);
	s = step(c, 4);
	CHECK(!arg(s, "to")->from_end);
	CHECK_EQ(arg(s, "to")->i, 16);
	iw_case_free(c);
}

/* `size=recv+1`, `mo=recv-6`, `msn=recv+1`: counted from the DUT's posted receives when the case
 * runs; i is the signed N. */
TEST(case_parse_from_recv)
{
	iw_case *c = parse_ok("id: v\ntitle: t\nrequirement: DDP-9.1-U4 MUST\nrole: responder\nneeds: recv=1x6\n"
			      "startup\n"
			      "send send size=recv+1 mulpdu=16384\n"
			      "send send_se size=7 mo=recv-6\n"
			      "send send data=\"x\" msn=recv+0x10 mo=recv\n"
			      "send send size=7 mo=10\n");
	if (!c)
		return;
	const iw_step *s = step(c, 1);
	CHECK(arg(s, "size")->from_recv);
	CHECK_EQ(arg(s, "size")->type, IW_ARG_INT);
	CHECK_EQ(arg(s, "size")->i, 1);
	CHECK(!arg(s, "mulpdu")->from_recv);
	s = step(c, 2);
	CHECK(arg(s, "mo")->from_recv);
	CHECK_EQ(arg(s, "mo")->i, -6);
	CHECK(!arg(s, "size")->from_recv);
	s = step(c, 3);
	CHECK_EQ(arg(s, "msn")->i, 16);
	CHECK(arg(s, "mo")->from_recv);
	CHECK_EQ(arg(s, "mo")->i, 0);
	s = step(c, 4);
	CHECK(!arg(s, "mo")->from_recv);
	CHECK_EQ(arg(s, "mo")->i, 10);
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

TEST(case_parse_load)
{
	iw_case *c = (iw_case *)(uintptr_t)1;
	iw_err e = { "" };
	CHECK(iw_case_load("/nonexistent/dir/x.iwt", &c, &e) != 0);
	CHECK(c == NULL);
	CHECK(strstr(e.msg, "cannot open '/nonexistent/dir/x.iwt': No such file or directory") != NULL);

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
	/* a file larger than the first read (16 KB of comments, then the case) and one exactly at
	 * the limit load whole: the buffer grows with the file */
	for (int big = 0; big < 2; big++) {
		f = fopen(path, "w");
		if (!f)
			break;
		size_t pad = big ? IW_CASE_MAX_FILE - strlen(full_case) : 40000;
		for (size_t i = 0, r; i < pad; i += r < 80 ? r : 80) {
			r = pad - i;
			if (r == 1)
				fputc('\n', f);
			else
				fprintf(f, "#%.*s\n", (int)(r < 80 ? r - 2 : 78),
					"..............................................................................");
		}
		fputs(full_case, f);
		long size = ftell(f);
		fclose(f);
		if (big)
			CHECK_EQ(size, IW_CASE_MAX_FILE);
		CHECK_EQ(iw_case_load(path, &c, &e), 0);
		if (c) {
			CHECK_EQ(c->nsteps, 28);
			iw_case_free(c);
		}
	}
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

/* `rule=ID` on an expectation, inside a one-of too, is kept on the step and is no argument. */
TEST(case_parse_rule_on_expectations)
{
	iw_case *c = parse_ok("id: t.rule\ntitle: T\nrequirement: RFC5040-4.8-10 MUST\n"
			      "requirement: RFC5040-6.2-02 MUST\nrole: responder\n\nstartup\n"
			      "expect one-of\n  - terminate layer=rdmap rule=RFC5040-4.8-10 ; close\n  - close\nend\n"
			      "expect close how=fin rule=RFC5040-6.2-02\n");
	if (!c)
		return;
	CHECK_EQ(c->nsteps, 3);
	CHECK_STR(step(c, 2)->rule, "RFC5040-6.2-02");
	CHECK(iw_step_arg(step(c, 2), "rule") == NULL);
	CHECK(iw_step_arg(step(c, 2), "how") != NULL);
	CHECK_STR(step(c, 1)->rule, "");
	CHECK(step(c, 1)->nalts == 2 && step(c, 1)->alts[0].nseq == 2);
	if (step(c, 1)->nalts == 2 && step(c, 1)->alts[0].nseq == 2) {
		CHECK_STR(step(c, 1)->alts[0].seq[0]->rule, "RFC5040-4.8-10");
		CHECK_STR(step(c, 1)->alts[0].seq[1]->rule, "");
	}
	iw_case_free(c);
}
