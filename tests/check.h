/*
 * check.h - the project's own test framework, small enough to read in one go.
 *
 * A test is a function registered with TEST(name); CHECK* macros record a failure with the
 * file and line and keep going, so one run shows every broken expectation. The runner
 * (tests/run_tests.c, --help) runs all tests, or those whose name contains its argument, in
 * worker processes side by side, and ends with the line "N passed, N failed". Tests must not
 * depend on one another's order or state: each may run in any worker, beside any other.
 */
#ifndef IW_CHECK_H
#define IW_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef void (*check_fn)(void);
void check_register(const char *name, check_fn fn);
void check_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Formats n octets as hex for failure messages (rotating static buffers). */
const char *check_hex(const void *p, size_t n);

#define TEST(name)                                                                 \
	static void test_##name(void);                                             \
	__attribute__((constructor)) static void reg_##name(void)                  \
	{                                                                          \
		check_register(#name, test_##name);                                \
	}                                                                          \
	static void test_##name(void)

#define CHECK(cond)                                                                \
	do {                                                                       \
		if (!(cond))                                                       \
			check_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);        \
	} while (0)

#define CHECK_EQ(a, b)                                                             \
	do {                                                                       \
		long long _a = (long long)(a), _b = (long long)(b);                \
		if (_a != _b)                                                      \
			check_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, _a, _b); \
	} while (0)

#define CHECK_MEM(a, b, n)                                                         \
	do {                                                                       \
		const void *_pa = (a), *_pb = (b);                                 \
		size_t _n = (n);                                                   \
		if (memcmp(_pa, _pb, _n) != 0)                                     \
			check_fail(__FILE__, __LINE__, "%s != %s:\n   got  %s\n   want %s", #a, #b, \
				   check_hex(_pa, _n), check_hex(_pb, _n));        \
	} while (0)

#define CHECK_STR(a, b)                                                            \
	do {                                                                       \
		const char *_sa = (a), *_sb = (b);                                 \
		if (!_sa || !_sb || strcmp(_sa, _sb) != 0)                         \
			check_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b, \
				   _sa ? _sa : "(null)", _sb ? _sb : "(null)");    \
	} while (0)

/* Parses a hex string ("00 2a 40 ..." spaces allowed) into out; returns the octet count. */
size_t check_unhex(const char *hex, uint8_t *out, size_t cap);

#endif
