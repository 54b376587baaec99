#include "profile.h"

#include <stdio.h>
#include <string.h>

#include "iw_proto.h"

static const iw_profile profiles[IW_PROFILE_COUNT] = {
	[IW_PROFILE_CULLEY_MPA_02] = {
		.id = IW_PROFILE_CULLEY_MPA_02, .name = "culley-mpa-02",
		.title = "draft-culley-iwarp-mpa-02: no startup frames, markers and CRC always on",
		.mpa_doc = "draft-culley-iwarp-mpa-02",
		.startup_frames = false, .mpa_rev = 0, .rev_accept_min = 0, .rev_accept_max = 0,
		.r_bit = false, .enhanced = false, .pd_max = 0,
		.markers_always = true, .crc_always = true, .mpa_max_ecode = 3,
		.ddp_version = IW_DDP_VERSION, .rdmap_version = IW_RDMAP_VERSION,
	},
	[IW_PROFILE_RDDP_MPA_01] = {
		.id = IW_PROFILE_RDDP_MPA_01, .name = "rddp-mpa-01",
		.title = "draft-ietf-rddp-mpa-01/02: Request/Reply frames, Rev 0, M/C/R negotiation",
		.mpa_doc = "draft-ietf-rddp-mpa-01",
		.startup_frames = true, .mpa_rev = IW_MPA_REV_DRAFT,
		.rev_accept_min = IW_MPA_REV_DRAFT, .rev_accept_max = IW_MPA_REV_DRAFT,
		.r_bit = true, .enhanced = false, .pd_max = IW_MPA_PD_MAX_DRAFT,
		.markers_always = false, .crc_always = false, .mpa_max_ecode = 4,
		.ddp_version = IW_DDP_VERSION, .rdmap_version = IW_RDMAP_VERSION,
	},
	[IW_PROFILE_RFC5044] = {
		.id = IW_PROFILE_RFC5044, .name = "rfc5044",
		.title = "RFC 5044: Rev 1, private data up to 512 octets",
		.mpa_doc = "RFC 5044",
		.startup_frames = true, .mpa_rev = IW_MPA_REV_RFC5044,
		.rev_accept_min = IW_MPA_REV_RFC5044, .rev_accept_max = IW_MPA_REV_RFC5044,
		.r_bit = true, .enhanced = false, .pd_max = IW_MPA_PD_MAX_RFC,
		.fpduptr_from_length = true,
		.markers_always = false, .crc_always = false, .mpa_max_ecode = 4,
		.ddp_version = IW_DDP_VERSION, .rdmap_version = IW_RDMAP_VERSION,
	},
	[IW_PROFILE_RFC6581] = {
		.id = IW_PROFILE_RFC6581, .name = "rfc6581",
		.title = "RFC 6581: Rev 2, Enhanced bit, IRD/ORD and RTR negotiation",
		.mpa_doc = "RFC 6581",
		.startup_frames = true, .mpa_rev = IW_MPA_REV_RFC6581,
		.rev_accept_min = IW_MPA_REV_RFC5044, .rev_accept_max = IW_MPA_REV_RFC6581,
		.r_bit = true, .enhanced = true, .pd_max = IW_MPA_PD_MAX_RFC,
		.fpduptr_from_length = true,
		.markers_always = false, .crc_always = false, .mpa_max_ecode = 7,
		.ddp_version = IW_DDP_VERSION, .rdmap_version = IW_RDMAP_VERSION,
	},
	[IW_PROFILE_SEED_EXACT] = {
		.id = IW_PROFILE_SEED_EXACT, .name = "seed-exact",
		.title = "rddp-mpa-01 framing with DDP DV 0 and RDMAP RV 0, as in the seeds' hex dumps",
		.mpa_doc = "draft-ietf-rddp-mpa-01",
		.startup_frames = true, .mpa_rev = IW_MPA_REV_DRAFT,
		.rev_accept_min = IW_MPA_REV_DRAFT, .rev_accept_max = IW_MPA_REV_DRAFT,
		.r_bit = true, .enhanced = false, .pd_max = IW_MPA_PD_MAX_DRAFT,
		.markers_always = false, .crc_always = false, .mpa_max_ecode = 4,
		.ddp_version = 0, .rdmap_version = 0,
	},
};

const iw_profile *iw_profile_get(enum iw_profile_id id)
{
	if ((unsigned)id >= IW_PROFILE_COUNT)
		return NULL;
	return &profiles[id];
}

const iw_profile *iw_profile_find(const char *name)
{
	if (!name)
		return NULL;
	for (int i = 0; i < IW_PROFILE_COUNT; i++)
		if (strcmp(profiles[i].name, name) == 0)
			return &profiles[i];
	return NULL;
}

const iw_profile *iw_profile_default(void)
{
	return &profiles[IW_PROFILE_RFC5044];
}

void iw_profile_names(char *buf, size_t cap)
{
	size_t n = 0;
	if (cap == 0)
		return;
	buf[0] = '\0';
	for (int i = 0; i < IW_PROFILE_COUNT && n < cap; i++) {
		int w = snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", profiles[i].name);
		if (w < 0)
			break;
		n += (size_t)w;
	}
}

bool iw_profile_rev_ok(const iw_profile *p, uint8_t rev)
{
	return p->startup_frames && rev >= p->rev_accept_min && rev <= p->rev_accept_max;
}

const iw_profile *iw_profile_of_rev(uint8_t rev)
{
	switch (rev) {
	case IW_MPA_REV_DRAFT: return &profiles[IW_PROFILE_RDDP_MPA_01];
	case IW_MPA_REV_RFC5044: return &profiles[IW_PROFILE_RFC5044];
	case IW_MPA_REV_RFC6581: return &profiles[IW_PROFILE_RFC6581];
	default: return NULL;
	}
}

bool iw_profile_may_answer(const iw_profile *p, uint8_t rev)
{
	if (iw_profile_rev_ok(p, rev))
		return true;
	bool rfc = p->id == IW_PROFILE_RFC5044 || p->id == IW_PROFILE_RFC6581;
	return rfc && iw_profile_of_rev(rev) != NULL;
}
