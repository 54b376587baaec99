/*
 * test_vectors.c - the test-vector set: generated, written, read back and re-verified;
 * content-stable ids; the seeds' own FPDUs byte for byte; the verdicts of single vectors;
 * --check naming a vector whose expected result was edited; the engine's view of a capture.
 */
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "vec_schema.h"
#include "vectors.h"

static char *tmp_dir(const char *name)
{
	static char buf[4][256];
	static int k;
	char *b = buf[k++ & 3];
	snprintf(b, sizeof buf[0], "/tmp/iwspec-test-vectors-%d-%s", (int)getpid(), name);
	return b;
}

static void rm_rf(const char *dir)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "    could not remove %s\n", dir);
}

static char *slurp(FILE *f)
{
	fflush(f);
	rewind(f);
	char *b = calloc(1, 1 << 20);
	size_t n = fread(b, 1, (1 << 20) - 1, f);
	b[n] = '\0';
	return b;
}

static char shared_set[256];

static void remove_shared_set(void)
{
	rm_rf(shared_set);
}

static const char *set_dir(void)
{
	/* One generated set for the tests that only read it, gone when the process ends (each
	 * worker of run_tests made its own and left it in /tmp). Copied: tmp_dir's buffers are
	 * reused. */
	const char *dir = shared_set;
	if (!shared_set[0]) {
		snprintf(shared_set, sizeof shared_set, "%s", tmp_dir("set"));
		atexit(remove_shared_set);
	}
	if (access(dir, F_OK) != 0) {
		rm_rf(dir);
		iw_vec_set *s;
		iw_err e;
		if (iw_vec_generate(NULL, &s, &e) || iw_vec_write(s, dir, &e))
			fprintf(stderr, "    cannot write the vector set: %s\n", e.msg);
		iw_vec_set_free(s);
	}
	return dir;
}

TEST(vectors_generate_write_and_check)
{
	iw_vec_set *s;
	iw_err e;
	CHECK_EQ(iw_vec_generate(NULL, &s, &e), IW_OK);
	if (!s)
		return;
	size_t total = 0;
	for (size_t i = 0; i < iw_vec_nfiles; i++) {
		CHECK(iw_vec_count(s, i) > 0);
		total += iw_vec_count(s, i);
	}
	CHECK(total > 300);
	CHECK(iw_vec_npcaps(s) >= 10);
	const char *dir = tmp_dir("gen");
	rm_rf(dir);
	CHECK_EQ(iw_vec_write(s, dir, &e), 0);
	iw_vec_set_free(s);
	iw_vec_check_stats st;
	FILE *log = tmpfile();
	CHECK_EQ(iw_vec_check_dir(dir, log, &st, &e), 0);
	CHECK_EQ(st.files, iw_vec_nfiles);
	CHECK_EQ(st.vectors, total);
	CHECK_EQ(st.failed, 0);
	CHECK(st.pcaps >= 10);
	char *text = slurp(log);
	CHECK_STR(text, "");
	free(text);
	fclose(log);

	/* Regenerating writes the same octets: nothing is renumbered. */
	const char *dir2 = tmp_dir("gen2");
	rm_rf(dir2);
	CHECK_EQ(iw_vec_generate(NULL, &s, &e), IW_OK);
	CHECK_EQ(iw_vec_write(s, dir2, &e), 0);
	iw_vec_set_free(s);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "diff -r '%s' '%s' >/dev/null", dir, dir2);
	CHECK_EQ(system(cmd), 0);
	rm_rf(dir);
	rm_rf(dir2);
}

