/*
 * ulp_profile.c - the ULP profiles (ulp_profile.h): what each application a DUT can run
 * provides to the cases, and the check of a case's needs against it.
 *
 * The perftest profiles are what perftest's source (v4.5-0.17, Debian 12's perftest 4.5+0.17)
 * registers and posts with its defaults (suite/engine/perftest_msg.h): ib_send_bw's server keeps
 * rx_depth 512 receives of the message size (65536); the keys a side sends name 65536 octets
 * from their vaddr to the end of its buffer, registered for remote write (ib_write_bw), remote
 * read and, on an iWARP device, remote write (ib_read_bw). ib_send_lat's server (-s 65536) posts
 * the same receives (rx_depth 512, capped at -n, 1000 by default) and answers each Send it
 * receives with one of -s octets of its own (run_iter_lat_send), so it shows delivery, not what
 * was delivered: IW_CAP_ANSWER, not IW_CAP_ECHO.
 */
#include "ulp_profile.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "iw_conn.h"

/* The reflector's echo is an answer too (IW_CAP_ANSWER): one Send per Send delivered. */
#define REFLECTOR_CAPS (IW_CAP_RECV | IW_CAP_WRITE_STAG | IW_CAP_READ_STAG | IW_CAP_ECHO | IW_CAP_ANSWER | \
			IW_CAP_GREETING | IW_CAP_SHARED | IW_CAP_SECOND_CONN | IW_CAP_DUT_SEND)

