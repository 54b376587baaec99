/*
 * vec_util.c - building vectors (ids, expected results, field order), the stream builder,
 * hex and JSON helpers.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hexin.h"
#include "mpa_frame.h"
#include "rdmap.h"
#include "vec_int.h"

const iw_vec_file_info iw_vec_files[] = {
	{"mpa-startup", "mpa", "startup", "MPA Request and Reply frames (MR §6.1, RFC 5044, RFC 6581)"},
	{"mpa-fpdu", "mpa", "fpdu", "MPA FPDU framing: ULPDU_Length, pad, packing, truncation, and the seeds' FPDUs"},
	{"mpa-markers", "mpa", "markers", "MPA markers: placement, FPDUPTR, RESERVED (MR §5.1)"},
	{"mpa-crc", "mpa", "crc", "MPA CRC32C: coverage, octet order, CRC off by agreement (MR §5.2)"},
	{"ddp-headers", "ddp", "headers", "DDP headers: control octet, DV, reserved bits, short headers, segmentation"},
	{"ddp-placement", "ddp", "placement", "DDP data sink checks: tagged T1-T5, untagged U1-U5, stream and PD association"},
	{"rdmap", "rdmap", "messages", "RDMAP messages: opcodes, RV, queues, Send with Invalidate, RDMA Read"},
	{"rdmap-terminate", "rdmap", "terminate", "RDMAP Terminate messages: layers, error codes, attached headers"},
	{"conversations", "conversation", "conversations",
	 "Whole connections, both directions: startup, full operation, errors and Terminate, close"},
};
const size_t iw_vec_nfiles = sizeof iw_vec_files / sizeof iw_vec_files[0];

/* ---- hex ---- */

char *vec_hex(const uint8_t *b, size_t n)
{
	static const char d[] = "0123456789abcdef";
	char *s = malloc(2 * n + 1);
	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		s[2 * i] = d[b[i] >> 4];
		s[2 * i + 1] = d[b[i] & 15];
	}
	s[2 * n] = '\0';
	return s;
}

int vec_unhex(const char *s, uint8_t **out, size_t *n, iw_err *e)
{
	size_t l = strlen(s);
	if (l % 2)
		return iw_errf(e, IW_EINVAL, "hex string has an odd number of digits (%zu)", l);
	uint8_t *b = malloc(l / 2 + 1);
	if (!b)
		return iw_errf(e, IW_EINVAL, "out of memory for %zu hex digits", l);
	for (size_t i = 0; i < l / 2; i++) {
		int hi = iw_hex_digit(s[2 * i]), lo = iw_hex_digit(s[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			free(b);
			return iw_errf(e, IW_EINVAL, "'%c' at hex digit %zu is not a hex digit",
				       hi < 0 ? s[2 * i] : s[2 * i + 1], hi < 0 ? 2 * i : 2 * i + 1);
		}
		b[i] = (uint8_t)(hi << 4 | lo);
	}
	*out = b;
	*n = l / 2;
	return IW_OK;
}

json_t *vec_hex_json(const uint8_t *b, size_t n)
{
	char *s = vec_hex(b, n);
	json_t *j = s ? json_string(s) : NULL;
	free(s);
	return j;
}

char *vec_u64hex(uint64_t v, char buf[24])
{
	snprintf(buf, 24, "0x%" PRIx64, v);
	return buf;
}

json_t *vec_strlist(const char *csv)
{
	json_t *a = json_array();
	const char *p = csv;
	while (p && *p) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		json_array_append_new(a, json_stringn(p, l));
		p = c ? c + 1 : NULL;
	}
	return a;
}

static const char *layer_name(int layer)
{
	switch (layer) {
	case IW_LAYER_RDMAP: return "RDMAP";
	case IW_LAYER_DDP: return "DDP";
	case IW_LAYER_LLP: return "LLP";
	default: return NULL;
	}
}

json_t *vec_error_json(const iw_violation *v)
{
	json_t *j = json_object();
	const char *ln = layer_name(v->layer);
	if (ln) {
		json_object_set_new(j, "layer", json_string(ln));
		json_object_set_new(j, "layer_code", json_integer(v->layer));
		json_object_set_new(j, "etype", json_integer(v->etype));
		json_object_set_new(j, "ecode", json_integer(v->ecode));
		json_object_set_new(j, "code", json_string(iw_error_name(v->layer, v->etype, v->ecode)));
	} else {
		json_object_set_new(j, "layer", json_null());
	}
	json_object_set_new(j, "requirement", json_string(v->req ? v->req : ""));
	json_object_set_new(j, "offset", json_integer((json_int_t)v->offset));
	return j;
}

int vec_get_u64(const json_t *o, const char *key, uint64_t dflt, uint64_t *out, iw_err *e)
{
	json_t *j = json_object_get(o, key);
	if (!j || json_is_null(j)) {
		*out = dflt;
		return 0;
	}
	if (json_is_integer(j) && json_integer_value(j) >= 0) {
		*out = (uint64_t)json_integer_value(j);
		return 0;
	}
	if (json_is_string(j)) {
		/* 64-bit values (STags, TOs) are written as "0x..." strings: JSON numbers lose precision
		 * above 2^53 in many readers. */
		const char *s = json_string_value(j);
		char *end;
		unsigned long long v = strtoull(s, &end, 16);
		if (!strncmp(s, "0x", 2) && s[2] && !*end) {
			*out = v;
			return 0;
		}
	}
	return iw_errf(e, IW_EINVAL, "'%s' must be a non-negative integer or a \"0x...\" string", key);
}

