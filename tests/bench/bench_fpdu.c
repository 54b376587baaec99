/*
 * bench_fpdu.c - MPA framing cost: encode + decode of a stream of full-size FPDUs with markers
 * and CRC, against the inherent cost of computing the CRC once over the same octets.
 *
 * The stream is what a DUT sends at MSS 1460 with markers (MPA-3.1.1-F1, MPA-5.3.2-01): a
 * large DDP Send cut into ULPDUs of MULPDU = 1442 octets (18-octet untagged header + 1424
 * payload), each FPDU with its markers every 512 stream octets (MPA-5.1-02) and its CRC
 * (MPA-5.2-11). The encoder is iw_mpa_tx_fpdu (suite/engine/mpa_fpdu.h); the decoder is
 * iw_mpa_rx_push (suite/engine/mpa_rx.h), fed in 1460-octet chunks as TCP would hand them over.
 *
 * All throughputs count the same unit, octets of the wire stream, so
 *   ratio = (encode+decode throughput) / (CRC-only throughput)
 * is the share of the bare CRC rate that framing keeps. CRC-only is one CRC over each FPDU's
 * covered octets (everything but its CRC field), what any implementation must at least spend;
 * encode+decode computes it twice (sender and receiver) and also places and strips markers
 * and copies, so the ratio is below 0.5 when the CRC dominates.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "crc32c.h"
#include "ddp.h"
#include "iw_err.h"
#include "iw_octets.h"
#include "iw_proto.h"
#include "mpa_fpdu.h"
#include "mpa_rx.h"
#include "profile.h"
#include "rdmap.h"

#define NFPDU 256               /* about 370 KB of stream: stays in L2 */
#define MSS 1460
#define PAYLOAD 1424            /* MULPDU(1460, markers) - untagged DDP header */
#define CHUNK 1460

static const iw_profile *prof;
static uint8_t payload[NFPDU * PAYLOAD];
static uint8_t hdrs[NFPDU][IW_DDP_UNTAGGED_HDR_LEN];
static uint8_t stream[NFPDU * (MSS + 64)];
static size_t stream_len;
static size_t fpdu_off[NFPDU + 1];      /* wire offset of each FPDU in stream */
static iw_mpa_rx rx;
static iw_fpdu fpdu;
static bool markers = true;     /* the "CRC-only" pipeline runs the same FPDUs without markers */

/* Untagged DDP headers of one Send message (QN 0, MSN 1) cut at MO = k * PAYLOAD, L on the last. */
static void build_headers(void)
{
	for (size_t k = 0; k < NFPDU; k++) {
		uint8_t *h = hdrs[k];
		memset(h, 0, IW_DDP_UNTAGGED_HDR_LEN);
		h[0] = (uint8_t)((k == NFPDU - 1 ? IW_DDP_L : 0) | (prof->ddp_version & IW_DDP_DV_MASK));
		h[IW_DDP_OFF_RSVDULP] = iw_rdmap_ctrl(prof->rdmap_version, IW_OP_SEND);
		iw_put_be32(h + 6, IW_QN_SEND);
		iw_put_be32(h + 10, 1);
		iw_put_be32(h + 14, (uint32_t)(k * PAYLOAD));
	}
}

/* Frames the whole message into stream; 0 on success. */
static int encode(void)
{
	iw_mpa_tx tx;
	iw_err e;
	size_t off = 0;
	iw_mpa_tx_init(&tx, prof, markers, true);
	for (size_t k = 0; k < NFPDU; k++) {
		size_t n = 0;
		fpdu_off[k] = off;
		if (iw_mpa_tx_fpdu(&tx, hdrs[k], IW_DDP_UNTAGGED_HDR_LEN, payload + k * PAYLOAD, PAYLOAD, NULL,
				   stream + off, sizeof stream - off, &n, &e) != IW_OK) {
			fprintf(stderr, "bench_fpdu: encode FPDU %zu: %s\n", k, e.msg);
			return -1;
		}
		off += n;
	}
	fpdu_off[NFPDU] = off;
	stream_len = off;
	return 0;
}

