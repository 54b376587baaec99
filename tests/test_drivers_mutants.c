/* The built-in DUT's mutants (ref_faults.h): each visible on the wire, every fault ends a case
 * promptly in every profile and role, and the mutant zoo's table is complete. */
#include "test_drivers.h"

#include <string.h>

#include "iw_proto.h"
#include "mpa_frame.h"
#include "net.h"
#include "ref_faults.h"
#include "req_catalog.h"

/* ---- mutants: each visible on the wire ---- */

/* The mutant's answer to a Request: want octets, however late they come (AWAIT_MS), then, when
 * quiet_ms, whatever else comes within quiet_ms (a check that nothing follows). Returns all. */
static size_t mutant_reply(const char *mutant, bool m, int flip, uint8_t *buf, size_t cap, size_t want,
			   int64_t quiet_ms)
{
	iw_dut_config c;
	int fd, st;
	size_t n = 0;
	cfg_ref(&c, NULL, mutant);
	iw_driver *d = ref_connect(&c, &fd);
	if (d && fd >= 0) {
		send_request(fd, iw_profile_default(), m, flip);
		n = read_for(fd, buf, want, AWAIT_MS, &st);
		if (n == want && quiet_ms)
			n += read_for(fd, buf + n, cap - n, quiet_ms, &st);
	}
	end_case(d, fd);
	return n;
}

TEST(drivers_mutant_frames)
{
	uint8_t buf[64];
	CHECK_EQ(mutant_reply("accept-bad-key", false, 5, buf, 20, 20, 0), 20);
	CHECK_MEM(buf, IW_MPA_KEY_REP, 16);
	CHECK_EQ(mutant_reply("reply-wrong-rev", false, -1, buf, 20, 20, 0), 20);
	CHECK_EQ(buf[17], IW_MPA_REV_RFC5044 + 1);
	CHECK_EQ(mutant_reply("reply-res-set", false, -1, buf, 20, 20, 0), 20);
	CHECK_EQ(buf[16] & IW_MPA_RES_MASK_DRAFT, IW_MPA_RES_MASK_DRAFT);
	CHECK(buf[16] & IW_MPA_FLAG_C);
	CHECK_EQ(mutant_reply("reply-c0", false, -1, buf, 20, 20, 0), 20);
	CHECK_EQ(buf[16] & IW_MPA_FLAG_C, 0);
	CHECK_EQ(mutant_reply("truncate-pd", false, -1, buf, 20, 20, 0), 20);
	CHECK_EQ(buf[18] << 8 | buf[19], 4);
	/* rule 4: a conforming responder says nothing after its Reply; early-fpdu does. The Reply
	 * (and the early FPDU) are awaited, only the silence after them has a short window. */
	CHECK_EQ(mutant_reply(NULL, false, -1, buf, sizeof buf, 20, 300), 20);
	CHECK_EQ(mutant_reply("early-fpdu", false, -1, buf, sizeof buf, 40, 300), 40);
	CHECK_EQ(buf[20] << 8 | buf[21], IW_DDP_TAGGED_HDR_LEN);
	CHECK_EQ(buf[22] & (IW_DDP_T | IW_DDP_L), IW_DDP_T | IW_DDP_L);
}

/* ignore-m: Request M=1, and the DUT's echo comes without markers; the harness model sees the error. */
TEST(drivers_mutant_ignore_m)
{
	for (int mutate = 0; mutate < 2; mutate++) {
		iw_dut_config c;
		int fd;
		cfg_ref(&c, NULL, mutate ? "ignore-m" : NULL);
		iw_driver *d = ref_connect(&c, &fd);
		iw_conn *m = harness_model(IW_ROLE_INITIATOR, true);
		iw_conn_event ev;
		if (d && fd >= 0 && m) {
			CHECK(model_until(fd, m, IW_EV_FULL_OPERATION, AWAIT_MS, &ev, NULL, 0));
			iw_err e;
			static uint8_t big[1200]; /* long enough to cross a marker position */
			CHECK_EQ(iw_conn_send(m, IW_OP_SEND, big, sizeof big, &e), IW_OK);
			if (mutate)
				CHECK(model_until(fd, m, IW_EV_ERROR, AWAIT_MS, &ev, NULL, 0));
			else
				CHECK(model_until(fd, m, IW_EV_SEND, AWAIT_MS, &ev, NULL, 0));
		}
		iw_conn_free(m);
		end_case(d, fd);
	}
}

/* fault_case's answer when a DUT that should have taken the connection reset it at once: seen
 * once in a fresh-clone make test, under the load of the sanitizer build beside it, and in no
 * run of the test alone; the caller tries the case again, as it does a slow end. */
#define RESET_AT_ONCE (-2)

/* One case of drivers_faults_all_end; returns how long the end took (ms), -1 when the driver
 * did not open, RESET_AT_ONCE. The waits for the connection are hang guards: the DUT's
 * connection or reset ends them, and a loaded machine that is late to dial must not read as a
 * fault. */
