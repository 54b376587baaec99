/*
 * test_mpa_frame.c - MPA startup Request/Reply frames: encoding of invalid fields, decoding
 * of partial input, and every defect iw_mpa_frame_check reports (MR §6.1, RFC 5044/6581).
 */
#include "check.h"
#include "mpa_frame.h"

static const iw_profile *prof(enum iw_profile_id id)
{
	return iw_profile_get(id);
}

static size_t enc(const iw_mpa_frame *f, uint8_t *out, size_t cap)
{
	size_t n = 0;
	iw_err e;
	CHECK_EQ(iw_mpa_frame_encode(f, out, cap, &n, &e), IW_OK);
	return n;
}

/* Runs the check into a fresh list; returns the verdict. */
typedef struct checked {
	iw_violation v[8];
	iw_viol_list l;
	bool ok;
} checked;

static void run_check(checked *c, const iw_profile *p, const iw_mpa_frame *f, enum iw_mpa_kind k)
{
	memset(c, 0, sizeof *c);
	c->l.v = c->v;
	c->l.cap = 8;
	c->ok = iw_mpa_frame_check(p, f, k, &c->l);
}

static bool is_code4(const iw_violation *v)
{
	return v->kind == IW_VIOL_FATAL && v->layer == IW_LAYER_LLP && v->etype == 0 && v->ecode == IW_MPA_E_STARTUP;
}

/* MPA-6.1.1-F1: the conforming frame of each profile decodes back and passes. */
TEST(mpa_frame_init_roundtrip_all_profiles)
{
	for (int id = IW_PROFILE_RDDP_MPA_01; id < IW_PROFILE_COUNT; id++) {
		const iw_profile *p = prof((enum iw_profile_id)id);
		for (int k = 0; k < 2; k++) {
			iw_mpa_frame f, d;
			uint8_t out[64];
			iw_mpa_frame_init(&f, p, (enum iw_mpa_kind)k);
			CHECK(f.c && !f.m && !f.r && f.res == 0);
			CHECK_EQ(f.rev, p->mpa_rev);
			size_t n = enc(&f, out, sizeof out);
			CHECK_EQ(n, p->enhanced ? 24u : 20u);
			size_t fl = 0;
			CHECK_EQ(iw_mpa_frame_decode(p, out, n, &d, &fl, NULL), IW_OK);
			CHECK_EQ(fl, n);
			CHECK_MEM(d.key, iw_mpa_key((enum iw_mpa_kind)k), 16);
			CHECK_EQ(d.enhanced, p->enhanced);
			CHECK_EQ(d.has_irdord, p->enhanced);
			CHECK_EQ(d.pd_len, 0);
			checked c;
			run_check(&c, p, &d, (enum iw_mpa_kind)k);
			CHECK(c.ok);
			CHECK_EQ(c.l.n, 0);
		}
	}
}

/* Encoding takes every field as given: Res bits, any Rev, and a PD_Length that disagrees
 * with the private data actually sent (stimuli for MPA-6.1-R9a, MPA-6.1.1-05/07). */
