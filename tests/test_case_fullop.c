/*
 * Tests of the full-operation additions to the case language (suite/case/case_parse.c,
 * suite/case/case_schema.c): the `startup` step and its reflector requirement, the FPDU arguments
 * fill, cut and marker_at, the expectation arguments markers, hdr and rdma_hdr, and that every
 * case of the catalog under cases/ parses (the full-operation families included).
 */
#include "check.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"

static iw_case *parse_ok(const char *text)
{
	iw_case *c = NULL;
	iw_err e;
	int rc = iw_case_parse(text, strlen(text), "t.iwt", &c, &e);
	if (rc != IW_OK)
		fprintf(stderr, "unexpected parse error: %s\n", e.msg);
	return c;
}

static int parse_err(const char *text, char *msg, size_t cap)
{
	iw_case *c = NULL;
	iw_err e;
	int rc = iw_case_parse(text, strlen(text), "t.iwt", &c, &e);
	snprintf(msg, cap, "%s", rc ? e.msg : "");
	iw_case_free(c);
	return rc;
}

#define HDR "id: t.fullop\ntitle: t\nrequirement: DDP-9.1-T4 MUST\nrole: responder\n"

TEST(case_fullop_startup_parses)
{
	iw_case *c = parse_ok(HDR "needs: echo\n"
			      "startup m=1 c=0 within=3s\n"
			      "send write to=0x10 size=100 fill=0x5a marker_at=crc\n"
			      "send send data=\"x\" cut=10\n"
			      "expect send size=100 fill=0x5a markers=2 marker_first=1\n"
			      "expect terminate layer=ddp etype=1 ecode=1 hdr=1 rdma_hdr=0\n"
			      "expect alive\n");
	CHECK(c != NULL);
	if (!c)
		return;
	CHECK_EQ(c->nsteps, 6);
	CHECK_EQ(c->steps[0].kind, IW_STEP_STARTUP);
	CHECK_STR(iw_step_name(c->steps[0].kind), "startup");
	CHECK_EQ(iw_step_arg(&c->steps[0], "m")->i, 1);
	CHECK_EQ(iw_step_arg(&c->steps[0], "within")->i, 3000);
	CHECK_STR(iw_step_arg(&c->steps[1], "marker_at")->s, "crc");
	CHECK_EQ(iw_step_arg(&c->steps[1], "fill")->i, 0x5a);
	CHECK_EQ(iw_step_arg(&c->steps[2], "cut")->i, 10);
	CHECK_EQ(iw_step_arg(&c->steps[3], "markers")->i, 2);
	CHECK_EQ(iw_step_arg(&c->steps[4], "hdr")->i, 1);
	iw_case_free(c);
}

/* `startup` reaches whatever the DUT's ULP profile provides, so it needs no capability; the
 * reflector's greeting, which a case expects itself, does. */
TEST(case_fullop_greeting_needs_greeting)
{
	char msg[512];
	iw_case *c = parse_ok(HDR "startup\n");
	CHECK(c != NULL);
	if (c)
		CHECK_EQ(c->needs, 0);
	iw_case_free(c);
	CHECK(parse_err(HDR "connect\nsend request\nexpect reply\nsend send data=\"a\"\nexpect greeting\n", msg,
			sizeof msg) != IW_OK);
	CHECK(strstr(msg, "needs: greeting") != NULL);
	CHECK(strstr(msg, "t.iwt:9") != NULL);
}

TEST(case_fullop_bad_values)
{
	char msg[512];
	CHECK(parse_err(HDR "needs: echo\nstartup\nsend send size=4 marker_at=middle\n", msg, sizeof msg) != IW_OK);
	CHECK(strstr(msg, "marker_at") != NULL);
	CHECK(parse_err(HDR "needs: echo\nstartup\nsend send size=4 fill=256\n", msg, sizeof msg) != IW_OK);
	CHECK(strstr(msg, "fill") != NULL);
	CHECK(parse_err(HDR "needs: echo\nstartup m=2\n", msg, sizeof msg) != IW_OK);
	CHECK(parse_err(HDR "needs: echo\nstartup bogus=1\n", msg, sizeof msg) != IW_OK);
	CHECK(strstr(msg, "bogus") != NULL);
}

/* Every case of the catalog parses; the full-operation families are there. */
static void walk(const char *dir, size_t *n, size_t *bad, size_t *fullop)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		size_t l = strlen(de->d_name);
		if (l > 4 && !strcmp(de->d_name + l - 4, ".iwt")) {
			iw_case *c = NULL;
			iw_err e;
			(*n)++;
			if (iw_case_load(path, &c, &e) != IW_OK) {
				(*bad)++;
				fprintf(stderr, "%s\n", e.msg);
			} else {
				for (size_t i = 0; i < c->nsteps; i++)
					if (c->steps[i].kind == IW_STEP_STARTUP) {
						(*fullop)++;
						break;
					}
			}
			iw_case_free(c);
		} else {
			walk(path, n, bad, fullop);
		}
	}
	closedir(d);
}

TEST(case_fullop_catalog_parses)
{
	size_t n = 0, bad = 0, fullop = 0;
	walk("cases", &n, &bad, &fullop);
	CHECK(n > 100);
	CHECK_EQ(bad, 0);
	CHECK(fullop >= 60);
}
