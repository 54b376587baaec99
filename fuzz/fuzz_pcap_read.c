/*
 * fuzz_pcap_read.c - the capture reader behind `iwspec decode CAPTURE` (suite/capture/pcap_read.h):
 * pcap and pcapng files a lab brings from anywhere, parsed by libpcap, then every TCP
 * segment over IPv4/IPv6 put back into its connection's two byte streams.
 *
 * Input: the capture file itself (written to an unlinked temporary file and read through
 * /proc/self/fd, so nothing is left behind).
 *
 * Invariants:
 *  - an error returns -1 with no capture and a terminated, non-empty message naming the file;
 *  - a capture read has its counts in bounds: non-TCP frames and each connection's first
 *    frame within the frames read; each stream's pieces sorted by offset, each from a frame
 *    that was read; the frame numbers of its segments, FIN and RST within the frames read;
 *  - iw_pcap_frame_of() gives 0 or a frame that was read, for every octet of every stream;
 *  - the warning is terminated;
 *  - `iwspec pcap-combine` of the same file (tests/cli/tshark_check.sh's batches, which move each
 *    capture's IPv4 addresses into a network of their own) refuses it with a message, leaving no
 *    file, or writes a capture that reads back with the same frames, connections, ports and
 *    stream octets, since only addresses and checksums changed.
 */
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "pcap_combine.h"
#include "pcap_read.h"

static int cap_fd = -1;

static void check_stream(const iw_pcap_capture *c, const iw_pcap_stream *s)
{
	FZ_CHECK(s->len == 0 || s->data, "%zu octets and no data", s->len);
	FZ_CHECK(s->first_frame <= s->last_frame && s->last_frame <= c->frames, "frames %llu..%llu of %llu",
		 (unsigned long long)s->first_frame, (unsigned long long)s->last_frame, (unsigned long long)c->frames);
	FZ_CHECK(!s->fin || s->fin_frame <= c->frames, "FIN frame %llu", (unsigned long long)s->fin_frame);
	FZ_CHECK(!s->rst || s->rst_frame <= c->frames, "RST frame %llu", (unsigned long long)s->rst_frame);
	for (size_t i = 0; i < s->npieces; i++) {
		FZ_CHECK(s->pieces[i].frame >= 1 && s->pieces[i].frame <= c->frames, "piece %zu: frame %llu", i,
			 (unsigned long long)s->pieces[i].frame);
		FZ_CHECK(i == 0 || s->pieces[i - 1].off <= s->pieces[i].off, "pieces out of order at %zu", i);
	}
	/* Every octet of the stream came in some frame that was read. */
	for (size_t off = 0; off < s->len; off += 1 + off / 7) {
		uint64_t f = iw_pcap_frame_of(s, off);
		FZ_CHECK(f <= c->frames, "octet %zu: frame %llu of %llu", off, (unsigned long long)f,
			 (unsigned long long)c->frames);
	}
}

static void check_combine(const char *path, const iw_pcap_capture *c)
{
	/* A real path (the writer renames into place), in memory where there is /dev/shm. */
	char out[128];
	snprintf(out, sizeof out, "%s/iwspec-fuzz-combine-%d.pcap", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
		 (int)getpid());
	const char *in[1] = { path };
	iw_pcap_part part;
	iw_err e;
	memset(&e, 0x55, sizeof e);
	if (iw_pcap_combine(out, in, 1, &part, &e) != 0) {
		FZ_CHECK(memchr(e.msg, '\0', sizeof e.msg) && e.msg[0], "combine: the error is empty or not terminated");
		FZ_CHECK(access(out, F_OK) != 0, "combine failed and left %s", out);
		return;
	}
	FZ_CHECK(part.frames == c->frames && part.first_frame == 1, "combine: frames %llu from %llu, the capture %llu",
		 (unsigned long long)part.frames, (unsigned long long)part.first_frame, (unsigned long long)c->frames);
	iw_pcap_capture *k = NULL;
	char msg[512];
	int rc = iw_pcap_read(out, &k, msg, sizeof msg);
	unlink(out);
	FZ_CHECK(rc == 0, "the combined capture does not read back: %s", msg);
	FZ_CHECK(k->frames == c->frames && k->non_tcp == c->non_tcp && k->nconns == c->nconns,
		 "read back: %llu frames, %llu not TCP, %zu connections; the capture %llu, %llu, %zu",
		 (unsigned long long)k->frames, (unsigned long long)k->non_tcp, k->nconns, (unsigned long long)c->frames,
		 (unsigned long long)c->non_tcp, c->nconns);
	for (size_t i = 0; i < c->nconns; i++)
		for (int side = 0; side < 2; side++) {
			const iw_pcap_stream *a = &c->conns[i].dir[side], *b = &k->conns[i].dir[side];
			FZ_CHECK(c->conns[i].port[side] == k->conns[i].port[side], "connection %zu: port %d changed", i, side);
			FZ_CHECK(a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0),
				 "connection %zu, direction %d: %zu octets, read back %zu or other octets", i, side, a->len,
				 b->len);
		}
	iw_pcap_capture_free(k);
}

int iw_fuzz_pcap_read(const uint8_t *data, size_t size)
{
	char path[64];
	fz_as_file(&cap_fd, "pcap", data, size, path);
	iw_pcap_capture *c = NULL;
	char msg[512];
	memset(msg, 0x55, sizeof msg);
	if (iw_pcap_read(path, &c, msg, sizeof msg) != 0) {
		FZ_CHECK(c == NULL, "an error, and a capture");
		FZ_CHECK(memchr(msg, '\0', sizeof msg) && msg[0], "the error message is empty or not terminated");
		FZ_CHECK(strstr(msg, path) != NULL, "the error does not name the file: %s", msg);
		return 0;
	}
	FZ_CHECK(c != NULL, "success without a capture");
	FZ_CHECK(memchr(c->warning, '\0', sizeof c->warning), "warning not terminated");
	FZ_CHECK(c->non_tcp <= c->frames, "%llu non-TCP frames of %llu", (unsigned long long)c->non_tcp,
		 (unsigned long long)c->frames);
	for (size_t i = 0; i < c->nconns; i++) {
		const iw_pcap_conn *k = &c->conns[i];
		FZ_CHECK(k->family == 4 || k->family == 6, "family %d", k->family);
		FZ_CHECK(k->first_frame >= 1 && k->first_frame <= c->frames, "connection %zu: first frame %llu", i,
			 (unsigned long long)k->first_frame);
		char ep[64];
		for (int side = 0; side < 2; side++) {
			iw_pcap_endpoint(k, side, ep, sizeof ep);
			FZ_CHECK(memchr(ep, '\0', sizeof ep) && ep[0], "endpoint text");
			check_stream(c, &k->dir[side]);
		}
	}
	check_combine(path, c);
	iw_pcap_capture_free(c);
	return 0;
}