TEST(mpa_frame_encode_invalid_fields)
{
	const iw_profile *p = prof(IW_PROFILE_RFC5044);
	iw_mpa_frame f;
	uint8_t out[64];
	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	f.key[11] = 'f';
	f.m = true;
	f.r = true;
	f.res = 0x1F;
	f.rev = 0xFF;
	f.pd_length_auto = false;
	f.pd_length = 65535;
	f.pd = (const uint8_t *)"0123456789";
	f.pd_len = 10;
	CHECK_EQ(iw_mpa_frame_size(&f), 30);
	size_t n = enc(&f, out, sizeof out);
	CHECK_EQ(n, 30);
	CHECK_EQ(out[11], 'f');
	CHECK_EQ(out[16], 0xFF);
	CHECK_EQ(out[17], 0xFF);
	CHECK_MEM(out + 18, "\xFF\xFF", 2);
	CHECK_MEM(out + 20, "0123456789", 10);

	/* The decoder reads PD_Length as sent and asks for all of it. */
	iw_mpa_frame d;
	size_t fl = 0;
	CHECK_EQ(iw_mpa_frame_decode(p, out, n, &d, &fl, NULL), IW_ETRUNC);
	CHECK_EQ(fl, 20 + 65535);

	/* IRD/ORD block with every flag, values masked to 14 bits. */
	const iw_profile *e6 = prof(IW_PROFILE_RFC6581);
	iw_mpa_frame_init(&f, e6, IW_MPA_REPLY);
	f.ird = 0x3FFF;
	f.ord = 0xFFFF;
	f.p2p = f.rtr_send = f.rtr_write = f.rtr_read = true;
	f.pd = (const uint8_t *)"xy";
	f.pd_len = 2;
	n = enc(&f, out, sizeof out);
	CHECK_EQ(n, 26);
	CHECK_MEM(out + 16, "\x50\x02\x00\x06\xFF\xFF\xFF\xFFxy", 10);
	CHECK_EQ(iw_mpa_frame_decode(e6, out, n, &d, &fl, NULL), IW_OK);
	CHECK(d.has_irdord && d.p2p && d.rtr_send && d.rtr_write && d.rtr_read);
	CHECK_EQ(d.ird, 0x3FFF);
	CHECK_EQ(d.ord, 0x3FFF);
	CHECK_EQ(d.pd_len, 2);
	CHECK_MEM(d.pd, "xy", 2);
	CHECK(d.pd == out + 24);

	f.p2p = f.rtr_send = f.rtr_write = f.rtr_read = false;
	f.ird = 1;
	f.ord = 0x2000;
	n = enc(&f, out, sizeof out);
	CHECK_MEM(out + 20, "\x00\x01\x20\x00", 4);
}

TEST(mpa_frame_encode_errors)
{
	iw_mpa_frame f;
	uint8_t out[64];
	size_t n = 99;
	iw_err e;
	iw_mpa_frame_init(&f, prof(IW_PROFILE_RFC6581), IW_MPA_REQUEST);
	CHECK_EQ(iw_mpa_frame_encode(&f, out, 23, &n, &e), IW_ENOSPC);
	CHECK_EQ(n, 99);
	CHECK(strstr(e.msg, "24") != NULL);
	CHECK_EQ(iw_mpa_frame_encode(&f, out, 24, &n, &e), IW_OK);
	CHECK_EQ(n, 24);

	/* 65532 ULP octets + the 4-octet block = 65536: too long for an automatic PD_Length. */
	static uint8_t big[65532];
	f.pd = big;
	f.pd_len = sizeof big;
	CHECK_EQ(iw_mpa_frame_encode(&f, out, sizeof out, &n, &e), IW_EINVAL);
	/* ...but a stimulus may send it with an explicit (wrong) PD_Length. */
	static uint8_t huge[20 + 65536];
	f.pd_length_auto = false;
	f.pd_length = 7;
	CHECK_EQ(iw_mpa_frame_encode(&f, huge, sizeof huge, &n, &e), IW_OK);
	CHECK_EQ(n, sizeof huge);
	CHECK_MEM(huge + 18, "\x00\x07", 2);
}

/* MPA-6.1-R2a/R10a: a frame arriving in pieces is IW_ETRUNC until its last PD octet, with
 * the octet count needed so far. */
TEST(mpa_frame_decode_truncated)
{
	const iw_profile *p = prof(IW_PROFILE_RDDP_MPA_01);
	iw_mpa_frame f, d;
	uint8_t out[64];
	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	f.pd = (const uint8_t *)"abc";
	f.pd_len = 3;
	size_t n = enc(&f, out, sizeof out);
	CHECK_EQ(n, 23);
	for (size_t len = 0; len < n; len++) {
		size_t fl = 0;
		iw_err e;
		memset(&d, 0xA5, sizeof d);
		CHECK_EQ(iw_mpa_frame_decode(p, out, len, &d, &fl, &e), IW_ETRUNC);
		CHECK_EQ(fl, len < 20 ? 20u : 23u);
		if (len >= 20) {
			/* The header is already judged: Rev and PD_Length are known. */
			CHECK_EQ(d.pd_length, 3);
			CHECK_EQ(d.rev, 0);
			CHECK(d.pd == NULL);
		}
	}
	size_t fl = 0;
	CHECK_EQ(iw_mpa_frame_decode(p, out, n, &d, &fl, NULL), IW_OK);
	CHECK_EQ(fl, 23);
	CHECK_MEM(d.pd, "abc", 3);
	/* Octets after the frame belong to the FPDU stream (MPA-6.1-R9a) and are not taken. */
	CHECK_EQ(iw_mpa_frame_decode(p, out, sizeof out, &d, &fl, NULL), IW_OK);
	CHECK_EQ(fl, 23);
}

