/*
 * cmd_decode.c - `iwspec decode`: decode an MPA byte stream layer by layer and list every
 * violation with its requirement ID and error code; or judge every TCP connection of a
 * capture file (pcap or pcapng) the same way, both directions.
 *
 * A stream may begin with a startup frame (Request or Reply); the octets after it are FPDUs,
 * as are all octets when there is no frame (or the profile has none). Everything is decoded by
 * the engine; the printing is decode_stream.c's, captures are decode_pcap.c's (one line per
 * connection unless --details, in bounded memory: --max-conns, --max-buffer; one side judged
 * with --side or --dut: decode_dut.h).
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "decode_pcap.h"
#include "decode_stream.h"
#include "hexin.h"
#include "pcap_read.h"
#include "profile.h"

#define MAX_INPUT (64u << 20)
#define MAX_VIOLS 4096

typedef struct decode_out {
	iw_decode_ctx ctx;
	json_t *root;
	iw_viol_list viol;
} decode_out;

/* The violation slots of a stream (MAX_VIOLS, about 900 KiB), made at the first stream and kept
 * for the process: made per call, they cost the in-process fuzz target harness_rx most of each
 * input under ASan, which maps, poisons and unmaps a block this large every time. The list
 * writes a slot before anything reads it. */
static iw_violation *viol_store;