TEST(vectors_one_profile_and_refusals)
{
	iw_vec_set *s;
	iw_err e;
	CHECK_EQ(iw_vec_generate(iw_profile_find("seed-exact"), &s, &e), IW_OK);
	if (s) {
		/* The seed-exact profile holds the seeds' FPDUs (and mutants of them) only. */
		CHECK_EQ(iw_vec_count(s, 1), 2);        /* mpa-fpdu: Figures 5 and 6 */
		CHECK_EQ(iw_vec_count(s, 3), 3);        /* mpa-crc: their mutants */
		CHECK_EQ(iw_vec_count(s, 0), 0);
		CHECK_EQ(iw_vec_npcaps(s), 0);
		iw_vec_set_free(s);
	}
	s = (iw_vec_set *)1;
	CHECK(iw_vec_generate(iw_profile_find("culley-mpa-02"), &s, &e) != IW_OK);
	CHECK(s == NULL);
	CHECK(strstr(e.msg, "culley-mpa-02") != NULL);
}

static json_t *load(const char *dir, const char *file)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);
	CHECK(j != NULL);
	return j;
}

static void save(json_t *j, const char *dir, const char *file)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	CHECK_EQ(json_dump_file(j, path, JSON_INDENT(2)), 0);
}

/* Copies the set so a test can damage it. */
static const char *copy_set(const char *name)
{
	const char *dst = tmp_dir(name);
	rm_rf(dst);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", set_dir(), dst);
	CHECK_EQ(system(cmd), 0);
	return dst;
}

static int check_into(const char *dir, char **log_text)
{
	iw_vec_check_stats st;
	iw_err e;
	FILE *log = tmpfile();
	int rc = iw_vec_check_dir(dir, log, &st, &e);
	*log_text = slurp(log);
	fclose(log);
	return rc;
}

TEST(vectors_check_names_an_edited_expected_result)
{
	const char *dir = copy_set("edit");
	json_t *doc = load(dir, "mpa-crc.json");
	if (!doc)
		return;
	json_t *vs = json_object_get(doc, "vectors");
	json_t *victim = NULL;
	size_t i;
	json_t *v;
	json_array_foreach(vs, i, v)
		if (!strcmp(json_string_value(json_object_get(json_object_get(v, "expected"), "result")), "invalid")) {
			victim = v;
			break;
		}
	CHECK(victim != NULL);
	if (!victim) {
		json_decref(doc);
		return;
	}
	char id[64];
	snprintf(id, sizeof id, "%s", json_string_value(json_object_get(victim, "id")));
	/* The file now claims the receiver accepts what it must reject. */
	json_t *x = json_object_get(victim, "expected");
	json_object_set_new(x, "result", json_string("valid"));
	json_object_del(x, "error");
	save(doc, dir, "mpa-crc.json");
	char *log;
	CHECK_EQ(check_into(dir, &log), 1);
	CHECK(strstr(log, id) != NULL);
	CHECK(strstr(log, "the engine disagrees with the expected result") != NULL);
	CHECK(strstr(log, "FAIL mpa-crc.json") != NULL);
	free(log);

	/* Same error code, another requirement: still a disagreement. */
	json_decref(doc);
	rm_rf(dir);
	dir = copy_set("edit2");
	doc = load(dir, "ddp-placement.json");
	json_array_foreach(json_object_get(doc, "vectors"), i, v) {
		json_t *err = json_object_get(json_object_get(v, "expected"), "error");
		if (err) {
			snprintf(id, sizeof id, "%s", json_string_value(json_object_get(v, "id")));
			json_object_set_new(err, "ecode", json_integer(json_integer_value(json_object_get(err, "ecode")) ^ 1));
			break;
		}
	}
	save(doc, dir, "ddp-placement.json");
	CHECK_EQ(check_into(dir, &log), 1);
	CHECK(strstr(log, id) != NULL);
	free(log);
	json_decref(doc);
	rm_rf(dir);
}

