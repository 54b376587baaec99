/*
 * netfuzz_run.c - the network fuzzer's session: the DUT behind its driver, calibration, and
 * the execution of one program over one TCP connection next to a model of a conforming DUT.
 *
 * Speed: the first connection goes through the driver; its peer address is kept and later
 * runs connect to it directly (no name resolution). Sockets are non-blocking and every wait is
 * a poll() bounded by the reaction timeout; nothing sleeps but generated delays. The model of
 * the next run is built while the harness waits for the DUT's answer, so its cost hides in the
 * round trip. Each run ends with the harness's FIN and the DUT's close: everything the DUT
 * sent before it is its whole reaction, judged at once (netfuzz_judge.c).
 */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ddp.h"
#include "iw_proto.h"
#include "mpa_frame.h"
#include "net.h"
#include "reflector_greeting.h"
#include "netfuzz_judge.h"
#include "runner.h"

#define RX_CAP      (1u << 20)
#define MODEL_OUT   (256u * 1024u)  /* the built-in DUT's model queue (ref_server.c) */
#define ADV_LEN     65536u
#define CALIB_TEXT  "iwspec-netfuzz-calibration"
#define NO_STAG     0xFFFFFF17u     /* stands for the advertised STag when none is known */

/* One run's state: two can be in flight (the next run is sent while the DUT answers this one). */
typedef struct nf_slot {
	const nf_prog *p;
	int fd;
	iw_conn *model;
	iw_mpa_tx tx;
	uint32_t split_every;
	uint32_t adv_stag;
	bool have_adv;
	uint8_t *exp;               /* everything the model sent */
	size_t exp_len, exp_cap;
	size_t sent;                /* octets of tr.to_dut written so far */
	bool reset;                 /* the run ended with our RST */
	bool gone;                  /* the DUT could not be reached: f holds what became of it */
	nf_finding f;
	nf_obs obs;
	nf_trace tr;
} nf_slot;

struct nf_session {
	nf_opts o;
	iw_driver *drv;
	bool is_exec;
	bool case_open;
	nf_dutinfo d;
	int64_t timeout_ms;
	struct sockaddr_storage addr;
	socklen_t alen;
	bool have_addr;
	iw_conn_config mcfg;
	iw_conn *spare;
	uint8_t *adv_mem;
	nf_dec dec;
	nf_expect ex;
	nf_stats st;
	nf_slot c;                  /* the run being worked on */
	nf_slot slots[NF_SLOTS];    /* parked runs */
	bool record;
	uint8_t *rbuf;
	size_t rcap;
	bool probe_after;           /* confirmation: probe liveness after every run */
	bool debug;                 /* IWSPEC_NETFUZZ_DEBUG: dump runs with findings */
	int64_t run_timeout_ms;
};

/* ---- small helpers ---- */

static int64_t now_ms(void) { return iw_net_now_ms(); }

static bool grow(uint8_t **b, size_t *cap, size_t need)
{
	if (need <= *cap)
		return true;
	size_t nc = *cap ? *cap : 4096;
	while (nc < need)
		nc *= 2;
	uint8_t *n = realloc(*b, nc);
	if (!n)
		return false;
	*b = n;
	*cap = nc;
	return true;
}

static void chunk(nf_session *s, int dir, size_t off, size_t len)
{
	nf_trace *t = &s->c.tr;
	if (!t->record || !len)
		return;
	if (t->nchunks && t->chunks[t->nchunks - 1].dir == dir &&
	    t->chunks[t->nchunks - 1].off + t->chunks[t->nchunks - 1].len == off) {
		t->chunks[t->nchunks - 1].len += (uint32_t)len;
		return;
	}
	if (t->nchunks == t->chunk_cap) {
		size_t nc = t->chunk_cap ? t->chunk_cap * 2 : 64;
		nf_chunk *n = realloc(t->chunks, nc * sizeof *n);
		if (!n)
			return;
		t->chunks = n;
		t->chunk_cap = nc;
	}
	t->chunks[t->nchunks++] = (nf_chunk){.dir = (uint8_t)dir, .off = (uint32_t)off, .len = (uint32_t)len};
}

/* ---- coverage ---- */

static const struct { int l, t, c; } cov_codes[] = {
	{2, 0, 1}, {2, 0, 2}, {2, 0, 3}, {2, 0, 4}, {2, 0, 5}, {2, 0, 6}, {2, 0, 7},
	{1, 0, 0},
	{1, 1, 0}, {1, 1, 1}, {1, 1, 2}, {1, 1, 3}, {1, 1, 4},
	{1, 2, 1}, {1, 2, 2}, {1, 2, 3}, {1, 2, 4}, {1, 2, 5}, {1, 2, 6},
	{0, 0, 0},
	{0, 1, 0}, {0, 1, 1}, {0, 1, 2}, {0, 1, 3}, {0, 1, 4}, {0, 1, 9},
	{0, 2, 5}, {0, 2, 6}, {0, 2, 0xff},
};
#define NCODES (sizeof cov_codes / sizeof cov_codes[0])

void nf_cov_counts(const nf_cov *c, unsigned *have, unsigned *total)
{
	*have = (unsigned)__builtin_popcount(c->states) + (unsigned)__builtin_popcount(c->events) +
		(unsigned)__builtin_popcountll(c->codes);
	*total = (IW_CS_CLOSED + 1) + (IW_EV_PEER_CLOSED + 1) + (unsigned)NCODES;
}

static void cov_code(nf_session *s, int l, int t, int c)
{
	for (size_t i = 0; i < NCODES; i++)
		if (cov_codes[i].l == l && cov_codes[i].t == t && cov_codes[i].c == c)
			s->st.cov.codes |= 1ull << i;
}

/* ---- the model ---- */

static iw_conn *model_make(nf_session *s)
{
	iw_conn *m = NULL;
	iw_err e;
	if (iw_conn_new(&m, &s->mcfg, &e) != IW_OK)
		return NULL;
	if (iw_conn_start(m, &e) != IW_OK) {
		iw_conn_free(m);
		return NULL;
	}
	return m;
}

