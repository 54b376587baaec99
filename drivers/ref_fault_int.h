/*
 * ref_fault_int.h - the fault stage's internals, shared by its files (not a public header: the
 * stage's API is ref_faults.h). The files:
 *
 *   ref_faults.c          the tables of hostile modes and mutants, names and lookup
 *   ref_fault_input.c     a connection's fault state made; the peer's octets before the model
 *   ref_fault_pump.c      the model's octets into the transmit buffer, as the fault wants them
 *   ref_fault_reframe.c   re-framing the FPDUs of either direction (message-level mutants)
 */
#ifndef IW_REF_FAULT_INT_H
#define IW_REF_FAULT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iw_conn.h"
#include "mpa_fpdu.h"
#include "mpa_rx.h"
#include "ref_faults.h"

/* One direction re-framed: the peer's FPDUs (rf_in) or ours (rf_out). The pump sets up the output
 * encoder as the mutant frames (iw_mut_out_init). */
struct iw_reframe {
	iw_mpa_rx dec;
	iw_mpa_tx enc;
	iw_fpdu fp;
	uint8_t ulpdu[65536];
	uint8_t *out;               /* framed octets not yet handed on */
	size_t out_len, out_off, out_cap;
};

/* The mutants that re-frame our FPDUs (output) and the peer's (input). */
bool fs_out_mutant(enum iw_mutant m);
bool fs_in_mutant(enum iw_mutant m);

/* A re-framer for one direction of the profile's framing; NULL when out of memory. */
iw_reframe *fs_reframe_new(const iw_profile *p, bool markers, bool crc);

/* Octets of the peer's FPDU stream through the input re-framer; the result is in f->in_buf. */
void fs_reframe_input(iw_fault_conn *f, const uint8_t *data, size_t len);

/* Model output through the output re-framer into tx. */
void fs_reframe_output(iw_fault_conn *f, iw_conn *model, iw_txbuf *tx);

/* Whether our startup frame header is known (taken from the model's output once the whole
 * header is queued; at once without startup frames). */
bool fs_frame_known(iw_fault_conn *f, iw_conn *model);

#endif
