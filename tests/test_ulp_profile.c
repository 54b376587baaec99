/*
 * Tests of the capabilities of `needs:` (case_needs.c) and the ULP profiles that meet them
 * (suite/run/ulp_profile.c): the values a header gives (at least as much; no exact form),
 * the text a header and a SKIP write, and which profile runs which case.
 */
#include "check.h"

#include <stdio.h>
#include <string.h>

#include "case.h"
#include "dut_config.h"
#include "iw_conn.h"
#include "ulp_profile.h"

static iw_case *parse(const char *needs, const char *steps)
{
	char text[1024];
	snprintf(text, sizeof text, "id: t.x\ntitle: T\nrequirement: DDP-9.1-T4 MUST\nrole: responder\n%s%s%s", needs,
		 *needs ? "\n" : "", steps);
	iw_case *c = NULL;
	iw_err e = { "" };
	if (iw_case_parse(text, strlen(text), "t.iwt", &c, &e))
		check_fail(__FILE__, __LINE__, "parse failed: %s", e.msg);
	return c;
}

TEST(needs_values_parsed)
{
	iw_case *c = parse("needs: markers recv=8x0x10000 write-stag=65536 read-stag=64 echo dut-write", "startup\n");
	if (!c)
		return;
	CHECK_EQ(c->needs, IW_CAP_MARKERS | IW_CAP_RECV | IW_CAP_WRITE_STAG | IW_CAP_READ_STAG | IW_CAP_ECHO |
				   IW_CAP_DUT_WRITE);
	CHECK_EQ(c->amounts.recv_n, 8);
	CHECK_EQ(c->amounts.recv_size, 65536);
	CHECK_EQ(c->amounts.write_stag, 65536);
	CHECK_EQ(c->amounts.read_stag, 64);
	char buf[160];
	CHECK_STR(iw_needs_text(c->needs, &c->amounts, buf, sizeof buf),
		  "markers recv=8x65536 write-stag=65536 read-stag=64 echo dut-write");
	iw_case_free(c);
}

TEST(needs_names_round_trip)
{
	for (unsigned bit = 1; bit <= IW_CAP_ANSWER; bit <<= 1) {
		const char *n = iw_needs_name(bit);
		CHECK(n != NULL);
		if (n)
			CHECK_EQ(iw_needs_bit(n, strlen(n)), bit);
	}
	CHECK(iw_needs_name(IW_CAP_ANSWER << 1) == NULL);
	CHECK_EQ(iw_needs_bit("reflector", 9), 0);
}

/* `answer` is a capability of its own: the reflector's echo answers too, ib_send_lat's server
 * answers without echoing, and a case that needs the echo is not run where only an answer comes. */
TEST(needs_answer)
{
	iw_case *c = parse("needs: recv=1x16 answer", "startup\nsend send data=\"a\"\nexpect send data=\"a\"\n");
	iw_case *e = parse("needs: recv=1x16 echo", "startup\nsend send data=\"a\"\nexpect send data=\"a\"\n");
	if (!c || !e)
		goto out;
	CHECK_EQ(c->needs, IW_CAP_RECV | IW_CAP_ANSWER);
	CHECK_EQ(iw_needs_bit("answer", 6), IW_CAP_ANSWER);
	char buf[96];
	CHECK_STR(iw_needs_text(c->needs, &c->amounts, buf, sizeof buf), "recv=1x16 answer");
	const iw_ulp_profile *lat = iw_ulp_profile_find("perftest-send-lat-server");
	const iw_ulp_profile *refl = iw_ulp_profile_find("reflector"), *bw = iw_ulp_profile_find("perftest-send-server");
	CHECK(lat && refl && bw);
	if (!lat || !refl || !bw)
		goto out;
	CHECK(!iw_ulp_unmet(c, lat, buf, sizeof buf));
	CHECK(!iw_ulp_unmet(c, refl, buf, sizeof buf));
	CHECK(iw_ulp_unmet(c, bw, buf, sizeof buf));
	CHECK(strstr(buf, "needs answer: the DUT runs ib_send_bw -R") == buf);
	CHECK(iw_ulp_unmet(e, lat, buf, sizeof buf));
	CHECK(strstr(buf, "needs echo: the DUT runs ib_send_lat -R -s 65536") == buf);
	/* Where the DUT's MSN stands after startup: the reflector's greeting and echo, ib_send_lat's
	 * answer alone (exec_receive.c translates a case's `expect send msn=` by the difference). */
	CHECK_EQ(refl->dut_next_msn, IW_ULP_REFLECTOR_NEXT_MSN);
	CHECK_EQ(lat->dut_next_msn, 2);
	CHECK_EQ(lat->amounts.recv_n, 512);
	CHECK_EQ(lat->amounts.recv_size, 65536);
out:
	iw_case_free(c);
	iw_case_free(e);
}

