/*
 * cmd_fuzz_merge.c - `iwspec fuzz --merge DIR... --out OUT`: the shards of one campaign as one
 * (docs/fuzzing-network.md, "Shards").
 *
 * A campaign spread over machines (`--shard i/N`, `make fuzz-siw SHARD=i/N`) leaves one output
 * directory per shard. The merge writes OUT/corpus/corpus.bin, the corpus the next night starts
 * from: the union of every shard's arcs, and every kept program once (two shards that kept the
 * same program, by its hash, give one entry, with the larger gain); and OUT/findings.tsv, each
 * finding once: a network finding by its kind, requirement and the DUT's role (the header of
 * its case), a kernel finding by its signature, with how many shards saw it and the first one's
 * directory. A shard's directory is searched to three levels for finding-N/ and kernel-N/
 * (fuzz-siw.sh keeps its segments' under seg-N/), and for corpus.bin in itself or in corpus/.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd_fuzz.h"
#include "cli.h"
#include "netfuzz.h"

#define MERGE_MAX_FINDINGS 4096

typedef struct merged_finding {
	char key[680];              /* "network\tKIND\tREQUIREMENT\tROLE" or "kernel\tSIGNATURE" */
	char first[1024];           /* the directory it was first seen in */
	unsigned shards;            /* how many shards saw it */
	int last_shard;
} merged_finding;

typedef struct merge_state {
	merged_finding *f;
	size_t n;
	int shard;                  /* the shard being walked */
	size_t seen;                /* finding directories read */
} merge_state;

static merge_state *walk_state; /* nftw passes no context */

/* The value of "NAME: value" in a seed.txt ("" when absent). */
static void field(const char *text, const char *name, char *out, size_t cap)
{
	out[0] = 0;
	size_t k = strlen(name);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, name, k) && l[k] == ':' && l[k + 1] == ' ') {
			size_t n = strcspn(l + k + 2, "\n");
			snprintf(out, cap, "%.*s", (int)n, l + k + 2);
			return;
		}
	}
}

static int on_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	if (type != FTW_F || ftw->level > 4 || strcmp(path + ftw->base, "seed.txt"))
		return 0;
	/* .../finding-N/seed.txt or .../kernel-N/seed.txt */
	char dir[1024];
	snprintf(dir, sizeof dir, "%.*s", ftw->base > 0 ? ftw->base - 1 : 0, path);
	const char *leaf = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	bool network = !strncmp(leaf, "finding-", 8), kernel = !strncmp(leaf, "kernel-", 7);
	if (!network && !kernel)
		return 0;
	FILE *fp = fopen(path, "r");
	if (!fp)
		return 0;
	char text[8192];
	size_t n = fread(text, 1, sizeof text - 1, fp);
	fclose(fp);
	text[n] = 0;
	merge_state *m = walk_state;
	char a[300], b[300], key[680];
	if (network) {
		/* The DUT's role is in the finding's case (its header), not in seed.txt. */
		char casef[1100], head[2048] = "", role[32];
		snprintf(casef, sizeof casef, "%s/case.iwt", dir);
		FILE *cf = fopen(casef, "r");
		if (cf) {
			head[fread(head, 1, sizeof head - 1, cf)] = 0;
			fclose(cf);
		}
		field(head, "role", role, sizeof role);
		field(text, "kind", a, sizeof a);
		field(text, "requirement", b, sizeof b);
		snprintf(key, sizeof key, "network\t%s\t%s\t%s", a, b, role[0] ? role : "-");
	} else {
		field(text, "signature", a, sizeof a);
		snprintf(key, sizeof key, "kernel\t%s", a);
	}
	if (!a[0])
		return 0;
	m->seen++;
	for (size_t i = 0; i < m->n; i++) {
		if (!strcmp(m->f[i].key, key)) {
			if (m->f[i].last_shard != m->shard) {
				m->f[i].shards++;
				m->f[i].last_shard = m->shard;
			}
			return 0;
		}
	}
	if (m->n == MERGE_MAX_FINDINGS)
		return 0;
	merged_finding *f = &m->f[m->n++];
	snprintf(f->key, sizeof f->key, "%s", key);
	snprintf(f->first, sizeof f->first, "%s", dir);
	f->shards = 1;
	f->last_shard = m->shard;
	return 0;
}

/* The shard's corpus: DIR/corpus.bin or DIR/corpus/corpus.bin. */
static int load_shard_corpus(nf_corpus *c, const char *dir, bool *found, iw_err *e)
{
	char sub[1100];
	int rc = nf_corpus_load(c, dir, found, e);
	if (rc != IW_OK || *found)
		return rc;
	snprintf(sub, sizeof sub, "%s/corpus", dir);
	return nf_corpus_load(c, sub, found, e);
}