TEST(mpa_frame_culley_has_no_frames)
{
	const iw_profile *c = prof(IW_PROFILE_CULLEY_MPA_02);
	iw_mpa_frame f, d;
	uint8_t out[64];
	iw_err e;
	iw_mpa_frame_init(&f, prof(IW_PROFILE_RDDP_MPA_01), IW_MPA_REQUEST);
	size_t n = enc(&f, out, sizeof out);
	CHECK_EQ(iw_mpa_frame_decode(c, out, n, &d, NULL, &e), IW_EINVAL);
	CHECK(strstr(e.msg, "culley-mpa-02") != NULL);
	checked k;
	run_check(&k, c, &f, IW_MPA_REQUEST);
	CHECK(!k.ok);
	CHECK_EQ(k.l.n, 1);
}

/* Under the drafts and RFC 5044 octet 16's 0x10 is a Res bit; under RFC 6581 it is the
 * Enhanced flag of a Rev 2 frame, whose Res is 0x0F, and a Res bit of any other. */
TEST(mpa_frame_decode_enhanced_bit_by_profile)
{
	uint8_t buf[28];
	memcpy(buf, iw_mpa_key(IW_MPA_REQUEST), 16);
	memcpy(buf + 16, "\x5F\x01\x00\x04\x80\x05\x40\x06", 8);
	iw_mpa_frame d;
	CHECK_EQ(iw_mpa_frame_decode(prof(IW_PROFILE_RFC5044), buf, 24, &d, NULL, NULL), IW_OK);
	CHECK(!d.enhanced && !d.has_irdord);
	CHECK_EQ(d.res, 0x1F);
	CHECK_EQ(d.pd_len, 4);
	CHECK(d.pd == buf + 20);
	checked c;
	run_check(&c, prof(IW_PROFILE_RFC5044), &d, IW_MPA_REQUEST);
	CHECK(c.ok);
	CHECK_EQ(c.l.n, 1);
	CHECK_STR(c.v[0].req, "MPA-6.1.1-05");

	/* Under RFC 6581 too, a Rev 1 frame is not enhanced: 0x10 is a Res bit, the 4 octets are
	 * private data (F9: enhanced frames are Rev 2). */
	CHECK_EQ(iw_mpa_frame_decode(prof(IW_PROFILE_RFC6581), buf, 24, &d, NULL, NULL), IW_OK);
	CHECK(!d.enhanced && !d.has_irdord);
	CHECK_EQ(d.res, 0x1F);
	CHECK_EQ(d.pd_len, 4);
	run_check(&c, prof(IW_PROFILE_RFC6581), &d, IW_MPA_REQUEST);
	CHECK(c.ok);
	CHECK_EQ(c.l.n, 1);
	CHECK_STR(c.v[0].req, "MPA-6.1.1-05");

	buf[17] = 2;                /* Rev 2: the Enhanced flag, Res 0x0F, and the block */
	CHECK_EQ(iw_mpa_frame_decode(prof(IW_PROFILE_RFC6581), buf, 24, &d, NULL, NULL), IW_OK);
	CHECK(d.enhanced && d.has_irdord);
	CHECK_EQ(d.res, 0x0F);
	CHECK(d.p2p && !d.rtr_send && !d.rtr_write && d.rtr_read);
	CHECK_EQ(d.ird, 5);
	CHECK_EQ(d.ord, 6);
	CHECK_EQ(d.pd_len, 0);

	/* Enhanced with PD_Length 2: no block parsed, the 2 octets stay private data. */
	memcpy(buf + 16, "\x50\x02\x00\x02\x12\x34", 6);
	CHECK_EQ(iw_mpa_frame_decode(prof(IW_PROFILE_RFC6581), buf, 22, &d, NULL, NULL), IW_OK);
	CHECK(d.enhanced && !d.has_irdord);
	CHECK_EQ(d.pd_len, 2);
}