/* A fresh model: the one made while the DUT answered the previous run, or a new one. */
static iw_conn *model_take(nf_session *s)
{
	iw_conn *m = s->spare;
	s->spare = NULL;
	return m ? m : model_make(s);
}

/* Takes the model's events (the reflector answers delivered Sends, as the DUT's does) and
 * its output. */
static void model_drain(nf_session *s)
{
	iw_conn *m = s->c.model;
	iw_conn_event ev;
	while (iw_conn_next_event(m, &ev)) {
		s->st.cov.events |= 1u << ev.kind;
		switch (ev.kind) {
		case IW_EV_FRAME_REJECTED:
			s->c.obs.frame_rejected = true;
			s->c.obs.reject_viol = ev.viol;
			cov_code(s, ev.viol.layer, ev.viol.etype, ev.viol.ecode);
			break;
		case IW_EV_SEND:
			s->c.obs.released = true;
			if (s->d.reflector) {
				iw_err e;
				(void)iw_conn_send(m, IW_OP_SEND, ev.data, ev.len, &e);
			}
			break;
		case IW_EV_TERMINATE:
			s->c.obs.got_terminate = true;
			s->c.obs.released = true;
			break;
		case IW_EV_WRITE:
		case IW_EV_READ_SERVICED:
		case IW_EV_READ_DONE:
			s->c.obs.released = true;
			break;
		case IW_EV_ERROR:
			if (!s->c.obs.failed) {
				s->c.obs.failed = true;
				s->c.obs.err = ev.viol;
			}
			/* An error above MPA means the FPDU itself was valid: rule 4 is satisfied. */
			if (ev.viol.layer != IW_LAYER_LLP)
				s->c.obs.released = true;
			cov_code(s, ev.viol.layer, ev.viol.etype, ev.viol.ecode);
			break;
		default: break;
		}
	}
	enum iw_conn_state st = iw_conn_state(m);
	s->st.cov.states |= 1u << st;
	if (st == IW_CS_FULL)
		s->c.obs.released = true;
	size_t n;
	const uint8_t *out = iw_conn_output_peek(m, &n);
	if (n && grow(&s->c.exp, &s->c.exp_cap, s->c.exp_len + n)) {
		memcpy(s->c.exp + s->c.exp_len, out, n);
		s->c.exp_len += n;
	}
	iw_conn_output_consume(m, n);
}

static void model_feed(nf_session *s, const uint8_t *b, size_t n)
{
	(void)iw_conn_input(s->c.model, b, n);
	model_drain(s);
}

/* ---- socket I/O ---- */

