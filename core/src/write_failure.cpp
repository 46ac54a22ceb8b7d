#include "suitsim/core/write_failure.h"

#include <sys/resource.h>

namespace suitsim {

bool reachedFileSizeLimit(const std::filesystem::path& written) {
  rlimit limit{};
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(written, ec);
  return !ec && getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && size >= limit.rlim_cur;
}

std::string writeFailure(const std::filesystem::path& written, const std::filesystem::path& shown) {
  const std::string name = (shown.empty() ? written : shown).string();
  if (reachedFileSizeLimit(written)) {
    std::error_code ec;
    return "file size limit reached writing " + name + " (" + std::to_string(std::filesystem::file_size(written, ec)) +
           " bytes; ulimit -f)";
  }
  return "writing " + name + " failed";
}

}  // namespace suitsim
