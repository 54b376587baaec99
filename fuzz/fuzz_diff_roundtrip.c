/*
 * fuzz_diff_roundtrip.c - encode with fields the fuzzer chooses, decode, and get the same
 * fields back: every encoder of the engine against its decoder.
 *
 * Input: [mode] then the fields of that mode:
 *   0 startup frame    [profile][kind][flags][res][rev][ird (2)][ord (2)][pd...]
 *   1 DDP header       [control][rsvdulp (5)][stag (4)][to (8)][qn (4)][msn (4)][mo (4)]
 *   2 Read Request     28 octets of fields
 *   3 Terminate        [layer][etype][ecode][flags][seg len (2)][ddp header (18)][rdma header (28)]
 *   4 FPDU stream      [profile][flags: 1 markers, 2 CRC, bits 4-5 chunk mode][skip (2)][seed][count]
 *                      then per FPDU [len (2)][split (2)] + ULPDU
 *   5 two models       [profile][flags][rtr][ird][ord][emss (2)] then operations (see pair())
 *   6 DDP message      [profile][flags][mulpdu (2)][len (2)][seed] + message, segmented,
 *                      encoded, decoded and placed by a sink, possibly out of order
 *
 * Invariants: each decoder returns exactly the encoded fields (modes 0-3); FPDUs framed by
 * iw_mpa_tx decode, cut anywhere, to the same ULPDUs at the predicted positions and sizes with
 * valid CRCs, agreeing markers and no note (4); two conforming models connected back to back
 * complete startup, never report an error, and deliver every Send, Write and Read the other
 * side's ULP issued, octet for octet and in order (5); a segmented message placed by the
 * sink is delivered whole and equal (6).
 */
#include <string.h>

#include "ddp.h"
#include "ddp_sink.h"
#include "fuzz.h"
#include "iw_conn.h"
#include "iw_proto.h"
#include "mpa_fpdu.h"
#include "mpa_frame.h"
#include "mpa_markers.h"
#include "mpa_rx.h"
#include "rdmap.h"

/* ---- 0: startup frame ---- */