static const iw_ulp_profile profiles[] = {
	{
		.name = "reflector", .ulp = IW_ULP_REFLECTOR, .dut_role = -1,
		.dut_runs = "iwspec-reflector --listen / --connect (docs/reflector.md)",
		.provides = REFLECTOR_CAPS, .amounts = { 8, 65536, 65536, 65536 },
		.startup = IW_ULP_START_REFLECTOR, .dut_next_msn = IW_ULP_REFLECTOR_NEXT_MSN,
		.how = "startup sends one Send; the reflector's first Send advertises its 64 KiB buffer (STag, TO, length: "
		       "the greeting), then it echoes; 8 receives of 64 KiB stay posted; every connection's STag names one "
		       "memory",
	},
	{
		.name = "rping-server", .ulp = IW_ULP_RPING, .dut_role = IW_ROLE_RESPONDER,
		.dut_runs = "rping -s -S 64 (-P on a tcp: DUT)",
		.provides = IW_CAP_RPING | IW_CAP_RECV, .amounts = { 1, 16, 0, 0 },
		.startup = IW_ULP_START_FRAMES,
		.how = "startup is the frames alone: rping's server keeps one 16-octet receive posted and advertises "
		       "nothing until the harness advertises a buffer of its own (the rping cases script that flow: "
		       "needs rping)",
	},
	{
		.name = "rping-client", .ulp = IW_ULP_RPING, .dut_role = IW_ROLE_INITIATOR,
		.dut_runs = "rping -c -S 64 -C 2",
		.provides = IW_CAP_RPING | IW_CAP_RECV | IW_CAP_WRITE_STAG | IW_CAP_READ_STAG | IW_CAP_DUT_SEND,
		.amounts = { 1, 16, 64, 64 },
		.startup = IW_ULP_START_RPING_INFO,
		.how = "startup takes rping's first Send after the frames: its 16-octet advertisement of its 64-octet "
		       "source buffer (address, rkey, size; registered for remote read and write), which `send write` "
		       "and `send read_req` then address; one 16-octet receive stays posted",
	},
	{
		.name = "none", .ulp = IW_ULP_NONE, .dut_role = IW_ROLE_RESPONDER,
		.dut_runs = "any application that accepts a connection (reflector = no)",
		.startup = IW_ULP_START_FRAMES,
		.how = "startup is the frames alone: nothing is known of the application's receives or buffers, so only "
		       "what a connection in full operation must do is judged (Terminates for bad headers, queues, "
		       "opcodes)",
	},
	{
		.name = "none-initiator", .ulp = IW_ULP_NONE, .dut_role = IW_ROLE_INITIATOR,
		.dut_runs = "any application that connects (reflector = no)",
		.startup = IW_ULP_START_NONE,
		.why_not = "an initiator DUT whose application sends no first FPDU leaves the harness, as responder, none "
			   "to send before it (MPA-6.1-R4)",
		.how = "no startup: after the frames the harness must wait for the DUT's first FPDU (MPA-6.1-R4), which "
		       "nothing makes the application send",
	},
	{
		.name = "perftest-send-server", .ulp = IW_ULP_PERFTEST_SEND, .dut_role = IW_ROLE_RESPONDER, .dut_runs = "ib_send_bw -R",
		.provides = IW_CAP_RECV, .amounts = { 512, 65536, 0, 0 },
		.startup = IW_ULP_START_PERFTEST,
		.how = "before each connection its comm connection (an MPA connection of its own: version, cycle buffer, "
		       "cache line, MTU and the keys once, each a Send each way); after the frames the keys on it four "
		       "times; the server posts rx_depth 512 receives of the message size (-s, 65536) on its test "
		       "connection",
	},
	{
		.name = "perftest-send-client", .ulp = IW_ULP_PERFTEST_SEND, .dut_role = IW_ROLE_INITIATOR,
		.dut_runs = "ib_send_bw -R -F -n 5 HARNESS", .startup = IW_ULP_START_PERFTEST,
		.how = "iwspec plays perftest's server: the DUT's comm connection first, each of its messages answered; "
		       "after the test connection's Reply the keys five times (the fifth once its receives are posted; the "
		       "harness's name a buffer of its own), then startup takes the client's whole test, 5 Sends of 65536 "
		       "octets; the client posts no receives on its test connection and its buffer is for local writes "
		       "only",
	},
	{
		.name = "perftest-write-server", .ulp = IW_ULP_PERFTEST_WRITE, .dut_role = IW_ROLE_RESPONDER, .dut_runs = "ib_write_bw -R",
		.provides = IW_CAP_WRITE_STAG, .amounts = { 0, 0, 65536, 0 },
		.startup = IW_ULP_START_PERFTEST,
		.how = "as perftest-send-server's; the server's keys name 65536 octets from vaddr to the end of its "
		       "buffer, registered for remote write, which `send write` then addresses",
	},
	{
		.name = "perftest-write-client", .ulp = IW_ULP_PERFTEST_WRITE, .dut_role = IW_ROLE_INITIATOR,
		.dut_runs = "ib_write_bw -R -F -n 5 HARNESS", .provides = IW_CAP_WRITE_STAG,
		.amounts = { 0, 0, 65536, 0 }, .startup = IW_ULP_START_PERFTEST,
		.how = "as perftest-send-client's, the test 5 Writes of 65536 octets into the buffer the harness's keys "
		       "name; the client's keys name 65536 octets of its own buffer, registered for remote write",
	},
	{
		.name = "perftest-read-server", .ulp = IW_ULP_PERFTEST_READ, .dut_role = IW_ROLE_RESPONDER, .dut_runs = "ib_read_bw -R",
		.provides = IW_CAP_READ_STAG | IW_CAP_WRITE_STAG, .amounts = { 0, 0, 65536, 65536 },
		.startup = IW_ULP_START_PERFTEST,
		.how = "as perftest-send-server's; the keys name 65536 octets registered for remote read and, on iWARP, "
		       "remote write",
	},
	{
		.name = "perftest-read-client", .ulp = IW_ULP_PERFTEST_READ, .dut_role = IW_ROLE_INITIATOR, .dut_runs = "ib_read_bw -R -F -n 5 HARNESS",
		.provides = IW_CAP_READ_STAG | IW_CAP_WRITE_STAG, .amounts = { 0, 0, 65536, 65536 },
		.startup = IW_ULP_START_PERFTEST,
		.how = "as perftest-send-client's, the test 5 RDMA Reads of 65536 octets of the harness's buffer, each "
		       "answered in startup; the client's keys name 65536 octets registered for remote read and write",
	},
	{
		.name = "perftest-server", .ulp = IW_ULP_PERFTEST, .dut_role = IW_ROLE_RESPONDER,
		.dut_runs = "ib_read_bw, ib_send_bw, ib_write_bw or ib_send_lat -R, the one each case needs",
		.provides = IW_CAP_RECV | IW_CAP_READ_STAG | IW_CAP_WRITE_STAG | IW_CAP_ANSWER,
		.amounts = { 512, 65536, 65536, 65536 },
		.startup = IW_ULP_START_PERFTEST,
		.how = "per case the first of perftest-read-server, perftest-send-server, perftest-write-server and "
		       "perftest-send-lat-server that provides all the case needs, started by the exec: command "
		       "({perftest}: read, send, write, send-lat); a case that needs receives and a buffer at once runs "
		       "under none (no program has both)",
	},
	{
		.name = "perftest-client", .ulp = IW_ULP_PERFTEST, .dut_role = IW_ROLE_INITIATOR,
		.dut_runs = "ib_read_bw, ib_send_bw or ib_write_bw -R -F -n 5 HARNESS, the one each case needs",
		.provides = IW_CAP_READ_STAG | IW_CAP_WRITE_STAG, .amounts = { 0, 0, 65536, 65536 },
		.startup = IW_ULP_START_PERFTEST,
		.how = "per case the first of perftest-read-client, perftest-send-client and perftest-write-client that "
		       "provides all the case needs, as perftest-server's",
	},
	{
		.name = "perftest-send-lat-server", .ulp = IW_ULP_PERFTEST_SEND_LAT, .dut_role = IW_ROLE_RESPONDER,
		.dut_runs = "ib_send_lat -R -s 65536", .provides = IW_CAP_RECV | IW_CAP_ANSWER,
		.amounts = { 512, 65536, 0, 0 }, .startup = IW_ULP_START_PERFTEST, .dut_next_msn = 2,
		.how = "as perftest-send-server's, the keys five times after the frames (the fifth once its receives "
		       "are posted, after which it waits for a Send); then startup sends one Send and takes the "
		       "answer, a Send of 65536 octets of perftest's own (the harness's next MSN on QN 0 is 2, the "
		       "DUT's 2); the server keeps rx_depth 512 receives of 65536 octets posted and answers each Send "
		       "delivered with one",
	},
};

