/*
 * fuzz_harness_rx.c - the harness's handling of octets a DUT sends.
 *
 * The runner's receive logic (suite/run/exec_receive.c) reads from a socket and is not callable in
 * process, so this target runs the same decoding path over the same engine calls, in the same
 * order: a startup frame (iw_mpa_frame_decode, retried while IW_ETRUNC, then
 * iw_mpa_frame_check and the field comparisons), full operation set up from the frames as
 * enter_full_operation does, then FPDUs (iw_mpa_rx_push) read as RDMAP messages
 * (iw_rdmap_parse, the DV and Rsvd checks) and Terminates (iw_terminate_decode,
 * iw_error_name), with the wire slice the runner records for each FPDU. It also runs
 * `iwspec decode` (suite/cli/cmd_decode.c) in process over the same octets, its output sent to
 * /dev/null.
 *
 * Input: [profile][flags][start (2)][the DUT's octets...]
 *   flags: 1 the DUT is the responder (a Reply is expected, else a Request), 2 the harness's
 *          frame had M=1 (markers from the DUT), 4 it had C=1, 8 also run `iwspec decode`,
 *          16 with --json, 32 with --markers, 64 with --no-crc; start, rounded down to a
 *          multiple of 4, is its --start offset.
 *
 * Invariants:
 *  - every octet is consumed by the frame, the FPDUs or an error; the FPDU positions follow
 *    one another and the recorded wire slice lies inside the received octets;
 *  - every name and message the runner prints is a terminated string;
 *  - `iwspec decode` exits 0 or 1 (conforms or not) for any non-empty input, 2 for none.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fuzz.h"
#include "iw_proto.h"
#include "mpa_frame.h"
#include "mpa_rx.h"
#include "rdmap.h"

static iw_mpa_rx rx;
static iw_fpdu fp;

static void check_str(const char *s, size_t cap, const char *what)
{
	FZ_CHECK(s && memchr(s, '\0', cap), "%s not terminated", what);
}

/* The runner's path: returns nothing, aborts on a broken invariant. */
static void runner_path(const iw_profile *p, uint8_t flags, const uint8_t *in, size_t len)
{
	size_t cur = 0;
	bool m_from_dut = true, crc = true;
	if (p->startup_frames) {
		enum iw_mpa_kind kind = (flags & 1) ? IW_MPA_REPLY : IW_MPA_REQUEST;
		iw_mpa_frame f;
		size_t flen = 0;
		iw_err e;
		int rc = iw_mpa_frame_decode(p, in, len, &f, &flen, &e);
		if (rc == IW_ETRUNC) {
			FZ_CHECK(flen > len, "IW_ETRUNC with %zu of %zu octets", len, flen);
			return;
		}
		FZ_CHECK(rc == IW_OK, "frame decode rc %d", rc);
		FZ_CHECK(flen <= len, "frame of %zu octets in %zu", flen, len);
		char sum[200];
		snprintf(sum, sizeof sum, "M=%d C=%d R=%d Res=0x%x Rev=%u PD_Length=%u", f.m, f.c, f.r, f.res, f.rev,
			 f.pd_length);
		iw_violation vs[16];
		iw_viol_list l = { .v = vs, .cap = 16 };
		iw_mpa_frame_check(p, &f, kind, &l);
		for (size_t i = 0; i < l.n; i++) {
			check_str(vs[i].req, 64, "frame requirement");
			check_str(vs[i].detail, sizeof vs[i].detail, "frame detail");
		}
		cur = flen;
		if (f.r)
			return;         /* the runner does not enter full operation after R=1 */
		bool sent_m = flags & 2, sent_c = flags & 4;
		m_from_dut = sent_m;
		crc = sent_c || f.c;
	}
	iw_mpa_rx_init(&rx, p, m_from_dut, crc);
	uint64_t expect_start = 0;
	while (cur < len) {
		size_t used = 0;
		iw_violation err;
		memset(&err, 0, sizeof err);
		enum iw_rx_status st = iw_mpa_rx_push(&rx, in + cur, len - cur, &used, &fp, &err);
		FZ_CHECK(used <= len - cur, "consumed %zu of %zu", used, len - cur);
		cur += used;
		if (st == IW_RX_FPDU) {
			FZ_CHECK(fp.start == expect_start, "FPDU at %llu, expected %llu", (unsigned long long)fp.start,
				 (unsigned long long)expect_start);
			expect_start += fp.wire_len;
			size_t w = used < fp.wire_len ? used : fp.wire_len;
			const uint8_t *wire = in + cur - w;
			FZ_CHECK(wire >= in && wire + w <= in + len, "recorded wire slice outside the input");
			iw_rdmap_msg m;
			iw_violation v;
			if (!iw_rdmap_parse(p, fp.ulpdu, fp.ulpdu_length, &m, &v)) {
				check_str(v.req, 64, "RDMAP requirement");
				check_str(v.detail, sizeof v.detail, "RDMAP detail");
				return;     /* the runner fails the case here */
			}
			if (m.ddp.dv != p->ddp_version || m.ddp.rsvd)
				return;
			check_str(iw_rdmap_op(m.opcode)->name, 64, "opcode name");
			if (m.opcode == IW_OP_TERMINATE) {
				iw_terminate t;
				iw_err e;
				if (iw_terminate_decode(m.payload, m.payload_len, &t, &e)) {
					check_str(e.msg, sizeof e.msg, "Terminate error");
					return;
				}
				check_str(iw_error_name(t.layer, t.etype, t.ecode), 128, "error name");
				return;
			}
			continue;
		}
		if (st == IW_RX_ERROR) {
			check_str(err.req, 64, "MPA requirement");
			check_str(err.detail, sizeof err.detail, "MPA detail");
			check_str(iw_error_name(err.layer, err.etype, err.ecode), 128, "error name");
			FZ_CHECK(err.offset == expect_start, "error at %llu, FPDU at %llu", (unsigned long long)err.offset,
				 (unsigned long long)expect_start);
			return;
		}
		FZ_CHECK(cur == len, "NEED_MORE with %zu octets left", len - cur);
	}
}

