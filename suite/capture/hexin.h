/*
 * hexin.h - reading a byte stream given on the command line: hex text or a file.
 */
#ifndef IW_HEXIN_H
#define IW_HEXIN_H

#include <stddef.h>
#include <stdint.h>

/* The value of one hex digit, or -1. */
int iw_hex_digit(char c);

/* Parses hex digits, allowing spaces, tabs, newlines, colons and dashes between octets and
 * an optional 0x prefix. On error returns -1 and writes a message naming the offending
 * character and its position (or the odd digit count) into msg. *out is malloc'd. */
int iw_hex_parse(const char *hex, uint8_t **out, size_t *len, char *msg, size_t msgcap);

/* Reads a whole file ("-" = standard input) of at most max octets into *out (malloc'd). Returns
 * 0, IW_ENOSPC when the file is larger than max, or -1 (cannot open or read, out of memory);
 * msg names the file and the fault. */
int iw_read_input(const char *path, size_t max, uint8_t **out, size_t *len, char *msg, size_t msgcap);

#endif
