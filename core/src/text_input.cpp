#include "suitsim/core/text_input.h"

#include <cmath>
#include <filesystem>
#include <system_error>

#include "suitsim/core/number_text.h"

namespace suitsim {

std::vector<std::string> splitFields(const std::string& line, char delimiter) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = line.find(delimiter, start);
    out.push_back(line.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return out;
}

std::string trimBlanks(const std::string& s) {
  const std::size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  const std::size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

bool parseFiniteNumber(const std::string& text, double* out) {
  const std::string t = trimBlanks(text);
  if (t.empty()) return false;
  const char* end = t.data() + t.size();
  const auto r = fromChars(t.data(), end, *out);
  return r.ec == std::errc() && r.ptr == end && std::isfinite(*out);
}

std::string regularFileProblem(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  // A symlink loop, a permission or a path through a file: status() fails
  // with the reason, and "no such file" would send the user looking for a
  // file that is there.
  if (ec == std::errc::too_many_symbolic_link_levels) return "a symlink loop: ELOOP, too many levels of symbolic links";
  if (ec && ec != std::errc::no_such_file_or_directory) return ec.message();
  if (!std::filesystem::exists(status)) return "no such file";
  if (std::filesystem::is_directory(status)) return "is a directory";
  if (!std::filesystem::is_regular_file(status)) return "is not a regular file (a FIFO, device or socket)";
  return {};
}

LineRead readLine(std::istream& in, std::string& line, std::size_t max_length) {
  line.clear();
  std::istream::sentry ok(in, true);
  if (!ok) return LineRead::kEnd;
  std::streambuf* buf = in.rdbuf();
  bool any = false;
  for (;;) {
    const int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      break;
    }
    any = true;
    if (c == '\n') break;
    if (line.size() >= max_length) return LineRead::kTooLong;
    line.push_back(static_cast<char>(c));
  }
  if (!any) return LineRead::kEnd;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return LineRead::kLine;
}

}  // namespace suitsim
