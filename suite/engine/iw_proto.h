/*
 * iw_proto.h - every protocol constant of MPA, DDP and RDMAP in one place.
 *
 * Sources: the seed drafts (MPA: draft-culley-iwarp-mpa-02, draft-ietf-rddp-mpa-01/02;
 * DDP: draft-ietf-rddp-ddp-00/02) and the RFC-era tables of spec/rfc-and-interop.md §7
 * (RFC 5040, 5041, 5044, 6581, 7306). Bit positions follow the RFC figure convention
 * (bit 0 = most significant bit of the first octet); the masks below are octet masks.
 * Multi-octet integers are big-endian on the wire, except the MPA CRC, which is sent
 * least-significant octet first (requirements.md §5, A1).
 */
#ifndef IW_PROTO_H
#define IW_PROTO_H

#include <stdint.h>

/* ---- MPA startup frames (MR §6.1.1, RFC 5044, RFC 6581) ---- */
#define IW_MPA_KEY_LEN          16
#define IW_MPA_FRAME_HDR_LEN    20      /* key, flags, Rev, PD_Length */
#define IW_MPA_KEY_REQ          "MPA ID Req Frame"
#define IW_MPA_KEY_REP          "MPA ID Rep Frame"
#define IW_MPA_KEY_DIFF_OCTET   9       /* 'q' (0x71) in the Request, 'p' (0x70) in the Reply */

#define IW_MPA_FLAG_M           0x80    /* receiver wants markers */
#define IW_MPA_FLAG_C           0x40    /* CRC preferred */
#define IW_MPA_FLAG_R           0x20    /* Reply: connection rejected (mpa-02 on) */
#define IW_MPA_FLAG_ENHANCED    0x10    /* RFC 6581 enhanced startup (a Res bit earlier) */
#define IW_MPA_RES_MASK_DRAFT   0x1F    /* Res bits in the drafts and RFC 5044 */
#define IW_MPA_RES_MASK_ENH     0x0F    /* Res bits once 0x10 means Enhanced */

#define IW_MPA_REV_DRAFT        0
#define IW_MPA_REV_RFC5044      1
#define IW_MPA_REV_RFC6581      2

#define IW_MPA_PD_MAX_DRAFT     65535u
#define IW_MPA_PD_MAX_RFC       512u

/* RFC 6581 IRD/ORD block: the first 4 octets of the private data. */
#define IW_MPA_IRDORD_LEN       4
#define IW_MPA_IRD_P2P          0x8000  /* A: peer-to-peer */
#define IW_MPA_IRD_RTR_SEND     0x4000  /* B: zero-length Send RTR */
#define IW_MPA_ORD_RTR_WRITE    0x8000  /* C: zero-length RDMA Write RTR */
#define IW_MPA_ORD_RTR_READ     0x4000  /* D: zero-length RDMA Read RTR */
#define IW_MPA_IRDORD_MASK      0x3FFF
#define IW_MPA_IRDORD_NONE      0x3FFF  /* no limit stated: the ULP negotiates (RFC 6581 §9.1) */

/* ---- MPA FPDU framing (MR §4, §5) ---- */
#define IW_MPA_LEN_FIELD        2       /* ULPDU_Length */
#define IW_MPA_CRC_LEN          4
#define IW_MPA_MARKER_LEN       4
#define IW_MPA_MARKER_INTERVAL  512
#define IW_MPA_FPDUPTR_MASK     0xFFFCu /* the two low bits are reserved (MPA-5.1-05) */
#define IW_MPA_MULPDU_MIN       128     /* MPA-5.3.2-05 */
#define IW_MPA_MULPDU_MAX       64768   /* MPA-3.2-03, 0xFD00 */
#define IW_MPA_ULPDU_LEN_MAX    65535

/* MPA error codes (MR §7; RFC 6581 adds 5-7). */
enum iw_mpa_ecode {
	IW_MPA_E_NONE = 0,
	IW_MPA_E_TCP_LOST = 1,          /* connection closed, terminated or lost */
	IW_MPA_E_CRC = 2,               /* received CRC differs from computed CRC */
	IW_MPA_E_MARKER = 3,            /* marker and ULPDU_Length disagree on the FPDU start */
	IW_MPA_E_STARTUP = 4,           /* invalid Request or Reply frame */
	IW_MPA_E_LOCAL_CATASTROPHIC = 5,/* RFC 6581 */
	IW_MPA_E_INSUFFICIENT_IRD = 6,  /* RFC 6581 */
	IW_MPA_E_NO_MATCHING_RTR = 7,   /* RFC 6581 */
};

/* ---- DDP (D0/D2 §6, RFC 5041) ---- */
#define IW_DDP_T                0x80
#define IW_DDP_L                0x40
#define IW_DDP_RSVD_MASK        0x3C
#define IW_DDP_DV_MASK          0x03
#define IW_DDP_VERSION          1
#define IW_DDP_TAGGED_HDR_LEN   14
#define IW_DDP_UNTAGGED_HDR_LEN 18

