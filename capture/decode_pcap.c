/*
 * decode_pcap.c - judging the iWARP traffic of a capture, connection by connection, direction
 * by direction (see decode_pcap.h).
 */
#include "decode_pcap.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_stream.h"
#include "iw_proto.h"
#include "mpa_frame.h"
#include "pcap_read.h"

#define MAX_VIOLS 8192

/* The requirement tag of findings about the capture itself, not the traffic. */
#define REQ_CAPTURE "capture"

typedef struct capctx {
	bool json;
	iw_viol_list viol;
	json_t *conns;
	size_t mpa_conns;
	size_t terminates;          /* Terminate messages seen, both ways */
} capctx;

typedef struct side {
	int dir;                    /* index into iw_pcap_conn.dir */
	const iw_pcap_stream *s;
	bool has_frame;             /* a startup frame decoded (header complete) */
	iw_mpa_frame f;
	size_t flen;
	bool frame_ok;              /* no fatal defect */
	json_t *items, *viols;
} side;

static void dir_header(capctx *cc, const iw_pcap_conn *c, const side *sd, const char *role, json_t *jc, bool markers,
		       bool crc, bool full)
{
	char from[64], to[64];
	iw_pcap_endpoint(c, sd->dir, from, sizeof from);
	iw_pcap_endpoint(c, !sd->dir, to, sizeof to);
	const iw_pcap_stream *s = sd->s;
	if (cc->json) {
		json_t *j = json_pack("{s:s, s:s, s:s, s:I}", "role", role, "from", from, "to", to, "octets",
				      (json_int_t)s->len);
		if (s->first_frame)
			json_object_set_new(j, "frames", json_pack("[I, I]", (json_int_t)s->first_frame,
								   (json_int_t)s->last_frame));
		if (s->fin)
			json_object_set_new(j, "fin_frame", json_integer((json_int_t)s->fin_frame));
		if (s->rst)
			json_object_set_new(j, "rst_frame", json_integer((json_int_t)s->rst_frame));
		if (full) {
			json_object_set_new(j, "markers", json_boolean(markers));
			json_object_set_new(j, "crc", json_boolean(crc));
		}
		json_object_set_new(j, "items", json_incref(sd->items));
		json_object_set_new(j, "violations", json_incref(sd->viols));
		json_array_append_new(json_object_get(jc, "directions"), j);
		return;
	}
	printf("%s %s -> %s: %zu octets", role, from, to, s->len);
	if (s->first_frame)
		printf(", frames %llu-%llu", (unsigned long long)s->first_frame, (unsigned long long)s->last_frame);
	if (s->fin)
		printf(", FIN at frame %llu", (unsigned long long)s->fin_frame);
	if (s->rst)
		printf(", RST at frame %llu", (unsigned long long)s->rst_frame);
	if (full)
		printf("; markers %s, CRC %s", markers ? "on" : "off", crc ? "on" : "off");
	printf("\n");
	if (s->retransmitted || s->out_of_order)
		printf("  (TCP: %zu retransmitted and %zu out-of-order segments put in place)\n", s->retransmitted,
		       s->out_of_order);
}

static void ctx_for(capctx *cc, side *sd, iw_decode_ctx *o, uint64_t base)
{
	memset(o, 0, sizeof *o);
	o->json = cc->json;
	o->items = sd->items;
	o->viols = sd->viols;
	o->viol = &cc->viol;
	o->cap = sd->s;
	o->cap_base = base;
	o->terminates = &cc->terminates;
}

/* Findings about the capture and the TCP stream of one direction. */
static void stream_notes(capctx *cc, side *sd, uint64_t base)
{
	iw_decode_ctx o;
	ctx_for(cc, sd, &o, 0);
	const iw_pcap_stream *s = sd->s;
	char d[192];
	if (s->conflicts) {
		snprintf(d, sizeof d,
			 "%zu retransmitted segments carry octets that differ from the first copy (first at stream "
			 "octet %llu, frame %llu); the first copy is judged",
			 s->conflicts, (unsigned long long)s->conflict_off, (unsigned long long)s->conflict_frame);
		iw_decode_violation(&o, REQ_CAPTURE, IW_VIOL_SENDER, -1, 0, 0, 0, d);
	}
	if (s->hole) {
		if (s->hole_len)
			snprintf(d, sizeof d,
				 "%llu octets are missing from the capture after stream octet %zu (the next data is in "
				 "frame %llu): nothing past the hole is judged (%llu octets)",
				 (unsigned long long)s->hole_len, s->len, (unsigned long long)s->hole_frame,
				 (unsigned long long)s->beyond);
		else
			snprintf(d, sizeof d, "frame %llu was cut by the snap length after stream octet %zu: nothing "
					      "past it is judged", (unsigned long long)s->hole_frame, s->len);
		o.cap = NULL;
		iw_decode_violation(&o, REQ_CAPTURE, IW_VIOL_FATAL, -1, 0, 0, s->len >= base ? s->len - base : 0, d);
	}
}