static void rt_frame(fz *f)
{
	const iw_profile *p = fz_profile(f);
	enum iw_mpa_kind kind = fz_bool(f) ? IW_MPA_REPLY : IW_MPA_REQUEST;
	uint8_t fl = fz_u8(f);
	iw_mpa_frame a;
	iw_mpa_frame_init(&a, p, kind);
	if (p->startup_frames) {
		/* A frame as the profile makes it is acceptable as it is (MPA-6.1.1-*). */
		iw_violation vs[8];
		iw_viol_list l = { .v = vs, .cap = 8 };
		FZ_CHECK(iw_mpa_frame_check(p, &a, kind, &l) && l.n == 0, "default %s frame of %s has a defect: %s",
			 kind == IW_MPA_REQUEST ? "Request" : "Reply", p->name, l.n ? vs[0].detail : "");
	}
	a.m = fl & 1;
	a.c = fl & 2;
	a.r = fl & 4;
	a.p2p = fl & 8;
	a.rtr_send = fl & 16;
	a.rtr_write = fl & 32;
	a.rtr_read = fl & 64;
	a.enhanced = p->enhanced && (fl & 128);
	a.has_irdord = a.enhanced;
	a.res = fz_u8(f) & (p->enhanced ? IW_MPA_RES_MASK_ENH : IW_MPA_RES_MASK_DRAFT);
	if (!p->enhanced)
		a.res &= (uint8_t)~IW_MPA_FLAG_ENHANCED & IW_MPA_RES_MASK_DRAFT;
	a.rev = fz_u8(f);
	/* 0x10 is the Enhanced flag only in a Rev 2 frame (iw_mpa_frame_enhanced); in another it is
	 * a Res bit, and the frame carries no IRD/ORD block. */
	if (a.enhanced && a.rev != 2) {
		a.enhanced = a.has_irdord = false;
		a.res |= IW_MPA_FLAG_ENHANCED;
	}
	a.ird = fz_u16(f) & IW_MPA_IRDORD_MASK;
	a.ord = fz_u16(f) & IW_MPA_IRDORD_MASK;
	if (!a.has_irdord)
		a.ird = a.ord = 0, a.p2p = a.rtr_send = a.rtr_write = a.rtr_read = false;
	a.pd = fz_rest(f, &a.pd_len);
	uint8_t *buf = malloc(iw_mpa_frame_size(&a));
	FZ_CHECK(buf != NULL, "out of memory");
	size_t n = 0;
	iw_err e;
	int rc = iw_mpa_frame_encode(&a, buf, iw_mpa_frame_size(&a), &n, &e);
	size_t pd_total = a.pd_len + (a.has_irdord ? IW_MPA_IRDORD_LEN : 0);
	if (pd_total > 0xFFFF) {
		FZ_CHECK(rc == IW_EINVAL, "%zu octets of private data encoded", pd_total);
		free(buf);
		return;
	}
	FZ_CHECK(rc == IW_OK && n == IW_MPA_FRAME_HDR_LEN + pd_total, "encode: rc %d, %zu octets: %s", rc, n, e.msg);
	if (p->startup_frames) {
		iw_mpa_frame b;
		size_t flen;
		rc = iw_mpa_frame_decode(p, buf, n, &b, &flen, &e);
		FZ_CHECK(rc == IW_OK && flen == n, "decode: rc %d: %s", rc, e.msg);
		FZ_CHECK(memcmp(a.key, b.key, 16) == 0 && a.m == b.m && a.c == b.c && a.r == b.r &&
				 a.enhanced == b.enhanced && a.res == b.res && a.rev == b.rev, "header fields changed");
		FZ_CHECK(b.pd_length == pd_total, "PD_Length %u for %zu octets", b.pd_length, pd_total);
		bool block = a.has_irdord && pd_total >= IW_MPA_IRDORD_LEN;
		FZ_CHECK(b.has_irdord == block, "IRD/ORD block %d, sent %d", b.has_irdord, block);
		if (block)
			FZ_CHECK(a.ird == b.ird && a.ord == b.ord && a.p2p == b.p2p && a.rtr_send == b.rtr_send &&
					 a.rtr_write == b.rtr_write && a.rtr_read == b.rtr_read, "IRD/ORD block changed");
		FZ_CHECK(b.pd_len == a.pd_len && (!a.pd_len || memcmp(a.pd, b.pd, a.pd_len) == 0), "private data changed");
	}
	free(buf);
}

/* ---- 1-3: DDP header, Read Request, Terminate ---- */

static void rt_ddp(fz *f)
{
	iw_ddp_hdr a;
	memset(&a, 0, sizeof a);
	uint8_t c = fz_u8(f);
	a.tagged = c & 0x80;
	a.last = c & 0x40;
	a.rsvd = (uint8_t)((c >> 2) & 0x0F);
	a.dv = c & 3;
	for (int i = 0; i < 5; i++)
		a.rsvdulp[i] = fz_u8(f);
	if (a.tagged)
		memset(a.rsvdulp + 1, 0, 4);    /* a tagged header has no room for them */
	a.stag = fz_u32(f);
	a.to = fz_u64(f);
	a.qn = fz_u32(f);
	a.msn = fz_u32(f);
	a.mo = fz_u32(f);
	if (a.tagged)
		a.qn = a.msn = a.mo = 0;
	else
		a.stag = 0, a.to = 0;
	uint8_t buf[IW_DDP_UNTAGGED_HDR_LEN];
	size_t n;
	FZ_CHECK(iw_ddp_hdr_encode(&a, buf, sizeof buf, &n, NULL) == IW_OK && n == iw_ddp_hdr_len(a.tagged), "encode");
	iw_ddp_hdr b;
	size_t hl;
	FZ_CHECK(iw_ddp_hdr_decode(buf, n, &b, &hl, NULL) == IW_OK && hl == n, "decode");
	FZ_CHECK(memcmp(&a, &b, sizeof a) == 0 ||
			 (a.tagged == b.tagged && a.last == b.last && a.rsvd == b.rsvd && a.dv == b.dv &&
			  memcmp(a.rsvdulp, b.rsvdulp, 5) == 0 && a.stag == b.stag && a.to == b.to && a.qn == b.qn &&
			  a.msn == b.msn && a.mo == b.mo), "DDP header fields changed");
	a.rsvd = 16;
	FZ_CHECK(iw_ddp_hdr_encode(&a, buf, sizeof buf, &n, NULL) == IW_EINVAL, "Rsvd 16 encoded");
}

