/*
 * exec_io.c - the case's TCP connections: opening them, reading the DUT's octets into the
 * bounded receive buffer, sending the harness's octets cut as the run's --resegment says, and
 * feeding the model of a conforming DUT what was sent.
 */
#include "exec_int.h"
#include "ulp_profile.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "interrupt.h"
#include "iw_grow.h"
#include "net.h"
#include "wait_dut.h"

static void hconn_reset(hconn *h)
{
	h->in_len = h->in_cur = 0;
	h->in_logged = h->nlogged = 0;
	h->fin = h->rst = false;
	h->sent_frame_valid = h->got_frame_valid = false;
	h->full_op = false;
	h->rx_ready = false;
	h->have_adv = false;
	h->fullop_in_valid = false;
	h->sent_fpdu = false;
	h->sent_in_full_op = false;
	h->sent_octets = 0;
	h->sent_early = false;
	for (int i = 0; i < 4; i++)
		h->msn[i] = 1; /* the first MSN on every queue is 1 (DDP-6.3-09) */
	iw_source_init(&h->src);
	h->pre_len = 0;
	h->pre_lost = false;
	h->pend_len = 0;
	h->mss = 0;
	h->dut_markers = 0;
	h->last_hdr_len = h->last_ulpdu_len = 0;
	h->have_last_rr = false;
	h->have_dut_rr = false;
}

bool ex_conn_up(const hconn *h) { return h->io != NULL; }

void ex_hconn_close(hconn *h)
{
	if (h->io)
		h->io->close(h);
	h->io = NULL;
}

void ex_hconn_free(hconn *h)
{
	ex_hconn_close(h);
	ex_perftest_close(h);
	free(h->in);
	free(h->rx);
	free(h->pre);
	free(h->pend);
	free(h->adv_mem);
	h->adv_mem = NULL;
	for (size_t i = 0; i < h->nmev; i++)
		free(h->mev[i].data);
	free(h->mev);
	h->mev = NULL;
	h->nmev = h->capmev = 0;
	iw_conn_free(h->model);
	h->in = NULL;
	h->in_cap = 0;
	h->rx = NULL;
	h->pre = NULL;
	h->pend = NULL;
	h->pend_cap = 0;
	h->model = NULL;
}

/* Reads what is available until the deadline or until `want` unconsumed octets are there. */
void ex_pump(ctx *x, size_t want, int64_t deadline)
{
	/* Whatever the harness holds back (coalesce) goes out before it waits for the DUT. */
	ex_flush_pending(x);
	hconn *h = x->h;
	int64_t waited_from = ex_now_us();
	size_t waited_at = h->in_len;
	while (h->io && !h->fin && !h->rst && h->in_len - h->in_cur < want) {
		int64_t left = deadline - ex_now_us();
		if (iw_interrupted()) {
			h->rst = true; /* every wait ends now: the runner marks the case interrupted */
			return;
		}
		if (left <= 0)
			break;
		if (h->in_len == h->in_cap && h->in_cap < RX_LIMIT) {
			/* Most cases take a few KB: a fixed 4 MiB buffer per connection was, under ASan,
			 * an mmap, a munmap and 512 KB of shadow poisoned twice. */
			size_t ncap = iw_grow_size(h->in_cap, RX_FIRST, h->in_cap + 1, RX_LIMIT);
			uint8_t *nb = realloc(h->in, ncap);
			if (!nb) {
				ex_herror(x, "out of memory for the DUT's octets on connection %d (%zu octets)", h->no, ncap);
				return;
			}
			h->in = nb;
			h->in_cap = ncap;
		} else if (h->in_len == RX_LIMIT) {
			if (h->in_cur == 0)
				return; /* full of unconsumed octets: the expectation will judge what is there */
			h->fullop_in_valid = false;
			ex_wire_shed(h, h->in_cur);
			memmove(h->in, h->in + h->in_cur, h->in_len - h->in_cur);
			h->in_len -= h->in_cur;
			h->in_cur = 0;
		}
		/* At most 100 ms per wait, so SIGINT/SIGTERM ends the case promptly (interrupt.h). */
		size_t n = 0;
		iw_err e;
		int rc = h->io->recv(h, h->in + h->in_len, h->in_cap - h->in_len, &n,
				     left > 100000 ? 100 : (int)((left + 999) / 1000), &e);
		if (rc == EX_IO_OK) {
			iw_result_tcp(x->r, IW_TCP_DATA, IW_FROM_DUT, h->no, ex_tcase(x), h->in + h->in_len, n);
			h->in_len += n;
		} else if (rc == EX_IO_FIN) {
			h->fin = true;
			iw_result_wire(x->r, IW_FROM_DUT, h->no, ex_tcase(x), "fin", NULL, 0, "DUT closed its half (FIN)");
		} else if (rc == EX_IO_RST) {
			h->rst = true;
			iw_result_wire(x->r, IW_FROM_DUT, h->no, ex_tcase(x), "rst", NULL, 0, "DUT reset the connection (RST)");
		} else if (rc == EX_IO_ERR) {
			h->rst = true;
			iw_result_wire(x->r, IW_FROM_DUT, h->no, ex_tcase(x), "rst", NULL, 0, "%s", e.msg);
		}
	}
	/* Nothing came while this wait lasted: a silence the next alternative of a one-of counts. */
	if (x->in_one_of && h->in_len == waited_at && !h->fin && !h->rst) {
		if (x->quiet_conn != h->no || x->quiet_at != waited_at) {
			x->quiet_conn = h->no;
			x->quiet_at = waited_at;
			x->quiet_us = 0;
		}
		x->quiet_us += ex_now_us() - waited_from;
	}
}