static int64_t fault_case(const char *profile, int role, const char *h, const char *m)
{
	iw_dut_config c;
	iw_err e;
	cfg_ref(&c, h, m);
	CHECK_EQ(iw_dut_config_set(&c, "profile", profile, &e), IW_OK);
	c.role = role == 0 ? IW_ROLE_RESPONDER : IW_ROLE_INITIATOR;
	iw_driver *d = NULL;
	if (iw_driver_open(&d, &c, &e) != IW_OK) {
		check_fail(__FILE__, __LINE__, "open %s: %s", h ? h : m, e.msg);
		return -1;
	}
	int fd = -1, st;
	uint8_t buf[4096];
	CHECK_EQ(d->ops->case_begin(d, &e), IW_OK);
	if (role == 0) {
		int rc = d->ops->connect(d, &fd, AWAIT_MS, 0, &e);
		/* A DUT that resets at once may do so before connect() has reported success: the
		 * race drivers_hostile_rst pins. */
		bool rst_first = rc == IW_NET_ERESET_AT_ONCE && h && !strcmp(h, "rst");
		if (rc == IW_NET_ERESET_AT_ONCE && !rst_first) {
			end_case(d, fd);
			return RESET_AT_ONCE;
		}
		if (!rst_first)
			CHECK_EQ(rc, IW_OK);
		if (fd >= 0)
			send_request(fd, c.profile, true, -1);
	} else {
		CHECK_EQ(d->ops->accept(d, &fd, AWAIT_MS, &e), IW_OK);
	}
	if (fd >= 0)
		read_for(fd, buf, sizeof buf, 15, &st);
	int64_t t0 = iw_net_now_ms();
	end_case(d, fd);
	return iw_net_now_ms() - t0;
}

/* Every hostile mode and mutant, in both roles, on every profile: a connection is made, a
 * little is exchanged, and the driver ends the case and closes promptly.
 *
 * Promptly: the end (closing our side, ending the case, stopping the DUT) before the shortest
 * timer a DUT here could wait out (1000 ms: DRAIN_MS, the slow drip). Only the end is timed:
 * the whole case (a thread started, a dial, a handshake, 15 ms of reading) took 1552 ms under
 * load with no timer involved, each step a wait for the scheduler. And a case whose end takes
 * 950 ms or more, or whose DUT reset at once a connection it should have taken, is run again, up
 * to three times in all: a DUT that waits out a timer does so every time (the faults are
 * deterministic), a machine's load does not stay on one case. */
TEST(drivers_faults_all_end)
{
	const char *profiles[] = {"rfc5044", "rfc6581", "culley-mpa-02"};
	for (size_t pi = 0; pi < sizeof profiles / sizeof profiles[0]; pi++) {
		for (int role = 0; role < 2; role++) {
			for (int k = 0; k < IW_HOSTILE_COUNT + IW_MUTANT_COUNT - 1; k++) {
				const char *h = k < IW_HOSTILE_COUNT ? iw_hostile_info((enum iw_hostile)k)->name : NULL;
				const char *m = k >= IW_HOSTILE_COUNT
					? iw_mutant_info((enum iw_mutant)(k - IW_HOSTILE_COUNT + 1))->name : NULL;
				int64_t took[3] = { 0, 0, 0 };
				int tries = 0;
				do
					took[tries] = fault_case(profiles[pi], role, h, m);
				while ((took[tries] >= 950 || took[tries] == RESET_AT_ONCE) && ++tries < 3);
				if (tries == 3 && took[2] == RESET_AT_ONCE)
					check_fail(__FILE__, __LINE__, "%s %s as responder: the DUT reset the connection at once, "
						   "three times", profiles[pi], h ? h : m);
				else if (tries == 3 && took[2] >= 950)
					check_fail(__FILE__, __LINE__, "%s %s as %s: its end took %lld, %lld and %lld ms",
						   profiles[pi], h ? h : m, role ? "initiator" : "responder",
						   (long long)took[0], (long long)took[1], (long long)took[2]);
			}
		}
	}
}

/* The mutant zoo's table (issue 7): at least 40 mutants, each with a unique name, a family, and
 * one requirement: a catalog ID, or an RFC 5040 section for RDMAP, which the seeds do not
 * define (docs/case-language.md); every family has at least one. */
TEST(drivers_mutant_table)
{
	static const char *const families[] = {"startup", "framing", "markers", "ddp", "rdmap", "errors", "robustness"};
	size_t per_family[sizeof families / sizeof families[0]] = {0};
	CHECK(IW_MUTANT_COUNT - 1 >= 40);
	for (int i = 1; i < IW_MUTANT_COUNT; i++) {
		const iw_fault_info *m = iw_mutant_info((enum iw_mutant)i);
		if (!m->name || !m->req || !m->family || !m->desc) {
			check_fail(__FILE__, __LINE__, "mutant %d: a field of its table row is missing", i);
			continue;
		}
		if (!iw_req_find(m->req))
			check_fail(__FILE__, __LINE__, "mutant %s cites %s, which the catalog does not know", m->name, m->req);
		bool known = false;
		for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
			if (!strcmp(m->family, families[f])) {
				per_family[f]++;
				known = true;
			}
		if (!known)
			check_fail(__FILE__, __LINE__, "mutant %s: unknown family %s", m->name, m->family);
		enum iw_mutant back;
		iw_err e;
		CHECK_EQ(iw_mutant_find(m->name, &back, &e), IW_OK);
		CHECK_EQ((int)back, i);
	}
	for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
		if (!per_family[f])
			check_fail(__FILE__, __LINE__, "no mutant in family %s", families[f]);
}