/* Reads what is there (waiting up to wait_ms for the first octet). Returns false at EOF/RST. */
static bool pull(nf_session *s, int wait_ms)
{
	nf_trace *t = &s->c.tr;
	if (t->dut_fin || t->dut_rst)
		return false;
	for (;;) {
		if (wait_ms > 0) {
			struct pollfd pf = {.fd = s->c.fd, .events = POLLIN};
			int r = poll(&pf, 1, wait_ms);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return true;
			wait_ms = 0;
		}
		if (t->from_len >= RX_CAP) {
			s->c.obs.got_overflow = true;
			return false;
		}
		if (!grow(&t->from_dut, &t->from_cap, t->from_len + 16384))
			return false;
		size_t room = t->from_cap - t->from_len;
		ssize_t k = recv(s->c.fd, t->from_dut + t->from_len, room, MSG_DONTWAIT);
		if (k > 0) {
			chunk(s, 1, t->from_len, (size_t)k);
			t->from_len += (size_t)k;
			if ((size_t)k < room)
				return true; /* a short read: nothing more is queued now */
			continue;
		}
		if (k == 0) {
			t->dut_fin = true;
			return false;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return true;
		t->dut_rst = true;
		return false;
	}
}

/* The DUT closed before the harness's FIN: allowed only when the model has closed too. */
static void note_dut_close(nf_session *s)
{
	if (!s->c.obs.early_close && !s->c.tr.we_fin && !iw_conn_wants_close(s->c.model)) {
		s->c.obs.early_close = true;
		s->c.obs.early_state = (int)iw_conn_state(s->c.model);
	}
}

/* Sends all of b, reading meanwhile so neither side blocks. False when the DUT is gone or
 * stopped reading. */
static bool push_all(nf_session *s, const uint8_t *b, size_t n)
{
	int64_t deadline = -1;
	size_t off = 0;
	while (off < n) {
		ssize_t w = send(s->c.fd, b + off, n - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (deadline < 0)
				deadline = now_ms() + s->run_timeout_ms;
			if (now_ms() >= deadline) {
				s->c.obs.stuck_writing = true;
				return false;
			}
			struct pollfd pf = {.fd = s->c.fd, .events = POLLOUT | POLLIN};
			poll(&pf, 1, 10);
			if (pf.revents & POLLIN)
				pull(s, 0);
			continue;
		}
		s->c.tr.dut_rst = true;
		return false;
	}
	return true;
}

/* Cut writes and pauses must reach the DUT as separate segments: no Nagle from then on. */
static void nodelay(nf_session *s)
{
	int one = 1;
	(void)setsockopt(s->c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* Sends what is pending in one write: the octets of consecutive actions go out together
 * unless a split or a pause separates them (one syscall per run in the common case). */
static bool flush(nf_session *s)
{
	nf_trace *t = &s->c.tr;
	size_t n = t->to_len - s->c.sent;
	if (!n)
		return true;
	bool ok = push_all(s, t->to_dut + s->c.sent, n);
	s->c.sent = t->to_len;
	return ok;
}

/* Logs octets, feeds them to the model and sends them (cut as the last split said, or
 * batched with their neighbours). */
static bool emit(nf_session *s, const uint8_t *b, size_t n)
{
	nf_trace *t = &s->c.tr;
	if (!n)
		return true;
	if (!grow(&t->to_dut, &t->to_cap, t->to_len + n))
		return false;
	memcpy(t->to_dut + t->to_len, b, n);
	chunk(s, 0, t->to_len, n);
	t->to_len += n;
	model_feed(s, b, n);
	if (!s->c.split_every)
		return true;
	size_t before = t->to_len - n;
	if (before > s->c.sent && !push_all(s, t->to_dut + s->c.sent, before - s->c.sent))
		return false;
	for (size_t off = 0; off < n; off += s->c.split_every) {
		size_t k = n - off < s->c.split_every ? n - off : s->c.split_every;
		if (!push_all(s, t->to_dut + before + off, k))
			return false;
	}
	s->c.sent = t->to_len;
	return true;
}

/* ---- rendering ---- */

static bool rreserve(nf_session *s, size_t n) { return grow(&s->rbuf, &s->rcap, n); }

static size_t render_frame(nf_session *s, const nf_prog *p, const nf_action *a)
{
	const nf_frame *fr = &a->fr;
	enum iw_mpa_kind kind = s->d.role == IW_ROLE_RESPONDER ? IW_MPA_REQUEST : IW_MPA_REPLY;
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, s->d.profile, kind);
	if (fr->other_key)
		memcpy(f.key, iw_mpa_key(kind == IW_MPA_REQUEST ? IW_MPA_REPLY : IW_MPA_REQUEST), IW_MPA_KEY_LEN);
	if (fr->key_octet >= 0)
		f.key[fr->key_octet & 15] ^= (uint8_t)fr->key_xor;
	if (fr->m >= 0) f.m = fr->m;
	if (fr->c >= 0) f.c = fr->c;
	if (fr->r >= 0) f.r = fr->r;
	if (fr->res >= 0) f.res = (uint8_t)fr->res;
	if (fr->enhanced >= 0) f.enhanced = fr->enhanced;
	if (fr->rev >= 0) f.rev = (uint8_t)fr->rev;
	if (fr->irdord >= 0) f.has_irdord = fr->irdord;
	if (fr->ird >= 0) f.ird = (uint16_t)fr->ird;
	if (fr->ord >= 0) f.ord = (uint16_t)fr->ord;
	uint8_t pd[NF_POOL];
	for (size_t i = 0; i < a->len && i < sizeof pd; i++)
		pd[i] = nf_act_octet(p, a, i);
	f.pd = a->len ? pd : NULL;
	f.pd_len = a->len;
	if (fr->pd_length >= 0) {
		f.pd_length_auto = false;
		f.pd_length = (uint16_t)fr->pd_length;
	}
	size_t cap = iw_mpa_frame_size(&f), len = 0;
	if (!rreserve(s, cap) || iw_mpa_frame_encode(&f, s->rbuf, s->rcap, &len, NULL) != IW_OK)
		return 0;
	s->c.tr.frame = f;
	s->c.tr.frame.pd = NULL;
	return len;
}

static size_t render_fpdu(nf_session *s, const nf_prog *p, const nf_action *a)
{
	const nf_fpdu *x = &a->fp;
	uint8_t fixed[64];
	const uint8_t *body = NULL;
	size_t blen = 0;
	uint8_t *owned = NULL;
	uint32_t adv = s->c.have_adv ? s->c.adv_stag : NO_STAG;
	if (x->msg == NF_M_READ_REQ) {
		iw_read_req rr = x->rr;
		if (x->rr_src_adv)
			rr.src_stag = adv;
		iw_read_req_encode(&rr, fixed);
		body = fixed;
		blen = IW_RDMAP_READ_REQ_LEN;
	} else if (x->msg == NF_M_TERMINATE) {
		iw_terminate t;
		iw_terminate_for(&t, x->t_layer, x->t_etype, x->t_ecode, NULL, 0);
		if (iw_terminate_encode(&t, fixed, sizeof fixed, &blen, NULL) != IW_OK)
			blen = 0;
		body = fixed;
	} else if (a->len) {
		owned = malloc(a->len);
		if (!owned)
			return 0;
		for (size_t i = 0; i < a->len; i++)
			owned[i] = nf_act_octet(p, a, i);
		body = owned;
		blen = a->len;
	}
	iw_ddp_hdr h;
	memset(&h, 0, sizeof h);
	h.tagged = x->tagged;
	h.last = x->last;
	h.dv = x->dv & 3;
	h.rsvd = x->rsvd & 15;
	if (x->rsvdulp_set)
		memcpy(h.rsvdulp, x->rsvdulp, 5);
	h.rsvdulp[0] = iw_rdmap_ctrl(x->rv, x->opcode);
	if (x->msg == NF_M_SEND_INV && x->stag_adv)
		iw_rdmap_set_rsvd_word(&h, adv);
	h.stag = x->stag_adv && x->tagged ? adv : x->stag;
	h.to = x->to;
	h.qn = x->qn;
	h.msn = x->msn;
	size_t mulpdu = x->mulpdu ? x->mulpdu : 65535;
	iw_ddp_segmenter sg;
	if (iw_ddp_seg_init(&sg, &h, blen, mulpdu, NULL) != IW_OK && iw_ddp_seg_init(&sg, &h, blen, 65535, NULL) != IW_OK) {
		free(owned);
		return 0;
	}
	struct { iw_ddp_hdr h; size_t off, len; } segs[64];
	size_t nseg = 0;
	while (nseg < 64 && iw_ddp_seg_next(&sg, &segs[nseg].h, &segs[nseg].off, &segs[nseg].len))
		nseg++;
	size_t order[64], norder = nseg;
	for (size_t i = 0; i < nseg; i++)
		order[i] = i;
	if (x->norder) {
		norder = 0;
		for (size_t i = 0; i < x->norder && i < 8; i++)
			if (x->order[i] < nseg)
				order[norder++] = x->order[i];
	}
	size_t len = 0;
	for (size_t k = 0; k < norder; k++) {
		iw_ddp_hdr hh = segs[order[k]].h;
		if (x->last_set)
			hh.last = x->last;
		if (x->mo_set)
			hh.mo = x->mo;
		uint8_t hb[IW_DDP_UNTAGGED_HDR_LEN];
		size_t hl = 0;
		if (iw_ddp_hdr_encode(&hh, hb, sizeof hb, &hl, NULL) != IW_OK)
			continue;
		size_t plen = segs[order[k]].len;
		size_t need = iw_mpa_tx_size(&s->c.tx, hl + plen) + 16;
		if (!rreserve(s, len + need))
			break;
		size_t w = 0;
		if (iw_mpa_tx_fpdu(&s->c.tx, hb, hl, body ? body + segs[order[k]].off : NULL, plen, &x->mods, s->rbuf + len,
				   s->rcap - len, &w, NULL) != IW_OK)
			continue;
		len += w;
	}
	free(owned);
	return len;
}

/* The model entered full operation on our last octets: frame our direction as it says. */
static void tx_sync(nf_session *s, bool *tx_ready)
{
	if (*tx_ready)
		return;
	enum iw_conn_state st = iw_conn_state(s->c.model);
	if (st == IW_CS_AWAIT_FIRST_FPDU || st == IW_CS_FULL ||
	    ((st == IW_CS_FAILED || st == IW_CS_CLOSED) && s->c.obs.released)) {
		iw_conn_params prm;
		iw_conn_params_get(s->c.model, &prm);
		iw_mpa_tx_init(&s->c.tx, s->d.profile, prm.markers_rx, prm.crc);
		*tx_ready = true;
	}
}

/* The DUT's greeting, when the program needs its STag: read until it is in (or give up). */
static void want_greeting(nf_session *s)
{
	if (s->c.have_adv || !s->d.greeting || !s->c.obs.released)
		return;
	nodelay(s); /* what follows the wait must not wait for an ACK */
	if (!flush(s))
		return;
	int64_t deadline = now_ms() + s->run_timeout_ms;
	for (;;) {
		const nf_trace *t = &s->c.tr;
		iw_mpa_frame f;
		size_t flen = 0;
		size_t start = 0;
		if (s->d.profile->startup_frames) {
			if (iw_mpa_frame_decode(s->d.profile, t->from_dut, t->from_len, &f, &flen, NULL) == IW_OK)
				start = flen;
			else
				start = SIZE_MAX;
		}
		if (start != SIZE_MAX && t->from_len > start) {
			iw_conn_params prm;
			iw_conn_params_get(s->c.model, &prm);
			nf_finding scratch;
			memset(&scratch, 0, sizeof scratch);
			nf_decode_msgs(&s->dec, s->d.profile, t->from_dut + start, t->from_len - start, prm.markers_tx,
				       prm.crc, &s->dec.dut, &scratch);
			if (s->dec.dut.n) {
				const nf_msgrec *m = &s->dec.dut.m[0];
				if (m->opcode == IW_OP_SEND && iw_greeting_len_ok(m->len)) {
					const uint8_t *g = s->dec.dut.data + m->off;
					uint64_t to;
					uint32_t len;
					iw_greeting_parse(g, &s->c.adv_stag, &to, &len);
					s->c.have_adv = true;
					iw_err e;
					(void)iw_conn_register(s->c.model, s->c.adv_stag, 0, s->adv_mem, ADV_LEN,
							       IW_ACCESS_REMOTE_READ | IW_ACCESS_REMOTE_WRITE, &e);
				}
				return;
			}
		}
		int64_t left = deadline - now_ms();
		if (left <= 0 || !pull(s, (int)(left > 20 ? 20 : left)))
			return;
	}
}

/* ---- connections ---- */

static int drv_connect(nf_session *s, int *fd, iw_err *e)
{
	if (!s->case_open) {
		int rc = s->drv->ops->case_begin(s->drv, e);
		if (rc)
			return rc;
		s->case_open = true;
		s->have_addr = false;
	}
	if (s->d.role == IW_ROLE_INITIATOR)
		return s->drv->ops->accept(s->drv, fd, s->o.dut.connect_timeout_ms, e);
	if (s->have_addr) {
		/* Loopback connects complete at once: a blocking connect is one syscall. Elsewhere a
		 * non-blocking one bounded by the connect timeout. The socket stays blocking; every
		 * send and recv says MSG_DONTWAIT. */
		bool loop = (s->addr.ss_family == AF_INET &&
			     (ntohl(((struct sockaddr_in *)&s->addr)->sin_addr.s_addr) >> 24) == 127) ||
			    (s->addr.ss_family == AF_INET6 &&
			     IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&s->addr)->sin6_addr));
		int f = socket(s->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | (loop ? 0 : SOCK_NONBLOCK), 0);
		if (f < 0)
			return iw_errf(e, IW_ESTATE, "socket: %s", strerror(errno));
		/* No TCP_NODELAY here: a run is one write and a FIN, which Nagle never holds back;
		 * programs that cut or pause set it before their first write (nodelay()). */
		if (connect(f, (struct sockaddr *)&s->addr, s->alen) != 0) {
			if (errno != EINPROGRESS) {
				int err = errno;
				close(f);
				return iw_errf(e, IW_ESTATE, "connect: %s", strerror(err));
			}
			struct pollfd pf = {.fd = f, .events = POLLOUT};
			if (poll(&pf, 1, (int)s->o.dut.connect_timeout_ms) <= 0 || iw_net_connect_result(f, e) != IW_OK) {
				close(f);
				return iw_errf(e, IW_ESTATE, "connect: no connection within %lld ms",
					       (long long)s->o.dut.connect_timeout_ms);
			}
			iw_net_set_nonblock(f, false);
		}
		*fd = f;
		return IW_OK;
	}
	int rc = s->drv->ops->connect(s->drv, fd, s->o.dut.connect_timeout_ms, 0, e);
	if (rc)
		return rc;
	s->alen = sizeof s->addr;
	if (getpeername(*fd, (struct sockaddr *)&s->addr, &s->alen) == 0)
		s->have_addr = true;
	iw_net_set_nonblock(*fd, false);
	return IW_OK;
}

