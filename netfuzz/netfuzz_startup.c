/*
 * netfuzz_startup.c - what the fuzzer learns and checks through a conforming startup:
 * calibration (does the DUT ask for markers, answer with C=1, echo Sends, greet), the liveness
 * probe after a suspected finding, and what became of a DUT that failed it (the exec driver
 * knows whether its process crashed).
 */
#include <string.h>
#include <sys/socket.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "ddp.h"
#include "iw_proto.h"
#include "mpa_frame.h"
#include "net.h"
#include "reflector_greeting.h"
#include "netfuzz_int.h"

int nf_calibrate(nf_session *s, iw_err *e)
{
	const iw_profile *p = s->d.profile;
	int fd;
	int rc = nf_drv_connect(s, &fd, e);
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
	iw_mpa_tx_fpdu(&tx, hb, hl, (const uint8_t *)NF_CALIB_TEXT, sizeof NF_CALIB_TEXT - 1, NULL, out, sizeof out, &w, NULL);
	iw_net_write_all(fd, out, w, tmo, NULL);
	size_t start = have >= flen ? flen : have;
	uint8_t *rx = buf;
	size_t rlen = have;
	int64_t deadline = iw_net_now_ms() + tmo;
	s->d.reflector = s->d.greeting = false;
	while (iw_net_now_ms() < deadline) {
		nf_finding scratch;
		memset(&scratch, 0, sizeof scratch);
		nf_decode_msgs(&s->dec, p, rx + start, rlen - start, markers, crc, &s->dec.dut, &scratch);
		bool seen_send = false;
		for (size_t i = 0; i < s->dec.dut.n; i++) {
			const nf_msgrec *m = &s->dec.dut.m[i];
			if (m->opcode == IW_OP_SEND && m->len == sizeof NF_CALIB_TEXT - 1 &&
			    !memcmp(s->dec.dut.data + m->off, NF_CALIB_TEXT, m->len))
				s->d.reflector = true;
			else if (!seen_send && m->opcode == IW_OP_SEND && iw_greeting_len_ok(m->len))
				s->d.greeting = true; /* its first Send: the reflector's greeting */
			if (m->opcode == IW_OP_SEND)
				seen_send = true;
		}
		if (s->d.reflector || rlen == sizeof buf)
			break;
		size_t n = 0;
		int st = iw_net_read(fd, rx + rlen, sizeof buf - rlen, deadline - iw_net_now_ms(), &n, NULL);
		if (st != IW_NET_DATA)
			break;
		rlen += n;
	}
	iw_net_reset(fd);
	return IW_OK;
}

/* Liveness: a fresh connection still completes the startup. */
bool nf_probe(nf_session *s)
{
	int fd = -1;
	iw_err e;
	if (nf_drv_connect(s, &fd, &e) != IW_OK)
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
		int64_t deadline = iw_net_now_ms() + 4 * s->timeout_ms + 1000;
		while (ok && have < need) {
			struct pollfd pf = {.fd = fd, .events = POLLIN};
			int64_t left = deadline - iw_net_now_ms();
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
	nf_sock_close(fd, true);
	return ok;
}

/* The DUT did not survive: ask the driver what became of its process, and restart it. */
void nf_crash_check(nf_session *s, nf_finding *f, const char *req)
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
