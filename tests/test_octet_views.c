/*
 * test_octet_views.c - the engine's views and setters on raw octets (issue 13: the engine is
 * the only parser): each one against the engine's own encoder, so a view that drifts from the
 * layout the encoder writes fails here, not in a report.
 */
#include "check.h"
#include "ddp.h"
#include "iw_field_span.h"
#include "iw_octets.h"
#include "mpa_fpdu.h"
#include "mpa_frame.h"
#include "mpa_markers.h"
#include "rdmap.h"
#include "reflector_greeting.h"

TEST(octets_be_roundtrip)
{
	uint8_t b[8];
	iw_put_be16(b, 0x1234);
	CHECK(b[0] == 0x12 && b[1] == 0x34);
	CHECK_EQ(iw_get_be16(b), 0x1234);
	iw_put_be32(b, 0xdeadbeef);
	CHECK(b[0] == 0xde && b[3] == 0xef);
	CHECK_EQ(iw_get_be32(b), 0xdeadbeefu);
	iw_put_be64(b, 0x0102030405060708ull);
	CHECK(b[0] == 1 && b[7] == 8);
	CHECK(iw_get_be64(b) == 0x0102030405060708ull);
}

TEST(mpa_frame_views_match_the_encoder)
{
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, iw_profile_get(IW_PROFILE_RFC6581), IW_MPA_REPLY);
	f.m = true;
	f.c = false;
	f.r = true;
	f.rev = 2;
	f.pd_length_auto = false; /* the field as given, whatever private data follows */
	f.pd_length = 300;
	uint8_t out[64];
	size_t n = 0;
	CHECK_EQ(iw_mpa_frame_encode(&f, out, sizeof out, &n, NULL), IW_OK);
	CHECK_EQ(iw_mpa_frame_flags(out) & (IW_MPA_FLAG_M | IW_MPA_FLAG_C | IW_MPA_FLAG_R), IW_MPA_FLAG_M | IW_MPA_FLAG_R);
	CHECK_EQ(iw_mpa_frame_rev(out), 2);
	CHECK_EQ(iw_mpa_frame_pd_length(out), 300);
	CHECK_EQ(iw_mpa_frame_len(out), IW_MPA_FRAME_HDR_LEN + 300u);

	/* The setters change one field: the decoder sees exactly that change. */
	iw_mpa_frame_set_flags(out, (uint8_t)(iw_mpa_frame_flags(out) & ~IW_MPA_FLAG_M));
	iw_mpa_frame_set_rev(out, 1);
	iw_mpa_frame_set_pd_length(out, 0);
	iw_mpa_frame g;
	size_t flen;
	CHECK_EQ(iw_mpa_frame_decode(iw_profile_get(IW_PROFILE_RFC6581), out, IW_MPA_FRAME_HDR_LEN, &g, &flen, NULL),
		 IW_OK);
	CHECK(!g.m && g.r && g.rev == 1 && g.pd_length == 0);
}

TEST(fpdu_layout_matches_the_encoder)
{
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, iw_profile_get(IW_PROFILE_RFC5044), false, true);
	for (size_t ul = 18; ul < 26; ul++) {
		uint8_t u[32] = {0}, out[64];
		size_t w = 0;
		CHECK_EQ(iw_mpa_tx_fpdu(&tx, u, ul, NULL, 0, NULL, out, sizeof out, &w, NULL), IW_OK);
		iw_fpdu_layout l = iw_fpdu_layout_of(ul);
		CHECK_EQ(l.body_len, w);
		CHECK_EQ(iw_fpdu_ulpdu_length(out), ul);
		CHECK_EQ(l.ulpdu_off, 2u);
		CHECK_EQ(l.pad_off, 2 + ul);
		CHECK_EQ(l.pad_len, iw_mpa_pad_len(ul));
		CHECK_EQ(l.crc_off + 4, w);
		CHECK_EQ(l.crc_off % 4, 0u);
	}
}

TEST(ddp_and_rdmap_views_match_the_encoder)
{
	iw_ddp_hdr h = {.tagged = true, .last = false, .dv = 1, .stag = 0x11223344, .to = 0x8877665544332211ull};
	h.rsvdulp[0] = iw_rdmap_ctrl(1, IW_OP_WRITE);
	uint8_t u[IW_DDP_UNTAGGED_HDR_LEN];
	size_t n;
	CHECK_EQ(iw_ddp_hdr_encode(&h, u, sizeof u, &n, NULL), IW_OK);
	CHECK(iw_ddp_octets_tagged(u));
	CHECK(!iw_ddp_octets_last(u));
	CHECK(iw_ddp_octets_to(u) == 0x8877665544332211ull);
	CHECK_EQ(iw_rdmap_octets_opcode(u), IW_OP_WRITE);
	CHECK_EQ(iw_get_be32(u + IW_DDP_OFF_STAG), 0x11223344u);
	iw_ddp_octets_set_last(u, true);
	iw_ddp_hdr d;
	CHECK_EQ(iw_ddp_hdr_decode(u, n, &d, NULL, NULL), IW_OK);
	CHECK(d.last && d.tagged && d.dv == 1 && d.stag == 0x11223344);

	iw_ddp_hdr un = {.tagged = false, .qn = 2, .msn = 7, .mo = 9};
	un.rsvdulp[0] = iw_rdmap_ctrl(1, IW_OP_TERMINATE);
	CHECK_EQ(iw_ddp_hdr_encode(&un, u, sizeof u, &n, NULL), IW_OK);
	CHECK(!iw_ddp_octets_tagged(u));
	CHECK_EQ(iw_get_be32(u + IW_DDP_OFF_QN), 2u);
	CHECK_EQ(iw_get_be32(u + IW_DDP_OFF_MSN), 7u);
	CHECK_EQ(iw_get_be32(u + IW_DDP_OFF_MO), 9u);
	CHECK_EQ(iw_rdmap_octets_opcode(u), IW_OP_TERMINATE);
}

