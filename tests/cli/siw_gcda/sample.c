/* A unit profiled two ways by tests/cli/siw_gcda.sh: branches, a loop, a switch, a function
 * never called and one called through a pointer, so every kind of arc gcov reports is there. */
static int never(int x) { return x * 7; }
int step(int x)
{
	if (x > 40)
		return x / 2;
	for (int i = 0; i < x % 5; i++)
		x += i;
	switch (x & 3) {
	case 0: return x + 1;
	case 1: return x - 1;
	default: return x;
	}
}
int (*volatile pick)(int) = step;
int run(int n)
{
	int acc = 0;
	for (int i = 0; i < n; i++)
		acc += pick(i);
	return n < 0 ? never(acc) : acc;
}