/* MPA-6.1-R5, MPA-6.1.1-02/04: each of the 16 key octets flipped, for both receivers. */
TEST(mpa_frame_check_key_each_position)
{
	const iw_profile *p = prof(IW_PROFILE_RDDP_MPA_01);
	for (int k = 0; k < 2; k++) {
		enum iw_mpa_kind kind = (enum iw_mpa_kind)k;
		for (size_t i = 0; i < 16; i++) {
			iw_mpa_frame f;
			iw_mpa_frame_init(&f, p, kind);
			f.key[i] ^= 0x01;
			checked c;
			run_check(&c, p, &f, kind);
			CHECK(!c.ok);
			CHECK_EQ(c.l.n, 1);
			if (i == 9) {
				/* 'q' ^ 1 = 'p' and 'p' ^ 1 = 'q': that is the other frame's key. */
				CHECK_STR(c.v[0].req, "MPA-6.1-R8a");
			} else {
				CHECK_STR(c.v[0].req, "MPA-6.1-R5");
				CHECK_EQ(c.v[0].offset, i);
			}
			CHECK(is_code4(&c.v[0]));
			CHECK(strstr(c.v[0].detail, kind == IW_MPA_REQUEST ? "MPA-6.1.1-02" : "MPA-6.1.1-04") != NULL);

			/* And a different value at the same place (never the other key). */
			iw_mpa_frame_init(&f, p, kind);
			f.key[i] = 0x00;
			run_check(&c, p, &f, kind);
			CHECK(!c.ok);
			CHECK_STR(c.v[0].req, "MPA-6.1-R5");
			CHECK_EQ(c.v[0].offset, i);
		}
	}
}

/* A15: "MPA ID Req frame" with a lower-case f (0x66) is a key mismatch. */
TEST(mpa_frame_check_lowercase_f)
{
	const iw_profile *p = prof(IW_PROFILE_RFC5044);
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	memcpy(f.key, "MPA ID Req frame", 16);
	checked c;
	run_check(&c, p, &f, IW_MPA_REQUEST);
	CHECK(!c.ok);
	CHECK_STR(c.v[0].req, "MPA-6.1-R5");
	CHECK_EQ(c.v[0].offset, 11);
	CHECK(strstr(c.v[0].detail, "A15") != NULL);
}

/* MPA-6.1-R8a: a Request key where a Reply belongs (Initiator/Initiator), and the mirror. */
TEST(mpa_frame_check_other_key)
{
	const iw_profile *p = prof(IW_PROFILE_RFC5044);
	iw_mpa_frame f;
	checked c;
	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	run_check(&c, p, &f, IW_MPA_REPLY);
	CHECK(!c.ok);
	CHECK_EQ(c.l.n, 1);
	CHECK_STR(c.v[0].req, "MPA-6.1-R8a");
	CHECK(is_code4(&c.v[0]));
	CHECK(strstr(c.v[0].detail, "Initiator/Initiator") != NULL);
	CHECK(strstr(c.v[0].detail, "MPA-6.1.1-04") != NULL);

	iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
	run_check(&c, p, &f, IW_MPA_REQUEST);
	CHECK(!c.ok);
	CHECK_STR(c.v[0].req, "MPA-6.1-R8a");
	CHECK(strstr(c.v[0].detail, "MPA-6.1.1-02") != NULL);
}