TEST(vectors_check_catches_edited_inputs_ids_and_pcaps)
{
	const char *dir = copy_set("inputs");
	json_t *doc = load(dir, "mpa-fpdu.json");
	if (!doc)
		return;
	/* A description is not content: editing it keeps the vector valid. */
	json_t *v0 = json_array_get(json_object_get(doc, "vectors"), 0);
	json_object_set_new(v0, "description", json_string("reworded"));
	/* A payload octet changed under an unchanged expected result and id. */
	json_t *v1 = json_array_get(json_object_get(doc, "vectors"), 1);
	char id1[64];
	snprintf(id1, sizeof id1, "%s", json_string_value(json_object_get(v1, "id")));
	char *hex = strdup(json_string_value(json_object_get(v1, "hex")));
	size_t hl = strlen(hex);
	hex[hl - 12] = hex[hl - 12] == '0' ? '1' : '0';
	json_object_set_new(v1, "hex", json_string(hex));
	free(hex);
	save(doc, dir, "mpa-fpdu.json");
	json_decref(doc);

	/* A capture removed. */
	doc = load(dir, "conversations.json");
	json_t *c0 = json_array_get(json_object_get(doc, "vectors"), 0);
	char pcap[512], cid[64];
	snprintf(pcap, sizeof pcap, "%s/%s", dir, json_string_value(json_object_get(c0, "pcap")));
	snprintf(cid, sizeof cid, "%s", json_string_value(json_object_get(c0, "id")));
	json_decref(doc);
	CHECK_EQ(unlink(pcap), 0);

	char *log;
	CHECK_EQ(check_into(dir, &log), 1);
	CHECK(strstr(log, id1) != NULL);
	CHECK(strstr(log, cid) != NULL);
	CHECK(strstr(log, "is missing") != NULL);
	/* The reworded vector passed: exactly the two damaged ones are named. */
	size_t fails = 0;
	for (const char *p = log; (p = strstr(p, "FAIL ")); p++)
		fails++;
	CHECK_EQ(fails, 2);
	free(log);

	/* Not a vector directory. */
	iw_vec_check_stats st;
	iw_err e;
	CHECK_EQ(iw_vec_check_dir(tmp_dir("does-not-exist"), stderr, &st, &e), -1);
	CHECK(strstr(e.msg, "cannot open") != NULL);
	rm_rf(dir);
}

/* requirements.md §5.1: the seed's Figure 5, as published. */
static const char fig5[] = "00000000002a4003000000000000000000000001000000000000000000000000000000000000000000000000"
			   "000000004c86b384";

TEST(vectors_seed_examples_byte_for_byte)
{
	json_t *doc = load(set_dir(), "mpa-fpdu.json");
	if (!doc)
		return;
	size_t i, seeds = 0;
	json_t *v;
	bool fig5_found = false;
	json_array_foreach(json_object_get(doc, "vectors"), i, v) {
		json_t *seed = json_object_get(v, "seed");
		if (!seed)
			continue;
		seeds++;
		CHECK_STR(json_string_value(json_object_get(v, "profile")), "seed-exact");
		CHECK_STR(json_string_value(json_object_get(seed, "file")), "003_8b41d5246a5da8f0.txt");
		CHECK_STR(json_string_value(json_object_get(json_object_get(v, "expected"), "result")), "valid");
		if (!strcmp(json_string_value(json_object_get(seed, "figure")), "Figure 5")) {
			fig5_found = true;
			CHECK_STR(json_string_value(json_object_get(v, "hex")), fig5);
			CHECK_EQ(json_integer_value(json_object_get(v, "stream_offset")), 0);
		} else {
			CHECK_EQ(json_integer_value(json_object_get(v, "stream_offset")), 0x1EC);
			const char *h = json_string_value(json_object_get(v, "hex"));
			CHECK(h && strlen(h) == 104 && !strcmp(h + 96, "a19cd103"));
		}
	}
	CHECK_EQ(seeds, 2);
	CHECK(fig5_found);
	json_decref(doc);
}

/* A stream vector built by hand, judged. */
static json_t *stream_vec(const char *profile, const char *hex, bool markers, uint64_t offset)
{
	return json_pack("{s:s, s:s, s:I, s:b, s:b, s:s}", "profile", profile, "kind", "stream", "stream_offset",
			 (json_int_t)offset, "markers", markers, "crc", 1, "hex", hex);
}

