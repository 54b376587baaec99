/*
 * vec_conv.c - conversations: live generation with two iw_conn models, and the replay that
 * gives a conversation vector its expected result (see vec_conv.h).
 */
#include "vec_conv.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "mpa_frame.h"
#include "mpa_markers.h"
#include "mpa_rx.h"
#include "rdmap.h"

#define MAX_MUTS 8

static const char *const side_name[2] = {"initiator", "responder"};

/* ---- a model from its configuration ---- */

typedef struct model {
	iw_conn *c;
	uint8_t *mem[IW_SINK_MAX_STAGS];
	size_t nmem;
	uint8_t *pd;
} model;

static void model_free(model *m)
{
	iw_conn_free(m->c);
	for (size_t i = 0; i < m->nmem; i++)
		free(m->mem[i]);
	free(m->pd);
	memset(m, 0, sizeof *m);
}

static int model_new(model *m, const iw_profile *p, const json_t *cfg, enum iw_role role, iw_err *e)
{
	memset(m, 0, sizeof *m);
	const char *who = side_name[role == IW_ROLE_RESPONDER];
	if (!json_is_object(cfg))
		return iw_errf(e, IW_EINVAL, "'%s' must be an object", who);
	if (!p->startup_frames)
		return iw_errf(e, IW_EINVAL, "conversations need a profile with startup frames, not %s", p->name);
	iw_conn_config cc;
	iw_conn_config_default(&cc, p, role);
	uint64_t ird, ord, stream, pd, emss;
	if (vec_get_bool(cfg, "markers", false, &cc.want_markers, e) || vec_get_bool(cfg, "crc", true, &cc.want_crc, e) ||
	    vec_get_bool(cfg, "crc_admin_off", false, &cc.crc_admin_off, e) ||
	    vec_get_bool(cfg, "reject", false, &cc.reject, e) || vec_get_bool(cfg, "p2p", false, &cc.p2p, e) ||
	    vec_get_u64(cfg, "ird", 16, &ird, e) || vec_get_u64(cfg, "ord", 16, &ord, e) ||
	    vec_get_u64(cfg, "stream", 1, &stream, e) || vec_get_u64(cfg, "pd", 1, &pd, e) ||
	    vec_get_u64(cfg, "emss", 1460, &emss, e))
		return vec_prefix(e, "%s", who);
	if (ird > 0x3FFF || ord > 0x3FFF || stream > UINT32_MAX || pd > UINT32_MAX || emss > UINT32_MAX)
		return iw_errf(e, IW_EINVAL, "%s: ird/ord are 14-bit, stream/pd/emss 32-bit", who);
	cc.ird = (uint16_t)ird;
	cc.ord = (uint16_t)ord;
	cc.stream = (uint32_t)stream;
	cc.pd_id = (uint32_t)pd;
	cc.emss = (uint32_t)emss;
	json_t *rtr = json_object_get(cfg, "rtr");
	if (rtr) {
		cc.rtr = 0;
		for (size_t i = 0; i < json_array_size(rtr); i++) {
			const char *s = json_string_value(json_array_get(rtr, i));
			cc.rtr |= !s ? 0 : !strcmp(s, "send") ? IW_RTR_SEND : !strcmp(s, "write") ? IW_RTR_WRITE
								  : !strcmp(s, "read") ? IW_RTR_READ : 0;
		}
	}
	const char *pdh = json_string_value(json_object_get(cfg, "private_data"));
	if (pdh && *pdh) {
		if (vec_unhex(pdh, &m->pd, &cc.pd_len, e))
			return vec_prefix(e, "%s.private_data", who);
		cc.pd = m->pd;
	}
	if (iw_conn_new(&m->c, &cc, e) != IW_OK)
		return -1;
	json_t *st = json_object_get(cfg, "stags");
	for (size_t i = 0; i < json_array_size(st); i++) {
		json_t *s = json_array_get(st, i);
		uint64_t stag, base, len;
		if (!json_is_object(s) || vec_get_u64(s, "stag", 0, &stag, e) || vec_get_u64(s, "base_to", 0, &base, e) ||
		    vec_get_u64(s, "length", 0, &len, e) || stag > UINT32_MAX || len > (1u << 24) ||
		    m->nmem == IW_SINK_MAX_STAGS)
			return iw_errf(e, IW_EINVAL, "%s.stags[%zu]: stag, base_to, length (at most 16 MiB)", who, i);
		unsigned access = 0;
		for (const char *a = json_string_value(json_object_get(s, "access")); a && *a; a++)
			access |= *a == 'r' ? IW_ACCESS_REMOTE_READ : *a == 'w' ? IW_ACCESS_REMOTE_WRITE : 0;
		uint8_t *mem = m->mem[m->nmem++] = malloc(len ? len : 1);
		if (!mem)
			return iw_errf(e, IW_EINVAL, "out of memory for a tagged buffer");
		memcpy(mem, vec_pattern(len), len > 65536 ? 65536 : len);
		if (iw_conn_register(m->c, (uint32_t)stag, base, mem, len, access, e) != IW_OK)
			return vec_prefix(e, "%s.stags[%zu]", who, i);
	}
	return 0;
}

