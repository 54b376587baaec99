/*
 * The first entry of the section .gcov_info, where -fprofile-info-section puts a pointer to each
 * profiled unit's gcov_info (gcda.h). A relocatable link (a kernel module's, ld -r) concatenates
 * a section's parts in the order of its input files and defines no __start_ symbol for it, so the
 * section is bracketed by two objects instead: this one linked first, gcov_end.c last. The
 * entries are null: a reader skips them. Writable, as the compiler's own entries are.
 */
__attribute__((section(".gcov_info"), used)) const void *siw_gcov_section_begin[1] = {0};
