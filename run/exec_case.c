/*
 * exec_case.c - executing one case: actions become bytes through the engine's encoders,
 * bytes from the DUT are decoded by the engine, and each expectation is judged.
 *
 * Every wait is bounded by the step's `within` and by the case's own timeout, so a DUT that
 * sends nothing, sends forever or never closes ends the case on time. Received octets are
 * kept in a bounded buffer; expectations consume them through a cursor, which `expect one-of`
 * saves and restores to try each alternative on the same observations.
 *
 * Full operation: `startup` takes a connection through the profile's startup to the reflector's
 * greeting and an echo; every FPDU the DUT sends is then judged as a data source's (framing,
 * CRC, markers, MULPDU for the socket's MSS, MSN and MO/TO sequences); the run's --resegment,
 * --markers and --crc change only how the harness sends, never what is judged.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ddp.h"
#include "interrupt.h"
#include "iw_conn.h"
#include "mpa_fpdu.h"
#include "mpa_frame.h"
#include "mpa_rx.h"
#include "net.h"
#include "rdmap.h"
#include "runner.h"

#define RX_LIMIT (4u << 20)         /* octets kept from the DUT in one connection */
#define DEFAULT_WITHIN_MS 5000
#define PRE_LIMIT (1u << 17)        /* octets sent before full operation kept to rebuild the model */
#define STARTUP_PAYLOAD "iwspec startup"

typedef struct split_cfg {
	size_t nat;
	int64_t at[16];
	size_t every;
	int64_t delay_ms;
} split_cfg;

/* A model event of full operation, with its own copy of the data (the model's pointers last only
 * until its next input, and the harness feeds it FPDU by FPDU). */
typedef struct model_ev {
	enum iw_conn_ev_kind kind;
	iw_violation viol;
	iw_read_req rreq;
	uint8_t *data;
	size_t len;
} model_ev;

/* One TCP connection of the case, with its own startup state and framing both ways. */
typedef struct hconn {
	int fd, no;
	uint8_t *in;                /* octets from the DUT, RX_LIMIT at most */
	size_t in_len, in_cur;
	bool fin, rst;
	/* startup and negotiation */
	bool sent_frame_valid, got_frame_valid;
	iw_mpa_frame sent_frame, got_frame;
	bool full_op;
	iw_mpa_tx tx;
	iw_mpa_rx *rx;
	bool rx_ready;
	uint32_t msn[4];
	size_t fullop_in_off;       /* where full operation began in `in` (for diagnosis) */
	bool fullop_in_valid;
	bool sent_fpdu;             /* the harness has sent an FPDU on this connection */
	/* the reflector's advertised tagged buffer (its greeting), defaults for write/read */
	bool have_adv;
	uint32_t adv_stag;
	uint64_t adv_to;
	uint32_t adv_len;
	uint8_t *adv_mem;           /* the model's copy of that buffer */
	/* the model of a conforming DUT, fed what the harness sends on this connection */
	iw_conn *model;
	bool model_m, model_c;      /* the M and C bits the model's own frame has */
	bool model_full;            /* the model reached full operation (then as-model judges FPDUs) */
	model_ev *mev;              /* its full-operation events not yet judged */
	size_t nmev, capmev;
	uint8_t *pre;               /* what was sent before full operation, to rebuild the model */
	size_t pre_len;
	bool pre_lost;
	/* coalesce: the harness's octets wait here until the next wait for the DUT */
	uint8_t *pend;
	size_t pend_len, pend_cap;
	/* data source checks of the DUT's messages */
	uint32_t dut_msn[3];        /* next MSN expected per QN (DDP-6.3-08/09) */
	uint32_t mss;               /* TCP_MAXSEG of the socket: the EMSS for the MULPDU bound */
	bool mss_advertised;        /* the case chose the MSS (mss=): the DUT's ULPDUs are held to it */
	size_t dut_markers;         /* markers seen and checked in the DUT's FPDUs */
	/* the harness's last segment and Read Request, for the Terminate's attached headers */
	uint8_t last_hdr[IW_DDP_UNTAGGED_HDR_LEN];
	size_t last_hdr_len, last_ulpdu_len;
	uint8_t last_rr[IW_RDMAP_READ_REQ_LEN];
	bool have_last_rr;
} hconn;

#define MAX_CONNS 4

typedef struct ctx {
	const iw_case *c;
	const iw_profile *p;
	const iw_run_opts *o;
	iw_driver *drv;
	iw_case_result *r;
	int dut_role;
	int64_t t0_us, deadline_us;
	uint64_t rng;
	/* the case's connections; h is the current one */
	hconn conns[MAX_CONNS];
	int nconns;
	hconn *h;
	split_cfg split;
	/* what the DUT was asked for this case (iw_driver_instruct) */
	bool instr_markers, instr_crc_off;
	bool uses_startup;
	bool in_as_model;           /* as-model's own expectations leave the model's events alone */
	/* verdict */
	bool failed;
	bool harness_error;
	uint32_t pd_over_limit;     /* a Request's PD_Length above the DUT's declared private_data_limit */
	char fail_req[32];
} ctx;

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static uint64_t rng_next(ctx *x)
{
	x->rng ^= x->rng << 13;
	x->rng ^= x->rng >> 7;
	x->rng ^= x->rng << 17;
	return x->rng;
}

static int64_t tcase(ctx *x) { return now_us() - x->t0_us; }

static void note(ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(ctx *x, const char *fmt, ...)
{
	char buf[320];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	iw_result_wire(x->r, IW_NOTE, x->h->no, tcase(x), "note", NULL, 0, "%s", buf);
}

/* Records a broken expectation; the first one decides the verdict. */
static bool fail(ctx *x, const char *req, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(ctx *x, const char *req, const char *fmt, ...)
{
	if (x->failed)
		return false;
	x->failed = true;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->r->reason, sizeof x->r->reason, fmt, ap);
	va_end(ap);
	snprintf(x->fail_req, sizeof x->fail_req, "%s", req ? req : (x->c->nreqs ? x->c->reqs[0].id : ""));
	iw_result_blame(x->r, x->fail_req); /* which wire entry and field the report highlights */
	return false;
}

static bool herror(ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool herror(ctx *x, const char *fmt, ...)
{
	if (x->failed)
		return false;
	x->failed = true;
	x->harness_error = true;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->r->reason, sizeof x->r->reason, fmt, ap);
	va_end(ap);
	return false;
}

static int64_t arg_i(const iw_step *s, const char *name, int64_t def)
{
	const iw_arg *a = iw_step_arg(s, name);
	return a && !a->is_pattern_any && (a->type == IW_ARG_INT || a->type == IW_ARG_DURATION) ? a->i : def;
}

static int64_t within_deadline(ctx *x, const iw_step *s)
{
	int64_t w = arg_i(s, "within", x->o->dut.close_timeout_ms > 0 ? x->o->dut.close_timeout_ms : DEFAULT_WITHIN_MS);
	int64_t d = now_us() + w * 1000;
	return d < x->deadline_us ? d : x->deadline_us;
}

/* ---- connection I/O ---- */

static void hconn_reset(hconn *h)
{
	h->in_len = h->in_cur = 0;
	h->fin = h->rst = false;
	h->sent_frame_valid = h->got_frame_valid = false;
	h->full_op = false;
	h->rx_ready = false;
	h->have_adv = false;
	h->fullop_in_valid = false;
	h->sent_fpdu = false;
	for (int i = 0; i < 4; i++)
		h->msn[i] = 1; /* the first MSN on every queue is 1 (DDP-6.3-09) */
	for (int i = 0; i < 3; i++)
		h->dut_msn[i] = 1;
	h->pre_len = 0;
	h->pre_lost = false;
	h->pend_len = 0;
	h->mss = 0;
	h->dut_markers = 0;
	h->last_hdr_len = h->last_ulpdu_len = 0;
	h->have_last_rr = false;
}

static void hconn_close(hconn *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
}

static void hconn_free(hconn *h)
{
	hconn_close(h);
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
	h->rx = NULL;
	h->pre = NULL;
	h->pend = NULL;
	h->pend_cap = 0;
	h->model = NULL;
}

static bool flush_pending(ctx *x);

/* Reads what is available until the deadline or until `want` unconsumed octets are there. */
static void pump(ctx *x, size_t want, int64_t deadline)
{
	/* Whatever the harness holds back (coalesce) goes out before it waits for the DUT. */
	flush_pending(x);
	while (x->h->fd >= 0 && !x->h->fin && !x->h->rst && x->h->in_len - x->h->in_cur < want) {
		int64_t left = deadline - now_us();
		if (iw_interrupted()) {
			x->h->rst = true; /* every wait ends now: the runner marks the case interrupted */
			return;
		}
		if (left <= 0)
			return;
		/* At most 100 ms per poll, so SIGINT/SIGTERM ends the case promptly (interrupt.h). */
		struct pollfd pfd = {.fd = x->h->fd, .events = POLLIN};
		int rc = poll(&pfd, 1, left > 100000 ? 100 : (int)((left + 999) / 1000));
		if ((rc < 0 && errno == EINTR) || rc == 0)
			continue;
		if (rc < 0)
			return;
		if (x->h->in_len == RX_LIMIT) {
			if (x->h->in_cur == 0)
				return; /* full of unconsumed octets: the expectation will judge what is there */
			x->h->fullop_in_valid = false;
			memmove(x->h->in, x->h->in + x->h->in_cur, x->h->in_len - x->h->in_cur);
			x->h->in_len -= x->h->in_cur;
			x->h->in_cur = 0;
		}
		ssize_t n = recv(x->h->fd, x->h->in + x->h->in_len, RX_LIMIT - x->h->in_len, 0);
		if (n > 0) {
			iw_result_tcp(x->r, IW_TCP_DATA, IW_FROM_DUT, x->h->no, tcase(x), x->h->in + x->h->in_len, (size_t)n);
			x->h->in_len += (size_t)n;
		} else if (n == 0) {
			x->h->fin = true;
			iw_result_wire(x->r, IW_FROM_DUT, x->h->no, tcase(x), "fin", NULL, 0, "DUT closed its half (FIN)");
		} else if (errno == ECONNRESET) {
			x->h->rst = true;
			iw_result_wire(x->r, IW_FROM_DUT, x->h->no, tcase(x), "rst", NULL, 0, "DUT reset the connection (RST)");
		} else if (errno != EINTR && errno != EAGAIN) {
			x->h->rst = true;
			iw_result_wire(x->r, IW_FROM_DUT, x->h->no, tcase(x), "rst", NULL, 0, "receive failed: %s",
				       strerror(errno));
		}
	}
}

static size_t avail(const ctx *x) { return x->h->in_len - x->h->in_cur; }

static bool send_all(ctx *x, const uint8_t *b, size_t n)
{
	int64_t deadline = x->deadline_us;
	size_t off = 0;
	while (off < n) {
		ssize_t w = send(x->h->fd, b + off, n - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			iw_result_tcp(x->r, IW_TCP_DATA, IW_TO_DUT, x->h->no, tcase(x), b + off, (size_t)w);
			off += (size_t)w;
			continue;
		}
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
			/* The DUT does not read: keep draining what it sends so neither side deadlocks. */
			int64_t left = deadline - now_us();
			if (iw_interrupted())
				return herror(x, "interrupted while sending");
			if (left <= 0)
				return fail(x, NULL, "the DUT stopped reading: %zu of %zu octets could not be sent before "
					    "the case timeout", n - off, n);
			struct pollfd pfd = {.fd = x->h->fd, .events = POLLOUT};
			poll(&pfd, 1, left > 100000 ? 100 : (int)(left / 1000) + 1);
			continue;
		}
		note(x, "send failed after %zu of %zu octets: %s (the DUT closed or reset)", off, n, strerror(errno));
		return true; /* not a harness fault: the expectations judge the close */
	}
	return true;
}

static void sleep_ms(int64_t ms)
{
	/* In slices of at most 100 ms: a signal may reach another thread, the flag is what counts. */
	int64_t end = now_us() + ms * 1000;
	for (int64_t left = ms * 1000; left > 0 && !iw_interrupted(); left = end - now_us()) {
		struct timespec ts = {.tv_sec = 0, .tv_nsec = (left > 100000 ? 100000 : left) * 1000};
		nanosleep(&ts, NULL);
	}
}

/* coalesce: the octets held back on the current connection go out in one write. */
static bool flush_pending(ctx *x)
{
	hconn *h = x->h;
	if (!h || !h->pend_len || h->fd < 0)
		return true;
	size_t n = h->pend_len;
	h->pend_len = 0;
	return send_all(x, h->pend, n);
}

