/*
 * netfuzz_corpus_file.c - the kept programs and the union of kernel arcs on disk, so that the
 * next campaign (or the next segment, after the guest was rebooted) starts where this one
 * stopped: DIR/corpus.bin, rewritten atomically (suite/capture/atomic_file.h) each time the
 * corpus changes, so a campaign killed at any moment leaves the last whole one.
 *
 * Format 2, host byte order (a corpus belongs to the build that wrote it):
 *
 *   "IWSPECKC"  u32 format (1)  u32 layout  u64 total  u64 next_id  u64 count
 *   the union: ceil(total/8) octets (bit i is octet i/8, bit i%8)
 *   count times: u64 id  u64 gain  u64 nreach  nreach u32 (the arcs it reached first, indices
 *                below total)  u64 len  then len octets, the program as it is in memory (nf_prog up
 *                to its pool, then pool_len octets of the pool)
 *   u64 FNV-1a of every octet before it
 *
 * `layout` hashes the size and offset of every field of nf_prog and of what it holds (and the
 * byte order): a build whose programs are laid out otherwise reads a different value and says
 * the file is another build's, instead of reading its programs as garbage. Loading also checks
 * every program as the renderer needs it (counts, kinds, octets inside the pool), so a file that
 * passes is one nf_run can execute.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "netfuzz.h"

#define MAGIC "IWSPECKC"
#define FORMAT 2u /* 2: each program's arcs (format 1 had none) */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

#define FNV0 0xcbf29ce484222325ull

static uint32_t layout(void)
{
	const uint64_t v[] = {
		0x0102030405060708ull, sizeof(nf_prog), offsetof(nf_prog, seed), offsetof(nf_prog, run),
		offsetof(nf_prog, origin), offsetof(nf_prog, n), offsetof(nf_prog, a), offsetof(nf_prog, pool_len),
		offsetof(nf_prog, pool), NF_MAX_ACTIONS, NF_POOL, sizeof(nf_origin), sizeof(nf_action),
		offsetof(nf_action, kind), offsetof(nf_action, fr), offsetof(nf_action, fp),
		offsetof(nf_action, split_every), offsetof(nf_action, sleep_us), offsetof(nf_action, off),
		offsetof(nf_action, len), offsetof(nf_action, pattern), offsetof(nf_action, pat), sizeof(nf_frame),
		offsetof(nf_frame, pd_length), offsetof(nf_frame, ord), sizeof(nf_fpdu), offsetof(nf_fpdu, msn),
		offsetof(nf_fpdu, stag), offsetof(nf_fpdu, to), offsetof(nf_fpdu, rr), offsetof(nf_fpdu, t_layer),
		offsetof(nf_fpdu, mulpdu), offsetof(nf_fpdu, order), offsetof(nf_fpdu, mods), sizeof(iw_fpdu_mods),
		offsetof(iw_fpdu_mods, corrupt_at), offsetof(iw_fpdu_mods, fpduptr_delta), sizeof(iw_read_req),
		NF_M_COUNT, NF_A_RESET,
	};
	uint64_t h = fnv(FNV0, v, sizeof v);
	return (uint32_t)(h ^ (h >> 32));
}

/* The writer, with the running checksum. */
typedef struct wr {
	iw_atomic_file *af;
	uint64_t h;
} wr;

static void put(wr *w, const void *p, size_t n)
{
	w->h = fnv(w->h, p, n);
	iw_atomic_write(w->af, p, n);
}

static void put64(wr *w, uint64_t v) { put(w, &v, sizeof v); }