static void rt_read_req(fz *f)
{
	iw_read_req a = { fz_u32(f), fz_u64(f), fz_u32(f), fz_u32(f), fz_u64(f) };
	uint8_t buf[IW_RDMAP_READ_REQ_LEN];
	iw_read_req_encode(&a, buf);
	iw_read_req b;
	FZ_CHECK(iw_read_req_decode(buf, sizeof buf, &b, NULL) == IW_OK, "decode");
	FZ_CHECK(a.sink_stag == b.sink_stag && a.sink_to == b.sink_to && a.size == b.size && a.src_stag == b.src_stag &&
			 a.src_to == b.src_to, "Read Request fields changed");
	FZ_CHECK(iw_read_req_decode(buf, sizeof buf - 1, &b, NULL) == IW_ETRUNC, "27 octets decoded");
}

static void rt_terminate(fz *f)
{
	iw_terminate a;
	memset(&a, 0, sizeof a);
	a.layer = fz_u8(f) & 0x0F;
	a.etype = fz_u8(f) & 0x0F;
	a.ecode = fz_u8(f);
	uint8_t fl = fz_u8(f);
	a.m = fl & 1;
	a.d = fl & 2;
	a.r = fl & 4;
	a.has_rdma_hdr = a.r;
	a.ddp_seg_len = fz_u16(f);
	for (size_t i = 0; i < sizeof a.ddp_hdr; i++)
		a.ddp_hdr[i] = fz_u8(f);
	a.ddp_hdr_len = iw_ddp_hdr_len(a.ddp_hdr[0] & IW_DDP_T);
	memset(a.ddp_hdr + a.ddp_hdr_len, 0, sizeof a.ddp_hdr - a.ddp_hdr_len);
	for (size_t i = 0; i < sizeof a.rdma_hdr; i++)
		a.rdma_hdr[i] = fz_u8(f);
	if (!a.d) {
		a.ddp_seg_len = 0;
		a.ddp_hdr_len = 0;
		memset(a.ddp_hdr, 0, sizeof a.ddp_hdr);
	}
	if (!a.r)
		memset(a.rdma_hdr, 0, sizeof a.rdma_hdr);
	uint8_t buf[64];
	size_t n;
	iw_err e;
	FZ_CHECK(iw_terminate_encode(&a, buf, sizeof buf, &n, &e) == IW_OK, "encode: %s", e.msg);
	iw_terminate b;
	FZ_CHECK(iw_terminate_decode(buf, n, &b, &e) == IW_OK, "decode: %s", e.msg);
	FZ_CHECK(memcmp(&a, &b, sizeof a) == 0 ||
			 (a.layer == b.layer && a.etype == b.etype && a.ecode == b.ecode && a.m == b.m && a.d == b.d &&
			  a.r == b.r && a.has_rdma_hdr == b.has_rdma_hdr && a.ddp_seg_len == b.ddp_seg_len &&
			  a.ddp_hdr_len == b.ddp_hdr_len && memcmp(a.ddp_hdr, b.ddp_hdr, sizeof a.ddp_hdr) == 0 &&
			  memcmp(a.rdma_hdr, b.rdma_hdr, sizeof a.rdma_hdr) == 0), "Terminate fields changed");
	if (n)
		FZ_CHECK(iw_terminate_decode(buf, n - 1, &b, NULL) == IW_ETRUNC, "a cut Terminate decoded");
}

