/*
 * ref_conn.c - one connection of the built-in DUT: made and freed, its connection model, and the
 * reflector around the model (echoes, the greeting, the REJECTME decision, the shared buffer).
 */
#include "ref_server_int.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "iw_proto.h"
#include "mpa_frame.h"
#include "ref_mutants.h"
#include "reflector_greeting.h"

void rs_conn_free(iw_ref_server *s, rconn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	/* The model and the transmit buffer serve the next connection (a run of the network
	 * fuzzer is a connection: freeing and allocating them was a part of each). */
	if (c->model && s->nused_model < RS_POOL)
		s->used_model[s->nused_model++] = c->model;
	else
		iw_conn_free(c->model);
	iw_fault_conn_free(&c->fault);
	rs_rping_free(c);
	if (c->tx.buf && c->tx.cap == TX_CAP && s->nused_tx < RS_POOL)
		s->used_tx[s->nused_tx++] = c->tx.buf;
	else
		free(c->tx.buf);
	free(c);
	s->nconns--;
	pthread_mutex_lock(&s->mu);
	s->stats.open = s->nconns;
	pthread_mutex_unlock(&s->mu);
}

static void peer_name(int fd, char *buf, size_t cap)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	char a[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0) {
		if (ss.ss_family == AF_INET) {
			struct sockaddr_in *in = (struct sockaddr_in *)&ss;
			inet_ntop(AF_INET, &in->sin_addr, a, sizeof a);
			port = ntohs(in->sin_port);
		} else if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
			inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof a);
			port = ntohs(in6->sin6_port);
		}
	}
	snprintf(buf, cap, "%s:%u", a, port);
}

static void greet(iw_ref_server *s, rconn *c)
{
	uint8_t g[IW_GREETING_LEN];
	iw_err e;
	iw_greeting_encode(g, c->stag, s->o.base_to, IW_REF_STAG_LEN);
	if (iw_conn_send(c->model, IW_OP_SEND, g, sizeof g, &e) != IW_OK)
		rs_log(s, c, "reflector: cannot send the greeting: %s", e.msg);
}

void rs_drain_events(iw_ref_server *s, rconn *c)
{
	iw_conn_event ev;
	while (iw_conn_next_event(c->model, &ev)) {
		iw_err e;
		if (c->o.rping)
			rs_rping_event(s, c, &ev);
		if (c->o.perftest)
			rs_perftest_event(s, c, &ev);
		switch (ev.kind) {
		case IW_EV_FRAME_ACCEPTED:
			rs_log(s, c, "startup frame accepted (M=%d C=%d R=%d Rev %u, %u octets of private data)", ev.frame.m,
			      ev.frame.c, ev.frame.r, ev.frame.rev, ev.frame.pd_length);
			break;
		case IW_EV_FRAME_REJECTED:
			rs_log(s, c, "startup frame rejected: %s (%s)", ev.viol.detail, ev.viol.req ? ev.viol.req : "");
			break;
		case IW_EV_PEER_REJECT:
			rs_log(s, c, "the peer rejected the connection (R=1)");
			break;
		case IW_EV_FULL_OPERATION:
			rs_log(s, c, "full operation");
			if (c->o.reflector && c->o.greeting)
				greet(s, c);
			break;
		case IW_EV_SEND:
			if (c->o.reflector && iw_conn_send(c->model, IW_OP_SEND, ev.data, ev.len, &e) != IW_OK)
				rs_log(s, c, "reflector: cannot echo a Send of %zu octets: %s", ev.len, e.msg);
			break;
		case IW_EV_TERMINATE:
			rs_log(s, c, "Terminate received: %s",
			      iw_error_name(ev.term.layer, ev.term.etype, ev.term.ecode));
			break;
		case IW_EV_ERROR:
			rs_log(s, c, "error: %s (%s): %s", iw_error_name(ev.viol.layer, ev.viol.etype, ev.viol.ecode),
			      ev.viol.req ? ev.viol.req : "", ev.viol.detail);
			break;
		default:
			break;
		}
	}
	if (c->o.perftest)
		rs_perftest_pump(s, c);
}

/* The reflector's buffer is one memory region for the whole DUT, registered under a different
 * STag on each connection (ARCH-2.1.2-F3: one buffer, several registrations). So a Read on a
 * second connection shows what a first one placed, or did not (DDP-9.1-01), and each sink also
 * knows the other connections' STags as belonging to other streams, so using one gives 0x1/0x02
 * (DDP-10.3-02) rather than an unknown STag. */
