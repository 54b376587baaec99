/*
 * mpa_frame.h - MPA startup Request and Reply frames (MR §6.1, RFC 5044, RFC 6581).
 *
 *   octets 0-15   Key: "MPA ID Req Frame" or "MPA ID Rep Frame"
 *   octet  16     M 0x80 | C 0x40 | R 0x20 | Res (0x1F; RFC 6581 makes 0x10 the Enhanced bit)
 *   octet  17     Rev
 *   octets 18-19  PD_Length, big-endian
 *   octets 20..   Private Data; under RFC 6581 with Enhanced set its first 4 octets are the
 *                 IRD and ORD words (A = P2P, B = Send RTR in IRD; C = Write RTR, D = Read RTR in ORD)
 *
 * Encoding takes every field as a value, so a test can send any invalid frame: a wrong key,
 * Res bits, a PD_Length that disagrees with the private data actually sent. Decoding never
 * judges; iw_mpa_frame_check() does, and gives each defect its requirement ID.
 */
#ifndef IW_MPA_FRAME_H
#define IW_MPA_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iw_err.h"
#include "iw_octets.h"
#include "iw_proto.h"
#include "iw_violation.h"
#include "profile.h"

enum iw_mpa_kind { IW_MPA_REQUEST, IW_MPA_REPLY };

typedef struct iw_mpa_frame {
	uint8_t key[IW_MPA_KEY_LEN];
	bool m, c, r;
	bool enhanced;          /* flag 0x10 */
	uint8_t res;            /* the remaining low bits of octet 16 (0x0F, or 0x1F without enhanced) */
	uint8_t rev;
	uint16_t pd_length;     /* the field value; see pd_length_auto */
	bool pd_length_auto;    /* encode: PD_Length = octets of PD actually sent (block + pd_len) */
	/* RFC 6581 IRD/ORD block, sent as the first 4 PD octets when has_irdord. */
	bool has_irdord;
	uint16_t ird, ord;      /* 14-bit values */
	bool p2p, rtr_send;     /* A, B: IRD word bits 15, 14 */
	bool rtr_write, rtr_read; /* C, D: ORD word bits 15, 14 */
	/* ULP private data (after the IRD/ORD block when there is one). On decode it points into
	 * the decoded buffer and holds the PD octets after the block. */
	const uint8_t *pd;
	size_t pd_len;
} iw_mpa_frame;

/* A conforming frame of this kind for profile p: right key, C=1, M=0, R=0, Res 0, the
 * profile's Rev, PD_Length automatic, and under RFC 6581 Enhanced with IRD = ORD = 16. */
void iw_mpa_frame_init(iw_mpa_frame *f, const iw_profile *p, enum iw_mpa_kind kind);

/* Octets iw_mpa_frame_encode will write: 20 + block + pd_len (PD_Length does not change it). */
size_t iw_mpa_frame_size(const iw_mpa_frame *f);

/* Where the header's fields sit, for readers of a header still arriving (before a full
 * decode) and for the fault stage, which changes one field of a frame already encoded. */
#define IW_MPA_FRAME_OFF_FLAGS     16
#define IW_MPA_FRAME_OFF_REV       17
#define IW_MPA_FRAME_OFF_PD_LENGTH 18