static void sock_close(int fd, bool rst)
{
	if (fd < 0)
		return;
	if (rst)
		iw_net_reset(fd);
	else
		close(fd);
}

/* Liveness: a fresh connection still completes the startup. */
static bool probe(nf_session *s)
{
	int fd = -1;
	iw_err e;
	if (drv_connect(s, &fd, &e) != IW_OK)
		return false;
	const iw_profile *p = s->d.profile;
	bool ok = true;
	if (p->startup_frames) {
		uint8_t buf[1024];
		size_t len = 0;
		if (s->d.role == IW_ROLE_RESPONDER) {
			iw_mpa_frame f;
			iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
			if (iw_mpa_frame_encode(&f, buf, sizeof buf, &len, NULL) != IW_OK ||
			    send(fd, buf, len, MSG_NOSIGNAL) != (ssize_t)len)
				ok = false;
		}
		size_t have = 0, need = IW_MPA_FRAME_HDR_LEN;
		int64_t deadline = now_ms() + 4 * s->timeout_ms + 1000;
		while (ok && have < need) {
			struct pollfd pf = {.fd = fd, .events = POLLIN};
			int64_t left = deadline - now_ms();
			if (left <= 0 || poll(&pf, 1, (int)left) <= 0) {
				ok = false;
				break;
			}
			ssize_t k = recv(fd, buf + have, sizeof buf - have, 0);
			if (k <= 0) {
				ok = false;
				break;
			}
			/* A frame header is an answer: whether its private data is right is the
			 * judge's business, not liveness. */
			have += (size_t)k;
		}
	}
	sock_close(fd, true);
	return ok;
}