static void share_stags(iw_ref_server *s, rconn *c)
{
	iw_err e;
	for (rconn *o = s->conns; o; o = o->next) {
		if (o == c || !o->model || !o->o.reflector)
			continue;
		iw_tagged_buf mine = {.stag = c->stag, .base_to = s->o.base_to, .length = IW_REF_STAG_LEN, .stream = c->id, .pd = 1,
				      .access = IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE, .valid = true,
				      .mem = s->shared_mem};
		iw_tagged_buf theirs = mine;
		theirs.stag = o->stag;
		theirs.stream = o->id;
		/* A full table only loses the cross-stream check, never correctness of the own STag. */
		(void)iw_conn_register_buf(o->model, &mine, &e);
		(void)iw_conn_register_buf(c->model, &theirs, &e);
	}
}

/* The EMSS the accepted socket agreed (its MSS less TCP options), 0 when it cannot tell. */
static uint32_t socket_emss(int fd)
{
	int mss = 0;
	socklen_t len = sizeof mss;
	return getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &len) == 0 && mss > 0 ? (uint32_t)mss : 0;
}

/* Makes the connection's model from c->o (again, when the reflector decides to reject). */
int rs_model_new(iw_ref_server *s, rconn *c, iw_err *e)
{
	const iw_ref_options *o = &c->o;
	iw_conn_config cfg;
	iw_conn_config_default(&cfg, o->profile, o->role);
	cfg.want_markers = o->markers;
	cfg.crc_admin_off = o->crc_off;
	cfg.want_crc = !o->crc_off;
	cfg.reject = o->reject;
	cfg.pd = o->pd_len ? o->pd : NULL;
	cfg.pd_len = o->pd_len;
	cfg.out_cap = MODEL_OUT_CAP;
	cfg.stream = c->id;
	cfg.pd_id = 1;
	/* MULPDU follows the connection's EMSS (MPA-5.3.2-01/02, TR-17), up to the Ethernet 1460
	 * the model is sized for: loopback's 65483 would make every message one 64768-octet FPDU.
	 * Only an accepted connection knows its MSS here; an initiator's is still being dialled. */
	if (o->role == IW_ROLE_RESPONDER) {
		uint32_t emss = socket_emss(c->fd);
		if (emss && emss < cfg.emss)
			cfg.emss = emss;
	}
	if (o->rping)
		rs_rping_config(c, &cfg);
	if (o->perftest)
		rs_perftest_config(c, &cfg);
	iw_mut_conn_config(o->mutant, &cfg);
	if (!c->model && s->nused_model)
		c->model = s->used_model[--s->nused_model];
	int rc = iw_conn_renew(&c->model, &cfg, e);
	if (rc)
		return rc;
	if (o->reflector) {
		if (!s->shared_mem)
			s->shared_mem = calloc(1, IW_REF_STAG_LEN);
		if (!s->shared_mem)
			return iw_errf(e, IW_ENOSPC, "out of memory");
		/* One STag per live connection: ids 64 apart used to share one, and a long case (all
		 * 64 KiB of ddp.segments.all-data-sent) beside 64 newer connections had its own STag
		 * taken for another stream's (0x1/0x02). 4096 connections apart is past any case. */
		c->stag = IW_REF_STAG + 0x100u * (c->id % 4096u);
		rc = iw_conn_register(c->model, c->stag, s->o.base_to, s->shared_mem, IW_REF_STAG_LEN,
				      IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE, e);
		if (rc)
			return rc;
		share_stags(s, c);
	}
	if (o->rping && (rc = rs_rping_register(c, e)) != IW_OK)
		return rc;
	if (o->perftest && (rc = rs_perftest_register(s, c, e)) != IW_OK)
		return rc;
	return iw_conn_start(c->model, e);
}

