// Numbers and text, both ways, one implementation each.
//
// Reading: exactly as std::from_chars does (no leading spaces or '+', the
// shortest correctly rounded double), on every standard library. libc++
// before version 17 has no floating-point from_chars; there the C library's
// strtod in the "C" locale reads it, after the checks that keep to
// from_chars's grammar (no spaces, no '+', no hexadecimal).
//
// Writing: `digits` significant digits, printf's %.*g (messages name values
// to 6 or 9 digits; files written to be read again use 10 where the value
// came from text of that many, or the shortest round trip).
#pragma once

#include <charconv>
#include <string>

namespace suitsim {

/// std::from_chars(first, last, value) for a double, general format.
std::from_chars_result fromChars(const char* first, const char* last, double& value);

/// Integers: std::from_chars as it is (every standard library has it).
template <typename T>
std::from_chars_result fromChars(const char* first, const char* last, T& value) {
  return std::from_chars(first, last, value);
}

/// `x` with `digits` significant digits, as printf's "%.*g" ("inf", "nan"
/// as printf writes them).
std::string significantText(double x, int digits);

/// The shortest text that reads back as the same double (std::to_chars).
std::string shortestText(double x);

}  // namespace suitsim