/* The DUT did not survive: ask the driver what became of its process, and restart it. */
static void crash_check(nf_session *s, nf_finding *f, const char *req)
{
	iw_dut_finding df;
	memset(&df, 0, sizeof df);
	iw_err e;
	if (s->is_exec) {
		/* A dying process closes its sockets before its parent has reaped it: give the exit
		 * status time to arrive, or stopping the DUT would hide it. */
		struct timespec ts = {0, 60 * 1000000L};
		nanosleep(&ts, NULL);
	}
	if (s->case_open) {
		(void)s->drv->ops->case_end(s->drv, &df, &e);
		s->case_open = false;
		s->have_addr = false;
		s->st.restarts++;
	}
	memset(f, 0, sizeof *f);
	if (df.present) {
		char tail[160];
		size_t n = strlen(df.stderr_tail);
		const char *t = n > 150 ? df.stderr_tail + n - 150 : df.stderr_tail;
		snprintf(tail, sizeof tail, "%.150s", t);
		for (char *c = tail; *c; c++)
			if (*c == '\n' || *c == '\r')
				*c = ' ';
		if (df.crashed)
			nf_find(f, NF_F_CRASH, req, false, "the DUT process was killed by signal %d (%s)", df.signal, tail);
		else
			nf_find(f, NF_F_CRASH, req, false, "the DUT process exited with status %d (%s)", df.exit_code, tail);
	} else {
		nf_find(f, NF_F_DEAD, req, true, "the DUT no longer completes a startup on a fresh connection");
	}
}

/* ---- one run ---- */

static void hex(const char *what, const uint8_t *b, size_t n)
{
	fprintf(stderr, "  %s (%zu):", what, n);
	for (size_t i = 0; i < n && i < 400; i++)
		fprintf(stderr, "%s%02x", i % 32 ? " " : "\n    ", b[i]);
	fprintf(stderr, "\n");
}

static void dump(nf_session *s, const nf_prog *p, const nf_finding *f)
{
	fprintf(stderr, "netfuzz debug: run %llu: %s [%s] %s\n", (unsigned long long)p->run, nf_fkind_name(f->kind), f->req,
		f->detail);
	for (size_t i = 0; i < p->n; i++) {
		char line[400];
		nf_action_describe(p, &p->a[i], line, sizeof line);
		fprintf(stderr, "  %zu. %s\n", i + 1, line);
	}
	fprintf(stderr, "  released=%d failed=%d rejected=%d terminate=%d closed_before_fin=%d early=%d dut_fin=%d dut_rst=%d\n",
		s->c.obs.released, s->c.obs.failed, s->c.obs.frame_rejected, s->c.obs.got_terminate, s->c.obs.closed_before_fin,
		s->c.obs.early_close, s->c.tr.dut_fin, s->c.tr.dut_rst);
	hex("to DUT", s->c.tr.to_dut, s->c.tr.to_len);
	hex("from DUT", s->c.tr.from_dut, s->c.tr.from_len);
	hex("model", s->c.exp, s->c.exp_len);
}

static const char *crash_req(const nf_session *s)
{
	if (s->c.obs.failed && s->c.obs.err.req)
		return s->c.obs.err.req;
	if (s->c.obs.frame_rejected && s->c.obs.reject_viol.req)
		return s->c.obs.reject_viol.req;
	return "DDP-8.2.2-01";
}

static void park(nf_session *s, int k)
{
	s->slots[k] = s->c;
	memset(&s->c, 0, sizeof s->c);
	s->c.fd = -1;
}

static void unpark(nf_session *s, int k)
{
	s->c = s->slots[k];
	memset(&s->slots[k], 0, sizeof s->slots[k]);
	s->slots[k].fd = -1;
}