/* ib_send_lat's client against the harness would post -n 5 receives (perftest's least, so that
 * startup could take its whole test) and repost none: it provides nothing perftest-send-client
 * does not. Not a profile of the tables: every case SKIPs saying so, never under another
 * profile's startup. */
static const iw_ulp_profile send_lat_client = {
	.name = "perftest-send-lat-client", .ulp = IW_ULP_PERFTEST_SEND_LAT, .dut_role = IW_ROLE_INITIATOR,
	.dut_runs = "ib_send_lat -R -n 5 HARNESS", .startup = IW_ULP_START_PLANNED,
	.why_not = "ib_send_lat's client posts -n 5 receives and reposts none, so it provides nothing ib_send_bw's "
		   "client does not: use ulp = perftest-send in the initiator role (docs/ulp-profiles.md)",
	.how = "not a profile: see perftest-send-client",
};

/* ulp = perftest's modes, in the order a case takes the first that provides all it needs: read
 * first, whose buffer is open to both, then send's receives, then write, then ib_send_lat, the
 * one that answers, for the cases that need that (no client of its: mode_profile finds none). */
static const int perftest_modes[] = { IW_ULP_PERFTEST_READ, IW_ULP_PERFTEST_SEND, IW_ULP_PERFTEST_WRITE,
				      IW_ULP_PERFTEST_SEND_LAT };
#define NMODES (sizeof perftest_modes / sizeof perftest_modes[0])

static const iw_ulp_profile *mode_profile(int ulp, int dut_role)
{
	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
		if (profiles[i].ulp == ulp && profiles[i].dut_role == dut_role)
			return &profiles[i];
	return NULL;
}

const iw_ulp_profile *iw_ulp_mode_for(const iw_ulp_profile *u, const iw_case *c)
{
	if (u->ulp != IW_ULP_PERFTEST)
		return u;
	char why[8];
	for (size_t i = 0; i < NMODES; i++) {
		const iw_ulp_profile *m = mode_profile(perftest_modes[i], u->dut_role);
		if (m && !iw_ulp_unmet(c, m, why, sizeof why))
			return m;
	}
	return NULL;
}

const iw_ulp_profile *iw_ulp_profiles(size_t *n)
{
	*n = sizeof profiles / sizeof profiles[0];
	return profiles;
}

