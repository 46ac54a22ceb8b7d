#include "suitsim/core/text_input.h"

#include <filesystem>

namespace suitsim {

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
