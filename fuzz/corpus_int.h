/*
 * corpus_int.h - the internals of the seed generator (iw_fuzz_seeds in fuzz.h), shared by its
 * files. A seed is built in an sb (a growing octet buffer, big-endian writers) and handed to
 * the caller's emit function with put(). The files:
 *
 *   corpus.c         iw_fuzz_seeds: the seeds of a target by its name
 *   corpus_proto.c   protocol octets from the engine's encoders: ULPDUs, FPDU streams, frames
 *   corpus_engine.c  mpa_frame, mpa_rx, ddp, ddp_sink, rdmap
 *   corpus_pair.c    two connection models back to back: conn_*, harness_rx, diff_cuts
 *   corpus_diff.c    diff_roundtrip, diff_markers, diff_crc32c
 *   corpus_files.c   dut_config, pcap_read, baseline, case_parse
 */
#ifndef IW_CORPUS_INT_H
#define IW_CORPUS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mpa_fpdu.h"
#include "mpa_frame.h"
#include "profile.h"

/* ---- a growing octet buffer ---- */

typedef struct sb {
	uint8_t *b;
	size_t n, cap;
} sb;

/* The generator is a tool run at build time: out of memory ends it. */
static inline void sb_mem(sb *s, const void *p, size_t n)
{
	if (s->n + n > s->cap) {
		size_t cap = s->cap ? s->cap : 256;
		while (cap < s->n + n)
			cap *= 2;
		uint8_t *nb = realloc(s->b, cap);
		if (!nb)
			abort();
		s->b = nb;
		s->cap = cap;
	}
	if (n)
		memcpy(s->b + s->n, p, n);
	s->n += n;
}

static inline void sb_u8(sb *s, unsigned v)
{
	uint8_t b = (uint8_t)v;
	sb_mem(s, &b, 1);
}

static inline void sb_u16(sb *s, unsigned v)
{
	sb_u8(s, v >> 8);
	sb_u8(s, v);
}

static inline void sb_u32(sb *s, uint32_t v)
{
	sb_u16(s, v >> 16);
	sb_u16(s, v & 0xFFFF);
}

static inline void sb_u64(sb *s, uint64_t v)
{
	sb_u32(s, (uint32_t)(v >> 32));
	sb_u32(s, (uint32_t)v);
}

static inline void sb_str(sb *s, const char *t)
{
	sb_mem(s, t, strlen(t));
}

/* Where the seeds go, and how many went. */
typedef struct out {
	iw_fuzz_emit_fn emit;
	void *ctx;
	int n;
} out;

static inline void put(out *o, const char *name, const sb *s)
{
	o->emit(o->ctx, name, s->b, s->n);
	o->n++;
}

/* ---- corpus_proto.c ---- */

/* One RDMAP message as a ULPDU (DDP header + body) under profile p, written to outb; returns
 * its length. */
size_t cs_ulpdu(const iw_profile *p, unsigned opcode, bool last, uint32_t msn, uint32_t mo_or_stag, uint64_t to,
		const uint8_t *body, size_t blen, uint8_t *outb);
/* The messages every stream seed carries: Sends, a Write, a Read Request, a Terminate, a Read
 * Response; returns how many (6). */
size_t cs_sample_ulpdus(const iw_profile *p, uint8_t u[6][128], size_t *len);
/* Frames ULPDUs into an FPDU stream; mods (may be NULL) apply to FPDU `bad`. */
void cs_frame_stream(const iw_profile *p, bool markers, bool crc, uint8_t u[][128], const size_t *len, size_t n,
		     const iw_fpdu_mods *mods, size_t bad, sb *s);
/* The FPDUs of Figures 5 and 6 of requirements.md §5.1-5.2 (fig5_only: Figure 5's alone). */
void cs_golden_figs(const iw_profile *p, bool fig5_only, sb *s);
void cs_frame_bytes(const iw_mpa_frame *f, sb *s);
/* Frames of a profile, at most 5 (the default, M=1, C=0, R=1 with private data, RFC 6581
 * peer-to-peer); returns how many. */
size_t cs_sample_frames(const iw_profile *p, enum iw_mpa_kind kind, iw_mpa_frame *f);

/* ---- the seeds of each target ---- */

/* corpus_engine.c. cs_seeds_streams: FPDU streams of every profile, with and without markers
 * and CRC, the engine's deliberate defects and the golden figures, each after the parameter
 * octets head writes for its target (cs_head_mpa_rx: mpa_rx's). */
void cs_seeds_mpa_frame(out *o);
void cs_seeds_streams(out *o, const char *prefix, void (*head)(sb *, const iw_profile *, bool, bool));
void cs_head_mpa_rx(sb *s, const iw_profile *p, bool m, bool c);
void cs_seeds_ddp(out *o);
void cs_seeds_ddp_sink(out *o);
void cs_seeds_rdmap(out *o);

/* corpus_pair.c. conn_responder (responder true) and conn_initiator, harness_rx, diff_cuts. */
void cs_seeds_conn(out *o, bool responder);
void cs_seeds_harness(out *o);
void cs_seeds_diff_cuts(out *o);

/* corpus_diff.c. diff_roundtrip, diff_markers, diff_crc32c. */
void cs_seeds_roundtrip(out *o);
void cs_seeds_markers(out *o);
void cs_seeds_crc(out *o);

/* corpus_files.c. dut_config, pcap_read, baseline, and case_parse: the .iwt files under dir. */
void cs_seeds_dut_config(out *o);
void cs_seeds_pcap(out *o);
void cs_seeds_baseline(out *o);
void cs_seeds_cases_dir(out *o, const char *dir, int depth);

#endif
