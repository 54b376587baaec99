/*
 * cmd_fuzz_merge.c - `iwspec fuzz --merge DIR... --out OUT`: the shards of one campaign as one
 * (docs/fuzzing-network.md, "Shards").
 *
 * A campaign spread over machines (`--shard i/N`, `make fuzz-siw SHARD=i/N`) leaves one output
 * directory per shard. The merge writes OUT/corpus/corpus.bin, the corpus the next night starts
 * from: the union of every shard's arcs, and the kept programs deduplicated by what they reach
 * (most first-reached arcs first, a program is taken when it reached first an arc none taken
 * before it did; the same program twice, by its hash, once); and OUT/findings.tsv, each
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
#include "case.h"
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
		/* The DUT's role is in the finding's case, read by the case parser; not in seed.txt. */
		char casef[1100];
		const char *role = "-";
		snprintf(casef, sizeof casef, "%s/case.iwt", dir);
		iw_case *cs = NULL;
		iw_err ce;
		if (iw_case_load(casef, &cs, &ce) == IW_OK)
			role = cs->dut_role == IW_ROLE_INITIATOR ? "initiator" : "responder";
		iw_case_free(cs);
		field(text, "kind", a, sizeof a);
		field(text, "requirement", b, sizeof b);
		snprintf(key, sizeof key, "network\t%s\t%s\t%s", a, b, role);
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

/* A kept program of some shard, waiting for the merge to decide on it. */
typedef struct cand {
	nf_prog *p;
	uint32_t *reach;            /* the arcs its run reached first (none: not known) */
	uint32_t nreach;
	uint64_t gain, hash;
	size_t order;               /* shard by shard, entry by entry: the tie-break */
} cand;

/* The programs that reached the most arcs first come first: a later one whose arcs they all
 * reached already adds nothing to the merged corpus. */
static int by_reach(const void *a, const void *b)
{
	const cand *x = a, *y = b;
	if (x->nreach != y->nreach)
		return x->nreach > y->nreach ? -1 : 1;
	if (x->gain != y->gain)
		return x->gain > y->gain ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
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
	cand *cands = NULL;
	size_t ncands = 0;
	uint8_t *covered = NULL;
	if (all)
		nf_corpus_init(all);
	if (one)
		nf_corpus_init(one);
	if (!all || !one || !m.f) {
		fprintf(stderr, "iwspec fuzz: --merge: out of memory\n");
		status = IW_EXIT_ERROR;
		goto done;
	}
	uint64_t programs = 0, dup = 0, covered_by_others = 0;
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
			bool other_build = one->arcs && all->total != one->total;
			cand *more = realloc(cands, (ncands + one->n + 1) * sizeof *cands);
			if (!more) {
				fprintf(stderr, "iwspec fuzz: --merge: out of memory\n");
				status = IW_EXIT_ERROR;
				goto done;
			}
			cands = more;
			for (size_t k = 0; k < one->n; k++) {
				/* Taken over from the shard's corpus: its next load frees none of it. */
				cand *c = &cands[ncands];
				*c = (cand){.p = one->e[k].p, .reach = one->e[k].reach, .nreach = one->e[k].nreach,
					    .gain = one->e[k].gain, .hash = nf_prog_hash(one->e[k].p), .order = ncands};
				one->e[k].p = NULL;
				one->e[k].reach = NULL;
				if (other_build) { /* arcs of another module: not comparable */
					free(c->reach);
					c->reach = NULL;
					c->nreach = 0;
				}
				ncands++;
				programs++;
			}
		}
		m.shard = i;
		walk_state = &m;
		if (nftw(dirs[i], on_entry, 16, FTW_PHYS) != 0)
			fprintf(log, "iwspec fuzz: --merge: %s: not all of it could be read (%s)\n", dirs[i], strerror(errno));
	}
	/* Each program once, and only when it reached an arc first that no program taken before it
	 * did: the merge deduplicates by what the programs reach. */
	if (ncands)
		qsort(cands, ncands, sizeof *cands, by_reach);
	if (all->total && !(covered = calloc((size_t)((all->total + 7) / 8), 1))) {
		fprintf(stderr, "iwspec fuzz: --merge: out of memory\n");
		status = IW_EXIT_ERROR;
		goto done;
	}
	for (size_t k = 0; k < ncands; k++) {
		const cand *c = &cands[k];
		bool same = false, news = !c->nreach || !covered;
		for (size_t j = 0; j < all->n && !same; j++)
			same = nf_prog_hash(all->e[j].p) == c->hash;
		for (uint32_t r = 0; r < c->nreach && !news; r++)
			news = c->reach[r] >= all->total || !(covered[c->reach[r] / 8] & (1u << (c->reach[r] % 8)));
		if (same || !news) {
			if (same)
				dup++;
			else
				covered_by_others++;
			continue;
		}
		if (nf_corpus_keep_reach(all, c->p, c->gain, c->reach, c->nreach, NULL, &e) != IW_OK) {
			fprintf(stderr, "iwspec fuzz: --merge: %s\n", e.msg);
			status = IW_EXIT_ERROR;
			goto done;
		}
		for (uint32_t r = 0; covered && r < c->nreach; r++)
			if (c->reach[r] < all->total)
				covered[c->reach[r] / 8] |= (uint8_t)(1u << (c->reach[r] % 8));
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
	fprintf(log, "fuzz merge: %d shard(s), %d corpora: %llu kept programs (%llu the same program as another, %llu "
		"reaching first no arc that the programs taken before them did not: left out), %zu in the merged corpus; "
		"kernel arcs %llu/%llu; %zu finding directories, %zu distinct findings (%zu seen "
		"by more than one shard); %s/corpus/, %s/findings.tsv\n", ndirs, corpora, (unsigned long long)programs,
		(unsigned long long)dup, (unsigned long long)covered_by_others, all->n, (unsigned long long)all->hit,
		(unsigned long long)all->total, m.seen, m.n, several, out, out);
done:
	for (size_t k = 0; k < ncands; k++) {
		free(cands[k].p);
		free(cands[k].reach);
	}
	free(cands);
	free(covered);
	if (all)
		nf_corpus_free(all);
	if (one)
		nf_corpus_free(one);
	free(all);
	free(one);
	free(m.f);
	return status;
}
