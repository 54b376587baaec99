/*
 * vec_conv.h - conversations between two connection models (iw_conn), for vectors.
 *
 * Generation runs an initiator and a responder against each other (conv_*): the generator
 * asks either side for ULP operations, may change what a side puts on the wire (a flipped
 * octet, a rewritten ULPDU with a valid CRC), and records every piece that crosses - a
 * startup frame, one FPDU, a FIN - as a chunk. The vector holds both configurations and the
 * chunks. Its expected result comes from a replay (vec_judge_conversation): each side's
 * model is built again from its configuration and fed what the other side sent, chunk by
 * chunk; what each model reports (its events) is the verdict on the other side's bytes. The
 * generator checks that the replay reports what the live run did.
 */
#ifndef IW_VEC_CONV_H
#define IW_VEC_CONV_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iw_conn.h"
#include "vec_int.h"

enum { CONV_I = 0, CONV_R = 1 };

typedef struct conv conv;

/* Rewrites a ULPDU in place (same length; the FPDU is re-framed with a valid CRC). */
typedef void (*conv_ulpdu_fn)(uint8_t *ulpdu, size_t len, void *arg);

/* Starts a conversation; icfg and rcfg are the sides' configurations (docs/vectors.md; the
 * references are taken). echo: the responder sends every Send it receives back (the
 * reflector of design.md). */
conv *conv_new(const iw_profile *p, json_t *icfg, json_t *rcfg, bool echo, iw_err *e);
void conv_free(conv *cv);

iw_conn *conv_side(conv *cv, int side);

/* Before the piece is sent: piece 0 is the side's startup frame, 1 its first FPDU, ... */
void conv_flip(conv *cv, int side, unsigned piece, size_t octet, uint8_t mask);
void conv_rewrite(conv *cv, int side, unsigned piece, conv_ulpdu_fn fn, void *arg);

/* Moves bytes both ways until neither side has anything to send; closes what asked to. */
void conv_pump(conv *cv);

/* ULP operations on a side (then pump). A Read is recorded in the side's configuration so
 * the replay has it outstanding too. Errors mark the conversation failed. */
void conv_send(conv *cv, int side, unsigned opcode, size_t len);
void conv_write(conv *cv, int side, uint32_t stag, uint64_t to, size_t len);
void conv_read(conv *cv, int side, uint32_t sink_stag, uint64_t sink_to, uint32_t size, uint32_t src_stag,
	       uint64_t src_to);

/* The side's TCP sends FIN (its ULP closes); the other side sees the peer close. */
void conv_fin(conv *cv, int side);

/* Ends the conversation (FIN from each side still open, initiator first) and adds it to the
 * set as a vector of the conversations file. */
void conv_finish(conv *cv, vgen *g, const char *desc, const char *reqs, const char *flags);

#endif