/* MPA-6.1.1-07 and §4.1: which Rev each profile accepts. */
TEST(mpa_frame_check_rev)
{
	static const struct { enum iw_profile_id id; uint8_t rev; bool ok; } rows[] = {
		{ IW_PROFILE_RDDP_MPA_01, 0, true }, { IW_PROFILE_RDDP_MPA_01, 1, false },
		{ IW_PROFILE_RDDP_MPA_01, 2, false }, { IW_PROFILE_RDDP_MPA_01, 0x80, false },
		{ IW_PROFILE_RDDP_MPA_01, 0xFF, false }, { IW_PROFILE_SEED_EXACT, 1, false },
		{ IW_PROFILE_RFC5044, 0, false }, { IW_PROFILE_RFC5044, 1, true },
		{ IW_PROFILE_RFC5044, 2, false }, { IW_PROFILE_RFC6581, 0, false },
		{ IW_PROFILE_RFC6581, 1, true }, { IW_PROFILE_RFC6581, 2, true },
		{ IW_PROFILE_RFC6581, 3, false },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const iw_profile *p = prof(rows[i].id);
		iw_mpa_frame f;
		iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
		f.rev = rows[i].rev;
		if (f.rev != 2)         /* an RFC 6581 frame is Rev 2; others carry no Enhanced bit */
			f.enhanced = f.has_irdord = false;
		checked c;
		run_check(&c, p, &f, IW_MPA_REPLY);
		CHECK_EQ(c.ok, rows[i].ok);
		CHECK_EQ(c.l.n, rows[i].ok ? 0u : 1u);
		if (!rows[i].ok) {
			CHECK_STR(c.v[0].req, "MPA-6.1.1-07");
			CHECK(is_code4(&c.v[0]));
			CHECK_EQ(c.v[0].offset, 17);
		}
	}
}

/* MPA-6.1-R9a: PD_Length above the profile's limit (RFC 5044: 512); the drafts allow 65535. */
TEST(mpa_frame_check_pd_length_limit)
{
	static const struct { enum iw_profile_id id; uint16_t len; bool ok; } rows[] = {
		{ IW_PROFILE_RFC5044, 512, true }, { IW_PROFILE_RFC5044, 513, false },
		{ IW_PROFILE_RFC5044, 65535, false }, { IW_PROFILE_RFC6581, 512, true },
		{ IW_PROFILE_RFC6581, 600, false }, { IW_PROFILE_RDDP_MPA_01, 65535, true },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const iw_profile *p = prof(rows[i].id);
		iw_mpa_frame f;
		iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
		f.pd_length_auto = false;
		f.pd_length = rows[i].len;
		checked c;
		run_check(&c, p, &f, IW_MPA_REQUEST);
		CHECK_EQ(c.ok, rows[i].ok);
		if (!rows[i].ok) {
			CHECK_EQ(c.l.n, 1);
			CHECK_STR(c.v[0].req, "MPA-6.1-R9a");
			CHECK(is_code4(&c.v[0]));
			CHECK(strstr(c.v[0].detail, "512") != NULL);
		}
	}
}

/* A frame built rather than decoded is judged by the PD_Length encoding would send: under
 * RFC 6581 the IRD/ORD block counts, so 509 ULP octets make 513. */
TEST(mpa_frame_check_pd_length_auto)
{
	static uint8_t pd[509];
	const iw_profile *p = prof(IW_PROFILE_RFC6581);
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
	f.pd = pd;
	f.pd_len = 508;
	checked c;
	run_check(&c, p, &f, IW_MPA_REPLY);
	CHECK(c.ok);
	f.pd_len = 509;
	run_check(&c, p, &f, IW_MPA_REPLY);
	CHECK(!c.ok);
	CHECK_STR(c.v[0].req, "MPA-6.1-R9a");
	CHECK(strstr(c.v[0].detail, "513") != NULL);
}