size_t ex_avail(const ctx *x) { return x->h->in_len - x->h->in_cur; }

static bool send_all(ctx *x, const uint8_t *b, size_t n)
{
	int64_t deadline = x->deadline_us;
	hconn *h = x->h;
	size_t off = 0;
	while (off < n) {
		int64_t left = deadline - ex_now_us();
		size_t w = 0;
		iw_err e;
		int64_t t = ex_now_us();
		int rc = h->io->send(h, b + off, n - off, &w, left > 0 ? (int)(left / 1000) + 1 : 0, &e);
		if (w > 0) {
			iw_result_tcp(x->r, IW_TCP_DATA, IW_TO_DUT, h->no, ex_tcase(x), b + off, w);
			off += w;
		}
		if (rc == EX_IO_OK)
			continue;
		if (rc == EX_IO_AGAIN) {
			/* The DUT does not read: the backend waited for room (draining what it sends, so
			 * neither side deadlocks). */
			x->send_wait_us += ex_now_us() - t;
			if (iw_interrupted())
				return ex_herror(x, "interrupted while sending");
			if (deadline - ex_now_us() <= 0)
				return ex_fail(x, NULL, "the DUT stopped reading: %zu of %zu octets could not be sent before "
					    "the case timeout", n - off, n);
			continue;
		}
		ex_note(x, "send failed after %zu of %zu octets: %s (the DUT closed or reset)", off, n, e.msg);
		/* The send took the reset's error off the socket: a later read would see only an end of
		 * stream, so the reset is recorded here. */
		if (rc == EX_IO_RST && !h->rst) {
			h->rst = true;
			iw_result_wire(x->r, IW_FROM_DUT, h->no, ex_tcase(x), "rst", NULL, 0,
				       "DUT reset the connection (RST), seen when sending");
		}
		return true; /* not a harness fault: the expectations judge the close */
	}
	return true;
}

void ex_sleep_ms(int64_t ms)
{
	/* In slices of at most 100 ms: a signal may reach another thread, the flag is what counts. */
	int64_t end = ex_now_us() + ms * 1000;
	for (int64_t left = ms * 1000; left > 0 && !iw_interrupted(); left = end - ex_now_us()) {
		struct timespec ts = {.tv_sec = 0, .tv_nsec = (left > 100000 ? 100000 : left) * 1000};
		nanosleep(&ts, NULL);
	}
}

/* coalesce: the octets held back on the current connection go out in one write. */
bool ex_flush_pending(ctx *x)
{
	hconn *h = x->h;
	if (!h || !h->pend_len || !h->io)
		return true;
	size_t n = h->pend_len;
	h->pend_len = 0;
	return send_all(x, h->pend, n);
}

