/*
 * cmd_vectors.c - `iwspec vectors`: write the test-vector set, check a set against the
 * engine, or print the engine's view of a capture for comparison with tshark.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "profile.h"
#include "vectors.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: iwspec vectors --out DIR [--profile P]\n"
		"       iwspec vectors --check DIR\n"
		"       iwspec vectors --dump-fields CAPTURE [--wireshark-view] [--profile P]\n"
		"\n"
		"Test vectors for iWARP implementations (docs/vectors.md): JSON files per layer and topic\n"
		"(startup frames, FPDU framing, markers, CRC, DDP headers and placement, RDMAP and\n"
		"Terminate, whole conversations), each vector with a content-stable id, requirement IDs,\n"
		"the bytes in hex and the result the engine expects; conversations also as pcap files.\n"
		"\n"
		"  --out DIR         write the set: DIR/<layer-topic>.json, DIR/pcap/<id>.pcap and\n"
		"                    DIR/schema/vectors.schema.json (each file written atomically)\n"
		"  --profile P       only this profile (default: rddp-mpa-01, rfc5044, rfc6581, and\n"
		"                    seed-exact for the seeds' own FPDUs)\n"
		"  --check DIR       re-verify every vector of DIR with the engine; each vector whose\n"
		"                    expected result, id or capture the engine disagrees with is named\n"
		"  --dump-fields F   the engine's view of the iWARP traffic in capture F, one line per\n"
		"                    startup frame and FPDU (what tests/cli/tshark_check.sh compares with\n"
		"                    Wireshark's dissectors)\n"
		"  --wireshark-view  with --dump-fields: write the lines Wireshark 4.0 is known to show\n"
		"                    differently as it shows them, each naming its exception\n"
		"\n"
		"exit status: 0 done (or every vector checks), 1 a vector failed the check,\n"
		"             2 bad usage or an unreadable file, 3 the set could not be generated\n");
}

int cmd_vectors(int argc, char **argv)
{
	static const struct option opts[] = {
		{"out", required_argument, 0, 'o'},      {"check", required_argument, 0, 'c'},
		{"profile", required_argument, 0, 'p'},  {"dump-fields", required_argument, 0, 'd'},
		{"wireshark-view", no_argument, 0, 'w'}, {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	const char *out = NULL, *check = NULL, *dump = NULL;
	const iw_profile *p = NULL;
	bool wview = false;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'c': check = optarg; break;
		case 'd': dump = optarg; break;
		case 'w': wview = true; break;
		case 'p':
			p = iw_profile_find(optarg);
			if (!p) {
				char names[128];
				iw_profile_names(names, sizeof names);
				fprintf(stderr, "iwspec vectors: unknown profile '%s'; use one of: %s\n", optarg, names);
				return IW_EXIT_USAGE;
			}
			break;
		case 'h': usage(stdout); return IW_EXIT_OK;
		default:
			fprintf(stderr, "iwspec vectors: unknown or incomplete option '%s'; see 'iwspec vectors --help'\n",
				argv[optind - 1]);
			return IW_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "iwspec vectors: unexpected argument '%s'\n", argv[optind]);
		return IW_EXIT_USAGE;
	}
	if (!!out + !!check + !!dump != 1) {
		fprintf(stderr, "iwspec vectors: give exactly one of --out DIR, --check DIR or --dump-fields CAPTURE\n");
		return IW_EXIT_USAGE;
	}
	if (wview && !dump) {
		fprintf(stderr, "iwspec vectors: --wireshark-view goes with --dump-fields\n");
		return IW_EXIT_USAGE;
	}
	iw_err e;
	if (dump) {
		if (iw_vec_dump_fields(dump, p, wview, stdout, &e)) {
			fprintf(stderr, "iwspec vectors: %s\n", e.msg);
			return IW_EXIT_USAGE;
		}
		return IW_EXIT_OK;
	}
	if (check) {
		if (p) {
			fprintf(stderr, "iwspec vectors: --check takes no --profile: each vector names its own\n");
			return IW_EXIT_USAGE;
		}
		iw_vec_check_stats st;
		int rc = iw_vec_check_dir(check, stdout, &st, &e);
		if (rc < 0) {
			fprintf(stderr, "iwspec vectors: %s\n", e.msg);
			return IW_EXIT_USAGE;
		}
		printf("%zu vectors in %zu files, %zu captures: %zu failed\n", st.vectors, st.files, st.pcaps, st.failed);
		return rc ? IW_EXIT_FAIL : IW_EXIT_OK;
	}
	iw_vec_set *s;
	if (iw_vec_generate(p, &s, &e)) {
		fprintf(stderr, "iwspec vectors: cannot generate the set: %s\n", e.msg);
		return IW_EXIT_ERROR;
	}
	int rc = iw_vec_write(s, out, &e);
	if (rc) {
		fprintf(stderr, "iwspec vectors: %s\n", e.msg);
	} else {
		size_t total = 0;
		for (size_t i = 0; i < iw_vec_nfiles; i++) {
			size_t n = iw_vec_count(s, i);
			total += n;
			if (n)
				printf("%-24s %4zu vectors\n", iw_vec_files[i].name, n);
		}
		printf("%zu vectors and %zu captures written to %s\n", total, iw_vec_npcaps(s), out);
	}
	iw_vec_set_free(s);
	return rc ? IW_EXIT_USAGE : IW_EXIT_OK;
}