TEST(needs_unmet_amounts)
{
	iw_case_needs_amounts need = { 8, 65536, 65536, 0 }, have = { 1, 16, 131072, 0 };
	char why[96];
	CHECK(iw_needs_unmet(IW_CAP_WRITE_STAG, &need, IW_CAP_WRITE_STAG, &have, why, sizeof why) == false);
	CHECK(iw_needs_unmet(IW_CAP_WRITE_STAG | IW_CAP_RECV, &need, IW_CAP_WRITE_STAG | IW_CAP_RECV, &have, why,
			     sizeof why));
	CHECK_STR(why, "recv=8x65536 (there: recv=1x16)");
	/* More and larger receives than the case needs meet it. */
	have.recv_n = 512;
	have.recv_size = 65536;
	CHECK(iw_needs_unmet(IW_CAP_RECV, &need, IW_CAP_RECV, &have, why, sizeof why) == false);
	have.recv_size = 65535;
	CHECK(iw_needs_unmet(IW_CAP_RECV, &need, IW_CAP_RECV, &have, why, sizeof why));
	CHECK_STR(why, "recv=8x65536 (there: recv=512x65535)");
	CHECK(iw_needs_unmet(IW_CAP_ECHO | IW_CAP_WRITE_STAG, &need, IW_CAP_WRITE_STAG, &have, why, sizeof why));
	CHECK_STR(why, "echo");
}

static iw_dut_config dut(int ulp, bool reflector)
{
	iw_dut_config d;
	memset(&d, 0, sizeof d);
	d.ulp = ulp;
	d.reflector = reflector;
	return d;
}