/* Sends octets cut as the case's split (or the run's resegmentation mode) says. */
bool ex_send_cut(ctx *x, const uint8_t *b, size_t n)
{
	if (!x->h->io)
		return ex_herror(x, "send before connect or accept: the case must open a connection first");
	x->h->sent_in_full_op |= x->h->full_op;
	/* `segments`: the octets wait for the plan of the `segment` steps. */
	bool taken = false;
	if (!ex_seg_collect(x, b, n, &taken))
		return false;
	if (taken)
		return true;
	const split_cfg *s = &x->split;
	if ((s->nat || s->every) && !ex_flush_pending(x))
		return false;
	if (s->nat || s->every) {
		size_t off = 0, k = 0;
		while (off < n) {
			size_t end = n;
			if (s->every)
				end = off + s->every < n ? off + s->every : n;
			else if (k < s->nat)
				end = (size_t)s->at[k] < n && (size_t)s->at[k] > off ? (size_t)s->at[k] : n, k++;
			if (!send_all(x, b + off, end - off))
				return false;
			off = end;
			if (off < n && s->delay_ms)
				ex_sleep_ms(s->delay_ms);
		}
		return true;
	}
	/* A case that says how its octets go out (`resegment: coalesce`) is sent so whatever the run
	 * asks: a fuzz finding must reach the DUT in the writes its run made. */
	switch (x->c->coalesce ? IW_SEG_COALESCE : x->o->seg) {
	case IW_SEG_OCTET:
	case IW_SEG_RANDOM: {
		/* The case timeout bounds the DUT, not the harness's own pace: the time these many small
		 * writes take (64 KiB one octet at a time is seconds), less any wait for the DUT to read,
		 * is added to it, so a loaded machine does not turn the harness's slowness into a FAIL. */
		int64_t t0 = ex_now_us(), waited0 = x->send_wait_us;
		size_t off = 0;
		bool ok = true;
		while (ok && off < n) {
			size_t piece = x->o->seg == IW_SEG_OCTET ? 1 : 1 + ex_rng_next(x) % 7;
			if (piece > n - off)
				piece = n - off;
			ok = send_all(x, b + off, piece);
			off += piece;
		}
		x->deadline_us += (ex_now_us() - t0) - (x->send_wait_us - waited0);
		return ok;
	}
	case IW_SEG_COALESCE: {
		/* Several FPDUs per write: the octets wait until the harness next waits for the DUT
		 * (or sleeps, closes, switches connection), then go out together. */
		hconn *h = x->h;
		if (h->pend_len + n > h->pend_cap) {
			size_t cap = h->pend_cap ? h->pend_cap : 4096;
			while (cap < h->pend_len + n)
				cap *= 2;
			uint8_t *nb = realloc(h->pend, cap);
			if (!nb)
				return ex_herror(x, "out of memory holding %zu octets to coalesce", h->pend_len + n);
			h->pend = nb;
			h->pend_cap = cap;
		}
		memcpy(h->pend + h->pend_len, b, n);
		h->pend_len += n;
		return true;
	}
	default:
		return send_all(x, b, n);
	}
}

/* Everything the harness sends also goes to the model of a conforming DUT. Until full
 * operation it is also kept, so the model can be rebuilt with the DUT's real M and C. */
