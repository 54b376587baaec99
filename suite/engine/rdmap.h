/*
 * rdmap.h - RDMAP messages over DDP (RFC 5040, opcodes of RFC 7306 recognised).
 *
 *   RDMAP control octet = DDP RsvdULP[0]: RV (0xC0) | Rsvd (0x30) | Opcode (0x0F)
 *   Send, Send with SE: untagged QN 0, RsvdULP[1..4] zero
 *   Send with Invalidate (and SE): untagged QN 0, RsvdULP[1..4] = the STag to invalidate
 *   RDMA Write, Read Response: tagged
 *   RDMA Read Request: untagged QN 1, body = sink STag (4) | sink TO (8) | size (4)
 *                      | source STag (4) | source TO (8)
 *   Terminate: untagged QN 2, MO 0, L, body = Layer (4 bits) | EType (4) | ECode (8)
 *              | M D R (3 bits) | Rsvd (13), then, when D, the DDP segment length (2) and the
 *              terminated DDP header (14 or 18), then, when R, the terminated RDMA header (28)
 */
#ifndef IW_RDMAP_H
#define IW_RDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ddp.h"
#include "iw_err.h"
#include "iw_proto.h"
#include "iw_violation.h"
#include "profile.h"

typedef struct iw_rdmap_opinfo {
	const char *name;       /* "Send", "RDMA Write", ... */
	bool known;             /* defined by RFC 5040 or RFC 7306 */
	bool rfc7306;           /* an RFC 7306 extension */
	bool tagged;            /* carried in tagged DDP segments */
	int qn;                 /* untagged queue, -1 for tagged */
} iw_rdmap_opinfo;

/* Facts about an opcode 0..15 (unknown ones have known = false and name "Reserved"). */
const iw_rdmap_opinfo *iw_rdmap_op(unsigned opcode);

static inline uint8_t iw_rdmap_ctrl(unsigned rv, unsigned opcode)
{
	return (uint8_t)(((rv & 3u) << 6) | (opcode & 0x0Fu));
}
static inline unsigned iw_rdmap_ctrl_rv(uint8_t ctrl) { return ctrl >> 6; }
static inline unsigned iw_rdmap_ctrl_opcode(uint8_t ctrl) { return ctrl & 0x0Fu; }
/* The control octet's Rsvd bits (RFC 5040 §4.1: zero when sent, not checked on receipt). */
static inline unsigned iw_rdmap_ctrl_rsvd(uint8_t ctrl) { return (ctrl & IW_RDMAP_RSVD_MASK) >> 4; }

/* The RDMAP opcode of a ULPDU in octets (its DDP header's RsvdULP[0]). */
static inline unsigned iw_rdmap_octets_opcode(const uint8_t *ulpdu)
{
	return iw_rdmap_ctrl_opcode(ulpdu[IW_DDP_OFF_RSVDULP]);
}

/* RsvdULP octets 1-4 of an untagged header as one word (RFC 5040 §4.2): the Invalidate STag
 * of a Send with Invalidate, a reserved word sent as zero in every other untagged message. */
static inline uint32_t iw_rdmap_rsvd_word(const iw_ddp_hdr *h)
{
	return (uint32_t)h->rsvdulp[1] << 24 | (uint32_t)h->rsvdulp[2] << 16 | (uint32_t)h->rsvdulp[3] << 8 |
	       h->rsvdulp[4];
}
static inline void iw_rdmap_set_rsvd_word(iw_ddp_hdr *h, uint32_t v)
{
	h->rsvdulp[1] = (uint8_t)(v >> 24), h->rsvdulp[2] = (uint8_t)(v >> 16);
	h->rsvdulp[3] = (uint8_t)(v >> 8), h->rsvdulp[4] = (uint8_t)v;
}

typedef struct iw_read_req {
	uint32_t sink_stag;
	uint64_t sink_to;
	uint32_t size;
	uint32_t src_stag;
	uint64_t src_to;
} iw_read_req;

void iw_read_req_encode(const iw_read_req *r, uint8_t out[IW_RDMAP_READ_REQ_LEN]);
int iw_read_req_decode(const uint8_t *buf, size_t len, iw_read_req *r, iw_err *e);

typedef struct iw_terminate {
	uint8_t layer, etype, ecode;
	bool m, d, r;           /* M: segment length valid; D: DDP header attached; R: RDMA header attached */
	uint16_t ddp_seg_len;   /* when d */
	uint8_t ddp_hdr[IW_DDP_UNTAGGED_HDR_LEN];
	size_t ddp_hdr_len;     /* 14 or 18 when d */
	uint8_t rdma_hdr[IW_RDMAP_READ_REQ_LEN];
	bool has_rdma_hdr;      /* when r */
	const char *broken_row; /* when the decode fails: the row the body breaks (RFC5040-4.8-02 for
	                         * the DDP header parts, RFC5040-4.8-26 for the RDMA header) */
} iw_terminate;