static int issue_reads(iw_conn *c, const json_t *cfg, iw_err *e)
{
	json_t *rd = json_object_get(cfg, "reads");
	for (size_t i = 0; i < json_array_size(rd); i++) {
		json_t *r = json_array_get(rd, i);
		uint64_t v[5];
		static const char *const k[5] = {"sink_stag", "sink_to", "size", "src_stag", "src_to"};
		for (int f = 0; f < 5; f++)
			if (vec_get_u64(r, k[f], 0, &v[f], e))
				return vec_prefix(e, "reads[%zu]", i);
		iw_read_req rr = {.sink_stag = (uint32_t)v[0], .sink_to = v[1], .size = (uint32_t)v[2],
				  .src_stag = (uint32_t)v[3], .src_to = v[4]};
		if (iw_conn_read(c, &rr, e) != IW_OK)
			return vec_prefix(e, "reads[%zu]", i);
	}
	return 0;
}

/* ---- events ---- */

static json_t *hexs(uint64_t v)
{
	char b[24];
	return json_string(vec_u64hex(v, b));
}

static json_t *event_json(iw_conn *c, const iw_conn_event *ev)
{
	switch (ev->kind) {
	case IW_EV_FRAME_ACCEPTED:
		return json_pack("{s:s, s:b, s:b, s:b, s:i, s:i}", "event", "frame_accepted", "m", ev->frame.m, "c",
				 ev->frame.c, "r", ev->frame.r, "rev", ev->frame.rev, "pd_length", ev->frame.pd_length);
	case IW_EV_FRAME_REJECTED:
		return json_pack("{s:s, s:o}", "event", "frame_rejected", "error", vec_error_json(&ev->viol));
	case IW_EV_PEER_REJECT:
		return json_pack("{s:s, s:i}", "event", "peer_reject", "pd_length", ev->frame.pd_length);
	case IW_EV_FULL_OPERATION: {
		iw_conn_params pr;
		iw_conn_params_get(c, &pr);
		return json_pack("{s:s, s:b, s:b, s:b}", "event", "full_operation", "markers_tx", pr.markers_tx,
				 "markers_rx", pr.markers_rx, "crc", pr.crc);
	}
	case IW_EV_SEND:
		return json_pack("{s:s, s:i, s:I, s:I}", "event", "send", "opcode", ev->opcode, "msn", (json_int_t)ev->msn,
				 "length", (json_int_t)ev->len);
	case IW_EV_WRITE:
		return json_pack("{s:s, s:o, s:o, s:I}", "event", "write", "stag", hexs(ev->stag), "to", hexs(ev->to),
				 "length", (json_int_t)ev->len);
	case IW_EV_READ_SERVICED:
		return json_pack("{s:s, s:o, s:o, s:I, s:o, s:o}", "event", "read_serviced", "sink_stag",
				 hexs(ev->rreq.sink_stag), "sink_to", hexs(ev->rreq.sink_to), "size",
				 (json_int_t)ev->rreq.size, "src_stag", hexs(ev->rreq.src_stag), "src_to",
				 hexs(ev->rreq.src_to));
	case IW_EV_READ_DONE:
		return json_pack("{s:s, s:o, s:o, s:I}", "event", "read_done", "stag", hexs(ev->stag), "to", hexs(ev->to),
				 "length", (json_int_t)ev->len);
	case IW_EV_TERMINATE:
		return json_pack("{s:s, s:i, s:i, s:i, s:s, s:b, s:b, s:b}", "event", "terminate", "layer",
				 ev->term.layer, "etype", ev->term.etype, "ecode", ev->term.ecode, "code",
				 iw_error_name(ev->term.layer, ev->term.etype, ev->term.ecode), "m", ev->term.m, "d",
				 ev->term.d, "r", ev->term.r);
	case IW_EV_ERROR:
		return json_pack("{s:s, s:o}", "event", "error", "error", vec_error_json(&ev->viol));
	case IW_EV_CLOSE:
		return json_pack("{s:s}", "event", "close");
	case IW_EV_PEER_CLOSED:
		return json_pack("{s:s}", "event", "peer_closed");
	}
	return json_pack("{s:s}", "event", "unknown");
}