/* DDP error types and codes (D0/D2 §9.2). */
enum iw_ddp_etype {
	IW_DDP_ET_CATASTROPHIC = 0x0,
	IW_DDP_ET_TAGGED = 0x1,
	IW_DDP_ET_UNTAGGED = 0x2,
	IW_DDP_ET_LLP = 0x3,            /* reserved for the LLP */
};
enum iw_ddp_ecode {
	IW_DDP_EC_CATASTROPHIC = 0x00,
	/* tagged */
	IW_DDP_EC_INVALID_STAG = 0x00,
	IW_DDP_EC_BASE_BOUNDS = 0x01,
	IW_DDP_EC_STAG_NOT_ASSOC = 0x02,
	IW_DDP_EC_TO_WRAP = 0x03,
	IW_DDP_EC_T_VERSION = 0x04,
	/* untagged */
	IW_DDP_EC_INVALID_QN = 0x01,
	IW_DDP_EC_MSN_NO_BUFFER = 0x02,
	IW_DDP_EC_MSN_RANGE = 0x03,
	IW_DDP_EC_INVALID_MO = 0x04,
	IW_DDP_EC_TOO_LONG = 0x05,
	IW_DDP_EC_U_VERSION = 0x06,
};

/* ---- RDMAP (RFC 5040, RFC 7306) ---- */
#define IW_RDMAP_RV_MASK        0xC0
#define IW_RDMAP_RV_SHIFT       6
#define IW_RDMAP_RSVD_MASK      0x30
#define IW_RDMAP_OPCODE_MASK    0x0F
#define IW_RDMAP_VERSION        1

enum iw_rdmap_opcode {
	IW_OP_WRITE = 0x0,
	IW_OP_READ_REQ = 0x1,
	IW_OP_READ_RESP = 0x2,
	IW_OP_SEND = 0x3,
	IW_OP_SEND_INV = 0x4,
	IW_OP_SEND_SE = 0x5,
	IW_OP_SEND_SE_INV = 0x6,
	IW_OP_TERMINATE = 0x7,
	IW_OP_IMM_DATA = 0x8,           /* RFC 7306 */
	IW_OP_IMM_DATA_SE = 0x9,        /* RFC 7306 */
	IW_OP_ATOMIC_REQ = 0xA,         /* RFC 7306 */
	IW_OP_ATOMIC_RESP = 0xB,        /* RFC 7306 */
};

/* Untagged queue numbers used by RDMAP. */
enum iw_rdmap_qn {
	IW_QN_SEND = 0,
	IW_QN_READ_REQ = 1,
	IW_QN_TERMINATE = 2,
	IW_QN_ATOMIC_RESP = 3,          /* RFC 7306 */
};

#define IW_RDMAP_READ_REQ_LEN   28      /* sink STag, sink TO, size, source STag, source TO */
#define IW_RDMAP_TERM_CTRL_LEN  4       /* Layer|EType|ECode|M D R|Rsvd */
#define IW_RDMAP_TERM_M         0x80    /* in the third octet of the Terminate control */
#define IW_RDMAP_TERM_D         0x40
#define IW_RDMAP_TERM_R         0x20

/* Terminate layers. */
enum iw_term_layer {
	IW_LAYER_RDMAP = 0,
	IW_LAYER_DDP = 1,
	IW_LAYER_LLP = 2,
};

/* RDMAP error types and codes (RFC 5040, rfc-and-interop.md §7.3). */
enum iw_rdmap_etype {
	IW_RDMAP_ET_CATASTROPHIC = 0,
	IW_RDMAP_ET_PROTECTION = 1,
	IW_RDMAP_ET_OPERATION = 2,
};
enum iw_rdmap_ecode {
	IW_RDMAP_EC_INVALID_STAG = 0x00,
	IW_RDMAP_EC_BASE_BOUNDS = 0x01,
	IW_RDMAP_EC_ACCESS = 0x02,
	IW_RDMAP_EC_STAG_NOT_ASSOC = 0x03,
	IW_RDMAP_EC_TO_WRAP = 0x04,
	IW_RDMAP_EC_VERSION = 0x05,
	IW_RDMAP_EC_OPCODE = 0x06,
	IW_RDMAP_EC_CATASTROPHIC_STREAM = 0x07,
	IW_RDMAP_EC_CATASTROPHIC_GLOBAL = 0x08,
	IW_RDMAP_EC_CANNOT_INVALIDATE = 0x09,
	IW_RDMAP_EC_UNSPECIFIED = 0xFF,
};

/* LLP (MPA) errors inside a Terminate: layer 2, etype 0, ecode = MPA code. */
#define IW_LLP_ET_MPA           0

#endif
