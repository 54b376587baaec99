/*
 * Tests of the case parser's errors: every class of error (headers, step names, arguments,
 * types and ranges, strings, one-of blocks, the schema's step rules, every limit of case.h)
 * fails with a message that names the file, the line, the step and the problem.
 */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "case_fixture.h"

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
	FAILS(buf, "t.iwt:18: ", "too many requirements (limit 16)");
}

TEST(case_parse_err_other_headers)
{
	FAILS("role: server\n", "t.iwt:1: ", "not responder or initiator");
	FAILS("needs: markers wings\n", "t.iwt:1: ", "unknown capability 'wings'");
	/* The old catch-all is no capability: the message lists the ones there are. */
	FAILS("needs: reflector\n", "t.iwt:1: ", "unknown capability 'reflector' (known: markers crc-off reject pd rping "
	      "recv write-stag read-stag echo greeting shared-buffer second-conn dut-send dut-read dut-write answer)");
	FAILS("needs: recv\n", "t.iwt:1: ", "recv takes a value: recv=NxS");
	FAILS("needs: echo=1\n", "t.iwt:1: ", "echo takes no value");
	FAILS("needs: recv=8\n", "t.iwt:1: ", "recv=8: write recv=NxS");
	FAILS("needs: recv=0x16\n", "t.iwt:1: ", "recv=0x16: write recv=NxS");
	FAILS("needs: recv=1x0\n", "t.iwt:1: ", "recv=1x0: write recv=NxS");
	FAILS("needs: recv=1x16k\n", "t.iwt:1: ", "recv=1x16k: write recv=NxS");
	FAILS("needs: write-stag=0\n", "t.iwt:1: ", "write-stag=0: write the range in octets");
	FAILS("needs: read-stag=99999999999999999999\n", "t.iwt:1: ", "write the range in octets");
	FAILS("needs: read-stag===64\n", "t.iwt:1: ", "needs: read-stag==: a case reaches the end of the range with "
	      "to=end or to=end-N, whatever its length (docs/case-language.md): write read-stag=N");
	FAILS("needs: write-stag==65536\n", "t.iwt:1: ", "write write-stag=N, the octets it uses");
	FAILS("needs: recv==8x65536\n", "t.iwt:1: ", "needs: recv==: a case reaches the edge of the posted receives with "
	      "size=recv+1, mo=recv or msn=recv+1, whatever their size and number (docs/case-language.md): write "
	      "recv=NxS, the least it uses");
	FAILS("needs: echo markers echo\n", "t.iwt:1: ", "echo named twice");
	FAILS("profiles: rfc5044 rfc9999\n", "t.iwt:1: ", "unknown profile 'rfc9999' (known: ");
	FAILS("profiles: rfc5044 rfc5044\n", "t.iwt:1: ", "named twice");
	FAILS("timeout: 10\n", "t.iwt:1: ", "not a positive duration");
	FAILS("timeout: 0s\n", "t.iwt:1: ", "not a positive duration");
	FAILS("timeout: 25h\n", "t.iwt:1: ", "not a positive duration");
	FAILS("timeout: 999999999m\n", "t.iwt:1: ", "24 h limit");
	FAILS("title: \"abc\" def\n", "t.iwt:1: ", "after the closing");
	/* A case sets only the mode it needs for itself; the others are the run's (--resegment). */
	FAILS("resegment: octet\n", "t.iwt:1: ", "'octet' is not coalesce");
	FAILS("resegment: coalesce\nresegment: coalesce\n", "t.iwt:2: ", "given twice");
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
	/* An offset back from the advertised buffer's end: `end` or `end-N`, and only where a TO into
	 * that buffer goes (not the harness's own sink, not an expectation's pattern). */
	FAILS(with_hdr("send write to=ends\n"), "t.iwt:5: send write: ",
	      "to=ends: expected an offset into the advertised buffer (an integer), or one counted back from its end: "
	      "end, end-N with N from 1 to 0xffffffff (end-16, end-0x10)");
	FAILS(with_hdr("send write to=end-\n"), "t.iwt:5: ", "to=end-: expected an offset");
	FAILS(with_hdr("send write to=end-0\n"), "t.iwt:5: ", "with N from 1");
	FAILS(with_hdr("send write to=end--4\n"), "t.iwt:5: ", "to=end--4: expected");
	FAILS(with_hdr("send write to=end-0x100000000\n"), "t.iwt:5: ", "to 0xffffffff");
	FAILS(with_hdr("send read_req src_to=end-x\n"), "t.iwt:5: send read_req: ", "src_to=end-x: expected an offset");
	FAILS(with_hdr("send read_req sink_to=end\n"), "t.iwt:5: ", "argument 'sink_to' wants an integer, got a word");
	FAILS(with_hdr("expect write to=end\n"), "t.iwt:5: expect write: ", "argument 'to' wants an integer, got a word");
	FAILS(with_hdr("send write to=endless\n"), "t.iwt:5: ", "to=endless: expected an offset");
	FAILS(with_hdr("send write to=end+1\n"), "t.iwt:5: send write: ", "to=end+1: expected an offset");
	/* recv, recv+N, recv-N: counted from the posted receives, only in size, mo, msn of a Send. */
	FAILS(with_hdr("send send size=recv*2\n"), "t.iwt:5: send send: ",
	      "size=recv*2: expected an integer, or one counted from the receives the DUT's application posts: recv, "
	      "recv+N, recv-N with N from 1 to 0xffffffff (recv+1, recv-6)");
	FAILS(with_hdr("send send size=recv+0\n"), "t.iwt:5: ", "with N from 1");
	FAILS(with_hdr("send send msn=recv+0x100000000\n"), "t.iwt:5: ", "msn=recv+0x100000000: expected an integer");
	FAILS(with_hdr("send send mo=recvd\n"), "t.iwt:5: ", "mo=recvd: expected an integer");
	FAILS(with_hdr("send send qn=recv\n"), "t.iwt:5: ", "argument 'qn' wants an integer, got a word");
	FAILS(with_hdr("expect send size=recv\n"), "t.iwt:5: expect send: ", "argument 'size' wants an integer, got a word");
	FAILS(with_hdr("send write size=recv+1\n"), "t.iwt:5: send write: ",
	      "size=recv counts from the receives the DUT's application posts on QN 0: only an untagged Send on QN 0");
	FAILS(with_hdr("send send qn=1 msn=recv+1\n"), "t.iwt:5: ", "msn=recv counts from the receives");
	FAILS(with_hdr("startup\nsend send size=recv+1\n"), "t.iwt:6: ",
	      "size=recv counts from the receives the DUT's application posts: add `needs: recv=NxS`");
}