int nf_corpus_save(const nf_corpus *c, const char *dir, iw_err *e)
{
	char path[1100];
	snprintf(path, sizeof path, "%s/%s", dir, NF_CORPUS_FILE);
	wr w = {.af = iw_atomic_open(path, e), .h = FNV0};
	if (!w.af)
		return IW_EINVAL;
	uint32_t hdr[2] = {FORMAT, layout()};
	put(&w, MAGIC, 8);
	put(&w, hdr, sizeof hdr);
	put64(&w, c->arcs ? c->total : 0);
	put64(&w, c->next_id);
	put64(&w, c->n);
	if (c->arcs)
		put(&w, c->arcs, (size_t)((c->total + 7) / 8));
	for (size_t i = 0; i < c->n; i++) {
		const nf_prog *p = c->e[i].p;
		uint64_t len = offsetof(nf_prog, pool) + p->pool_len;
		put64(&w, c->e[i].id);
		put64(&w, c->e[i].gain);
		put64(&w, c->e[i].nreach);
		if (c->e[i].nreach)
			put(&w, c->e[i].reach, c->e[i].nreach * sizeof *c->e[i].reach);
		put64(&w, len);
		put(&w, p, (size_t)len);
	}
	uint64_t sum = w.h;
	iw_atomic_write(w.af, &sum, sizeof sum);
	return iw_atomic_commit(w.af, e) ? IW_EINVAL : IW_OK;
}

/* The reader: a cursor over the whole file. */
typedef struct rd {
	const uint8_t *b;
	size_t len, at;
} rd;

static bool get(rd *r, void *p, size_t n)
{
	if (n > r->len - r->at)
		return false;
	memcpy(p, r->b + r->at, n);
	r->at += n;
	return true;
}

/* What is wrong with a program read back ("" when nothing). */
static void check_prog(const nf_prog *p, uint64_t len, char *why, size_t cap)
{
	*why = '\0';
	if (p->n > NF_MAX_ACTIONS || p->pool_len > NF_POOL || len != offsetof(nf_prog, pool) + p->pool_len) {
		snprintf(why, cap, "%zu actions, %zu pool octets in %llu", p->n, p->pool_len, (unsigned long long)len);
		return;
	}
	for (size_t i = 0; i < p->n; i++) {
		const nf_action *a = &p->a[i];
		if (a->kind > NF_A_RESET || (a->kind == NF_A_FPDU && (a->fp.msg >= NF_M_COUNT || a->fp.norder > 8)) ||
		    (!a->pattern && ((uint64_t)a->off + a->len > p->pool_len))) {
			snprintf(why, cap, "action %zu is not one this build renders", i + 1);
			return;
		}
	}
}

static int corrupt(const char *path, const char *why, iw_err *e)
{
	return iw_errf(e, IW_EINVAL, "%s is corrupt (%s): remove it or give another --corpus", path, why);
}

