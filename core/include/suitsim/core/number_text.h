// Reading a number from text exactly as std::from_chars does (no leading
// spaces or '+', the shortest correctly rounded double), on every standard
// library. libc++ before version 17 has no floating-point from_chars; there
// the C library's strtod in the "C" locale reads it, after the checks that
// keep to from_chars's grammar (no spaces, no '+', no hexadecimal).
#pragma once

#include <charconv>

namespace suitsim {

/// std::from_chars(first, last, value) for a double, general format.
std::from_chars_result fromChars(const char* first, const char* last, double& value);

/// Integers: std::from_chars as it is (every standard library has it).
template <typename T>
std::from_chars_result fromChars(const char* first, const char* last, T& value) {
  return std::from_chars(first, last, value);
}

}  // namespace suitsim