TEST(ulp_profile_of_config)
{
	iw_dut_config d = dut(IW_ULP_REFLECTOR, true);
	CHECK_STR(iw_ulp_profile_of(&d, IW_ROLE_RESPONDER)->name, "reflector");
	CHECK_STR(iw_ulp_profile_of(&d, IW_ROLE_INITIATOR)->name, "reflector");
	d = dut(IW_ULP_REFLECTOR, false);    /* reflector = no */
	CHECK_STR(iw_ulp_profile_of(&d, IW_ROLE_RESPONDER)->name, "none");
	CHECK_STR(iw_ulp_profile_of(&d, IW_ROLE_INITIATOR)->name, "none-initiator");
	d = dut(IW_ULP_RPING, false);
	CHECK_STR(iw_ulp_profile_of(&d, IW_ROLE_RESPONDER)->name, "rping-server");
	CHECK_STR(iw_ulp_profile_of(&d, IW_ROLE_INITIATOR)->name, "rping-client");
	d = dut(IW_ULP_PERFTEST_WRITE, false);
	CHECK_STR(iw_ulp_profile_of(&d, IW_ROLE_RESPONDER)->name, "perftest-write-server");
	CHECK_EQ(iw_ulp_profile_of(&d, IW_ROLE_RESPONDER)->startup, IW_ULP_START_PERFTEST);
	CHECK_STR(iw_ulp_profile_of(&d, IW_ROLE_INITIATOR)->name, "perftest-write-client");
	/* iwspec plays perftest's server to a client DUT too (exec_perftest.c): every perftest
	 * profile is selectable and runs its startup. */
	CHECK_EQ(iw_ulp_profile_of(&d, IW_ROLE_INITIATOR)->startup, IW_ULP_START_PERFTEST);
	CHECK(iw_ulp_profile_ready(iw_ulp_profile_of(&d, IW_ROLE_INITIATOR)));
	/* ib_send_lat: its server is a profile; its client is none (it would give nothing ib_send_bw's
	 * does not), and is never another profile's startup: every case SKIPs, saying why. */
	d = dut(IW_ULP_PERFTEST_SEND_LAT, false);
	CHECK_STR(iw_ulp_profile_of(&d, IW_ROLE_RESPONDER)->name, "perftest-send-lat-server");
	CHECK_EQ(iw_ulp_profile_of(&d, IW_ROLE_RESPONDER)->startup, IW_ULP_START_PERFTEST);
	const iw_ulp_profile *lc = iw_ulp_profile_of(&d, IW_ROLE_INITIATOR);
	CHECK_STR(lc->name, "perftest-send-lat-client");
	CHECK(!iw_ulp_profile_ready(lc));
	CHECK(strstr(lc->why_not, "use ulp = perftest-send") != NULL);
	CHECK(iw_ulp_profile_find("perftest-send-lat-client") == NULL);
	size_t n;
	const iw_ulp_profile *all = iw_ulp_profiles(&n);
	CHECK(n >= 5);
	for (size_t i = 0; i < n; i++) {
		CHECK((all[i].provides & IW_CAP_CONFIG) == 0);
		CHECK(iw_ulp_profile_find(all[i].name) == &all[i]);
		CHECK((all[i].startup != IW_ULP_START_NONE && all[i].startup != IW_ULP_START_PLANNED) ||
		      all[i].why_not != NULL);
		/* What `ulp =` can select runs its startup; the planned ones cannot be selected. */
		CHECK_EQ(iw_ulp_profile_ready(&all[i]), all[i].startup != IW_ULP_START_PLANNED);
	}
}

/* rping_size sizes rping's ranges and says -S N; the rping cases, written for -S 64, are not
 * provided by an rping of another size. Every other profile, and -S 64, is the table's. */
TEST(ulp_profile_sized_by_rping_size)
{
	iw_dut_config d = dut(IW_ULP_RPING, false);
	iw_ulp_profile u;
	char runs[96];
	d.rping_size = 64;
	iw_ulp_profile_sized(&d, IW_ROLE_INITIATOR, &u, runs, sizeof runs);
	CHECK(u.dut_runs == iw_ulp_profile_find("rping-client")->dut_runs);
	CHECK_EQ(u.amounts.write_stag, 64);
	CHECK(u.provides & IW_CAP_RPING);
	d.rping_size = 65535;
	iw_ulp_profile_sized(&d, IW_ROLE_INITIATOR, &u, runs, sizeof runs);
	CHECK_STR(u.name, "rping-client");
	CHECK_STR(u.dut_runs, "rping -c -S 65535 -C 2");
	CHECK_EQ(u.amounts.write_stag, 65535);
	CHECK_EQ(u.amounts.read_stag, 65535);
	CHECK_EQ(u.amounts.recv_size, 16);
	CHECK(!(u.provides & IW_CAP_RPING));
	CHECK(u.provides & IW_CAP_DUT_SEND);
	iw_ulp_profile_sized(&d, IW_ROLE_RESPONDER, &u, runs, sizeof runs);
	CHECK_STR(u.dut_runs, "rping -s -S 65535 (-P on a tcp: DUT)");
	CHECK_EQ(u.amounts.write_stag, 0);      /* rping's server advertises nothing */
	CHECK(!(u.provides & IW_CAP_RPING));
	d = dut(IW_ULP_PERFTEST_READ, false);
	d.rping_size = 4096;
	iw_ulp_profile_sized(&d, IW_ROLE_RESPONDER, &u, runs, sizeof runs);
	CHECK_EQ(u.amounts.read_stag, 65536);
	CHECK(u.dut_runs == iw_ulp_profile_find("perftest-read-server")->dut_runs);
}