/* ---- 4: FPDU stream ---- */

#define RT_MAX_FPDU 32

static iw_mpa_rx rx;
static iw_fpdu fp;

static void rt_fpdus(fz *f)
{
	const iw_profile *p = fz_profile(f);
	uint8_t fl = fz_u8(f);
	uint32_t skip = fz_u16(f);
	uint32_t seed = fz_u8(f) + 1u;
	size_t count = fz_u8(f) % (RT_MAX_FPDU + 1);
	/* FPDUs start at multiples of 4 in every conforming stream (A23): FPDUPTR cannot even
	 * express another distance (its low two bits are reserved, MPA-5.1-05). */
	skip &= ~3u;
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, p, fl & 1, fl & 2);
	iw_mpa_tx_skip(&tx, skip);
	static uint8_t ulpdu[RT_MAX_FPDU][65535];
	size_t L[RT_MAX_FPDU], split[RT_MAX_FPDU], wire[RT_MAX_FPDU];
	uint64_t start[RT_MAX_FPDU];
	size_t total = 0;
	uint64_t pos = tx.pos;
	for (size_t k = 0; k < count; k++) {
		uint16_t l = fz_u16(f);
		L[k] = (l & 0x8000) ? l : l % 1500;
		if (!f->n && L[k] > 64)
			L[k] = 64;
		split[k] = fz_u16(f) % (L[k] + 1);
		size_t got;
		const uint8_t *src = fz_take(f, L[k], &got);
		memcpy(ulpdu[k], src, got);
		for (size_t i = got; i < L[k]; i++)
			ulpdu[k][i] = (uint8_t)fz_rng(&seed);
		iw_mpa_tx t = tx;
		t.pos = pos;
		wire[k] = iw_mpa_tx_size(&t, L[k]);
		start[k] = pos;
		pos += wire[k];
		total += wire[k];
	}
	uint8_t *s = malloc(total ? total : 1);
	FZ_CHECK(s != NULL, "out of memory");
	size_t off = 0;
	for (size_t k = 0; k < count; k++) {
		size_t n = 0;
		iw_err e;
		int rc = iw_mpa_tx_fpdu(&tx, ulpdu[k], split[k], ulpdu[k] + split[k], L[k] - split[k], NULL, s + off,
					total - off, &n, &e);
		FZ_CHECK(rc == IW_OK && n == wire[k], "FPDU %zu: rc %d, %zu octets, %zu predicted: %s", k, rc, n, wire[k],
			 e.msg);
		off += n;
	}
	iw_mpa_rx_init(&rx, p, fl & 1, fl & 2);
	rx.pos = skip;
	rx.fpdu_start = skip;
	size_t k = 0;
	off = 0;
	while (off < total) {
		size_t end = off + fz_chunk(&seed, fl >> 4, total - off);
		/* Small cuts (modes 0 and 1: one octet, up to seven) matter where the decoder changes
		 * what it reads: an FPDU's end (pad, CRC) and the next one's header, and a marker. In
		 * the middle of a long ULPDU every cut takes the same path, and octet by octet through
		 * up to 32 x 64 KiB that was most of this target's time (about 2 900 exec/s): from 8
		 * octets past such a place, one cut goes to 8 octets before the next. */
		if (((fl >> 4) & 3) < 2 && k < count) {
			uint64_t at = skip + off, next = start[k] + wire[k];
			if (rx.markers && (at | 511) + 1 < next)
				next = (at | 511) + 1;
			bool near = at < start[k] + 8 || (rx.markers && at % 512 < 8);
			if (!near && next > at + 24)
				end = off + (size_t)(next - at - 8);
		}
		while (off < end) {
			size_t used = 0;
			iw_violation err;
			enum iw_rx_status st = iw_mpa_rx_push(&rx, s + off, end - off, &used, &fp, &err);
			off += used;
			FZ_CHECK(st != IW_RX_ERROR, "engine-framed FPDU %zu rejected: %s %s", k, err.req, err.detail);
			if (st != IW_RX_FPDU)
				continue;
			FZ_CHECK(k < count, "more FPDUs decoded than framed");
			FZ_CHECK(fp.start == start[k] && fp.wire_len == wire[k], "FPDU %zu at %llu+%zu, framed at %llu+%zu", k,
				 (unsigned long long)fp.start, fp.wire_len, (unsigned long long)start[k], wire[k]);
			FZ_CHECK(fp.ulpdu_length == L[k] && memcmp(fp.ulpdu, ulpdu[k], L[k]) == 0, "ULPDU %zu changed", k);
			FZ_CHECK(fp.notes == 0, "FPDU %zu has notes 0x%x", k, fp.notes);
			FZ_CHECK(fp.crc_ok || !rx.crc, "FPDU %zu has a bad CRC", k);
			size_t body = 2 + L[k] + iw_mpa_pad_len(L[k]) + 4;
			FZ_CHECK(fp.nmarkers == (rx.markers ? iw_markers_in_fpdu(start[k], body) : 0), "FPDU %zu: %zu markers",
				 k, fp.nmarkers);
			k++;
		}
	}
	FZ_CHECK(k == count && !iw_mpa_rx_partial(&rx), "%zu of %zu FPDUs decoded", k, count);
	free(s);
}

