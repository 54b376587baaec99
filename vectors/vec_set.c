/*
 * vec_set.c - the vector set: generating it, writing it (JSON files, pcaps, schema), and
 * checking a set on disk against the engine.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "pcap_write.h"
#include "vec_int.h"
#include "vec_schema.h"

/* ---- generation ---- */

static void set_free(iw_vec_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < IW_VEC_MAX_FILES; i++)
		json_decref(s->vectors[i]);
	json_decref(s->ids);
	free(s);
}

void iw_vec_set_free(iw_vec_set *s)
{
	set_free(s);
}

static void gen_profile(vgen *g)
{
	if (g->p->id == IW_PROFILE_SEED_EXACT) {
		gen_seeds(g);   /* the seed-exact profile exists to reproduce the seeds' FPDUs */
		return;
	}
	void (*const gens[])(vgen *) = {
		gen_mpa_startup, gen_mpa_fpdu, gen_mpa_markers, gen_mpa_crc, gen_ddp_headers,
		gen_ddp_placement, gen_rdmap, gen_rdmap_terminate, gen_conversations,
	};
	for (size_t i = 0; i < sizeof gens / sizeof gens[0] && !g->failed; i++)
		gens[i](g);
}

int iw_vec_generate(const iw_profile *only, iw_vec_set **out, iw_err *e)
{
	*out = NULL;
	if (only && (only->id == IW_PROFILE_CULLEY_MPA_02))
		return iw_errf(e, IW_EINVAL, "no vectors for %s: it has no startup frames and forces markers and CRC; "
				  "vectors exist for rddp-mpa-01, rfc5044, rfc6581 and seed-exact", only->name);
	iw_vec_set *s = calloc(1, sizeof *s);
	if (!s)
		return iw_errf(e, IW_EINVAL, "out of memory");
	s->ids = json_object();
	for (size_t i = 0; i < iw_vec_nfiles; i++)
		s->vectors[i] = json_array();
	static const enum iw_profile_id defaults[] = {IW_PROFILE_RDDP_MPA_01, IW_PROFILE_RFC5044, IW_PROFILE_RFC6581,
						      IW_PROFILE_SEED_EXACT};
	vgen g = {.set = s, .e = e};
	for (size_t i = 0; i < (only ? 1 : sizeof defaults / sizeof defaults[0]) && !g.failed; i++) {
		g.p = only ? only : iw_profile_get(defaults[i]);
		gen_profile(&g);
	}
	if (g.failed) {
		set_free(s);
		return IW_EINVAL;
	}
	*out = s;
	return IW_OK;
}

size_t iw_vec_count(const iw_vec_set *s, size_t file)
{
	return file < iw_vec_nfiles ? json_array_size(s->vectors[file]) : 0;
}

static bool is_conversation(const json_t *v)
{
	const char *k = json_string_value(json_object_get(v, "kind"));
	return k && !strcmp(k, "conversation");
}

size_t iw_vec_npcaps(const iw_vec_set *s)
{
	size_t n = 0;
	for (size_t f = 0; f < iw_vec_nfiles; f++) {
		size_t i;
		json_t *v;
		json_array_foreach(s->vectors[f], i, v)
			n += is_conversation(v);
	}
	return n;
}

/* ---- writing ---- */

/* The capture of a conversation: the initiator opened the TCP connection. */
static int conv_pcap(const json_t *v, uint8_t **img, size_t *len, iw_err *e)
{
	iw_pcap_writer *w = iw_pcap_writer_new(IW_PCAP_LINK_ETHERNET, e);
	if (!w)
		return -1;
	iw_pcap_tcp *t = iw_pcap_tcp_open(w, NULL, e);
	json_t *chunks = json_object_get(v, "chunks");
	size_t i;
	json_t *c;
	json_array_foreach(chunks, i, c) {
		if (!t)
			break;
		const char *from = json_string_value(json_object_get(c, "from"));
		enum iw_pcap_dir dir = from && !strcmp(from, "responder") ? IW_PCAP_S2C : IW_PCAP_C2S;
		const char *hex = json_string_value(json_object_get(c, "hex"));
		const char *close = json_string_value(json_object_get(c, "close"));
		int rc;
		if (hex) {
			uint8_t *b;
			size_t n;
			if (vec_unhex(hex, &b, &n, e))
				goto fail;
			rc = iw_pcap_tcp_data(t, dir, b, n, e);
			free(b);
		} else if (close && !strcmp(close, "rst")) {
			rc = iw_pcap_tcp_rst(t, dir, e);
		} else {
			rc = iw_pcap_tcp_fin(t, dir, e);
		}
		if (rc)
			goto fail;
	}
	if (!t)
		goto fail;
	return iw_pcap_writer_take(w, img, len, e);
fail:
	iw_pcap_writer_free(w);
	return -1;
}

