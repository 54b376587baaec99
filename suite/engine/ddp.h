/*
 * ddp.h - DDP segment headers and message segmentation (D0/D2 §6, §7.2; RFC 5041).
 *
 *   control octet: T 0x80 | L 0x40 | Rsvd 0x3C | DV 0x03
 *   tagged   (14): control | RsvdULP (1) | STag (4) | TO (8)
 *   untagged (18): control | RsvdULP (5) | QN (4) | MSN (4) | MO (4)
 *
 * RsvdULP[0] is the RDMAP control octet when RDMAP is the ULP (rdmap.h). All integers are
 * big-endian. Decoding never judges version or reserved bits; the sink does (ddp_sink.h).
 */
#ifndef IW_DDP_H
#define IW_DDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iw_err.h"
#include "iw_octets.h"
#include "iw_proto.h"

typedef struct iw_ddp_hdr {
	bool tagged;            /* T */
	bool last;              /* L */
	uint8_t rsvd;           /* the 4 reserved bits, right-aligned (0..15) */
	uint8_t dv;             /* DDP version, 0..3 */
	uint8_t rsvdulp[5];     /* tagged: [0] only; untagged: all 5 */
	uint32_t stag;          /* tagged */
	uint64_t to;            /* tagged */
	uint32_t qn, msn, mo;   /* untagged */
} iw_ddp_hdr;

static inline size_t iw_ddp_hdr_len(bool tagged) { return tagged ? IW_DDP_TAGGED_HDR_LEN : IW_DDP_UNTAGGED_HDR_LEN; }

/* Writes the header (14 or 18 octets). IW_ENOSPC if cap is too small, IW_EINVAL if rsvd or
 * dv does not fit its bits. */
int iw_ddp_hdr_encode(const iw_ddp_hdr *h, uint8_t *out, size_t cap, size_t *out_len, iw_err *e);

/* Reads the header at the start of a ULPDU. IW_ETRUNC when len is shorter than the header
 * the T bit announces, or 0; *hdr_len is then what was needed (14 when len is 0: the
 * shortest header). hdr_len may be NULL. */
int iw_ddp_hdr_decode(const uint8_t *ulpdu, size_t len, iw_ddp_hdr *h, size_t *hdr_len, iw_err *e);

/*
 * Views of a DDP header in octets already framed, for code that reads or changes one field
 * without a full decode (the fault stage, the built-in DUT's mutants). The caller has checked
 * that the ULPDU holds the header the T bit announces (iw_ddp_hdr_len).
 */
#define IW_DDP_OFF_CTRL    0    /* T | L | Rsvd | DV */
#define IW_DDP_OFF_RSVDULP 1    /* the RDMAP control octet when RDMAP is the ULP */
#define IW_DDP_OFF_STAG    2    /* tagged */
#define IW_DDP_OFF_TO      6    /* tagged */
#define IW_DDP_OFF_QN      6    /* untagged */
#define IW_DDP_OFF_MSN     10   /* untagged */
#define IW_DDP_OFF_MO      14   /* untagged */

static inline bool iw_ddp_octets_tagged(const uint8_t *ulpdu) { return ulpdu[IW_DDP_OFF_CTRL] & IW_DDP_T; }
static inline bool iw_ddp_octets_last(const uint8_t *ulpdu) { return ulpdu[IW_DDP_OFF_CTRL] & IW_DDP_L; }
static inline void iw_ddp_octets_set_last(uint8_t *ulpdu, bool last)
{
	ulpdu[IW_DDP_OFF_CTRL] = (uint8_t)((ulpdu[IW_DDP_OFF_CTRL] & ~IW_DDP_L) | (last ? IW_DDP_L : 0));
}
static inline uint64_t iw_ddp_octets_to(const uint8_t *ulpdu) { return iw_get_be64(ulpdu + IW_DDP_OFF_TO); }

/* Cuts a message into segments of at most mulpdu octets (header + payload), D0/D2 §7.2:
 * untagged MO = offset in the message, tagged TO = initial TO + offset, L only on the last,
 * and a zero-length message is one segment. */
typedef struct iw_ddp_segmenter {
	iw_ddp_hdr base;        /* tagged, dv, rsvdulp, stag, initial to / qn, msn (mo ignored) */
	size_t msg_len;
	size_t mulpdu;
	size_t off;             /* payload octets already cut */
	bool done;
} iw_ddp_segmenter;

/* IW_EINVAL if mulpdu leaves no room for payload, or msg_len is 2^32 or more (DDP-7.2-02). */
int iw_ddp_seg_init(iw_ddp_segmenter *s, const iw_ddp_hdr *base, size_t msg_len, size_t mulpdu, iw_err *e);

/* Next segment: its header, and the payload slice [*off, *off + *len) of the message.
 * Returns false when the message is exhausted. */
bool iw_ddp_seg_next(iw_ddp_segmenter *s, iw_ddp_hdr *h, size_t *off, size_t *len);

#endif
