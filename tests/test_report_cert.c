/*
 * test_report_cert.c - the certification report (issue 8): the requirements catalog table,
 * report.html, per-case pcaps, provenance (the vector-set hash), baselines, the failure's
 * wire entry and field, the TCP capture, and interruption (flag, runner, reports marked
 * incomplete).
 *
 * The files are read back the way their users read them: pcaps through libpcap, JSON through
 * jansson, HTML by looking for what a browser would fetch or run.
 */
#include "check.h"

#include <dirent.h>
#include <jansson.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baseline.h"
#include "case.h"
#include "dut_config.h"
#include "interrupt.h"
#include "iw_conn.h"
#include "provenance.h"
#include "report.h"
#include "req_catalog.h"
#include "result.h"
#include "runner.h"
#include "sha256.h"

/* ---- scratch ---------------------------------------------------------------------- */

static char *scratch(void)
{
	static char tmpl[64];
	snprintf(tmpl, sizeof tmpl, "/tmp/iwspec-cert-XXXXXX");
	return mkdtemp(tmpl);
}

static void rm_rf(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		if (d) {
			struct dirent *de;
			while ((de = readdir(d))) {
				if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
					continue;
				char sub[1024];
				snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
				rm_rf(sub);
			}
			closedir(d);
		}
		rmdir(path);
	} else {
		unlink(path);
	}
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	if (b)
		b[n] = '\0';
	fclose(f);
	return b;
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static bool has_tmp_leftover(const char *dir)
{
	DIR *d = opendir(dir);
	bool found = false;
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strstr(de->d_name, ".tmp"))
			found = true;
	if (d)
		closedir(d);
	return found;
}

/* ---- a run to report on ------------------------------------------------------------ */

static iw_case_result *add(iw_run *run, const char *id, enum iw_verdict v, const char *reason)
{
	iw_case_result *r = iw_run_add(run);
	if (!r)
		return NULL;
	snprintf(r->id, sizeof r->id, "%s", id);
	snprintf(r->title, sizeof r->title, "title of %s", id);
	snprintf(r->file, sizeof r->file, "cases/%s.iwt", id);
	snprintf(r->profile, sizeof r->profile, "rfc5044");
	snprintf(r->dut_role, sizeof r->dut_role, "responder");
	r->nreqs = 1;
	snprintf(r->reqs[0].id, sizeof r->reqs[0].id, "MPA-6.1.1-06");
	r->reqs[0].level = IW_LEVEL_MUST;
	r->verdict = v;
	snprintf(r->reason, sizeof r->reason, "%s", reason);
	r->start_unix_ms = 1714566896789LL;
	r->duration_ms = 3;
	return r;
}

static const uint8_t REPLY[20] = {'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'p', ' ', 'F', 'r', 'a', 'm', 'e',
				  0x40, 0x02, 0x00, 0x00};
static const uint8_t REQUEST[20] = {'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'q', ' ', 'F', 'r', 'a', 'm', 'e',
				    0x40, 0x01, 0x00, 0x00};

static void make_run(iw_run *run)
{
	memset(run, 0, sizeof *run);
	snprintf(run->tool_version, sizeof run->tool_version, "0.1.0");
	snprintf(run->git_rev, sizeof run->git_rev, "abc1234");
	snprintf(run->dut, sizeof run->dut, "ref");
	snprintf(run->profile, sizeof run->profile, "rfc5044");
	snprintf(run->role, sizeof run->role, "per case");
	snprintf(run->host, sizeof run->host, "lab-7");
	snprintf(run->seg_mode, sizeof run->seg_mode, "none");
	snprintf(run->vectors_sha256, sizeof run->vectors_sha256, "none");
	snprintf(run->dut_settings, sizeof run->dut_settings, "dut = ref\nmarkers = yes");
	snprintf(run->disabled[run->ndisabled++], sizeof run->disabled[0], "mpa.x.* : firmware 2 lacks it");
	snprintf(run->maps[run->nmaps++], sizeof run->maps[0], "0/0/0x02 -> 3/0/0x02 : LLP type 3");
	run->seed = 7;
	run->start_unix_ms = 1714566896000LL;
	run->end_unix_ms = 1714566898500LL;
	run->complete = true;
	add(run, "mpa.startup.resp.happy-path", IW_PASS, "");
	iw_case_result *f = add(run, "mpa.startup.resp.rev", IW_FAIL,
				"the DUT's Reply is not one a conforming responder sends: Rev 2, profile rfc5044 accepts 1..1 "
				"(seen: key=Rep M=0 C=1 R=0 Res=0x00 Rev=2 PD_Length=0)");
	if (f) {
		iw_result_wire(f, IW_NOTE, 1, 10, "connect", NULL, 0, "connection 1 opened to the DUT");
		iw_result_wire(f, IW_TO_DUT, 1, 20, "request", REQUEST, sizeof REQUEST, "Request key=Req M=0 C=1 Rev=1");
		iw_result_wire(f, IW_FROM_DUT, 1, 30, "reply", REPLY, sizeof REPLY,
			       "Reply key=Rep M=0 C=1 R=0 Res=0x00 Rev=2 PD_Length=0 (20 octets)");
		iw_result_wire(f, IW_NOTE, 1, 40, "note", NULL, 0, "a note after the failure");
		snprintf(f->failed_req, sizeof f->failed_req, "MPA-6.1.1-06");
		iw_result_blame(f, "MPA-6.1.1-06");
		iw_result_tcp(f, IW_TCP_DATA, IW_TO_DUT, 1, 20, REQUEST, sizeof REQUEST);
		iw_result_tcp(f, IW_TCP_DATA, IW_FROM_DUT, 1, 30, REPLY, sizeof REPLY);
		snprintf(f->expected, sizeof f->expected, "14: expect reply r=0\n15: expect silence for=1000ms");
	}
	add(run, "mpa.x.disabled", IW_SKIP, "disabled by the DUT configuration: firmware 2 lacks it");
}