static void usage(FILE *f)
{
	char names[128];
	iw_profile_names(names, sizeof names);
	fprintf(f,
		"usage: iwspec decode [--profile P] [--markers] [--crc|--no-crc] [--start OFFSET] [--json]\n"
		"                     (--hex HEX | FILE | -)\n"
		"       iwspec decode [--profile P] [--details | --json] [--max-conns N] [--max-buffer SIZE]\n"
		"                     [--side initiator|responder] [--dut ADDRESS[:PORT]] CAPTURE\n"
		"\n"
		"Decodes an MPA byte stream: an optional startup frame (Request or Reply), then FPDUs.\n"
		"Prints every field of every layer (MPA, DDP, RDMAP) and lists each violation with its\n"
		"requirement ID (spec/requirements.md) and error code. Each FPDU and DDP segment is held\n"
		"to the sender's rules by the checks `iwspec run` holds a DUT to, with the same IDs. CRC\n"
		"fields are shown as the wire has them, as tshark shows them (CRC=0x... (wire order)).\n"
		"\n"
		"A FILE that is a capture (pcap or pcapng, as tcpdump, dumpcap or Wireshark write it) is\n"
		"judged connection by connection: both directions of each TCP connection are reassembled,\n"
		"the startup frames found (Request one way, Reply the other), markers and CRC taken from\n"
		"their M and C bits, every FPDU decoded, and each violation listed with its requirement ID,\n"
		"stream offset and capture frame. A valid Request that no Reply answers before the\n"
		"connection ends (or the capture does) is a violation of MPA-6.1-R2a. Without --profile the\n"
		"Request's Rev picks the profile (0 rddp-mpa-01, 1 rfc5044, 2 rfc6581), and the responder's\n"
		"is the one its Reply shows where that profile may answer such a Request (an RFC responder\n"
		"may answer a Rev 0 Request with Rev 1, or close on it): decode does not blame what a\n"
		"profile consistent with the Request allows, and says which profile judged each side and\n"
		"why; with --profile both sides are held to it. The capture is read as a stream: a\n"
		"connection is judged when it ends (an RST, or a FIN each way) and then freed, so memory\n"
		"follows the connections open at once, not the size of the file. By default each\n"
		"connection gets one line (its endpoints, frames, FPDUs each way, profile and why, verdict\n"
		"and first violation), in the order they end, and a summary follows (connections,\n"
		"conforming, with violations, Requests without a Reply, not judged to their end, and the\n"
		"violations of each side, initiator and responder).\n"
		"\n"
		"A capture of a suite run holds the harness's deliberate faults beside the DUT's octets: to\n"
		"judge the DUT alone, name it by its role (--side) or its endpoint (--dut). Only that side's\n"
		"violations are then judged: they make each connection's verdict, the summary's counts and\n"
		"the exit status; the other side's are listed as \"not judged\" (with --details or --json),\n"
		"counted apart, and said once in the summary.\n"
		"\n"
		"  --profile P     spec profile (default %s); one of: %s\n"
		"  --markers       the FPDU stream carries markers (every 512 octets from SeqStart)\n"
		"  --crc           CRCs are checked (default)\n"
		"  --no-crc        CRCs were agreed off: the field is present but not checked\n"
		"  --start OFFSET  stream offset of the first FPDU octet from SeqStart (default 0);\n"
		"                  decimal or 0x hex, a multiple of 4 (FPDUs start there); places the markers\n"
		"  --json          print one JSON document instead of text (for a capture: with every detail\n"
		"                  and a summary per connection)\n"
		"  --hex HEX       the stream as hex digits (spaces and colons allowed)\n"
		"  FILE | -        the stream as raw octets from a file or standard input\n"
		"\n"
		"  CAPTURE         a pcap or pcapng file (recognised by its first octets); --markers,\n"
		"                  --crc, --no-crc and --start do not apply: the frames negotiate them\n"
		"  --details, -v   print every field of every frame and FPDU of each connection, not one line\n"
		"                  (a stream is always printed so)\n"
		"  --max-conns N   connections held at once (default %u); past it the least recently active\n"
		"                  one is judged early, as far as it went, with a note that it was evicted\n"
		"  --max-buffer SIZE  octets held for all open connections (default %u MiB; a number with an\n"
		"                  optional K, M or G); past it the least recently active others are evicted,\n"
		"                  and a connection that alone fills it is judged up to there, with a note\n"
		"  --side initiator|responder  judge that role's violations only (the DUT's role in the run:\n"
		"                  responder against `iwspec run`'s default)\n"
		"  --dut ADDRESS[:PORT]  judge the violations of the side whose endpoint this is (the DUT's\n"
		"                  address, with its port where both ends share a host: 10.0.0.2,\n"
		"                  10.0.0.2:4791, [fe80::1]:4791); a connection without it is not judged.\n"
		"                  With --side too: only where the DUT has that role\n"
		"\n"
		"exit status: 0 the stream conforms (a capture: every MPA connection, as far as judged; with\n"
		"             --side or --dut, on the side judged), 1 it has violations (there), 2 bad usage\n"
		"             or unreadable input, 3 nothing to judge: a capture that holds no MPA connection\n"
		"             (no packet at all, no TCP, or TCP that is not iWARP), or none with the DUT (--dut)\n"
		"             in it; it is said which, and conformance is not claimed\n",
		iw_profile_default()->name, names, IW_PCAP_MAX_CONNS_DEFAULT, IW_PCAP_MAX_HELD_DEFAULT >> 20);
}

/* A count or a size for an option: decimal, with K, M or G (powers of 1024) when units. */
static bool parse_size(const char *opt, const char *arg, bool units, size_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	unsigned shift = 0;
	if (units && *end && !end[1]) {
		switch (*end) {
		case 'k': case 'K': shift = 10; end++; break;
		case 'm': case 'M': shift = 20; end++; break;
		case 'g': case 'G': shift = 30; end++; break;
		default: break;
		}
	}
	if (errno || *end || end == arg || arg[0] == '-' || v == 0 || v > (SIZE_MAX >> shift)) {
		fprintf(stderr, "iwspec decode: %s '%s' is not a positive number%s\n", opt, arg,
			units ? " (octets, with an optional K, M or G)" : "");
		return false;
	}
	*out = (size_t)v << shift;
	return true;
}

/* A stream as `iwspec decode` has always read it: a startup frame when the octets start with
 * a key, then FPDUs from the given offset. */