static const char *result_of(const json_t *x)
{
	return json_string_value(json_object_get(x, "result"));
}

TEST(vectors_expect_verdicts)
{
	iw_err e;
	json_t *v = stream_vec("seed-exact", fig5, true, 0);
	json_t *x = iw_vec_expect(v, &e);
	CHECK(x != NULL);
	CHECK_STR(result_of(x), "valid");
	CHECK_EQ(json_integer_value(json_object_get(x, "fpdus")), 1);
	json_t *m = json_array_get(json_object_get(x, "messages"), 0);
	CHECK_STR(json_string_value(json_object_get(m, "message")), "Send");
	CHECK_EQ(json_integer_value(json_object_get(m, "length")), 24);
	json_decref(x);
	json_decref(v);

	/* MSN 1 -> 3 without a new CRC: MPA code 2 at offset 0. */
	char bad[sizeof fig5];
	memcpy(bad, fig5, sizeof fig5);
	bad[39] = '3';
	v = stream_vec("seed-exact", bad, true, 0);
	x = iw_vec_expect(v, &e);
	CHECK_STR(result_of(x), "invalid");
	json_t *err = json_object_get(x, "error");
	CHECK_STR(json_string_value(json_object_get(err, "layer")), "LLP");
	CHECK_EQ(json_integer_value(json_object_get(err, "ecode")), 2);
	CHECK_STR(json_string_value(json_object_get(err, "requirement")), "MPA-5.2-14");
	CHECK_EQ(json_array_size(json_object_get(x, "messages")), 0);
	json_decref(x);
	json_decref(v);

	/* Under rfc5044 the seed's RV 0 and DV 0 are both wrong; RDMAP's per-segment checks come
	 * first (as in the connection model): invalid RDMAP version. */
	v = stream_vec("rfc5044", fig5, true, 0);
	x = iw_vec_expect(v, &e);
	err = json_object_get(x, "error");
	CHECK_STR(json_string_value(json_object_get(err, "code")), "RDMAP/0x2/0x05 (invalid RDMAP version)");
	json_decref(x);
	json_decref(v);

	/* Without markers the leading marker reads as ULPDU_Length 0: not valid any more. */
	v = stream_vec("seed-exact", fig5, false, 0);
	x = iw_vec_expect(v, &e);
	CHECK_STR(result_of(x), "invalid");
	json_decref(x);
	json_decref(v);

	/* A startup frame: the rfc5044 Request of requirements.md §5.9 is valid for rfc5044 and a
	 * Rev mismatch for rddp-mpa-01. */
	v = json_pack("{s:s, s:s, s:i, s:b, s:b, s:s, s:s}", "profile", "rfc5044", "kind", "stream", "stream_offset", 0,
		      "markers", 0, "crc", 1, "startup_frame", "request", "hex",
		      "4d504120494420526571204672616d6540010000");
	x = iw_vec_expect(v, &e);
	CHECK_STR(result_of(x), "valid");
	CHECK_EQ(json_integer_value(json_object_get(json_object_get(x, "frame"), "rev")), 1);
	json_decref(x);
	json_object_set_new(v, "profile", json_string("rddp-mpa-01"));
	x = iw_vec_expect(v, &e);
	CHECK_STR(result_of(x), "invalid");
	CHECK_STR(json_string_value(json_object_get(json_object_get(x, "error"), "requirement")), "MPA-6.1.1-07");
	json_decref(x);
	json_decref(v);
}