static int by_id(const void *a, const void *b)
{
	const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	return strcmp(json_string_value(json_object_get(x, "id")), json_string_value(json_object_get(y, "id")));
}

static json_t *sorted(json_t *arr)
{
	size_t n = json_array_size(arr);
	json_t **v = malloc((n ? n : 1) * sizeof *v);
	json_t *out = json_array();
	if (!v)
		return out;
	for (size_t i = 0; i < n; i++)
		v[i] = json_array_get(arr, i);
	qsort(v, n, sizeof *v, by_id);
	for (size_t i = 0; i < n; i++)
		json_array_append(out, v[i]);
	free(v);
	return out;
}

static int write_text(const char *dir, const char *name, const char *text, iw_err *e)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return iw_write_atomic(path, text, strlen(text), e);
}

/* Removes pcaps of conversations no longer in the set, so the directory is the set. */
static void prune_pcaps(const char *pdir, const json_t *keep)
{
	DIR *d = opendir(pdir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 6 || strcmp(de->d_name + l - 5, ".pcap") || strncmp(de->d_name, "conversations-", 14))
			continue;
		char id[256];
		snprintf(id, sizeof id, "%.*s", (int)(l - 5), de->d_name);
		if (!json_object_get(keep, id)) {
			char path[4096 + 260];
			snprintf(path, sizeof path, "%s/%s", pdir, de->d_name);
			unlink(path);
		}
	}
	closedir(d);
}

int iw_vec_write(const iw_vec_set *s, const char *dir, iw_err *e)
{
	char sub[4096];
	if (iw_mkdir_p(dir, e))
		return -1;
	snprintf(sub, sizeof sub, "%s/schema", dir);
	if (iw_mkdir_p(sub, e) || write_text(dir, IW_VEC_SCHEMA_PATH, iw_vec_schema, e))
		return -1;
	snprintf(sub, sizeof sub, "%s/pcap", dir);
	json_t *keep = json_object();
	int rc = 0;
	for (size_t f = 0; f < iw_vec_nfiles && !rc; f++) {
		if (!json_array_size(s->vectors[f]))
			continue;
		const iw_vec_file_info *fi = &iw_vec_files[f];
		json_t *doc = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "$schema", IW_VEC_SCHEMA_PATH, "format",
					IW_VEC_FORMAT, "layer", fi->layer, "topic", fi->topic, "title", fi->title, "vectors",
					sorted(s->vectors[f]));
		char *text = json_dumps(doc, JSON_INDENT(2) | JSON_ENSURE_ASCII);
		json_decref(doc);
		if (!text) {
			rc = iw_errf(e, -1, "out of memory writing %s", fi->name);
			break;
		}
		size_t tl = strlen(text);
		char *t2 = realloc(text, tl + 2);
		if (t2) {
			text = t2;
			strcpy(text + tl, "\n");
		}
		char name[128];
		snprintf(name, sizeof name, "%s.json", fi->name);
		rc = write_text(dir, name, text, e);
		free(text);
		size_t i;
		json_t *v;
		json_array_foreach(s->vectors[f], i, v) {
			if (rc || !is_conversation(v))
				continue;
			const char *id = json_string_value(json_object_get(v, "id"));
			uint8_t *img;
			size_t len;
			char path[4096];
			snprintf(path, sizeof path, "%s/%s", dir, json_string_value(json_object_get(v, "pcap")));
			json_object_set_new(keep, id, json_true());
			if (conv_pcap(v, &img, &len, e) || iw_write_atomic(path, img, len, e))
				rc = -1;
			else
				free(img);
		}
	}
	if (!rc)
		prune_pcaps(sub, keep);
	json_decref(keep);
	return rc ? -1 : 0;
}

/* ---- checking ---- */

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void report(FILE *log, const char *file, const char *id, const char *fmt, const char *a, const char *b)
{
	fprintf(log, "FAIL %s %s: ", file, id ? id : "(no id)");
	fprintf(log, fmt, a ? a : "", b ? b : "");
	fputc('\n', log);
}

static char *compact(const json_t *j)
{
	char *s = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
	if (s && strlen(s) > 400)
		strcpy(s + 396, "...");
	return s;
}

