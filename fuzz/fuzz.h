/*
 * fuzz.h - what every in-process fuzz target shares: the list of targets, a reader that
 * turns the fuzzer's octets into choices, and the invariant check that aborts.
 *
 * Each target fuzz/fuzz_<name>.c defines `int iw_fuzz_<name>(const uint8_t *, size_t)`.
 * fuzz/entry.c, compiled once per target with -DIW_FUZZ_TARGET=<name>, turns it into
 * LLVMFuzzerTestOneInput for libFuzzer, AFL++ and the standalone driver; the regression test
 * (tests/test_fuzz_regress.c) calls the iw_fuzz_<name> functions directly, all linked into
 * one binary, so the target sources define no other global symbol.
 *
 * A broken invariant calls abort() (through FZ_CHECK), which libFuzzer and AFL++ report as a
 * crash with the input that caused it. docs/fuzzing.md lists every target and its invariants.
 */
#ifndef IW_FUZZ_H
#define IW_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

#include "profile.h"

/* Every target, in the order the tools list them. X(name) */
#define IW_FUZZ_TARGETS(X) \
	X(mpa_frame)        \
	X(mpa_rx)           \
	X(ddp)              \
	X(ddp_sink)         \
	X(rdmap)            \
	X(conn_responder)   \
	X(conn_initiator)   \
	X(case_parse)       \
	X(dut_config)       \
	X(harness_rx)       \
	X(diff_cuts)        \
	X(diff_roundtrip)   \
	X(diff_markers)     \
	X(diff_crc32c)      \
	X(pcap_read)        \
	X(baseline)

#define IW_FUZZ_DECL(name) int iw_fuzz_##name(const uint8_t *data, size_t size);
IW_FUZZ_TARGETS(IW_FUZZ_DECL)
#undef IW_FUZZ_DECL

/* An invariant failed: say which and where, then abort so the fuzzer keeps the input. */
#define FZ_CHECK(cond, ...)                                                              \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "%s:%d: invariant failed: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                    \
			fputc('\n', stderr);                                             \
			abort();                                                         \
		}                                                                        \
	} while (0)

/* The input as a file, for a parser that takes a path: *fd (-1 the first time) is a file in
 * memory (memfd_create) or, where there is none, a temporary file unlinked at once; it is
 * rewritten for every input, and path names it through /proc/self/fd, so nothing is left behind.
 * Memory, not a disk: on ext4, truncating a file and closing it writes the file back, which
 * made every input of pcap_read and dut_config wait for the disk (about 500 exec/s instead of
 * thousands). tag names the file. */
static inline void fz_as_file(int *fd, const char *tag, const uint8_t *data, size_t size, char path[64])
{
#ifdef SYS_memfd_create
	if (*fd < 0)
		*fd = (int)syscall(SYS_memfd_create, tag, 0u);
#endif
	if (*fd < 0) {
		const char *dir = getenv("TMPDIR");
		char tmpl[512];
		snprintf(tmpl, sizeof tmpl, "%s/iwspec-fuzz-%s-XXXXXX", dir && *dir ? dir : "/tmp", tag);
		*fd = mkstemp(tmpl);
		FZ_CHECK(*fd >= 0, "cannot create a temporary file in %s", tmpl);
		unlink(tmpl);
	}
	FZ_CHECK(ftruncate(*fd, 0) == 0, "ftruncate");
	FZ_CHECK(pwrite(*fd, data, size, 0) == (ssize_t)size, "pwrite");
	snprintf(path, 64, "/proc/self/fd/%d", *fd);
}

/* ---- reading choices from the input ---- */

/* The input read front to back. Past its end every read gives zeros, so a short input is
 * still a valid (small) test and the fuzzer never wastes runs on length errors. */
typedef struct fz {
	const uint8_t *p;
	size_t n;
} fz;

static inline fz fz_init(const uint8_t *data, size_t size)
{
	fz f = { data, size };
	return f;
}

static inline uint8_t fz_u8(fz *f)
{
	if (!f->n)
		return 0;
	f->n--;
	return *f->p++;
}

static inline uint16_t fz_u16(fz *f)
{
	uint16_t hi = fz_u8(f);
	return (uint16_t)(hi << 8 | fz_u8(f));
}

static inline uint32_t fz_u32(fz *f)
{
	uint32_t hi = fz_u16(f);
	return hi << 16 | fz_u16(f);
}

static inline uint64_t fz_u64(fz *f)
{
	uint64_t hi = fz_u32(f);
	return hi << 32 | fz_u32(f);
}

static inline bool fz_bool(fz *f)
{
	return fz_u8(f) & 1;
}

/* Up to want octets in place; *got says how many there were. */
static inline const uint8_t *fz_take(fz *f, size_t want, size_t *got)
{
	const uint8_t *p = f->p;
	size_t k = want < f->n ? want : f->n;
	f->p += k;
	f->n -= k;
	*got = k;
	return p;
}

/* The rest of the input. */
static inline const uint8_t *fz_rest(fz *f, size_t *got)
{
	return fz_take(f, f->n, got);
}

/* A profile by index (every profile reachable from one octet). */
static inline const iw_profile *fz_profile(fz *f)
{
	return iw_profile_get((enum iw_profile_id)(fz_u8(f) % IW_PROFILE_COUNT));
}

/* A small deterministic generator for chunk sizes and fill patterns chosen by one seed. */
static inline uint32_t fz_rng(uint32_t *s)
{
	uint32_t x = *s ? *s : 0x9E3779B9u;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

/* Chunk length for feeding a stream: 1 octet, small, medium or large cuts by the mode. */
static inline size_t fz_chunk(uint32_t *s, unsigned mode, size_t left)
{
	static const size_t max[4] = { 1, 7, 300, 5000 };
	size_t k = 1 + fz_rng(s) % max[mode & 3];
	return k < left ? k : left;
}

/* ---- the seed corpus (fuzz/corpus.c) ---- */

typedef void (*iw_fuzz_emit_fn)(void *ctx, const char *name, const uint8_t *data, size_t len);

#define IW_FUZZ_MAX_SEED (1 << 20)

/* Emits the generated seeds of a target (engine encoders and golden vectors; case files for
 * case_parse when cases_dir is not NULL). Returns the number emitted, -1 for an unknown
 * target. */
int iw_fuzz_seeds(const char *target, const char *cases_dir, iw_fuzz_emit_fn emit, void *ctx);

/* Input layouts the seeds and the targets share; the comment of each target file is the
 * authoritative description. */
#define FZ_CONN_CFG_LEN 9      /* conn_*: profile, flags, rtr, ird, ord, emss (2), cut, pd_len */

#endif
