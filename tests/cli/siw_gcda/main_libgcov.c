/* The reference: the sample linked with libgcov, which writes sample.gcda at exit. */
int run(int n);
int twice(int x);
int main(void) { return run(60) == 0 || twice(3) != 6; }
