/*
 * cmd_pcap_combine.c - `iwspec pcap-combine OUT IN...`: several captures as one, each in an IPv4
 * network of its own (suite/capture/pcap_combine.h), for the tshark cross-check, which starts one
 * tshark for a batch of captures instead of one per capture. Not in `iwspec --help`'s list: a
 * tool of the test scripts, not of labs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pcap_combine.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iwspec pcap-combine OUT.pcap IN.pcap...\n"
		"\n"
		"Writes the captures IN, in the order given, as one capture OUT in which Wireshark keeps\n"
		"them apart: capture i's IPv4 addresses become 10.(i/256).(i%%256).N, N counting its\n"
		"addresses from 1 in ascending order, with the IPv4 and TCP checksums adjusted. Ports,\n"
		"sequence numbers, payloads and timestamps stay. Prints one line per IN, in order:\n"
		"  FIRST FRAMES\n"
		"the number in OUT of its first frame, and how many frames it has (0: none).\n"
		"Every record must be a whole TCP segment over IPv4 on Ethernet or raw IP, one link type\n"
		"for all; anything else is refused, naming the file and the frame, and OUT is not written.\n"
		"\n"
		"exit status: 0 written, 2 bad usage, 3 a capture that cannot be combined\n");
}

int cmd_pcap_combine(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return IW_EXIT_OK;
	}
	if (argc < 3 || argv[1][0] == '-') {
		fprintf(stderr, "iwspec pcap-combine: give the capture to write and one or more to read; see 'iwspec pcap-combine --help'\n");
		return IW_EXIT_USAGE;
	}
	size_t n = (size_t)argc - 2;
	iw_pcap_part *parts = calloc(n, sizeof *parts);
	if (!parts) {
		fprintf(stderr, "iwspec pcap-combine: out of memory\n");
		return IW_EXIT_ERROR;
	}
	iw_err e;
	int status = IW_EXIT_OK;
	if (iw_pcap_combine(argv[1], (const char *const *)argv + 2, n, parts, &e) != 0) {
		fprintf(stderr, "iwspec pcap-combine: %s\n", e.msg);
		status = IW_EXIT_ERROR;
	} else {
		for (size_t i = 0; i < n; i++)
			printf("%llu %llu\n", (unsigned long long)parts[i].first_frame, (unsigned long long)parts[i].frames);
		if (fflush(stdout) != 0) {
			fprintf(stderr, "iwspec pcap-combine: cannot write the map to stdout\n");
			status = IW_EXIT_ERROR;
		}
	}
	free(parts);
	return status;
}
