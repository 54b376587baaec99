/*
 * gen_mpa_crc.c - vectors for the MPA CRC (MR §5.2): coverage, the octet order, detection,
 * what happens after a CRC error, and CRCs off by agreement.
 */
#include <string.h>

#include "rdmap.h"
#include "vec_int.h"

static void add(vgen *g, const char *desc, const char *reqs, const char *flags, const vbuf *s, uint64_t offset,
		bool markers, bool crc)
{
	json_t *v = vg_new(g, desc, reqs, flags);
	vg_stream(v, offset, markers, crc, NULL, s->b, s->n);
	vg_add(g, "mpa-crc", v);
}

void gen_mpa_crc(vgen *g)
{
	const iw_profile *p = g->p;
	vbuf s;
	iw_fpdu_mods m;

	vb_init(&s, p, false, true, 0);
	vb_send(&s, 1, 24);
	add(g, "A Send with a valid CRC32C, sent least significant octet first", "MPA-5.2-11,MPA-5.2-12,MPA-5.2-10", "",
	    &s, 0, false, true);
	vb_free(&s);

	memset(&m, 0, sizeof m);
	m.corrupt = true;
	m.corrupt_at = 20;
	vb_init(&s, p, false, true, 0);
	vb_send_mod(&s, 1, 24, &m);
	add(g, "One payload octet inverted after the CRC was computed: MPA code 2, nothing delivered",
	    "MPA-5.2-14,MPA-7-01,MPA-5.4-01", "crc-mismatch", &s, 0, false, true);
	vb_free(&s);

	memset(&m, 0, sizeof m);
	m.crc_big_endian = true;
	vb_init(&s, p, false, true, 0);
	vb_send_mod(&s, 1, 24, &m);
	add(g, "The right CRC value sent most significant octet first (htonl instead of the iSCSI order): a CRC error "
	       "(requirements.md A1)",
	    "MPA-5.2-11,MPA-5.2-14", "crc-byte-order", &s, 0, false, true);
	vb_free(&s);

	memset(&m, 0, sizeof m);
	m.crc_xor = 0x80000000u;
	vb_init(&s, p, false, true, 0);
	vb_send_mod(&s, 1, 24, &m);
	add(g, "The CRC with its most significant bit flipped", "MPA-5.2-14", "crc-mismatch", &s, 0, false, true);
	vb_free(&s);

	vb_init(&s, p, true, true, 0);
	vb_send(&s, 1, 24);
	s.b[1] ^= 0x01;
	add(g, "The leading marker's RESERVED changed after the CRC was computed: the CRC covers the marker that leads "
	       "an FPDU, so this is a CRC error",
	    "MPA-5.2-13,MPA-5.2-14", "crc-mismatch", &s, 0, true, true);
	vb_free(&s);

	vb_init(&s, p, false, true, 0);
	vb_send(&s, 1, 24);
	memset(&m, 0, sizeof m);
	m.crc_xor = 1;
	vb_send_mod(&s, 2, 24, &m);
	vb_send(&s, 3, 24);
	add(g, "Three FPDUs, the second with a bad CRC: the first is delivered, nothing after the error (MPA-7-08)",
	    "MPA-5.2-14,MPA-7-08", "crc-mismatch", &s, 0, false, true);
	vb_free(&s);

	memset(&m, 0, sizeof m);
	m.set_crc = true;
	m.crc_value = 0xEFBEADDEu;      /* DE AD BE EF on the wire */
	vb_init(&s, p, false, false, 0);
	vb_send_mod(&s, 1, 24, &m);
	add(g, "CRCs off by agreement (C=0 in both frames): the CRC field DE AD BE EF is present and not checked",
	    "MPA-4-04,MPA-6.1.1-C1,MPA-5.2-08", "crc-off", &s, 0, false, false);
	vb_free(&s);

	vb_init(&s, p, false, true, 0);
	vb_send(&s, 1, 24);
	add(g, "CRCs off by agreement, the sender still sends a valid CRC (it may)", "MPA-5.2-09,MPA-4-04", "crc-off", &s, 0,
	    false, false);
	vb_free(&s);
}
