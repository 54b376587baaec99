/*
 * netfuzz_startup.c - what the fuzzer learns and checks through a conforming startup:
 * calibration (does the DUT ask for markers, answer with C=1, echo Sends, greet; is it in the
 * no-CRC mode its configuration declares; how slow is it; what its configuration declares of
 * its application wins over what calibration sees), the liveness probe after a suspected
 * finding, and what became of a DUT that failed it (the exec driver knows whether its process
 * crashed).
 *
 * Every wait here is progress-based: the DUT may take as long as it likes as long as octets
 * keep coming, each octet restarting the liveness timeout, so a slow DUT is never taken for a
 * dead one. The session's deadline (--time) and signals end every wait.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ddp.h"
#include "interrupt.h"
#include "iw_proto.h"
#include "mpa_frame.h"
#include "net.h"
#include "reflector_greeting.h"
#include "netfuzz_int.h"

#define CALIB_CAP (IW_MPA_FRAME_HDR_LEN + 65535u + 8192u)
#define PACE_MAX_MS 60000

static const char *kind_word(enum iw_mpa_kind k) { return k == IW_MPA_REPLY ? "Reply" : "Request"; }

/* How a wait ended, as the end of a sentence ("...; then nothing for 2000 ms"). */
static void ending(char *b, size_t cap, enum nf_rd how, int64_t idle_ms)
{
	switch (how) {
	case NF_RD_EOF: snprintf(b, cap, "it closed the connection (FIN)"); break;
	case NF_RD_RST: snprintf(b, cap, "it reset the connection (RST)"); break;
	case NF_RD_IDLE: snprintf(b, cap, "nothing came for %lld ms", (long long)idle_ms); break;
	default: snprintf(b, cap, "the wait was cut"); break;
	}
}

/* The DUT's startup frame did not complete: why, in the judge's words where it has some (the
 * engine's verdict on the header), and what the DUT did. */
static int startup_failed(nf_session *s, enum nf_rd how, const uint8_t *b, size_t have, enum iw_mpa_kind kind,
			  int64_t t0, int64_t gap, iw_err *e)
{
	const iw_profile *p = s->d.profile;
	const char *kn = kind_word(kind);
	size_t need = IW_MPA_FRAME_HDR_LEN;
	iw_mpa_frame g;
	memset(&g, 0, sizeof g);
	if (have >= IW_MPA_FRAME_HDR_LEN)
		(void)iw_mpa_frame_decode(p, b, have, &g, &need, NULL);
	if (how == NF_RD_CUT) {
		double secs = (double)(iw_net_now_ms() - t0) / 1000.0;
		if (iw_interrupted())
			return iw_errf(e, IW_ETRUNC, "calibration: interrupted while the DUT's %s was arriving (%zu of %zu "
				       "octets)", kn, have, need);
		if (have)
			return iw_errf(e, IW_ETRUNC, "calibration: the time ran out while the DUT's %s was still arriving: "
				       "%zu of %zu octets in %.1f s, up to %lld ms apart. The DUT is slow, not dead: give it "
				       "more --time", kn, have, need, secs, (long long)gap);
		return iw_errf(e, IW_ETRUNC, "calibration: the time ran out before the DUT's %s began (%.1f s, no octet "
			       "yet): give it more --time", kn, secs);
	}
	nf_finding f;
	memset(&f, 0, sizeof f);
	char end[80];
	ending(end, sizeof end, how, s->live_ms);
	const char *missing = kind == IW_MPA_REPLY ? "MPA-6.1-R2a" : "MPA-6.1-R1a";
	const char *to = kind == IW_MPA_REPLY ? " in answer to a conforming Request" : " on its connection";
	if (!nf_judge_frame_head(p, kind, b, have, &f))
		return iw_errf(e, IW_ESTATE, "calibration: the DUT cannot complete a conforming startup: %s [%s]; then %s "
			       "(%zu of its %zu octets came)", f.detail, f.req, end, have, need);
	if (have >= IW_MPA_FRAME_HDR_LEN)
		return iw_errf(e, IW_ESTATE, "calibration: the DUT cannot complete a conforming startup: its %s announces "
			       "PD_Length %u but only %zu octets of private data came, then %s [MPA-6.1.1-08]", kn,
			       (unsigned)g.pd_length, have - IW_MPA_FRAME_HDR_LEN, end);
	if (have)
		return iw_errf(e, IW_ESTATE, "calibration: the DUT cannot complete a conforming startup: it sent %zu of "
			       "the %d header octets of its %s%s, then %s [%s]", have, IW_MPA_FRAME_HDR_LEN, kn, to, end,
			       missing);
	return iw_errf(e, IW_ESTATE, "calibration: the DUT cannot complete a conforming startup: it sent no %s%s: %s "
		       "[%s]", kn, to, end, missing);
}