/* Sends octets cut as the case's split (or the run's resegmentation mode) says. */
static bool send_cut(ctx *x, const uint8_t *b, size_t n)
{
	if (x->h->fd < 0)
		return herror(x, "send before connect or accept: the case must open a connection first");
	const split_cfg *s = &x->split;
	if ((s->nat || s->every) && !flush_pending(x))
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
				sleep_ms(s->delay_ms);
		}
		return true;
	}
	switch (x->o->seg) {
	case IW_SEG_OCTET:
		for (size_t i = 0; i < n; i++)
			if (!send_all(x, b + i, 1))
				return false;
		return true;
	case IW_SEG_RANDOM: {
		size_t off = 0;
		while (off < n) {
			size_t piece = 1 + rng_next(x) % 7;
			if (piece > n - off)
				piece = n - off;
			if (!send_all(x, b + off, piece))
				return false;
			off += piece;
		}
		return true;
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
				return herror(x, "out of memory holding %zu octets to coalesce", h->pend_len + n);
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
static void model_feed(ctx *x, const uint8_t *b, size_t n)
{
	hconn *h = x->h;
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
static void model_make(ctx *x, hconn *h, bool m, bool c)
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

/* ---- frames ---- */

static const char *kind_name(enum iw_mpa_kind k) { return k == IW_MPA_REPLY ? "Reply" : "Request"; }

static void frame_summary(const iw_mpa_frame *f, char *buf, size_t cap)
{
	const char *key = !memcmp(f->key, iw_mpa_key(IW_MPA_REQUEST), 16) ? "Req"
			  : !memcmp(f->key, iw_mpa_key(IW_MPA_REPLY), 16) ? "Rep"
									  : "other";
	int n = snprintf(buf, cap, "key=%s M=%d C=%d R=%d Res=0x%02x Rev=%u PD_Length=%u", key, f->m, f->c, f->r,
			 f->res, f->rev, f->pd_length);
	if (f->has_irdord && n > 0 && (size_t)n < cap)
		snprintf(buf + n, cap - (size_t)n, " IRD=%u ORD=%u A=%d B=%d C=%d D=%d", f->ird, f->ord, f->p2p,
			 f->rtr_send, f->rtr_write, f->rtr_read);
}

static bool build_frame(ctx *x, const iw_step *s, enum iw_mpa_kind kind, iw_mpa_frame *f, uint8_t **pd_owned)
{
	iw_mpa_frame_init(f, x->p, kind);
	*pd_owned = NULL;
	const iw_arg *a;
	if ((a = iw_step_arg(s, "key"))) {
		if (a->nbytes != IW_MPA_KEY_LEN)
			return herror(x, "line %d: key must be 16 octets, got %zu", s->line, a->nbytes);
		memcpy(f->key, a->bytes, IW_MPA_KEY_LEN);
	}
	if ((a = iw_step_arg(s, "key_octet"))) {
		if (a->i < 0 || a->i >= IW_MPA_KEY_LEN)
			return herror(x, "line %d: key_octet %lld is not 0..15", s->line, (long long)a->i);
		f->key[a->i] ^= (uint8_t)arg_i(s, "key_xor", 0x01);
	}
	f->m = arg_i(s, "m", f->m);
	f->c = arg_i(s, "c", f->c);
	f->r = arg_i(s, "r", f->r);
	f->res = (uint8_t)arg_i(s, "res", f->res);
	f->enhanced = arg_i(s, "enhanced", f->enhanced);
	f->rev = (uint8_t)arg_i(s, "rev", f->rev);
	f->has_irdord = arg_i(s, "irdord", f->has_irdord);
	f->ird = (uint16_t)arg_i(s, "ird", f->ird);
	f->ord = (uint16_t)arg_i(s, "ord", f->ord);
	f->p2p = arg_i(s, "p2p", f->p2p);
	const iw_arg *rtr = iw_step_arg(s, "rtr");
	if (rtr && rtr->s) {
		f->rtr_send = !strcmp(rtr->s, "send");
		f->rtr_write = !strcmp(rtr->s, "write");
		f->rtr_read = !strcmp(rtr->s, "read");
	}
	if ((a = iw_step_arg(s, "pd"))) {
		f->pd = a->bytes;
		f->pd_len = a->nbytes;
	} else if ((a = iw_step_arg(s, "pd_size"))) {
		if (a->i < 0 || a->i > 1 << 20)
			return herror(x, "line %d: pd_size %lld out of range", s->line, (long long)a->i);
		uint8_t *pd = malloc((size_t)a->i + 1);
		if (!pd)
			return herror(x, "out of memory");
		for (int64_t i = 0; i < a->i; i++)
			pd[i] = (uint8_t)('a' + i % 26);
		f->pd = pd;
		f->pd_len = (size_t)a->i;
		*pd_owned = pd;
	}
	if ((a = iw_step_arg(s, "pd_length"))) {
		f->pd_length_auto = false;
		f->pd_length = (uint16_t)a->i;
	}
	return true;
}

static bool act_send_frame(ctx *x, const iw_step *s, enum iw_mpa_kind kind)
{
	iw_mpa_frame f;
	uint8_t *pd_owned;
	if (!build_frame(x, s, kind, &f, &pd_owned))
		return false;
	size_t cap = iw_mpa_frame_size(&f), len = 0;
	uint8_t *buf = malloc(cap + 1);
	iw_err e;
	bool ok = buf && iw_mpa_frame_encode(&f, buf, cap, &len, &e) == IW_OK;
	if (!ok) {
		free(buf);
		free(pd_owned);
		return herror(x, "line %d: cannot encode the %s: %s", s->line, kind_name(kind), buf ? e.msg : "no memory");
	}
	/* The summary names what went out: an automatic PD_Length is only known once encoded. */
	if (f.pd_length_auto)
		f.pd_length = iw_mpa_frame_pd_length(buf);
	if (kind == IW_MPA_REQUEST && x->o->dut.pd_limit && f.pd_length > x->o->dut.pd_limit &&
	    f.pd_length > x->pd_over_limit)
		x->pd_over_limit = f.pd_length;
	char sum[200];
	frame_summary(&f, sum, sizeof sum);
	iw_result_wire(x->r, IW_TO_DUT, x->h->no, tcase(x), kind == IW_MPA_REPLY ? "reply" : "request", buf, len,
		       "%s %s (%zu octets)", kind_name(kind), sum, len);
	/* Remember what we declared; the decoded copy keeps pointers valid past this call. */
	x->h->sent_frame = f;
	x->h->sent_frame.pd = NULL;
	x->h->sent_frame_valid = true;
	model_feed(x, buf, len);
	ok = send_cut(x, buf, len);
	free(buf);
	free(pd_owned);
	return ok;
}

/* Sets up FPDU framing both ways from the frames exchanged (MPA-6.1.1-M1/M2, C1/C2). */
static void enter_full_operation(ctx *x)
{
	bool m_to_dut = false, m_from_dut = false, crc = true;
	if (x->p->startup_frames) {
		m_to_dut = x->h->got_frame_valid && x->h->got_frame.m;
		m_from_dut = x->h->sent_frame_valid && x->h->sent_frame.m;
		crc = (x->h->sent_frame_valid && x->h->sent_frame.c) || (x->h->got_frame_valid && x->h->got_frame.c);
	} else {
		m_to_dut = m_from_dut = true;
	}
	iw_mpa_tx_init(&x->h->tx, x->p, m_to_dut, crc);
	iw_mpa_rx_init(x->h->rx, x->p, m_from_dut, crc);
	x->h->rx_ready = true;
	x->h->fullop_in_off = x->h->in_cur;
	x->h->fullop_in_valid = true;
	x->h->full_op = true;
	note(x, "full operation: markers to DUT %s, from DUT %s, CRC %s", m_to_dut ? "on" : "off",
	     m_from_dut ? "on" : "off", crc ? "on" : "off");
	/* The built-in DUT is told to ask for markers; any other DUT must be set up to. */
	if ((x->c->needs & IW_CAP_MARKERS) && x->p->startup_frames && x->h->got_frame_valid && !m_to_dut)
		herror(x, "the case needs a DUT that asks for markers, but its frame has M=0 although its configuration "
			  "says markers = yes: set the DUT up to send M=1, or declare markers = no (such cases are "
			  "then skipped)");
}

static bool pattern_ok(const iw_step *s, const char *name, int64_t seen, char *why, size_t cap)
{
	const iw_arg *a = iw_step_arg(s, name);
	if (!a || a->is_pattern_any)
		return true;
	if (a->i == seen)
		return true;
	snprintf(why, cap, "%s=%lld expected, %lld seen", name, (long long)a->i, (long long)seen);
	return false;
}

/* The frame checks are written for the receiver; a frame the DUT sent breaks the sender's rule. */
static const char *sender_req(const char *receiver_req, enum iw_mpa_kind kind)
{
	if (!strcmp(receiver_req, "MPA-6.1.1-07"))
		return "MPA-6.1.1-06";
	if (!strcmp(receiver_req, "MPA-6.1-R5") || !strcmp(receiver_req, "MPA-6.1-R8a"))
		return kind == IW_MPA_REPLY ? "MPA-6.1.1-03" : "MPA-6.1.1-01";
	if (!strcmp(receiver_req, "MPA-6.1-R9a"))
		return "MPA-6.1.1-08";
	return receiver_req;
}

/* Consumes one startup frame of the DUT and judges it. */
static bool exp_frame(ctx *x, const iw_step *s, enum iw_mpa_kind kind)
{
	int64_t deadline = within_deadline(x, s);
	iw_mpa_frame f;
	size_t need = IW_MPA_FRAME_HDR_LEN, flen = 0;
	iw_err e;
	int rc;
	for (;;) {
		pump(x, need, deadline);
		rc = iw_mpa_frame_decode(x->p, x->h->in + x->h->in_cur, avail(x), &f, &flen, &e);
		if (rc != IW_ETRUNC)
			break;
		if (avail(x) >= flen || x->h->fin || x->h->rst || now_us() >= deadline)
			break;
		need = flen;
	}
	const char *req = kind == IW_MPA_REPLY ? "MPA-6.1-R2f" : "MPA-6.1-R1a";
	if (rc == IW_ETRUNC) {
		size_t got = avail(x);
		if (got)
			iw_result_wire(x->r, IW_FROM_DUT, x->h->no, tcase(x), "raw", x->h->in + x->h->in_cur, got,
				       "%zu octets of an incomplete %s", got, kind_name(kind));
		if (got >= IW_MPA_FRAME_HDR_LEN)
			return fail(x, "MPA-6.1.1-08", "the DUT's %s announces PD_Length %u but only %zu octets of private "
				    "data arrived before %s", kind_name(kind), f.pd_length, got - IW_MPA_FRAME_HDR_LEN,
				    x->h->rst ? "a reset" : x->h->fin ? "its FIN" : "the wait ended");
		return fail(x, req, "expected a %s frame; %s after %zu of %zu octets", kind_name(kind),
			    x->h->rst ? "the DUT reset the connection" : x->h->fin ? "the DUT closed (FIN)" : "nothing more arrived",
			    got, flen);
	}
	if (rc != IW_OK)
		return fail(x, req, "expected a %s frame; cannot decode: %s", kind_name(kind), e.msg);
	char sum[200];
	frame_summary(&f, sum, sizeof sum);
	iw_result_wire(x->r, IW_FROM_DUT, x->h->no, tcase(x), kind == IW_MPA_REPLY ? "reply" : "request",
		       x->h->in + x->h->in_cur, flen, "%s %s (%zu octets)", kind_name(kind), sum, flen);
	x->h->got_frame = f;
	x->h->got_frame.pd = NULL;
	x->h->got_frame_valid = true;
	x->h->in_cur += flen;
	/* The frame must be one a conforming peer sends (MPA-6.1.1-*). */
	iw_violation vs[16];
	iw_viol_list l = {.v = vs, .cap = 16};
	iw_mpa_frame_check(x->p, &f, kind, &l);
	if (l.n)
		return fail(x, sender_req(vs[0].req, kind), "the DUT's %s is not one a conforming %s sends: %s (seen: %s)",
			    kind_name(kind), kind == IW_MPA_REPLY ? "responder" : "initiator", vs[0].detail, sum);
	char why[128];
	const iw_arg *k = iw_step_arg(s, "key");
	if (k && !k->is_pattern_any) {
		const uint8_t *want = k->type == IW_ARG_WORD ? iw_mpa_key(strcmp(k->s, "reply") ? IW_MPA_REQUEST : IW_MPA_REPLY)
							     : k->bytes;
		if ((k->type != IW_ARG_WORD && k->nbytes != IW_MPA_KEY_LEN) || memcmp(f.key, want, IW_MPA_KEY_LEN))
			return fail(x, kind == IW_MPA_REPLY ? "MPA-6.1.1-03" : "MPA-6.1.1-01",
				    "the %s key differs from the expected one (seen: %s)", kind_name(kind), sum);
	}
	static const struct { const char *name; const char *req; } fields[] = {
		{"m", "MPA-6.1.1-M1"}, {"c", "MPA-5.2-03"}, {"r", "MPA-6.1.1-R1"}, {"res", "MPA-6.1.1-05"},
		{"enhanced", "MPA-6.1.1-05"}, {"rev", "MPA-6.1.1-06"}, {"pd_length", "MPA-6.1.1-08"},
		{"ird", "MPA-6.1.1-08"}, {"ord", "MPA-6.1.1-08"}, {"p2p", "MPA-6.1.1-08"},
	};
	int64_t vals[] = {f.m, f.c, f.r, f.res, f.enhanced, f.rev, f.pd_length, f.ird, f.ord, f.p2p};
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
		if (!pattern_ok(s, fields[i].name, vals[i], why, sizeof why))
			return fail(x, fields[i].req, "%s: %s (seen: %s)", kind_name(kind), why, sum);
	const iw_arg *pd = iw_step_arg(s, "pd");
	if (pd && !pd->is_pattern_any && (pd->nbytes != f.pd_len || memcmp(pd->bytes, f.pd, f.pd_len)))
		return fail(x, "MPA-6.1-R9c", "%s private data differs from the expected %zu octets (seen %zu octets)",
			    kind_name(kind), pd->nbytes, f.pd_len);
	/* A DUT that chose other M or C bits than the model's own frame: the model follows it,
	 * so it frames what the harness sends next the way the DUT reads it. */
	if ((f.m != x->h->model_m || f.c != x->h->model_c) && !x->h->pre_lost)
		model_make(x, x->h, f.m, f.c);
	if (x->h->sent_frame_valid || !x->p->startup_frames || kind == IW_MPA_REPLY)
		if (!f.r)
			enter_full_operation(x);
	return true;
}

/* ---- FPDUs ---- */

static const struct {
	const char *word;
	unsigned opcode;
	bool tagged;
	int qn;
} msg_types[] = {
	{"send", IW_OP_SEND, false, IW_QN_SEND},
	{"send_se", IW_OP_SEND_SE, false, IW_QN_SEND},
	{"send_inv", IW_OP_SEND_INV, false, IW_QN_SEND},
	{"write", IW_OP_WRITE, true, -1},
	{"read_req", IW_OP_READ_REQ, false, IW_QN_READ_REQ},
	{"read_resp", IW_OP_READ_RESP, true, -1},
	{"terminate", IW_OP_TERMINATE, false, IW_QN_TERMINATE},
	{"ddp", IW_OP_SEND, false, IW_QN_SEND},
};

static int layer_value(const iw_arg *a)
{
	if (!a)
		return -1;
	if (a->type == IW_ARG_WORD && a->s) {
		if (!strcmp(a->s, "rdmap"))
			return IW_LAYER_RDMAP;
		if (!strcmp(a->s, "ddp"))
			return IW_LAYER_DDP;
		if (!strcmp(a->s, "llp"))
			return IW_LAYER_LLP;
		return -2;
	}
	return (int)a->i;
}

/* The octet pattern `send <msg> size=N` sends, so `expect <msg> size=N` can check an echo;
 * with fill=V every octet is V instead. */
static uint8_t size_pattern(size_t i) { return (uint8_t)(i * 7 + 3); }

static uint8_t payload_octet(const iw_step *s, size_t i)
{
	const iw_arg *f = iw_step_arg(s, "fill");
	return f && !f->is_pattern_any ? (uint8_t)f->i : size_pattern(i);
}

/* Where markers fall in an FPDU of `body` octets (length field to CRC, markers excluded) that
 * starts at stream offset start: before which body octet each marker sits, and whether the FPDU
 * ends exactly on a marker boundary (MPA-5.1-04: that marker belongs to the next FPDU). */
static size_t marker_offsets(uint64_t start, size_t body, size_t *at, size_t cap, bool *ends_on_boundary)
{
	uint64_t pos = start;
	size_t k = 0, n = 0;
	for (;;) {
		if (pos % 512 == 0 && k < body) {
			if (n < cap)
				at[n] = k;
			n++;
			pos += 4;
		}
		if (k >= body)
			break;
		size_t take = (size_t)(512 - pos % 512);
		if (take > body - k)
			take = body - k;
		pos += take;
		k += take;
	}
	*ends_on_boundary = pos % 512 == 0;
	return n;
}

/* marker_at=start|crc|end asserts where the harness's markers fall in the FPDU about to be sent,
 * so a case that means "a marker between the pad and the CRC" cannot silently test something
 * else; the message names the payload sizes that would do. */
static bool check_marker_at(ctx *x, const iw_step *s, size_t ulpdu_len, size_t payload_len)
{
	const iw_arg *a = iw_step_arg(s, "marker_at");
	if (!a || !a->s)
		return true;
	if (!x->h->tx.markers)
		return herror(x, "line %d: marker_at=%s, but the harness sends no markers on this connection (the DUT's "
			      "frame has M=0: add `needs: markers`)", s->line, a->s);
	size_t body = 2 + ulpdu_len + iw_mpa_pad_len(ulpdu_len) + 4;
	size_t at[IW_FPDU_MAX_MARKERS];
	bool ends;
	size_t n = marker_offsets(x->h->tx.pos, body, at, IW_FPDU_MAX_MARKERS, &ends);
	bool ok = false;
	for (size_t i = 0; i < n && i < IW_FPDU_MAX_MARKERS; i++)
		if ((!strcmp(a->s, "start") && at[i] == 0) || (!strcmp(a->s, "crc") && at[i] == body - 4))
			ok = true;
	if (!strcmp(a->s, "end"))
		ok = ends;
	if (ok)
		return true;
	char sizes[96] = "";
	size_t o = 0, found = 0;
	for (size_t p = payload_len > 600 ? payload_len - 600 : 0; p < payload_len + 600 && found < 4; p++) {
		size_t ul = ulpdu_len - payload_len + p, b = 2 + ul + iw_mpa_pad_len(ul) + 4;
		size_t m = marker_offsets(x->h->tx.pos, b, at, IW_FPDU_MAX_MARKERS, &ends);
		bool hit = !strcmp(a->s, "end") && ends;
		for (size_t i = 0; i < m && i < IW_FPDU_MAX_MARKERS; i++)
			hit |= (!strcmp(a->s, "start") && at[i] == 0) || (!strcmp(a->s, "crc") && at[i] == b - 4);
		if (hit && o < sizeof sizes)
			o += (size_t)snprintf(sizes + o, sizeof sizes - o, "%s%zu", found++ ? ", " : "", p);
	}
	return herror(x, "line %d: marker_at=%s does not hold: this FPDU starts at stream offset %llu with a payload "
		      "of %zu octets (payloads that would do: %s)", s->line, a->s, (unsigned long long)x->h->tx.pos,
		      payload_len, found ? sizes : "none near");
}

/* A TO a case names for the reflector's buffer is an offset from the base TO it advertised
 * (docs/case-language.md): devices register at a virtual address (siw ignores a requested
 * zero base). Offsets that would pass 2^64 from that base stay as written: they are the TO-wrap
 * stimuli (to=0xfffffffffffffff8), which need the absolute value. `buf` is the connection whose
 * greeting named the buffer, NULL when the case gave its own STag. */
static uint64_t buffer_to(const hconn *buf, uint64_t to)
{
	if (!buf || !buf->have_adv || to > UINT64_MAX - buf->adv_to)
		return to;
	return buf->adv_to + to;
}

static bool act_send_fpdu(ctx *x, const iw_step *s)
{
	if (!x->h->full_op) {
		if (x->p->startup_frames && !x->h->sent_frame_valid)
			return herror(x, "line %d: an FPDU before any startup frame: send a Request or Reply first", s->line);
		enter_full_operation(x);
	}
	/* first_fpdu_delay: a declared workaround for a responder that loses an FPDU arriving right
	 * after its Reply (docs/dut-config.md); MPA itself lets the initiator send at once. */
	if (!x->h->sent_fpdu && x->dut_role == IW_ROLE_RESPONDER && x->o->dut.first_fpdu_delay_ms > 0 &&
	    x->p->startup_frames) {
		note(x, "first_fpdu_delay: waiting %lld ms after the Reply before the first FPDU",
		     (long long)x->o->dut.first_fpdu_delay_ms);
		sleep_ms(x->o->dut.first_fpdu_delay_ms);
	}
	x->h->sent_fpdu = true;
	size_t ti = 0;
	while (ti < sizeof msg_types / sizeof msg_types[0] && strcmp(msg_types[ti].word, s->word))
		ti++;
	if (ti == sizeof msg_types / sizeof msg_types[0])
		return herror(x, "line %d: unknown message '%s'", s->line, s->word);
	/* stag_of=N: the STag connection N's reflector advertised (another stream's STag, DDP-10.3). */
	const hconn *adv_of = NULL;
	if (iw_step_arg(s, "stag_of")) {
		int64_t n = arg_i(s, "stag_of", 1);
		if (n < 1 || n > x->nconns || !x->conns[n - 1].have_adv)
			return herror(x, "line %d: stag_of=%lld: connection %lld has not received the reflector's greeting",
				      s->line, (long long)n, (long long)n);
		adv_of = &x->conns[n - 1];
	}
	/* The message body. */
	uint8_t body_fixed[64];
	const uint8_t *body = NULL;
	size_t body_len = 0;
	uint8_t *owned = NULL;
	const iw_arg *a;
	if (msg_types[ti].opcode == IW_OP_READ_REQ && strcmp(s->word, "ddp")) {
		iw_read_req rr = {
			.sink_stag = (uint32_t)arg_i(s, "sink_stag", 0x2000), .sink_to = (uint64_t)arg_i(s, "sink_to", 0),
			.size = (uint32_t)arg_i(s, "rsize", 0),
			.src_stag = adv_of ? adv_of->adv_stag
					   : (uint32_t)arg_i(s, "src_stag", x->h->have_adv ? x->h->adv_stag : 0x1000),
			.src_to = buffer_to(adv_of ? adv_of : iw_step_arg(s, "src_stag") ? NULL : x->h,
					    (uint64_t)arg_i(s, "src_to", 0)),
		};
		iw_read_req_encode(&rr, body_fixed);
		body = body_fixed;
		body_len = IW_RDMAP_READ_REQ_LEN;
	} else if (msg_types[ti].opcode == IW_OP_TERMINATE && strcmp(s->word, "ddp")) {
		iw_terminate t;
		int layer = layer_value(iw_step_arg(s, "layer"));
		iw_terminate_for(&t, layer < 0 ? IW_LAYER_RDMAP : layer, (int)arg_i(s, "etype", 0),
				 (int)arg_i(s, "ecode", 0), NULL, 0);
		iw_err e;
		if (iw_terminate_encode(&t, body_fixed, sizeof body_fixed, &body_len, &e))
			return herror(x, "line %d: cannot encode the Terminate: %s", s->line, e.msg);
		body = body_fixed;
	}
	if ((a = iw_step_arg(s, "data"))) {
		body = a->bytes;
		body_len = a->nbytes;
	} else if ((a = iw_step_arg(s, "size"))) {
		if (a->i < 0 || a->i > 16 << 20)
			return herror(x, "line %d: size %lld out of range", s->line, (long long)a->i);
		owned = malloc((size_t)a->i + 1);
		if (!owned)
			return herror(x, "out of memory");
		for (int64_t i = 0; i < a->i; i++)
			owned[i] = payload_octet(s, (size_t)i);
		body = owned;
		body_len = (size_t)a->i;
	}
	/* The DDP header template. */
	iw_ddp_hdr h;
	memset(&h, 0, sizeof h);
	h.tagged = arg_i(s, "tagged", msg_types[ti].tagged);
	h.dv = (uint8_t)arg_i(s, "dv", x->p->ddp_version);
	h.rsvd = (uint8_t)arg_i(s, "rsvd", 0);
	unsigned opcode = (unsigned)arg_i(s, "opcode", msg_types[ti].opcode);
	h.rsvdulp[0] = iw_rdmap_ctrl((unsigned)arg_i(s, "rv", x->p->rdmap_version), opcode);
	if ((a = iw_step_arg(s, "rsvdulp")) && a->nbytes) {
		size_t n = a->nbytes > 5 ? 5 : a->nbytes;
		memcpy(h.rsvdulp, a->bytes, n);
	}
	if ((a = iw_step_arg(s, "inv_stag")))
		iw_rdmap_set_rsvd_word(&h, (uint32_t)a->i);
	h.stag = (uint32_t)arg_i(s, "stag", x->h->have_adv ? x->h->adv_stag : 0x1000);
	if (adv_of)
		h.stag = adv_of->adv_stag;
	h.to = buffer_to(adv_of ? adv_of : iw_step_arg(s, "stag") ? NULL : x->h, (uint64_t)arg_i(s, "to", 0));
	int qn = msg_types[ti].qn < 0 ? 0 : msg_types[ti].qn;
	h.qn = (uint32_t)arg_i(s, "qn", qn);
	uint32_t auto_msn = h.qn < 4 ? x->h->msn[h.qn] : 1;
	h.msn = (uint32_t)arg_i(s, "msn", auto_msn);
	/* Only untagged messages take an MSN (DDP-6.3-08); a Write leaves QN 0's sequence alone. */
	if (!iw_step_arg(s, "msn") && h.qn < 4 && !h.tagged)
		x->h->msn[h.qn]++;
	/* Segments: by mulpdu (default: one segment) in the given order. */
	size_t mulpdu = (size_t)arg_i(s, "mulpdu", 65535);
	iw_ddp_segmenter seg;
	iw_err e;
	if (iw_ddp_seg_init(&seg, &h, body_len, mulpdu, &e)) {
		free(owned);
		return herror(x, "line %d: %s", s->line, e.msg);
	}
	struct { iw_ddp_hdr h; size_t off, len; } segs[64];
	size_t nseg = 0;
	while (nseg < 64 && iw_ddp_seg_next(&seg, &segs[nseg].h, &segs[nseg].off, &segs[nseg].len))
		nseg++;
	const iw_arg *ord = iw_step_arg(s, "order");
	size_t order[64];
	size_t norder = nseg;
	for (size_t i = 0; i < nseg; i++)
		order[i] = i;
	if (ord) {
		norder = ord->nlist;
		for (size_t i = 0; i < norder; i++) {
			if (ord->list[i] < 0 || (size_t)ord->list[i] >= nseg) {
				free(owned);
				return herror(x, "line %d: order names segment %lld; the message has %zu", s->line,
					      (long long)ord->list[i], nseg);
			}
			order[i] = (size_t)ord->list[i];
		}
	}
	iw_fpdu_mods mods;
	memset(&mods, 0, sizeof mods);
	if ((a = iw_step_arg(s, "length")))
		mods.set_length = true, mods.ulpdu_length = (uint16_t)a->i;
	if ((a = iw_step_arg(s, "crc")))
		mods.set_crc = true, mods.crc_value = (uint32_t)a->i;
	if ((a = iw_step_arg(s, "crc_order")) && a->s && !strcmp(a->s, "be"))
		mods.crc_big_endian = true;
	mods.crc_xor = (uint32_t)arg_i(s, "crc_xor", 0);
	if ((a = iw_step_arg(s, "corrupt")))
		mods.corrupt = true, mods.corrupt_at = (size_t)a->i;
	mods.pad_fill = (uint8_t)arg_i(s, "pad_fill", 0);
	mods.marker_reserved = (uint16_t)arg_i(s, "marker_reserved", 0);
	mods.fpduptr_or = (uint16_t)arg_i(s, "fpduptr_or", 0);
	mods.fpduptr_delta = (int32_t)arg_i(s, "fpduptr_delta", 0);
	mods.no_markers = arg_i(s, "no_markers", 0);
	bool ok = true;
	for (size_t k = 0; ok && k < norder; k++) {
		const iw_ddp_hdr *sh = &segs[order[k]].h;
		iw_ddp_hdr hh = *sh;
		if (iw_step_arg(s, "last"))
			hh.last = arg_i(s, "last", hh.last);
		if (iw_step_arg(s, "mo"))
			hh.mo = (uint32_t)arg_i(s, "mo", hh.mo);
		uint8_t hb[IW_DDP_UNTAGGED_HDR_LEN];
		size_t hl = 0;
		iw_ddp_hdr_encode(&hh, hb, sizeof hb, &hl, &e);
		size_t plen = segs[order[k]].len;
		const uint8_t *pl = body ? body + segs[order[k]].off : NULL;
		if (k == 0 && !check_marker_at(x, s, hl + plen, plen)) {
			free(owned);
			return false;
		}
		/* What a Terminate reporting this segment attaches (RFC 5040 §4.8). */
		memcpy(x->h->last_hdr, hb, hl);
		x->h->last_hdr_len = hl;
		x->h->last_ulpdu_len = hl + plen;
		if (!hh.tagged && hh.qn == IW_QN_READ_REQ && plen == IW_RDMAP_READ_REQ_LEN && pl) {
			memcpy(x->h->last_rr, pl, IW_RDMAP_READ_REQ_LEN);
			x->h->have_last_rr = true;
		}
		size_t cap = iw_mpa_tx_size(&x->h->tx, hl + plen) + 16;
		uint8_t *out = malloc(cap);
		size_t outlen = 0;
		/* cut=N: the ULPDU is its first N octets, framed as a valid FPDU (A9: shorter than a DDP header). */
		const iw_arg *cut = iw_step_arg(s, "cut");
		size_t chl = hl, cpl = plen;
		if (cut && (size_t)cut->i < hl + plen) {
			chl = (size_t)cut->i < hl ? (size_t)cut->i : hl;
			cpl = (size_t)cut->i - chl;
		}
		if (!out || iw_mpa_tx_fpdu(&x->h->tx, hb, chl, cpl ? pl : NULL, cpl, &mods, out, cap, &outlen, &e)) {
			free(out);
			ok = herror(x, "line %d: cannot build the FPDU: %s", s->line, out ? e.msg : "no memory");
			break;
		}
		if (hh.tagged)
			iw_result_wire(x->r, IW_TO_DUT, x->h->no, tcase(x), "fpdu", out, outlen,
				       "FPDU %s: DDP tagged L=%d DV=%u STag=0x%x TO=0x%llx, %zu payload octets%s", s->word,
				       hh.last, hh.dv, hh.stag, (unsigned long long)hh.to, plen,
				       mods.crc_xor || mods.corrupt || mods.crc_big_endian || mods.set_crc ? " (CRC defect)" : "");
		else
			iw_result_wire(x->r, IW_TO_DUT, x->h->no, tcase(x), "fpdu", out, outlen,
				       "FPDU %s: DDP untagged L=%d DV=%u QN=%u MSN=%u MO=%u, %zu payload octets%s", s->word,
				       hh.last, hh.dv, hh.qn, hh.msn, hh.mo, plen,
				       mods.crc_xor || mods.corrupt || mods.crc_big_endian || mods.set_crc ? " (CRC defect)" : "");
		model_feed(x, out, outlen);
		ok = send_cut(x, out, outlen);
		free(out);
	}
	free(owned);
	return ok;
}

static bool act_send_raw(ctx *x, const iw_step *s)
{
	const iw_arg *a = iw_step_arg(s, "data");
	if (!a)
		return herror(x, "line %d: send raw needs data", s->line);
	iw_result_wire(x->r, IW_TO_DUT, x->h->no, tcase(x), "raw", a->bytes, a->nbytes, "%zu raw octets", a->nbytes);
	model_feed(x, a->bytes, a->nbytes);
	if (x->h->full_op)
		iw_mpa_tx_skip(&x->h->tx, a->nbytes);
	return send_cut(x, a->bytes, a->nbytes);
}

/* When the DUT's stream fails to decode, tells whether it decodes with the opposite marker
 * setting: then the fault is the DUT's marker negotiation, not its CRC (MPA-6.1.1-M1/M2). */
static bool decodes_with_markers(ctx *x, bool markers)
{
	if (!x->h->fullop_in_valid || x->h->fullop_in_off > x->h->in_len)
		return false;
	iw_mpa_rx *alt = malloc(sizeof *alt);
	iw_fpdu *fp = malloc(sizeof *fp);
	bool ok = false;
	if (alt && fp) {
		iw_mpa_rx_init(alt, x->p, markers, x->h->rx->crc);
		const uint8_t *b = x->h->in + x->h->fullop_in_off;
		size_t n = x->h->in_len - x->h->fullop_in_off, nf = 0;
		while (n) {
			size_t used = 0;
			iw_violation v;
			enum iw_rx_status st = iw_mpa_rx_push(alt, b, n, &used, fp, &v);
			b += used;
			n -= used;
			if (st == IW_RX_ERROR)
				break;
			if (st == IW_RX_FPDU)
				nf++;
			if (st == IW_RX_NEED_MORE)
				break;
		}
		ok = nf > 0 && !alt->failed;
	}
	free(alt);
	free(fp);
	return ok;
}

/* Reads the next complete FPDU of the DUT; false with a failure recorded when none comes. */
static bool next_fpdu(ctx *x, int64_t deadline, iw_fpdu *fp, const char *req_ctx)
{
	if (!x->h->rx_ready) {
		if (x->p->startup_frames && !(x->h->sent_frame_valid && x->h->got_frame_valid))
			return herror(x, "expecting an FPDU before the startup frames were exchanged");
		enter_full_operation(x);
	}
	for (;;) {
		if (avail(x)) {
			size_t used = 0;
			iw_violation err;
			uint64_t before = x->h->rx->pos;
			enum iw_rx_status st = iw_mpa_rx_push(x->h->rx, x->h->in + x->h->in_cur, avail(x), &used, fp, &err);
			(void)before;
			x->h->in_cur += used;
			if (st == IW_RX_FPDU) {
				const uint8_t *wire = x->h->in + x->h->in_cur - (used < fp->wire_len ? used : fp->wire_len);
				char ddp[160] = "";
				iw_rdmap_msg m;
				iw_violation v;
				bool parsed = iw_rdmap_parse(x->p, fp->ulpdu, fp->ulpdu_length, &m, &v);
				if (!parsed)
					snprintf(ddp, sizeof ddp, ": %.150s", v.detail);
				else if (m.ddp.tagged)
					snprintf(ddp, sizeof ddp, ": %s, DDP tagged L=%d STag=0x%x TO=0x%llx, %zu payload octets",
						 iw_rdmap_op(m.opcode)->name, m.ddp.last, m.ddp.stag,
						 (unsigned long long)m.ddp.to, m.payload_len);
				else
					snprintf(ddp, sizeof ddp, ": %s, DDP untagged L=%d QN=%u MSN=%u MO=%u, %zu payload octets",
						 iw_rdmap_op(m.opcode)->name, m.ddp.last, m.ddp.qn, m.ddp.msn, m.ddp.mo,
						 m.payload_len);
				/* A Terminate's error code is the field a wrong code blames (report.html). */
				iw_terminate term;
				if (parsed && m.opcode == IW_OP_TERMINATE && !m.ddp.tagged &&
				    iw_terminate_decode(m.payload, m.payload_len, &term, NULL) == IW_OK) {
					size_t dl = strlen(ddp);
					snprintf(ddp + dl, sizeof ddp - dl, ", Code=%d/0x%x/0x%02x", term.layer, term.etype,
						 term.ecode);
				}
				iw_result_wire(x->r, IW_FROM_DUT, x->h->no, tcase(x), "fpdu", wire,
					       used < fp->wire_len ? used : fp->wire_len,
					       "FPDU at %llu: ULPDU_Length=%u markers=%zu CRC %s%s", (unsigned long long)fp->start,
					       fp->ulpdu_length, fp->nmarkers, fp->crc_checked ? "valid" : "not checked", ddp);
				if (fp->notes & IW_NOTE_PAD_NONZERO)
					return fail(x, "MPA-4-02", "the DUT's FPDU at %llu has non-zero pad octets",
						    (unsigned long long)fp->start);
				if (fp->notes & IW_NOTE_MARKER_RESERVED)
					return fail(x, "MPA-4.1-02", "a DUT marker in the FPDU at %llu has RESERVED set",
						    (unsigned long long)fp->start);
				if (fp->notes & IW_NOTE_FPDUPTR_LOWBITS)
					return fail(x, "MPA-5.1-05", "a DUT marker in the FPDU at %llu has FPDUPTR low bits set",
						    (unsigned long long)fp->start);
				x->h->dut_markers += fp->nmarkers;
				return true;
			}
			if (st == IW_RX_ERROR) {
				/* The octets that do not decode, so the report can show (and point at) them. */
				size_t from = x->h->in_cur - used, shown = used + avail(x) < 512 ? used + avail(x) : 512;
				iw_result_wire(x->r, IW_FROM_DUT, x->h->no, tcase(x), "raw", x->h->in + from, shown,
					       "%zu octets that do not decode as an FPDU (stream offset %llu)", shown,
					       (unsigned long long)err.offset);
			}
			if (st == IW_RX_ERROR && decodes_with_markers(x, !x->h->rx->markers))
				return fail(x, x->h->rx->markers ? "MPA-6.1.1-M2" : "MPA-6.1.1-M1",
					    "%s: the DUT's FPDUs %s markers: they decode only %s them (%s)", req_ctx,
					    x->h->rx->markers ? "lack the requested" : "carry unrequested",
					    x->h->rx->markers ? "without" : "with", err.detail);
			if (st == IW_RX_ERROR) {
				/* The decoder speaks for a receiver; what the DUT broke is the sender's rule. */
				const char *req = err.ecode == IW_MPA_E_CRC ? "MPA-5.2-11"
						  : err.ecode == IW_MPA_E_MARKER ? "MPA-5.1-03" : err.req;
				uint32_t c = fp->crc_computed;
				uint32_t swapped = c >> 24 | (c >> 8 & 0xff00u) | (c << 8 & 0xff0000u) | c << 24;
				bool be = err.ecode == IW_MPA_E_CRC && fp->crc_received == swapped;
				return fail(x, req, "%s: the DUT's stream is invalid at offset %llu: %s [%s]%s", req_ctx,
					    (unsigned long long)err.offset, err.detail,
					    iw_error_name(err.layer, err.etype, err.ecode),
					    be ? " (the DUT sent its CRC most-significant octet first; A1: least-significant first)" : "");
			}
			continue;
		}
		if (x->h->fin || x->h->rst)
			return fail(x, NULL, "%s: expected an FPDU, the DUT %s", req_ctx,
				    x->h->rst ? "reset the connection" : "closed the connection (FIN)");
		if (now_us() >= deadline)
			return fail(x, NULL, "%s: expected an FPDU, nothing arrived in time", req_ctx);
		pump(x, avail(x) + 1, deadline);
	}
}

static bool code_matches(ctx *x, const iw_step *s, const iw_terminate *t, char *why, size_t cap)
{
	int layer = layer_value(iw_step_arg(s, "layer"));
	int etype = (int)arg_i(s, "etype", -1), ecode = (int)arg_i(s, "ecode", -1);
	bool ok = (layer < 0 || layer == t->layer) && (etype < 0 || etype == t->etype) && (ecode < 0 || ecode == t->ecode);
	if (ok)
		return true;
	/* A DUT configuration may map the spec's code to the one this DUT sends. */
	for (size_t i = 0; i < x->o->dut.nmaps; i++) {
		const iw_code_map *m = &x->o->dut.maps[i];
		if ((layer < 0 || m->from.layer == layer) && (etype < 0 || m->from.etype == etype) &&
		    (ecode < 0 || m->from.ecode == ecode) && m->to.layer == t->layer && m->to.etype == t->etype &&
		    m->to.ecode == t->ecode) {
			if (x->r->nmappings < 4)
				snprintf(x->r->mappings[x->r->nmappings++], sizeof x->r->mappings[0],
					 "%d/%d/0x%02x accepted for %d/%d/0x%02x: %s", t->layer, t->etype, t->ecode,
					 m->from.layer, m->from.etype, m->from.ecode, m->reason);
			return true;
		}
	}
	char want[128];
	snprintf(want, sizeof want, "%s", layer >= 0 && etype >= 0 && ecode >= 0 ? iw_error_name(layer, etype, ecode)
										 : "(pattern)");
	snprintf(why, cap, "expected Terminate %s, seen %s", want, iw_error_name(t->layer, t->etype, t->ecode));
	return false;
}

#define MSG_MAX (16u << 20)

/* One DDP message of the DUT, reassembled from its segments, each segment checked against the
 * data source rules: DV and reserved bits (DDP-6.1-08/09), ULPDU size (MPA-3.2-04), MO or TO
 * progression (DDP-7.2-05/07), constant QN/MSN/STag and RsvdULP (DDP-6.3-04/07/11, DDP-6.2-04/08),
 * L only on the last segment (DDP-6.1-03/04). */
typedef struct dut_msg {
	iw_ddp_hdr first;
	unsigned rv, opcode;
	uint8_t *data;
	size_t len;
	size_t nseg;
	bool first_marker;          /* its first FPDU begins with a marker (FPDUPTR 0) */
	uint64_t first_start;       /* stream offset of its first FPDU */
	size_t markers;             /* markers inside its FPDUs, each FPDUPTR checked */
	uint16_t max_ulpdu;
} dut_msg;

static bool read_message(ctx *x, int64_t deadline, const char *what, dut_msg *dm, iw_fpdu *fp)
{
	memset(dm, 0, sizeof *dm);
	for (;;) {
		if (!next_fpdu(x, deadline, fp, what))
			return false;
		iw_rdmap_msg m;
		iw_violation v;
		if (!iw_rdmap_parse(x->p, fp->ulpdu, fp->ulpdu_length, &m, &v))
			return fail(x, v.req, "%s: the DUT sent an invalid RDMAP message: %s", what, v.detail);
		if (m.ddp.dv != x->p->ddp_version)
			return fail(x, "DDP-6.1-09", "%s: the DUT's DDP version is %u, %u required", what, m.ddp.dv,
				    x->p->ddp_version);
		if (m.ddp.rsvd)
			return fail(x, "DDP-6.1-08", "%s: the DUT set DDP reserved bits 0x%x", what, m.ddp.rsvd);
		if (fp->ulpdu_length > IW_MPA_MULPDU_MAX)
			return fail(x, "MPA-3.2-04", "%s: the DUT sent a ULPDU of %u octets, more than 64768", what,
				    fp->ulpdu_length);
		/* MULPDU for the connection's EMSS, clamped to [128, 64768] (MPA-3.2-03, A7). */
		if (x->h->mss && fp->ulpdu_length > iw_mulpdu(x->h->mss, x->h->rx->markers))
			return fail(x, x->h->rx->markers ? "MPA-5.3.2-01" : "MPA-5.3.2-02",
				    "%s: the DUT sent a ULPDU of %u octets; MULPDU for EMSS %u %s markers is %u", what,
				    fp->ulpdu_length, x->h->mss, x->h->rx->markers ? "with" : "without",
				    iw_mulpdu(x->h->mss, x->h->rx->markers));
		if (dm->nseg == 0) {
			dm->first = m.ddp;
			dm->rv = m.rv;
			dm->opcode = m.opcode;
			dm->first_marker = fp->nmarkers && fp->markers[0].pos == fp->start;
			dm->first_start = fp->start;
			/* DDP-6.3-08/09: each queue's MSNs start at 1 and go up by one per message. */
			if (!m.ddp.tagged && m.ddp.qn < 3) {
				uint32_t want = x->h->dut_msn[m.ddp.qn];
				if (m.ddp.msn != want)
					return fail(x, want == 1 ? "DDP-6.3-09" : "DDP-6.3-08",
						    "%s: the DUT's %s on QN %u has MSN %u, %u expected (%s)", what,
						    iw_rdmap_op(m.opcode)->name, m.ddp.qn, m.ddp.msn, want,
						    want == 1 ? "the first MSN is 1" : "one more than the previous message's");
				x->h->dut_msn[m.ddp.qn] = want + 1;
			}
			/* RFC 5040: a Send's RsvdULP after the control octet is reserved, sent as zero. */
			if ((m.opcode == IW_OP_SEND || m.opcode == IW_OP_SEND_SE || m.opcode == IW_OP_TERMINATE ||
			     m.opcode == IW_OP_READ_REQ) &&
			    iw_rdmap_rsvd_word(&m.ddp))
				return fail(x, "DDP-6.3-02", "%s: the DUT's %s has RDMAP reserved word 0x%08x in DDP header octets 2-5",
					    what, iw_rdmap_op(m.opcode)->name, iw_rdmap_rsvd_word(&m.ddp));
		} else if (m.ddp.tagged != dm->first.tagged || m.opcode != dm->opcode) {
			return fail(x, "DDP-6.1-03", "%s: a new %s began before the DUT's %s ended with L=1", what,
				    iw_rdmap_op(m.opcode)->name, iw_rdmap_op(dm->opcode)->name);
		} else if (m.ddp.tagged) {
			if (m.ddp.stag != dm->first.stag)
				return fail(x, "DDP-6.2-08", "%s: STag changed within a message (0x%x then 0x%x)", what,
					    dm->first.stag, m.ddp.stag);
			if (m.ddp.to != dm->first.to + dm->len)
				return fail(x, "DDP-7.2-07", "%s: segment TO 0x%llx, expected initial TO + %zu = 0x%llx", what,
					    (unsigned long long)m.ddp.to, dm->len, (unsigned long long)(dm->first.to + dm->len));
			if (m.ddp.rsvdulp[0] != dm->first.rsvdulp[0])
				return fail(x, "DDP-6.2-04", "%s: RsvdULP changed within a tagged message", what);
		} else {
			if (m.ddp.qn != dm->first.qn)
				return fail(x, "DDP-6.3-07", "%s: QN changed within a message (%u then %u)", what,
					    dm->first.qn, m.ddp.qn);
			if (m.ddp.msn != dm->first.msn)
				return fail(x, "DDP-6.3-11", "%s: MSN changed within a message (%u then %u)", what,
					    dm->first.msn, m.ddp.msn);
			if (memcmp(m.ddp.rsvdulp, dm->first.rsvdulp, 5))
				return fail(x, "DDP-6.3-04", "%s: RsvdULP changed within an untagged message", what);
		}
		if (!m.ddp.tagged && m.ddp.mo != dm->len)
			return fail(x, "DDP-7.2-05", "%s: segment %zu has MO %u, expected %zu (the octets before it)", what,
				    dm->nseg + 1, m.ddp.mo, dm->len);
		if (dm->len + m.payload_len > MSG_MAX)
			return fail(x, NULL, "%s: the DUT's message grows past %u octets without L=1", what, MSG_MAX);
		uint8_t *nd = realloc(dm->data, dm->len + m.payload_len + 1);
		if (!nd)
			return herror(x, "out of memory");
		dm->data = nd;
		memcpy(dm->data + dm->len, m.payload, m.payload_len);
		dm->len += m.payload_len;
		dm->nseg++;
		dm->markers += fp->nmarkers;
		if (fp->ulpdu_length > dm->max_ulpdu)
			dm->max_ulpdu = fp->ulpdu_length;
		if (m.ddp.last)
			return true;
	}
}

/* A message the DUT cut into segments on a connection whose MSS the case chose (TR-17): its
 * largest ULPDU shows the MULPDU it used. Where the formula falls below 128, ULPDUs below 128
 * mean the floor was lost (MPA-5.3.2-05, MUST NOT); otherwise ULPDUs below MULPDU are only
 * smaller than they could be (MPA-5.3.2-04, SHOULD: DDP may post any size, MPA-3.2-05). */
static bool mulpdu_used(ctx *x, const dut_msg *dm)
{
	bool markers = x->h->rx->markers;
	uint32_t want = iw_mulpdu(x->h->mss, markers);
	note(x, "the DUT's message in %zu segments, largest ULPDU %u; MULPDU for EMSS %u %s markers is %u", dm->nseg,
	     dm->max_ulpdu, x->h->mss, markers ? "with" : "without", want);
	if (dm->max_ulpdu < IW_MPA_MULPDU_MIN && iw_mulpdu_formula(x->h->mss, markers) < IW_MPA_MULPDU_MIN)
		return fail(x, "MPA-5.3.2-05", "the DUT cut a message into ULPDUs of at most %u octets: MULPDU never "
			    "goes below %u, even for EMSS %u", dm->max_ulpdu, IW_MPA_MULPDU_MIN, x->h->mss);
	if (dm->max_ulpdu < want)
		return fail(x, "MPA-5.3.2-04", "the DUT cut a message into ULPDUs of at most %u octets; MULPDU for EMSS "
			    "%u is %u, and ULPDUs should be as large as it allows", dm->max_ulpdu, x->h->mss, want);
	return true;
}

/* What an explicit expectation covers is not judged again by a later `expect as-model`. */
static void model_discard(ctx *x)
{
	hconn *h = x->h;
	for (size_t i = 0; i < h->nmev; i++)
		free(h->mev[i].data);
	h->nmev = 0;
	iw_conn_event ev;
	while (h->model_full && h->model && iw_conn_next_event(h->model, &ev))
		;
}

/* The Terminate's attached headers (RFC 5040 §4.8) are those of the harness's segment at fault:
 * hdr=1 asks for the DDP header of the last FPDU the harness sent, rdma_hdr=1 for its Read
 * Request body. */
static bool terminate_headers_ok(ctx *x, const iw_step *s, const iw_terminate *t, char *why, size_t cap)
{
	if (arg_i(s, "hdr", 0)) {
		if (!t->d) {
			snprintf(why, cap, "the Terminate has D=0: the DDP header of the segment at fault is not attached");
			return false;
		}
		if (t->ddp_hdr_len != x->h->last_hdr_len || memcmp(t->ddp_hdr, x->h->last_hdr, t->ddp_hdr_len)) {
			snprintf(why, cap, "the Terminate's attached DDP header (%zu octets) is not the header of the segment "
				 "at fault (%zu octets, the last one the harness sent)", t->ddp_hdr_len, x->h->last_hdr_len);
			return false;
		}
		if (t->m)
			note(x, "Terminate: DDP segment length %u (the ULPDU at fault had %zu octets, %zu of them payload)",
			     t->ddp_seg_len, x->h->last_ulpdu_len, x->h->last_ulpdu_len - x->h->last_hdr_len);
	}
	if (arg_i(s, "rdma_hdr", 0)) {
		if (!t->r || !t->has_rdma_hdr) {
			snprintf(why, cap, "the Terminate has R=0: the RDMA Read Request header at fault is not attached");
			return false;
		}
		if (!x->h->have_last_rr || memcmp(t->rdma_hdr, x->h->last_rr, IW_RDMAP_READ_REQ_LEN)) {
			snprintf(why, cap, "the Terminate's attached RDMA header is not the Read Request the harness sent");
			return false;
		}
	}
	return true;
}

static bool exp_message(ctx *x, const iw_step *s, bool terminate)
{
	if (!x->in_as_model)
		model_discard(x);
	int64_t deadline = within_deadline(x, s);
	iw_fpdu *fp = malloc(sizeof *fp);
	if (!fp)
		return herror(x, "out of memory");
	const char *what = terminate ? "terminate" : s->word;
	dut_msg dm;
	bool ok = read_message(x, deadline, what, &dm, fp);
	char why[200] = "";
	if (!ok) {
		/* recorded */
	} else if (terminate) {
		iw_terminate t;
		iw_err e;
		if (dm.opcode != IW_OP_TERMINATE) {
			ok = fail(x, NULL, "expected a Terminate, the DUT sent %s", iw_rdmap_op(dm.opcode)->name);
		} else if (iw_terminate_decode(dm.data, dm.len, &t, &e)) {
			ok = fail(x, "RFC5040-4.8", "the DUT's Terminate cannot be decoded: %s", e.msg);
		} else {
			note(x, "Terminate %s M=%d D=%d R=%d", iw_error_name(t.layer, t.etype, t.ecode), t.m, t.d, t.r);
			int el = layer_value(iw_step_arg(s, "layer"));
			if (!code_matches(x, s, &t, why, sizeof why)) {
				ok = fail(x, el == IW_LAYER_DDP ? "DDP-9.2-01" : NULL, "%s", why);
				snprintf(x->r->fail_field, sizeof x->r->fail_field, "Code");
			}
			else if (!pattern_ok(s, "m", t.m, why, sizeof why) ||
			    !pattern_ok(s, "d", t.d, why, sizeof why) || !pattern_ok(s, "r", t.r, why, sizeof why))
				ok = fail(x, NULL, "%s", why);
			else if (!terminate_headers_ok(x, s, &t, why, sizeof why))
				ok = fail(x, "RFC5040-4.8", "%s", why);
		}
	} else if (!strcmp(s->word, "greeting")) {
		if (dm.opcode != IW_OP_SEND || dm.len != 16) {
			ok = fail(x, NULL, "expected the reflector's greeting (a Send of 16 octets: STag, TO, length), the "
				  "DUT sent %s with %zu payload octets", iw_rdmap_op(dm.opcode)->name, dm.len);
		} else {
			const uint8_t *g = dm.data;
			x->h->adv_stag = (uint32_t)g[0] << 24 | (uint32_t)g[1] << 16 | (uint32_t)g[2] << 8 | g[3];
			x->h->adv_to = 0;
			for (int i = 4; i < 12; i++)
				x->h->adv_to = x->h->adv_to << 8 | g[i];
			x->h->adv_len = (uint32_t)g[12] << 24 | (uint32_t)g[13] << 16 | (uint32_t)g[14] << 8 | g[15];
			x->h->have_adv = true;
			note(x, "the reflector advertises STag 0x%x, TO 0x%llx, %u octets", x->h->adv_stag,
			     (unsigned long long)x->h->adv_to, x->h->adv_len);
			/* The cases address up to 64 KiB (to=0xfff0 is 16 octets before its end): a smaller
			 * buffer would make the DUT's correct refusals look like findings. */
			if (x->h->adv_len < 65536)
				return herror(x, "line %d: the reflector advertises %u octets; the cases need a buffer of "
					      "at least 65536 (docs/reflector.md, contract item 1)", s->line, x->h->adv_len);
			/* The model's sink learns the buffer, so it judges Writes and Reads as the DUT must
			 * (its memory is the model's own: contents are not compared). */
			if (x->h->model) {
				iw_tagged_buf b = {.stag = x->h->adv_stag, .base_to = x->h->adv_to, .length = x->h->adv_len,
						   .stream = 0, .pd = 0, .valid = true, .mem = NULL,
						   .access = IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE};
				const iw_ddp_sink *sk = iw_conn_sink(x->h->model);
				b.stream = sk->stream;
				b.pd = sk->pd;
				if (!x->h->adv_mem)
					x->h->adv_mem = calloc(1, x->h->adv_len ? x->h->adv_len : 1);
				b.mem = x->h->adv_mem;
				iw_err e;
				if (b.mem)
					(void)iw_conn_register_buf(x->h->model, &b, &e);
			}
		}
	} else {
		if (strcmp(s->word, "any") && strcmp(s->word, "fpdu")) {
			size_t ti = 0;
			while (ti < sizeof msg_types / sizeof msg_types[0] && strcmp(msg_types[ti].word, s->word))
				ti++;
			if (ti < sizeof msg_types / sizeof msg_types[0] && msg_types[ti].opcode != dm.opcode)
				ok = fail(x, NULL, "expected %s, the DUT sent %s", iw_rdmap_op(msg_types[ti].opcode)->name,
					  iw_rdmap_op(dm.opcode)->name);
		}
		const iw_arg *d = iw_step_arg(s, "data");
		const iw_arg *sz = iw_step_arg(s, "size");
		if (ok && d && !d->is_pattern_any && (d->nbytes != dm.len || memcmp(d->bytes, dm.data, dm.len)))
			ok = fail(x, "DDP-7.2-03", "payload differs: expected %zu octets, seen %zu in %zu segment%s", d->nbytes,
				  dm.len, dm.nseg, dm.nseg == 1 ? "" : "s");
		if (ok && sz && !sz->is_pattern_any) {
			size_t bad = dm.len;
			for (size_t i = 0; i < dm.len && bad == dm.len; i++)
				if (dm.data[i] != payload_octet(s, i))
					bad = i;
			if ((size_t)sz->i != dm.len || bad != dm.len)
				ok = fail(x, "DDP-7.2-03", "expected %lld octets of the size pattern, seen %zu octets in %zu "
					  "segments%s", (long long)sz->i, dm.len, dm.nseg,
					  bad != dm.len ? " with different content" : "");
		}
		if (ok && (!pattern_ok(s, "qn", dm.first.qn, why, sizeof why) ||
			   !pattern_ok(s, "msn", dm.first.msn, why, sizeof why) ||
			   !pattern_ok(s, "mo", dm.first.mo, why, sizeof why) ||
			   !pattern_ok(s, "opcode", dm.opcode, why, sizeof why) ||
			   !pattern_ok(s, "rv", dm.rv, why, sizeof why) || !pattern_ok(s, "dv", dm.first.dv, why, sizeof why) ||
			   !pattern_ok(s, "stag", dm.first.stag, why, sizeof why)))
			ok = fail(x, NULL, "%s", why);
		if (ok && iw_step_arg(s, "last") && arg_i(s, "last", 1) == 1 && dm.nseg != 1)
			ok = fail(x, NULL, "expected a single-segment message, the DUT used %zu segments", dm.nseg);
	}
	if (ok && dm.nseg && iw_step_arg(s, "marker_first") && arg_i(s, "marker_first", -1) >= 0 &&
	    dm.first_marker != (arg_i(s, "marker_first", 0) == 1))
		ok = fail(x, dm.first_marker ? "MPA-5.1-03" : dm.first_start == 0 ? "MPA-6.1-R7" : "MPA-5.1-04",
			  dm.first_marker ? "the DUT's message begins with a marker where none was expected"
					  : "the DUT's message does not begin with a marker (FPDUPTR 0) where its FPDU "
					    "starts on a 512-octet boundary");
	if (ok && dm.nseg && !pattern_ok(s, "markers", (int64_t)dm.markers, why, sizeof why))
		ok = fail(x, "MPA-5.1-02", "%s (markers inside the message's FPDUs)", why);
	if (ok && dm.markers)
		note(x, "%zu markers in the message's %zu FPDU%s, each FPDUPTR checked; largest ULPDU %u", dm.markers,
		     dm.nseg, dm.nseg == 1 ? "" : "s", dm.max_ulpdu);
	if (ok && dm.nseg > 1 && x->h->mss_advertised)
		ok = mulpdu_used(x, &dm);
	free(dm.data);
	free(fp);
	return ok;
}

static bool exp_close(ctx *x, const iw_step *s)
{
	int64_t start = now_us();
	int64_t deadline = within_deadline(x, s);
	bool allow = arg_i(s, "allow_data", 0);
	const iw_arg *how = iw_step_arg(s, "how");
	while (!x->h->fin && !x->h->rst && now_us() < deadline) {
		pump(x, avail(x) + 1, deadline);
		if (avail(x) && !allow)
			break;
		if (allow)
			x->h->in_cur = x->h->in_len;
	}
	if (avail(x) && !allow) {
		size_t n = avail(x);
		iw_result_wire(x->r, IW_FROM_DUT, x->h->no, tcase(x), "raw", x->h->in + x->h->in_cur, n,
			       "%zu octets where a close was expected", n);
		const char *what = n >= 16 && !memcmp(x->h->in + x->h->in_cur, iw_mpa_key(IW_MPA_REPLY), 16) ? "a Reply" : "data";
		return fail(x, NULL, "expected the DUT to close with no octets sent; it sent %s (%zu octets) instead", what, n);
	}
	if (!x->h->fin && !x->h->rst)
		return fail(x, NULL, "expected the DUT to close (FIN or RST) within %lld ms; it kept the connection open",
			    (long long)((deadline - start) / 1000));
	if (how && how->s && !strcmp(how->s, "fin") && !x->h->fin)
		return fail(x, NULL, "expected a FIN, the DUT reset the connection");
	if (how && how->s && !strcmp(how->s, "rst") && !x->h->rst)
		return fail(x, NULL, "expected an RST, the DUT closed with FIN");
	return true;
}

static bool exp_silence(ctx *x, const iw_step *s)
{
	int64_t ms = arg_i(s, "for", 1000);
	int64_t deadline = now_us() + ms * 1000;
	if (deadline > x->deadline_us)
		deadline = x->deadline_us;
	pump(x, avail(x) + 1, deadline);
	if (avail(x)) {
		size_t n = avail(x);
		iw_result_wire(x->r, IW_FROM_DUT, x->h->no, tcase(x), "raw", x->h->in + x->h->in_cur, n,
			       "%zu octets during expected silence", n);
		return fail(x, NULL, "expected silence for %lld ms; the DUT sent %zu octets", (long long)ms, n);
	}
	if (x->h->fin || x->h->rst)
		return fail(x, NULL, "expected silence for %lld ms; the DUT closed the connection (%s)", (long long)ms,
			    x->h->rst ? "RST" : "FIN");
	return true;
}

/* Opens a connection to (or from) the DUT into h and makes it the current one. */
static bool open_into(ctx *x, hconn *h, int no, int64_t timeout_ms, int mss)
{
	hconn_reset(h);
	h->fd = -1;
	h->no = no;
	if (!h->in)
		h->in = malloc(RX_LIMIT);
	if (!h->rx)
		h->rx = malloc(sizeof *h->rx);
	if (!h->in || !h->rx)
		return herror(x, "out of memory opening connection %d", no);
	x->h = h;
	iw_err e;
	int fd = -1;
	int rc = x->dut_role == IW_ROLE_RESPONDER ? x->drv->ops->connect(x->drv, &fd, timeout_ms, mss, &e)
						  : x->drv->ops->accept(x->drv, &fd, timeout_ms, &e);
	/* A responder that accepted this case's first connection and now refuses another has stopped
	 * serving (what `expect alive` probes): a finding, not a harness that cannot judge. */
	if (rc && x->dut_role == IW_ROLE_RESPONDER && no > 1)
		return fail(x, "MPA-6.1-R2a", "the DUT no longer accepts connections (connection %d): %s", no, e.msg);
	if (rc)
		return herror(x, "cannot %s the DUT: %s", x->dut_role == IW_ROLE_RESPONDER ? "connect to" : "accept", e.msg);
	h->fd = fd;
	iw_result_wire(x->r, IW_NOTE, h->no, tcase(x), "connect", NULL, 0, "connection %d %s", h->no,
		       x->dut_role == IW_ROLE_RESPONDER ? "opened to the DUT" : "accepted from the DUT");
	/* The DUT's EMSS is taken to be ours: TCP gives both ends the same MSS on a symmetric path. */
	int emss = 0;
	socklen_t ml = sizeof emss;
	if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &emss, &ml) == 0 && emss > 0)
		h->mss = (uint32_t)emss;
	h->mss_advertised = mss > 0 && x->dut_role == IW_ROLE_RESPONDER;
	/* Without the EMSS the MULPDU the case is about cannot be judged: no silent PASS. */
	if (h->mss_advertised && !h->mss)
		return herror(x, "the connection's MSS cannot be read (TCP_MAXSEG): %s", strerror(errno));
	if (h->mss_advertised)
		note(x, "MSS %d advertised; the connection's EMSS is %u (TCP options taken off)", mss, h->mss);
	/* The model plays the DUT as it was asked to be; iw_conn_start is a no-op for a responder. */
	model_make(x, h, x->instr_markers, !x->instr_crc_off);
	if (!x->p->startup_frames)
		enter_full_operation(x);
	return true;
}

/* `connect` / `accept`: a new connection; earlier ones stay open (`use N` goes back to one). */
static bool open_conn(ctx *x, int64_t timeout_ms, int mss)
{
	if (x->nconns == MAX_CONNS)
		return herror(x, "a case may open at most %d connections", MAX_CONNS);
	hconn *h = &x->conns[x->nconns++];
	return open_into(x, h, x->nconns, timeout_ms, mss);
}

/* Steps the harness makes up itself (startup, liveness, as-model), with their arguments. */
static void st_init(iw_step *st, enum iw_step_kind k, const char *word, int line)
{
	memset(st, 0, sizeof *st);
	st->kind = k;
	st->line = line;
	snprintf(st->word, sizeof st->word, "%s", word);
}

static void st_int(iw_step *st, const char *name, int64_t v, enum iw_arg_type type)
{
	if (st->nargs == IW_CASE_MAX_ARGS)
		return;
	iw_arg *a = &st->args[st->nargs++];
	snprintf(a->name, sizeof a->name, "%s", name);
	a->type = type;
	a->i = v;
}

static void st_bytes(iw_step *st, const char *name, const uint8_t *b, size_t n)
{
	if (st->nargs == IW_CASE_MAX_ARGS)
		return;
	iw_arg *a = &st->args[st->nargs++];
	snprintf(a->name, sizeof a->name, "%s", name);
	a->type = IW_ARG_BYTES;
	a->bytes = (uint8_t *)b;        /* not owned: synthetic steps are never freed */
	a->nbytes = n;
}

/* Takes the just-opened current connection to full operation the way the role and profile say
 * (MR §6.1; none under culley-mpa-02), then sends one Send and takes the reflector's greeting
 * and its echo: from here on the case's connections look the same in every profile and role
 * (the harness's next MSN on QN 0 is 2, the DUT's is 3). */
static bool startup_conn(ctx *x, int64_t within_ms, int m, int c, int line)
{
	iw_step st;
	bool ok = true;
	if (x->p->startup_frames) {
		if (x->dut_role == IW_ROLE_RESPONDER) {
			st_init(&st, IW_STEP_SEND_REQUEST, "request", line);
			st_int(&st, "m", m, IW_ARG_INT);
			st_int(&st, "c", c, IW_ARG_INT);
			ok = act_send_frame(x, &st, IW_MPA_REQUEST);
			st_init(&st, IW_EXPECT_REPLY, "reply", line);
			st_int(&st, "r", 0, IW_ARG_INT);
			st_int(&st, "within", within_ms, IW_ARG_DURATION);
			ok = ok && exp_frame(x, &st, IW_MPA_REPLY);
		} else {
			st_init(&st, IW_EXPECT_REQUEST, "request", line);
			st_int(&st, "r", 0, IW_ARG_INT);
			st_int(&st, "within", within_ms, IW_ARG_DURATION);
			ok = exp_frame(x, &st, IW_MPA_REQUEST);
			st_init(&st, IW_STEP_SEND_REPLY, "reply", line);
			st_int(&st, "m", m, IW_ARG_INT);
			st_int(&st, "c", c, IW_ARG_INT);
			ok = ok && act_send_frame(x, &st, IW_MPA_REPLY);
			if (ok && x->h->got_frame_valid)
				enter_full_operation(x);
		}
	}
	/* An initiator DUT greets first: the harness, as responder, may send no FPDU before it has
	 * received one (MPA-6.1-R4; siw resets a connection whose Reply is followed at once by an
	 * FPDU). A responder DUT greets after the harness's first Send. */
	static const uint8_t hello[] = STARTUP_PAYLOAD;
	bool dut_first = x->dut_role == IW_ROLE_INITIATOR;
	st_init(&st, IW_EXPECT_FPDU, "greeting", line);
	st_int(&st, "within", within_ms, IW_ARG_DURATION);
	ok = ok && (!dut_first || exp_message(x, &st, false));
	st_init(&st, IW_STEP_SEND_FPDU, "send", line);
	st_bytes(&st, "data", hello, sizeof hello - 1);
	ok = ok && act_send_fpdu(x, &st);
	st_init(&st, IW_EXPECT_FPDU, "greeting", line);
	st_int(&st, "within", within_ms, IW_ARG_DURATION);
	ok = ok && (dut_first || exp_message(x, &st, false));
	st_init(&st, IW_EXPECT_FPDU, "send", line);
	st_bytes(&st, "data", hello, sizeof hello - 1);
	st_int(&st, "within", within_ms, IW_ARG_DURATION);
	ok = ok && exp_message(x, &st, false);
	if (!ok && x->failed && !x->harness_error) {
		char r[sizeof x->r->reason];
		snprintf(r, sizeof r, "startup (line %d) did not reach full operation with the reflector: %.900s", line,
			 x->r->reason);
		memcpy(x->r->reason, r, sizeof r);
	}
	return ok;
}

static int startup_m(const ctx *x, const iw_step *s) { return (int)arg_i(s, "m", x->o->frame_markers ? 1 : 0); }
static int startup_c(const ctx *x, const iw_step *s) { return (int)arg_i(s, "c", x->o->frame_no_crc ? 0 : 1); }

/* Liveness: a fresh connection still completes startup (the case's connections are left alone);
 * with the reflector it must also greet and echo: the DUT still works, not only listens. */
static bool exp_alive(ctx *x, const iw_step *s)
{
	int64_t deadline = within_deadline(x, s);
	hconn *saved = x->h;
	hconn probe;
	memset(&probe, 0, sizeof probe);
	probe.fd = -1;
	bool ok = open_into(x, &probe, x->nconns + 1, (deadline - now_us()) / 1000, 0);
	bool reflector = (x->c->needs & IW_CAP_REFLECTOR) && x->o->dut.reflector;
	if (ok && reflector) {
		ok = startup_conn(x, (deadline - now_us()) / 1000, startup_m(x, s), startup_c(x, s), s->line);
		if (!ok && !x->harness_error)
			snprintf(x->fail_req, sizeof x->fail_req, "MPA-6.1-R2a");
	} else if (ok && x->p->startup_frames) {
		iw_step st;
		memset(&st, 0, sizeof st);
		st.line = s->line;
		if (x->dut_role == IW_ROLE_RESPONDER) {
			ok = act_send_frame(x, &st, IW_MPA_REQUEST) && exp_frame(x, &st, IW_MPA_REPLY);
		} else {
			ok = exp_frame(x, &st, IW_MPA_REQUEST) && act_send_frame(x, &st, IW_MPA_REPLY);
		}
		if (!ok && !x->harness_error)
			snprintf(x->fail_req, sizeof x->fail_req, "MPA-6.1-R2a");
	}
	hconn_free(&probe);
	x->h = saved;
	if (ok)
		note(x, reflector ? "liveness probe: a fresh connection completed startup, greeted and echoed"
				  : "liveness probe: a fresh connection completed startup");
	return ok;
}

static bool exp_one_of(ctx *x, const iw_step *s);

/* In full operation: the model, fed everything the harness sent since the last explicit
 * expectation, says what a conforming DUT running the reflector sends back: an echo per
 * delivered Send and a Read Response per served Read Request, in that order, then, on the first
 * error, its Terminate (layer, type and code; optional for MPA errors, MPA-7-02) and a close. */
static bool as_model_full_(ctx *x, const iw_step *s);

static bool as_model_full(ctx *x, const iw_step *s)
{
	x->in_as_model = true;
	bool ok = as_model_full_(x, s);
	x->in_as_model = false;
	model_discard(x);
	return ok;
}

static bool as_model_full_(ctx *x, const iw_step *s)
{
	iw_conn_event ev;
	bool err = false;
	iw_violation v;
	memset(&v, 0, sizeof v);
	int64_t within = arg_i(s, "within", x->o->dut.close_timeout_ms > 0 ? x->o->dut.close_timeout_ms : DEFAULT_WITHIN_MS);
	/* What the model found before it was fed FPDU by FPDU comes first, then the copied events. */
	while (iw_conn_next_event(x->h->model, &ev))
		if (ev.kind == IW_EV_ERROR && !err) {
			err = true;
			v = ev.viol;
		}
	const model_ev *me = x->h->mev;
	size_t n = 0, necho = 0, nread = 0;
	for (; n < x->h->nmev && !err; n++) {
		if (me[n].kind == IW_EV_ERROR) {
			err = true;
			v = me[n].viol;
		}
		necho += me[n].kind == IW_EV_SEND;
		nread += me[n].kind == IW_EV_READ_SERVICED;
	}
	if (err)
		note(x, "model: %zu echo%s and %zu Read Response%s, then %s (%s: %s), reported and closed", necho,
		     necho == 1 ? "" : "es", nread, nread == 1 ? "" : "s", iw_error_name(v.layer, v.etype, v.ecode),
		     v.req ? v.req : "", v.detail);
	else
		note(x, "model: %zu echo%s and %zu Read Response%s due, then nothing", necho, necho == 1 ? "" : "es", nread,
		     nread == 1 ? "" : "s");
	/* Echoes and Read Responses are independent operations: each kind keeps its order, the two
	 * may interleave. Once an error is due, echoes of Sends delivered just before it are optional:
	 * the reflector may not have run before the Terminate went out (DDP-9.1-04). */
	size_t ie = 0, ir = 0;
	iw_step term, cl;
	st_init(&term, IW_EXPECT_TERMINATE, "terminate", s->line);
	st_int(&term, "layer", v.layer, IW_ARG_INT);
	st_int(&term, "etype", v.etype, IW_ARG_INT);
	st_int(&term, "ecode", v.ecode, IW_ARG_INT);
	st_init(&cl, IW_EXPECT_CLOSE, "any", s->line);
	st_int(&cl, "within", within, IW_ARG_DURATION);
	for (;;) {
		size_t ne = ie, nr = ir;
		for (size_t i = 0, ke = 0, kr = 0; i < n; i++) {
			if (me[i].kind == IW_EV_SEND && ke++ == ie)
				ne = i;
			if (me[i].kind == IW_EV_READ_SERVICED && kr++ == ir)
				nr = i;
		}
		bool more = ie < necho || ir < nread;
		if (!err && !more) {
			iw_step st;
			st_init(&st, IW_EXPECT_SILENCE, "silence", s->line);
			st_int(&st, "for", within < 300 ? within : 300, IW_ARG_DURATION);
			return exp_silence(x, &st);
		}
		int64_t deadline = within_deadline(x, s);
		pump(x, 1, deadline);
		if (!avail(x)) {
			if (err && (x->h->fin || x->h->rst) && v.layer == IW_LAYER_LLP)
				return true;        /* MPA-7-02: the code SHOULD reach the peer; a close alone passes */
			if (err && !more)
				return exp_message(x, &term, true) && exp_close(x, &cl);
			return fail(x, err ? v.req : NULL, "model: %s was due; %s", ie < necho ? "an echo" : "a Read Response",
				    x->h->fin || x->h->rst ? "the DUT closed the connection" : "nothing arrived in time");
		}
		size_t save = x->h->in_cur;
		iw_mpa_rx *rxs = malloc(sizeof *rxs);
		iw_fpdu *fp = malloc(sizeof *fp);
		if (!rxs || !fp) {
			free(rxs);
			free(fp);
			return herror(x, "out of memory");
		}
		*rxs = *x->h->rx;
		uint32_t msn_save[3];
		memcpy(msn_save, x->h->dut_msn, sizeof msn_save);
		dut_msg dm;
		bool ok = read_message(x, deadline, "as-model", &dm, fp);
		free(fp);
		if (ok && dm.opcode == IW_OP_TERMINATE && err) {
			/* Read it again as the Terminate expectation, with its code check and mappings. */
			x->h->in_cur = save;
			*x->h->rx = *rxs;
			memcpy(x->h->dut_msn, msn_save, sizeof msn_save);
			free(rxs);
			free(dm.data);
			return exp_message(x, &term, true) && exp_close(x, &cl);
		}
		free(rxs);
		if (ok && (dm.opcode == IW_OP_SEND || dm.opcode == IW_OP_SEND_SE) && ie < necho) {
			if (dm.len != me[ne].len || (dm.len && memcmp(dm.data, me[ne].data, dm.len)))
				ok = fail(x, "DDP-7.3-07", "model: the echo of the Send delivered %zu%s (%zu octets) was due; the "
					  "DUT echoed %zu other octets", ie + 1, ie == 0 ? "st" : ie == 1 ? "nd" : "th", me[ne].len,
					  dm.len);
			ie++;
		} else if (ok && dm.opcode == IW_OP_READ_RESP && ir < nread) {
			const iw_read_req *rr = &me[nr].rreq;
			if (dm.first.stag != rr->sink_stag || dm.first.to != rr->sink_to || dm.len != rr->size)
				ok = fail(x, "RFC5040-4.4", "model: a Read Response of %u octets to STag 0x%x TO 0x%llx was due; "
					  "the DUT sent %zu octets to STag 0x%x TO 0x%llx", rr->size, rr->sink_stag,
					  (unsigned long long)rr->sink_to, dm.len, dm.first.stag, (unsigned long long)dm.first.to);
			ir++;
		} else if (ok) {
			ok = fail(x, err ? v.req : NULL, "model: the DUT sent %s, which a conforming DUT does not send here%s",
				  iw_rdmap_op(dm.opcode)->name, err ? " (a Terminate was due)" : "");
		}
		free(dm.data);
		if (!ok)
			return false;
	}
}

/* What a conforming DUT does with everything sent so far, per the engine's model. */
static bool exp_as_model(ctx *x, const iw_step *s)
{
	if (!x->h->model)
		return herror(x, "line %d: no model of the DUT", s->line);
	if (x->h->full_op && x->h->model_full)
		return as_model_full(x, s);
	iw_conn_event ev;
	bool rejected = false, accepted = false;
	iw_violation why;
	memset(&why, 0, sizeof why);
	while (iw_conn_next_event(x->h->model, &ev)) {
		if (ev.kind == IW_EV_FRAME_REJECTED) {
			rejected = true;
			why = ev.viol;
		} else if (ev.kind == IW_EV_FRAME_ACCEPTED) {
			accepted = true;
		}
	}
	if (rejected) {
		note(x, "model: a conforming DUT refuses this (%s: %s) and closes without a frame", why.req, why.detail);
		if (!exp_close(x, s)) {
			size_t l = strlen(x->r->reason);
			snprintf(x->r->reason + l, sizeof x->r->reason - l, "; a conforming DUT closes here because %s (%s)",
				 why.detail, why.req);
			snprintf(x->fail_req, sizeof x->fail_req, "%s", why.req);
			return false;
		}
		return true;
	}
	if (accepted && x->dut_role == IW_ROLE_INITIATOR) {
		/* A conforming initiator enters full operation: it must not close; it may send FPDUs. */
		note(x, "model: a conforming initiator accepts this Reply and stays in full operation");
		int64_t deadline = within_deadline(x, s);
		int64_t quiet = now_us() + 1000000;
		pump(x, RX_LIMIT, quiet < deadline ? quiet : deadline);
		if (x->h->fin || x->h->rst)
			return fail(x, "MPA-6.1-R3d", "the DUT closed the connection (%s) after a Reply a conforming "
				    "initiator accepts", x->h->rst ? "RST" : "FIN");
		return true;
	}
	if (accepted) {
		size_t n;
		const uint8_t *out = iw_conn_output_peek(x->h->model, &n);
		iw_mpa_frame mf;
		size_t flen;
		iw_err e;
		enum iw_mpa_kind k = x->dut_role == IW_ROLE_RESPONDER ? IW_MPA_REPLY : IW_MPA_REQUEST;
		if (iw_mpa_frame_decode(x->p, out, n, &mf, &flen, &e) != IW_OK)
			return herror(x, "the model accepted but produced no frame: %s", e.msg);
		note(x, "model: a conforming DUT accepts and answers with a %s", kind_name(k));
		if (!exp_frame(x, s, k))
			return false;
		if (x->h->got_frame.r != mf.r && !x->o->dut.reject)
			return fail(x, "MPA-6.1-R2f", "the DUT answered R=%d where a conforming DUT answers R=%d",
				    x->h->got_frame.r, mf.r);
		if (x->h->got_frame.rev != mf.rev)
			return fail(x, "MPA-6.1.1-06", "the DUT's %s has Rev=%u, the profile requires %u", kind_name(k),
				    x->h->got_frame.rev, mf.rev);
		if (mf.c && !x->h->got_frame.c && !x->o->dut.crc_off_mode)
			return fail(x, "MPA-5.2-03", "the DUT answered C=0 in its default configuration; CRCs must be on");
		return true;
	}
	note(x, "model: a conforming DUT waits for more octets");
	return exp_silence(x, s);
}

static bool run_expect(ctx *x, const iw_step *s);

static bool exp_one_of(ctx *x, const iw_step *s)
{
	size_t cur = x->h->in_cur;
	iw_mpa_rx *saved = malloc(sizeof *saved);
	if (!saved)
		return herror(x, "out of memory");
	*saved = *x->h->rx;
	bool saved_ready = x->h->rx_ready, saved_full = x->h->full_op;
	uint32_t saved_msn[3];
	memcpy(saved_msn, x->h->dut_msn, sizeof saved_msn);
	size_t saved_markers = x->h->dut_markers;
	char reasons[IW_CASE_MAX_ALTS][256];
	size_t saved_maps = x->r->nmappings;
	for (size_t i = 0; i < s->nalts; i++) {
		x->r->nmappings = saved_maps;   /* a mapping counts only in the alternative that matched */
		x->h->in_cur = cur;
		*x->h->rx = *saved;
		x->h->rx_ready = saved_ready;
		x->h->full_op = saved_full;
		memcpy(x->h->dut_msn, saved_msn, sizeof saved_msn);
		x->h->dut_markers = saved_markers;
		x->failed = false;
		bool ok = true;
		for (size_t k = 0; ok && k < s->alts[i].nseq; k++)
			ok = run_expect(x, s->alts[i].seq[k]);
		if (ok) {
			note(x, "alternative %zu of %zu matched", i + 1, s->nalts);
			free(saved);
			return true;
		}
		if (x->harness_error) {
			free(saved);
			return false;
		}
		memcpy(reasons[i], x->r->reason, sizeof reasons[i] - 1);
		reasons[i][sizeof reasons[i] - 1] = '\0';
	}
	free(saved);
	x->r->nmappings = saved_maps;
	x->failed = false;
	char all[1000];
	size_t o = 0;
	for (size_t i = 0; i < s->nalts && o < sizeof all; i++)
		o += (size_t)snprintf(all + o, sizeof all - o, "%s(%zu) %s", i ? "; " : "", i + 1, reasons[i]);
	return fail(x, NULL, "none of the %zu allowed outcomes happened: %s", s->nalts, all);
}

static bool exp_measure(ctx *x, const iw_step *s)
{
	int64_t start = now_us();
	int64_t deadline = within_deadline(x, s);
	while (!x->h->fin && !x->h->rst && now_us() < deadline) {
		pump(x, avail(x) + 1, deadline);
		x->h->in_cur = x->h->in_len;
	}
	iw_case_result *r = x->r;
	if (r->nmeasures < sizeof r->measures / sizeof r->measures[0]) {
		iw_measure *m = &r->measures[r->nmeasures++];
		snprintf(m->name, sizeof m->name, "%s_after_line_%d", s->word[0] ? s->word : "close", s->line);
		if (x->h->fin || x->h->rst) {
			m->value = (double)(now_us() - start) / 1000.0;
			snprintf(m->unit, sizeof m->unit, "ms");
		} else {
			m->value = -1;
			snprintf(m->unit, sizeof m->unit, "none");
		}
	}
	note(x, x->h->fin || x->h->rst ? "measured: the DUT closed after %.0f ms" : "measured: no close within %.0f ms",
	     (double)(now_us() - start) / 1000.0);
	return true;
}

static bool run_expect(ctx *x, const iw_step *s)
{
	if (x->h->fd < 0 && s->kind != IW_EXPECT_ALIVE)
		return herror(x, "line %d: %s before connect or accept", s->line, iw_step_name(s->kind));
	switch (s->kind) {
	case IW_EXPECT_REQUEST: return exp_frame(x, s, IW_MPA_REQUEST);
	case IW_EXPECT_REPLY: return exp_frame(x, s, IW_MPA_REPLY);
	case IW_EXPECT_FPDU: return exp_message(x, s, false);
	case IW_EXPECT_TERMINATE: return exp_message(x, s, true);
	case IW_EXPECT_CLOSE: return exp_close(x, s);
	case IW_EXPECT_SILENCE: return exp_silence(x, s);
	case IW_EXPECT_ALIVE: return exp_alive(x, s);
	case IW_EXPECT_ONE_OF: return exp_one_of(x, s);
	case IW_EXPECT_MEASURE: return exp_measure(x, s);
	case IW_EXPECT_AS_MODEL: return exp_as_model(x, s);
	default: return herror(x, "line %d: %s is not an expectation", s->line, iw_step_name(s->kind));
	}
}

static bool run_step(ctx *x, const iw_step *s)
{
	if (now_us() >= x->deadline_us)
		return fail(x, NULL, "the case timeout (%lld ms) ran out before line %d (%s)",
			    (long long)((x->deadline_us - x->t0_us) / 1000), s->line,
			    iw_step_name(s->kind));
	/* coalesce: only sends accumulate; any other step lets what is held go out first. */
	if (s->kind != IW_STEP_SEND_REQUEST && s->kind != IW_STEP_SEND_REPLY && s->kind != IW_STEP_SEND_FPDU &&
	    s->kind != IW_STEP_SEND_RAW && !flush_pending(x))
		return false;
	switch (s->kind) {
	case IW_STEP_STARTUP: {
		int64_t within = arg_i(s, "within", x->o->dut.connect_timeout_ms);
		return open_conn(x, within, (int)arg_i(s, "mss", 0)) &&
		       startup_conn(x, within, startup_m(x, s), startup_c(x, s), s->line);
	}
	case IW_STEP_CONNECT:
	case IW_STEP_ACCEPT:
		if ((s->kind == IW_STEP_CONNECT) != (x->dut_role == IW_ROLE_RESPONDER))
			return herror(x, "line %d: %s does not fit a DUT in the %s role", s->line, iw_step_name(s->kind),
				      x->dut_role == IW_ROLE_RESPONDER ? "responder" : "initiator");
		return open_conn(x, arg_i(s, "within", x->o->dut.connect_timeout_ms), (int)arg_i(s, "mss", 0));
	case IW_STEP_SEND_REQUEST: return act_send_frame(x, s, IW_MPA_REQUEST);
	case IW_STEP_SEND_REPLY: {
		bool ok = act_send_frame(x, s, IW_MPA_REPLY);
		if (ok && !x->h->sent_frame.r && x->h->got_frame_valid)
			enter_full_operation(x);
		return ok;
	}
	case IW_STEP_SEND_FPDU: return act_send_fpdu(x, s);
	case IW_STEP_SEND_RAW: return act_send_raw(x, s);
	case IW_STEP_SPLIT: {
		memset(&x->split, 0, sizeof x->split);
		const iw_arg *a = iw_step_arg(s, "at");
		if (a) {
			x->split.nat = a->nlist < 16 ? a->nlist : 16;
			memcpy(x->split.at, a->list, x->split.nat * sizeof a->list[0]);
		}
		x->split.every = (size_t)arg_i(s, "every", 0);
		x->split.delay_ms = arg_i(s, "delay", 0);
		return true;
	}
	case IW_STEP_SLEEP: {
		int64_t ms = arg_i(s, "for", 0);
		int64_t left = (x->deadline_us - now_us()) / 1000;
		sleep_ms(ms < left ? ms : left);
		return true;
	}
	case IW_STEP_CLOSE:
		if (x->h->fd >= 0) {
			shutdown(x->h->fd, SHUT_WR);
			iw_result_wire(x->r, IW_TO_DUT, x->h->no, tcase(x), "fin", NULL, 0, "harness closed its half (FIN)");
			if (x->h->model)
				iw_conn_peer_closed(x->h->model);
		}
		return true;
	case IW_STEP_USE: {
		int64_t n = arg_i(s, "conn", 1);
		if (n < 1 || n > x->nconns)
			return herror(x, "line %d: use %lld: the case has opened %d connection%s", s->line, (long long)n,
				      x->nconns, x->nconns == 1 ? "" : "s");
		x->h = &x->conns[n - 1];
		return true;
	}
	case IW_STEP_RESET:
		if (x->h->fd >= 0) {
			iw_net_reset(x->h->fd);
			x->h->fd = -1;
			iw_result_wire(x->r, IW_TO_DUT, x->h->no, tcase(x), "rst", NULL, 0, "harness reset the connection");
		}
		return true;
	default:
		return run_expect(x, s);
	}
}

void iw_exec_case(const iw_case *c, const iw_profile *p, int dut_role, const iw_run_opts *o, iw_driver *drv,
		  iw_case_result *r)
{
	ctx *x = calloc(1, sizeof *x);
	if (!x) {
		r->verdict = IW_ERROR;
		snprintf(r->reason, sizeof r->reason, "out of memory starting the case");
		return;
	}
	for (int i = 0; i < MAX_CONNS; i++)
		x->conns[i].fd = -1;
	x->h = &x->conns[0];
	x->c = c;
	x->p = p;
	x->o = o;
	x->drv = drv;
	x->r = r;
	x->dut_role = dut_role;
	x->rng = (o->seed ? o->seed : 0x9E3779B97F4A7C15ull) ^ (uint64_t)strlen(c->id) * 0x100000001B3ull;
	for (const char *k = c->id; *k; k++)
		x->rng = (x->rng ^ (uint8_t)*k) * 0x100000001B3ull;
	if (!x->rng)
		x->rng = 1;
	x->t0_us = now_us();
	/* A slow DUT may declare a longer case timeout than the case's own. */
	int64_t tmo = c->timeout_ms > o->dut.case_timeout_ms ? c->timeout_ms : o->dut.case_timeout_ms;
	x->deadline_us = x->t0_us + tmo * 1000;

	iw_err e;
	bool measured = false;
	for (size_t i = 0; i < c->nsteps; i++)
		x->uses_startup |= c->steps[i].kind == IW_STEP_STARTUP;
	/* Markers the DUT wants and its no-CRC mode: what the case needs, or what the run's --markers
	 * and --crc ask of the cases that open connections with `startup`, where the DUT can. */
	bool want_m = ((c->needs & IW_CAP_MARKERS) || (o->frame_markers && x->uses_startup)) && o->dut.markers;
	bool want_nocrc = ((c->needs & IW_CAP_CRC_OFF) || (o->frame_no_crc && x->uses_startup)) && o->dut.crc_off_mode;
	if (drv->ops->case_begin(drv, &e)) {
		herror(x, "the driver could not prepare the DUT: %s", e.msg);
	} else if ((want_m || want_nocrc) && drv->ops->instruct) {
		iw_dut_instr in;
		memset(&in, 0, sizeof in);
		in.markers = want_m;
		in.crc_off = want_nocrc;
		if (iw_driver_instruct(drv, &in, &e))
			herror(x, "the DUT could not be configured for the case: %s", e.msg);
		x->instr_markers = want_m;
		x->instr_crc_off = want_nocrc;
	}
	if (!x->failed) {
		for (size_t i = 0; i < c->nsteps && !x->failed && !iw_interrupted(); i++) {
			if (c->steps[i].kind == IW_EXPECT_MEASURE)
				measured = true;
			run_step(x, &c->steps[i]);
		}
		iw_dut_finding f;
		memset(&f, 0, sizeof f);
		for (int i = 0; i < x->nconns; i++) {
			x->h = &x->conns[i];
			flush_pending(x);
		}
		for (int i = 0; i < MAX_CONNS; i++)
			hconn_close(&x->conns[i]);
		if (drv->ops->case_end(drv, &f, &e) == IW_OK && f.present) {
			r->dut_finding = true;
			snprintf(r->dut_finding_text, sizeof r->dut_finding_text, "%s%s (exit %d, signal %d)\n%s",
				 f.crashed ? "the DUT process crashed" : "the DUT process exited with a failure",
				 "", f.exit_code, f.signal, f.stderr_tail);
			/* A crash is the finding, whatever else the case saw: a step the harness could not
			 * do (a reconnect refused) or a failure it judged (a probe reset while the process
			 * was dying) came from it, and which of those came first is a matter of timing. */
			if (f.crashed && (x->failed || x->harness_error)) {
				iw_result_wire(r, IW_NOTE, x->h - x->conns + 1, tcase(x), "note", NULL, 0,
					       "before the crash was seen: %.250s", r->reason);
				x->failed = false;
				x->harness_error = false;
			}
			if (!x->failed)
				fail(x, NULL, "%s", r->dut_finding_text);
		}
	}
	for (int i = 0; i < MAX_CONNS; i++)
		hconn_free(&x->conns[i]);
	r->duration_ms = (now_us() - x->t0_us) / 1000;
	if (x->failed && !x->harness_error && x->pd_over_limit) {
		/* The configuration declares the DUT takes less private data than this case sent: its
		 * refusal is the declared deviation, not a finding. A DUT that copes still passes. */
		char why[sizeof r->reason];
		snprintf(why, sizeof why, "sent PD_Length %u, above the DUT's declared private_data_limit %u (it "
			 "failed: %.700s)", x->pd_over_limit, x->o->dut.pd_limit, r->reason);
		memcpy(r->reason, why, sizeof why);
		r->verdict = IW_SKIP;
	} else if (x->harness_error) {
		r->verdict = IW_ERROR;
	} else if (x->failed) {
		snprintf(r->failed_req, sizeof r->failed_req, "%s", x->fail_req);
		enum iw_level lvl = c->level;
		for (size_t i = 0; i < c->nreqs; i++)
			if (!strcmp(c->reqs[i].id, x->fail_req))
				lvl = c->reqs[i].level;
		r->verdict = lvl == IW_LEVEL_MUST ? IW_FAIL : lvl == IW_LEVEL_SHOULD ? IW_WARN : IW_INFO;
		size_t l = strlen(r->reason);
		snprintf(r->reason + l, sizeof r->reason - l, " [requirement %s %s]", x->fail_req, iw_level_name(lvl));
	} else {
		r->verdict = measured || c->level == IW_LEVEL_INFO ? IW_INFO : IW_PASS;
		if (r->verdict == IW_INFO && r->nmeasures)
			snprintf(r->reason, sizeof r->reason, "measured %s = %.0f %s", r->measures[0].name,
				 r->measures[0].value, r->measures[0].unit);
	}
	free(x);
}
