/*
 * test_report_cert_provenance.c - what the certification report (issue 8) says about where a
 * run came from: the requirements catalog table, sha256 and the vector-set hash, the DUT's
 * settings and the command line.
 */
#include "report_cert_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dut_config.h"
#include "provenance.h"
#include "req_catalog.h"
#include "sha256.h"

/* ---- the catalog ------------------------------------------------------------------ */

TEST(reportcert_catalog_table)
{
	/* requirements.md Appendix A counts 304 distinct rows in §1; spec/rfc-rows.md §2 counts 299. */
	CHECK_EQ(iw_req_catalog_n, 304 + 299);
	size_t musts = 0, wire_musts = 0;
	for (size_t i = 0; i < iw_req_catalog_n; i++) {
		const iw_req_info *q = &iw_req_catalog[i];
		CHECK(q->id && *q->id && q->kw && q->t && q->text && q->gap_note);
		musts += q->must;
		wire_musts += q->must && q->wire;
		CHECK(q->wire == (strchr(q->t, 'W') != NULL));
		CHECK(q->wire || q->gap == IW_GAP_NOT_OBSERVABLE);
		for (size_t k = 0; k < i; k++)
			if (!strcmp(iw_req_catalog[k].id, q->id))
				check_fail(__FILE__, __LINE__, "duplicate catalog id %s", q->id);
	}
	CHECK(musts >= 150);
	CHECK(wire_musts > 100 && wire_musts < musts);
	const iw_req_info *r5 = iw_req_find("MPA-6.1-R5");
	CHECK(r5 != NULL);
	if (r5) {
		CHECK_STR(r5->kw, "MUST");
		CHECK(r5->must && r5->wire);
		CHECK(strstr(r5->text, "Key") != NULL);
	}
	/* W* counts as observable (with the reflector); a MUST only the DUT side can report does not. */
	const iw_req_info *n = iw_req_find("MPA-3.1.2-07");
	CHECK(n && n->wire && !strcmp(n->t, "W*"));
	size_t hidden = 0;
	for (size_t i = 0; i < iw_req_catalog_n; i++)
		if (iw_req_catalog[i].must && !iw_req_catalog[i].wire) {
			hidden++;
			CHECK_EQ(iw_req_catalog[i].gap, IW_GAP_NOT_OBSERVABLE);
			CHECK(strstr(iw_req_catalog[i].gap_note, "not observable on the wire") != NULL);
		}
	CHECK(hidden > 0);
	const iw_req_info *tcp = iw_req_find("MPA-3.1.2-02");
	CHECK(tcp && tcp->gap == IW_GAP_TCP_CONTROL);
	CHECK(iw_req_find("RFC5040-4.8") == NULL);
	CHECK(iw_req_find("") == NULL);
	char f[40];
	CHECK_STR(iw_req_family("MPA-6.1-R5", f, sizeof f), "MPA-6.1");
	CHECK_STR(iw_req_family("DDP-9.1-T4", f, sizeof f), "DDP-9.1");
	CHECK_STR(iw_req_family("MPA-4-02", f, sizeof f), "MPA-4");
	CHECK_STR(iw_req_family("ODD", f, sizeof f), "ODD");
	CHECK(strstr(iw_req_catalog_source, "sha256") != NULL);
}

/* ---- sha256 and the vector-set hash ------------------------------------------------ */

static void sha_hex(const void *d, size_t n, char out[65])
{
	iw_sha256 s;
	uint8_t dg[32];
	iw_sha256_init(&s);
	iw_sha256_update(&s, d, n);
	iw_sha256_final(&s, dg);
	iw_sha256_hex(dg, out);
}

TEST(reportcert_sha256_known_answers)
{
	char h[65];
	sha_hex("", 0, h);
	CHECK_STR(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha_hex("abc", 3, h);
	CHECK_STR(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	sha_hex(m, strlen(m), h);
	CHECK_STR(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* Fed in odd pieces: the same digest. */
	iw_sha256 s;
	uint8_t dg[32];
	iw_sha256_init(&s);
	for (size_t i = 0; i < strlen(m); i += 7)
		iw_sha256_update(&s, m + i, strlen(m) - i < 7 ? strlen(m) - i : 7);
	iw_sha256_final(&s, dg);
	iw_sha256_hex(dg, h);
	CHECK_STR(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	/* One million 'a' (FIPS 180-2 appendix B.3). */
	char *a = malloc(1000000);
	if (a) {
		memset(a, 'a', 1000000);
		sha_hex(a, 1000000, h);
		CHECK_STR(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
		free(a);
	}
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(reportcert_vectors_hash)
{
	char *dir = rp_scratch_dir();
	if (!dir)
		return;
	char hex[72];
	CHECK_EQ(iw_vectors_hash(dir, hex, sizeof hex), 0);
	CHECK_STR(hex, "none");
	CHECK_EQ(iw_vectors_hash("/nonexistent/iwspec", hex, sizeof hex), 0);
	CHECK_STR(hex, "none");
	char p[256];
	snprintf(p, sizeof p, "%s/b.json", dir);
	put_file(p, "{\"b\":2}\n");
	snprintf(p, sizeof p, "%s/a.json", dir);
	put_file(p, "{\"a\":1}\n");
	snprintf(p, sizeof p, "%s/notes.txt", dir);
	put_file(p, "not part of the set");
	CHECK_EQ(iw_vectors_hash(dir, hex, sizeof hex), 2);
	/* What `LC_ALL=C sha256sum *.json | sha256sum` computes. */
	char ha[65], hb[65], lines[256], want[65];
	sha_hex("{\"a\":1}\n", 8, ha);
	sha_hex("{\"b\":2}\n", 8, hb);
	snprintf(lines, sizeof lines, "%s  a.json\n%s  b.json\n", ha, hb);
	sha_hex(lines, strlen(lines), want);
	CHECK_STR(hex, want);
	/* Any change to a vector changes the hash. */
	snprintf(p, sizeof p, "%s/b.json", dir);
	put_file(p, "{\"b\":3}\n");
	char hex2[72];
	iw_vectors_hash(dir, hex2, sizeof hex2);
	CHECK(strcmp(hex, hex2) != 0);
	rp_rm_rf(dir);
}

TEST(reportcert_provenance_dut_and_command)
{
	iw_dut_config d;
	iw_dut_config_default(&d);
	iw_err e;
	CHECK_EQ(iw_dut_config_set(&d, "disable", "mpa.startup.* : not on this firmware", &e), 0);
	CHECK_EQ(iw_dut_config_set(&d, "map", "0/0/0x02 -> 3/0/0x02 : LLP type 3", &e), 0);
	iw_run *run = calloc(1, sizeof *run);
	if (!run)
		return;
	iw_provenance_dut(run, &d);
	CHECK(strstr(run->dut_settings, "dut = ref") != NULL);
	CHECK(strstr(run->dut_settings, "profile = ") != NULL);
	CHECK(strstr(run->dut_settings, "reflector = yes") != NULL);
	CHECK_EQ(run->ndisabled, 1);
	CHECK(strstr(run->disabled[0], "mpa.startup.*") && strstr(run->disabled[0], "not on this firmware"));
	CHECK_EQ(run->nmaps, 1);
	CHECK(strstr(run->maps[0], "0/0/0x02 -> 3/0/0x02") != NULL);
	char *argv[] = {"run", "--dut", "exec:./dut --port {port}", "--html", NULL};
	iw_provenance_command(run, 4, argv);
	CHECK_STR(run->command, "iwspec run --dut 'exec:./dut --port {port}' --html");
	free(run);
}
