/*
 * profile.h - spec profiles: which draft or RFC the engine speaks.
 *
 * The seeds are 2003-2004 drafts and deployed stacks speak the RFCs, so every encoder,
 * decoder and model takes a profile (design.md "Spec profiles"):
 *
 *   culley-mpa-02  draft-culley-iwarp-mpa-02: no startup frames, markers and CRC always on,
 *                  MPA error codes 1-3.
 *   rddp-mpa-01    draft-ietf-rddp-mpa-01 (with the -02 R bit): Request/Reply, Rev 0,
 *                  M/C negotiated, private data up to 65535, codes 1-4.
 *   rfc5044        RFC 5044: Rev 1, private data up to 512.
 *   rfc6581        RFC 6581: Rev 2, Enhanced bit, IRD/ORD block, RTR flags, codes 1-7.
 *   seed-exact     rddp-mpa-01 framing with DDP DV 0 and RDMAP RV 0, the values the seeds'
 *                  hex dumps carry (requirements.md §6 A2, A3). Used only to reproduce them.
 *
 * DDP follows ddp-02 / RFC 5041 (DV 1, zero-length messages of both models) and RDMAP
 * follows RFC 5040 (RV 1) in every profile but seed-exact.
 */
#ifndef IW_PROFILE_H
#define IW_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum iw_profile_id {
	IW_PROFILE_CULLEY_MPA_02,
	IW_PROFILE_RDDP_MPA_01,
	IW_PROFILE_RFC5044,
	IW_PROFILE_RFC6581,
	IW_PROFILE_SEED_EXACT,
	IW_PROFILE_COUNT
};

typedef struct iw_profile {
	enum iw_profile_id id;
	const char *name;           /* the CLI spelling, e.g. "rfc5044" */
	const char *title;          /* one line for --help and reports */
	const char *mpa_doc;        /* document the MPA rules come from */
	bool startup_frames;        /* false: MPA starts at an agreed offset (culley) */
	uint8_t mpa_rev;            /* Rev this side sends */
	uint8_t rev_accept_min;     /* Rev values a receiver of this profile accepts */
	uint8_t rev_accept_max;
	bool r_bit;                 /* the Reply's R bit is defined */
	bool enhanced;              /* RFC 6581 Enhanced bit and IRD/ORD block */
	uint32_t pd_max;            /* largest PD_Length a receiver must accept */
	bool markers_always;        /* culley: markers in both directions, no M bit */
	bool crc_always;            /* culley: CRC always valid and checked */
	bool fpduptr_from_length;   /* RFC 5044 §4.3: FPDUPTR counts back to the ULPDU Length field, past a
				     * marker that begins the FPDU (the drafts count from that marker) */
	uint8_t mpa_max_ecode;      /* 3 (culley), 4 (drafts, RFC 5044), 7 (RFC 6581) */
	uint8_t ddp_version;        /* DV sent and expected */
	uint8_t rdmap_version;      /* RV sent and expected */
} iw_profile;

/* The profile with this CLI name, or NULL. */
const iw_profile *iw_profile_find(const char *name);

/* The profile with this id (never NULL for a valid id). */
const iw_profile *iw_profile_get(enum iw_profile_id id);

/* The default profile when none is named: rfc5044, what deployed stacks speak. */
const iw_profile *iw_profile_default(void);

/* Writes "culley-mpa-02, rddp-mpa-01, ..." into buf, for error messages and --help. */
void iw_profile_names(char *buf, size_t cap);

/* True when a receiver of profile p accepts startup-frame revision rev. */
bool iw_profile_rev_ok(const iw_profile *p, uint8_t rev);

/* The profile whose frames carry revision rev: 0 rddp-mpa-01, 1 rfc5044, 2 rfc6581; NULL for
 * any other (seed-exact shares Rev 0 but only reproduces the seeds' dumps). */
const iw_profile *iw_profile_of_rev(uint8_t rev);

/* True when a responder of profile p may answer a Request of revision rev rather than close:
 * always for the revisions it accepts (it must, if the Request is otherwise valid); and for an
 * RFC profile also another revision some profile speaks (0, 1, 2), since RFC 5044 §7.1.1 has a
 * receiver close only when it cannot interoperate with a revision (requirements.md §4.1 and
 * TR-03: answering a Rev 0 Request and closing on it both conform). A draft responder closes
 * on every Rev but 0 (MPA-6.1.1-07). */
bool iw_profile_may_answer(const iw_profile *p, uint8_t rev);

#endif