TEST(ulp_unmet_names_capability_and_profile)
{
	char why[256];
	iw_case *c = parse("needs: recv=1x16", "startup\nsend send_inv data=\"inv\" inv_stag=0xbad00000\n");
	iw_case *e = parse("needs: recv=2x16 echo", "startup\nsend send data=\"a\"\nexpect send data=\"a\"\n");
	iw_case *w = parse("needs: write-stag=64 read-stag=64", "startup\nsend write to=0 data=\"a\"\n");
	iw_case *bare = parse("", "startup\nsend send data=\"q\" qn=3\nexpect terminate layer=ddp etype=2 ecode=1\n");
	iw_case *mk = parse("needs: markers", "connect\nsend request m=1\nexpect reply\n");
	if (!c || !e || !w || !bare || !mk)
		goto out;
	const iw_ulp_profile *srv = iw_ulp_profile_find("rping-server"), *cli = iw_ulp_profile_find("rping-client");
	const iw_ulp_profile *refl = iw_ulp_profile_find("reflector"), *none = iw_ulp_profile_find("none");
	const iw_ulp_profile *nonei = iw_ulp_profile_find("none-initiator");
	CHECK(srv && cli && refl && none && nonei);
	if (!srv || !cli || !refl || !none || !nonei)
		goto out;
	CHECK(!iw_ulp_unmet(c, srv, why, sizeof why));
	CHECK(iw_ulp_unmet(c, none, why, sizeof why));
	CHECK_STR(why, "needs recv=1x16: the DUT runs any application that accepts a connection (reflector = no) "
		       "(ulp profile none), which does not provide it");
	CHECK(iw_ulp_unmet(e, srv, why, sizeof why));
	CHECK(strstr(why, "needs recv=2x16 (there: recv=1x16): the DUT runs rping -s") == why);
	CHECK(!iw_ulp_unmet(e, refl, why, sizeof why));
	CHECK(iw_ulp_unmet(w, srv, why, sizeof why));
	CHECK(strstr(why, "needs write-stag=64:") == why);
	CHECK(!iw_ulp_unmet(w, cli, why, sizeof why));
	/* A case that needs nothing of the application runs wherever `startup` can run. */
	CHECK(!iw_ulp_unmet(bare, none, why, sizeof why));
	CHECK(!iw_ulp_unmet(bare, srv, why, sizeof why));
	CHECK(iw_ulp_unmet(bare, nonei, why, sizeof why));
	CHECK(strstr(why, "MPA-6.1-R4") != NULL);
	/* The configuration's capabilities are the runner's, not the profile's; a case without
	 * `startup` is not held back by a profile that has none. */
	CHECK(!iw_ulp_unmet(mk, none, why, sizeof why));
	CHECK(!iw_ulp_unmet(mk, nonei, why, sizeof why));
	/* perftest's clients: a case that needs nothing runs (unlike none-initiator, `startup` has
	 * the client's test to wait for); ib_send_bw's client posts no receives and opens no buffer. */
	const iw_ulp_profile *ps = iw_ulp_profile_find("perftest-send-client");
	const iw_ulp_profile *pw = iw_ulp_profile_find("perftest-write-client");
	const iw_ulp_profile *pr = iw_ulp_profile_find("perftest-read-client");
	CHECK(ps && pw && pr);
	if (!ps || !pw || !pr)
		goto out;
	CHECK(!iw_ulp_unmet(bare, ps, why, sizeof why));
	CHECK(iw_ulp_unmet(c, ps, why, sizeof why));
	CHECK(strstr(why, "needs recv=1x16: the DUT runs ib_send_bw -R -F -n 5 HARNESS (ulp profile perftest-send-client)") ==
	      why);
	CHECK(iw_ulp_unmet(w, ps, why, sizeof why));
	CHECK(iw_ulp_unmet(w, pw, why, sizeof why));
	CHECK(strstr(why, "needs read-stag=64:") == why);
	CHECK(!iw_ulp_unmet(w, pr, why, sizeof why));
	CHECK(iw_ulp_unmet(e, pr, why, sizeof why));
out:
	iw_case_free(c);
	iw_case_free(e);
	iw_case_free(w);
	iw_case_free(bare);
	iw_case_free(mk);
}

