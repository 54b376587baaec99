/* The sample built with -fprofile-info-section, between gcov_begin.o and gcov_end.o as siw.ko is,
 * run once, then its .gcda written by gcda.h's writer, which siw_gcov.c uses in the guest. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
typedef uint32_t u32;
typedef uint64_t u64;
#include "gcda.h"

int run(int n);
int twice(int x);
/* Named in each gcov_info, called only by libgcov when it merges runs: never here. */
void __gcov_merge_add(u64 *counters, u32 n);
void __gcov_merge_add(u64 *counters, u32 n) { (void)counters; (void)n; }
extern const void *siw_gcov_section_begin[1], *siw_gcov_section_end[1];

int main(void)
{
	if (run(60) == 0 || twice(3) != 6)
		return 2;
	int units = 0;
	for (const void **p = siw_gcov_section_begin; p <= siw_gcov_section_end; p++) {
		const struct gcov_info *gi = *p;
		if (!gi)
			continue;
		u32 n = gcda_write(gi, NULL, 0);
		if (gcda_max_size(gi) < n)
			return 7;
		/* Too small a buffer: nothing written past it, the size still told. */
		unsigned char small[8] = {0};
		if (gcda_write(gi, small, 6) != n || small[4] || small[5] || small[6] || small[7])
			return 6;
		unsigned char *buf = malloc(n);
		if (!buf || gcda_write(gi, buf, n) != n)
			return 3;
		FILE *f = fopen(gi->filename, "wb");
		if (!f || fwrite(buf, 1, n, f) != n || fclose(f))
			return 4;
		free(buf);
		units++;
	}
	printf("units %d\n", units);
	return units ? 0 : 5;
}