/* Decodes stream in CHUNK-octet pieces; returns the number of valid FPDUs, or -1 on an error.
 * *sum collects every CRC so the work cannot be dropped. */
static long decode(uint64_t *sum)
{
	iw_violation v;
	long n = 0;
	iw_mpa_rx_init(&rx, prof, markers, true);
	for (size_t off = 0; off < stream_len; off += CHUNK) {
		const uint8_t *p = stream + off;
		size_t left = stream_len - off < CHUNK ? stream_len - off : CHUNK;
		while (left) {
			size_t used = 0;
			enum iw_rx_status st = iw_mpa_rx_push(&rx, p, left, &used, &fpdu, &v);
			if (st == IW_RX_ERROR) {
				fprintf(stderr, "bench_fpdu: decode at %llu: %s %s\n", (unsigned long long)v.offset,
					v.req ? v.req : "?", v.detail);
				return -1;
			}
			if (st == IW_RX_FPDU) {
				*sum += fpdu.crc_computed + fpdu.ulpdu[fpdu.ulpdu_length - 1];
				n++;
			}
			p += used;
			left -= used;
		}
	}
	return n;
}

/* The stream must decode to exactly what was framed before any figure means anything. */
static int check_round_trip(void)
{
	if (encode())
		return -1;
	iw_violation v;
	size_t k = 0;
	iw_mpa_rx_init(&rx, prof, true, true);
	for (size_t off = 0; off < stream_len; off += CHUNK) {
		const uint8_t *p = stream + off;
		size_t left = stream_len - off < CHUNK ? stream_len - off : CHUNK;
		while (left) {
			size_t used = 0;
			enum iw_rx_status st = iw_mpa_rx_push(&rx, p, left, &used, &fpdu, &v);
			if (st == IW_RX_ERROR) {
				fprintf(stderr, "bench_fpdu: check: decode error %s %s\n", v.req ? v.req : "?", v.detail);
				return -1;
			}
			if (st == IW_RX_FPDU) {
				if (k >= NFPDU || fpdu.ulpdu_length != IW_DDP_UNTAGGED_HDR_LEN + PAYLOAD ||
				    !fpdu.crc_checked || !fpdu.crc_ok || fpdu.wire_len > MSS ||
				    fpdu.start != fpdu_off[k] ||
				    memcmp(fpdu.ulpdu, hdrs[k], IW_DDP_UNTAGGED_HDR_LEN) != 0 ||
				    memcmp(fpdu.ulpdu + IW_DDP_UNTAGGED_HDR_LEN, payload + k * PAYLOAD, PAYLOAD) != 0) {
					fprintf(stderr, "bench_fpdu: check: FPDU %zu decoded wrong\n", k);
					return -1;
				}
				/* The CRC field holds the CRC of everything before it, markers included. */
				size_t end = fpdu_off[k + 1];
				if (iw_crc32c_get_wire(stream + end - 4) != iw_crc32c(stream + fpdu_off[k], end - 4 - fpdu_off[k])) {
					fprintf(stderr, "bench_fpdu: check: FPDU %zu CRC field wrong\n", k);
					return -1;
				}
				k++;
			}
			p += used;
			left -= used;
		}
	}
	if (k != NFPDU) {
		fprintf(stderr, "bench_fpdu: check: %zu FPDUs decoded, %d framed\n", k, NFPDU);
		return -1;
	}
	return 0;
}

static uint64_t run_encode(void *ctx, long iters)
{
	(void)ctx;
	uint64_t s = 0;
	for (long i = 0; i < iters; i++) {
		if (encode())
			exit(1);
		s += stream[stream_len - 1];
	}
	return s;
}

