/*
 * vectors.h - the iWARP test-vector set: generation, the engine's verdict, checking, and the
 * engine's view of a capture for comparison with Wireshark.
 *
 * A vector is a JSON object (docs/vectors.md, vectors/schema/vectors.schema.json): inputs
 * (the profile, the stream offset, markers/CRC, the receiver's resources, the bytes in hex,
 * or for a conversation the chunks both sides sent and each side's configuration) and the
 * expected result. The expected result is never typed by hand: iw_vec_expect() computes it
 * from the inputs with the engine (mpa_frame_check and mpa_rx for MPA, rdmap_parse and the
 * DDP sink for each ULPDU, two iw_conn models for a conversation). The generator builds
 * inputs and asks iw_vec_expect; --check reads a file back, asks iw_vec_expect again and
 * compares, so an edited expected result, or an input edited under an unchanged expected
 * result and id, fails.
 *
 * Ids are content-stable: the file's prefix and the first 12 hex digits of FNV-1a-64 over the
 * vector's canonical JSON without its descriptive fields (iw_vec_id), so regenerating never
 * renumbers, and a vector keeps its id until its content changes.
 */
#ifndef IW_VECTORS_H
#define IW_VECTORS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "iw_err.h"
#include "profile.h"

#define IW_VEC_FORMAT "iwspec-vectors/1"
#define IW_VEC_SCHEMA_PATH "schema/vectors.schema.json"

/* One file of the set: a layer and a topic. */
typedef struct iw_vec_file_info {
	const char *name;       /* "mpa-fpdu": the file is <name>.json, ids start "<name>-" */
	const char *layer;      /* "mpa", "ddp", "rdmap", "conversation" */
	const char *topic;
	const char *title;      /* one line, written into the file */
} iw_vec_file_info;

extern const iw_vec_file_info iw_vec_files[];
extern const size_t iw_vec_nfiles;

typedef struct iw_vec_set iw_vec_set;

/* Generates the set for one profile, or when only is NULL for rddp-mpa-01, rfc5044, rfc6581
 * and seed-exact (the seeds' FPDUs only). Fails (with e naming the vector) when an encoder no
 * longer reproduces a seed's published bytes or two vectors get the same id. */
int iw_vec_generate(const iw_profile *only, iw_vec_set **out, iw_err *e);

/* Writes dir/<file>.json for every file, dir/pcap/<id>.pcap for every conversation and
 * dir/schema/vectors.schema.json, each atomically. Files of the set that hold no vector
 * (a profile without them) are not written. */
int iw_vec_write(const iw_vec_set *s, const char *dir, iw_err *e);

/* Counts, for reports: vectors in file i (index into iw_vec_files), pcaps written. */
size_t iw_vec_count(const iw_vec_set *s, size_t file);
size_t iw_vec_npcaps(const iw_vec_set *s);

void iw_vec_set_free(iw_vec_set *s);

/* The expected result of a vector, from its inputs. NULL with e naming the field when the
 * inputs are not a valid vector (a missing field, bad hex, an unknown profile). */
json_t *iw_vec_expect(const json_t *vector, iw_err *e);

/* The id a vector must carry: prefix + "-" + 12 hex digits (see above). */
void iw_vec_id(const json_t *vector, const char *prefix, char out[64]);

/* Checks every *.json file of dir that declares the format: schema basics, ids, and each
 * vector's expected result against the engine; pcaps named by conversations must exist.
 * Prints one line per failing vector (file, id, what differs) and a summary to log.
 * Returns 0 when all pass, 1 when a vector failed, -1 when dir cannot be read (e). */
typedef struct iw_vec_check_stats {
	size_t files, vectors, failed, pcaps;
} iw_vec_check_stats;
int iw_vec_check_dir(const char *dir, FILE *log, iw_vec_check_stats *st, iw_err *e);

/* The engine's view of the iWARP traffic in a capture, one line per startup frame and per
 * FPDU, in the field vocabulary of tests/cli/tshark_check.sh (docs/vectors.md). With
 * wireshark_view, the lines Wireshark 4.0 is known to show differently are rewritten as it
 * shows them, each marked with the named exception of rfc-and-interop.md §2. */
int iw_vec_dump_fields(const char *pcap_path, const iw_profile *p, bool wireshark_view, FILE *out, iw_err *e);

#endif