void ex_model_feed(ctx *x, const uint8_t *b, size_t n)
{
	hconn *h = x->h;
	h->sent_octets += n;
	/* A6: octets past the Request (its 20 octets and private data) before any Reply came. */
	if (x->dut_role == IW_ROLE_RESPONDER && h->sent_frame_valid && !h->got_frame_valid &&
	    h->sent_octets > IW_MPA_FRAME_HDR_LEN + (size_t)h->sent_frame.pd_length)
		h->sent_early = true;
	if (h->model) {
		bool was_full = h->model_full;
		iw_conn_input(h->model, b, n);
		h->model_full |= iw_conn_state(h->model) == IW_CS_FULL || iw_conn_state(h->model) == IW_CS_AWAIT_FIRST_FPDU;
		iw_conn_event ev;
		while (was_full && iw_conn_next_event(h->model, &ev)) {
			if (ev.kind != IW_EV_SEND && ev.kind != IW_EV_READ_SERVICED && ev.kind != IW_EV_ERROR)
				continue;
			if (h->nmev == h->capmev) {
				size_t cap = h->capmev ? h->capmev * 2 : 16;
				model_ev *nm = realloc(h->mev, cap * sizeof *nm);
				if (!nm)
					break;
				h->mev = nm;
				h->capmev = cap;
			}
			model_ev *m = &h->mev[h->nmev++];
			memset(m, 0, sizeof *m);
			m->kind = ev.kind;
			m->viol = ev.viol;
			m->rreq = ev.rreq;
			if (ev.kind == IW_EV_SEND && ev.len) {
				m->data = malloc(ev.len);
				if (m->data)
					memcpy(m->data, ev.data, ev.len);
				m->len = m->data ? ev.len : 0;
			}
		}
	}
	if (!h->full_op && !h->pre_lost) {
		if (!h->pre)
			h->pre = malloc(PRE_LIMIT);
		if (!h->pre || h->pre_len + n > PRE_LIMIT) {
			h->pre_lost = true;
			return;
		}
		memcpy(h->pre + h->pre_len, b, n);
		h->pre_len += n;
	}
}

/* A model of the DUT with the given frame bits, fed again what was sent before full operation. */
void ex_model_make(ctx *x, hconn *h, bool m, bool c)
{
	iw_conn_free(h->model);
	h->model = NULL;
	iw_conn_config mc;
	iw_conn_config_default(&mc, x->p, x->dut_role);
	mc.want_markers = m;
	mc.want_crc = c;
	mc.crc_admin_off = !c;
	iw_err e;
	if (iw_conn_new(&h->model, &mc, &e) == IW_OK)
		iw_conn_start(h->model, &e);
	h->model_m = m;
	h->model_c = c;
	if (h->model && h->pre_len)
		iw_conn_input(h->model, h->pre, h->pre_len);
	h->model_full = h->model && iw_conn_state(h->model) == IW_CS_FULL;
}

/* What an explicit expectation covers is not judged again by a later `expect as-model`. */
void ex_model_discard(ctx *x)
{
	hconn *h = x->h;
	for (size_t i = 0; i < h->nmev; i++)
		free(h->mev[i].data);
	h->nmev = 0;
	iw_conn_event ev;
	while (h->model_full && h->model && iw_conn_next_event(h->model, &ev))
		;
}