static uint64_t run_decode(void *ctx, long iters)
{
	(void)ctx;
	uint64_t s = 0;
	for (long i = 0; i < iters; i++)
		if (decode(&s) != NFPDU)
			exit(1);
	return s;
}

static uint64_t run_encode_decode(void *ctx, long iters)
{
	(void)ctx;
	uint64_t s = 0;
	for (long i = 0; i < iters; i++) {
		if (encode() || decode(&s) != NFPDU)
			exit(1);
	}
	return s;
}

/* The same encode+decode with CRC but without markers: what markers cost on top of framing. */
static uint64_t run_encode_decode_nomarkers(void *ctx, long iters)
{
	markers = false;
	uint64_t r = run_encode_decode(ctx, iters);
	markers = true;
	if (encode())   /* leave the marker stream in place for the other cases */
		exit(1);
	return r;
}

static uint64_t run_crc_only(void *ctx, long iters)
{
	(void)ctx;
	uint64_t s = 0;
	for (long i = 0; i < iters; i++)
		for (size_t k = 0; k < NFPDU; k++)
			s += iw_crc32c(stream + fpdu_off[k], fpdu_off[k + 1] - fpdu_off[k] - IW_MPA_CRC_LEN);
	return s;
}

int main(void)
{
	prof = iw_profile_default();
	srand(7);
	for (size_t i = 0; i < sizeof payload; i++)
		payload[i] = (uint8_t)rand();
	build_headers();
	if (iw_mulpdu(MSS, true) != IW_DDP_UNTAGGED_HDR_LEN + PAYLOAD) {
		fprintf(stderr, "bench_fpdu: MULPDU(%d, markers) = %u, expected %d\n", MSS, iw_mulpdu(MSS, true),
			IW_DDP_UNTAGGED_HDR_LEN + PAYLOAD);
		return 1;
	}
	if (check_round_trip())
		return 1;

	bench_case cases[] = {
		{ "encode+decode", run_encode_decode, NULL, 0, 0 },
		{ "crc-only", run_crc_only, NULL, 0, 0 },
		{ "encode", run_encode, NULL, 0, 0 },
		{ "decode", run_decode, NULL, 0, 0 },
		{ "encode+decode crc, no markers", run_encode_decode_nomarkers, NULL, 0, 0 },
	};
	bench_run(cases, 2, 0.5);
	bench_run(cases + 2, 2, 0.25);
	bench_run(cases + 4, 1, 0.5);

	double octets = (double)stream_len;
	double ed = bench_gbps(&cases[0], octets), crc = bench_gbps(&cases[1], octets);
	printf("fpdu stream: %d FPDUs, ULPDU %d, %.0f wire octets, markers+crc, %s, crc32c %s, %d-octet chunks\n",
	       NFPDU, IW_DDP_UNTAGGED_HDR_LEN + PAYLOAD, octets, prof->name, iw_crc32c_impl(), CHUNK);
	printf("fpdu encode: %.2f GB/s\n", bench_gbps(&cases[2], octets));
	printf("fpdu decode: %.2f GB/s\n", bench_gbps(&cases[3], octets));
	printf("fpdu encode+decode with markers+crc: %.2f GB/s\n", ed);
	double nm = bench_gbps(&cases[4], octets);
	printf("fpdu encode+decode with crc, no markers (crc-only framing): %.2f GB/s\n", nm);
	printf("crc32c alone, one pass over the stream: %.2f GB/s\n", crc);
	/* The figure: framing with markers and CRC against CRC-only framing of the same FPDUs. */
	printf("fpdu encode+decode markers+crc vs crc-only framing: %.2f (goal >= 0.80)\n", ed / nm);
	/* Encode and decode each compute the CRC once: against two bare CRC passes, the rest is copying. */
	printf("fpdu encode+decode markers+crc vs the two CRC passes it needs: %.2f\n", ed / (crc / 2));
	return 0;
}
