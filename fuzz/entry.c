/*
 * entry.c - the libFuzzer entry point of one target, compiled once per target with
 * -DIW_FUZZ_TARGET=<name>: LLVMFuzzerTestOneInput calls iw_fuzz_<name>. The same object links
 * with libFuzzer (clang -fsanitize=fuzzer), with AFL++'s libFuzzer-compatible driver
 * (afl-clang-fast -fsanitize=fuzzer) and with fuzz/standalone_main.c.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz.h"

#ifndef IW_FUZZ_TARGET
#error "compile with -DIW_FUZZ_TARGET=<target name>"
#endif

#define IW_FUZZ_CAT2(a, b) a##b
#define IW_FUZZ_CAT(a, b) IW_FUZZ_CAT2(a, b)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return IW_FUZZ_CAT(iw_fuzz_, IW_FUZZ_TARGET)(data, size);
}
