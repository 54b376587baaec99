/*
 * ulp_profile.c - the ULP profiles (ulp_profile.h): what each application a DUT can run
 * provides to the cases, and the check of a case's needs against it.
 *
 * The perftest profiles are what perftest's source (v4.5-0.17, Debian 12's perftest 4.5+0.17)
 * registers and posts with its defaults: ib_send_bw's server keeps rx_depth 512 receives of the
 * message size (65536) on its test connection; ib_write_bw's buffer is registered for remote
 * write, ib_read_bw's for remote read (and, on an iWARP device, remote write), each 2 x 65536
 * octets, its address and rkey sent to the peer. iwspec does not speak perftest's exchange yet
 * (issue 26 item 2), so they cannot be selected: they stand in the table so that a lab sees
 * which cases each would run.
 */
#include "ulp_profile.h"

#include <stdio.h>
#include <string.h>

#include "iw_conn.h"

#define REFLECTOR_CAPS (IW_CAP_RECV | IW_CAP_WRITE_STAG | IW_CAP_READ_STAG | IW_CAP_ECHO | IW_CAP_GREETING | \
			IW_CAP_SHARED | IW_CAP_SECOND_CONN | IW_CAP_DUT_SEND)
#define PERFTEST_NOT_YET "iwspec does not speak perftest's exchange yet (its rdma_cm comm connection, versions and " \
	"buffer keys: issue 26 item 2)"

static const iw_ulp_profile profiles[] = {
	{ "reflector", IW_ULP_REFLECTOR, -1, "iwspec-reflector --listen / --connect (docs/reflector.md)",
	  REFLECTOR_CAPS, { 8, 65536, 65536, 65536, 0 }, IW_ULP_START_REFLECTOR, NULL,
	  "startup sends one Send; the reflector's first Send advertises its 64 KiB buffer (STag, TO, length: "
	  "the greeting), then it echoes; 8 receives of 64 KiB stay posted; every connection's STag names one memory" },
	{ "rping-server", IW_ULP_RPING, IW_ROLE_RESPONDER, "rping -s -S 64 (-P on a tcp: DUT)",
	  IW_CAP_RPING | IW_CAP_RECV, { 1, 16, 0, 0, 0 }, IW_ULP_START_FRAMES, NULL,
	  "startup is the frames alone: rping's server keeps one 16-octet receive posted and advertises nothing "
	  "until the harness advertises a buffer of its own (the rping cases script that flow: needs rping)" },
	{ "rping-client", IW_ULP_RPING, IW_ROLE_INITIATOR, "rping -c -S 64 -C 2",
	  IW_CAP_RPING | IW_CAP_RECV | IW_CAP_WRITE_STAG | IW_CAP_READ_STAG | IW_CAP_DUT_SEND, { 1, 16, 64, 64, 0 },
	  IW_ULP_START_RPING_INFO, NULL,
	  "startup takes rping's first Send after the frames: its 16-octet advertisement of its 64-octet source "
	  "buffer (address, rkey, size; registered for remote read and write), which `send write` and `send "
	  "read_req` then address; one 16-octet receive stays posted" },
	{ "none", IW_ULP_NONE, IW_ROLE_RESPONDER, "any application that accepts a connection (reflector = no)",
	  0, { 0, 0, 0, 0, 0 }, IW_ULP_START_FRAMES, NULL,
	  "startup is the frames alone: nothing is known of the application's receives or buffers, so only "
	  "what a connection in full operation must do is judged (Terminates for bad headers, queues, opcodes)" },
	{ "none-initiator", IW_ULP_NONE, IW_ROLE_INITIATOR, "any application that connects (reflector = no)",
	  0, { 0, 0, 0, 0, 0 }, IW_ULP_START_NONE,
	  "an initiator DUT whose application sends no first FPDU leaves the harness, as responder, none to "
	  "send before it (MPA-6.1-R4)",
	  "no startup: after the frames the harness must wait for the DUT's first FPDU (MPA-6.1-R4), which "
	  "nothing makes the application send" },
	{ "perftest-send-server", -1, IW_ROLE_RESPONDER, "ib_send_bw -R", IW_CAP_RECV, { 512, 65536, 0, 0, 0 },
	  IW_ULP_START_PERFTEST, PERFTEST_NOT_YET,
	  "(not selectable yet) the server posts rx_depth 512 receives of the message size (-s, 65536) on its test "
	  "connection once the keys are exchanged" },
	{ "perftest-send-client", -1, IW_ROLE_INITIATOR, "ib_send_bw -R HARNESS", IW_CAP_DUT_SEND, { 0, 0, 0, 0, 0 },
	  IW_ULP_START_PERFTEST, PERFTEST_NOT_YET, "(not selectable yet) the client Sends messages of -s octets" },
	{ "perftest-write-server", -1, IW_ROLE_RESPONDER, "ib_write_bw -R", IW_CAP_WRITE_STAG, { 0, 0, 131072, 0, 0 },
	  IW_ULP_START_PERFTEST, PERFTEST_NOT_YET,
	  "(not selectable yet) the server's 2 x 65536-octet buffer, registered for remote write, its address and "
	  "rkey sent on the comm connection" },
	{ "perftest-write-client", -1, IW_ROLE_INITIATOR, "ib_write_bw -R HARNESS", IW_CAP_WRITE_STAG | IW_CAP_DUT_WRITE,
	  { 0, 0, 131072, 0, 0 }, IW_ULP_START_PERFTEST, PERFTEST_NOT_YET,
	  "(not selectable yet) the client Writes into the harness's advertised buffer and sends its own keys" },
	{ "perftest-read-server", -1, IW_ROLE_RESPONDER, "ib_read_bw -R", IW_CAP_READ_STAG | IW_CAP_WRITE_STAG,
	  { 0, 0, 131072, 131072, 0 }, IW_ULP_START_PERFTEST, PERFTEST_NOT_YET,
	  "(not selectable yet) the server's buffer, registered for remote read and, on iWARP, remote write" },
	{ "perftest-read-client", -1, IW_ROLE_INITIATOR, "ib_read_bw -R HARNESS",
	  IW_CAP_READ_STAG | IW_CAP_WRITE_STAG | IW_CAP_DUT_READ, { 0, 0, 131072, 131072, 0 }, IW_ULP_START_PERFTEST,
	  PERFTEST_NOT_YET, "(not selectable yet) the client Reads the harness's advertised buffer" },
};