/* What one side reported about the other's bytes. */
static json_t *side_verdict(json_t *events, size_t lost)
{
	json_t *o = json_object();
	json_t *err = NULL;
	size_t i;
	json_t *ev;
	json_array_foreach(events, i, ev) {
		const char *k = json_string_value(json_object_get(ev, "event"));
		if (!err && (!strcmp(k, "error") || !strcmp(k, "frame_rejected")))
			err = json_object_get(ev, "error");
	}
	json_object_set_new(o, "result", json_string(err ? "invalid" : "valid"));
	if (err)
		json_object_set(o, "error", err);
	json_object_set(o, "events", events);
	if (lost)
		json_object_set_new(o, "events_lost", json_integer((json_int_t)lost));
	return o;
}

/* ---- replay ---- */

static void drain(iw_conn *c, json_t *events, const json_t *cfg, bool issue, iw_err *e, bool *bad)
{
	iw_conn_event ev;
	while (iw_conn_next_event(c, &ev)) {
		json_array_append_new(events, event_json(c, &ev));
		if (issue && ev.kind == IW_EV_FULL_OPERATION && issue_reads(c, cfg, e))
			*bad = true;
	}
}

static void discard_output(iw_conn *c)
{
	size_t n;
	do {
		iw_conn_output_peek(c, &n);
		iw_conn_output_consume(c, n);
	} while (n);
}

json_t *vec_judge_conversation(const json_t *v, const iw_profile *p, iw_err *e)
{
	const json_t *cfg[2] = {json_object_get(v, "initiator"), json_object_get(v, "responder")};
	json_t *chunks = json_object_get(v, "chunks");
	if (!json_is_array(chunks))
		return iw_errf(e, IW_EINVAL, "a conversation needs 'chunks'"), NULL;
	model m[2];
	memset(m, 0, sizeof m);
	json_t *events[2] = {json_array(), json_array()};
	json_t *x = NULL;
	bool bad = false;
	if (model_new(&m[0], p, cfg[0], IW_ROLE_INITIATOR, e) || model_new(&m[1], p, cfg[1], IW_ROLE_RESPONDER, e))
		goto out;
	if (iw_conn_start(m[0].c, e) != IW_OK || iw_conn_start(m[1].c, e) != IW_OK)
		goto out;
	for (int s = 0; s < 2; s++) {
		drain(m[s].c, events[s], cfg[s], true, e, &bad);
		discard_output(m[s].c);
	}
	for (size_t i = 0; i < json_array_size(chunks) && !bad; i++) {
		json_t *ch = json_array_get(chunks, i);
		const char *from = json_string_value(json_object_get(ch, "from"));
		int s = from && !strcmp(from, "initiator") ? 0 : from && !strcmp(from, "responder") ? 1 : -1;
		const char *hex = json_string_value(json_object_get(ch, "hex"));
		const char *close = json_string_value(json_object_get(ch, "close"));
		if (s < 0 || (!hex == !close)) {
			iw_errf(e, IW_EINVAL, "chunks[%zu]: 'from' initiator or responder, and 'hex' or 'close'", i);
			goto out;
		}
		if (hex) {
			uint8_t *b;
			size_t n;
			if (vec_unhex(hex, &b, &n, e)) {
				vec_prefix(e, "chunks[%zu]", i);
				goto out;
			}
			iw_conn_input(m[!s].c, b, n);
			free(b);
		} else {
			iw_conn_peer_closed(m[!s].c);
		}
		for (int k = 0; k < 2; k++) {
			drain(m[k].c, events[k], cfg[k], true, e, &bad);
			discard_output(m[k].c);
		}
	}
	if (bad)
		goto out;
	x = json_object();
	json_t *iv = side_verdict(events[0], iw_conn_events_lost(m[0].c));
	json_t *rv = side_verdict(events[1], iw_conn_events_lost(m[1].c));
	bool valid = !strcmp(json_string_value(json_object_get(iv, "result")), "valid") &&
		     !strcmp(json_string_value(json_object_get(rv, "result")), "valid");
	json_object_set_new(x, "result", json_string(valid ? "valid" : "invalid"));
	json_object_set_new(x, "initiator", iv);
	json_object_set_new(x, "responder", rv);
out:
	model_free(&m[0]);
	model_free(&m[1]);
	json_decref(events[0]);
	json_decref(events[1]);
	return x;
}