static void no_fpdus(capctx *cc, side *sd, const char *req, const char *why)
{
	if (sd->s->len <= sd->flen)
		return;
	iw_decode_ctx o;
	ctx_for(cc, sd, &o, sd->flen);
	char d[192];
	snprintf(d, sizeof d, "%zu octets follow the startup frame %s", sd->s->len - sd->flen, why);
	iw_decode_violation(&o, req, IW_VIOL_FATAL, -1, 0, 0, 0, d);
}

static void decode_conn(capctx *cc, const iw_pcap_conn *c, size_t idx, const iw_profile *forced)
{
	side sd[2];
	memset(sd, 0, sizeof sd);
	int guess[2];
	for (int k = 0; k < 2; k++) {
		sd[k].dir = k;
		sd[k].s = &c->dir[k];
		guess[k] = !iw_decode_looks_like_frame(c->dir[k].data, c->dir[k].len) ? -1
			   : c->dir[k].data[IW_MPA_KEY_DIFF_OCTET] == 'p'              ? IW_MPA_REPLY
										       : IW_MPA_REQUEST;
	}
	bool culley = forced && !forced->startup_frames;
	char a[64], b[64];
	iw_pcap_endpoint(c, 0, a, sizeof a);
	iw_pcap_endpoint(c, 1, b, sizeof b);
	if (guess[0] < 0 && guess[1] < 0 && !culley) {
		if (!cc->json)
			printf("connection %zu: %s <-> %s: not MPA (neither direction starts with a startup frame%s), "
			       "skipped\n\n",
			       idx, a, b, c->handshake ? "" : "; the capture has no SYN and may start mid-connection");
		return;
	}
	cc->mpa_conns++;
	/* The initiator sent the Request; if both sent one, the first to send is the initiator and
	 * the other is judged as the responder it should have been (Initiator/Initiator, R8a). */
	int ini;
	bool req0 = guess[0] == IW_MPA_REQUEST, req1 = guess[1] == IW_MPA_REQUEST;
	bool rep0 = guess[0] == IW_MPA_REPLY, rep1 = guess[1] == IW_MPA_REPLY;
	bool earlier1 = c->dir[1].first_frame && (!c->dir[0].first_frame || c->dir[1].first_frame < c->dir[0].first_frame);
	if (culley)
		ini = 0;
	else if (req0 != req1)
		ini = req1 ? 1 : 0;
	else if (req0)
		ini = earlier1 ? 1 : 0;         /* both sent a Request */
	else if (rep0 != rep1)
		ini = rep0 ? 1 : 0;             /* only a Reply: its sender is the responder */
	else
		ini = earlier1 ? 1 : 0;
	int rsp = !ini;

	const iw_profile *p = forced;
	char pwhy[96] = "";
	if (!p) {
		uint8_t rev = c->dir[ini].len > IW_MPA_FRAME_OFF_REV ? iw_mpa_frame_rev(c->dir[ini].data)
								 : IW_MPA_REV_RFC5044;
		p = iw_profile_get(rev == 0 ? IW_PROFILE_RDDP_MPA_01 : rev == 2 ? IW_PROFILE_RFC6581 : IW_PROFILE_RFC5044);
		snprintf(pwhy, sizeof pwhy, " (from the Request's Rev %u; --profile chooses another)", rev);
	}

	/* Both frames first, silently: each direction's markers depend on the other's frame. */
	for (int k = 0; k < 2 && !culley; k++) {
		const iw_pcap_stream *s = sd[k].s;
		if (guess[k] < 0)
			continue;
		int rc = iw_mpa_frame_decode(p, s->data, s->len, &sd[k].f, &sd[k].flen, NULL);
		sd[k].has_frame = rc == IW_OK;
		if (rc == IW_OK)
			sd[k].frame_ok = iw_mpa_frame_check(p, &sd[k].f, k == ini ? IW_MPA_REQUEST : IW_MPA_REPLY, NULL);
	}
	bool started = culley || (sd[ini].frame_ok && sd[rsp].frame_ok);
	bool rejected = !culley && started && sd[rsp].f.r && p->r_bit;
	bool full = started && !rejected;
	bool mk[2], crc;
	mk[ini] = culley || sd[rsp].f.m;
	mk[rsp] = culley || sd[ini].f.m;
	crc = culley || sd[ini].f.c || sd[rsp].f.c;

	json_t *jc = NULL;
	if (cc->json) {
		jc = json_pack("{s:I, s:s, s:s, s:s, s:b, s:[]}", "connection", (json_int_t)idx, "client", a, "server", b,
			       "profile", p->name, "handshake", c->handshake, "directions");
		json_array_append_new(cc->conns, jc);
	} else {
		printf("connection %zu: %s -> %s, profile %s%s\n", idx, a, b, p->name, pwhy);
		if (!c->handshake)
			printf("  (no SYN in the capture: the connection may have started before it)\n");
	}
	for (int k = 0; k < 2; k++) {
		sd[k].items = json_array();
		sd[k].viols = json_array();
	}

	uint64_t first_end[2] = {0, 0};
	size_t nfpdu[2] = {0, 0};
	for (int n = 0; n < 2; n++) {
		int k = n == 0 ? ini : rsp;
		side *x = &sd[k];
		if (!cc->json) {
			dir_header(cc, c, x, k == ini ? "initiator" : "responder", jc, mk[k], crc, full);
			if (full && x->s->len > x->flen)
				printf("  (FPDU offsets count from SeqStart, the first octet after the %s)\n",
				       culley ? "connection's start" : k == ini ? "Request" : "Reply");
		}
		iw_decode_ctx o;
		ctx_for(cc, x, &o, 0);
		if (!culley) {
			if (x->s->len == 0) {
				if (k == rsp && sd[ini].frame_ok && !cc->json)
					printf("  the responder sent nothing\n");
			} else if (guess[k] < 0) {
				iw_decode_violation(&o, k == ini ? "MPA-6.1-R1a" : "MPA-6.1-R2f", IW_VIOL_FATAL, IW_LAYER_LLP,
						    IW_LLP_ET_MPA, IW_MPA_E_STARTUP, 0,
						    k == ini ? "the initiator's first octets are not a Request"
							     : "the responder's first octets are not a Reply");
			} else {
				iw_decode_frame(&o, p, x->s->data, x->s->len, k == ini ? IW_MPA_REQUEST : IW_MPA_REPLY, true,
						NULL);
			}
		}
		if (k == rsp && !culley && sd[ini].has_frame && !sd[ini].frame_ok && sd[rsp].has_frame)
			iw_decode_violation(&o, "MPA-6.1-R2b", IW_VIOL_FATAL, -1, 0, 0, 0,
					    "the responder answered an invalid Request; it must close without a Reply");
		if (full) {
			ctx_for(cc, x, &o, x->flen);
			if (x->s->len > x->flen)
				nfpdu[k] = iw_decode_fpdus(&o, p, mk[k], crc, 0, x->s->data + x->flen, x->s->len - x->flen,
							   &first_end[k]);
		} else if (rejected) {
			no_fpdus(cc, x, k == rsp ? "MPA-6.1-R2e" : "MPA-6.1-R3c",
				 k == rsp ? "after the responder rejected the connection (R=1): no FPDU may follow"
					  : "after the Reply rejected the connection (R=1): the initiator sends no FPDU");
		} else if (!culley && x->has_frame) {
			no_fpdus(cc, x, k == ini ? "MPA-6.1-R3a" : "MPA-6.1-R4",
				 "although the startup failed: they are not judged as FPDUs");
		}
		/* Startup order across the two directions, by capture frame. */
		if (full && k == ini && x->s->len > x->flen && sd[rsp].flen) {
			uint64_t f_first = iw_pcap_frame_of(x->s, x->flen);
			uint64_t f_reply = iw_pcap_frame_of(sd[rsp].s, sd[rsp].flen - 1);
			if (f_first && f_reply && f_first < f_reply) {
				char d[160];
				snprintf(d, sizeof d, "the initiator sent FPDU octets in frame %llu, before the Reply "
						      "completed in frame %llu", (unsigned long long)f_first,
					 (unsigned long long)f_reply);
				iw_decode_violation(&o, "MPA-6.1-R3a", IW_VIOL_FATAL, -1, 0, 0, 0, d);
			}
		}
		if (full && k == rsp && x->s->len > x->flen) {
			uint64_t f_first = iw_pcap_frame_of(x->s, x->flen);
			uint64_t f_valid = first_end[ini] ? iw_pcap_frame_of(sd[ini].s, sd[ini].flen + first_end[ini] - 1) : 0;
			if (!f_valid || f_first < f_valid) {
				char d[192];
				if (f_valid)
					snprintf(d, sizeof d, "the responder sent FPDU octets in frame %llu, before the "
							      "initiator's first valid FPDU completed in frame %llu",
						 (unsigned long long)f_first, (unsigned long long)f_valid);
				else
					snprintf(d, sizeof d, "the responder sent FPDU octets (frame %llu) but never "
							      "received a valid FPDU", (unsigned long long)f_first);
				iw_decode_violation(&o, "MPA-6.1-R4", IW_VIOL_FATAL, -1, 0, 0, 0, d);
			}
		}
		stream_notes(cc, x, x->flen);
		if (cc->json)
			dir_header(cc, c, x, k == ini ? "initiator" : "responder", jc, mk[k], crc, full);
	}
	(void)nfpdu;
	if (!cc->json)
		printf("\n");
	for (int k = 0; k < 2; k++) {
		json_decref(sd[k].items);
		json_decref(sd[k].viols);
	}
}