/* ---- 5: two models back to back ---- */

typedef struct side {
	iw_conn *c;
	uint8_t rw[4096], ro[1024];
	uint8_t rw_expect[4096];
	/* What the other side's ULP sent to this one and this one has not yet delivered. */
	struct { unsigned opcode; size_t len; uint8_t data[3000]; } sends[8];
	unsigned nsend_exp, nsend_got;
	unsigned writes_exp, writes_got, reads_done_exp, reads_done_got, serviced_exp, serviced_got;
	bool full;
} side;

static side S[2];

static void pair_drain(int i)
{
	side *me = &S[i];
	iw_conn_event ev;
	while (iw_conn_next_event(me->c, &ev)) {
		FZ_CHECK(ev.kind != IW_EV_ERROR && ev.kind != IW_EV_CLOSE && ev.kind != IW_EV_FRAME_REJECTED &&
				 ev.kind != IW_EV_TERMINATE && ev.kind != IW_EV_PEER_REJECT,
			 "side %d: event %d between conforming models (%s %s)", i, ev.kind,
			 ev.viol.req ? ev.viol.req : "", ev.viol.detail);
		switch (ev.kind) {
		case IW_EV_FULL_OPERATION: me->full = true; break;
		case IW_EV_SEND: {
			FZ_CHECK(me->nsend_got < me->nsend_exp, "side %d: unexpected Send", i);
			unsigned k = me->nsend_got++ % 8;
			FZ_CHECK(ev.opcode == me->sends[k].opcode && ev.len == me->sends[k].len &&
					 (!ev.len || memcmp(ev.data, me->sends[k].data, ev.len) == 0),
				 "side %d: Send %u differs (%zu octets, %zu sent)", i, me->nsend_got, ev.len, me->sends[k].len);
			break;
		}
		case IW_EV_WRITE: me->writes_got++; break;
		case IW_EV_READ_DONE: me->reads_done_got++; break;
		case IW_EV_READ_SERVICED: me->serviced_got++; break;
		default: break;
		}
	}
}