/* ---- live generation ---- */

typedef struct dirstate {
	bool full;              /* past the startup frame */
	uint64_t pos;           /* octets since SeqStart */
	unsigned piece;         /* pieces sent so far */
	bool fin;
} dirstate;

typedef struct mut {
	int side;
	unsigned piece;
	size_t octet;
	uint8_t mask;
	conv_ulpdu_fn fn;
	void *arg;
} mut;

struct conv {
	const iw_profile *p;
	json_t *cfg[2];
	model m[2];
	bool echo;
	json_t *chunks;
	json_t *events[2];
	dirstate d[2];          /* what each side sends */
	bool frame_m[2], frame_c[2];
	mut muts[MAX_MUTS];
	size_t nmuts;
	bool failed;
	iw_err err;
};

conv *conv_new(const iw_profile *p, json_t *icfg, json_t *rcfg, bool echo, iw_err *e)
{
	conv *cv = calloc(1, sizeof *cv);
	if (!cv) {
		json_decref(icfg);
		json_decref(rcfg);
		iw_errf(e, IW_EINVAL, "out of memory");
		return NULL;
	}
	cv->p = p;
	cv->cfg[0] = icfg;
	cv->cfg[1] = rcfg;
	cv->echo = echo;
	cv->chunks = json_array();
	cv->events[0] = json_array();
	cv->events[1] = json_array();
	if (model_new(&cv->m[0], p, icfg, IW_ROLE_INITIATOR, e) || model_new(&cv->m[1], p, rcfg, IW_ROLE_RESPONDER, e) ||
	    iw_conn_start(cv->m[0].c, e) != IW_OK || iw_conn_start(cv->m[1].c, e) != IW_OK) {
		conv_free(cv);
		return NULL;
	}
	return cv;
}

void conv_free(conv *cv)
{
	if (!cv)
		return;
	model_free(&cv->m[0]);
	model_free(&cv->m[1]);
	json_decref(cv->cfg[0]);
	json_decref(cv->cfg[1]);
	json_decref(cv->chunks);
	json_decref(cv->events[0]);
	json_decref(cv->events[1]);
	free(cv);
}

iw_conn *conv_side(conv *cv, int side)
{
	return cv->m[side].c;
}

static void conv_fail(conv *cv, const char *what, const char *msg)
{
	if (!cv->failed)
		iw_errf(&cv->err, IW_EINVAL, "%s: %s", what, msg);
	cv->failed = true;
}

void conv_flip(conv *cv, int side, unsigned piece, size_t octet, uint8_t mask)
{
	if (cv->nmuts < MAX_MUTS)
		cv->muts[cv->nmuts++] = (mut){.side = side, .piece = piece, .octet = octet, .mask = mask};
}

void conv_rewrite(conv *cv, int side, unsigned piece, conv_ulpdu_fn fn, void *arg)
{
	if (cv->nmuts < MAX_MUTS)
		cv->muts[cv->nmuts++] = (mut){.side = side, .piece = piece, .fn = fn, .arg = arg};
}