enum iw_decode_status iw_decode_capture(const char *path, const iw_profile *profile, bool json)
{
	iw_pcap_capture *cap;
	char msg[512];
	if (iw_pcap_read(path, &cap, msg, sizeof msg)) {
		fprintf(stderr, "iwspec decode: %s\n", msg);
		return IW_DECODE_UNREADABLE;
	}
	capctx cc;
	memset(&cc, 0, sizeof cc);
	cc.json = json;
	cc.viol.v = calloc(MAX_VIOLS, sizeof *cc.viol.v);
	cc.viol.cap = cc.viol.v ? MAX_VIOLS : 0;
	cc.conns = json_array();
	if (!json) {
		printf("capture %s: %llu frames (%s), %zu TCP connection%s\n", path, (unsigned long long)cap->frames,
		       cap->linkname ? cap->linkname : "?", cap->nconns, cap->nconns == 1 ? "" : "s");
		if (cap->warning[0])
			printf("note: %s\n", cap->warning);
		printf("\n");
	}
	for (size_t i = 0; i < cap->nconns; i++)
		decode_conn(&cc, &cap->conns[i], i + 1, profile);
	size_t nviol = cc.viol.n + cc.viol.dropped;
	enum iw_decode_status status = cc.mpa_conns == 0 ? IW_DECODE_NO_MPA
				     : nviol ? IW_DECODE_VIOLATIONS : IW_DECODE_CONFORMS;
	if (json) {
		json_t *root = json_pack("{s:s, s:I, s:I, s:o, s:I, s:b}", "capture", path, "frames",
					 (json_int_t)cap->frames, "tcp_connections", (json_int_t)cap->nconns, "connections",
					 cc.conns, "violation_count", (json_int_t)nviol, "conforms",
					 nviol == 0 && cc.mpa_conns > 0);
		if (cap->warning[0])
			json_object_set_new(root, "warning", json_string(cap->warning));
		json_object_set_new(root, "terminates", json_integer((json_int_t)cc.terminates));
		json_dumpf(root, stdout, JSON_INDENT(2));
		printf("\n");
		json_decref(root);
	} else {
		json_decref(cc.conns);
		if (cc.mpa_conns == 0)
			printf("no MPA connection in the capture: no TCP connection starts with an MPA Request or Reply\n");
		else if (nviol)
			printf("%zu violation%s in %zu MPA connection%s\n", nviol, nviol == 1 ? "" : "s", cc.mpa_conns,
			       cc.mpa_conns == 1 ? "" : "s");
		else
			printf("the capture conforms: %zu MPA connection%s\n", cc.mpa_conns, cc.mpa_conns == 1 ? "" : "s");
		/* A Terminate is legal on the wire; whether the error it reports was one depends on the
		 * peer's registrations and posted buffers, which a capture does not show. */
		if (cc.terminates)
			printf("note: %zu Terminate message%s in the capture: a peer reported an error it found (listed "
			       "above); whether it had to cannot be judged from the wire alone\n",
			       cc.terminates, cc.terminates == 1 ? "" : "s");
	}
	if (json && cc.mpa_conns == 0)
		fprintf(stderr, "iwspec decode: no MPA connection in the capture\n");
	free(cc.viol.v);
	iw_pcap_capture_free(cap);
	return status;
}