TEST(case_parse_err_duplicate_argument)
{
	FAILS(with_hdr("connect\nsend request m=1 c=1 m=0\n"), "t.iwt:6: send request: ", "duplicate argument 'm'");
	FAILS(with_hdr("expect silence 1s for=2s\n"), "t.iwt:5: ", "duplicate argument 'for'");
	FAILS(with_hdr("sleep 1s 2s\n"), "t.iwt:5: ", "'for' given twice");
	FAILS(with_hdr("split none none\n"), "t.iwt:5: ", "'none' given twice");
}

/* `rule=` names a requirement the case cites, once, on an expectation only. */
TEST(case_parse_err_rule)
{
	FAILS(with_hdr("connect\nexpect close rule=RFC5040-6.2-02\n"), "t.iwt:6: ",
	      "rule=RFC5040-6.2-02 is not a requirement this case cites");
	FAILS(with_hdr("connect\nexpect close rule=MPA-6.1-R5 rule=MPA-6.1-R5\n"), "t.iwt:6: ", "'rule' given twice");
	FAILS(with_hdr("connect\nexpect close rule=\n"), "t.iwt:6: ", "argument 'rule' has no value");
	FAILS(with_hdr("connect\nexpect close rule=mpa-6.1\n"), "t.iwt:6: ", "is not a requirement ID");
	FAILS(with_hdr("connect\nsend request rule=MPA-6.1-R5\n"), "t.iwt:6: ", "unknown argument 'rule'");
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
	FAILS(with_hdr("expect read_resp len=3 size=3\n"), "t.iwt:5: ", "size gives the length too: use one");
	FAILS(with_hdr("expect send len=1 data=\"a\"\n"), "t.iwt:5: ", "data gives the length too: use one");
	FAILS(with_hdr("send write stag=0x10 to=end\n"), "t.iwt:5: send write: ",
	      "to=end counts back from the end of the DUT's advertised buffer, and stag= names another");
	FAILS(with_hdr("send read_req src_stag=0x10 src_to=end-4 rsize=4\n"), "t.iwt:5: send read_req: ",
	      "src_to=end counts back from the end of the DUT's advertised buffer, and src_stag= names another");
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
	FAILS("id: a\ntitle: T\nrequirement: MPA-6.1-R5 MUST\nrole: initiator\nneeds: echo\nstartup mss=536\n",
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

	/* Exactly IW_CASE_MAX_STEPS: the step array grows (8, 16, ... 96) and keeps every step,
	 * an `expect one-of` block on the 8th included. */
	snprintf(buf, sizeof buf, "%s", hdr);
	for (int i = 0; i < IW_CASE_MAX_STEPS; i++) {
		char line[96];
		if (i == 8)
			snprintf(line, sizeof line, "expect one-of\n  - close\n  - silence 300ms\nend\n");
		else
			snprintf(line, sizeof line, "expect silence for=%dms\n", i + 1);
		strcat(buf, line);
	}
	iw_case *full = parse_ok(buf);
	if (full) {
		CHECK_EQ(full->nsteps, (size_t)IW_CASE_MAX_STEPS);
		CHECK_EQ(full->steps[8].kind, IW_EXPECT_ONE_OF);
		CHECK_EQ(full->steps[8].nalts, (size_t)2);
		for (int i = 0; i < IW_CASE_MAX_STEPS; i++)
			if (i != 8)
				CHECK_EQ(iw_step_arg(&full->steps[i], "for")->i, i + 1);
		iw_case_free(full);
	}

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