/* Opens a connection to (or from) the DUT into h and makes it the current one. */
bool ex_open_into(ctx *x, hconn *h, int no, int64_t timeout_ms, int mss)
{
	hconn_reset(h);
	h->fd = -1;
	h->io = NULL;
	h->no = no;
	if (!h->in) {
		h->in = malloc(RX_FIRST);
		h->in_cap = h->in ? RX_FIRST : 0;
	}
	if (!h->rx)
		h->rx = malloc(sizeof *h->rx);
	if (!h->in || !h->rx)
		return ex_herror(x, "out of memory opening connection %d", no);
	x->h = h;
	iw_err e;
	int fd = -1;
	int rc = IW_EINVAL;
	bool raw = x->o->dut.raw_ifname[0] != '\0';
	/* A DUT that runs perftest's server listens for the test connection only once its control
	 * channel has been through the version, the system data and the MTU (exec_perftest.c); one
	 * that runs its client connects it only then. */
	if (!raw && !h->pt_is_comm &&
	    iw_ulp_profile_of(&x->o->dut, x->dut_role)->startup == IW_ULP_START_PERFTEST) {
		if (!ex_perftest_prelude(x, h, timeout_ms))
			return false;
		x->h = h;
	}
	if (raw) {
		rc = ex_raw_open(x, h, timeout_ms, mss, &e);
		if (rc == EX_RAW_JUDGED)
			return false;
	} else if (x->dut_role != IW_ROLE_RESPONDER) {
		rc = x->drv->ops->accept(x->drv, &fd, timeout_ms, &e);
	} else if (x->o->wait && !x->reached) {
		int64_t waited;
		rc = iw_wait_dut_connect(x->o->wait, x->drv, x->o->connect_once, timeout_ms, mss, &fd, &waited, &e);
		if (rc == IW_OK && waited)
			ex_note(x, "the DUT refused connections for %lld ms before it listened (%s)", (long long)waited,
				x->o->wait->how);
	} else if (x->o->connect_once && !x->reached && x->drv->ops->connect_once) {
		rc = x->drv->ops->connect_once(x->drv, &fd, timeout_ms, mss, &e);
	} else {
		rc = x->drv->ops->connect(x->drv, &fd, timeout_ms, mss, &e);
	}
	/* The DUT took the connection and reset it at once: its answer, judged as a reset by the
	 * expectations, never a refusal (connect retries) nor an unreachable DUT. */
	bool reset_at_once = rc == IW_NET_ERESET_AT_ONCE && !raw;
	if (reset_at_once)
		rc = IW_OK;
	/* An application that serves one run per instance still in its last one: its timing, not
	 * the stack's listener, so the case is not judged (unless it failed before). */
	if (rc == IW_DRV_ELAST_RUN) {
		x->app_busy |= !x->failed;
		ex_fail(x, NULL, "%s", e.msg);
		return false;
	}
	/* A responder that accepted a connection of this case and now refuses another has stopped
	 * serving (what `expect alive` probes): a finding, not a harness that cannot judge. */
	if (rc && x->dut_role == IW_ROLE_RESPONDER && x->reached) {
		bool first = !x->failed;
		ex_fail(x, "MPA-6.1-R2a", "the DUT no longer accepts connections (connection %d): %s", no, e.msg);
		if (first)
			x->fail_by = EX_LIVENESS;
		return false;
	}
	/* Not one connection yet: the DUT is not there (the runner stops a run that never reaches
	 * it). An MSS the kernel refuses is the case's own problem, not the DUT's absence. */
	if (rc && mss <= 0)
		x->unreachable = true;
	if (rc)
		return ex_herror(x, "cannot %s the DUT: %s", x->dut_role == IW_ROLE_RESPONDER ? "connect to" : "accept", e.msg);
	x->reached = true;
	if (!raw) {
		h->fd = reset_at_once ? -1 : fd;
		h->io = reset_at_once ? &ex_conn_reset_at_once : &ex_conn_socket;
	}
	iw_result_wire(x->r, IW_NOTE, h->no, ex_tcase(x), "connect", NULL, 0, "connection %d %s%s", h->no,
		       x->dut_role == IW_ROLE_RESPONDER ? "opened to the DUT" : "accepted from the DUT",
		       raw ? " (raw segment path)" : "");
	if (reset_at_once) {
		h->rst = true;
		iw_result_wire(x->r, IW_FROM_DUT, h->no, ex_tcase(x), "rst", NULL, 0,
			       "DUT reset the connection (RST) right after the handshake");
	}
	/* The DUT's EMSS is taken to be ours: TCP gives both ends the same MSS on a symmetric path.
	 * The raw path knows both MSS values itself (ex_raw_open). */
	int emss = 0;
	socklen_t ml = sizeof emss;
	if (!raw && getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &emss, &ml) == 0 && emss > 0)
		h->mss = (uint32_t)emss;
	h->mss_advertised = mss > 0 && x->dut_role == IW_ROLE_RESPONDER;
	/* Without the EMSS the MULPDU the case is about cannot be judged: no silent PASS. */
	if (h->mss_advertised && !h->mss && !reset_at_once)
		return ex_herror(x, "the connection's MSS cannot be read (TCP_MAXSEG): %s", strerror(errno));
	if (h->mss_advertised)
		ex_note(x, "MSS %d advertised; the connection's EMSS is %u (TCP options taken off)", mss, h->mss);
	/* The model plays the DUT as it was asked to be; iw_conn_start is a no-op for a responder. */
	ex_model_make(x, h, x->instr_markers, !x->instr_crc_off);
	if (!x->p->startup_frames)
		ex_enter_full_operation(x);
	return true;
}

/* `connect` / `accept`: a new connection; earlier ones stay open (`use N` goes back to one). */
bool ex_open_conn(ctx *x, int64_t timeout_ms, int mss)
{
	if (x->nconns == MAX_CONNS)
		return ex_herror(x, "a case may open at most %d connections", MAX_CONNS);
	hconn *h = &x->conns[x->nconns++];
	return ex_open_into(x, h, x->nconns, timeout_ms, mss);
}
