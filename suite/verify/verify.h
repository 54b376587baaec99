/*
 * verify.h - judging the DUT's octets: what the engine decodes, held to the rules a conforming
 * sender keeps. The runner (suite/run/exec_receive.c) and the network fuzzer (fuzz/network/netfuzz_judge.c)
 * both judge through these functions, so a DUT's FPDU breaks the same requirement, with the
 * same words, wherever it is seen.
 *
 * Each check returns true when the rule holds, or false with the requirement ID and a sentence
 * in *out; the caller turns that into its own verdict (a case's FAIL, a fuzzer's finding).
 * Either way out->rules lists the requirements the check applied to the frame (held or broken;
 * a rule that has nothing to look at in it, such as the pad of a ULPDU with none, is not
 * listed), so a runner can say which requirements were judged on the DUT's octets.
 *
 *   verify_mpa.c  one FPDU as MPA sent it (MPA-4-02, MPA-4.1-02, MPA-5.1-05, MPA-3.2-04), and a
 *                 stream the decoder refused, as the sender's rule it broke (MPA-5.2-11, MPA-5.1-03,
 *                 MPA-4.1-01)
 *   verify_ddp.c  the DUT as a DDP data source, segment by segment: DV and reserved bits
 *                 (DDP-6.1-08/09), MSNs per queue (DDP-6.3-08/09), the RDMAP reserved word
 *                 (DDP-6.3-02), one message at a time (DDP-6.1-03), constant STag/QN/MSN/RsvdULP
 *                 within a message (DDP-6.2-04/08, DDP-6.3-04/07/11), TO and MO progression
 *                 (DDP-7.2-05/07), no segment after its message's L=1 segment (DDP-6.1-05), no
 *                 ULPDU below 128 octets but a message's last (MPA-5.3.2-06); and a ULPDU's
 *                 headers as the engine parses them (DDP-6.2-01/02, DDP-6.3-01)
 */
#ifndef IW_VERIFY_H
#define IW_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ddp.h"
#include "iw_violation.h"
#include "mpa_rx.h"
#include "profile.h"
#include "rdmap.h"

#define IW_CHECK_MAX_RULES 12

/* A broken rule: its requirement ID (a static string) and what the DUT did; and the rules the
 * check applied, broken or not (static strings, in the order applied). */
typedef struct iw_check {
	const char *req;
	char detail[240];
	size_t nrules;
	const char *rules[IW_CHECK_MAX_RULES];
} iw_check;

/* ---- verify_mpa.c ---- */

/* The rules an FPDU the decoder accepted may still break as sent: zero pad octets, marker
 * RESERVED zero and FPDUPTR a multiple of 4. */
bool iw_verify_fpdu(const iw_fpdu *fp, iw_check *out);

/* No ULPDU is longer than 64768 octets, whatever the MSS (MPA-3.2-04). */
bool iw_verify_ulpdu_size(const iw_fpdu *fp, iw_check *out);

/* The requirement a stream the decoder refused breaks on the sender's side: a CRC error is
 * MPA-5.2-11 (the CRC the sender computes), a marker error MPA-5.1-03, or MPA-4.1-01 when the
 * refused marker has its halves swapped (FPDUPTR in RESERVED's place); anything else is the
 * decoder's own requirement. fp is the FPDU the decoder was refusing (its markers as seen), or
 * NULL. */
const char *iw_verify_stream_req(const iw_violation *err, const iw_fpdu *fp);

/* ---- verify_ddp.c ---- */

/* The sender's state the segment rules need: the next MSN per queue and the message being
 * received. Zeroed by iw_source_init. */
typedef struct iw_source {
	uint32_t next_msn[4];       /* QN 0-3 */
	bool in_msg;                /* a message has begun and not ended with L=1 */
	iw_ddp_hdr first;           /* its first segment's header */
	unsigned opcode;
	size_t len;                 /* its payload octets so far */
	size_t nseg;                /* its segments so far */
	bool emss_tiny;             /* the caller's: the path's EMSS gives a MULPDU formula below 128, so
				     * a middle ULPDU below 128 breaks the floor itself (MPA-5.3.2-05),
				     * not the packing rule (MPA-5.3.2-06); kept by iw_source_init's
				     * callers after it */
} iw_source;

void iw_source_init(iw_source *s);

/* The DUT's ULPDU parsed by the engine (iw_rdmap_parse under p) and held to the header rules its
 * sender keeps: a tagged segment has the 14-octet tagged header (DDP-6.2-01) whose RsvdULP is
 * RDMAP's control octet as RDMAP set it, its RV and an opcode that travels tagged (DDP-6.2-02);
 * an untagged segment has the 18-octet untagged header (DDP-6.3-01). A ULPDU shorter than the
 * header its T bit announces breaks the header rule of that T. Other refusals keep the engine's
 * requirement (RFC 5040's RV and opcode rules on an untagged segment). On success *m is the
 * message. */
bool iw_verify_ulpdu(const iw_profile *p, const uint8_t *ulpdu, size_t len, iw_rdmap_msg *m, iw_check *out);

/* One DDP segment the DUT sent (m parsed by iw_rdmap_parse under profile p), judged against
 * the message it continues or begins. On success the segment is taken into s (a message ends with its L=1
 * segment); on failure s is left as it was. */
bool iw_verify_segment(iw_source *s, const iw_profile *p, const iw_rdmap_msg *m, iw_check *out);

#endif
