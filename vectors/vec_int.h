/*
 * vec_int.h - what the vector files share: building vectors, the stream builder the
 * generators use, hex and JSON helpers. Not an API outside vectors/.
 */
#ifndef IW_VEC_INT_H
#define IW_VEC_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ddp.h"
#include "iw_err.h"
#include "iw_violation.h"
#include "mpa_fpdu.h"
#include "profile.h"
#include "vectors.h"

#define IW_VEC_MAX_FILES 16

struct iw_vec_set {
	json_t *vectors[IW_VEC_MAX_FILES];  /* one array per iw_vec_files entry */
	json_t *ids;                        /* id -> true, to refuse duplicates */
};

/* The generator's context: the set, the profile being generated, the first error. */
typedef struct vgen {
	iw_vec_set *set;
	const iw_profile *p;
	iw_err *e;
	bool failed;
} vgen;

/* ---- building a vector ---- */

/* A new vector: description, requirement IDs and defect flags as comma-separated lists
 * (flags may be "" for a conforming input). The profile is g->p. */
json_t *vg_new(const vgen *g, const char *desc, const char *reqs, const char *flags);

/* A one-direction stream: offset of the first FPDU octet from SeqStart, markers and CRC as
 * agreed, the startup frame the receiver expects first ("request", "reply" or NULL). */
void vg_stream(json_t *v, uint64_t offset, bool markers, bool crc, const char *frame, const uint8_t *b, size_t n);

/* Computes the expected result and the id, then files v under file_name (takes v). Marks
 * g failed, with the reason in g->e, on any error. */
void vg_add(vgen *g, const char *file_name, json_t *v);

/* ---- the stream builder: FPDUs as a sender of one direction writes them ---- */

typedef struct vbuf {
	const iw_profile *p;
	iw_mpa_tx tx;
	uint8_t *b;
	size_t n, cap;
	bool oom;
} vbuf;

void vb_init(vbuf *s, const iw_profile *p, bool markers, bool crc, uint64_t offset);
void vb_free(vbuf *s);
/* Octets outside any FPDU (a startup frame, garbage); advance the marker position only when
 * counted (octets before SeqStart are not). */
void vb_raw(vbuf *s, const void *data, size_t n, bool counted);
/* One FPDU around hdr + payload; mods may be NULL. */
void vb_fpdu(vbuf *s, const uint8_t *hdr, size_t hlen, const uint8_t *payload, size_t plen, const iw_fpdu_mods *mods);
/* DDP headers with the profile's DV and the RDMAP control octet (RV of the profile). */
void vb_untagged_hdr(const vbuf *s, iw_ddp_hdr *h, unsigned opcode, uint32_t qn, uint32_t msn, uint32_t mo, bool last);
void vb_tagged_hdr(const vbuf *s, iw_ddp_hdr *h, unsigned opcode, uint32_t stag, uint64_t to, bool last);
/* A header (as built above, then edited at will) and its payload as one FPDU. */
void vb_seg(vbuf *s, const iw_ddp_hdr *h, const uint8_t *payload, size_t plen, const iw_fpdu_mods *mods);
/* A Send (opcode 3, QN 0, MO 0, L) of plen octets of the pattern below. */
void vb_send(vbuf *s, uint32_t msn, size_t plen);
/* A Send whose FPDU carries the deliberate defects m. */
void vb_send_mod(vbuf *s, uint32_t msn, size_t plen, const iw_fpdu_mods *m);

/* The default receiver (docs/vectors.md) with QN 0's window starting at first_msn: for a
 * stream that starts after earlier Sends were delivered. */
json_t *vec_rcv_from_msn(uint32_t first_msn);

/* A payload pattern: octet i is (i * 7 + 1) & 0xFF; fills n octets of out (n <= 65536). */
const uint8_t *vec_pattern(size_t n);

/* The startup frame a profile's sender writes by default, as octets (*len <= 1024). */
void vec_frame_bytes(const iw_profile *p, int kind, bool m, bool c, uint8_t *out, size_t *len);

/* ---- hex and JSON ---- */

char *vec_hex(const uint8_t *b, size_t n);                      /* malloc'd, lower case */
int vec_unhex(const char *s, uint8_t **out, size_t *n, iw_err *e); /* malloc'd */
json_t *vec_hex_json(const uint8_t *b, size_t n);
char *vec_u64hex(uint64_t v, char buf[24]);                     /* "0x1f" */
json_t *vec_error_json(const iw_violation *v);                  /* layer/etype/ecode/code/requirement/offset */
json_t *vec_strlist(const char *csv);                           /* "a,b" -> ["a","b"] ([] for "") */

/* Puts "<context>: " before the message already in e; returns IW_EINVAL. */
int vec_prefix(iw_err *e, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* Reads an optional integer/bool member with a default; -1 and e on a wrong type. */
int vec_get_u64(const json_t *o, const char *key, uint64_t dflt, uint64_t *out, iw_err *e);
int vec_get_bool(const json_t *o, const char *key, bool dflt, bool *out, iw_err *e);

/* ---- judges (vec_judge.c, vec_conv.c) ---- */

json_t *vec_judge_stream(const json_t *v, const iw_profile *p, iw_err *e);
json_t *vec_judge_conversation(const json_t *v, const iw_profile *p, iw_err *e);

/* ---- generators (gen_*.c) ---- */

void gen_mpa_startup(vgen *g);
void gen_mpa_fpdu(vgen *g);
void gen_mpa_markers(vgen *g);
void gen_mpa_crc(vgen *g);
void gen_seeds(vgen *g);            /* seed-exact: the seeds' own FPDUs */
void gen_ddp_headers(vgen *g);
void gen_ddp_placement(vgen *g);
void gen_rdmap(vgen *g);
void gen_rdmap_terminate(vgen *g);
void gen_conversations(vgen *g);

#endif