static void decode_cmd(const iw_profile *p, uint8_t flags, uint16_t start, const uint8_t *in, size_t len)
{
	/* len <= 4096: the hex text in place, by table (a snprintf per octet was a tenth of a run). */
	static char hex[2 * 4096 + 1];
	static const char digit[] = "0123456789abcdef";
	FZ_CHECK(len <= 4096, "%zu octets for decode", len);
	for (size_t i = 0; i < len; i++) {
		hex[2 * i] = digit[in[i] >> 4];
		hex[2 * i + 1] = digit[in[i] & 15];
	}
	hex[2 * len] = '\0';
	char prof[32], st[16];
	snprintf(prof, sizeof prof, "%s", p->name);
	/* FPDUs start at multiples of 4 (A23): decode refuses any other --start as bad usage. */
	snprintf(st, sizeof st, "%u", (unsigned)start & ~3u);
	char *argv[16];
	int argc = 0;
	argv[argc++] = "decode";
	argv[argc++] = "--profile";
	argv[argc++] = prof;
	if (flags & 16)
		argv[argc++] = "--json";
	if (flags & 32)
		argv[argc++] = "--markers";
	if (flags & 64)
		argv[argc++] = "--no-crc";
	argv[argc++] = "--start";
	argv[argc++] = st;
	argv[argc++] = "--hex";
	argv[argc++] = hex;
	argv[argc] = NULL;

	fflush(stdout);
	fflush(stderr);
	static int nul = -1;
	if (nul < 0)
		nul = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int saved_out = dup(1), saved_err = dup(2);
	FZ_CHECK(saved_out >= 0 && saved_err >= 0 && nul >= 0, "cannot redirect output");
	dup2(nul, 1);
	dup2(nul, 2);
	int rc = cmd_decode(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	if (len)
		FZ_CHECK(rc == IW_EXIT_OK || rc == IW_EXIT_FAIL, "iwspec decode exited %d on %zu octets", rc, len);
	else
		FZ_CHECK(rc == IW_EXIT_USAGE, "iwspec decode exited %d on an empty stream", rc);
}

int iw_fuzz_harness_rx(const uint8_t *data, size_t size)
{
	fz f = fz_init(data, size);
	const iw_profile *p = fz_profile(&f);
	uint8_t flags = fz_u8(&f);
	uint16_t start = fz_u16(&f);
	size_t len;
	const uint8_t *in = fz_rest(&f, &len);
	runner_path(p, flags, in, len);
	if ((flags & 8) && len <= 4096)
		decode_cmd(p, flags, start, in, len);
	return 0;
}