int vec_get_bool(const json_t *o, const char *key, bool dflt, bool *out, iw_err *e)
{
	json_t *j = json_object_get(o, key);
	if (!j) {
		*out = dflt;
		return 0;
	}
	if (!json_is_boolean(j))
		return iw_errf(e, IW_EINVAL, "'%s' must be true or false", key);
	*out = json_is_true(j);
	return 0;
}

int vec_prefix(iw_err *e, const char *fmt, ...)
{
	char old[sizeof e->msg], pre[128];
	memcpy(old, e->msg, sizeof old);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof pre, fmt, ap);
	va_end(ap);
	return iw_errf(e, IW_EINVAL, "%s: %s", pre, old);
}

/* ---- ids ---- */

/* Descriptive members: editing them must not change the id. */
static const char *const non_content[] = {"id", "description", "flags", "seed", "pcap", "wireshark"};

void iw_vec_id(const json_t *vector, const char *prefix, char out[64])
{
	json_t *c = json_deep_copy(vector);
	for (size_t i = 0; c && i < sizeof non_content / sizeof non_content[0]; i++)
		json_object_del(c, non_content[i]);
	char *s = c ? json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII) : NULL;
	uint64_t h = 1469598103934665603ull;    /* FNV-1a 64 */
	for (const char *p = s ? s : ""; *p; p++) {
		h ^= (uint8_t)*p;
		h *= 1099511628211ull;
	}
	snprintf(out, 64, "%s-%012" PRIx64, prefix, h >> 16);
	free(s);
	json_decref(c);
}

/* ---- building ---- */

json_t *vg_new(const vgen *g, const char *desc, const char *reqs, const char *flags)
{
	json_t *v = json_object();
	json_object_set_new(v, "description", json_string(desc));
	json_object_set_new(v, "requirements", vec_strlist(reqs));
	json_object_set_new(v, "flags", vec_strlist(flags));
	json_object_set_new(v, "profile", json_string(g->p->name));
	return v;
}

void vg_stream(json_t *v, uint64_t offset, bool markers, bool crc, const char *frame, const uint8_t *b, size_t n)
{
	json_object_set_new(v, "kind", json_string("stream"));
	json_object_set_new(v, "stream_offset", json_integer((json_int_t)offset));
	json_object_set_new(v, "markers", json_boolean(markers));
	json_object_set_new(v, "crc", json_boolean(crc));
	if (frame)
		json_object_set_new(v, "startup_frame", json_string(frame));
	json_object_set_new(v, "hex", vec_hex_json(b, n));
}

/* The order members are written in, for people reading the files; the rest follow. */
static const char *const key_order[] = {
	"id", "description", "requirements", "flags", "profile", "seed", "kind", "stream_offset", "markers",
	"crc", "startup_frame", "receiver", "initiator", "responder", "hex", "chunks", "pcap", "wireshark", "expected",
};

static json_t *ordered(json_t *v)
{
	json_t *o = json_object();
	for (size_t i = 0; i < sizeof key_order / sizeof key_order[0]; i++) {
		json_t *m = json_object_get(v, key_order[i]);
		if (m)
			json_object_set(o, key_order[i], m);
	}
	const char *k;
	json_t *m;
	json_object_foreach(v, k, m)
		if (!json_object_get(o, k))
			json_object_set(o, k, m);
	return o;
}

void vg_add(vgen *g, const char *file_name, json_t *v)
{
	if (g->failed || !v) {
		json_decref(v);
		return;
	}
	size_t fi = 0;
	while (fi < iw_vec_nfiles && strcmp(iw_vec_files[fi].name, file_name))
		fi++;
	const char *desc = json_string_value(json_object_get(v, "description"));
	if (fi == iw_vec_nfiles) {
		iw_errf(g->e, IW_EINVAL, "vector '%s': no file '%s'", desc ? desc : "?", file_name);
		g->failed = true;
		json_decref(v);
		return;
	}
	iw_err je;
	json_t *x = iw_vec_expect(v, &je);
	if (!x) {
		iw_errf(g->e, IW_EINVAL, "vector '%s' (%s): %s", desc ? desc : "?", g->p->name, je.msg);
		g->failed = true;
		json_decref(v);
		return;
	}
	json_object_set_new(v, "expected", x);
	char id[64];
	iw_vec_id(v, file_name, id);
	if (json_object_get(g->set->ids, id)) {
		iw_errf(g->e, IW_EINVAL, "vector '%s' (%s) has the id %s of another vector: the same content twice",
			desc ? desc : "?", g->p->name, id);
		g->failed = true;
		json_decref(v);
		return;
	}
	json_object_set_new(g->set->ids, id, json_true());
	json_object_set_new(v, "id", json_string(id));
	if (!strcmp(json_string_value(json_object_get(v, "kind")), "conversation")) {
		char path[96];
		snprintf(path, sizeof path, "pcap/%s.pcap", id);
		json_object_set_new(v, "pcap", json_string(path));
	}
	json_array_append_new(g->set->vectors[fi], ordered(v));
	json_decref(v);
}