/* Its startup frame, in buf: read until complete; *gap gets the longest silence. */
static int calib_frame(nf_session *s, int fd, uint8_t *buf, size_t *have, size_t *flen, int64_t *gap, iw_err *e)
{
	const iw_profile *p = s->d.profile;
	enum iw_mpa_kind theirs = s->d.role == IW_ROLE_RESPONDER ? IW_MPA_REPLY : IW_MPA_REQUEST;
	int64_t t0 = iw_net_now_ms(), last = t0;
	size_t need = IW_MPA_FRAME_HDR_LEN;
	for (;;) {
		enum nf_rd r = nf_read_progress(fd, buf, have, need, s->live_ms, s->deadline_ms, &last, gap);
		if (r != NF_RD_DONE)
			return startup_failed(s, r, buf, *have, theirs, t0, *gap, e);
		iw_mpa_frame g;
		size_t fl = 0;
		int rc = iw_mpa_frame_decode(p, buf, *have, &g, &fl, NULL);
		if (rc == IW_OK) {
			*flen = fl;
			return IW_OK;
		}
		if (rc != IW_ETRUNC || fl <= *have)
			return iw_errf(e, IW_ESTATE, "calibration: the DUT's %s does not decode", kind_word(theirs));
		need = fl;
	}
}

/* Writes all of b within the liveness timeout (never past the deadline). */
static void calib_write(nf_session *s, int fd, const uint8_t *b, size_t n)
{
	int64_t tmo = s->live_ms, left = nf_session_time_left(s);
	if (left < tmo)
		tmo = left;
	if (tmo > 0)
		(void)iw_net_write_all(fd, b, n, tmo, NULL);
}

/* How long calibration waits in silence for the echo of its Send: the liveness timeout when
 * it alone decides whether the DUT runs a reflector; the reaction timeout when the
 * configuration declares it (the answer then only feeds the note of a disagreement, and a DUT
 * declared to run none would cost the liveness timeout of every session: 9 s against a tcp:
 * DUT). */
static int64_t echo_wait(const nf_session *s)
{
	return s->o.dut.ulp_set || s->o.dut.reflector_set ? s->timeout_ms : s->live_ms;
}

/* After the startup: a Send. A reflector echoes it (and may greet first). Markers go one way
 * each: ours (markers_tx) where the DUT's frame asked for them, the DUT's (markers_rx) where ours
 * did, so the DUT's octets are read with markers_rx (M=1 in the DUT's Reply and none in our
 * Request: its Sends carry no markers; reading them with markers found neither the echo nor the
 * greeting, and every run then judged the greeting an extra message). */