TEST(vectors_expect_acceptable_positions)
{
	json_t *doc = load(set_dir(), "ddp-placement.json");
	if (!doc)
		return;
	size_t i, a28 = 0, a27 = 0;
	json_t *v;
	json_array_foreach(json_object_get(doc, "vectors"), i, v) {
		json_t *x = json_object_get(v, "expected");
		if (strcmp(result_of(x), "acceptable"))
			continue;
		const char *pos = json_string_value(json_object_get(x, "position"));
		json_t *strict = json_object_get(x, "strict"), *also = json_array_get(json_object_get(x, "also"), 0);
		CHECK(strict && also);
		if (!strcmp(pos, "A28")) {
			a28++;
			/* The alternative is another code of the same error type. */
			json_t *s1 = json_object_get(strict, "error"), *s2 = json_object_get(also, "error");
			CHECK_EQ(json_integer_value(json_object_get(s1, "etype")), json_integer_value(json_object_get(s2, "etype")));
			CHECK(json_integer_value(json_object_get(s1, "ecode")) != json_integer_value(json_object_get(s2, "ecode")));
		} else if (!strcmp(pos, "A27")) {
			a27++;
			CHECK_STR(result_of(also), "valid");
		}
	}
	CHECK(a28 >= 3 * 4);        /* too long, no buffer, TO wrap in three profiles */
	CHECK_EQ(a27, 3);
	json_decref(doc);
}

TEST(vectors_expect_rejects_bad_inputs)
{
	iw_err e;
	json_t *v = stream_vec("rfc9999", "00", false, 0);
	CHECK(iw_vec_expect(v, &e) == NULL);
	CHECK(strstr(e.msg, "rfc9999") != NULL);
	json_decref(v);
	v = stream_vec("rfc5044", "0g", false, 0);
	CHECK(iw_vec_expect(v, &e) == NULL);
	CHECK(strstr(e.msg, "'g'") != NULL);
	json_decref(v);
	v = stream_vec("rfc5044", "000", false, 0);
	CHECK(iw_vec_expect(v, &e) == NULL);
	CHECK(strstr(e.msg, "odd") != NULL);
	json_decref(v);
	v = json_pack("{s:s, s:s}", "profile", "rfc5044", "kind", "lecture");
	CHECK(iw_vec_expect(v, &e) == NULL);
	CHECK(strstr(e.msg, "kind") != NULL);
	json_decref(v);
	v = stream_vec("rfc5044", "00", false, 0);
	json_object_set_new(v, "receiver", json_pack("{s:[{s:i, s:i, s:i}]}", "queues", "qn", 9, "buffers", 1, "size", 8));
	CHECK(iw_vec_expect(v, &e) == NULL);
	CHECK(strstr(e.msg, "receiver.queues[0]") != NULL);
	json_decref(v);
	v = json_pack("{s:s, s:s, s:{}, s:{}, s:[{s:s, s:s}]}", "profile", "rfc5044", "kind", "conversation", "initiator",
		      "responder", "chunks", "from", "nobody", "hex", "00");
	CHECK(iw_vec_expect(v, &e) == NULL);
	CHECK(strstr(e.msg, "chunks[0]") != NULL);
	json_decref(v);
}

TEST(vectors_conversation_replay)
{
	json_t *doc = load(set_dir(), "conversations.json");
	if (!doc)
		return;
	size_t i, n = 0, invalid = 0;
	json_t *v;
	iw_err e;
	json_array_foreach(json_object_get(doc, "vectors"), i, v) {
		n++;
		json_t *x = iw_vec_expect(v, &e);
		CHECK(x != NULL);
		CHECK(json_equal(x, json_object_get(v, "expected")));
		json_t *iv = json_object_get(x, "initiator"), *rv = json_object_get(x, "responder");
		CHECK(json_array_size(json_object_get(iv, "events")) > 0);
		invalid += !strcmp(result_of(x), "invalid");
		/* A responder that found an error sent a Terminate the initiator saw, unless the error
		 * was in the startup frame (then there is no full operation and no Terminate). */
		json_t *err = json_object_get(rv, "error");
		if (err && strcmp(json_string_value(json_object_get(err, "requirement")), "MPA-6.1-R5")) {
			bool term = false;
			size_t k;
			json_t *ev;
			json_array_foreach(json_object_get(iv, "events"), k, ev)
				term |= !strcmp(json_string_value(json_object_get(ev, "event")), "terminate");
			CHECK(term);
		}
		json_decref(x);
	}
	CHECK(n >= 10);
	CHECK(invalid >= 5);
	json_decref(doc);
}

