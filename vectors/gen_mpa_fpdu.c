/*
 * gen_mpa_fpdu.c - vectors for FPDU framing (MR §4, §5.3, §5.4): ULPDU_Length and pad,
 * packing, lengths that lie, streams that end early; and the seeds' own FPDUs.
 */
#include <stdlib.h>
#include <string.h>

#include "mpa_markers.h"
#include "rdmap.h"
#include "vec_int.h"

static void add(vgen *g, const char *file, const char *desc, const char *reqs, const char *flags, const vbuf *s,
		uint64_t offset, bool markers, bool crc)
{
	if (s->oom) {
		g->failed = true;
		iw_errf(g->e, IW_EINVAL, "vector '%s': could not build the stream", desc);
		return;
	}
	json_t *v = vg_new(g, desc, reqs, flags);
	vg_stream(v, offset, markers, crc, NULL, s->b, s->n);
	vg_add(g, file, v);
}

void gen_mpa_fpdu(vgen *g)
{
	const iw_profile *p = g->p;
	vbuf s;
	iw_ddp_hdr h;
	char d[160];

	/* ULPDU_Length and pad: 42 + k octets give pad (4 - (44 + k) % 4) % 4 = 0, 3, 2, 1. */
	for (unsigned k = 0; k < 4; k++) {
		vb_init(&s, p, false, true, 0);
		vb_send(&s, 1, 24 + k);
		snprintf(d, sizeof d, "A Send with a %u-octet ULPDU: %u pad octets make the FPDU a multiple of 4", 42 + k,
			 iw_mpa_pad_len(42 + k));
		add(g, "mpa-fpdu", d, "MPA-4-01,MPA-4-F1,MPA-4-F2", "", &s, 0, false, true);
		vb_free(&s);
	}

	vb_init(&s, p, false, true, 0);
	vb_send(&s, 1, 24);
	vb_send(&s, 2, 100);
	vb_send(&s, 3, 7);
	add(g, "mpa-fpdu", "Three FPDUs back to back: the length chain from a CRC-valid FPDU finds each start",
	    "MPA-5.4-03,MPA-3.1.1-02,MPA-5.3-01", "", &s, 0, false, true);
	vb_free(&s);

	vb_init(&s, p, false, true, 0);
	vb_send(&s, 1, 1454 - 18);
	add(g, "mpa-fpdu", "A Send with a 1454-octet ULPDU, the MULPDU for EMSS 1460 without markers",
	    "MPA-5.3.2-02,MPA-3.1.1-F1,MPA-3.2-05", "", &s, 0, false, true);
	vb_free(&s);

	iw_fpdu_mods m;
	memset(&m, 0, sizeof m);
	m.pad_fill = 0xFF;
	vb_init(&s, p, false, true, 0);
	vb_untagged_hdr(&s, &h, IW_OP_SEND, IW_QN_SEND, 1, 0, true);
	vb_seg(&s, &h, vec_pattern(25), 25, &m);
	add(g, "mpa-fpdu", "Pad octets FF FF FF, the CRC computed over them: the sender broke MPA-4-02, the receiver "
			   "ignores pad contents", "MPA-4-02,MPA-4-03", "pad-nonzero", &s, 0, false, true);
	vb_free(&s);

	/* ULPDUs shorter than any DDP header (requirements.md A9). */
	static const size_t shorts[] = {0, 1};
	for (size_t i = 0; i < sizeof shorts / sizeof shorts[0]; i++) {
		vb_init(&s, p, false, true, 0);
		vb_fpdu(&s, vec_pattern(shorts[i]), shorts[i], NULL, 0, NULL);
		snprintf(d, sizeof d, "An FPDU with ULPDU_Length %zu and a valid CRC: MPA passes it, DDP finds no header "
				      "(a fatal error, requirements.md A9)", shorts[i]);
		add(g, "mpa-fpdu", d, "DDP-6.4-01,DDP-8.2.2-01", "short-ulpdu", &s, 0, false, true);
		vb_free(&s);
	}

	/* Streams that end inside an FPDU: nothing may be passed (MPA-5.4-04). */
	vb_init(&s, p, false, true, 0);
	vb_send(&s, 1, 24);
	s.n -= 1;
	add(g, "mpa-fpdu", "One FPDU without its last CRC octet: the receiver waits, nothing is delivered",
	    "MPA-5.4-04", "truncated", &s, 0, false, true);
	vb_free(&s);
	vb_init(&s, p, false, true, 0);
	vb_send(&s, 1, 24);
	vb_raw(&s, "\x00", 1, true);
	add(g, "mpa-fpdu", "A complete FPDU, then one octet of the next ULPDU_Length: the first is delivered",
	    "MPA-5.4-04", "truncated", &s, 0, false, true);
	vb_free(&s);

	/* ULPDU_Length fields that lie: the length chain lands in the wrong place and the CRC
	 * check fails there (code 2), before anything wrong is passed on. */
	memset(&m, 0, sizeof m);
	m.set_length = true;
	m.ulpdu_length = 42 - 4;
	vb_init(&s, p, false, true, 0);
	vb_untagged_hdr(&s, &h, IW_OP_SEND, IW_QN_SEND, 1, 0, true);
	vb_seg(&s, &h, vec_pattern(24), 24, &m);
	vb_send(&s, 2, 24);
	add(g, "mpa-fpdu", "ULPDU_Length 4 less than the ULPDU sent (CRC computed over the octets sent): the CRC is read "
			   "from the wrong place", "MPA-5.4-02,MPA-5.2-14", "length-mismatch", &s, 0, false, true);
	vb_free(&s);
	m.ulpdu_length = 42 + 4;
	vb_init(&s, p, false, true, 0);
	vb_untagged_hdr(&s, &h, IW_OP_SEND, IW_QN_SEND, 1, 0, true);
	vb_seg(&s, &h, vec_pattern(24), 24, &m);
	vb_send(&s, 2, 24);
	add(g, "mpa-fpdu", "ULPDU_Length 4 more than the ULPDU sent, another FPDU following", "MPA-5.4-02,MPA-5.2-14",
	    "length-mismatch", &s, 0, false, true);
	vb_free(&s);
}

