#include "suitsim/core/number_text.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <locale.h>
#include <string>
#include <system_error>

namespace suitsim {

#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
std::from_chars_result fromChars(const char* first, const char* last, double& value) {
  return std::from_chars(first, last, value);
}
#else
std::from_chars_result fromChars(const char* first, const char* last, double& value) {
  // from_chars's grammar: an optional '-', then digits with an optional
  // point and exponent, or inf / infinity / nan; never a space, a '+' or
  // a "0x" prefix, all of which strtod would take.
  const char* p = first;
  if (p < last && *p == '-') ++p;
  const bool starts_well = p < last && ((*p >= '0' && *p <= '9') || *p == '.' || *p == 'i' || *p == 'I' ||
                                        *p == 'n' || *p == 'N');
  const bool hex = p + 1 < last && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
  if (!starts_well || hex) return {first, std::errc::invalid_argument};
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr));
  const std::string text(first, last);  // strtod needs a terminated string
  char* end = nullptr;
  errno = 0;
  const double v = strtod_l(text.c_str(), &end, c_locale);
  if (end == text.c_str()) return {first, std::errc::invalid_argument};
  const char* stop = first + (end - text.c_str());
  if (errno == ERANGE) return {stop, std::errc::result_out_of_range};
  value = v;
  return {stop, std::errc()};
}
#endif

std::string significantText(double x, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", digits, x);
  return text;
}

std::string shortestText(double x) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, x).ptr;
  return std::string(text, end);
}

}  // namespace suitsim