rconn *rs_conn_new(iw_ref_server *s, int fd, enum rc_state st, int64_t now, iw_err *e)
{
	rconn *c = calloc(1, sizeof *c);
	if (!c) {
		iw_errf(e, IW_ENOSPC, "out of memory");
		return NULL;
	}
	c->fd = fd;
	c->st = st;
	c->id = ++s->next_id;
	c->opened_ms = c->last_in_ms = c->last_out_ms = now;
	c->wake_ms = -1;
	memcpy(c->peer, "connecting", sizeof "connecting"); /* no printf per connection */
	pthread_mutex_lock(&s->mu);
	c->o = s->o;
	pthread_mutex_unlock(&s->mu);
	c->watch_reject = c->o.reflector && c->o.reject_pd && !c->o.reject && c->o.role == IW_ROLE_RESPONDER &&
			  c->o.profile->startup_frames;
	c->tx.buf = s->nused_tx ? s->used_tx[--s->nused_tx] : malloc(TX_CAP);
	c->tx.cap = TX_CAP;
	s->nconns++;
	if (!c->tx.buf || rs_model_new(s, c, e) != IW_OK) {
		if (!c->tx.buf)
			iw_errf(e, IW_ENOSPC, "out of memory");
		c->fd = -1;
		rs_conn_free(s, c);
		return NULL;
	}
	iw_fault_conn_init(&c->fault, c->o.hostile, c->o.mutant, c->o.profile, c->o.role,
			   (uint64_t)now * 0x9E3779B97F4A7C15ull ^ c->id);
	c->srv = s;
	c->fault.after_feed = rs_after_feed;
	c->fault.after_feed_arg = c;
	c->next = s->conns;
	s->conns = c;
	pthread_mutex_lock(&s->mu);
	s->stats.open = s->nconns;
	pthread_mutex_unlock(&s->mu);
	return c;
}

/* The reflector's one decision at startup: a Request carrying the private data REJECTME is
 * refused with R=1 (MPA-6.1-R2c). The model takes its reject flag when it is made, and it
 * answers only once the whole Request is in, so the chunk that completes such a Request is
 * not fed: the model is made anew with reject set and given the whole frame. */
void rs_feed(iw_ref_server *s, rconn *c, const uint8_t *data, size_t n)
{
	if (c->watch_reject) {
		uint64_t before = c->in_total;
		for (size_t i = 0; i < n && c->sbuf_len < sizeof c->sbuf; i++)
			c->sbuf[c->sbuf_len++] = data[i];
		c->in_total += n;
		if (c->sbuf_len >= IW_MPA_FRAME_HDR_LEN) {
			const uint8_t *h = c->sbuf;
			size_t pdl = iw_mpa_frame_pd_length(h);
			size_t off = IW_MPA_FRAME_HDR_LEN;
			if (iw_mpa_frame_enhanced(c->o.profile, iw_mpa_frame_flags(h), iw_mpa_frame_rev(h)) &&
			    pdl >= IW_MPA_IRDORD_LEN)
				off += IW_MPA_IRDORD_LEN;
			size_t end = IW_MPA_FRAME_HDR_LEN + pdl;
			size_t want = sizeof IW_REF_REJECT_PD - 1;
			if (end - off != want) {
				c->watch_reject = false;
			} else if (c->in_total >= end) {
				c->watch_reject = false;
				if (memcmp(h + off, IW_REF_REJECT_PD, want) == 0) {
					iw_err e;
					rs_log(s, c, "reflector: the private data is %s: rejecting", IW_REF_REJECT_PD);
					c->o.reject = true;
					if (rs_model_new(s, c, &e) != IW_OK) {
						rs_log(s, c, "reflector: %s", e.msg);
						return;
					}
					(void)iw_conn_input(c->model, h, end);
					size_t used = end - (size_t)before;
					if (used < n)
						(void)iw_conn_input(c->model, data + used, n - used);
					return;
				}
			}
		}
	}
	(void)iw_conn_input(c->model, data, n);
}

/* The fault stage fed the model one FPDU itself: its events now, while their data is valid. */
void rs_after_feed(void *arg)
{
	rconn *c = arg;
	rs_drain_events(c->srv, c);
}

void rs_conn_opened(iw_ref_server *s, rconn *c, int64_t now)
{
	c->st = RC_OPEN;
	c->opened_ms = c->last_in_ms = c->last_out_ms = now;
	if (s->o.log) /* only the log shows it: no syscall per connection otherwise */
		peer_name(c->fd, c->peer, sizeof c->peer);
	rs_stat_add(s, &s->stats.connections);
	rs_log(s, c, "open (%s, %s)", s->o.role == IW_ROLE_RESPONDER ? "responder" : "initiator", s->o.profile->name);
}
