/*
 * main.c - the iwspec command: dispatches to a subcommand.
 */
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli.h"
#include "crc32c.h"
#include "profile.h"
#include "version.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
} commands[] = {
	{"run", cmd_run, "run conformance cases against a DUT and write reports"},
	{"list", cmd_list, "list the conformance cases with their requirement IDs"},
	{"serve", cmd_serve, "serve the built-in reference DUT over TCP"},
	{"decode", cmd_decode, "decode an MPA byte stream or a capture and list every violation"},
	{"fuzz", cmd_fuzz, "fuzz a DUT over TCP; findings become replayable cases"},
	{"mutants", cmd_mutants, "run the suite against every mutant DUT: the detection matrix"},
	{"vectors", cmd_vectors, "write or check the test-vector set (JSON, pcap); dump a capture's fields"},
	{"crosscheck", cmd_crosscheck, "hold a run's verdicts against decode of its case captures"},
};

/* Tools of the test scripts, not listed by --help: each still has its own --help. */
static const struct {
	const char *name;
	int (*fn)(int, char **);
} unlisted[] = {
	{"pcap-combine", cmd_pcap_combine},
};

static void usage(FILE *f)
{
	char names[128];
	iw_profile_names(names, sizeof names);
	fprintf(f,
		"usage: iwspec <command> [options]\n"
		"\n"
		"iwspec is a conformance and fuzzing suite for iWARP: MPA framing, DDP and RDMAP.\n"
		"\n"
		"commands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n"
		"options:\n"
		"  -h, --help     this help; `iwspec <command> --help` for a command's options\n"
		"  --version      print the version\n"
		"\n"
		"profiles: %s\n"
		"exit status: 0 no failure, 1 a case failed or a stream has violations,\n"
		"             2 bad usage or configuration, 3 no case selected, a harness error or a DUT\n"
		"             that cannot be reached, 4 (run) the DUT contradicts its declared configuration\n",
		names);
}

/* A run makes and frees a few hundred KB per connection, thousands of connections, from many
 * threads. With glibc's defaults that memory goes back to the kernel and is taken again: page
 * faults and TLB flushes across cores, a quarter of `iwspec mutants`' CPU (138 s, 103 s with
 * these settings, the same matrix). So: one arena, no trimming, and blocks up to 4 MiB from the
 * heap. A sanitizer's allocator ignores them. */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
#endif
}

int main(int argc, char **argv)
{
	keep_freed_memory();
	if (argc < 2) {
		usage(stderr);
		return IW_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return IW_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("iwspec %s (%s), crc32c %s\n", iw_version, iw_git_rev, iw_crc32c_impl());
		return IW_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	for (size_t i = 0; i < sizeof unlisted / sizeof unlisted[0]; i++)
		if (!strcmp(argv[1], unlisted[i].name))
			return unlisted[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "iwspec: unknown command '%s'; run 'iwspec --help' for the list\n", argv[1]);
	return IW_EXIT_USAGE;
}