static void pump(void)
{
	for (int round = 0; round < 64; round++) {
		bool moved = false;
		for (int i = 0; i < 2; i++) {
			size_t n;
			const uint8_t *o = iw_conn_output_peek(S[i].c, &n);
			if (n) {
				size_t used = iw_conn_input(S[1 - i].c, o, n);
				FZ_CHECK(used == n, "side %d took %zu of %zu octets", 1 - i, used, n);
				iw_conn_output_consume(S[i].c, n);
				moved = true;
			}
			pair_drain(0);
			pair_drain(1);
		}
		if (!moved)
			return;
	}
	FZ_CHECK(0, "the two models never go quiet");
}

static void rt_pair(fz *f)
{
	const iw_profile *p = fz_profile(f);
	uint8_t fl = fz_u8(f);
	uint8_t rtr = fz_u8(f);
	uint16_t ird = fz_u8(f), ord = fz_u8(f);
	uint32_t emss = fz_u16(f);
	memset(S, 0, sizeof S);
	for (int i = 0; i < 2; i++) {
		iw_conn_config cfg;
		iw_conn_config_default(&cfg, p, i == 0 ? IW_ROLE_INITIATOR : IW_ROLE_RESPONDER);
		cfg.want_markers = fl & (i == 0 ? 1 : 2);
		cfg.crc_admin_off = fl & (i == 0 ? 4 : 8);
		cfg.want_crc = !(fl & 16);
		cfg.p2p = fl & 32;
		/* The responder must be able to pick one type the initiator offers, or RFC 6581's
		 * code 7 ends the connection, as it should. */
		unsigned irtr = rtr & 7 ? rtr & 7 : IW_RTR_SEND, rrtr = (rtr >> 4) & 7;
		if (!(rrtr & irtr))
			rrtr |= irtr;
		cfg.rtr = i == 0 ? irtr : rrtr;
		cfg.ird = ird;
		cfg.ord = ord;
		cfg.emss = emss;
		cfg.recv_buffers = 8;
		cfg.recv_buffer_size = 4096;
		cfg.stream = 3;
		cfg.pd_id = 4;
		iw_err e;
		FZ_CHECK(iw_conn_new(&S[i].c, &cfg, &e) == IW_OK, "new: %s", e.msg);
		for (size_t k = 0; k < sizeof S[i].ro; k++)
			S[i].ro[k] = (uint8_t)(k * 13 + (size_t)i);
		memcpy(S[i].rw_expect, S[i].rw, sizeof S[i].rw);
		FZ_CHECK(iw_conn_register(S[i].c, 0x100, 0, S[i].rw, sizeof S[i].rw, IW_ACCESS_REMOTE_WRITE, &e) == IW_OK &&
				 iw_conn_register(S[i].c, 0x200, 0x1000, S[i].ro, sizeof S[i].ro, IW_ACCESS_REMOTE_READ,
						  &e) == IW_OK, "register: %s", e.msg);
	}
	iw_err e;
	FZ_CHECK(iw_conn_start(S[0].c, &e) == IW_OK && iw_conn_start(S[1].c, &e) == IW_OK, "start: %s", e.msg);
	pump();
	FZ_CHECK(S[0].full && S[1].full, "startup did not complete (initiator %d, responder %d)", S[0].full, S[1].full);
	/* MPA-6.1-R4: the responder's FPDUs wait until one has arrived from the initiator (an
	 * RFC 6581 RTR message or the initiator's first message); culley has no such wait. */
	bool released = !p->startup_frames || (p->enhanced && (fl & 32));
	for (int nop = 0; f->n && nop < 48; nop++) {
		uint8_t op = fz_u8(f);
		int i = op & 1;         /* the side whose ULP acts */
		side *me = &S[i], *peer = &S[1 - i];
		size_t len = fz_u16(f) % 3000;
		uint16_t at = fz_u16(f);
		uint8_t data[3000];
		size_t got;
		const uint8_t *src = fz_take(f, len, &got);
		memcpy(data, src, got);
		for (size_t k = got; k < len; k++)
			data[k] = (uint8_t)(k ^ (size_t)op);
		int rc;
		switch ((op >> 1) % 3) {
		case 0: {
			unsigned opcode = (op & 8) ? IW_OP_SEND_SE : IW_OP_SEND;
			rc = iw_conn_send(me->c, opcode, data, len, &e);
			FZ_CHECK(rc == IW_OK, "Send: %s", e.msg);
			unsigned k = peer->nsend_exp++ % 8;
			peer->sends[k].opcode = opcode;
			peer->sends[k].len = len;
			memcpy(peer->sends[k].data, data, len);
			break;
		}
		case 1: {
			size_t to = at % 2048;
			if (len > 2048 - to)
				len = 2048 - to;
			rc = iw_conn_write(me->c, 0x100, to, data, len, &e);
			FZ_CHECK(rc == IW_OK, "Write: %s", e.msg);
			memcpy(peer->rw_expect + to, data, len);
			peer->writes_exp++;
			break;
		}
		default: {
			size_t to = at % 1024;
			if (len > 1024 - to)
				len = 1024 - to;
			size_t sink = 2048 + (at >> 10) % 1024;
			if (len > 4096 - sink)
				len = 4096 - sink;
			iw_read_req rr = { .sink_stag = 0x100, .sink_to = sink, .size = (uint32_t)len, .src_stag = 0x200,
					   .src_to = 0x1000 + to };
			rc = iw_conn_read(me->c, &rr, &e);
			FZ_CHECK(rc == IW_OK || rc == IW_ENOSPC, "Read: %s", e.msg);
			if (rc == IW_OK) {
				memcpy(me->rw_expect + sink, peer->ro + to, len);
				me->reads_done_exp++;
				peer->serviced_exp++;
			}
			break;
		}
		}
		pump();
		if (i == 0 && rc == IW_OK)
			released = true;
		for (int s = 0; s < 2 && released; s++) {
			FZ_CHECK(S[s].nsend_got == S[s].nsend_exp, "side %d: %u of %u Sends delivered", s, S[s].nsend_got,
				 S[s].nsend_exp);
			FZ_CHECK(S[s].writes_got == S[s].writes_exp && S[s].reads_done_got == S[s].reads_done_exp &&
					 S[s].serviced_got == S[s].serviced_exp, "side %d: writes %u/%u reads %u/%u served %u/%u",
				 s, S[s].writes_got, S[s].writes_exp, S[s].reads_done_got, S[s].reads_done_exp,
				 S[s].serviced_got, S[s].serviced_exp);
			FZ_CHECK(memcmp(S[s].rw, S[s].rw_expect, sizeof S[s].rw) == 0, "side %d: tagged buffer content differs",
				 s);
		}
	}
	iw_conn_free(S[0].c);
	iw_conn_free(S[1].c);
}

