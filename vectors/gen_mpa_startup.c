/*
 * gen_mpa_startup.c - vectors for the MPA Request and Reply frames (MR §6.1, RFC 5044,
 * RFC 6581): what a responder accepts as a Request and an initiator as a Reply.
 */
#include <string.h>

#include "mpa_frame.h"
#include "vec_int.h"

#define FRAME_MAX (IW_MPA_FRAME_HDR_LEN + 1100)

typedef struct fbuf {
	uint8_t b[FRAME_MAX];
	size_t n;
} fbuf;

static void enc(const iw_mpa_frame *f, fbuf *o)
{
	o->n = 0;
	iw_mpa_frame_encode(f, o->b, sizeof o->b, &o->n, NULL);
}

/* A frame of another Rev than 2 is no RFC 6581 frame: it carries no Enhanced bit or IRD/ORD
 * block (mpa_frame.h, iw_mpa_frame_enhanced), so the vector has the one defect it names. */
static void set_rev(iw_mpa_frame *f, uint8_t rev)
{
	f->rev = rev;
	if (rev != 2)
		f->enhanced = f->has_irdord = false;
}

static void add(vgen *g, const char *desc, const char *reqs, const char *flags, const char *expect, const fbuf *o)
{
	json_t *v = vg_new(g, desc, reqs, flags);
	vg_stream(v, 0, false, true, expect, o->b, o->n);
	vg_add(g, "mpa-startup", v);
}