/* Whose crash is the stack's to answer for: not rping's or perftest's, which run over it. */
TEST(ulp_runs_tool)
{
	size_t n;
	const iw_ulp_profile *all = iw_ulp_profiles(&n);
	for (size_t i = 0; i < n; i++) {
		bool tool = !strncmp(all[i].name, "rping", 5) || !strncmp(all[i].name, "perftest", 8);
		CHECK(iw_ulp_runs_tool(&all[i]) == tool);
	}
}

/* ulp = perftest: each case runs against the first of perftest's modes (read, send, write) that
 * provides all it needs; one that needs receives and a buffer at once has none, and its SKIP says
 * what each mode lacks. */
TEST(ulp_perftest_picks_mode)
{
	iw_dut_config d = dut(IW_ULP_PERFTEST, false);
	const iw_ulp_profile *any = iw_ulp_profile_of(&d, IW_ROLE_RESPONDER);
	CHECK_STR(any->name, "perftest-server");
	CHECK_STR(iw_ulp_profile_of(&d, IW_ROLE_INITIATOR)->name, "perftest-client");
	char why[512];
	iw_case *c = parse("needs: recv=1x1", "startup\n");
	if (c) {
		CHECK_STR(iw_ulp_mode_for(any, c)->name, "perftest-send-server");
		CHECK(!iw_ulp_unmet(c, any, why, sizeof why));
		iw_case_free(c);
	}
	c = parse("needs: write-stag=64 read-stag=64", "startup\n");
	if (c) {
		CHECK_STR(iw_ulp_mode_for(any, c)->name, "perftest-read-server");
		iw_case_free(c);
	}
	c = parse("needs: write-stag=64", "startup\n");
	if (c) {
		/* read's buffer takes Writes too, and read comes first */
		CHECK_STR(iw_ulp_mode_for(any, c)->name, "perftest-read-server");
		iw_case_free(c);
	}
	c = parse("needs: recv=1x16 write-stag=64", "startup\n");
	if (c) {
		CHECK(iw_ulp_mode_for(any, c) == NULL);
		CHECK(iw_ulp_unmet(c, any, why, sizeof why));
		CHECK_STR(why, "needs recv=1x16: no program of perftest's provides all it needs (ib_read_bw lacks recv=1x16, "
			       "ib_send_bw write-stag=64, ib_write_bw recv=1x16, ib_send_lat write-stag=64; ulp profile "
			       "perftest-server)");
		iw_case_free(c);
	}
	/* A case that needs ib_send_lat's answer gets ib_send_lat; as client no program answers. */
	c = parse("needs: answer", "startup\n");
	if (c) {
		CHECK_STR(iw_ulp_mode_for(any, c)->name, "perftest-send-lat-server");
		CHECK(iw_ulp_mode_for(iw_ulp_profile_of(&d, IW_ROLE_INITIATOR), c) == NULL);
		CHECK(iw_ulp_unmet(c, iw_ulp_profile_of(&d, IW_ROLE_INITIATOR), why, sizeof why));
		CHECK_STR(why, "needs answer: no program of perftest's provides all it needs (ib_read_bw "
			       "lacks answer, ib_send_bw answer, ib_write_bw answer; ulp profile perftest-client)");
		iw_case_free(c);
	}
	/* Any other profile is its own mode. */
	d = dut(IW_ULP_RPING, false);
	c = parse("needs: recv=1x1", "startup\n");
	if (c) {
		CHECK(iw_ulp_mode_for(iw_ulp_profile_of(&d, IW_ROLE_RESPONDER), c) == iw_ulp_profile_of(&d, IW_ROLE_RESPONDER));
		iw_case_free(c);
	}
}
