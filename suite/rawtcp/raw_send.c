/*
 * raw_send.c - the harness's stream: the octets kept for sending and resending, segment
 * plans, the DUT's window, the retransmission timer and the DROP steps' fast retransmit.
 */
#include <stdlib.h>
#include <string.h>

#include "raw_conn_int.h"

/* Octets before keep are no longer needed: not unacknowledged, not part of the running
 * plan (which may still send a duplicate of them), not in a held or dropped segment. */
static void trim(iw_raw_conn *c)
{
	uint32_t keep = c->snd_una;
	if (c->plan_active && iw_raw_seq_lt(c->plan_base, keep))
		keep = c->plan_base;
	for (size_t i = 0; i < c->nheld; i++)
		if (iw_raw_seq_lt(c->held[i].seq, keep))
			keep = c->held[i].seq;
	for (size_t i = 0; i < c->ndrops; i++)
		if (iw_raw_seq_lt(c->drops[i].seq, keep))
			keep = c->drops[i].seq;
	if (!iw_raw_seq_lt(c->tx_seq, keep))
		return;
	size_t n = keep - c->tx_seq;
	if (n > c->tx_len)
		n = c->tx_len;
	memmove(c->tx, c->tx + n, c->tx_len - n);
	memmove(c->tx_sent, c->tx_sent + n, c->tx_len - n);
	c->tx_len -= n;
	c->tx_seq += (uint32_t)n;
}

static bool outstanding(const iw_raw_conn *c)
{
	return c->snd_una != c->snd_max || (c->fin_sent && !c->fin_acked);
}

void raw_acked(iw_raw_conn *c, uint32_t ack)
{
	if (c->fin_sent && ack == c->fin_seq + 1) {
		c->fin_acked = true;
		ack = c->fin_seq;
	}
	c->snd_una = ack;
	if (iw_raw_seq_lt(c->snd_max, ack))
		c->snd_max = ack;
	c->dupacks = 0;
	c->rto_ms = c->o.rto_ms;
	c->rto_at_ms = outstanding(c) ? raw_now_ms() + c->rto_ms : 0;
	trim(c);
}

static int append(iw_raw_conn *c, const uint8_t *octets, size_t n, iw_err *e)
{
	if (n > 0x40000000u || c->tx_len + n > 0x40000000u)
		return iw_errf(e, IW_EINVAL, "%zu octets more than 1 GiB unacknowledged: send less at a time", n);
	if (c->tx_len + n > c->tx_cap) {
		size_t cap = c->tx_cap ? c->tx_cap : 4096;
		while (cap < c->tx_len + n)
			cap *= 2;
		uint8_t *p = realloc(c->tx, cap);
		if (!p)
			return iw_errf(e, IW_ENOSPC, "no memory for %zu octets of the stream", cap);
		c->tx = p;
		p = realloc(c->tx_sent, cap);
		if (!p)
			return iw_errf(e, IW_ENOSPC, "no memory for %zu octets of the stream", cap);
		c->tx_sent = p;
		c->tx_cap = cap;
	}
	if (n)
		memcpy(c->tx + c->tx_len, octets, n);
	memset(c->tx_sent + c->tx_len, 0, n);
	c->tx_len += n;
	c->stream_end += (uint32_t)n;
	return IW_OK;
}

int raw_xmit_stream(iw_raw_conn *c, uint32_t seq, uint32_t len, iw_err *e)
{
	size_t off = seq - c->tx_seq;
	if (iw_raw_seq_lt(seq, c->tx_seq) || off + len > c->tx_len)
		return iw_errf(e, IW_ESTATE, "segment at sequence %u (+%u) is not among the octets kept (%u, +%zu)", seq,
			       len, c->tx_seq, c->tx_len);
	uint8_t flags = seq + len == c->stream_end ? IW_RAW_PSH : 0;
	int rc = raw_xmit(c, seq, c->tx + off, len, flags, e);
	if (rc != IW_OK)
		return rc;
	memset(c->tx_sent + off, 1, len);
	if (iw_raw_seq_lt(c->snd_max, seq + len))
		c->snd_max = seq + len;
	c->st.segs_sent++;
	c->st.octets_sent += len;
	if (!c->rto_at_ms)
		c->rto_at_ms = raw_now_ms() + c->rto_ms;
	return IW_OK;
}