int fz_merge(char *const *dirs, int ndirs, const char *out, FILE *log)
{
	iw_err e = {{0}};
	nf_corpus *all = malloc(sizeof *all), *one = malloc(sizeof *one);
	merge_state m = {.f = calloc(MERGE_MAX_FINDINGS, sizeof *m.f)};
	int status = IW_EXIT_OK;
	if (all)
		nf_corpus_init(all);
	if (one)
		nf_corpus_init(one);
	if (!all || !one || !m.f) {
		fprintf(stderr, "iwspec fuzz: --merge: out of memory\n");
		status = IW_EXIT_ERROR;
		goto done;
	}
	uint64_t programs = 0, dup = 0;
	int corpora = 0;
	for (int i = 0; i < ndirs; i++) {
		struct stat st;
		if (stat(dirs[i], &st) || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "iwspec fuzz: --merge: '%s' is not a directory: give the output directories of the "
				"shards (each --out, or fuzz-siw.sh's)\n", dirs[i]);
			status = IW_EXIT_USAGE;
			goto done;
		}
		bool found = false;
		if (load_shard_corpus(one, dirs[i], &found, &e) != IW_OK) {
			fprintf(stderr, "iwspec fuzz: --merge: %s\n", e.msg);
			status = IW_EXIT_USAGE;
			goto done;
		}
		if (found) {
			corpora++;
			uint64_t fresh = 0;
			bool restarted = false;
			if (one->arcs && all->arcs && one->total != all->total) {
				fprintf(log, "iwspec fuzz: --merge: %s counts %llu arcs where the shards before count %llu (another "
					"build of the module): its union is left out\n", dirs[i], (unsigned long long)one->total,
					(unsigned long long)all->total);
			} else if (one->arcs && nf_corpus_merge(all, one->arcs, one->total, &fresh, &restarted, &e) != IW_OK) {
				fprintf(stderr, "iwspec fuzz: --merge: %s: %s\n", dirs[i], e.msg);
				status = IW_EXIT_ERROR;
				goto done;
			}
			for (size_t k = 0; k < one->n; k++) {
				programs++;
				uint64_t h = nf_prog_hash(one->e[k].p);
				bool have = false;
				for (size_t j = 0; j < all->n && !have; j++) {
					if (nf_prog_hash(all->e[j].p) == h) {
						have = true;
						if (one->e[k].gain > all->e[j].gain)
							all->e[j].gain = one->e[k].gain;
					}
				}
				if (have) {
					dup++;
					continue;
				}
				if (nf_corpus_keep(all, one->e[k].p, one->e[k].gain, NULL, &e) != IW_OK) {
					fprintf(stderr, "iwspec fuzz: --merge: %s\n", e.msg);
					status = IW_EXIT_ERROR;
					goto done;
				}
			}
		}
		m.shard = i;
		walk_state = &m;
		if (nftw(dirs[i], on_entry, 16, FTW_PHYS) != 0)
			fprintf(log, "iwspec fuzz: --merge: %s: not all of it could be read (%s)\n", dirs[i], strerror(errno));
	}
	char path[1100];
	snprintf(path, sizeof path, "%s/corpus", out);
	if (mkdir(out, 0777) && errno != EEXIST) {
		fprintf(stderr, "iwspec fuzz: --merge: cannot create %s: %s\n", out, strerror(errno));
		status = IW_EXIT_USAGE;
		goto done;
	}
	if (corpora && ((mkdir(path, 0777) && errno != EEXIST) || nf_corpus_save(all, path, &e) != IW_OK)) {
		fprintf(stderr, "iwspec fuzz: --merge: cannot write %s: %s\n", path, e.msg[0] ? e.msg : strerror(errno));
		status = IW_EXIT_ERROR;
		goto done;
	}
	snprintf(path, sizeof path, "%s/findings.tsv", out);
	FILE *t = fopen(path, "w");
	if (!t) {
		fprintf(stderr, "iwspec fuzz: --merge: cannot write %s: %s\n", path, strerror(errno));
		status = IW_EXIT_ERROR;
		goto done;
	}
	fprintf(t, "# what\tkind or signature\trequirement\tDUT role\tshards that saw it\tfirst seen in\n");
	size_t several = 0;
	for (size_t i = 0; i < m.n; i++) {
		several += m.f[i].shards > 1;
		bool kernel = !strncmp(m.f[i].key, "kernel\t", 7);
		fprintf(t, "%s%s\t%u\t%s\n", m.f[i].key, kernel ? "\t\t" : "", m.f[i].shards, m.f[i].first);
	}
	if (fclose(t)) {
		fprintf(stderr, "iwspec fuzz: --merge: cannot write %s\n", path);
		status = IW_EXIT_ERROR;
		goto done;
	}
	fprintf(log, "fuzz merge: %d shard(s), %d corpora: %llu kept programs (%llu of them the same program as one before: left out), "
		"%zu in the merged corpus; kernel arcs %llu/%llu; %zu finding directories, %zu distinct findings (%zu seen "
		"by more than one shard); %s/corpus/, %s/findings.tsv\n", ndirs, corpora, (unsigned long long)programs,
		(unsigned long long)dup, all->n, (unsigned long long)all->hit, (unsigned long long)all->total, m.seen, m.n,
		several, out, out);
done:
	if (all)
		nf_corpus_free(all);
	if (one)
		nf_corpus_free(one);
	free(all);
	free(one);
	free(m.f);
	return status;
}