/* The Terminate control word in octets, the first 4 of the body (RFC 5040 §4.8):
 * Layer (4 bits) | EType (4) | ECode (8) | M D R | 13 reserved bits. For code that reads or
 * rewrites the error a Terminate reports without decoding the rest. */
#define IW_TERM_OFF_CTRL IW_DDP_UNTAGGED_HDR_LEN   /* from the start of the ULPDU */
static inline unsigned iw_term_ctrl_layer(const uint8_t cw[4]) { return cw[0] >> 4; }
static inline unsigned iw_term_ctrl_etype(const uint8_t cw[4]) { return cw[0] & 0x0Fu; }
static inline unsigned iw_term_ctrl_ecode(const uint8_t cw[4]) { return cw[1]; }
/* The 13 reserved bits after M, D, R (zero when sent, RFC5040-4.8-05). */
static inline unsigned iw_term_ctrl_rsvd(const uint8_t cw[4]) { return (unsigned)(cw[2] & 0x1Fu) << 8 | cw[3]; }
static inline void iw_term_ctrl_set(uint8_t cw[4], unsigned layer, unsigned etype, unsigned ecode)
{
	cw[0] = (uint8_t)((layer & 0x0Fu) << 4 | (etype & 0x0Fu));
	cw[1] = (uint8_t)ecode;
}

/* Encodes the Terminate body (after the 18-octet DDP header). The flags come from m, d and r;
 * d attaches ddp_seg_len and ddp_hdr, r attaches rdma_hdr. IW_EINVAL when layer or etype
 * exceeds 4 bits or, with d, ddp_hdr_len is not what ddp_hdr[0]'s T bit makes it. */
int iw_terminate_encode(const iw_terminate *t, uint8_t *out, size_t cap, size_t *out_len, iw_err *e);

/* Decodes a Terminate body. The DDP header length follows the attached header's own T bit.
 * IW_ETRUNC when the body ends before a part its M/D/R bits announce (t->broken_row names the
 * row); octets after the last part are ignored, and so are the 13 reserved bits. has_rdma_hdr
 * mirrors r. */
int iw_terminate_decode(const uint8_t *buf, size_t len, iw_terminate *t, iw_err *e);

/* Fills t for an error on a received segment: layer/etype/ecode, and the attached headers as
 * RFC 5040 §4.8 asks: for DDP and RDMAP errors on a ULPDU that holds a complete DDP header,
 * D with that header and M with the ULPDU's length (the DDP segment length, capped at 0xFFFF);
 * for a Read Request whose 28-octet body is complete, also R with that body; nothing for LLP
 * errors, for a NULL ulpdu, or for a ULPDU shorter than its DDP header. */
void iw_terminate_for(iw_terminate *t, int layer, int etype, int ecode, const uint8_t *ulpdu, size_t ulpdu_len);

/* A ULPDU read as an RDMAP message. */
typedef struct iw_rdmap_msg {
	iw_ddp_hdr ddp;
	size_t hdr_len;         /* DDP header octets */
	unsigned rv, opcode;
	const uint8_t *payload; /* after the DDP header */
	size_t payload_len;
} iw_rdmap_msg;

/* Parses a ULPDU into DDP header + RDMAP fields and checks what RDMAP can check on one
 * segment, in this order; the first failed check fills v (kind FATAL, offset 0):
 *   ULPDU empty or shorter than the DDP header its T bit announces
 *       -> layer DDP, etype 0x0, ecode 0x00, req DDP-6.4-01 (A9: an invalid DDP header is
 *          fatal, DDP-8.2.2-01, and §9.2 has no other code for it)
 *   RV differs from the profile's rdmap_version          -> RDMAP 0x2/0x05
 *   opcode not in RFC 5040's 0x0-0x7 (RFC 7306's 0x8-0xB included: not implemented)
 *                                                        -> RDMAP 0x2/0x06
 *   T bit does not match the opcode (e.g. an untagged RDMA Write, a tagged Send)
 *                                                        -> RDMAP 0x2/0x06
 * The DDP version is left to the sink (ddp_sink.h), and so is the QN of an untagged message:
 * the sink checks that the QN is valid on the stream (DDP-9.1-U1); a valid QN that is not the
 * one the opcode uses (a Send on QN 1) passes both. RDMAP requirement IDs are "RFC5040-4.x"
 * section references, not catalog IDs. Returns true when msg is usable; on false, msg holds
 * whatever could be read (the DDP header once it is complete) and v (when not NULL) the error. */
bool iw_rdmap_parse(const iw_profile *p, const uint8_t *ulpdu, size_t len, iw_rdmap_msg *msg, iw_violation *v);

#endif