int nf_run_start(nf_session *s, const nf_prog *p, int slot, iw_err *e)
{
	unpark(s, slot);
	nf_trace *t = &s->c.tr;
	t->record = s->record;
	t->to_len = t->from_len = t->nchunks = 0;
	t->we_fin = t->we_rst = t->dut_fin = t->dut_rst = false;
	t->frame_sent = false;
	t->sent_actions = 0;
	memset(t->act_start, 0, sizeof t->act_start);
	memset(t->act_end, 0, sizeof t->act_end);
	memset(t->act_exp_end, 0, sizeof t->act_exp_end);
	memset(t->act_released, 0, sizeof t->act_released);
	memset(t->act_adv, 0, sizeof t->act_adv);
	memset(&s->c.obs, 0, sizeof s->c.obs);
	memset(&s->c.f, 0, sizeof s->c.f);
	s->c.obs.early_state = -1;
	s->c.p = p;
	s->c.exp_len = 0;
	s->c.sent = 0;
	s->c.split_every = 0;
	s->c.have_adv = false;
	s->c.reset = s->c.gone = false;
	s->st.runs++;

	if (drv_connect(s, &s->c.fd, e) != IW_OK) {
		/* The DUT died with an earlier run (or cannot be reached at all). */
		s->c.fd = -1;
		s->c.gone = true;
		crash_check(s, &s->c.f, "DDP-8.2.2-01");
		bool fatal = !s->is_exec && s->c.f.kind == NF_F_DEAD;
		s->c.f.previous = true; /* an earlier program's: the caller confirms it */
		park(s, slot);
		return fatal ? IW_ESTATE : IW_OK;
	}
	s->c.model = model_take(s);
	if (!s->c.model) {
		sock_close(s->c.fd, true);
		s->c.fd = -1;
		park(s, slot);
		return iw_errf(e, IW_ENOSPC, "no memory for the model");
	}
	model_drain(s); /* an initiator model's Request */
	bool tx_ready = false;
	if (!s->d.profile->startup_frames) {
		iw_mpa_tx_init(&s->c.tx, s->d.profile, true, true);
		tx_ready = true;
		s->c.obs.released = true;
	} else {
		iw_mpa_tx_init(&s->c.tx, s->d.profile, false, true);
	}
	bool alive = true, reset = false;
	size_t i;
	for (i = 0; i < p->n && alive; i++) {
		const nf_action *a = &p->a[i];
		if (iw_conn_wants_close(s->c.model))
			break; /* a conforming DUT has closed: what follows is not its business */
		t->act_start[i] = t->act_end[i] = (uint32_t)t->to_len;
		size_t n = 0;
		switch (a->kind) {
		case NF_A_FRAME:
			n = render_frame(s, p, a);
			if (t->to_len == 0)
				t->frame_sent = true; /* the stream's first octets: a `send request` step */
			alive = emit(s, s->rbuf, n);
			tx_sync(s, &tx_ready);
			break;
		case NF_A_FPDU:
			if (!tx_ready)
				tx_sync(s, &tx_ready);
			if ((a->fp.stag_adv || a->fp.rr_src_adv) && !s->c.have_adv)
				want_greeting(s);
			t->act_adv[i] = (a->fp.stag_adv || a->fp.rr_src_adv) && s->c.have_adv;
			n = render_fpdu(s, p, a);
			alive = emit(s, s->rbuf, n);
			break;
		case NF_A_RAW:
			if (!rreserve(s, a->len + 1)) {
				alive = false;
				break;
			}
			for (size_t k = 0; k < a->len; k++)
				s->rbuf[k] = nf_act_octet(p, a, k);
			alive = emit(s, s->rbuf, a->len);
			if (tx_ready)
				iw_mpa_tx_skip(&s->c.tx, a->len);
			tx_sync(s, &tx_ready);
			break;
		case NF_A_SPLIT:
			if (a->split_every && !s->c.split_every)
				nodelay(s);
			s->c.split_every = a->split_every;
			break;
		case NF_A_SLEEP: {
			nodelay(s);
			alive = flush(s);
			struct timespec ts = {0, (long)a->sleep_us * 1000};
			nanosleep(&ts, NULL);
			/* The DUT may have closed meanwhile (then a conforming DUT had a reason). */
			if (alive && !pull(s, 0))
				alive = false;
			break;
		}
		case NF_A_RESET:
			flush(s);
			reset = true;
			alive = false;
			break;
		default: break;
		}
		t->act_end[i] = (uint32_t)t->to_len;
		t->act_exp_end[i] = (uint32_t)s->c.exp_len;
		t->act_released[i] = s->c.obs.released;
		if (t->dut_fin || t->dut_rst)
			note_dut_close(s);
	}
	if (alive)
		alive = flush(s);
	t->sent_actions = i;
	if (t->dut_fin || t->dut_rst)
		note_dut_close(s);
	s->c.obs.closed_before_fin = iw_conn_wants_close(s->c.model);
	s->c.reset = reset;
	if (reset) {
		t->we_rst = true;
		sock_close(s->c.fd, true);
		s->c.fd = -1;
	} else if (!s->c.obs.stuck_writing && !t->dut_rst) {
		shutdown(s->c.fd, SHUT_WR);
		t->we_fin = true;
	}
	iw_conn_peer_closed(s->c.model);
	model_drain(s);
	park(s, slot);
	return IW_OK;
}

int nf_run_finish(nf_session *s, int slot, nf_finding *f, iw_err *e)
{
	(void)e;
	unpark(s, slot);
	nf_trace *t = &s->c.tr;
	const nf_prog *p = s->c.p;
	*f = s->c.f;
	if (s->c.gone) {
		if (f->kind != NF_F_NONE)
			s->st.findings++;
		park(s, slot);
		return IW_OK;
	}
	if (!s->c.reset) {
		/* The next run's model (a few hundred KiB to reserve and zero) is made while the DUT
		 * works on this one. */
		if (!s->spare)
			s->spare = model_make(s);
		/* Read first (the answer is often in already), poll only when nothing is there. */
		int64_t deadline = now_ms() + s->run_timeout_ms;
		while (!s->c.obs.stuck_writing && !t->dut_fin && !t->dut_rst && !s->c.obs.got_overflow) {
			if (!grow(&t->from_dut, &t->from_cap, t->from_len + 16384))
				break;
			if (t->from_len >= RX_CAP) {
				s->c.obs.got_overflow = true;
				break;
			}
			ssize_t k = recv(s->c.fd, t->from_dut + t->from_len, t->from_cap - t->from_len, MSG_DONTWAIT);
			if (k > 0) {
				chunk(s, 1, t->from_len, (size_t)k);
				t->from_len += (size_t)k;
				continue;
			}
			if (k == 0) {
				t->dut_fin = true;
				break;
			}
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				t->dut_rst = true;
				break;
			}
			int64_t left = deadline - now_ms();
			struct pollfd pf = {.fd = s->c.fd, .events = POLLIN};
			if (left <= 0 || poll(&pf, 1, (int)left) == 0) {
				s->c.obs.timed_out = true;
				break;
			}
		}
		/* A DUT that did not close gets an RST: nothing of it lingers. */
		sock_close(s->c.fd, s->c.obs.timed_out || s->c.obs.stuck_writing);
		s->c.fd = -1;
		s->c.obs.dut = &s->d;
		s->c.obs.p = s->d.profile;
		s->c.obs.model = s->c.model;
		s->c.obs.exp = s->c.exp;
		s->c.obs.exp_len = s->c.exp_len;
		s->c.obs.got = t->from_dut;
		s->c.obs.got_len = t->from_len;
		s->c.obs.dut_fin = t->dut_fin;
		s->c.obs.dut_rst = t->dut_rst;
		nf_judge(&s->dec, &s->c.obs, f, &s->ex);
	}
	/* Suspected trouble, or asked to: is the DUT still there? */
	if (f->kind != NF_F_NONE || s->probe_after || s->c.reset) {
		if ((f->kind != NF_F_NONE || s->probe_after || s->is_exec) && !probe(s))
			crash_check(s, f, crash_req(s));
	}
	if (s->debug && f->kind != NF_F_NONE)
		dump(s, p, f);
	iw_conn_params prm;
	iw_conn_params_get(s->c.model, &prm);
	t->markers_tx = prm.markers_tx;
	t->crc = prm.crc;
	t->exp = s->c.exp;
	t->exp_len = s->c.exp_len;
	iw_conn_free(s->c.model);
	s->c.model = NULL;
	if (f->kind != NF_F_NONE)
		s->st.findings++;
	park(s, slot);
	return IW_OK;
}