/* ---- the catalog ------------------------------------------------------------------ */

TEST(reportcert_catalog_table)
{
	/* requirements.md Appendix A counts 304 distinct rows in §1. */
	CHECK_EQ(iw_req_catalog_n, 304);
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

TEST(reportcert_vectors_hash)
{
	char *dir = scratch();
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
	rm_rf(dir);
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

/* ---- what a failure points at ------------------------------------------------------ */

TEST(reportcert_blame_entry_and_field)
{
	iw_case_result *r = calloc(1, sizeof *r);
	if (!r)
		return;
	iw_result_wire(r, IW_TO_DUT, 1, 1, "request", REQUEST, 20, "Request key=Req M=1 C=1 R=0 Res=0x00 Rev=1");
	iw_result_wire(r, IW_FROM_DUT, 1, 2, "reply", REPLY, 20, "Reply key=Rep M=0 C=1 R=0 Res=0x00 Rev=2 PD_Length=0");
	iw_result_wire(r, IW_NOTE, 1, 3, "note", NULL, 0, "full operation");
	/* The harness's pattern wording names the key; the "(seen: ...)" echo does not count. */
	snprintf(r->reason, sizeof r->reason, "Reply: m=1 expected, 0 seen (seen: key=Rep M=0 C=1 Rev=2)");
	iw_result_blame(r, "MPA-6.1.1-M1");
	CHECK_EQ(r->fail_wire, 2);
	CHECK_STR(r->fail_field, "M");
	snprintf(r->reason, sizeof r->reason, "the DUT's Reply is not one a conforming responder sends: Rev 2, profile "
					     "rfc5044 accepts 1..1 (seen: key=Rep M=0 Rev=2)");
	iw_result_blame(r, NULL);
	CHECK_STR(r->fail_field, "Rev");
	/* Nothing in the reason: the requirement says which field. */
	snprintf(r->reason, sizeof r->reason, "the DUT's FPDU at 0 has non-zero pad octets");
	iw_result_blame(r, "MPA-4-02");
	CHECK_STR(r->fail_field, "PAD");
	iw_result_blame(r, "MPA-9.9-99");
	CHECK_STR(r->fail_field, "");
	CHECK_EQ(r->fail_wire, 2);
	CHECK_STR(iw_blame_field_for_req("DDP-6.3-11"), "MSN");
	CHECK(iw_blame_field_for_req(NULL) == NULL);
	iw_result_clear_wire(r);
	/* Only notes, or nothing: no entry to point at. */
	iw_result_wire(r, IW_NOTE, 1, 3, "note", NULL, 0, "a note");
	iw_result_blame(r, NULL);
	CHECK_EQ(r->fail_wire, 0);
	iw_result_clear_wire(r);
	free(r);
}

/* ---- the expectations in words ----------------------------------------------------- */

TEST(reportcert_expected_text)
{
	static const char text[] = "id: t.expected\n"
				   "title: t\n"
				   "requirement: MPA-6.1-R5 MUST\n"
				   "role: responder\n"
				   "\n"
				   "connect\n"
				   "send request key_octet=3\n"
				   "expect reply r=0 rev=*\n"
				   "expect one-of\n"
				   "  - close\n"
				   "  - terminate layer=llp etype=0 ecode=2 ; close\n"
				   "end\n"
				   "expect silence for=1500ms\n";
	iw_case *c = NULL;
	iw_err e;
	int rc = iw_case_parse(text, sizeof text - 1, "t.iwt", &c, &e);
	CHECK_EQ(rc, IW_OK);
	if (rc != IW_OK) {
		fprintf(stderr, "  %s\n", e.msg);
		return;
	}
	iw_case_result *r = calloc(1, sizeof *r);
	if (r) {
		iw_result_set_expected(r, c);
		CHECK(strstr(r->expected, "8: expect reply r=0 rev=*\n") != NULL);
		CHECK(strstr(r->expected, "9: expect one-of\n") != NULL);
		CHECK(strstr(r->expected, "      - close\n") != NULL);
		CHECK(strstr(r->expected, "      - terminate layer=llp etype=0 ecode=2 ; close\n    end\n") != NULL);
		CHECK(strstr(r->expected, "13: expect silence for=1500ms") != NULL);
		/* Actions are not expectations. */
		CHECK(strstr(r->expected, "send request") == NULL);
		free(r);
	}
	iw_case_free(c);
}

/* ---- the TCP capture --------------------------------------------------------------- */

TEST(reportcert_tcp_capture)
{
	iw_case_result *r = calloc(1, sizeof *r);
	if (!r)
		return;
	/* The wire log's connect, fin and rst events are connection events of the capture too. */
	iw_result_wire(r, IW_NOTE, 1, 1, "connect", NULL, 0, "connection 1 opened");
	iw_result_tcp(r, IW_TCP_DATA, IW_TO_DUT, 1, 2, REQUEST, 20);
	iw_result_tcp(r, IW_TCP_DATA, IW_TO_DUT, 1, 2, NULL, 0); /* nothing: not kept */
	iw_result_wire(r, IW_FROM_DUT, 1, 3, "fin", NULL, 0, "DUT closed");
	iw_result_wire(r, IW_NOTE, 1, 4, "note", NULL, 0, "a note is no TCP event");
	CHECK_EQ(r->ntcp, 3);
	CHECK_EQ(r->tcp_octets, 20);
	if (r->ntcp == 3) {
		CHECK_EQ(r->tcp[0].kind, IW_TCP_OPEN);
		CHECK_EQ(r->tcp[1].kind, IW_TCP_DATA);
		CHECK_MEM(r->tcp[1].bytes, REQUEST, 20);
		CHECK_EQ(r->tcp[2].kind, IW_TCP_FIN);
		CHECK_EQ(r->tcp[2].dir, IW_FROM_DUT);
	}
	/* Past the octet limit the capture stops and says so; the verdict does not depend on it. */
	uint8_t *big = calloc(1, IW_RESULT_MAX_TCP_OCTETS);
	if (big) {
		iw_result_tcp(r, IW_TCP_DATA, IW_FROM_DUT, 1, 5, big, IW_RESULT_MAX_TCP_OCTETS);
		CHECK(r->tcp_cut);
		CHECK_EQ(r->tcp_octets, 20);
		free(big);
	}
	iw_result_clear_wire(r);
	CHECK_EQ(r->ntcp, 0);
	CHECK(r->tcp == NULL && !r->tcp_cut);
	free(r);
}

/* ---- per-case pcap ----------------------------------------------------------------- */

typedef struct pcap_read {
	int packets, syns;
	uint8_t c2s[256], s2c[256];     /* payload octets by direction (client = SYN sender) */
	size_t nc2s, ns2c;
	uint8_t client_ip_last;         /* last octet of the SYN sender's address */
	uint16_t ports[8];
	int nports;
} pcap_read;

static void read_pcap(const char *path, pcap_read *pr)
{
	memset(pr, 0, sizeof *pr);
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline(path, err);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_EQ(pcap_datalink(p), DLT_EN10MB);
	struct pcap_pkthdr *h;
	const u_char *d;
	uint32_t client_ip = 0;
	while (pcap_next_ex(p, &h, &d) == 1) {
		pr->packets++;
		if (h->caplen < 54)
			continue;
		const u_char *ip = d + 14, *tcp = ip + (ip[0] & 15) * 4;
		size_t iplen = (size_t)ip[2] << 8 | ip[3];
		size_t thl = (size_t)(tcp[12] >> 4) * 4;
		size_t plen = iplen - (size_t)(ip[0] & 15) * 4 - thl;
		uint32_t src = (uint32_t)ip[12] << 24 | (uint32_t)ip[13] << 16 | (uint32_t)ip[14] << 8 | ip[15];
		if ((tcp[13] & 0x12) == 0x02) {
			pr->syns++;
			client_ip = src;
			pr->client_ip_last = ip[15];
			if (pr->nports < 8)
				pr->ports[pr->nports++] = (uint16_t)(tcp[0] << 8 | tcp[1]);
		}
		const u_char *pl = tcp + thl;
		for (size_t i = 0; i < plen; i++) {
			if (src == client_ip && pr->nc2s < sizeof pr->c2s)
				pr->c2s[pr->nc2s++] = pl[i];
			else if (src != client_ip && pr->ns2c < sizeof pr->s2c)
				pr->s2c[pr->ns2c++] = pl[i];
		}
	}
	pcap_close(p);
}

TEST(reportcert_pcap_per_case)
{
	char *dir = scratch();
	if (!dir)
		return;
	iw_case_result *r = calloc(1, sizeof *r);
	if (!r)
		return;
	snprintf(r->id, sizeof r->id, "mpa.startup.resp.x");
	snprintf(r->dut_role, sizeof r->dut_role, "responder");
	r->start_unix_ms = 1714566896789LL;
	iw_result_tcp(r, IW_TCP_OPEN, IW_TO_DUT, 1, 10, NULL, 0);
	iw_result_tcp(r, IW_TCP_DATA, IW_TO_DUT, 1, 20, REQUEST, 10); /* the harness's writes as they were */
	iw_result_tcp(r, IW_TCP_DATA, IW_TO_DUT, 1, 21, REQUEST + 10, 10);
	iw_result_tcp(r, IW_TCP_DATA, IW_FROM_DUT, 1, 30, REPLY, 20);
	iw_result_tcp(r, IW_TCP_FIN, IW_FROM_DUT, 1, 40, NULL, 0);
	/* The liveness probe reuses a connection number: a second TCP connection. */
	iw_result_tcp(r, IW_TCP_OPEN, IW_TO_DUT, 1, 50, NULL, 0);
	iw_result_tcp(r, IW_TCP_DATA, IW_TO_DUT, 1, 60, (const uint8_t *)"abcd", 4);
	char path[512];
	snprintf(path, sizeof path, "%s/x.pcap", dir);
	iw_err e;
	CHECK_EQ(iw_report_pcap_case(r, path, &e), 0);
	pcap_read pr;
	read_pcap(path, &pr);
	CHECK_EQ(pr.syns, 2);
	CHECK_EQ(pr.client_ip_last, 1);     /* the harness (10.0.0.1) connected */
	CHECK_EQ(pr.nc2s, 24);
	CHECK_MEM(pr.c2s, REQUEST, 20);
	CHECK_MEM(pr.c2s + 20, "abcd", 4);
	CHECK_EQ(pr.ns2c, 20);
	CHECK_MEM(pr.s2c, REPLY, 20);
	CHECK(pr.nports == 2 && pr.ports[0] != pr.ports[1]);
	/* Two data segments for the two writes, each connection's handshake, FINs. */
	CHECK(pr.packets >= 12);

	/* A DUT initiator opened the connections: the DUT (10.0.0.2) sends the SYN. */
	snprintf(r->dut_role, sizeof r->dut_role, "initiator");
	CHECK_EQ(iw_report_pcap_case(r, path, &e), 0);
	read_pcap(path, &pr);
	CHECK_EQ(pr.client_ip_last, 2);
	CHECK_EQ(pr.ns2c, 24); /* the harness's octets now flow server to client */
	iw_result_clear_wire(r);
	free(r);

	/* The run's writer: one file per case that opened a connection, named by the case. */
	iw_run *run = calloc(1, sizeof *run);
	if (run) {
		make_run(run);
		char pdir[200];
		snprintf(pdir, sizeof pdir, "%s/pcap", dir);
		CHECK_EQ(iw_report_pcaps(run, pdir, &e), 1);
		snprintf(path, sizeof path, "%s/mpa.startup.resp.rev.pcap", pdir);
		read_pcap(path, &pr);
		CHECK_EQ(pr.syns, 1);
		CHECK_EQ(pr.nc2s, 20);
		CHECK(!has_tmp_leftover(pdir));
		/* Several profiles: the profile joins the name. */
		snprintf(run->profile, sizeof run->profile, "all");
		char slug[160];
		CHECK_STR(iw_report_case_slug(run, &run->cases[1], slug, sizeof slug), "mpa.startup.resp.rev@rfc5044");
		snprintf(run->cases[0].id, sizeof run->cases[0].id, "../e<vil>/x");
		CHECK_STR(iw_report_case_slug(run, &run->cases[0], slug, sizeof slug), "_._e_vil__x@rfc5044");
		iw_run_free(run);
		free(run);
	}
	rm_rf(dir);
}

/* ---- report.html ------------------------------------------------------------------- */

static bool contains(const char *hay, const char *needle) { return hay && strstr(hay, needle) != NULL; }

TEST(reportcert_html_sections_and_blame)
{
	char *dir = scratch();
	iw_run *run = calloc(1, sizeof *run);
	if (!dir || !run)
		return;
	make_run(run);
	char path[256];
	snprintf(path, sizeof path, "%s/report.html", dir);
	iw_html_opts o = {.pcap_links = true};
	iw_err e;
	CHECK_EQ(iw_report_html(run, &o, path, &e), 0);
	char *h = slurp(path);
	CHECK(h != NULL);
	CHECK(contains(h, "<!DOCTYPE html>"));
	CHECK(contains(h, "default-src 'none'"));
	for (const char *const *id = (const char *const[]){"id=\"summary\"", "id=\"provenance\"", "id=\"coverage\"",
							    "id=\"cases\"", "id=\"case-mpa.startup.resp.rev\"", NULL};
	     *id; id++)
		CHECK(contains(h, *id));
	CHECK(!contains(h, "id=\"incomplete\""));
	CHECK(!contains(h, "id=\"baseline\""));
	/* Self-contained: nothing a browser would fetch. */
	CHECK(!contains(h, "http://") && !contains(h, "https://") && !contains(h, "src=") && !contains(h, "<script") &&
	      !contains(h, "url("));
	/* Provenance. */
	CHECK(contains(h, "iwspec 0.1.0, commit abc1234"));
	CHECK(contains(h, "lab-7") && contains(h, "dut = ref") && contains(h, "markers = yes"));
	CHECK(contains(h, "disable = mpa.x.* : firmware 2 lacks it"));
	CHECK(contains(h, "map = 0/0/0x02 -&gt; 3/0/0x02 : LLP type 3"));
	CHECK(contains(h, "applied to: <a href=\"#case-mpa.x.disabled\">"));
	CHECK(contains(h, "requirements.md sha256"));
	/* The coverage table cites the case, with the catalog's words. */
	CHECK(contains(h, "<tr id=\"req-MPA-6.1.1-06\">"));
	CHECK(contains(h, "<tr id=\"req-MPA-6.1-R5\">"));
	CHECK(contains(h, "not yet written") || contains(h, "needs control of TCP"));
	/* The failure: its requirement's text, the expectation, the blamed entry and field, the pcap. */
	CHECK(contains(h, "<tr class=\"req-failed\"><td class=\"mono\">MPA-6.1.1-06</td>"));
	CHECK(contains(h, "14: expect reply r=0"));
	CHECK(contains(h, "<tr class=\"blame\" id=\"case-mpa.startup.resp.rev-blame\">"));
	CHECK(contains(h, "<mark>Rev=2</mark>"));
	CHECK(contains(h, "Rev: octets 17..17"));
	CHECK(contains(h, "<mark>02</mark>"));
	CHECK(contains(h, "<a href=\"pcap/mpa.startup.resp.rev.pcap\">"));
	/* Only the failing case has a blamed row. */
	int nblame = 0;
	for (const char *q = h; q && (q = strstr(q, "class=\"blame\"")); q++)
		nblame++;
	CHECK_EQ(nblame, 1);
	free(h);

	/* Interrupted, with a baseline: the banner and the differences. */
	run->complete = false;
	run->stop_signal = SIGINT;
	char *diffs[] = {"mpa.startup.resp.rev: expected PASS, got FAIL <b>"};
	iw_html_opts o2 = {.pcap_links = false, .baseline = "ci/base.txt", .ndiffs = 1, .diffs = diffs};
	CHECK_EQ(iw_report_html(run, &o2, path, &e), 0);
	h = slurp(path);
	CHECK(contains(h, "<div id=\"incomplete\" class=\"banner\">INCOMPLETE: the run was interrupted by SIGINT"));
	CHECK(contains(h, "(INCOMPLETE)</title>"));
	CHECK(contains(h, "id=\"baseline\""));
	CHECK(contains(h, "got FAIL &lt;b&gt;"));
	CHECK(contains(h, "not written (run with --pcap)"));
	CHECK(!has_tmp_leftover(dir));
	free(h);
	iw_run_free(run);
	free(run);
	rm_rf(dir);
}

TEST(reportcert_html_hostile_text)
{
	char *dir = scratch();
	iw_run *run = calloc(1, sizeof *run);
	if (!dir || !run)
		return;
	make_run(run);
	iw_case_result *r = add(run, "evil.<script>", IW_FAIL,
				"<script>alert(1)</script> <img src=\"http://evil/x\"> \x1b[2J \xff\xfe \"q\" 'a' & done");
	if (r) {
		snprintf(r->failed_req, sizeof r->failed_req, "MPA-6.1.1-06");
		iw_result_wire(r, IW_FROM_DUT, 1, 5, "raw<", (const uint8_t *)"<>", 2, "Rev=<b>2</b> onload=\"x\"");
		iw_result_blame(r, "MPA-6.1.1-06");
		snprintf(r->dut_finding_text, sizeof r->dut_finding_text, "stderr: </pre><iframe src=https://x>");
		r->dut_finding = true;
	}
	snprintf(run->dut, sizeof run->dut, "exec:./dut \"<x>\"");
	char path[256];
	snprintf(path, sizeof path, "%s/report.html", dir);
	iw_err e;
	CHECK_EQ(iw_report_html(run, NULL, path, &e), 0);
	char *h = slurp(path);
	CHECK(h != NULL);
	CHECK(!contains(h, "<script"));
	CHECK(!contains(h, "<img"));
	CHECK(!contains(h, "<iframe"));
	CHECK(!contains(h, "Rev=<b>"));
	CHECK(!contains(h, "\x1b"));
	CHECK(contains(h, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	CHECK(contains(h, "\\x1B[2J") || contains(h, "\\x1b[2J"));
	CHECK(contains(h, "\xef\xbf\xbd")); /* invalid UTF-8 shown as U+FFFD */
	CHECK(contains(h, "&quot;q&quot;"));
	/* The DUT's text still shows, escaped, highlighted where the failure points. */
	CHECK(contains(h, "<mark>Rev=&lt;b&gt;2&lt;/b&gt;</mark>"));
	CHECK(contains(h, "id=\"case-evil._script_\""));
	free(h);
	iw_run_free(run);
	free(run);
	rm_rf(dir);
}

/* ---- results.json and junit.xml carry the provenance and the incompleteness --------- */

TEST(reportcert_json_junit_provenance)
{
	char *dir = scratch();
	iw_run *run = calloc(1, sizeof *run);
	if (!dir || !run)
		return;
	make_run(run);
	run->complete = false;
	run->stop_signal = SIGTERM;
	snprintf(run->command, sizeof run->command, "iwspec run --html");
	char path[256];
	snprintf(path, sizeof path, "%s/results.json", dir);
	iw_err e;
	CHECK_EQ(iw_report_json(run, path, &e), 0);
	json_t *root = json_load_file(path, 0, NULL);
	CHECK(root != NULL);
	if (root) {
		json_t *jr = json_object_get(root, "run");
		CHECK(json_is_false(json_object_get(jr, "complete")));
		CHECK_STR(json_string_value(json_object_get(jr, "interrupted_by")), "SIGTERM");
		CHECK_STR(json_string_value(json_object_get(jr, "command")), "iwspec run --html");
		CHECK_STR(json_string_value(json_object_get(json_object_get(jr, "vectors"), "sha256")), "none");
		CHECK_EQ(json_array_size(json_object_get(jr, "disabled")), 1);
		CHECK_EQ(json_array_size(json_object_get(jr, "maps")), 1);
		CHECK(strstr(json_string_value(json_object_get(jr, "requirements_catalog")), "sha256") != NULL);
		json_t *c = json_array_get(json_object_get(root, "cases"), 1);
		CHECK_EQ(json_integer_value(json_object_get(c, "failed_wire")), 2);
		CHECK_STR(json_string_value(json_object_get(c, "failed_field")), "Rev");
		CHECK_STR(json_string_value(json_object_get(c, "dut_role")), "responder");
		CHECK_EQ(json_integer_value(json_object_get(json_object_get(c, "capture"), "octets")), 40);
		CHECK(json_is_null(json_object_get(json_array_get(json_object_get(root, "cases"), 0), "failed_wire")));
		json_decref(root);
	}
	snprintf(path, sizeof path, "%s/junit.xml", dir);
	CHECK_EQ(iw_report_junit(run, path, &e), 0);
	char *x = slurp(path);
	CHECK(contains(x, "name=\"run-complete\""));
	CHECK(contains(x, "type=\"INCOMPLETE\""));
	CHECK(contains(x, "interrupted by SIGTERM after 3 cases"));
	CHECK(contains(x, "<property name=\"complete\" value=\"false\"/>"));
	CHECK(contains(x, "<property name=\"interrupted_by\" value=\"SIGTERM\"/>"));
	CHECK(contains(x, "tests=\"4\"") && contains(x, "errors=\"1\""));
	free(x);
	iw_run_free(run);
	free(run);
	rm_rf(dir);
}

/* ---- baselines --------------------------------------------------------------------- */

static size_t compare(iw_baseline *b, const iw_run *run, char ***d)
{
	size_t n = iw_baseline_compare(b, run, d);
	return n;
}

static bool any_diff(char **d, size_t n, const char *needle)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(d[i], needle))
			return true;
	return false;
}

TEST(reportcert_baseline_parse)
{
	iw_baseline b;
	iw_err e;
	static const char ok[] = "# comment\n\n"
				 "  mpa.a PASS\n"
				 "mpa.b FAIL : [MPA-6.1.1-06] known: firmware 2.3 answers Rev=2\r\n"
				 "mpa.b@rfc6581 SKIP : no such profile here\n"
				 "mpa.c WARN:plain note\n"
				 /* an empty reason at the very end of the text (a fuzz finding) */
				 "mpa.d INFO:";
	CHECK_EQ(iw_baseline_parse(&b, ok, sizeof ok - 1, "base.txt", &e), IW_OK);
	CHECK_EQ(b.n, 5);
	if (b.n == 5) {
		CHECK_STR(b.e[0].id, "mpa.a");
		CHECK_EQ(b.e[0].verdict, IW_PASS);
		CHECK_STR(b.e[1].req, "MPA-6.1.1-06");
		CHECK_STR(b.e[1].note, "[MPA-6.1.1-06] known: firmware 2.3 answers Rev=2");
		CHECK_STR(b.e[2].profile, "rfc6581");
		CHECK_EQ(b.e[2].line, 5);
		CHECK_STR(b.e[3].note, "plain note");
		CHECK_STR(b.e[3].req, "");
		CHECK_EQ(b.e[4].verdict, IW_INFO);
		CHECK_STR(b.e[4].note, "");
	}
	iw_baseline_free(&b);
	static const struct { const char *text, *msg; } bad[] = {
		{"mpa.a\n", "base.txt:1: 'mpa.a' has no verdict"},
		{"mpa.a pass\n", "base.txt:1: unknown verdict 'pass'"},
		{"mpa.a PASS\nmpa.a FAIL\n", "base.txt:2: mpa.a is already listed on line 1"},
		{"mpa.a PASS extra\n", "base.txt:1: expected ': reason'"},
		{"mpa.a FAIL : [MPA-6.1\n", "base.txt:1: a pinned requirement is written [REQ-ID]"},
		{"mpa.a@ PASS\n", "base.txt:1: bad profile"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(&e, 0, sizeof e);
		CHECK_EQ(iw_baseline_parse(&b, bad[i].text, strlen(bad[i].text), "base.txt", &e), IW_EINVAL);
		if (!strstr(e.msg, bad[i].msg))
			check_fail(__FILE__, __LINE__, "baseline error '%s' lacks '%s'", e.msg, bad[i].msg);
		CHECK(b.e == NULL && b.n == 0);
	}
	CHECK(iw_baseline_load(&b, "/nonexistent/base.txt", &e) != IW_OK);
	CHECK(strstr(e.msg, "cannot open the baseline") != NULL);
}

TEST(reportcert_baseline_compare_both_ways)
{
	iw_run *run = calloc(1, sizeof *run);
	if (!run)
		return;
	make_run(run);
	snprintf(run->cases[1].failed_req, sizeof run->cases[1].failed_req, "MPA-6.1.1-06");
	iw_baseline b;
	iw_err e;
	char **d = NULL;
	/* As the run: no difference. */
	static const char same[] = "mpa.startup.resp.happy-path PASS\n"
				   "mpa.startup.resp.rev FAIL : [MPA-6.1.1-06] known\n"
				   "mpa.x.disabled SKIP : firmware\n";
	CHECK_EQ(iw_baseline_parse(&b, same, sizeof same - 1, "b", &e), IW_OK);
	CHECK_EQ(compare(&b, run, &d), 0);
	iw_baseline_diffs_free(d, 0);
	iw_baseline_free(&b);
	/* A known failure that now passes is a difference too. */
	run->cases[1].verdict = IW_PASS;
	CHECK_EQ(iw_baseline_parse(&b, same, sizeof same - 1, "b", &e), IW_OK);
	size_t n = compare(&b, run, &d);
	CHECK_EQ(n, 1);
	CHECK(any_diff(d, n, "mpa.startup.resp.rev: expected FAIL (b line 2), got PASS"));
	CHECK(any_diff(d, n, "no longer fails"));
	iw_baseline_diffs_free(d, n);
	iw_baseline_free(&b);
	run->cases[1].verdict = IW_FAIL;
	/* The same failure on another requirement. */
	static const char other[] = "mpa.startup.resp.happy-path PASS\n"
				    "mpa.startup.resp.rev FAIL : [MPA-6.1-R5] known\n"
				    "mpa.x.disabled SKIP\n";
	CHECK_EQ(iw_baseline_parse(&b, other, sizeof other - 1, "b", &e), IW_OK);
	n = compare(&b, run, &d);
	CHECK_EQ(n, 1);
	CHECK(any_diff(d, n, "expected FAIL on [MPA-6.1-R5] (b line 2), got FAIL on [MPA-6.1.1-06]"));
	iw_baseline_diffs_free(d, n);
	iw_baseline_free(&b);
	/* A regression, a case missing from the baseline, a listed case that did not run. */
	static const char reg[] = "mpa.startup.resp.rev PASS\n"
				  "mpa.x.disabled SKIP\n"
				  "mpa.gone PASS\n";
	CHECK_EQ(iw_baseline_parse(&b, reg, sizeof reg - 1, "b", &e), IW_OK);
	n = compare(&b, run, &d);
	CHECK_EQ(n, 3);
	CHECK(any_diff(d, n, "mpa.startup.resp.rev: expected PASS (b line 1), got FAIL (a regression)"));
	CHECK(any_diff(d, n, "mpa.startup.resp.happy-path: got PASS, which the baseline does not list"));
	CHECK(any_diff(d, n, "mpa.gone: expected PASS (b line 3), but the case did not run"));
	iw_baseline_diffs_free(d, n);
	/* An interrupted run did not reach its later cases: not a difference of its own. */
	run->complete = false;
	n = compare(&b, run, &d);
	CHECK_EQ(n, 2);
	CHECK(!any_diff(d, n, "mpa.gone"));
	iw_baseline_diffs_free(d, n);
	iw_baseline_free(&b);
	run->complete = true;
	/* @PROFILE wins over the plain entry; an entry for another profile is not a difference. */
	static const char prof[] = "mpa.startup.resp.happy-path PASS\n"
				   "mpa.startup.resp.rev PASS\n"
				   "mpa.startup.resp.rev@rfc5044 FAIL\n"
				   "mpa.startup.resp.rev@rfc6581 PASS\n"
				   "mpa.x.disabled SKIP\n";
	CHECK_EQ(iw_baseline_parse(&b, prof, sizeof prof - 1, "b", &e), IW_OK);
	n = compare(&b, run, &d);
	CHECK_EQ(n, 0);
	iw_baseline_diffs_free(d, n);
	iw_baseline_free(&b);
	/* VERDICT|VERDICT: a race in the DUT shows on some runs only; either verdict matches, any
	 * other is a difference that names both. */
	static const char alt[] = "mpa.startup.resp.happy-path PASS\n"
				  "mpa.startup.resp.rev FAIL|PASS : F3 a race\n"
				  "mpa.x.disabled SKIP\n";
	CHECK_EQ(iw_baseline_parse(&b, alt, sizeof alt - 1, "b", &e), IW_OK);
	CHECK_EQ(b.e[1].verdict, IW_FAIL);
	CHECK_EQ(compare(&b, run, &d), 0);
	iw_baseline_diffs_free(d, 0);
	run->cases[1].verdict = IW_PASS;
	CHECK_EQ(compare(&b, run, &d), 0);
	iw_baseline_diffs_free(d, 0);
	run->cases[1].verdict = IW_ERROR;
	n = compare(&b, run, &d);
	CHECK_EQ(n, 1);
	CHECK(any_diff(d, n, "mpa.startup.resp.rev: expected FAIL|PASS (b line 2), got ERROR"));
	iw_baseline_diffs_free(d, n);
	iw_baseline_free(&b);
	run->cases[1].verdict = IW_FAIL;
	static const char badalt[] = "mpa.a FAIL|pass\n";
	CHECK_EQ(iw_baseline_parse(&b, badalt, sizeof badalt - 1, "b", &e), IW_EINVAL);
	CHECK(strstr(e.msg, "b:1: unknown verdict 'pass'") != NULL);
	iw_run_free(run);
	free(run);
}

TEST(reportcert_baseline_write_reads_back)
{
	char *dir = scratch();
	iw_run *run = calloc(1, sizeof *run);
	if (!dir || !run)
		return;
	make_run(run);
	snprintf(run->cases[1].failed_req, sizeof run->cases[1].failed_req, "MPA-6.1.1-06");
	/* A reason that starts like a pinned requirement, with a line break and an escape. */
	iw_case_result *er = add(run, "mpa.err", IW_ERROR, "[harness] cannot connect\n\x1b[31m");
	(void)er;
	char path[256];
	snprintf(path, sizeof path, "%s/base.txt", dir);
	iw_err e;
	CHECK_EQ(iw_baseline_write(run, path, &e), 0);
	char *t = slurp(path);
	CHECK(contains(t, "mpa.startup.resp.rev FAIL : [MPA-6.1.1-06] the DUT's Reply"));
	CHECK(contains(t, "mpa.startup.resp.happy-path PASS\n"));
	CHECK(contains(t, "mpa.err ERROR : reason: [harness] cannot connect"));
	CHECK(!contains(t, "\x1b"));
	free(t);
	iw_baseline b;
	CHECK_EQ(iw_baseline_load(&b, path, &e), IW_OK);
	char **d = NULL;
	size_t n = iw_baseline_compare(&b, run, &d);
	CHECK_EQ(n, 0);
	iw_baseline_diffs_free(d, n);
	CHECK(b.n == 4 && !strcmp(b.e[3].req, ""));
	iw_baseline_free(&b);
	iw_run_free(run);
	free(run);
	rm_rf(dir);
}

/* ---- interruption ------------------------------------------------------------------ */

TEST(reportcert_interrupt_flag)
{
	iw_interrupt_set(0);
	CHECK(!iw_interrupted());
	iw_interrupt_install();
	raise(SIGTERM); /* handled: only the flag */
	CHECK(iw_interrupted());
	CHECK_EQ(iw_interrupt_signal(), SIGTERM);
	iw_interrupt_set(0);
	iw_interrupt_uninstall();
	CHECK(!iw_interrupted());
}

TEST(reportcert_runner_stops_when_interrupted)
{
	static const char text[] = "id: t.runner.interrupt\n"
				   "title: t\n"
				   "requirement: MPA-6.1-R5 MUST\n"
				   "role: responder\n"
				   "\n"
				   "connect\n"
				   "send request\n"
				   "expect reply r=0\n";
	iw_case *c = NULL;
	iw_err e;
	if (iw_case_parse(text, sizeof text - 1, "t.iwt", &c, &e) != IW_OK) {
		check_fail(__FILE__, __LINE__, "%s", e.msg);
		return;
	}
	iw_run_opts o;
	memset(&o, 0, sizeof o);
	iw_dut_config_default(&o.dut);
	iw_run *run = calloc(1, sizeof *run);
	if (!run) {
		iw_case_free(c);
		return;
	}
	/* The signal came before the first case: nothing runs, the run says it is incomplete. */
	iw_interrupt_set(SIGINT);
	iw_case *const cases[] = {c};
	CHECK_EQ(iw_runner_run(&o, cases, 1, run, &e), IW_OK);
	CHECK_EQ(run->ncases, 0);
	CHECK(!run->complete);
	CHECK_EQ(run->stop_signal, SIGINT);
	iw_run_free(run);
	/* Without one, the case runs and keeps its capture, role and expectations. */
	iw_interrupt_set(0);
	memset(run, 0, sizeof *run);
	CHECK_EQ(iw_runner_run(&o, cases, 1, run, &e), IW_OK);
	CHECK(run->complete);
	CHECK_EQ(run->ncases, 1);
	if (run->ncases == 1) {
		const iw_case_result *r = &run->cases[0];
		CHECK_EQ(r->verdict, IW_PASS);
		CHECK_STR(r->dut_role, "responder");
		CHECK(strstr(r->expected, "8: expect reply r=0") != NULL);
		CHECK(r->ntcp >= 3);
		CHECK_EQ(r->tcp_octets, 40); /* Request and Reply, 20 octets each */
		CHECK(r->ntcp && r->tcp[0].kind == IW_TCP_OPEN);
	}
	iw_run_free(run);
	free(run);
	iw_case_free(c);
}
