/*
 * ref_mutants.h - the mutant zoo's transformations, called by the fault stage (ref_fault_int.h).
 *
 * Each function applies the connection's mutant, if it is one of the zoo's, at one point of
 * the fault stage: the peer's startup frame header, the peer's ULPDUs (after the input
 * re-framer decoded them), our ULPDUs and their framing (the output re-framer), and the
 * connection's lifetime (the pump). A mutant that is not handled at a point leaves it alone.
 * Headers are decoded and encoded with the engine's codecs (ddp.h, rdmap.h, mpa_fpdu.h); the
 * engine itself is never changed.
 */
#ifndef IW_REF_MUTANTS_H
#define IW_REF_MUTANTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iw_conn.h"
#include "iw_violation.h"
#include "mpa_fpdu.h"
#include "ref_faults.h"

/* Per-connection flags the server reads (no_startup_timeout). */
void iw_mut_init(iw_fault_conn *f);

/* The connection model's configuration as mutant m has it: ignore-emss sizes FPDUs for EMSS
 * 1460 whatever the socket agreed, mulpdu-unclamped takes the formula below its floor of 128
 * (M=0 formula). Called once the server has set cfg->emss from the socket. */
void iw_mut_conn_config(enum iw_mutant m, iw_conn_config *cfg);

/* Octet p (< 20) of the peer's startup frame header as the model is to see it. */
uint8_t iw_mut_hdr_in(iw_fault_conn *f, size_t p, uint8_t o);

/* Our startup frame header as the mutant sends it. */
void iw_mut_hdr_out(const iw_fault_conn *f, uint8_t h[IW_MPA_FRAME_HDR_LEN]);

/* Private-data clamping (reply-early, accept-oversized-pd): the peer's frame with PD_Length
 * lowered and the octets beyond it removed. Called with the chunk before the header rewrite;
 * when it changes the chunk it sets f->in_rewritten, f->in_buf and f->in_len. */
void iw_mut_clamp_pd(iw_fault_conn *f, const uint8_t *data, size_t len, uint64_t pos0);

/* Mutants working on the peer's FPDUs (input re-framer) and on ours (output re-framer). */
bool iw_mut_is_in(enum iw_mutant m);
bool iw_mut_is_out(enum iw_mutant m);

/* One of the peer's ULPDUs (in a 65536-octet buffer, *n octets): rewrites it in place, and
 * returns false to drop it. */
bool iw_mut_rewrite_in(iw_fault_conn *f, uint8_t *u, size_t *n);

/* An FPDU the input decoder refused (v): true when the mutant passes it on as valid. */
bool iw_mut_pass_bad(const iw_fault_conn *f, const iw_violation *v);

/* Model octets just framed for the model, one FPDU's worth: with f->direct_feed they go to the
 * model now, so the next FPDU is rewritten against the state this one left (and
 * place-after-error sees which FPDU made the model fail). */
void iw_mut_fed(iw_fault_conn *f, const uint8_t *octets, size_t n);

/* One of our ULPDUs: rewrites it in place; false drops it. */
bool iw_mut_rewrite_out(iw_fault_conn *f, uint8_t *u, size_t *n);

/* The output re-framer's encoder as the mutant frames (markers-unrequested: markers on). */
void iw_mut_out_init(const iw_fault_conn *f, iw_mpa_tx *enc);

/* Upper bound of the octets iw_mut_out_frame writes for an n-octet ULPDU. */
size_t iw_mut_out_size(const iw_mpa_tx *enc, size_t n);

/* Frames one of our ULPDUs into out (cap octets) as the mutant wants. */
int iw_mut_out_frame(iw_fault_conn *f, iw_mpa_tx *enc, const uint8_t *u, size_t n, uint8_t *out, size_t cap,
		     size_t *w);

/* Lifetime mutants (never-close, place-after-error); returns the time it wants to run again,
 * or -1. */
int64_t iw_mut_pump(iw_fault_conn *f, iw_conn *model, int64_t now_ms);

#endif