void gen_mpa_startup(vgen *g)
{
	const iw_profile *p = g->p;
	if (!p->startup_frames)
		return;
	iw_mpa_frame f;
	fbuf o;
	static const uint8_t abc[] = "abc", bad[] = "bad";

	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	enc(&f, &o);
	add(g, "A conforming Request: C=1, M=0, R=0, the profile's Rev, no ULP private data",
	    "MPA-6.1-R1a,MPA-6.1.1-01,MPA-6.1.1-06,MPA-6.1.1-F1", "", "request", &o);

	iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
	enc(&f, &o);
	add(g, "A conforming Reply accepting the connection", "MPA-6.1-R2f,MPA-6.1.1-03,MPA-6.1.1-F1", "", "reply", &o);

	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	f.m = true;
	enc(&f, &o);
	add(g, "A Request with M=1: the initiator wants markers on what it receives", "MPA-6.1.1-M2,MPA-5.1-01", "",
	    "request", &o);

	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	f.c = false;
	enc(&f, &o);
	add(g, "A Request with C=0 (CRC not preferred); CRC is still used unless both frames have C=0",
	    "MPA-6.1.1-C1,MPA-6.1.1-C2", "", "request", &o);

	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	f.pd = abc;
	f.pd_len = 3;
	enc(&f, &o);
	add(g, "A Request carrying 3 octets of ULP private data \"abc\"", "MPA-6.1-R1b,MPA-6.1.1-08", "", "request", &o);

	if (p->r_bit) {
		iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
		f.r = true;
		f.pd = bad;
		f.pd_len = 3;
		enc(&f, &o);
		add(g, "A Reply with R=1 rejecting the connection, private data \"bad\": a valid frame",
		    "MPA-6.1-R2c,MPA-6.1-R2d,MPA-6.1.1-R1", "", "reply", &o);

		iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
		f.r = true;
		enc(&f, &o);
		add(g, "A Request with R=1: the bit is not checked in a Request, the receiver ignores it",
		    "MPA-6.1.1-R1", "r-bit-in-request", "request", &o);
	}

	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	f.res = p->enhanced ? IW_MPA_RES_MASK_ENH : IW_MPA_RES_MASK_DRAFT;
	enc(&f, &o);
	add(g, "A Request with every Res bit set: Res is zero when sent and not checked on receipt",
	    "MPA-6.1.1-05", "res-bits", "request", &o);

	iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
	f.res = p->enhanced ? IW_MPA_RES_MASK_ENH : IW_MPA_RES_MASK_DRAFT;
	enc(&f, &o);
	add(g, "A Reply with every Res bit set: ignored by the initiator", "MPA-6.1.1-05", "res-bits", "reply", &o);

	/* Keys. */
	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	enc(&f, &o);
	o.b[0] ^= 0x01;
	add(g, "A Request whose first Key octet is wrong ('L' for 'M'): the responder closes, no Reply",
	    "MPA-6.1-R5,MPA-6.1.1-02,MPA-6.1-R2b,MPA-7-06", "bad-key", "request", &o);

	enc(&f, &o);
	o.b[15] ^= 0x01;
	add(g, "A Request whose last Key octet is wrong", "MPA-6.1-R5,MPA-6.1.1-02", "bad-key", "request", &o);

	enc(&f, &o);
	o.b[13] = 'f';
	add(g, "A Request keyed \"MPA ID Req frame\" with a lower-case f, as the prose spells it: the hex is "
	       "authoritative, this is a Key mismatch (requirements.md A15)",
	    "MPA-6.1-R5,MPA-6.1.1-F1", "bad-key", "request", &o);

	iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
	enc(&f, &o);
	add(g, "A Reply sent to a responder that waits for a Request (initiator/initiator startup)",
	    "MPA-6.1-R8a,MPA-6.1.1-02", "wrong-frame", "request", &o);

	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	enc(&f, &o);
	add(g, "A Request sent to an initiator that waits for a Reply (initiator/initiator startup)",
	    "MPA-6.1-R8a,MPA-6.1.1-04", "wrong-frame", "reply", &o);

	/* Rev. */
	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	set_rev(&f, (uint8_t)(p->rev_accept_max + 1));
	enc(&f, &o);
	add(g, "A Request with a Rev above what the profile accepts: closed with a local error",
	    "MPA-6.1.1-07,MPA-6.1-R2b", "bad-rev", "request", &o);
	set_rev(&f, 0xFF);
	enc(&f, &o);
	add(g, "A Request with Rev 255", "MPA-6.1.1-07", "bad-rev", "request", &o);
	if (p->rev_accept_min > 0) {
		set_rev(&f, (uint8_t)(p->rev_accept_min - 1));
		enc(&f, &o);
		add(g, "A Request with a Rev below what the profile accepts (an older revision)", "MPA-6.1.1-07",
		    "bad-rev", "request", &o);
	}
	iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
	set_rev(&f, (uint8_t)(p->rev_accept_max + 1));
	enc(&f, &o);
	add(g, "A Reply with a Rev above what the profile accepts: the initiator closes", "MPA-6.1.1-07,MPA-6.1-R3b",
	    "bad-rev", "reply", &o);

	/* PD_Length. */
	static uint8_t pd[1100];
	memcpy(pd, vec_pattern(sizeof pd), sizeof pd);
	if (p->pd_max <= IW_MPA_PD_MAX_RFC) {
		iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
		f.has_irdord = false;
		f.enhanced = false;
		f.pd = pd;
		f.pd_len = p->pd_max;
		enc(&f, &o);
		add(g, "A Request with the largest private data the profile allows", "MPA-6.1-R9a,MPA-6.1.1-08", "",
		    "request", &o);
		f.pd_len = p->pd_max + 1;
		enc(&f, &o);
		add(g, "A Request with one octet of private data more than the profile allows", "MPA-6.1-R9a,MPA-6.1-R9d",
		    "pd-too-long", "request", &o);
	} else {
		iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
		f.pd = pd;
		f.pd_len = 1024;
		enc(&f, &o);
		add(g, "A Request with 1024 octets of private data: allowed by the draft (up to 65535), and a receiver "
		       "may also treat a PD larger than it supports as improper (requirements.md A11)",
		    "MPA-6.1-R9b,MPA-6.1.1-08", "large-pd", "request", &o);
	}

	/* Truncation: the frame never completes. */
	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	enc(&f, &o);
	o.n = IW_MPA_FRAME_HDR_LEN - 1;
	add(g, "19 octets of a Request header, then nothing: the frame never completes (timeout, rule 10)",
	    "MPA-6.1-R10a,MPA-6.1-R2b", "truncated", "request", &o);
	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	f.has_irdord = false;
	f.enhanced = false;
	f.pd = pd;
	f.pd_len = 4;
	f.pd_length_auto = false;
	f.pd_length = 10;
	enc(&f, &o);
	add(g, "A Request announcing PD_Length 10 and carrying 4 octets: the private data never completes",
	    "MPA-6.1-R9a,MPA-6.1-R9d", "truncated", "request", &o);

	if (p->enhanced) {
		iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
		f.p2p = true;
		f.rtr_write = true;
		f.rtr_read = true;
		enc(&f, &o);
		add(g, "An RFC 6581 Request: Enhanced, IRD=ORD=16, peer-to-peer, offering the Write and Read RTRs",
		    "RFC6581-9.1-01,RFC6581-9.1-02,RFC6581-9.2-02", "", "request", &o);

		iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
		f.ird = IW_MPA_IRDORD_NONE;
		f.ord = IW_MPA_IRDORD_NONE;
		enc(&f, &o);
		add(g, "An RFC 6581 Request with IRD and ORD 0x3FFF (no limit stated)", "RFC6581-9.1-02", "", "request", &o);

		iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
		f.has_irdord = false;
		f.pd_length_auto = false;
		f.pd_length = 2;
		f.pd = pd;
		f.pd_len = 2;
		enc(&f, &o);
		add(g, "An Enhanced Request with only 2 octets of private data: no room for the IRD/ORD block",
		    "RFC6581-6-03,MPA-6.1-R9a", "enhanced-short-pd", "request", &o);

		iw_mpa_frame_init(&f, iw_profile_get(IW_PROFILE_RFC5044), IW_MPA_REQUEST);
		enc(&f, &o);
		add(g, "An RFC 5044 (Rev 1) Request to an RFC 6581 responder: accepted, no IRD/ORD negotiation",
		    "RFC5044-7.1.1-02,MPA-6.1.1-07", "", "request", &o);
	}
}
