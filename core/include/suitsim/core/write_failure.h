// Why writing a file failed, in words a user can act on. The front ends
// ignore SIGXFSZ (experiment/interrupt.h), so a write past the process's
// file-size limit (ulimit -f) fails with EFBIG instead of killing the
// process with its temporary files left behind. Streams and stdio keep no
// errno of a write that failed in a buffer, but such a file stops exactly at
// the limit, so its size tells.
#pragma once

#include <filesystem>
#include <string>

namespace suitsim {

/// Whether `written` has reached the limit of RLIMIT_FSIZE (never, without
/// a limit): a write to it failed with EFBIG.
bool reachedFileSizeLimit(const std::filesystem::path& written);

/// "file size limit reached writing SHOWN" when `written` (the file as it
/// is on disk, perhaps under a temporary name) reached the limit of
/// RLIMIT_FSIZE; otherwise "writing SHOWN failed". `shown` defaults to
/// `written`.
std::string writeFailure(const std::filesystem::path& written, const std::filesystem::path& shown = {});

}  // namespace suitsim
