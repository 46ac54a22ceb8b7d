// Reading text files a user hands us (scenes, motion tables, sensor
// streams) without trusting them: a FIFO or a device blocks forever or
// never ends, and a file without line breaks (/dev/zero) would be read into
// one line until memory runs out. Both are refused with a message.
#pragma once

#include <cstddef>
#include <istream>
#include <string>

namespace suitsim {

/// Longest line any of our text formats needs (a stream row of a few
/// hundred channels is ~10 kB); longer is not one of our files.
constexpr std::size_t kMaxLineLength = 1 << 20;

/// Empty when `path` names a regular file; otherwise what it is instead
/// ("no such file", "a symlink loop: ELOOP, ...", "is a directory", "is
/// not a regular file (a FIFO, device or socket)", or the system's reason).
std::string regularFileProblem(const std::string& path);

enum class LineRead { kLine, kEnd, kTooLong };

/// std::getline with a bound: reads one line (without its '\n', and without
/// a trailing '\r') of at most `max_length` characters.
LineRead readLine(std::istream& in, std::string& line, std::size_t max_length = kMaxLineLength);

}  // namespace suitsim
