/*
 * exec_perftest.c - the harness as perftest's client (ib_send_bw, ib_write_bw, ib_read_bw with
 * -R) against a DUT that runs perftest's server: its TCP control channel, spoken as
 * suite/engine/perftest_msg.h describes it, beside the MPA connection of the test.
 *
 * perftest's server listens through rdma_cm only once its control channel has been through the
 * version, the system data and the MTU, so every connection a case opens to it (the liveness
 * probe's too) is preceded by a control channel of its own; the driver's connect retries the
 * MPA connection while the DUT does not listen yet. The keys follow the startup frames: perftest
 * exchanges them after rdma_cm's ESTABLISHED, three times, and the DUT's rkey and vaddr name its
 * buffer. The control channel stays open until the case ends (perftest's server waits on it for
 * the end of the test, and exits when it closes).
 */
#include "exec_int.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "iw_octets.h"
#include "net.h"
#include "perftest_msg.h"

void ex_perftest_close(hconn *h)
{
	if (h->pt_fd1 > 0)
		close(h->pt_fd1 - 1);
	h->pt_fd1 = 0;
}

static int64_t ms_left(int64_t deadline_us)
{
	int64_t left = (deadline_us - ex_now_us()) / 1000;
	return left > 0 ? left : 1;
}

/* One message each way, in the client's order: ours, then the server's of n octets. */
static bool exchange(ctx *x, hconn *h, const void *mine, size_t nmine, uint8_t *theirs, size_t n, const char *what,
		     int64_t deadline_us)
{
	iw_err e;
	int fd = h->pt_fd1 - 1;
	if (iw_net_write_all(fd, mine, nmine, ms_left(deadline_us), &e) != IW_OK)
		return ex_herror(x, "perftest's control channel: sending %s: %s", what, e.msg);
	size_t got = 0;
	while (got < n) {
		size_t k = 0;
		if (iw_net_read(fd, theirs + got, n - got, ms_left(deadline_us), &k, &e) != IW_OK || k == 0)
			return ex_herror(x, "perftest's control channel: the DUT's %s: %s after %zu of %zu octets", what,
					 k == 0 && got < n ? "closed or timed out" : e.msg, got, n);
		got += k;
	}
	return true;
}

bool ex_perftest_prelude(ctx *x, hconn *h, int64_t timeout_ms)
{
	int64_t deadline = ex_now_us() + (timeout_ms > 0 ? timeout_ms : DEFAULT_WITHIN_MS) * 1000;
	iw_err e;
	int fd = -1;
	ex_perftest_close(h);
	if (x->drv->ops->connect(x->drv, &fd, timeout_ms, 0, &e) != IW_OK)
		return ex_herror(x, "perftest's control channel: cannot connect: %s", e.msg);
	h->pt_fd1 = fd + 1;
	uint8_t mine[IW_PERFTEST_VERSION_LEN], theirs[IW_PERFTEST_VERSION_LEN];
	iw_perftest_version_encode(mine, IW_PERFTEST_VERSION);
	if (!exchange(x, h, mine, sizeof mine, theirs, sizeof theirs, "version", deadline))
		return false;
	int v = iw_perftest_version_parse(theirs);
	if (v < IW_PERFTEST_MIN_VERSION)
		return ex_herror(x, "perftest's control channel: the DUT's version message is not one perftest 5.70 or "
				 "later sends (%.16s)", v < 0 ? "not D.DD" : (const char *)theirs);
	h->pt_version = v;
	h->pt_cycle = IW_PERFTEST_CYCLE_BUFFER;
	h->pt_cache = IW_PERFTEST_CACHE_LINE;
	if (v >= 532) {
		uint8_t b[IW_PERFTEST_INT_LEN], r[IW_PERFTEST_INT_LEN];
		iw_put_be32(b, IW_PERFTEST_CYCLE_BUFFER);
		if (!exchange(x, h, b, sizeof b, r, sizeof r, "cycle buffer", deadline))
			return false;
		if (iw_get_be32(r) > h->pt_cycle)
			h->pt_cycle = iw_get_be32(r);
		iw_put_be32(b, IW_PERFTEST_CACHE_LINE);
		if (!exchange(x, h, b, sizeof b, r, sizeof r, "cache line size", deadline))
			return false;
		if (iw_get_be32(r) > h->pt_cache)
			h->pt_cache = iw_get_be32(r);
	}
	if (v >= 510) {
		uint8_t b[IW_PERFTEST_INT_LEN] = { 0 }, r[IW_PERFTEST_INT_LEN];
		size_t n = v >= 531 ? IW_PERFTEST_MTU_LEN : IW_PERFTEST_INT_LEN;
		iw_perftest_mtu_encode(b, 3);
		if (!exchange(x, h, b, n, r, n, "MTU", deadline))
			return false;
	}
	return true;
}

bool ex_perftest_keys(ctx *x, int64_t within_ms)
{
	hconn *h = x->h;
	int64_t deadline = ex_now_us() + (within_ms > 0 ? within_ms : DEFAULT_WITHIN_MS) * 1000;
	if (h->pt_fd1 <= 0)
		return ex_herror(x, "perftest: no control channel to exchange the keys on");
	/* The harness offers no buffer of its own: the keys say so with rkey and vaddr 0. */
	iw_perftest_keys mine = { .out_reads = 1, .qpn = 0x000001, .psn = 0x000001 };
	iw_perftest_keys k;
	uint8_t b[IW_PERFTEST_KEYS_LEN], r[IW_PERFTEST_KEYS_LEN];
	iw_perftest_keys_encode(b, &mine);
	for (int i = 0; i < IW_PERFTEST_HANDSHAKES; i++) {
		if (!exchange(x, h, b, sizeof b, r, sizeof r, "keys", deadline))
			return false;
		if (!iw_perftest_keys_parse(r, &k))
			return ex_herror(x, "perftest's control channel: the DUT's keys are not perftest's line "
					 "(lid:out_reads:qpn:psn:rkey:vaddr:gid:srqn): %.107s", (const char *)r);
	}
	uint64_t range = iw_perftest_range(IW_PERFTEST_SIZE, h->pt_cycle, h->pt_cache);
	ex_note(x, "perftest %d.%02d: its keys name rkey (STag) 0x%x, vaddr (TO) 0x%llx, %llu octets to the end of "
		"its buffer", h->pt_version / 100, h->pt_version % 100, k.rkey, (unsigned long long)k.vaddr,
		(unsigned long long)range);
	h->have_adv = true;
	h->adv_stag = k.rkey;
	h->adv_to = k.vaddr;
	h->adv_len = (uint32_t)(range < UINT32_MAX ? range : UINT32_MAX);
	ex_adv_to_model(h);
	return true;
}
