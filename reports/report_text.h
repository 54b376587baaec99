/*
 * report_text.h - text helpers shared by the report writers (internal to reports/).
 *
 * Report text mixes our own words with octets a DUT chose. These helpers turn any octet
 * string into text each output can hold: valid UTF-8 for jansson, escaped XML 1.0 for JUnit,
 * and inert text for a terminal. All return a malloc'd NUL-terminated string, or NULL when
 * memory runs out.
 */
#ifndef IW_REPORT_TEXT_H
#define IW_REPORT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "case.h"

/* Decodes one UTF-8 sequence of s[0..n) (n >= 1) strictly (no overlongs, no surrogates, nothing
 * above U+10FFFF). Returns the octets consumed, 1 for an invalid lead or sequence, and sets
 * *cp (U+FFFD when invalid). */
size_t iw_utf8_next(const unsigned char *s, size_t n, uint32_t *cp, bool *valid);

/* s with every invalid UTF-8 sequence replaced by U+FFFD. */
char *iw_text_utf8(const char *s, size_t n);

/* s escaped for XML 1.0 text (attr false: & < > escaped) or a quoted attribute value (attr
 * true: also " ' and TAB, LF, CR as character references, which attribute normalisation
 * would otherwise turn into spaces). Characters XML 1.0 forbids (C0 controls other than
 * TAB, LF, CR; U+FFFE, U+FFFF) become the escape text "\xNN" / U+FFFD; invalid UTF-8 becomes
 * U+FFFD. */
char *iw_text_xml(const char *s, size_t n, bool attr);

/* s made inert for a terminal: C0 controls other than LF and TAB, and DEL, become "\xNN"
 * (so an ESC from a DUT cannot drive the terminal); C1 controls and invalid UTF-8 become
 * U+FFFD. */
char *iw_text_console(const char *s, size_t n);

/* "2024-05-01T12:34:56.789Z" (with_ms true) or "2024-05-01T12:34:56" (false, for JUnit's
 * timestamp, which has no zone), UTC. buf holds at least 32 octets. */
void iw_text_time(int64_t unix_ms, bool with_ms, char *buf, size_t cap);

/* "MUST", "SHOULD", "MAY", "INFO" (as in requirements.md), "?" otherwise. */
const char *iw_text_level(enum iw_level l);

#endif