static void decode_stream(iw_decode_ctx *o, const iw_profile *p, bool markers, bool crc, uint64_t start,
			  const uint8_t *buf, size_t len)
{
	long flen = iw_decode_frame(o, p, buf, len, -1, false, NULL);
	if (flen < 0)
		return;
	/* Without the startup frame, or from a later offset, the octets may start anywhere in the
	 * conversation: no MSN is due yet. */
	o->mid_stream = flen == 0 || start > 0;
	size_t n = iw_decode_fpdus(o, p, markers, crc, start, buf + flen, len - (size_t)flen, NULL);
	if (!o->json && n == 0 && flen == 0 && !o->mpa_failed)
		printf("no FPDU in the stream\n");
}

/* A capture is recognised by its magic number, so a raw stream that happens to be named
 * .pcap is still a stream. */
static bool is_capture(const char *path)
{
	uint8_t m[4];
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	size_t n = fread(m, 1, sizeof m, f);
	fclose(f);
	return iw_pcap_magic(m, n);
}

int cmd_decode(int argc, char **argv)
{
	static const struct option opts[] = {
		{"profile", required_argument, 0, 'p'}, {"markers", no_argument, 0, 'm'},
		{"crc", no_argument, 0, 'c'},           {"no-crc", no_argument, 0, 'n'},
		{"start", required_argument, 0, 's'},   {"json", no_argument, 0, 'j'},
		{"hex", required_argument, 0, 'x'},     {"help", no_argument, 0, 'h'},
		{"details", no_argument, 0, 'v'},       {"max-conns", required_argument, 0, 'C'},
		{"max-buffer", required_argument, 0, 'B'}, {"side", required_argument, 0, 'S'},
		{"dut", required_argument, 0, 'D'},
		{0, 0, 0, 0},
	};
	const iw_profile *p = iw_profile_default();
	bool profile_given = false, stream_opts = false, capture_opts = false;
	iw_decode_opts copts;
	iw_decode_opts_default(&copts);
	bool markers = false, crc = true;
	uint64_t start = 0;
	const char *hex = NULL;
	decode_out *o = calloc(1, sizeof *o);
	if (!o)
		return IW_EXIT_ERROR;
	int c;
	optind = 1;
	opterr = 0;
	int status = IW_EXIT_USAGE;
	while ((c = getopt_long(argc, argv, "hv", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			p = iw_profile_find(optarg);
			if (!p) {
				char names[128];
				iw_profile_names(names, sizeof names);
				fprintf(stderr, "iwspec decode: unknown profile '%s'; use one of: %s\n", optarg, names);
				goto out;
			}
			profile_given = true;
			break;
		case 'm': markers = true; stream_opts = true; break;
		case 'c': crc = true; stream_opts = true; break;
		case 'n': crc = false; stream_opts = true; break;
		case 's': {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(optarg, &end, 0);
			if (errno || *end || optarg[0] == '-') {
				fprintf(stderr, "iwspec decode: --start '%s' is not an offset; give a decimal or 0x hex number\n",
					optarg);
				goto out;
			}
			if (v % 4) {
				/* FPDUs start at multiples of 4 from SeqStart (requirements.md §6 A23); an
				 * FPDUPTR could not point at one anywhere else. */
				fprintf(stderr, "iwspec decode: --start %llu is not a multiple of 4; FPDUs begin at "
					"multiples of 4 from SeqStart (give the offset of an FPDU's first octet)\n", v);
				goto out;
			}
			start = v;
			stream_opts = true;
			break;
		}
		case 'j': o->ctx.json = true; break;
		case 'v': copts.details = true; break;
		case 'C':
			if (!parse_size("--max-conns", optarg, false, &copts.limits.max_conns))
				goto out;
			capture_opts = true;
			break;
		case 'B':
			if (!parse_size("--max-buffer", optarg, true, &copts.limits.max_held))
				goto out;
			capture_opts = true;
			break;
		case 'S':
			if (!strcmp(optarg, "initiator")) {
				copts.side = IW_DECODE_SIDE_INITIATOR;
			} else if (!strcmp(optarg, "responder")) {
				copts.side = IW_DECODE_SIDE_RESPONDER;
			} else {
				fprintf(stderr, "iwspec decode: --side '%s': use initiator or responder (the DUT's role)\n",
					optarg);
				goto out;
			}
			capture_opts = true;
			break;
		case 'D': {
			char msg[320];
			if (iw_decode_dut_parse(optarg, &copts.dut, msg, sizeof msg)) {
				fprintf(stderr, "iwspec decode: %s\n", msg);
				goto out;
			}
			capture_opts = true;
			break;
		}
		case 'x': hex = optarg; break;
		case 'h': usage(stdout); status = IW_EXIT_OK; goto out;
		default:
			fprintf(stderr, "iwspec decode: unknown or incomplete option '%s'; see 'iwspec decode --help'\n",
				argv[optind - 1]);
			goto out;
		}
	}
	const char *file = optind < argc ? argv[optind] : NULL;
	if (optind + 1 < argc) {
		fprintf(stderr, "iwspec decode: one input only; got '%s' and '%s'\n", argv[optind], argv[optind + 1]);
		goto out;
	}
	if ((hex != NULL) == (file != NULL)) {
		fprintf(stderr, "iwspec decode: give the stream as --hex HEX, a FILE, or - for standard input\n");
		goto out;
	}
	if (file && strcmp(file, "-") && is_capture(file)) {
		if (stream_opts) {
			fprintf(stderr, "iwspec decode: --markers, --crc, --no-crc and --start do not apply to a capture: "
					"its startup frames negotiate markers and CRC\n");
			goto out;
		}
		if (copts.details && o->ctx.json) {
			fprintf(stderr, "iwspec decode: --details and --json do not go together: the JSON document "
					"already carries every detail\n");
			goto out;
		}
		copts.profile = profile_given ? p : NULL;
		copts.json = o->ctx.json;
		status = iw_decode_capture(file, &copts);
		goto out;
	}
	if (capture_opts) {
		fprintf(stderr, "iwspec decode: --max-conns, --max-buffer, --side and --dut apply to a capture only; '%s' "
				"is a stream\n", file ? file : "--hex");
		goto out;
	}
	uint8_t *buf = NULL;
	size_t len = 0;
	char msg[256];
	if (hex ? iw_hex_parse(hex, &buf, &len, msg, sizeof msg) : iw_read_input(file, MAX_INPUT, &buf, &len, msg, sizeof msg)) {
		fprintf(stderr, "iwspec decode: %s\n", msg);
		goto out;
	}
	if (len == 0) {
		fprintf(stderr, "iwspec decode: the stream is empty\n");
		free(buf);
		goto out;
	}
	if (!viol_store && !(viol_store = malloc(MAX_VIOLS * sizeof *viol_store))) {
		fprintf(stderr, "iwspec decode: out of memory\n");
		free(buf);
		status = IW_EXIT_ERROR;
		goto out;
	}
	o->viol.v = viol_store;
	o->viol.cap = MAX_VIOLS;
	o->ctx.viol = &o->viol;
	if (o->ctx.json) {
		o->root = json_object();
		o->ctx.items = json_array();
		o->ctx.viols = json_array();
	}
	decode_stream(&o->ctx, p, markers, crc, start, buf, len);
	free(buf);
	size_t nviol = o->viol.n + o->viol.dropped;
	if (o->ctx.json) {
		json_object_set_new(o->root, "profile", json_string(p->name));
		json_object_set_new(o->root, "items", o->ctx.items);
		json_object_set_new(o->root, "violations", o->ctx.viols);
		json_object_set_new(o->root, "conforms", json_boolean(nviol == 0));
		json_dumpf(o->root, stdout, JSON_INDENT(2));
		printf("\n");
		json_decref(o->root);
	} else {
		if (nviol)
			printf("%zu violation%s\n", nviol, nviol == 1 ? "" : "s");
		else
			printf("the stream conforms (profile %s)\n", p->name);
	}
	status = nviol ? IW_EXIT_FAIL : IW_EXIT_OK;
out:
	free(o);
	return status;
}