int raw_retransmit(iw_raw_conn *c, iw_err *e)
{
	if (c->state != RAW_ESTABLISHED)
		return IW_OK;
	if (c->snd_una == c->snd_max) {
		if (c->fin_sent && !c->fin_acked && c->snd_una == c->fin_seq)
			return raw_xmit(c, c->fin_seq, NULL, 0, IW_RAW_FIN, e);
		return IW_OK;
	}
	/* Only octets that left at least once: a hole the plan made (a held or dropped segment)
	 * stays a hole until its step sends it. */
	size_t off = c->snd_una - c->tx_seq, run = 0;
	while (run < c->dut_mss && off + run < c->tx_len && iw_raw_seq_lt(c->snd_una + (uint32_t)run, c->snd_max) &&
	       c->tx_sent[off + run])
		run++;
	if (run == 0)
		return IW_OK;
	c->st.retransmits++;
	return raw_xmit_stream(c, c->snd_una, (uint32_t)run, e);
}

int raw_fire_drops(iw_raw_conn *c, iw_err *e)
{
	size_t k = 0;
	for (size_t i = 0; i < c->ndrops; i++) {
		raw_range d = c->drops[i];
		uint32_t end = d.seq + d.len;
		if (iw_raw_seq_le(end, c->snd_una))
			continue;   /* other segments delivered its octets: no loss left to repair */
		bool inside = iw_raw_seq_le(d.seq, c->snd_una);
		/* After the first fast retransmit, a partial ACK that stops inside the next dropped
		 * segment sends it at once (RFC 6582), as no more duplicate ACKs will come. */
		if (inside && (c->dupacks >= d.dupacks || c->recovery)) {
			int rc = raw_xmit_stream(c, d.seq, d.len, e);
			if (rc != IW_OK)
				return rc;
			c->st.drops_resent++;
			c->recovery = true;
			continue;
		}
		c->drops[k++] = d;
	}
	c->ndrops = k;
	return IW_OK;
}

static int push_range(raw_range **a, size_t *n, size_t *cap, raw_range r, iw_err *e)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		raw_range *p = realloc(*a, nc * sizeof *p);
		if (!p)
			return iw_errf(e, IW_ENOSPC, "no memory for %zu held or dropped segments", nc);
		*a = p;
		*cap = nc;
	}
	(*a)[(*n)++] = r;
	return IW_OK;
}

static int dead(const iw_raw_conn *c, iw_err *e)
{
	if (c->state == RAW_RESET)
		return iw_errf(e, IW_RAW_ERESET, "the DUT reset the connection");
	if (c->fin_sent)
		return iw_errf(e, IW_ESTATE, "the stream was closed (FIN sent): nothing more may be sent");
	return IW_OK;
}

/* One segment of the stream, once the DUT's window admits it. */
static int send_seg(iw_raw_conn *c, uint32_t seq, uint32_t len, uint64_t deadline, iw_err *e)
{
	while (iw_raw_seq_lt(c->snd_una + c->snd_wnd, seq + len)) {
		int rc = dead(c, e);
		if (rc == IW_OK)
			rc = raw_pump(c, deadline, e);
		if (rc == IW_RAW_ETIMEDOUT)
			return iw_errf(e, rc,
				       "the DUT's window (%u octets from %u) never admitted the segment [%u, +%u): is an "
				       "earlier hole never filled?", c->snd_wnd, c->snd_una, seq, len);
		if (rc != IW_OK)
			return rc;
	}
	return raw_xmit_stream(c, seq, len, e);
}

static int wait_dupacks(iw_raw_conn *c, unsigned k, uint64_t deadline, iw_err *e)
{
	while (c->dupacks < k) {
		int rc = dead(c, e);
		if (rc == IW_OK)
			rc = raw_pump(c, deadline, e);
		if (rc == IW_RAW_ETIMEDOUT)
			return iw_errf(e, rc, "waited for %u duplicate ACKs at sequence %u; the DUT sent %u", k, c->snd_una,
				       c->dupacks);
		if (rc != IW_OK)
			return rc;
	}
	return IW_OK;
}

