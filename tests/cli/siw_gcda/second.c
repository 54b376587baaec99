/* A second profiled unit: the section between gcov_begin.o and gcov_end.o must hold both. */
int twice(int x) { return x > 100 ? x : 2 * x; }