/* Checks one vector; true when it passes. */
static bool check_vector(const char *dir, const char *file, const char *prefix, const json_t *v, FILE *log)
{
	const char *id = json_string_value(json_object_get(v, "id"));
	static const char *const req[] = {"id", "description", "requirements", "flags", "profile", "kind", "expected"};
	for (size_t i = 0; i < sizeof req / sizeof req[0]; i++)
		if (!json_object_get(v, req[i])) {
			report(log, file, id, "the member '%s' is missing%s", req[i], NULL);
			return false;
		}
	if (!json_is_array(json_object_get(v, "requirements")) || !json_array_size(json_object_get(v, "requirements"))) {
		report(log, file, id, "'requirements' must name at least one requirement%s%s", NULL, NULL);
		return false;
	}
	iw_err e;
	json_t *x = iw_vec_expect(v, &e);
	if (!x) {
		report(log, file, id, "the inputs are not a valid vector: %s%s", e.msg, NULL);
		return false;
	}
	bool ok = true;
	if (!json_equal(x, json_object_get(v, "expected"))) {
		char *want = compact(json_object_get(v, "expected")), *got = compact(x);
		report(log, file, id, "the engine disagrees with the expected result:\n    file:   %s\n    engine: %s", want,
		       got);
		free(want);
		free(got);
		ok = false;
	}
	json_decref(x);
	char want_id[64];
	iw_vec_id(v, prefix, want_id);
	if (ok && (!id || strcmp(id, want_id))) {
		report(log, file, id, "the id does not match the content (the content gives %s)%s", want_id, NULL);
		ok = false;
	}
	if (ok && is_conversation(v)) {
		const char *rel = json_string_value(json_object_get(v, "pcap"));
		char path[4096], want_rel[96];
		snprintf(want_rel, sizeof want_rel, "pcap/%s.pcap", id);
		if (!rel || strcmp(rel, want_rel)) {
			report(log, file, id, "'pcap' must be %s%s", want_rel, NULL);
			return false;
		}
		snprintf(path, sizeof path, "%s/%s", dir, rel);
		uint8_t *img = NULL, *have = NULL;
		size_t len = 0, hlen = 0;
		char msg[256];
		FILE *f = fopen(path, "rb");
		if (f) {
			struct stat st;
			if (fstat(fileno(f), &st) == 0 && (have = malloc((size_t)st.st_size + 1)))
				hlen = fread(have, 1, (size_t)st.st_size, f);
			fclose(f);
		}
		if (!have || conv_pcap(v, &img, &len, &e) || len != hlen || memcmp(img, have, len)) {
			snprintf(msg, sizeof msg, "%s", !have ? "is missing" : "differs from the conversation's chunks");
			report(log, file, id, "the capture %s %s", rel, msg);
			ok = false;
		}
		free(img);
		free(have);
	}
	return ok;
}

int iw_vec_check_dir(const char *dir, FILE *log, iw_vec_check_stats *st, iw_err *e)
{
	memset(st, 0, sizeof *st);
	DIR *d = opendir(dir);
	if (!d)
		return iw_errf(e, -1, "cannot open '%s': %s", dir, strerror(errno));
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 6 || strcmp(de->d_name + l - 5, ".json") || de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			char **nn = realloc(names, cap * sizeof *nn);
			if (!nn)
				break;
			names = nn;
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, name_cmp);
	for (size_t i = 0; i < n; i++) {
		char path[4096], prefix[256];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		snprintf(prefix, sizeof prefix, "%.*s", (int)(strlen(names[i]) - 5), names[i]);
		json_error_t je;
		json_t *doc = json_load_file(path, 0, &je);
		if (!doc) {
			fprintf(log, "FAIL %s: not JSON: %s at line %d\n", names[i], je.text, je.line);
			st->failed++;
			continue;
		}
		const char *fmt = json_string_value(json_object_get(doc, "format"));
		if (!fmt || strcmp(fmt, IW_VEC_FORMAT)) {
			fprintf(log, "FAIL %s: 'format' is not \"%s\"\n", names[i], IW_VEC_FORMAT);
			st->failed++;
			json_decref(doc);
			continue;
		}
		st->files++;
		json_t *vs = json_object_get(doc, "vectors");
		if (!json_is_array(vs) || !json_is_string(json_object_get(doc, "layer")) ||
		    !json_is_string(json_object_get(doc, "topic"))) {
			fprintf(log, "FAIL %s: 'layer', 'topic' and 'vectors' are required\n", names[i]);
			st->failed++;
		}
		const char *prev = NULL;
		size_t k;
		json_t *v;
		json_array_foreach(vs, k, v) {
			st->vectors++;
			const char *id = json_string_value(json_object_get(v, "id"));
			if (id && prev && strcmp(prev, id) >= 0) {
				report(log, names[i], id, "vectors must be sorted by id with no id twice (after %s)%s", prev,
				       NULL);
				st->failed++;
				prev = id;
				continue;
			}
			prev = id;
			if (!check_vector(dir, names[i], prefix, v, log))
				st->failed++;
			else if (is_conversation(v))
				st->pcaps++;
		}
		json_decref(doc);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (st->files == 0 && !st->failed)
		return iw_errf(e, -1, "no vector file (*.json with format %s) in '%s'", IW_VEC_FORMAT, dir);
	return st->failed ? 1 : 0;
}
