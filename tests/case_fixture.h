/*
 * case_fixture.h - what the case-parser tests share (tests/test_case_parse*.c): a case using
 * every step kind and value syntax, and a parse that must succeed.
 */
#ifndef IW_TEST_CASE_FIXTURE_H
#define IW_TEST_CASE_FIXTURE_H

#include "case.h"

/* Every step kind of the language; its comments give the line number of some steps, and
 * tests/test_case_parse.c checks the parse step by step (28 steps). */
extern const char full_case[];

/* Parses text as "t.iwt"; a failure is recorded at the caller's line and gives NULL. */
iw_case *parse_ok_at(const char *file, int line, const char *text);
#define parse_ok(text) parse_ok_at(__FILE__, __LINE__, (text))

#endif