TEST(terminate_control_view_matches_the_encoder)
{
	iw_terminate t = {.layer = IW_LAYER_DDP, .etype = IW_DDP_ET_UNTAGGED, .ecode = IW_DDP_EC_MSN_NO_BUFFER, .m = true};
	uint8_t body[64];
	size_t n;
	CHECK_EQ(iw_terminate_encode(&t, body, sizeof body, &n, NULL), IW_OK);
	CHECK_EQ(iw_term_ctrl_layer(body), (unsigned)IW_LAYER_DDP);
	CHECK_EQ(iw_term_ctrl_etype(body), (unsigned)IW_DDP_ET_UNTAGGED);
	CHECK_EQ(iw_term_ctrl_ecode(body), (unsigned)IW_DDP_EC_MSN_NO_BUFFER);
	/* Rewriting the code keeps the flags octet (M) as it was. */
	uint8_t flags = body[2];
	iw_term_ctrl_set(body, IW_LAYER_LLP, 0, 2);
	CHECK_EQ(body[2], flags);
	iw_terminate d;
	CHECK_EQ(iw_terminate_decode(body, n, &d, NULL), IW_OK);
	CHECK(d.layer == IW_LAYER_LLP && d.etype == 0 && d.ecode == 2 && d.m);
}

TEST(marker_offsets_agree_with_the_marker_count)
{
	for (uint64_t start = 0; start < 1100; start += 4)
		for (size_t body = 8; body < 1600; body += 36) {
			size_t at[8];
			bool ends;
			size_t n = iw_markers_offsets(start, body, at, 8, &ends);
			CHECK_EQ(n, iw_markers_in_fpdu(start, body));
			uint64_t end = start + iw_fpdu_wire_len(start, body);
			CHECK_EQ(ends, iw_marker_at(end));
			for (size_t i = 0; i < n && i < 8; i++) {
				/* The marker before body octet at[i] sits at a multiple of 512 of the stream. */
				CHECK(iw_marker_at(start + at[i] + 4 * i));
				CHECK(at[i] < body);
			}
		}
	size_t at[4];
	bool ends;
	CHECK_EQ(iw_markers_offsets(508, 12, at, 4, &ends), 1u);
	CHECK_EQ(at[0], 4u);
	CHECK(!ends);
}

TEST(field_spans_in_frames_and_fpdus)
{
	uint8_t fr[IW_MPA_FRAME_HDR_LEN] = {0};
	size_t b, e;
	CHECK(iw_field_span_frame(fr, sizeof fr, "Rev", &b, &e));
	CHECK(b == IW_MPA_FRAME_OFF_REV && e == b + 1);
	CHECK(iw_field_span_frame(fr, sizeof fr, "pd_length", &b, &e));
	CHECK(b == 18 && e == 20);
	CHECK(!iw_field_span_frame(fr, 17, "Rev", &b, &e));
	CHECK(!iw_field_span_frame(fr, sizeof fr, "MSN", &b, &e));

	/* A tagged Write of 3 octets: 14 + 3 = 17 octets of ULPDU, pad 1, CRC. */
	iw_ddp_hdr h = {.tagged = true, .last = true, .dv = 1, .stag = 5, .to = 6};
	h.rsvdulp[0] = iw_rdmap_ctrl(1, IW_OP_WRITE);
	uint8_t u[17] = {0}, out[64];
	size_t n;
	CHECK_EQ(iw_ddp_hdr_encode(&h, u, sizeof u, &n, NULL), IW_OK);
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, iw_profile_get(IW_PROFILE_RFC5044), false, true);
	size_t w;
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, u, sizeof u, NULL, 0, NULL, out, sizeof out, &w, NULL), IW_OK);
	CHECK(iw_field_span_fpdu(out, w, "TO", &b, &e));
	CHECK(b == 2 + 6 && e == 2 + 14);
	CHECK(iw_field_span_fpdu(out, w, "PAD", &b, &e));
	CHECK(b == 19 && e == 20);
	CHECK(iw_field_span_fpdu(out, w, "crc", &b, &e));
	CHECK(b == w - 4 && e == w);
	CHECK(!iw_field_span_fpdu(out, w, "MSN", &b, &e));      /* untagged only */
	CHECK(!iw_field_span_fpdu(out, w + 4, "TO", &b, &e));   /* four more octets: a marker */

	/* With markers on and the FPDU starting at a marker, the octets are not one plain FPDU. */
	iw_mpa_tx_init(&tx, iw_profile_get(IW_PROFILE_RFC5044), true, true);
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, u, sizeof u, NULL, 0, NULL, out, sizeof out, &w, NULL), IW_OK);
	CHECK(!iw_field_span_fpdu(out, w, "TO", &b, &e));
}

TEST(reflector_greeting_roundtrip)
{
	uint8_t g[IW_GREETING_LEN];
	iw_greeting_encode(g, 0xabcdef01, 0x7f5596c70000ull, 65536);
	uint32_t stag, len;
	uint64_t to;
	iw_greeting_parse(g, &stag, &to, &len);
	CHECK(stag == 0xabcdef01 && to == 0x7f5596c70000ull && len == 65536);
	CHECK(g[0] == 0xab && g[15] == 0x00 && g[13] == 0x01);
	CHECK(iw_greeting_len_ok(16) && !iw_greeting_len_ok(15));
}