int nf_corpus_load(nf_corpus *c, const char *dir, bool *found, iw_err *e)
{
	nf_corpus_free(c);
	*found = false;
	char path[1100];
	snprintf(path, sizeof path, "%s/%s", dir, NF_CORPUS_FILE);
	FILE *f = fopen(path, "rb");
	if (!f) {
		if (errno == ENOENT)
			return IW_OK;
		return iw_errf(e, IW_EINVAL, "--corpus: cannot read %s: %s", path, strerror(errno));
	}
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap ? cap * 2 : 65536);
			if (!nb) {
				free(buf);
				fclose(f);
				return iw_errf(e, IW_ENOSPC, "out of memory reading %s", path);
			}
			buf = nb;
			cap = cap ? cap * 2 : 65536;
		}
		size_t k = fread(buf + len, 1, cap - len, f);
		len += k;
		if (k == 0)
			break;
	}
	bool rerr = ferror(f);
	fclose(f);
	if (rerr) {
		free(buf);
		return iw_errf(e, IW_EINVAL, "--corpus: cannot read %s", path);
	}
	*found = true;
	rd r = {.b = buf, .len = len};
	char magic[8];
	uint32_t hdr[2];
	uint64_t total = 0, next_id = 0, count = 0, sum = 0;
	int rc = IW_OK;
	if (!get(&r, magic, 8) || memcmp(magic, MAGIC, 8)) {
		rc = iw_errf(e, IW_EINVAL, "%s is not an iwspec fuzz corpus (no " MAGIC " at its start): remove it or give "
			     "another --corpus", path);
		goto out;
	}
	if (!get(&r, hdr, sizeof hdr)) {
		rc = corrupt(path, "it ends inside its header", e);
		goto out;
	}
	if (hdr[0] != FORMAT || hdr[1] != layout()) {
		rc = iw_errf(e, IW_EINVAL, "%s: written by another build of iwspec (format %u, program layout 0x%08x; this "
			     "build: format %u, 0x%08x): remove %s or give another --corpus", path, hdr[0], hdr[1], FORMAT,
			     layout(), dir);
		goto out;
	}
	if (len < r.at + 8 || (sum = fnv(FNV0, buf, len - 8), memcmp(&sum, buf + len - 8, 8))) {
		rc = corrupt(path, "its checksum does not match", e);
		goto out;
	}
	r.len = len - 8;
	if (!get(&r, &total, 8) || !get(&r, &next_id, 8) || !get(&r, &count, 8) || total > NF_ARCS_MAX ||
	    count > NF_CORPUS_MAX || next_id <= count) {
		rc = corrupt(path, "its counts are impossible", e);
		goto out;
	}
	if (total) {
		size_t octets = (size_t)((total + 7) / 8);
		uint64_t fresh;
		bool restarted;
		if (octets > r.len - r.at) {
			rc = corrupt(path, "it ends inside the union of arcs", e);
			goto out;
		}
		rc = nf_corpus_merge(c, buf + r.at, total, &fresh, &restarted, e);
		if (rc)
			goto out;
		r.at += octets;
	}
	for (uint64_t i = 0; i < count; i++) {
		uint64_t id, gain, nreach, plen;
		if (!get(&r, &id, 8) || !get(&r, &gain, 8) || !get(&r, &nreach, 8) || nreach > total ||
		    nreach * 4 > r.len - r.at) {
			rc = corrupt(path, "it ends inside a program's arcs", e);
			goto out;
		}
		uint32_t *reach = NULL;
		if (nreach && !(reach = malloc(nreach * sizeof *reach))) {
			rc = iw_errf(e, IW_ENOSPC, "out of memory reading %s", path);
			goto out;
		}
		if (nreach)
			get(&r, reach, nreach * sizeof *reach);
		for (uint64_t k = 0; k < nreach; k++) {
			if (reach[k] >= total) {
				free(reach);
				rc = corrupt(path, "a program's arc lies past the union's", e);
				goto out;
			}
		}
		if (!get(&r, &plen, 8) || plen > sizeof(nf_prog) ||
		    plen < offsetof(nf_prog, pool) || plen > r.len - r.at) {
			free(reach);
			rc = corrupt(path, "it ends inside a program", e);
			goto out;
		}
		nf_prog *p = calloc(1, sizeof *p);
		if (!p) {
			free(reach);
			rc = iw_errf(e, IW_ENOSPC, "out of memory reading %s", path);
			goto out;
		}
		get(&r, p, (size_t)plen);
		char why[120];
		check_prog(p, plen, why, sizeof why);
		if (!*why && (!id || id >= next_id || nf_corpus_find(c, id)))
			snprintf(why, sizeof why, "entry id %llu", (unsigned long long)id);
		if (*why) {
			free(p);
			free(reach);
			char w[160];
			snprintf(w, sizeof w, "program %llu of %llu: %s", (unsigned long long)i + 1, (unsigned long long)count,
				 why);
			rc = corrupt(path, w, e);
			goto out;
		}
		p->origin.how[sizeof p->origin.how - 1] = '\0';
		c->e[c->n++] = (nf_kept){.p = p, .id = id, .gain = gain, .reach = reach, .nreach = (uint32_t)nreach};
	}
	if (r.at != r.len)
		rc = corrupt(path, "octets follow its last program", e);
	c->next_id = next_id;
out:
	free(buf);
	if (rc)
		nf_corpus_free(c);
	return rc;
}