/* ---- the seeds' own FPDUs (seed-exact profile) ---- */

/* draft-culley-iwarp-mpa-02 §7.2 (seed 003) and draft-ietf-rddp-mpa-01 §5.2 (seed 004),
 * Figure 5, octet for octet as printed: the first FPDU of a stream, led by a marker. */
static const char fig5_hex[] =
	"0000" "0000" "002a" "4003" "0000" "0000" "0000" "0000" "0000" "0001" "0000" "0000"
	"000000000000000000000000000000000000000000000000"
	"4c86" "b384";

/* Figure 6: the second FPDU, at stream offset 0x1EC, with a marker (FPDUPTR 0x14) inside. */
static const char fig6_hex[] =
	"002a" "4003" "0000" "0000" "0000" "0000" "0000" "0002" "0000" "0000" "0000" "0014"
	"000000000000000000000000000000000000000000000000"
	"a19c" "d103";

static json_t *seed_ref(const char *figure, const char *what)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "document", "draft-culley-iwarp-mpa-02", "file",
			 "003_8b41d5246a5da8f0.txt", "section", "7.2", "figure", figure, "also_in",
			 "draft-ietf-rddp-mpa-01 §5.2 (004_441b08baf68f52b3.txt)", "text", what);
}

/* Builds the seed FPDU with the engine and checks it against the published octets. */
static bool seed_fpdu(vgen *g, const char *hex, uint64_t offset, uint32_t msn, vbuf *s)
{
	static const uint8_t zeros[24];     /* the seeds' Send data */
	iw_ddp_hdr h;
	vb_init(s, g->p, true, true, offset);
	vb_untagged_hdr(s, &h, IW_OP_SEND, IW_QN_SEND, msn, 0, true);
	vb_seg(s, &h, zeros, sizeof zeros, NULL);
	uint8_t *pub;
	size_t n;
	if (vec_unhex(hex, &pub, &n, g->e))
		return false;
	bool same = n == s->n && !memcmp(pub, s->b, n);
	free(pub);
	if (!same) {
		iw_errf(g->e, IW_EINVAL, "the engine no longer reproduces the seed's published FPDU at offset %llu",
			(unsigned long long)offset);
		g->failed = true;
	}
	return same;
}

