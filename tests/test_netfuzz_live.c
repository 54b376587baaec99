/*
 * test_netfuzz_live.c - the network fuzzer's rules for slow, silent and bad DUTs
 * (netfuzz_startup.c, netfuzz_io.c): progress decides liveness, so a peer that keeps sending,
 * however slowly, is alive and one that stops is not; a wait ends at the deadline; the header
 * of a startup frame is judged by the engine's frame check as soon as it is in. The same rules
 * end to end against the built-in DUT's hostile modes are in tests/cli/fuzz_hostile.sh.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "mpa_frame.h"
#include "net.h"
#include "netfuzz_int.h"

typedef struct peer {
	int fd;
	int count;                  /* octets to send */
	int every_ms;               /* one octet every this many ms */
	bool close_after;           /* FIN once they are sent (else stay silent) */
} peer;

static void nap(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static void *peer_main(void *arg)
{
	peer *p = arg;
	for (int i = 0; i < p->count; i++) {
		nap(p->every_ms);
		uint8_t o = (uint8_t)i;
		if (send(p->fd, &o, 1, MSG_NOSIGNAL) != 1)
			break;
	}
	if (p->close_after)
		shutdown(p->fd, SHUT_WR);
	return NULL;
}

/* Runs nf_read_progress for 20 octets against a peer; returns how it ended. */
static enum nf_rd read_from(peer pr, int64_t idle_ms, int64_t until_ms, size_t *have, int64_t *gap, int64_t *took)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return NF_RD_RST;
	pr.fd = sv[1];
	pthread_t th;
	pthread_create(&th, NULL, peer_main, &pr);
	uint8_t b[20];
	*have = 0;
	*gap = 0;
	int64_t t0 = iw_net_now_ms(), last = t0;
	enum nf_rd r = nf_read_progress(sv[0], b, have, sizeof b, idle_ms, until_ms, &last, gap);
	*took = iw_net_now_ms() - t0;
	pthread_join(th, NULL);
	close(sv[0]);
	close(sv[1]);
	return r;
}

TEST(netfuzz_slow_peer_is_alive_silent_one_is_not)
{
	size_t have;
	int64_t gap, took;
	/* 20 octets 100 ms apart: two seconds in all, twice the 1 s liveness timeout, yet never a
	 * second without an octet: alive (the old rule, a total timeout, said dead). */
	peer slow = {.count = 20, .every_ms = 100};
	CHECK_EQ(read_from(slow, 1000, 0, &have, &gap, &took), NF_RD_DONE);
	CHECK_EQ(have, 20);
	CHECK(took >= 1500);
	CHECK(gap >= 50 && gap < 1000);
	/* Five octets, then silence: found after a second of it, not before. */
	peer stops = {.count = 5, .every_ms = 10};
	CHECK_EQ(read_from(stops, 1000, 0, &have, &gap, &took), NF_RD_IDLE);
	CHECK_EQ(have, 5);
	CHECK(took >= 900 && took < 5000);
	/* Nothing at all. */
	peer silent = {.count = 0};
	CHECK_EQ(read_from(silent, 300, 0, &have, &gap, &took), NF_RD_IDLE);
	CHECK_EQ(have, 0);
	/* A close before the octets asked for. */
	peer closes = {.count = 3, .every_ms = 1, .close_after = true};
	CHECK_EQ(read_from(closes, 1000, 0, &have, &gap, &took), NF_RD_EOF);
	CHECK_EQ(have, 3);
	/* The deadline ends the wait of a slow peer before it is done, and says so (not dead). */
	peer slower = {.count = 20, .every_ms = 100};
	CHECK_EQ(read_from(slower, 1000, iw_net_now_ms() + 500, &have, &gap, &took), NF_RD_CUT);
	CHECK(have < 20);
	CHECK(took < 1500);
}

TEST(netfuzz_frame_header_is_judged_by_the_engine)
{
	const iw_profile *p = iw_profile_find("rfc5044");
	CHECK(p != NULL);
	if (!p)
		return;
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
	uint8_t b[64];
	size_t len = 0;
	CHECK_EQ(iw_mpa_frame_encode(&f, b, sizeof b, &len, NULL), IW_OK);
	nf_finding v;
	memset(&v, 0, sizeof v);
	CHECK(nf_judge_frame_head(p, IW_MPA_REPLY, b, len, &v));
	CHECK_EQ(v.kind, NF_F_NONE);
	/* A Reply announcing 65535 octets of private data under rfc5044 (at most 512): its 20
	 * header octets are enough for the verdict, the private data never needs to come. */
	iw_mpa_frame_set_pd_length(b, 65535);
	CHECK(!nf_judge_frame_head(p, IW_MPA_REPLY, b, IW_MPA_FRAME_HDR_LEN, &v));
	CHECK_EQ(v.kind, NF_F_FRAME);
	CHECK_STR(v.req, "RFC5044-7.1.1-04");  /* RFC 5044's sender rule: PD_Length at most 512 */
	CHECK(strstr(v.detail, "PD_Length 65535") != NULL);
	CHECK(strstr(v.detail, "512") != NULL);
	/* Fewer than 20 octets: nothing to judge yet. */
	memset(&v, 0, sizeof v);
	CHECK(nf_judge_frame_head(p, IW_MPA_REPLY, b, 19, &v));
}

/* A DUT that accepts and resets before its Reply cannot complete a startup, whether the reset
 * lands before connect() returns (the driver says IW_NET_ERESET_AT_ONCE) or after it (a read
 * meets the RST). CI met the first order and called the DUT unreachable; this pins it. */
static int reset_connect(iw_driver *d, int *fd, int64_t timeout_ms, int mss, iw_err *e)
{
	(void)d;
	(void)timeout_ms;
	(void)mss;
	*fd = -1;
	return iw_errf(e, IW_NET_ERESET_AT_ONCE, "connect to 127.0.0.1:1: the DUT reset the connection (RST) right "
		       "after the handshake");
}

static int no_case(iw_driver *d, iw_err *e)
{
	(void)d;
	(void)e;
	return IW_OK;
}

TEST(netfuzz_reset_at_connect_is_a_startup_failure)
{
	static const iw_driver_ops ops = {.name = "reset", .case_begin = no_case, .connect = reset_connect};
	iw_driver drv = {.ops = &ops};
	nf_session *s = calloc(1, sizeof *s);
	CHECK(s != NULL);
	if (!s)
		return;
	s->drv = &drv;
	s->c.fd = -1;
	s->d.profile = iw_profile_find("rfc5044");
	s->d.role = IW_ROLE_RESPONDER;
	s->timeout_ms = s->run_timeout_ms = 250;
	s->live_ms = 2000;
	iw_err e;
	memset(&e, 0, sizeof e);
	CHECK_EQ(nf_calibrate(s, &e), IW_ESTATE);
	CHECK(strstr(e.msg, "cannot complete a conforming startup: it sent no Reply") != NULL);
	CHECK(strstr(e.msg, "reset the connection (RST)") != NULL);
	CHECK(strstr(e.msg, "[MPA-6.1-R2a]") != NULL);
	CHECK(strstr(e.msg, "cannot reach") == NULL);
	free(s);
}
