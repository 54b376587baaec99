/*
 * iw_field_span.c - field spans in frame and FPDU octets, from the layouts of mpa_frame.h,
 * mpa_fpdu.h and ddp.h.
 */
#include "iw_field_span.h"

#include <strings.h>

#include "ddp.h"
#include "iw_proto.h"
#include "mpa_fpdu.h"
#include "mpa_frame.h"

typedef struct span {
	const char *field;
	size_t b, e;
} span;

static bool pick(const span *tab, size_t ntab, size_t n, const char *field, size_t *b, size_t *e)
{
	for (size_t i = 0; i < ntab; i++)
		if (!strcasecmp(tab[i].field, field)) {
			if (tab[i].b >= tab[i].e || tab[i].e > n)
				return false;
			*b = tab[i].b, *e = tab[i].e;
			return true;
		}
	return false;
}

bool iw_field_span_frame(const uint8_t *octets, size_t n, const char *field, size_t *b, size_t *e)
{
	(void)octets;
	const size_t fl = IW_MPA_FRAME_OFF_FLAGS;
	const span tab[] = {
		{"Key", 0, IW_MPA_KEY_LEN},
		{"M", fl, fl + 1},
		{"C", fl, fl + 1},
		{"R", fl, fl + 1},
		{"Res", fl, fl + 1},
		{"Rev", IW_MPA_FRAME_OFF_REV, IW_MPA_FRAME_OFF_REV + 1},
		{"PD_Length", IW_MPA_FRAME_OFF_PD_LENGTH, IW_MPA_FRAME_OFF_PD_LENGTH + 2},
	};
	return pick(tab, sizeof tab / sizeof tab[0], n, field, b, e);
}

bool iw_field_span_fpdu(const uint8_t *octets, size_t n, const char *field, size_t *b, size_t *e)
{
	if (n < IW_MPA_LEN_FIELD + 1)
		return false;
	iw_fpdu_layout l = iw_fpdu_layout_of(iw_fpdu_ulpdu_length(octets));
	if (l.body_len != n)
		return false;
	const size_t d = l.ulpdu_off; /* the DDP header starts the ULPDU */
	bool tagged = iw_ddp_octets_tagged(octets + d);
	size_t hdr = iw_ddp_hdr_len(tagged);
	const span common[] = {
		{"ULPDU_Length", 0, IW_MPA_LEN_FIELD},
		{"T", d + IW_DDP_OFF_CTRL, d + IW_DDP_OFF_CTRL + 1},
		{"L", d + IW_DDP_OFF_CTRL, d + IW_DDP_OFF_CTRL + 1},
		{"DV", d + IW_DDP_OFF_CTRL, d + IW_DDP_OFF_CTRL + 1},
		{"Rsvd", d + IW_DDP_OFF_CTRL, d + IW_DDP_OFF_CTRL + 1},
		{"RV", d + IW_DDP_OFF_RSVDULP, d + IW_DDP_OFF_RSVDULP + 1},
		{"opcode", d + IW_DDP_OFF_RSVDULP, d + IW_DDP_OFF_RSVDULP + 1},
		{"RsvdULP", d + IW_DDP_OFF_RSVDULP, d + (tagged ? IW_DDP_OFF_STAG : IW_DDP_OFF_QN)},
		{"PAD", l.pad_off, l.pad_off + l.pad_len},
		{"CRC", l.crc_off, l.crc_off + IW_MPA_CRC_LEN},
	};
	const span tagged_tab[] = {
		{"STag", d + IW_DDP_OFF_STAG, d + IW_DDP_OFF_TO},
		{"TO", d + IW_DDP_OFF_TO, d + hdr},
	};
	const span untagged_tab[] = {
		{"QN", d + IW_DDP_OFF_QN, d + IW_DDP_OFF_MSN},
		{"MSN", d + IW_DDP_OFF_MSN, d + IW_DDP_OFF_MO},
		{"MO", d + IW_DDP_OFF_MO, d + hdr},
	};
	if (pick(common, sizeof common / sizeof common[0], n, field, b, e))
		return true;
	if (tagged)
		return pick(tagged_tab, sizeof tagged_tab / sizeof tagged_tab[0], n, field, b, e);
	return pick(untagged_tab, sizeof untagged_tab / sizeof untagged_tab[0], n, field, b, e);
}