const iw_ulp_profile *iw_ulp_profiles(size_t *n)
{
	*n = sizeof profiles / sizeof profiles[0];
	return profiles;
}

const iw_ulp_profile *iw_ulp_profile_of(const iw_dut_config *d, int dut_role)
{
	int ulp = d->ulp == IW_ULP_REFLECTOR && !d->reflector ? IW_ULP_NONE : d->ulp;
	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
		if (profiles[i].ulp == ulp && (profiles[i].dut_role < 0 || profiles[i].dut_role == dut_role))
			return &profiles[i];
	return &profiles[0];
}

const iw_ulp_profile *iw_ulp_profile_find(const char *name)
{
	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
		if (!strcmp(profiles[i].name, name))
			return &profiles[i];
	return NULL;
}

bool iw_ulp_profile_ready(const iw_ulp_profile *u) { return u->ulp >= 0 && u->startup != IW_ULP_START_PERFTEST; }

bool iw_case_uses_startup(const iw_case *c)
{
	for (size_t i = 0; i < c->nsteps; i++)
		if (c->steps[i].kind == IW_STEP_STARTUP)
			return true;
	return false;
}

bool iw_ulp_unmet(const iw_case *c, const iw_ulp_profile *u, char *why, size_t cap)
{
	char miss[96];
	if (iw_needs_unmet(c->needs & ~(unsigned)IW_CAP_CONFIG, &c->amounts, u->provides, &u->amounts, miss,
			   sizeof miss)) {
		snprintf(why, cap, "needs %s: the DUT runs %s (ulp profile %s), which does not provide it", miss,
			 u->dut_runs, u->name);
		return true;
	}
	if ((u->startup == IW_ULP_START_NONE || u->startup == IW_ULP_START_PERFTEST) && iw_case_uses_startup(c)) {
		snprintf(why, cap, "its `startup` cannot reach full operation under ulp profile %s: %s", u->name,
			 u->why_not);
		return true;
	}
	return false;
}
