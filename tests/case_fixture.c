/*
 * case_fixture.c - the shared case of the case-parser tests (case_fixture.h).
 */
#include "case_fixture.h"

#include "check.h"

const char full_case[] =
	"# Every step kind of the language, with every value syntax.\n"
	"id: test.full-case_1\n"
	"title: Every step kind   # a comment after the title\n"
	"requirement: MPA-6.1-R5 MUST\n"
	"requirement: MPAc-8.1-04 SHOULD\n"
	"requirement: RFC5040-4.8 INFO\n"
	"requirement: DDP-9.1-T4 SHOULD NOT\n"
	"role: responder   # the DUT\n"
	"needs: markers crc-off echo\n"
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

iw_case *parse_ok_at(const char *file, int line, const char *text)
{
	iw_case *c = NULL;
	iw_err e = { "" };
	int rc = iw_case_parse(text, strlen(text), "t.iwt", &c, &e);
	if (rc != 0)
		check_fail(file, line, "parse failed: %s", e.msg);
	return c;
}