static int run_step(iw_raw_conn *c, const iw_raw_step *s, uint32_t base, uint64_t deadline, iw_err *e)
{
	raw_range r = { base + (uint32_t)s->off, (uint32_t)s->len, 0 };
	switch (s->op) {
	case IW_RAW_SEND:
		return send_seg(c, r.seq, r.len, deadline, e);
	case IW_RAW_HOLD:
		return push_range(&c->held, &c->nheld, &c->held_cap, r, e);
	case IW_RAW_RELEASE:
		r = c->held[0];
		memmove(c->held, c->held + 1, (c->nheld - 1) * sizeof *c->held);
		c->nheld--;
		return send_seg(c, r.seq, r.len, deadline, e);
	case IW_RAW_DROP:
		r.dupacks = s->dupacks ? s->dupacks : 3;
		return push_range(&c->drops, &c->ndrops, &c->drops_cap, r, e);
	case IW_RAW_WAIT_DUPACKS:
		return wait_dupacks(c, s->dupacks, deadline, e);
	}
	return iw_errf(e, IW_EINVAL, "unknown plan operation %d", (int)s->op);
}

/* The plan's DROPs go out after its other steps, each once its duplicate ACKs have come:
 * the order on the wire is then the plan's, whatever the DUT's timing. */
static int finish_drops(iw_raw_conn *c, uint64_t deadline, iw_err *e)
{
	c->recovery = false;
	while (c->ndrops) {
		int rc = raw_fire_drops(c, e);
		if (rc != IW_OK || !c->ndrops)
			return rc;
		rc = dead(c, e);
		if (rc == IW_OK)
			rc = raw_pump(c, deadline, e);
		if (rc == IW_RAW_ETIMEDOUT)
			return iw_errf(e, rc,
				       "DROP [%u, +%u) waits for %u duplicate ACKs; the DUT's ACK stands at %u with %u "
				       "(a segment after the drop gives one each; is an earlier segment still held?)",
				       c->drops[0].seq, c->drops[0].len, c->drops[0].dupacks, c->snd_una, c->dupacks);
		if (rc != IW_OK)
			return rc;
	}
	return IW_OK;
}

int iw_raw_send_plan(iw_raw_conn *c, const uint8_t *octets, size_t n, const iw_raw_step *steps, size_t nsteps,
		     int timeout_ms, iw_err *e)
{
	int rc = dead(c, e);
	if (rc != IW_OK)
		return rc;
	rc = iw_raw_plan_check(steps, nsteps, n, c->dut_mss, c->nheld, e);
	if (rc != IW_OK)
		return rc;
	uint64_t deadline = raw_now_ms() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
	uint32_t base = c->stream_end;
	rc = append(c, octets, n, e);
	if (rc != IW_OK)
		return rc;
	c->plan_active = true;
	c->plan_base = base;
	for (size_t i = 0; i < nsteps && rc == IW_OK; i++) {
		rc = run_step(c, &steps[i], base, deadline, e);
		/* ACKs that came meanwhile are taken now, so the window and the duplicate ACK count
		 * are current before the next step. */
		if (rc == IW_OK)
			rc = raw_drain(c, e);
	}
	if (rc == IW_OK)
		rc = finish_drops(c, deadline, e);
	c->plan_active = false;
	c->ndrops = 0;
	trim(c);
	return rc;
}

int iw_raw_send(iw_raw_conn *c, const uint8_t *octets, size_t n, int timeout_ms, iw_err *e)
{
	int rc = dead(c, e);
	if (rc != IW_OK)
		return rc;
	uint64_t deadline = raw_now_ms() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
	uint32_t base = c->stream_end;
	rc = append(c, octets, n, e);
	for (size_t off = 0; off < n && rc == IW_OK; off += c->dut_mss) {
		size_t len = n - off < c->dut_mss ? n - off : c->dut_mss;
		rc = send_seg(c, base + (uint32_t)off, (uint32_t)len, deadline, e);
		if (rc == IW_OK)
			rc = raw_drain(c, e);
	}
	return rc;
}

int iw_raw_wait_acked(iw_raw_conn *c, int timeout_ms, iw_err *e)
{
	if (c->nheld)
		return iw_errf(e, IW_ESTATE, "%zu held segment(s) not released: the DUT cannot acknowledge past them",
			       c->nheld);
	uint64_t deadline = raw_now_ms() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
	while (iw_raw_seq_lt(c->snd_una, c->stream_end)) {
		if (c->state == RAW_RESET)
			return iw_errf(e, IW_RAW_ERESET, "the DUT reset the connection with %u octets unacknowledged",
				       c->stream_end - c->snd_una);
		int rc = raw_pump(c, deadline, e);
		if (rc == IW_RAW_ETIMEDOUT)
			return iw_errf(e, rc, "the DUT acknowledged up to %u, %u octets short of the stream's end, within %d ms",
				       c->snd_una, c->stream_end - c->snd_una, timeout_ms);
		if (rc != IW_OK)
			return rc;
	}
	return IW_OK;
}
