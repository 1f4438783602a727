// simdjson, included with its own checks of its own invariants off. Every
// file that uses simdjson includes it through here, never <simdjson.h>
// itself, so every copy of its inline functions is the same one (the
// linker keeps one of them for all).
//
// Without NDEBUG, simdjson's SIMDJSON_ASSUME is an assert(), and the
// on-demand iterator's checks (assert_at_start, assert_at_next, ...) are
// out-of-line calls on every value: 11-12 % of a pytest-benchmark, asv or
// BMF parse's instructions (callgrind). simdjson asks for NDEBUG in a
// release build; the build here keeps assert() for everything else, so
// NDEBUG is defined around this include only, and assert() is put back
// after it. An AddressSanitizer build (the tests' and the fuzzers') keeps
// simdjson's checks, where a misuse of its on-demand API would show.
#pragma once

#if defined(__SANITIZE_ADDRESS__)  // GCC
#define BB_SIMDJSON_CHECKS
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)  // clang
#define BB_SIMDJSON_CHECKS
#endif
#endif

#if !defined(NDEBUG) && !defined(BB_SIMDJSON_CHECKS)
#define NDEBUG
#include <simdjson.h>
#undef NDEBUG
#include <assert.h>  // assert() as it was: <assert.h> defines it anew on each include
#else
#include <simdjson.h>
#endif