static size_t piece_len(const dirstate *d, bool markers, const uint8_t *b, size_t n)
{
	if (!d->full) {
		if (n < IW_MPA_FRAME_HDR_LEN)
			return n;
		size_t l = iw_mpa_frame_len(b);
		return l < n ? l : n;
	}
	size_t at = markers && iw_marker_at(d->pos) ? IW_MPA_MARKER_LEN : 0;
	if (n < at + 2)
		return n;
	size_t ul = (size_t)b[at] << 8 | b[at + 1];
	size_t body = iw_fpdu_layout_of(ul).body_len;
	size_t wire = markers ? iw_fpdu_wire_len(d->pos, body) : body;
	return wire < n ? wire : n;
}

/* Re-frames the FPDU in b (at stream offset pos) around its ULPDU as fn leaves it. */
static void rewrite_fpdu(conv *cv, const mut *mu, uint8_t *b, size_t n, uint64_t pos, bool markers, bool crc)
{
	static iw_mpa_rx rx;
	static iw_fpdu fp;
	uint8_t u[65536];
	iw_mpa_rx_init_at(&rx, cv->p, markers, crc, pos);
	size_t used;
	iw_violation err;
	if (iw_mpa_rx_push(&rx, b, n, &used, &fp, &err) != IW_RX_FPDU || used != n) {
		conv_fail(cv, "rewrite", "the piece to rewrite is not one valid FPDU");
		return;
	}
	size_t ul = fp.ulpdu_length;
	memcpy(u, fp.ulpdu, ul);
	mu->fn(u, ul, mu->arg);
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, cv->p, markers, crc);
	tx.pos = pos;
	size_t out = 0;
	iw_err e;
	if (iw_mpa_tx_fpdu(&tx, u, ul, NULL, 0, NULL, b, n, &out, &e) != IW_OK || out != n)
		conv_fail(cv, "rewrite", "the rewritten FPDU does not fit in place");
}

static void drain_live(conv *cv, int s)
{
	iw_conn_event ev;
	while (iw_conn_next_event(cv->m[s].c, &ev)) {
		json_array_append_new(cv->events[s], event_json(cv->m[s].c, &ev));
		if (s == CONV_R && cv->echo && ev.kind == IW_EV_SEND)
			iw_conn_send(cv->m[s].c, IW_OP_SEND, ev.data, ev.len, NULL);    /* the reflector */
	}
}

static void send_piece(conv *cv, int s, uint8_t *b, size_t n)
{
	dirstate *d = &cv->d[s];
	bool markers = cv->frame_m[!s];
	bool crc = cv->frame_c[0] || cv->frame_c[1];
	for (size_t i = 0; i < cv->nmuts; i++) {
		const mut *mu = &cv->muts[i];
		if (mu->side != s || mu->piece != d->piece)
			continue;
		if (mu->fn)
			rewrite_fpdu(cv, mu, b, n, d->pos, markers, crc);
		else if (mu->octet < n)
			b[mu->octet] ^= mu->mask;
	}
	if (!d->full) {
		if (n >= IW_MPA_FRAME_HDR_LEN) {
			cv->frame_m[s] = iw_mpa_frame_flags(b) & IW_MPA_FLAG_M;
			cv->frame_c[s] = iw_mpa_frame_flags(b) & IW_MPA_FLAG_C;
		}
		d->full = true;
	} else {
		d->pos += n;
	}
	d->piece++;
	json_array_append_new(cv->chunks, json_pack("{s:s, s:o}", "from", side_name[s], "hex", vec_hex_json(b, n)));
	iw_conn_input(cv->m[!s].c, b, n);
	drain_live(cv, 0);
	drain_live(cv, 1);
}

static void record_fin(conv *cv, int s)
{
	cv->d[s].fin = true;
	json_array_append_new(cv->chunks, json_pack("{s:s, s:s}", "from", side_name[s], "close", "fin"));
	iw_conn_peer_closed(cv->m[!s].c);
	drain_live(cv, 0);
	drain_live(cv, 1);
}

