/* The last entry of the section .gcov_info: gcov_begin.c says why. */
__attribute__((section(".gcov_info"), used)) const void *siw_gcov_section_end[1] = {0};