static void calib_reflector(nf_session *s, int fd, uint8_t *buf, size_t have, size_t flen, bool markers_tx,
			    bool markers_rx, bool crc)
{
	const iw_profile *p = s->d.profile;
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p, markers_tx, crc);
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
	iw_mpa_tx_fpdu(&tx, hb, hl, (const uint8_t *)NF_CALIB_TEXT, sizeof NF_CALIB_TEXT - 1, NULL, out, sizeof out, &w,
		       NULL);
	calib_write(s, fd, out, w);
	size_t rlen = have;
	int64_t idle = echo_wait(s), last = iw_net_now_ms(), gap = 0, until = last + 4 * idle;
	if (s->deadline_ms && s->deadline_ms < until)
		until = s->deadline_ms;
	s->d.seen_reflector = s->d.seen_greeting = false;
	for (;;) {
		nf_finding scratch;
		memset(&scratch, 0, sizeof scratch);
		nf_decode_msgs(&s->dec, p, buf + flen, rlen - flen, markers_rx, crc, &s->dec.dut, &scratch);
		bool seen_send = false;
		for (size_t i = 0; i < s->dec.dut.n; i++) {
			const nf_msgrec *m = &s->dec.dut.m[i];
			if (m->opcode == IW_OP_SEND && m->len == sizeof NF_CALIB_TEXT - 1 &&
			    !memcmp(s->dec.dut.data + m->off, NF_CALIB_TEXT, m->len))
				s->d.seen_reflector = true;
			else if (!seen_send && m->opcode == IW_OP_SEND && iw_greeting_len_ok(m->len))
				s->d.seen_greeting = true; /* its first Send: the reflector's greeting */
			if (m->opcode == IW_OP_SEND)
				seen_send = true;
		}
		if (s->d.seen_reflector || rlen == CALIB_CAP)
			break;
		/* At least one more octet (progress-based), then whatever else is there. */
		if (nf_read_progress(fd, buf, &rlen, rlen + 1, idle, until, &last, &gap) != NF_RD_DONE)
			break;
		ssize_t k = recv(fd, buf + rlen, CALIB_CAP - rlen, MSG_DONTWAIT);
		if (k > 0)
			rlen += (size_t)k;
	}
}

/* The application the configuration names, as its key says it. */
static void declared_words(const iw_dut_config *c, char *b, size_t cap)
{
	static const char *const ulp[] = {"reflector", "rping", "none", "perftest-send", "perftest-write",
					  "perftest-read", "perftest", "perftest-send-lat"};
	if (c->ulp_set && c->ulp >= 0 && (size_t)c->ulp < sizeof ulp / sizeof ulp[0])
		snprintf(b, cap, "ulp = %s", ulp[c->ulp]);
	else
		snprintf(b, cap, "reflector = %s", c->reflector ? "yes" : "no");
}

/* What the DUT's application does: what its configuration declares (`ulp`, `reflector`) when it
 * declares it, else what calibration saw. Calibration is a guess from one connection (it read a
 * markers DUT's greeting with the wrong framing and saw none, and every run then reported the
 * greeting as a message a conforming DUT does not send), the declaration is the user's word: it
 * wins, and a disagreement is said in one line. A declared reflector is docs/reflector.md's,
 * which greets; any other application neither echoes nor greets. */
static void settle_ulp(nf_session *s)
{
	const iw_dut_config *c = &s->o.dut;
	s->d.ulp_declared = c->ulp_set || c->reflector_set;
	s->d.ulp_note[0] = '\0';
	if (!s->d.ulp_declared) {
		s->d.reflector = s->d.seen_reflector;
		s->d.greeting = s->d.seen_greeting;
		return;
	}
	s->d.reflector = s->d.greeting = c->reflector && c->ulp == IW_ULP_REFLECTOR;
	if (s->d.reflector == s->d.seen_reflector && s->d.greeting == s->d.seen_greeting)
		return;
	char decl[40];
	declared_words(c, decl, sizeof decl);
	snprintf(s->d.ulp_note, sizeof s->d.ulp_note, "the DUT configuration declares %s (echo %s, greeting %s), "
		 "calibration saw echo %s, greeting %s (waiting up to %lld ms): fuzzing with the declaration's", decl,
		 s->d.reflector ? "yes" : "no", s->d.greeting ? "yes" : "no", s->d.seen_reflector ? "yes" : "no",
		 s->d.seen_greeting ? "yes" : "no", (long long)echo_wait(s));
}

