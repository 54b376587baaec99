/*
 * gen_mpa_markers.c - vectors for MPA markers (MR §5.1): where they fall, what FPDUPTR holds,
 * what a receiver ignores (RESERVED, FPDUPTR's low bits) and what it may or must detect.
 */
#include <string.h>

#include "rdmap.h"
#include "vec_int.h"

/* first_msn > 1: the stream starts after earlier Sends, whose MSNs the receiver has seen. */
static void add(vgen *g, const char *desc, const char *reqs, const char *flags, const vbuf *s, uint64_t offset,
		bool markers, uint32_t first_msn)
{
	json_t *v = vg_new(g, desc, reqs, flags);
	vg_stream(v, offset, markers, true, NULL, s->b, s->n);
	if (first_msn > 1)
		json_object_set_new(v, "receiver", vec_rcv_from_msn(first_msn));
	vg_add(g, "mpa-markers", v);
}

void gen_mpa_markers(vgen *g)
{
	const iw_profile *p = g->p;
	vbuf s;
	iw_fpdu_mods m;

	vb_init(&s, p, true, true, 0);
	vb_send(&s, 1, 24);
	add(g, "The first FPDU of a direction with markers on: it begins with the marker 00 00 00 00, which belongs to "
	       "it and is covered by its CRC (the seeds' Figure 5 with the profile's DDP/RDMAP versions)",
	    "MPA-5.1-06,MPA-6.1-R7,MPA-5.1-04,MPA-5.2-13", "", &s, 0, true, 1);
	vb_free(&s);

	vb_init(&s, p, true, true, 0x1EC);
	vb_send(&s, 2, 24);
	add(g, "An FPDU at stream offset 0x1EC with the marker at 0x200 inside it: FPDUPTR 0x14 (the seeds' Figure 6 "
	       "with the profile's versions)",
	    "MPA-5.1-03,MPA-5.1-F1,MPA-5.2-12", "", &s, 0x1EC, true, 2);
	vb_free(&s);

	vb_init(&s, p, true, true, 0x1EC);
	vb_send(&s, 3, 1442 - 18);
	add(g, "The worst-case FPDU of requirements.md §5.5: ULPDU 1442 (MULPDU for EMSS 1460 with markers) at offset "
	       "0x1EC, three markers (FPDUPTR 0x14, 0x214, 0x414), 1460 octets on the wire",
	    "MPA-5.1-07,MPA-5.3.2-01", "", &s, 0x1EC, true, 3);
	vb_free(&s);

	vb_init(&s, p, true, true, 512 - 48);
	vb_send(&s, 1, 24);
	vb_send(&s, 2, 24);
	add(g, "An FPDU ending exactly at a 512-octet boundary: the marker there falls between FPDUs, has FPDUPTR 0 and "
	       "leads the next FPDU",
	    "MPA-5.1-04,MPA-5.2-13", "", &s, 512 - 48, true, 1);
	vb_free(&s);

	vb_init(&s, p, true, true, 0);
	for (uint32_t i = 1; i <= 12; i++)
		vb_send(&s, i, 24 + (i % 4));
	add(g, "Twelve small FPDUs across the first 512-octet interval: the marker at 512 points to the FPDU that "
	       "contains it",
	    "MPA-5.1-08,MPA-5.1-02", "", &s, 0, true, 1);
	vb_free(&s);

	memset(&m, 0, sizeof m);
	m.marker_reserved = 0xFFFF;
	vb_init(&s, p, true, true, 0x1EC);
	vb_send_mod(&s, 2, 24, &m);
	add(g, "A marker with RESERVED FF FF (CRC over the octets sent): the sender broke MPA-4.1-02, the receiver "
	       "ignores the field",
	    "MPA-4.1-02", "marker-reserved", &s, 0x1EC, true, 2);
	vb_free(&s);

	memset(&m, 0, sizeof m);
	m.fpduptr_or = 0x0003;
	vb_init(&s, p, true, true, 0x1EC);
	vb_send_mod(&s, 2, 24, &m);
	add(g, "FPDUPTR 0x17 for 0x14: the two low bits are reserved, the receiver treats them as zero",
	    "MPA-5.1-05", "fpduptr-low-bits", &s, 0x1EC, true, 2);
	vb_free(&s);

	memset(&m, 0, sizeof m);
	m.fpduptr_delta = 4;
	vb_init(&s, p, true, true, 0x1EC);
	vb_send_mod(&s, 2, 24, &m);
	add(g, "FPDUPTR 0x18 where the length chain gives 0x14, CRC valid: the marker and ULPDU_Length disagree (MPA "
	       "code 3); checking markers of in-order data is optional",
	    "MPA-7-03,MPA-5.1-03,MPA-7-05", "fpduptr-wrong", &s, 0x1EC, true, 2);
	vb_free(&s);

	memset(&m, 0, sizeof m);
	m.fpduptr_delta = 8;
	vb_init(&s, p, true, true, 0);
	vb_send_mod(&s, 1, 24, &m);
	add(g, "The first marker of the stream with FPDUPTR 8 instead of 0 (CRC valid)", "MPA-7-03,MPA-5.1-06,MPA-7-05",
	    "fpduptr-wrong", &s, 0, true, 1);
	vb_free(&s);

	memset(&m, 0, sizeof m);
	m.no_markers = true;
	vb_init(&s, p, true, true, 0x1EC);
	vb_send_mod(&s, 2, 24, &m);
	add(g, "An FPDU spanning offset 0x200 with its marker left out: the receiver takes 4 ULPDU octets for the "
	       "marker and the CRC no longer matches",
	    "MPA-5.1-02,MPA-5.2-14", "marker-missing", &s, 0x1EC, true, 2);
	vb_free(&s);

	vb_init(&s, p, true, true, 0);
	vb_send(&s, 1, 24);
	add(g, "A stream with markers sent to a receiver that did not ask for them (M=0 in its frame): the marker is "
	       "read as ULPDU_Length 0",
	    "MPA-6.1.1-M1", "markers-unexpected", &s, 0, false, 1);
	vb_free(&s);
}