static void add_seed(vgen *g, const char *file, const char *desc, const char *reqs, const char *flags, const vbuf *s,
		     uint64_t offset, json_t *seed)
{
	json_t *v = vg_new(g, desc, reqs, flags);
	if (seed)
		json_object_set_new(v, "seed", seed);
	vg_stream(v, offset, true, true, NULL, s->b, s->n);
	if (offset)
		/* Figure 6 follows a first FPDU carrying MSN 1. */
		json_object_set_new(v, "receiver", vec_rcv_from_msn(2));
	vg_add(g, file, v);
}

void gen_seeds(vgen *g)
{
	if (g->p->id != IW_PROFILE_SEED_EXACT)
		return;
	vbuf s;
	if (seed_fpdu(g, fig5_hex, 0, 1, &s)) {
		add_seed(g, "mpa-fpdu",
			 "The seeds' Figure 5: the first FPDU of a stream, a Send of 24 zero octets (DDP DV 0, RDMAP RV 0 as "
			 "printed), led by a marker with FPDUPTR 0; CRC 0x84B3864C sent least significant octet first",
			 "MPA-5.1-06,MPA-5.2-11,MPA-5.2-13,MPA-6.1-R7", "", &s, 0,
			 seed_ref("Figure 5", "Annotated Hex Dump of an FPDU"));
		/* Mutants of the seed, not the seed's own octets. */
		uint8_t c[4];
		memcpy(c, s.b + s.n - 4, 4);
		for (int i = 0; i < 4; i++)
			s.b[s.n - 4 + i] = c[3 - i];
		add_seed(g, "mpa-crc",
			 "Figure 5 with its CRC octets reversed (84 B3 86 4C, the value sent most significant octet first): a "
			 "CRC error, requirements.md A1",
			 "MPA-5.2-11,MPA-5.2-14", "crc-byte-order", &s, 0, NULL);
		memcpy(s.b + s.n - 4, c, 4);
		s.b[19] ^= 0x02;
		add_seed(g, "mpa-crc", "Figure 5 with MSN 1 changed to 3 and the CRC left as published: a CRC error",
			 "MPA-5.2-14,MPA-7-01", "crc-mismatch", &s, 0, NULL);
	}
	vb_free(&s);
	if (seed_fpdu(g, fig6_hex, 0x1EC, 2, &s)) {
		add_seed(g, "mpa-fpdu",
			 "The seeds' Figure 6: the second FPDU of the stream, at offset 0x1EC after a 492-octet first FPDU; "
			 "the marker at 0x200 has FPDUPTR 0x14 and is covered by the CRC 0x03D19CA1",
			 "MPA-5.1-03,MPA-5.1-F1,MPA-5.2-12,MPA-5.2-11", "", &s, 0x1EC,
			 seed_ref("Figure 6", "Annotated Hex Dump of an FPDU with Marker"));
		uint8_t c[4];
		memcpy(c, s.b + s.n - 4, 4);
		for (int i = 0; i < 4; i++)
			s.b[s.n - 4 + i] = c[3 - i];
		add_seed(g, "mpa-crc", "Figure 6 with its CRC octets reversed (03 D1 9C A1): a CRC error",
			 "MPA-5.2-11,MPA-5.2-14", "crc-byte-order", &s, 0x1EC, NULL);
	}
	vb_free(&s);
}