/* A responder declared `crc = optional-off` answers a Request with C=1 with C=1 whatever its
 * mode (MPA-6.1.1-C1): only a Request with C=0 shows whether its administrator turned CRCs off.
 * Without asking, the model (default mode) answered the runs' C=0 Requests with C=1 and every
 * C=0 Reply of the DUT was reported as MPA-5.2-03. So a second connection asks with C=0. */
static int calib_crc_mode(nf_session *s, iw_err *e)
{
	const iw_profile *p = s->d.profile;
	int fd;
	int rc = nf_drv_connect(s, &fd, e);
	if (rc)
		return rc == IW_ETRUNC ? rc : iw_errf(e, IW_ESTATE, "calibration: asking for no CRC: %.300s", e->msg);
	uint8_t *buf = malloc(CALIB_CAP);
	if (!buf) {
		iw_net_reset(fd);
		return iw_errf(e, IW_ENOSPC, "out of memory");
	}
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	f.c = false;
	uint8_t mine[64];
	size_t len = 0, have = 0, flen = 0;
	int64_t gap = 0;
	iw_mpa_frame_encode(&f, mine, sizeof mine, &len, NULL);
	calib_write(s, fd, mine, len);
	rc = calib_frame(s, fd, buf, &have, &flen, &gap, e);
	if (rc == IW_OK) {
		iw_mpa_frame g;
		iw_mpa_frame_decode(p, buf, flen, &g, NULL, NULL);
		s->d.crc_off = !g.c;
	}
	iw_net_reset(fd);
	free(buf);
	if (rc && rc != IW_ETRUNC) {
		char why[sizeof e->msg];
		snprintf(why, sizeof why, "%s", e->msg);
		return iw_errf(e, rc, "%.700s (to a Request with C=0, which a DUT declared crc = optional-off takes)", why);
	}
	return rc;
}

int nf_calibrate(nf_session *s, iw_err *e)
{
	const iw_profile *p = s->d.profile;
	int fd;
	int rc = nf_drv_connect(s, &fd, e);
	if (rc == IW_NET_ERESET_AT_ONCE && p->startup_frames) {
		/* It accepted and reset before its frame: a startup it cannot complete, not an
		 * unreachable DUT (whether the reset lands before or after connect() returns is a race). */
		enum iw_mpa_kind theirs = s->d.role == IW_ROLE_RESPONDER ? IW_MPA_REPLY : IW_MPA_REQUEST;
		return startup_failed(s, NF_RD_RST, NULL, 0, theirs, iw_net_now_ms(), 0, e);
	}
	if (rc) {
		char why[sizeof e->msg];
		snprintf(why, sizeof why, "%s", e->msg);
		if (rc == IW_ETRUNC)
			return iw_errf(e, IW_ETRUNC, "calibration: %s", why);
		return iw_errf(e, IW_ESTATE, "cannot reach the DUT (%.80s): %s", s->o.dut.dut, why);
	}
	uint8_t *buf = malloc(CALIB_CAP);
	if (!buf) {
		iw_net_reset(fd);
		return iw_errf(e, IW_ENOSPC, "out of memory");
	}
	size_t have = 0, flen = 0;
	bool markers_tx = p->markers_always, markers_rx = p->markers_always, crc = true;
	s->d.markers = p->markers_always;
	s->d.crc = p->crc_always;
	int64_t gap = 0;
	if (p->startup_frames) {
		enum iw_mpa_kind ours = s->d.role == IW_ROLE_RESPONDER ? IW_MPA_REQUEST : IW_MPA_REPLY;
		iw_mpa_frame f;
		iw_mpa_frame_init(&f, p, ours);
		uint8_t mine[64];
		size_t len = 0;
		iw_mpa_frame_encode(&f, mine, sizeof mine, &len, NULL);
		if (s->d.role == IW_ROLE_RESPONDER)
			calib_write(s, fd, mine, len);
		rc = calib_frame(s, fd, buf, &have, &flen, &gap, e);
		if (rc) {
			iw_net_reset(fd);
			free(buf);
			return rc;
		}
		iw_mpa_frame g;
		iw_mpa_frame_decode(p, buf, flen, &g, NULL, NULL);
		/* A complete frame the engine rejects: the fuzzer can go on, and every run reports it. */
		nf_finding v;
		memset(&v, 0, sizeof v);
		enum iw_mpa_kind theirs = ours == IW_MPA_REQUEST ? IW_MPA_REPLY : IW_MPA_REQUEST;
		if (!nf_judge_frame_head(p, theirs, buf, flen, &v))
			snprintf(s->d.startup, sizeof s->d.startup, "%s [%s]", v.detail, v.req);
		markers_tx = g.m;
		markers_rx = f.m || p->markers_always;
		crc = g.c || f.c;
		s->d.markers = g.m;
		s->d.crc = g.c;
		s->d.rev = g.rev;
		if (s->d.role == IW_ROLE_INITIATOR)
			calib_write(s, fd, mine, len);
	}
	/* A DUT whose frame came slowly gets as long for every answer: slow is not hung. */
	s->d.pace_ms = gap;
	if (2 * gap > s->timeout_ms) {
		s->timeout_ms = 2 * gap > PACE_MAX_MS ? PACE_MAX_MS : 2 * gap;
		s->d.slow = true;
	}
	s->d.idle_ms = s->run_timeout_ms = s->timeout_ms;
	s->live_ms = 4 * s->timeout_ms + 1000;
	calib_reflector(s, fd, buf, have, flen, markers_tx, markers_rx, crc);
	iw_net_reset(fd);
	free(buf);
	settle_ulp(s);
	if (!s->o.dut.crc_off_mode || !p->startup_frames || p->crc_always)
		return IW_OK;
	if (s->d.role == IW_ROLE_INITIATOR) {
		s->d.crc_off = !s->d.crc; /* its own Request says its mode */
		return IW_OK;
	}
	return calib_crc_mode(s, e);
}