TEST(vectors_dump_fields_of_a_capture)
{
	char pdir[512];
	snprintf(pdir, sizeof pdir, "%s/pcap", set_dir());
	DIR *d = opendir(pdir);
	CHECK(d != NULL);
	if (!d)
		return;
	struct dirent *de;
	size_t pcaps = 0, frames = 0, exceptions = 0, terminates = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", pdir, de->d_name);
		FILE *out = tmpfile();
		iw_err e;
		CHECK_EQ(iw_vec_dump_fields(path, NULL, true, out, &e), 0);
		char *t = slurp(out);
		fclose(out);
		pcaps++;
		for (const char *p = t; (p = strstr(p, "frame=")); p++)
			frames++;
		for (const char *p = t; (p = strstr(p, "# exception ")); p++)
			exceptions++;
		for (const char *p = t; (p = strstr(p, " op=7 tlayer=")); p++)
			terminates++;
		free(t);
	}
	closedir(d);
	CHECK(pcaps >= 10);
	CHECK(frames > 50);
	CHECK(terminates >= 4);
	CHECK(exceptions >= 5);
	iw_err e;
	CHECK(iw_vec_dump_fields("/nonexistent.pcap", NULL, false, stdout, &e) != 0);
	CHECK(strstr(e.msg, "nonexistent") != NULL);
}

/* The schema parses, is draft-07, and names every member the generated vectors use. */
TEST(vectors_schema_covers_the_files)
{
	json_error_t je;
	json_t *schema = json_loads(iw_vec_schema, 0, &je);
	CHECK(schema != NULL);
	if (!schema)
		return;
	CHECK_STR(json_string_value(json_object_get(schema, "$schema")), "http://json-schema.org/draft-07/schema#");
	json_t *props = json_object_get(json_object_get(json_object_get(schema, "definitions"), "vector"), "properties");
	json_t *xprops = json_object_get(json_object_get(json_object_get(schema, "definitions"), "expected"), "properties");
	CHECK(props && xprops);
	for (size_t f = 0; f < iw_vec_nfiles; f++) {
		char name[64];
		snprintf(name, sizeof name, "%s.json", iw_vec_files[f].name);
		json_t *doc = load(set_dir(), name);
		if (!doc)
			continue;
		size_t i;
		json_t *v;
		json_array_foreach(json_object_get(doc, "vectors"), i, v) {
			const char *k;
			json_t *m;
			json_object_foreach(v, k, m)
				if (!json_object_get(props, k))
					check_fail(__FILE__, __LINE__, "%s: member '%s' is not in the schema", name, k);
			json_object_foreach(json_object_get(v, "expected"), k, m)
				if (!json_object_get(xprops, k))
					check_fail(__FILE__, __LINE__, "%s: expected.%s is not in the schema", name, k);
		}
		json_decref(doc);
	}
	json_decref(schema);
	/* The schema file written with the set is this text. */
	char path[512];
	snprintf(path, sizeof path, "%s/schema/vectors.schema.json", set_dir());
	FILE *f = fopen(path, "rb");
	CHECK(f != NULL);
	if (f) {
		char *t = slurp(f);
		CHECK_STR(t, iw_vec_schema);
		free(t);
		fclose(f);
	}
}

TEST(vectors_zz_cleanup)
{
	/* Registered last in this file, so it normally runs last: removes the shared set (a test
	 * run in another order simply writes it again). */
	const char *d = set_dir();
	rm_rf(d);
	CHECK(access(d, F_OK) != 0);
}