const iw_ulp_profile *iw_ulp_profile_of(const iw_dut_config *d, int dut_role)
{
	int ulp = d->ulp == IW_ULP_REFLECTOR && !d->reflector ? IW_ULP_NONE : d->ulp;
	if (ulp == IW_ULP_PERFTEST_SEND_LAT && dut_role == IW_ROLE_INITIATOR)
		return &send_lat_client;
	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
		if (profiles[i].ulp == ulp && (profiles[i].dut_role < 0 || profiles[i].dut_role == dut_role))
			return &profiles[i];
	return &profiles[0];
}

void iw_ulp_profile_sized(const iw_dut_config *d, int dut_role, iw_ulp_profile *out, char *runs, size_t cap)
{
	*out = *iw_ulp_profile_of(d, dut_role);
	const char *at = strstr(out->dut_runs, "-S 64");
	if (out->ulp != IW_ULP_RPING || d->rping_size == IW_RPING_SIZE_DEFAULT || !at)
		return;
	out->provides &= ~(unsigned)IW_CAP_RPING;
	if (out->provides & IW_CAP_WRITE_STAG)
		out->amounts.write_stag = d->rping_size;
	if (out->provides & IW_CAP_READ_STAG)
		out->amounts.read_stag = d->rping_size;
	snprintf(runs, cap, "%.*s-S %" PRIu32 "%s", (int)(at - out->dut_runs), out->dut_runs, d->rping_size, at + 5);
	out->dut_runs = runs;
}

const iw_ulp_profile *iw_ulp_profile_find(const char *name)
{
	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
		if (!strcmp(profiles[i].name, name))
			return &profiles[i];
	return NULL;
}

bool iw_ulp_profile_ready(const iw_ulp_profile *u) { return u->startup != IW_ULP_START_PLANNED; }

bool iw_ulp_runs_tool(const iw_ulp_profile *u) { return u->ulp != IW_ULP_REFLECTOR && u->ulp != IW_ULP_NONE; }

bool iw_case_uses_startup(const iw_case *c)
{
	for (size_t i = 0; i < c->nsteps; i++)
		if (c->steps[i].kind == IW_STEP_STARTUP)
			return true;
	return false;
}

/* ulp = perftest: why no mode runs c, each mode's first missing need. */
static bool modes_unmet(const iw_case *c, const iw_ulp_profile *u, char *why, size_t cap)
{
	if (iw_ulp_mode_for(u, c))
		return false;
	/* "ib_read_bw lacks A, ib_send_bw B, ...": each program by the first word of what it runs. */
	char each[400] = "", first[96] = "";
	size_t o = 0;
	for (size_t i = 0; i < NMODES && o < sizeof each; i++) {
		const iw_ulp_profile *m = mode_profile(perftest_modes[i], u->dut_role);
		char miss[96];
		if (!m || !iw_needs_unmet(c->needs & ~(unsigned)IW_CAP_CONFIG, &c->amounts, m->provides, &m->amounts, miss,
					  sizeof miss))
			continue;
		if (!first[0])
			memcpy(first, miss, sizeof first);
		int k = snprintf(each + o, sizeof each - o, "%s%.*s%s %s", o ? ", " : "", (int)strcspn(m->dut_runs, " "),
				 m->dut_runs, o ? "" : " lacks", miss);
		o += k > 0 ? (size_t)k : 0;
	}
	snprintf(why, cap, "needs %s: no program of perftest's provides all it needs (%s; ulp profile %s)",
		 first[0] ? first : "?", each, u->name);
	return true;
}

bool iw_ulp_unmet(const iw_case *c, const iw_ulp_profile *u, char *why, size_t cap)
{
	char miss[96];
	if (u->ulp == IW_ULP_PERFTEST)
		return modes_unmet(c, u, why, cap);
	if (u->startup == IW_ULP_START_PLANNED) {
		snprintf(why, cap, "ulp profile %s: %s", u->name, u->why_not);
		return true;
	}
	if (iw_needs_unmet(c->needs & ~(unsigned)IW_CAP_CONFIG, &c->amounts, u->provides, &u->amounts, miss,
			   sizeof miss)) {
		snprintf(why, cap, "needs %s: the DUT runs %s (ulp profile %s), which does not provide it", miss,
			 u->dut_runs, u->name);
		return true;
	}
	if (u->startup == IW_ULP_START_NONE && iw_case_uses_startup(c)) {
		snprintf(why, cap, "its `startup` cannot reach full operation under ulp profile %s: %s", u->name,
			 u->why_not);
		return true;
	}
	return false;
}