int nf_run(nf_session *s, const nf_prog *p, nf_finding *f, iw_err *e)
{
	memset(f, 0, sizeof *f);
	int rc = nf_run_start(s, p, 0, e);
	if (rc)
		return rc;
	return nf_run_finish(s, 0, f, e);
}

/* ---- calibration ---- */

static int calibrate(nf_session *s, iw_err *e)
{
	const iw_profile *p = s->d.profile;
	int fd;
	int rc = drv_connect(s, &fd, e);
	if (rc)
		return rc;
	iw_net_set_nonblock(fd, false);
	uint8_t buf[4096];
	size_t have = 0;
	bool markers = p->markers_always, crc = true;
	s->d.markers = p->markers_always;
	s->d.crc = p->crc_always;
	int64_t tmo = s->timeout_ms * 4 + 1000;
	iw_mpa_frame f;
	size_t flen = 0;
	if (p->startup_frames) {
		enum iw_mpa_kind ours = s->d.role == IW_ROLE_RESPONDER ? IW_MPA_REQUEST : IW_MPA_REPLY;
		iw_mpa_frame_init(&f, p, ours);
		size_t len;
		if (s->d.role == IW_ROLE_RESPONDER) {
			iw_mpa_frame_encode(&f, buf, sizeof buf, &len, NULL);
			iw_net_write_all(fd, buf, len, tmo, NULL);
		}
		/* Its frame. */
		iw_mpa_frame g;
		for (;;) {
			size_t n = 0;
			int st = iw_net_read(fd, buf + have, sizeof buf - have, tmo, &n, e);
			int dr = iw_mpa_frame_decode(p, buf, have + (st == IW_NET_DATA ? n : 0), &g, &flen, NULL);
			if (st != IW_NET_DATA) {
				if (dr == IW_ETRUNC && have >= IW_MPA_FRAME_HDR_LEN) {
					/* Its frame promises more than it sends (a finding for the runs to
					 * make): its header is all calibration needs. */
					flen = have;
					break;
				}
				close(fd);
				return iw_errf(e, IW_ESTATE, "calibration: the DUT sent no startup frame in answer to a "
					       "conforming one");
			}
			have += n;
			if (dr == IW_OK)
				break;
			if (have == sizeof buf) {
				close(fd);
				return iw_errf(e, IW_ESTATE, "calibration: the DUT's startup frame does not decode");
			}
		}
		markers = g.m;
		crc = g.c || f.c;
		s->d.markers = g.m;
		s->d.crc = g.c;
		s->d.rev = g.rev;
		if (s->d.role == IW_ROLE_INITIATOR) {
			iw_mpa_frame_encode(&f, buf + have, sizeof buf - have, &len, NULL);
			iw_net_write_all(fd, buf + have, len, tmo, NULL);
		}
	}
	/* A Send: a reflector echoes it (and may greet first). */
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p, markers, crc);
	iw_ddp_hdr h;
	memset(&h, 0, sizeof h);
	h.last = true;
	h.dv = p->ddp_version;
	h.rsvdulp[0] = iw_rdmap_ctrl(p->rdmap_version, IW_OP_SEND);
	h.qn = IW_QN_SEND;
	h.msn = 1;
	uint8_t hb[IW_DDP_UNTAGGED_HDR_LEN], out[256];
	size_t hl, w;
	iw_ddp_hdr_encode(&h, hb, sizeof hb, &hl, NULL);
	iw_mpa_tx_fpdu(&tx, hb, hl, (const uint8_t *)CALIB_TEXT, sizeof CALIB_TEXT - 1, NULL, out, sizeof out, &w, NULL);
	iw_net_write_all(fd, out, w, tmo, NULL);
	size_t start = have >= flen ? flen : have;
	uint8_t *rx = buf;
	size_t rlen = have;
	int64_t deadline = now_ms() + tmo;
	s->d.reflector = s->d.greeting = false;
	while (now_ms() < deadline) {
		nf_finding scratch;
		memset(&scratch, 0, sizeof scratch);
		nf_decode_msgs(&s->dec, p, rx + start, rlen - start, markers, crc, &s->dec.dut, &scratch);
		bool seen_send = false;
		for (size_t i = 0; i < s->dec.dut.n; i++) {
			const nf_msgrec *m = &s->dec.dut.m[i];
			if (m->opcode == IW_OP_SEND && m->len == sizeof CALIB_TEXT - 1 &&
			    !memcmp(s->dec.dut.data + m->off, CALIB_TEXT, m->len))
				s->d.reflector = true;
			else if (!seen_send && m->opcode == IW_OP_SEND && iw_greeting_len_ok(m->len))
				s->d.greeting = true; /* its first Send: the reflector's greeting */
			if (m->opcode == IW_OP_SEND)
				seen_send = true;
		}
		if (s->d.reflector || rlen == sizeof buf)
			break;
		size_t n = 0;
		int st = iw_net_read(fd, rx + rlen, sizeof buf - rlen, deadline - now_ms(), &n, NULL);
		if (st != IW_NET_DATA)
			break;
		rlen += n;
	}
	iw_net_reset(fd);
	return IW_OK;
}

