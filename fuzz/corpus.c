/*
 * corpus.c - the seed corpora, generated from the engine's encoders, the golden vectors of
 * requirements.md §5, two connection models talking to each other, and the case files
 * (cases). Nothing here is a stored binary blob: every seed is built by the code that
 * defines the format, so a format change updates the seeds.
 *
 * Each seed starts with the parameter octets its target reads (see the comment at the top of
 * each fuzz_<name>.c), then the protocol octets.
 */
#include <string.h>

#include "corpus_int.h"
#include "fuzz.h"

int iw_fuzz_seeds(const char *target, const char *cases_dir, iw_fuzz_emit_fn emit, void *ctx)
{
	out o = { emit, ctx, 0 };
	if (!strcmp(target, "mpa_frame"))
		cs_seeds_mpa_frame(&o);
	else if (!strcmp(target, "mpa_rx"))
		cs_seeds_streams(&o, "stream", cs_head_mpa_rx);
	else if (!strcmp(target, "ddp"))
		cs_seeds_ddp(&o);
	else if (!strcmp(target, "ddp_sink"))
		cs_seeds_ddp_sink(&o);
	else if (!strcmp(target, "rdmap"))
		cs_seeds_rdmap(&o);
	else if (!strcmp(target, "conn_responder"))
		cs_seeds_conn(&o, true);
	else if (!strcmp(target, "conn_initiator"))
		cs_seeds_conn(&o, false);
	else if (!strcmp(target, "case_parse")) {
		if (cases_dir)
			cs_seeds_cases_dir(&o, cases_dir, 0);
	} else if (!strcmp(target, "dut_config"))
		cs_seeds_dut_config(&o);
	else if (!strcmp(target, "harness_rx"))
		cs_seeds_harness(&o);
	else if (!strcmp(target, "diff_cuts"))
		cs_seeds_diff_cuts(&o);
	else if (!strcmp(target, "diff_roundtrip"))
		cs_seeds_roundtrip(&o);
	else if (!strcmp(target, "diff_markers"))
		cs_seeds_markers(&o);
	else if (!strcmp(target, "diff_crc32c"))
		cs_seeds_crc(&o);
	else if (!strcmp(target, "pcap_read"))
		cs_seeds_pcap(&o);
	else if (!strcmp(target, "baseline"))
		cs_seeds_baseline(&o);
	else
		return -1;
	return o.n;
}
