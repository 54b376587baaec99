/*
 * test_decode_ends.c - `iwspec decode` on how a side's octets end and begin, as the runner judges
 * them (one judgment, read twice: tools/conformance.sh cross-checks the two on every case pcap):
 * a stream cut off by the capture or by the peer, not by its sender's FIN or RST, ends no FPDU
 * early (no MPA-5.4-04); a Reply sent before the Request is whole breaks MPA-6.1-R2a.
 */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "decode_pcap.h"
#include "mpa_fpdu.h"
#include "mpa_frame.h"
#include "pcap_fixture.h"
#include "pcap_write.h"
#include "profile.h"

static size_t frame(enum iw_mpa_kind k, uint8_t *out, size_t cap)
{
	iw_mpa_frame f;
	iw_mpa_frame_init(&f, iw_profile_get(IW_PROFILE_RFC5044), k);
	size_t n = 0;
	iw_err e;
	CHECK_EQ(iw_mpa_frame_encode(&f, out, cap, &n, &e), IW_OK);
	return n;
}

/* A conforming untagged Send of 8 octets on QN 0 with MSN 1, as one FPDU. */
static size_t send_fpdu(uint8_t *out, size_t cap)
{
	static const char hdr[] = "43 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00";
	uint8_t u[32];
	size_t hl = check_unhex(hdr, u, sizeof u);
	memcpy(u + hl, "payload!", 8);
	iw_mpa_tx tx;
	iw_mpa_tx_init(&tx, iw_profile_get(IW_PROFILE_RFC5044), false, true);
	size_t n = 0;
	iw_err e;
	CHECK_EQ(iw_mpa_tx_fpdu(&tx, u, hl + 8, NULL, 0, NULL, out, cap, &n, &e), IW_OK);
	return n;
}

typedef struct piece {
	enum iw_pcap_dir dir;
	const uint8_t *b;
	size_t n;
} piece;

/* A connection with the pieces in order; then the client's FIN, and the server's when server_fin. */
static void write_conn(const char *path, const piece *ps, size_t n, bool server_fin)
{
	iw_err e;
	iw_pcap_writer *w = iw_pcap_writer_new(IW_PCAP_LINK_ETHERNET, &e);
	iw_pcap_tcp_params prm;
	iw_pcap_tcp_params_default(&prm);
	iw_pcap_tcp *t = w ? iw_pcap_tcp_open(w, &prm, &e) : NULL;
	CHECK(t != NULL);
	for (size_t i = 0; t && i < n; i++)
		CHECK_EQ(iw_pcap_tcp_data(t, ps[i].dir, ps[i].b, ps[i].n, &e), 0);
	if (t && server_fin)
		iw_pcap_tcp_fin(t, IW_PCAP_S2C, &e);
	if (t)
		iw_pcap_tcp_fin(t, IW_PCAP_C2S, &e);
	CHECK_EQ(w ? iw_pcap_writer_commit(w, path, &e) : -1, 0);
}

static char *decode(const char *path)
{
	iw_decode_opts o;
	iw_decode_opts_default(&o);
	o.details = true;
	char *out = NULL;
	pf_decode_stdout(path, &o, &out);
	return out ? out : calloc(1, 1);
}

TEST(decode_stream_cut_by_the_capture_ends_no_fpdu)
{
	uint8_t req[32], rep[32], f[64], g[64];
	size_t nreq = frame(IW_MPA_REQUEST, req, sizeof req), nrep = frame(IW_MPA_REPLY, rep, sizeof rep);
	size_t nf = send_fpdu(f, sizeof f);
	memcpy(g, f, nf);
	piece ps[] = {
		{IW_PCAP_C2S, req, nreq}, {IW_PCAP_S2C, rep, nrep}, {IW_PCAP_C2S, f, nf},
		{IW_PCAP_S2C, g, 10},   /* the responder's FPDU, 10 octets of it */
	};
	const char *path = pf_tmp_path("ends.pcap");
	/* The responder never closed: the capture (or the peer that stopped reading) cut it off. */
	write_conn(path, ps, 4, false);
	char *out = decode(path);
	CHECK(strstr(out, "MPA-5.4-04") == NULL);
	free(out);
	/* Its own FIN after half an FPDU: the sender ended the stream inside it. */
	write_conn(path, ps, 4, true);
	out = decode(path);
	CHECK(strstr(out, "VIOLATION MPA-5.4-04") != NULL);
	free(out);
	unlink(path);
}

TEST(decode_reply_before_the_request_is_whole)
{
	uint8_t req[32], rep[32];
	size_t nreq = frame(IW_MPA_REQUEST, req, sizeof req), nrep = frame(IW_MPA_REPLY, rep, sizeof rep);
	const char *path = pf_tmp_path("early-reply.pcap");
	/* 19 of the Request's 20 octets, then the Reply: a Request that never completed. */
	piece never[] = {{IW_PCAP_C2S, req, nreq - 1}, {IW_PCAP_S2C, rep, nrep}};
	write_conn(path, never, 2, true);
	char *out = decode(path);
	CHECK(strstr(out, "VIOLATION MPA-6.1-R2a") != NULL);
	CHECK(strstr(out, "never completed") != NULL);
	free(out);
	/* The Reply between the Request's two halves. */
	piece early[] = {{IW_PCAP_C2S, req, 10}, {IW_PCAP_S2C, rep, nrep}, {IW_PCAP_C2S, req + 10, nreq - 10}};
	write_conn(path, early, 3, true);
	out = decode(path);
	CHECK(strstr(out, "VIOLATION MPA-6.1-R2a") != NULL);
	CHECK(strstr(out, "before the Request was complete") != NULL);
	free(out);
	/* After the whole Request: no such violation. */
	piece whole[] = {{IW_PCAP_C2S, req, nreq}, {IW_PCAP_S2C, rep, nrep}};
	write_conn(path, whole, 2, true);
	out = decode(path);
	CHECK(strstr(out, "VIOLATION MPA-6.1-R2a") == NULL);
	CHECK(strstr(out, "the capture conforms") != NULL);
	free(out);
	unlink(path);
}