/* ---- session ---- */

int nf_session_open(nf_session **out, const nf_opts *o, iw_err *e)
{
	*out = NULL;
	nf_session *s = calloc(1, sizeof *s);
	if (!s)
		return iw_errf(e, IW_ENOSPC, "out of memory");
	s->o = *o;
	s->c.fd = -1;
	for (int k = 0; k < NF_SLOTS; k++)
		s->slots[k].fd = -1;
	s->d.profile = o->dut.profile ? o->dut.profile : iw_profile_default();
	s->d.role = o->dut.role;
	s->is_exec = !strncmp(o->dut.dut, "exec:", 5);
	bool is_ref = !strncmp(o->dut.dut, "ref", 3);
	s->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : is_ref ? 250 : 2000;
	s->run_timeout_ms = s->timeout_ms;
	s->debug = getenv("IWSPEC_NETFUZZ_DEBUG") != NULL;
	s->adv_mem = calloc(1, ADV_LEN);
	if (!s->adv_mem || nf_dec_init(&s->dec)) {
		nf_session_close(s);
		return iw_errf(e, IW_ENOSPC, "out of memory");
	}
	int rc = iw_driver_open(&s->drv, &s->o.dut, e);
	if (rc) {
		s->drv = NULL;
		nf_session_close(s);
		return rc;
	}
	rc = calibrate(s, e);
	if (rc) {
		nf_session_close(s);
		return rc;
	}
	iw_conn_config_default(&s->mcfg, s->d.profile, (enum iw_role)s->d.role);
	s->mcfg.want_markers = s->d.markers;
	s->mcfg.out_cap = MODEL_OUT;
	s->mcfg.stream = 1;
	s->mcfg.pd_id = 1;
	*out = s;
	return IW_OK;
}

void nf_session_close(nf_session *s)
{
	if (!s)
		return;
	for (int k = 0; k < NF_SLOTS; k++) {
		if (s->slots[k].fd >= 0)
			close(s->slots[k].fd);
		iw_conn_free(s->slots[k].model);
		free(s->slots[k].exp);
		free(s->slots[k].tr.to_dut);
		free(s->slots[k].tr.from_dut);
		free(s->slots[k].tr.chunks);
	}
	if (s->c.fd >= 0)
		close(s->c.fd);
	if (s->drv) {
		if (s->case_open) {
			iw_dut_finding df;
			iw_err e;
			s->drv->ops->case_end(s->drv, &df, &e);
		}
		iw_driver_close(s->drv);
	}
	iw_conn_free(s->c.model);
	iw_conn_free(s->spare);
	nf_dec_free(&s->dec);
	free(s->adv_mem);
	free(s->c.exp);
	free(s->rbuf);
	free(s->c.tr.to_dut);
	free(s->c.tr.from_dut);
	free(s->c.tr.chunks);
	free(s->ex.data);
	free(s);
}

const nf_dutinfo *nf_session_dut(const nf_session *s) { return &s->d; }
const nf_trace *nf_session_trace(const nf_session *s) { return &s->slots[0].tr; }
void nf_session_record(nf_session *s, bool on) { s->record = on; }
const nf_expect *nf_session_expect(const nf_session *s) { return &s->ex; }
const nf_stats *nf_session_stats(const nf_session *s) { return &s->st; }

void nf_session_confirming(nf_session *s, bool on)
{
	s->probe_after = on;
	s->run_timeout_ms = on ? s->timeout_ms * 4 : s->timeout_ms;
}

int nf_session_replay(nf_session *s, const char *text, bool clean, int *verdict, iw_err *e)
{
	iw_case *c = NULL;
	int rc = iw_case_parse(text, strlen(text), "finding.iwt", &c, e);
	if (rc)
		return rc;
	iw_run_opts o;
	memset(&o, 0, sizeof o);
	o.dut = s->o.dut;
	o.seed = 1;
	o.seg = IW_SEG_NONE;
	iw_driver *drv = s->drv;
	if (clean) {
		iw_dut_config_default(&o.dut);
		o.dut.profile = s->d.profile;
		o.dut.role = s->d.role;
		rc = iw_driver_open(&drv, &o.dut, e);
		if (rc) {
			iw_case_free(c);
			return rc;
		}
	} else if (s->case_open) {
		/* The case begins and ends the DUT itself (an exec'd DUT is restarted). */
		iw_dut_finding df;
		iw_err ce;
		s->drv->ops->case_end(s->drv, &df, &ce);
		s->case_open = false;
		s->have_addr = false;
	}
	iw_case_result *r = calloc(1, sizeof *r);
	if (!r) {
		if (clean)
			iw_driver_close(drv);
		iw_case_free(c);
		return iw_errf(e, IW_ENOSPC, "out of memory");
	}
	iw_exec_case(c, s->d.profile, s->d.role, &o, drv, r);
	*verdict = (int)r->verdict;
	iw_result_clear_wire(r);
	free(r);
	if (clean)
		iw_driver_close(drv);
	iw_case_free(c);
	return IW_OK;
}

const char *nf_fkind_name(enum nf_fkind k)
{
	static const char *const n[NF_F_KIND_COUNT] = {"none", "crash", "dead", "hang", "early-close", "frame",
						       "stream", "extra-message", "missing-message", "wrong-content",
						       "terminate"};
	return (unsigned)k < NF_F_KIND_COUNT ? n[k] : "?";
}
