/*
 * connrun.h - runs the engine's connection model (suite/engine/iw_conn.h) over a peer's byte
 * stream with its invariants checked, for fuzz_conn_responder, fuzz_conn_initiator and
 * fuzz_diff_cuts.
 *
 * Setup layout (FZ_CONN_CFG_LEN octets, then pd_len octets of private data):
 *   [profile][flags][rtr][ird][ord][emss (2)][cut][pd_len]
 *   flags: 1 want_markers, 2 want_crc, 4 crc_admin_off, 8 reject, 16 p2p, 32 the peer closes
 *          at the end, 64 the ULP sends, writes and reads once in full operation, 128 register
 *          two tagged buffers (STag 0x100 read/write, STag 0x200 read only)
 *   cut:   bits 0-1 chunk mode (fz_chunk), bits 2-7 chunk seed
 */
#ifndef IW_FUZZ_CONNRUN_H
#define IW_FUZZ_CONNRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fuzz.h"
#include "iw_conn.h"

typedef struct fz_conn_setup {
	iw_conn_config cfg;
	uint8_t pd[256];
	bool peer_close;
	bool ulp_ops;
	bool register_bufs;
	unsigned cut_mode;
	uint32_t seed;
} fz_conn_setup;

/* What a run produced, for comparing two runs of the same stream. */
typedef struct fz_conn_trace {
	uint64_t ev_hash;       /* every event, fields and data, in order */
	size_t nev;
	size_t lost;            /* events the model dropped (full queue) */
	uint64_t out_hash;      /* every output octet */
	size_t out_len;
	size_t consumed;        /* input octets the model took */
	int final_state;
} fz_conn_trace;

void fz_conn_setup_read(fz *f, enum iw_role role, fz_conn_setup *s);

/* Runs the model over stream, cut into the chunks the setup chooses or, when cuts is not
 * NULL, at the ncuts ascending offsets given. Aborts on a broken invariant. */
void fz_conn_run(const fz_conn_setup *s, const uint8_t *stream, size_t len, const size_t *cuts, size_t ncuts,
		 fz_conn_trace *tr);

#endif