/* The flags octet (M, C, R and the Res bits: IW_MPA_FLAG_*). */
static inline uint8_t iw_mpa_frame_flags(const uint8_t hdr[IW_MPA_FRAME_HDR_LEN])
{
	return hdr[IW_MPA_FRAME_OFF_FLAGS];
}
static inline void iw_mpa_frame_set_flags(uint8_t hdr[IW_MPA_FRAME_HDR_LEN], uint8_t flags)
{
	hdr[IW_MPA_FRAME_OFF_FLAGS] = flags;
}
static inline uint8_t iw_mpa_frame_rev(const uint8_t hdr[IW_MPA_FRAME_HDR_LEN])
{
	return hdr[IW_MPA_FRAME_OFF_REV];
}
static inline void iw_mpa_frame_set_rev(uint8_t hdr[IW_MPA_FRAME_HDR_LEN], uint8_t rev)
{
	hdr[IW_MPA_FRAME_OFF_REV] = rev;
}
/* PD_Length, and the octets of the whole frame (header and private data). */
static inline uint16_t iw_mpa_frame_pd_length(const uint8_t hdr[IW_MPA_FRAME_HDR_LEN])
{
	return iw_get_be16(hdr + IW_MPA_FRAME_OFF_PD_LENGTH);
}
static inline void iw_mpa_frame_set_pd_length(uint8_t hdr[IW_MPA_FRAME_HDR_LEN], uint16_t pd_length)
{
	iw_put_be16(hdr + IW_MPA_FRAME_OFF_PD_LENGTH, pd_length);
}
static inline size_t iw_mpa_frame_len(const uint8_t hdr[IW_MPA_FRAME_HDR_LEN])
{
	return IW_MPA_FRAME_HDR_LEN + (size_t)iw_mpa_frame_pd_length(hdr);
}

/* Whether a frame of revision rev with flag octet flags is an RFC 6581 enhanced frame under
 * profile p: RFC 6581 frames are Rev 2 (RFC6581-9.1-01), so the Enhanced bit (0x10) makes one
 * only there, and the IRD/ORD block is read only there. In a Rev 0 or Rev 1 frame 0x10 is one
 * of the Res bits RFC 5044 has a sender clear and a receiver ignore (requirements.md §6 is
 * silent; docs/engine.md "Enhanced frames are Rev 2" gives the ruling, finding F9). */
static inline bool iw_mpa_frame_enhanced(const iw_profile *p, uint8_t flags, uint8_t rev)
{
	return p->enhanced && (flags & IW_MPA_FLAG_ENHANCED) && rev == 2;
}

/* Encodes f into out. IW_ENOSPC when cap is too small; IW_EINVAL when pd_length_auto is set
 * and the private data does not fit in 16 bits. */
int iw_mpa_frame_encode(const iw_mpa_frame *f, uint8_t *out, size_t cap, size_t *out_len, iw_err *e);

/* Decodes a frame at the start of buf (a received stream). On IW_OK *frame_len is
 * 20 + PD_Length and f's pd points into buf. IW_ETRUNC when buf holds fewer octets than
 * that (then *frame_len is the total needed so far: 20, or 20 + PD_Length once the header is in;
 * once the header is in, f already holds its fields with pd NULL, so a receiver can judge Key,
 * Rev and PD_Length before the private data arrives). IW_EINVAL for a profile without frames.
 * The IRD/ORD block is parsed when the Enhanced bit is set, the profile is enhanced and
 * PD_Length >= 4. No field is judged here. */
int iw_mpa_frame_decode(const iw_profile *p, const uint8_t *buf, size_t len, iw_mpa_frame *f,
			size_t *frame_len, iw_err *e);

/* Checks a decoded frame as a receiver expecting `expected` under profile p. Adds every
 * defect to out (may be NULL): fatal ones (a key mismatch, the other frame's key, a Rev the
 * profile does not accept, PD_Length above the profile's limit, an Enhanced frame with no
 * room for the IRD/ORD block) with MPA error code 4 and their requirement IDs, and sender
 * violations a receiver must ignore (Res set, R set in a Request). Returns true when the
 * frame is acceptable (no fatal defect). With pd_length_auto set (a frame built, not
 * decoded) the PD_Length judged is the one encoding would send. */
bool iw_mpa_frame_check(const iw_profile *p, const iw_mpa_frame *f, enum iw_mpa_kind expected,
			iw_viol_list *out);

/* The expected key for a kind. */
const uint8_t *iw_mpa_key(enum iw_mpa_kind kind);

#endif