/* RFC 6581: an Enhanced frame needs PD_Length >= 4 for its IRD/ORD block. */
TEST(mpa_frame_check_enhanced_short_pd)
{
	const iw_profile *p = prof(IW_PROFILE_RFC6581);
	for (uint16_t len = 0; len <= 5; len++) {
		iw_mpa_frame f;
		iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
		f.pd_length_auto = false;
		f.pd_length = len;
		checked c;
		run_check(&c, p, &f, IW_MPA_REQUEST);
		CHECK_EQ(c.ok, len >= 4);
		if (len < 4) {
			CHECK_STR(c.v[0].req, "RFC6581-6-03");
			CHECK(is_code4(&c.v[0]));
			CHECK(strstr(c.v[0].detail, "IRD/ORD") != NULL);
		}
		/* Without the flag there is no block to make room for. */
		f.enhanced = false;
		run_check(&c, p, &f, IW_MPA_REQUEST);
		CHECK(c.ok);
	}
}

/* MPA-6.1.1-05, MPA-6.1.1-R1: Res bits and R in a Request are sender violations only. */
TEST(mpa_frame_check_sender_violations)
{
	const iw_profile *p = prof(IW_PROFILE_RDDP_MPA_01);
	iw_mpa_frame f;
	checked c;
	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	f.res = 0x1F;
	f.r = true;
	run_check(&c, p, &f, IW_MPA_REQUEST);
	CHECK(c.ok);
	CHECK_EQ(c.l.n, 2);
	CHECK_STR(c.v[0].req, "MPA-6.1.1-05");
	CHECK_STR(c.v[1].req, "MPA-6.1.1-R1");
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(c.v[i].kind, IW_VIOL_SENDER);
		CHECK_EQ(c.v[i].layer, -1);
		CHECK_EQ(c.v[i].offset, 16);
	}

	/* R in a Reply is the reject flag, not a defect. */
	iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
	f.r = true;
	run_check(&c, p, &f, IW_MPA_REPLY);
	CHECK(c.ok);
	CHECK_EQ(c.l.n, 0);

	/* A caller-built Enhanced flag under a draft profile is a Res bit there. */
	iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
	f.enhanced = true;
	run_check(&c, p, &f, IW_MPA_REPLY);
	CHECK(c.ok);
	CHECK_EQ(c.l.n, 1);
	CHECK(strstr(c.v[0].detail, "0x10") != NULL);

	/* Under RFC 6581 Res is 0x0F. */
	p = prof(IW_PROFILE_RFC6581);
	iw_mpa_frame_init(&f, p, IW_MPA_REPLY);
	f.res = 0x08;
	run_check(&c, p, &f, IW_MPA_REPLY);
	CHECK(c.ok);
	CHECK_EQ(c.l.n, 1);
	CHECK_STR(c.v[0].req, "MPA-6.1.1-05");
}

/* All defects of one frame are reported, fatal and sender alike; a NULL or full list only
 * loses the records, never the verdict. */
TEST(mpa_frame_check_all_defects_at_once)
{
	const iw_profile *p = prof(IW_PROFILE_RFC6581);
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, p, IW_MPA_REQUEST);
	f.key[0] = 'X';
	f.rev = 9;                  /* not 2: the Enhanced bit init set is a Res bit here (F9) */
	f.pd_length_auto = false;
	f.pd_length = 600;
	f.res = 1;
	f.r = true;
	checked c;
	run_check(&c, p, &f, IW_MPA_REQUEST);
	CHECK(!c.ok);
	CHECK_EQ(c.l.n, 5);
	CHECK_STR(c.v[0].req, "MPA-6.1-R5");
	CHECK_STR(c.v[1].req, "MPA-6.1.1-07");
	CHECK_STR(c.v[2].req, "MPA-6.1-R9a");
	CHECK_STR(c.v[3].req, "MPA-6.1.1-05");
	CHECK(strstr(c.v[3].detail, "0x11") != NULL);
	CHECK_STR(c.v[4].req, "MPA-6.1.1-R1");
	CHECK(!iw_mpa_frame_check(p, &f, IW_MPA_REQUEST, NULL));

	iw_violation one[1];
	iw_viol_list l = { .v = one, .cap = 1 };
	CHECK(!iw_mpa_frame_check(p, &f, IW_MPA_REQUEST, &l));
	CHECK_EQ(l.n, 1);
	CHECK_EQ(l.dropped, 4);
}
