/*
 * gen_conns.c - writes a capture of many short iWARP connections with the project's pcap writer
 * (suite/capture/pcap_write.h), for tests/cli/decode_capture.sh: `iwspec decode` on captures far larger
 * than any test vector.
 *
 *   gen_conns OUT N MODE [OPEN]
 *
 * N connections from distinct client ports (10.1.x.y:p -> 10.0.0.2:4791), OPEN of them in
 * flight at once (default 1): each opens, sends its Request, and later closes, so up to OPEN
 * connections interleave in the file. MODE says what each one does:
 *   noreply   Request, then a FIN each way: no Reply ever (MPA-6.1-R2f)
 *   mixed     by i % 4: 0 Request and Reply, then FINs (conforms); 1 Request, FINs (no Reply);
 *             2 Request, RST from the server (no Reply); 3 Request and Reply, then RST (conforms)
 *   open      Request and Reply, never closed: every connection is still open when the file ends
 *   badcrc    Request and Reply, then the initiator's Send whose CRC is wrong (MPA-5.2-11: the
 *             initiator's fault alone, as a harness's deliberate one), then a FIN each way
 * The frames are rfc5044 startup frames (Rev 1, C=1, no Private Data), written by hand: a test
 * tool, not a decoder. Built by the test script with the writer's sources; exits 1 on error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcap_write.h"

static const uint8_t request[20] = {'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'q',
				    ' ', 'F', 'r', 'a', 'm', 'e', 0x40, 0x01, 0x00, 0x00};
static const uint8_t reply[20] = {'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'p',
				  ' ', 'F', 'r', 'a', 'm', 'e', 0x40, 0x01, 0x00, 0x00};

/* An untagged Send of no payload (DDP header 18 octets: L=1, DV=1, RDMAP Send, QN 0, MSN 1,
 * MO 0) behind its ULPDU_Length, and a CRC field that is not its CRC. */
static const uint8_t bad_crc_send[24] = {0x00, 0x12, 0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0,
					 0, 0, 0, 1, 0, 0, 0, 0, 0x00, 0x00, 0x00, 0x00};

enum mode { NOREPLY, MIXED, OPEN, BADCRC };

static iw_pcap_tcp *open_conn(iw_pcap_writer *w, unsigned long i, enum mode m, iw_err *e)
{
	iw_pcap_tcp_params p;
	iw_pcap_tcp_params_default(&p);
	p.client_ip[0] = 10;
	p.client_ip[1] = 1;
	p.client_ip[2] = (uint8_t)(i / 60000 / 256);
	p.client_ip[3] = (uint8_t)(i / 60000 % 256 + 1);
	p.client_port = (uint16_t)(1024 + i % 60000);
	p.client_isn = (uint32_t)(1000 + i * 7919);
	p.server_isn = (uint32_t)(5000 + i * 104729);
	iw_pcap_tcp *t = iw_pcap_tcp_open(w, &p, e);
	if (!t || iw_pcap_tcp_data(t, IW_PCAP_C2S, request, sizeof request, e))
		return NULL;
	bool answer = m == OPEN || m == BADCRC || (m == MIXED && (i % 4 == 0 || i % 4 == 3));
	if (answer && iw_pcap_tcp_data(t, IW_PCAP_S2C, reply, sizeof reply, e))
		return NULL;
	if (m == BADCRC && iw_pcap_tcp_data(t, IW_PCAP_C2S, bad_crc_send, sizeof bad_crc_send, e))
		return NULL;
	return t;
}

static int close_conn(iw_pcap_tcp *t, unsigned long i, enum mode m, iw_err *e)
{
	if (m == OPEN)
		return 0;
	if (m == MIXED && i % 4 >= 2)
		return iw_pcap_tcp_rst(t, IW_PCAP_S2C, e);
	if (iw_pcap_tcp_fin(t, IW_PCAP_C2S, e))
		return -1;
	return iw_pcap_tcp_fin(t, IW_PCAP_S2C, e);
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: gen_conns OUT N noreply|mixed|open|badcrc [OPEN]\n");
		return 1;
	}
	unsigned long n = strtoul(argv[2], NULL, 10), inflight = argc > 4 ? strtoul(argv[4], NULL, 10) : 1;
	enum mode m = !strcmp(argv[3], "noreply") ? NOREPLY
		      : !strcmp(argv[3], "mixed")  ? MIXED
		      : !strcmp(argv[3], "open")   ? OPEN
		      : !strcmp(argv[3], "badcrc") ? BADCRC
						   : (enum mode)-1;
	if ((int)m < 0 || n == 0 || n > 60000ul * 256 * 200 || inflight == 0) {
		fprintf(stderr, "gen_conns: bad arguments\n");
		return 1;
	}
	iw_err e;
	iw_pcap_writer *w = iw_pcap_writer_new(IW_PCAP_LINK_RAW, &e);
	iw_pcap_tcp **ring = calloc(inflight, sizeof *ring);
	if (!w || !ring) {
		fprintf(stderr, "gen_conns: %s\n", w ? "out of memory" : e.msg);
		return 1;
	}
	/* Connection i opens once connection i - inflight has closed. */
	for (unsigned long i = 0; i < n + inflight; i++) {
		unsigned long slot = i % inflight;
		if (i >= inflight && close_conn(ring[slot], i - inflight, m, &e))
			goto fail;
		if (i < n && !(ring[slot] = open_conn(w, i, m, &e)))
			goto fail;
	}
	free(ring);
	if (iw_pcap_writer_commit(w, argv[1], &e)) {
		fprintf(stderr, "gen_conns: %s\n", e.msg);
		return 1;
	}
	return 0;
fail:
	fprintf(stderr, "gen_conns: %s\n", e.msg);
	free(ring);
	iw_pcap_writer_free(w);
	return 1;
}
