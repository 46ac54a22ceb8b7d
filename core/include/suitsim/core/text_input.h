// Reading text files a user hands us (scenes, motion tables, sensor
// streams) without trusting them: a FIFO or a device blocks forever or
// never ends, and a file without line breaks (/dev/zero) would be read into
// one line until memory runs out. Both are refused with a message.
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <vector>

namespace suitsim {

/// Longest line any of our text formats needs (a stream row of a few
/// hundred channels is ~10 kB); longer is not one of our files.
constexpr std::size_t kMaxLineLength = 1 << 20;

/// Empty when `path` names a regular file; otherwise what it is instead
/// ("no such file", "a symlink loop: ELOOP, ...", "is a directory", "is
/// not a regular file (a FIFO, device or socket)", or the system's reason).
std::string regularFileProblem(const std::string& path);

enum class LineRead { kLine, kEnd, kTooLong };

/// The fields of a delimited text row (a CSV line): every text between
/// delimiters, empty ones included, untrimmed.
std::vector<std::string> splitFields(const std::string& line, char delimiter = ',');

/// `s` without leading and trailing blanks (spaces, tabs, '\r').
std::string trimBlanks(const std::string& s);

/// Reads the whole of `text` (blanks around it allowed) as a finite double,
/// exactly as std::from_chars does (number_text.h); false for an empty
/// field, junk after the number, NaN, infinities and overflow.
bool parseFiniteNumber(const std::string& text, double* out);

/// std::getline with a bound: reads one line (without its '\n', and without
/// a trailing '\r') of at most `max_length` characters.
LineRead readLine(std::istream& in, std::string& line, std::size_t max_length = kMaxLineLength);

}  // namespace suitsim