/* ---- 6: DDP message through segmenter, headers and sink ---- */

static void rt_message(fz *f)
{
	const iw_profile *p = fz_profile(f);
	uint8_t fl = fz_u8(f);
	bool tagged = fl & 1;
	size_t mulpdu = fz_u16(f) % 2000 + 19;
	size_t len = fz_u16(f) % 8192;
	uint32_t seed = fz_u8(f) + 1u;
	static uint8_t msg[8192], mem[8192];
	size_t got;
	const uint8_t *src = fz_take(f, len, &got);
	memcpy(msg, src, got);
	for (size_t i = got; i < len; i++)
		msg[i] = (uint8_t)fz_rng(&seed);
	memset(mem, 0, sizeof mem);

	static iw_ddp_sink sink;
	iw_sink_init(&sink, p, 1, 2);
	iw_err e;
	if (tagged) {
		iw_tagged_buf b = { .stag = 0x77, .base_to = 0x1000, .length = sizeof mem, .stream = 1, .pd = 2,
				    .access = IW_ACCESS_REMOTE_WRITE, .mem = mem };
		FZ_CHECK(iw_sink_register(&sink, &b, &e) == IW_OK, "register: %s", e.msg);
	} else {
		FZ_CHECK(iw_sink_enable_queue(&sink, 0, &e) == IW_OK && iw_sink_post(&sink, 0, mem, sizeof mem, &e) == IW_OK,
			 "post: %s", e.msg);
	}
	iw_ddp_hdr base;
	memset(&base, 0, sizeof base);
	base.tagged = tagged;
	base.dv = p->ddp_version;
	base.stag = 0x77;
	base.to = 0x1000;
	base.qn = 0;
	base.msn = 1;
	iw_ddp_segmenter sg;
	FZ_CHECK(iw_ddp_seg_init(&sg, &base, len, mulpdu, &e) == IW_OK, "seg_init: %s", e.msg);
	enum { MAXSEG = 512 };
	static uint8_t hb[MAXSEG][IW_DDP_UNTAGGED_HDR_LEN];
	static size_t soff[MAXSEG], slen[MAXSEG], hlen[MAXSEG];
	size_t n = 0;
	iw_ddp_hdr h;
	while (n < MAXSEG && iw_ddp_seg_next(&sg, &h, &soff[n], &slen[n])) {
		FZ_CHECK(iw_ddp_hdr_encode(&h, hb[n], sizeof hb[n], &hlen[n], &e) == IW_OK, "encode: %s", e.msg);
		n++;
	}
	FZ_CHECK(!iw_ddp_seg_next(&sg, &h, &soff[0], &slen[0]) || n == MAXSEG, "segmenter did not end");
	if (n == MAXSEG)
		return;
	/* Untagged segments may arrive in any MO order and repeat (ddp_sink.h); the sink tracks
	 * up to IW_SINK_MAX_RANGES disjoint ranges, so the shuffle stays within that. */
	size_t order[MAXSEG + 16], norder = n;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	if ((fl & 2) && n <= IW_SINK_MAX_RANGES) {
		for (size_t i = n; i > 1; i--) {
			size_t j = fz_rng(&seed) % i, t = order[i - 1];
			order[i - 1] = order[j];
			order[j] = t;
		}
		for (size_t r = 0; r < (fl >> 4) && n; r++)
			order[norder++] = order[fz_rng(&seed) % n];
	}
	for (size_t i = 0; i < norder; i++) {
		size_t k = order[i];
		iw_ddp_hdr d;
		size_t hl;
		FZ_CHECK(iw_ddp_hdr_decode(hb[k], hlen[k], &d, &hl, &e) == IW_OK, "decode: %s", e.msg);
		iw_sink_result r;
		iw_sink_segment(&sink, &d, msg + soff[k], slen[k], tagged ? IW_ACCESS_REMOTE_WRITE : 0, &r);
		FZ_CHECK(r.status == IW_SINK_PLACED, "segment %zu of %zu (%zu+%zu) rejected: %s %s", k, n, soff[k], slen[k],
			 r.req, r.detail);
	}
	FZ_CHECK(memcmp(mem, msg, len) == 0, "placed message differs");
	if (!tagged) {
		iw_sink_delivery d;
		FZ_CHECK(iw_sink_deliver(&sink, 0, &d) && d.len == len && d.msn == 1 && d.data == mem, "delivery");
		FZ_CHECK(!iw_sink_deliver(&sink, 0, &d), "delivered twice");
	}
}

int iw_fuzz_diff_roundtrip(const uint8_t *data, size_t size)
{
	fz f = fz_init(data, size);
	switch (fz_u8(&f) % 7) {
	case 0: rt_frame(&f); break;
	case 1: rt_ddp(&f); break;
	case 2: rt_read_req(&f); break;
	case 3: rt_terminate(&f); break;
	case 4: rt_fpdus(&f); break;
	case 5: rt_pair(&f); break;
	default: rt_message(&f); break;
	}
	return 0;
}