json_t *vec_rcv_from_msn(uint32_t first_msn)
{
	return json_pack("{s:[{s:i, s:i, s:i, s:I}, {s:i, s:i, s:i}, {s:i, s:i, s:i}]}", "queues", "qn", 0, "buffers", 8,
			 "size", 4096, "first_msn", (json_int_t)first_msn, "qn", 1, "buffers", 8, "size", 64, "qn", 2,
			 "buffers", 4, "size", 64);
}

/* ---- the stream builder ---- */

const uint8_t *vec_pattern(size_t n)
{
	static uint8_t pat[65536];
	static bool ready;
	(void)n;
	if (!ready) {
		for (size_t i = 0; i < sizeof pat; i++)
			pat[i] = (uint8_t)(i * 7 + 1);
		ready = true;
	}
	return pat;
}

void vb_init(vbuf *s, const iw_profile *p, bool markers, bool crc, uint64_t offset)
{
	memset(s, 0, sizeof *s);
	s->p = p;
	iw_mpa_tx_init(&s->tx, p, markers, crc);
	s->tx.pos = offset;
}

void vb_free(vbuf *s)
{
	free(s->b);
	s->b = NULL;
	s->n = s->cap = 0;
}

static uint8_t *vb_room(vbuf *s, size_t n)
{
	if (s->n + n > s->cap) {
		size_t cap = s->cap ? s->cap : 256;
		while (cap < s->n + n)
			cap *= 2;
		uint8_t *b = realloc(s->b, cap);
		if (!b) {
			s->oom = true;
			return NULL;
		}
		s->b = b;
		s->cap = cap;
	}
	return s->b + s->n;
}

void vb_raw(vbuf *s, const void *data, size_t n, bool counted)
{
	uint8_t *d = vb_room(s, n);
	if (!d || !n)
		return;
	memcpy(d, data, n);
	s->n += n;
	if (counted)
		iw_mpa_tx_skip(&s->tx, n);
}

void vb_fpdu(vbuf *s, const uint8_t *hdr, size_t hlen, const uint8_t *payload, size_t plen, const iw_fpdu_mods *mods)
{
	size_t need = iw_mpa_tx_size(&s->tx, hlen + plen) + 64;
	uint8_t *d = vb_room(s, need);
	size_t n = 0;
	if (!d)
		return;
	if (iw_mpa_tx_fpdu(&s->tx, hdr, hlen, payload, plen, mods, d, need, &n, NULL) != IW_OK) {
		s->oom = true;
		return;
	}
	s->n += n;
}

void vb_untagged_hdr(const vbuf *s, iw_ddp_hdr *h, unsigned opcode, uint32_t qn, uint32_t msn, uint32_t mo, bool last)
{
	memset(h, 0, sizeof *h);
	h->last = last;
	h->dv = s->p->ddp_version;
	h->rsvdulp[0] = iw_rdmap_ctrl(s->p->rdmap_version, opcode);
	h->qn = qn;
	h->msn = msn;
	h->mo = mo;
}

void vb_tagged_hdr(const vbuf *s, iw_ddp_hdr *h, unsigned opcode, uint32_t stag, uint64_t to, bool last)
{
	memset(h, 0, sizeof *h);
	h->tagged = true;
	h->last = last;
	h->dv = s->p->ddp_version;
	h->rsvdulp[0] = iw_rdmap_ctrl(s->p->rdmap_version, opcode);
	h->stag = stag;
	h->to = to;
}

void vb_seg(vbuf *s, const iw_ddp_hdr *h, const uint8_t *payload, size_t plen, const iw_fpdu_mods *mods)
{
	uint8_t hb[IW_DDP_UNTAGGED_HDR_LEN];
	size_t hl = 0;
	if (iw_ddp_hdr_encode(h, hb, sizeof hb, &hl, NULL) != IW_OK) {
		s->oom = true;
		return;
	}
	vb_fpdu(s, hb, hl, payload, plen, mods);
}

void vb_send_mod(vbuf *s, uint32_t msn, size_t plen, const iw_fpdu_mods *m)
{
	iw_ddp_hdr h;
	vb_untagged_hdr(s, &h, IW_OP_SEND, IW_QN_SEND, msn, 0, true);
	vb_seg(s, &h, vec_pattern(plen), plen, m);
}

void vb_send(vbuf *s, uint32_t msn, size_t plen)
{
	vb_send_mod(s, msn, plen, NULL);
}

void vec_frame_bytes(const iw_profile *p, int kind, bool m, bool c, uint8_t *out, size_t *len)
{
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, p, (enum iw_mpa_kind)kind);
	f.m = m;
	f.c = c;
	*len = 0;
	iw_mpa_frame_encode(&f, out, 1024, len, NULL);
}