void conv_pump(conv *cv)
{
	bool progress = true;
	uint8_t *buf = NULL;
	drain_live(cv, 0);
	drain_live(cv, 1);
	while (progress && !cv->failed) {
		progress = false;
		for (int s = 0; s < 2; s++) {
			if (cv->d[s].fin)
				continue;
			size_t n;
			const uint8_t *out = iw_conn_output_peek(cv->m[s].c, &n);
			if (n) {
				/* A copy: feeding the peer may make this side queue more output. */
				buf = realloc(buf, n);
				if (!buf) {
					conv_fail(cv, "pump", "out of memory");
					return;
				}
				memcpy(buf, out, n);
				iw_conn_output_consume(cv->m[s].c, n);
				bool markers = cv->frame_m[!s];
				for (size_t off = 0; off < n;) {
					size_t l = piece_len(&cv->d[s], markers, buf + off, n - off);
					send_piece(cv, s, buf + off, l);
					off += l;
				}
				progress = true;
			}
			iw_conn_output_peek(cv->m[s].c, &n);
			if (!n && iw_conn_wants_close(cv->m[s].c)) {
				record_fin(cv, s);
				progress = true;
			}
		}
	}
	free(buf);
}

void conv_send(conv *cv, int side, unsigned opcode, size_t len)
{
	iw_err e;
	if (iw_conn_send(cv->m[side].c, opcode, vec_pattern(len), len, &e) != IW_OK)
		conv_fail(cv, "send", e.msg);
	conv_pump(cv);
}

void conv_write(conv *cv, int side, uint32_t stag, uint64_t to, size_t len)
{
	iw_err e;
	if (iw_conn_write(cv->m[side].c, stag, to, vec_pattern(len), len, &e) != IW_OK)
		conv_fail(cv, "write", e.msg);
	conv_pump(cv);
}

void conv_read(conv *cv, int side, uint32_t sink_stag, uint64_t sink_to, uint32_t size, uint32_t src_stag,
	       uint64_t src_to)
{
	iw_read_req rr = {.sink_stag = sink_stag, .sink_to = sink_to, .size = size, .src_stag = src_stag, .src_to = src_to};
	iw_err e;
	if (iw_conn_read(cv->m[side].c, &rr, &e) != IW_OK) {
		conv_fail(cv, "read", e.msg);
		return;
	}
	json_t *reads = json_object_get(cv->cfg[side], "reads");
	if (!reads) {
		reads = json_array();
		json_object_set_new(cv->cfg[side], "reads", reads);
	}
	json_array_append_new(reads, json_pack("{s:o, s:o, s:I, s:o, s:o}", "sink_stag", hexs(sink_stag), "sink_to",
					       hexs(sink_to), "size", (json_int_t)size, "src_stag", hexs(src_stag),
					       "src_to", hexs(src_to)));
	conv_pump(cv);
}

void conv_fin(conv *cv, int side)
{
	conv_pump(cv);
	if (!cv->d[side].fin)
		record_fin(cv, side);
	conv_pump(cv);
}

void conv_finish(conv *cv, vgen *g, const char *desc, const char *reqs, const char *flags)
{
	conv_fin(cv, CONV_I);
	conv_fin(cv, CONV_R);
	if (g->failed)
		goto out;
	if (cv->failed) {
		iw_errf(g->e, IW_EINVAL, "conversation '%s' (%s): %s", desc, g->p->name, cv->err.msg);
		g->failed = true;
		goto out;
	}
	json_t *v = vg_new(g, desc, reqs, flags);
	json_object_set_new(v, "kind", json_string("conversation"));
	json_object_set(v, "initiator", cv->cfg[0]);
	json_object_set(v, "responder", cv->cfg[1]);
	json_object_set(v, "chunks", cv->chunks);
	/* The replay must report what the live run did, or the vector would not mean what the
	 * generator meant. */
	iw_err je;
	json_t *x = vec_judge_conversation(v, g->p, &je);
	if (!x || !json_equal(json_object_get(json_object_get(x, "initiator"), "events"), cv->events[0]) ||
	    !json_equal(json_object_get(json_object_get(x, "responder"), "events"), cv->events[1])) {
		char *live = json_dumps(cv->events[1], JSON_COMPACT);
		char *rep = x ? json_dumps(json_object_get(json_object_get(x, "responder"), "events"), JSON_COMPACT) : NULL;
		iw_errf(g->e, IW_EINVAL, "conversation '%s' (%s): the replay differs from the live run: %s / live %.60s "
			"replay %.60s", desc, g->p->name, x ? "events" : je.msg, live ? live : "", rep ? rep : "");
		free(live);
		free(rep);
		g->failed = true;
		json_decref(x);
		json_decref(v);
		goto out;
	}
	json_decref(x);
	vg_add(g, "conversations", v);
out:
	conv_free(cv);
}