enum nf_live nf_probe(nf_session *s, char *why, size_t cap)
{
	int fd = -1;
	iw_err e;
	if (nf_drv_connect(s, &fd, &e) != IW_OK) {
		if (nf_session_expired(s))
			return NF_LIVE_CUT;
		snprintf(why, cap, "a fresh connection failed: %s", e.msg);
		return NF_DEAD;
	}
	const iw_profile *p = s->d.profile;
	if (!p->startup_frames) {
		nf_sock_close(fd, true);
		return NF_ALIVE;
	}
	const char *kn = s->d.role == IW_ROLE_RESPONDER ? "Reply" : "Request";
	if (s->d.role == IW_ROLE_RESPONDER) {
		uint8_t req[64];
		size_t len = 0;
		iw_mpa_frame f;
		iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
		if (iw_mpa_frame_encode(&f, req, sizeof req, &len, NULL) != IW_OK ||
		    send(fd, req, len, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)len) {
			nf_sock_close(fd, true);
			snprintf(why, cap, "a fresh connection would not take a conforming Request");
			return NF_DEAD;
		}
	}
	/* A frame header is an answer: whether the frame is right is the judge's business. */
	uint8_t hdr[IW_MPA_FRAME_HDR_LEN];
	size_t have = 0;
	int64_t last = iw_net_now_ms(), gap = 0;
	enum nf_rd r = nf_read_progress(fd, hdr, &have, sizeof hdr, s->live_ms, s->deadline_ms, &last, &gap);
	nf_sock_close(fd, true);
	if (r == NF_RD_DONE)
		return NF_ALIVE;
	if (r == NF_RD_CUT)
		return NF_LIVE_CUT;
	char end[80];
	ending(end, sizeof end, r, s->live_ms);
	if (have)
		snprintf(why, cap, "on a fresh connection it sent %zu octets of its %s, then %s", have, kn, end);
	else
		snprintf(why, cap, "on a fresh connection it sent no %s: %s", kn, end);
	return NF_DEAD;
}

void nf_crash_check(nf_session *s, nf_finding *f, const char *req, const char *why)
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
		nf_find(f, NF_F_DEAD, req, true, "the DUT stopped answering: %s", why);
	}
}
