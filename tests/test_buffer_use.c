/*
 * Tests of the octets of the advertised buffer a case writes and reads (suite/run/buffer_use.c),
 * by which the runner keeps apart cases that share the reflector's one memory: what counts as
 * the advertised buffer (no STag of the harness's, a wrapping TO not), how ranges merge, and
 * which pairs conflict (a write against a read or a write; two reads never).
 */
#include "check.h"

#include <stdio.h>
#include <string.h>

#include "buffer_use.h"
#include "case.h"

static iw_case *parse(const char *steps)
{
	char text[2048];
	snprintf(text, sizeof text, "id: t.x\ntitle: T\nrequirement: DDP-9.1-T4 MUST\nrole: responder\n%s", steps);
	iw_case *c = NULL;
	iw_err e = { "" };
	if (iw_case_parse(text, strlen(text), "t.iwt", &c, &e))
		check_fail(__FILE__, __LINE__, "parse failed: %s", e.msg);
	return c;
}

static void use_of(const char *steps, iw_buffer_use *u)
{
	memset(u, 0, sizeof *u);
	iw_case *c = parse(steps);
	if (!c)
		return;
	iw_buffer_use_of(c, u);
	iw_case_free(c);
}

TEST(buffer_use_ranges_of_the_advertised_buffer)
{
	iw_buffer_use u;
	use_of("startup\n"
	       "send write to=0x100 size=16\n"
	       "send write to=0x110 data=\"abcd\"\n"                   /* touches: one range */
	       "send write stag=0xdead0000 to=0 data=\"elsewhere\"\n"  /* the harness's STag */
	       "send write to=0xfffffffffffffff8 size=16\n"           /* wraps: sent as written */
	       "send write to=0x3000 data=x\"\"\n"                    /* zero length: no octet */
	       "send write stag_of=1 to=0x900 size=4\n"               /* the same memory */
	       "send read_req src_to=0x2000 rsize=8\n"
	       "send read_req src_stag=0x1 src_to=0 rsize=8\n",       /* not the advertised STag */
	       &u);
	CHECK_EQ(u.nwrites, 2);
	CHECK_EQ(u.writes[0].lo, 0x100);
	CHECK_EQ(u.writes[0].hi, 0x114);
	CHECK_EQ(u.writes[1].lo, 0x900);
	CHECK_EQ(u.writes[1].hi, 0x904);
	CHECK_EQ(u.nreads, 1);
	CHECK_EQ(u.reads[0].lo, 0x2000);
	CHECK_EQ(u.reads[0].hi, 0x2008);
}

/* An offset back from the end is taken from the reflector's 64 KiB: two cases near the end meet
 * there, and one near it meets a case that wrote that octet by number. */
TEST(buffer_use_from_the_end)
{
	iw_buffer_use edge, last, low;
	use_of("startup\nsend write to=end-1 data=\"Z\"\nsend read_req src_to=end-16 rsize=17\n"
	       "send write to=end size=4\n", &edge);
	CHECK_EQ(edge.nwrites, 1);   /* the Write past the end names octets the model places past it */
	CHECK_EQ(edge.writes[0].lo, 0xffff);
	CHECK_EQ(edge.writes[0].hi, 0x10004);
	CHECK_EQ(edge.nreads, 1);
	CHECK_EQ(edge.reads[0].lo, 0xfff0);
	CHECK_EQ(edge.reads[0].hi, 0x10001);
	use_of("startup\nsend write to=0xfffe size=2\n", &last);
	use_of("startup\nsend write to=0 size=64\n", &low);
	CHECK(iw_buffer_use_conflict(&edge, &last));
	CHECK(!iw_buffer_use_conflict(&edge, &low));
}

TEST(buffer_use_conflicts)
{
	iw_buffer_use whole, mine, reader, other;
	use_of("startup\nsend write to=0 size=65536 fill=0x6b\nsend read_req src_to=0 rsize=65536\n", &whole);
	use_of("startup\nsend write to=0xa000 size=32 fill=0\nsend read_req src_to=0xa000 rsize=32\n", &mine);
	use_of("startup\nsend read_req src_to=0xa010 rsize=4\n", &reader);
	use_of("startup\nsend write to=0xb000 size=100\nsend read_req src_to=0xb000 rsize=100\n", &other);
	CHECK(iw_buffer_use_conflict(&whole, &mine));
	CHECK(iw_buffer_use_conflict(&mine, &whole));
	CHECK(iw_buffer_use_conflict(&reader, &mine));   /* it reads what mine writes */
	CHECK(!iw_buffer_use_conflict(&mine, &other));
	CHECK(!iw_buffer_use_conflict(&reader, &reader)); /* two readers */
}

TEST(buffer_use_many_ranges_err_towards_apart)
{
	char steps[2048] = "startup\n";
	for (int k = 0; k < 20; k++)
		snprintf(steps + strlen(steps), sizeof steps - strlen(steps), "send write to=%d size=1\n", k * 0x100);
	iw_buffer_use u, probe;
	use_of(steps, &u);
	CHECK_EQ(u.nwrites, IW_BUFFER_USE_MAX);
	/* the last range covers the writes past the sixteenth */
	CHECK_EQ(u.writes[IW_BUFFER_USE_MAX - 1].hi, 19 * 0x100 + 1);
	use_of("startup\nsend read_req src_to=0x1300 rsize=1\n", &probe);
	CHECK(iw_buffer_use_conflict(&u, &probe));
}
